"""finetune:minilm trains the whole encoder + a head, deterministically, and caches the weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.core.plugins import get_registry

POS = ["a wonderful, moving film", "great acting and a great story", "i loved every minute", "brilliant and funny",
       "a delight from start to finish", "superb direction", "beautiful and touching", "an excellent movie",
       "a joyous treat", "charming and clever"]
NEG = ["a dull, boring mess", "terrible acting and a weak story", "i hated every minute", "awful and tedious",
       "a waste of time", "poor direction", "ugly and pointless", "a dreadful movie", "a joyless chore",
       "clumsy and stupid"]
SETTINGS = {"epochs": 4, "lr": 1e-4, "train_batch_size": 8, "max_length": 16, "holdout": 0.2}


@pytest.fixture
def train_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n"
                            for texts, lab in ((POS, "pos"), (NEG, "neg")) for t in texts))
    return path


def test_finetune_learns_reports_holdout_and_caches(train_file, tmp_path):
    model = get_registry().model("finetune:minilm", train=str(train_file), **SETTINGS)
    assert model.labels == ["neg", "pos"] and model.provides() == {"classify", "embed"}
    p = model.classify(["what a fantastic, lovely film", "a boring and awful film"])
    assert p[0].argmax() == 1 and p[1].argmax() == 0
    info = model.info()
    assert info["train_size"] == 16 and info["holdout_size"] == 4 and 0.0 <= info["holdout_accuracy"] <= 1.0
    weights = list((tmp_path / "cache" / "finetuned").glob("*/weights.pt"))
    assert len(weights) == 1
    again = get_registry().model("finetune:minilm", train=str(train_file), **SETTINGS)
    assert again.identity == model.identity and again.info()["train_seconds"] == info["train_seconds"]  # cached
    np.testing.assert_allclose(again.classify(["a joyous treat"]), model.classify(["a joyous treat"]), atol=1e-5)
    other = get_registry().model("finetune:minilm", train=str(train_file), **{**SETTINGS, "seed": 1})
    assert other.identity != model.identity  # hyper-parameters are part of the cache key
    meta_file = weights[0].parent / "meta.json"
    meta = json.loads(meta_file.read_text())
    assert meta["encoder"].startswith("minilm@") and meta["train"] == str(train_file) and meta["data_hash"]
    meta_file.write_text(json.dumps({**meta, "encoder": "other-encoder"}))  # weights from another encoder
    with pytest.raises(RobustError, match="start from other-encoder"):
        get_registry().model("finetune:minilm", train=str(train_file), **SETTINGS).info()  # reads meta.json


def test_finetune_is_deterministic_under_its_seed(train_file, tmp_path, monkeypatch):
    first = get_registry().model("finetune:minilm", train=str(train_file), **SETTINGS)
    probs = first.classify(["an odd little film"])
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path / "cache2"))
    second = get_registry().model("finetune:minilm", train=str(train_file), **SETTINGS)
    np.testing.assert_allclose(second.classify(["an odd little film"]), probs, atol=1e-4)


def test_finetune_rejects_bad_settings_and_data(train_file, tmp_path):
    with pytest.raises(RobustError):
        get_registry().model("finetune:minilm", holdout=1.5)
    one_label = tmp_path / "one.jsonl"
    one_label.write_text(json.dumps({"text": "x", "label": "a"}) + "\n")
    with pytest.raises(RobustError):
        _ = get_registry().model("finetune:minilm", train=str(one_label)).labels


def test_finetune_is_robtests_default_victim_for_user_data_and_only_its_held_out_share_is_evaluated(train_file):
    from robust.core.context import RunContext
    from robust.plugins.benchmarks.robtest.benchmark import RobTest

    assert RobTest.default_model_for(None, {}) == ("probe:minilm", {})
    spec, settings = RobTest.default_model_for(str(train_file), {"text_column": "text", "n": "5"})
    assert spec == "finetune:minilm" and settings == {"train": str(train_file), "text_column": "text"}
    model = get_registry().model(spec, **settings, **{k: v for k, v in SETTINGS.items() if k != "holdout"})
    train, held = model.split()
    assert model.trained_on(str(train_file)) == {ex.id for ex in train} and model.trained_on("mr") is None
    bench = RobTest(n=50)
    ctx = RunContext("t", 0, model, get_registry(), str(train_file), attacks=["typo-G"], model_spec=spec)
    model.bind(ctx)
    bench.bind(ctx).prepare(ctx)
    assert sorted(ex.id for ex in bench.examples) == sorted(ex.id for ex in held) and len(held) == 2
    # negative control: a model that was not trained on the data leaves every example in
    other = get_registry().model(spec, **SETTINGS)  # trained on mr-train
    ctx2 = RunContext("t", 0, other, get_registry(), str(train_file), attacks=["typo-G"], model_spec=spec)
    assert other.bind(ctx2).trained_on(str(train_file)) is None
