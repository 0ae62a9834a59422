"""hf: batches by token length with little padding, and causal-LM logits only at the positions a query reads."""

from __future__ import annotations

import numpy as np
import pytest

from robust.plugins.models.hf import HFModel

TEXTS = ["Short.", "A somewhat longer sentence about nothing in particular.", "Mid length words here",
         "One more sentence that is quite a bit longer than the others, with clauses, commas and more words.",
         "Tiny", "Another medium sentence of a few words."]


@pytest.fixture(params=["gpt2", "llama"])
def lm_dir(request, gpt2_dir, llama_dir):
    return {"gpt2": gpt2_dir, "llama": llama_dir}[request.param]


def _full(model: HFModel) -> HFModel:
    """The same model computing full logits at every position (no body/head split), batch size 1."""
    full = HFModel(model.arg, batch_size=1)
    full.__dict__["_split"] = None
    return full


def test_logits_at_read_positions_equal_full_logits(lm_dir):
    import torch

    model = HFModel(str(lm_dir), batch_size=4)
    assert model._split is not None  # both architectures split into body + LM head
    full = _full(model)
    assert np.allclose(model.next_token_distribution(TEXTS), full.next_token_distribution(TEXTS), atol=1e-5)
    for a, b in zip(model.token_distributions(TEXTS, 1), full.token_distributions(TEXTS, 1)):
        assert a.shape == b.shape and np.allclose(a, b, atol=1e-5)
    for a, b in zip(model.logprobs(TEXTS), full.logprobs(TEXTS)):
        assert a.shape == b.shape and np.allclose(a, b, atol=1e-4)
    ids = model.tokenize(TEXTS[3:4])[0]
    with torch.inference_mode():  # reference: the model itself on one unpadded sequence
        ref = model.model(torch.tensor([ids])).logits[0, -1].float().softmax(-1).numpy()
    assert np.allclose(model.next_token_distribution(TEXTS[3:4])[0], ref, atol=1e-5)


def test_a_model_whose_head_does_not_reproduce_its_logits_keeps_full_logits(gpt2_dir):
    import torch

    model = HFModel(str(gpt2_dir))
    wrong = torch.nn.Linear(model.model.config.n_embd, model.model.config.vocab_size, bias=False)
    model.model.get_output_embeddings = lambda: wrong  # negative control: the probe check must catch it
    assert model._split is None
    assert np.allclose(model.next_token_distribution(TEXTS), _full(model).next_token_distribution(TEXTS), atol=1e-5)


def test_forward_batches_are_formed_by_token_length(gpt2_dir, monkeypatch):
    model = HFModel(str(gpt2_dir), batch_size=32)
    texts = [" ".join(["word"] * n) for n in (3, 40, 4, 41, 5, 42, 39, 6)]
    seen = []
    original = model._pad

    def record(ids, left=False):
        seen.append(sorted(len(r) for r in ids))
        return original(ids, left)

    monkeypatch.setattr(model, "_pad", record)
    model.logprobs(texts)
    long = sorted(len(r) for r in model.tokenize(texts) if len(r) > 100)
    assert long in seen and all(b[-1] - b[0] <= 10 for b in seen)  # short and long never share a batch
    assert model.input_lengths(["word word"]) == [len(model.tokenize(["word word"])[0])]
    # negative control: with the padding cap off (max_padding=1) one batch mixes 3 and 42 words
    fixed = HFModel(str(gpt2_dir), batch_size=32, max_padding=1.0)
    seen.clear()
    monkeypatch.setattr(fixed, "_pad", record)
    fixed.logprobs(texts)
    assert len(seen) == 1 and seen[0][-1] - seen[0][0] > 30
