"""The embedded models load offline from their PyPI packages; probe trains a real head."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.errors import RobustError
from robust.core.plugins import get_registry


def test_minilm_embeds_like_sentence_transformers():
    model = get_registry().model("minilm")
    e = model.embed(["The film was great.", "The movie was excellent.", "I hate tax forms."])
    e = e / np.linalg.norm(e, axis=1, keepdims=True)
    assert e.shape == (3, 384)
    assert abs(e[0] @ e[1] - 0.928) < 0.01 and abs(e[0] @ e[2]) < 0.05  # SentenceTransformer.encode: 0.928, −0.008


def test_probe_learns_a_separable_task(tmp_path):
    pos = ["a wonderful, moving film", "great acting and a great story", "i loved every minute", "brilliant and funny",
           "a delight from start to finish", "superb direction", "beautiful and touching", "an excellent movie"]
    neg = ["a dull, boring mess", "terrible acting and a weak story", "i hated every minute", "awful and tedious",
           "a waste of time", "poor direction", "ugly and pointless", "a dreadful movie"]
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n"
                            for texts, lab in ((pos, "pos"), (neg, "neg")) for t in texts))
    probe = get_registry().model("probe:minilm", train=str(path))
    assert probe.labels == ["neg", "pos"] and probe.provides() == {"classify", "embed"}
    p = probe.classify(["what a fantastic, lovely film", "a boring and awful film"])
    assert p[0].argmax() == 1 and p[1].argmax() == 0
    assert probe.info()["train_size"] == 16


def test_a_probe_head_records_its_embedder_and_is_refused_for_another(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"text": f"{w} film {i}", "label": w}) + "\n"
                            for i in range(6) for w in ("good", "bad")))
    get_registry().model("probe:minilm", train=str(path)).info()  # trains and caches the head
    (head,) = (tmp_path / "cache" / "probes").glob("*.json")
    data = json.loads(head.read_text())
    assert data["domain"]["embedder"].startswith("minilm@") and data["domain"]["train"] == str(path)
    data["domain"]["embedder"] = "other-encoder"  # a head file that came from another embedder
    head.write_text(json.dumps(data))
    with pytest.raises(RobustError, match="trained on other-encoder embeddings"):
        get_registry().model("probe:minilm", train=str(path)).info()  # reads the head


def test_function_model_wraps_a_callable():
    model = FunctionModel(lambda texts: [[1.0 - len(t) % 2, len(t) % 2] for t in texts], "classify", "parity",
                          labels=["even", "odd"])
    assert model.classify(["ab", "abc"]).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert model.provides() == {"classify"} and model.identity == "function:parity"


def test_smollm2_perplexity_separates_clean_from_scrambled_text():
    model = get_registry().model("smollm2")
    clean, scrambled = model.logprobs(["She went to the store to buy some milk and bread.",
                                       "She went the to store buy to milk some bread and."])
    assert np.exp(-clean.mean()) * 10 < np.exp(-scrambled.mean())  # measured perplexity: 16.6 vs 1737


def test_a_helper_embeds_a_text_as_it_would_alone():
    """A helper model (here the embedded MiniLM a transform measures with) batches only texts of one length (its
    `max_padding` defaults to 0 there), so a text's vector does not depend on the texts a chunk put beside it: a
    degree measured by it is a function of the text. The model under test keeps its padded batches (negative
    control: padding changes the last float bits)."""
    from robust.core.context import RunContext

    ctx = RunContext("t", 0, None, get_registry(), None, None, [])
    helper = ctx.load_model("minilm", {"embed"})
    assert helper.max_padding == 0.0
    text = "the film is a quiet triumph ."
    others = ["a long, rambling and tedious film that never quite finds its footing or its reason to exist .",
              "dull .", "an uneven but often moving portrait of a family in crisis ."]
    alone = helper.embed([text])[0]
    helper.cache.clear()
    assert np.array_equal(helper.embed([*others, text])[-1], alone)
    padded = get_registry().model("minilm")  # as a model under test: batches padded up to 10 %
    assert padded.max_padding == 0.1
    padded.max_padding = 1.0  # one batch of all four, padded to the longest
    assert not np.array_equal(padded.embed([*others, text])[-1], alone)


def test_a_setting_that_changes_what_a_model_computes_changes_its_identity_and_the_probe_head(tmp_path, monkeypatch):
    """`minilm.max_length=8` truncates what MiniLM reads: its identity says so, so probe:minilm fits a head of its own
    rather than reuse the one fitted on whole sentences. Batch size changes no identity (nor any output)."""
    import robust

    registry = get_registry()
    plain = registry.model("minilm").identity
    assert registry.model("minilm", batch_size=3).identity == plain
    assert registry.model("minilm", max_length=8, dtype="float32").identity == f"{plain}[max_length=8,dtype=float32]"
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path / "cache"))
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps({"text": f"a {w} film, {w} in every way, take {i}", "label": w}) + "\n"
                             for i in range(6) for w in ("good", "bad")))
    rows = [{"text": "a good film", "label": "good"}, {"text": "a bad film", "label": "bad"}]
    store = tmp_path / "runs.db"
    for extra in ({}, {"minilm.max_length": 8}):
        run = robust.run("accuracy", model="probe:minilm", data=rows, settings={"model.train": str(train), **extra},
                         store=store)
        assert run.status == "finished"
    heads = sorted(json.loads(p.read_text())["domain"]["embedder"] for p in (tmp_path / "cache" / "probes").glob("*"))
    assert heads == [plain, f"{plain}[max_length=8]"]
