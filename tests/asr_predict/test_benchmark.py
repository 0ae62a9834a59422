"""The asr-predict benchmark: corpora and relabelling, the victim trainer, and build -> fit -> predict end to end."""

from __future__ import annotations

import csv
import json
import random

import pytest

from robust.core.errors import RobustError
from robust.plugins.benchmarks.asr_predict import data as corpora
from robust.plugins.benchmarks.asr_predict.victim import TrainConfig, train_victim


def toy_corpus(n_classes: int = 6, per_class: int = 40) -> corpora.Corpus:
    texts = [f"text {i} of class {c}" for c in range(n_classes) for i in range(per_class)]
    names = [f"c{c}" for c in range(n_classes) for _ in range(per_class)]
    return corpora.indexed("toy", "toy", texts, names)


def test_relabel_groups_shuffled_labels_and_drops_the_rest():
    corpus = toy_corpus(n_classes=7)
    four = corpora.relabel(corpus, 3, seed=0)  # interval 2: six old labels in three groups, one dropped
    assert four.n_classes == 3 and len(four.texts) == 6 * 40
    groups: dict[int, set[int]] = {}
    old = {t: y for t, y in zip(corpus.texts, corpus.labels)}
    for text, new in zip(four.texts, four.labels):
        groups.setdefault(new, set()).add(old[text])
    assert sorted(len(g) for g in groups.values()) == [2, 2, 2]  # consecutive groups of `interval`
    assert set().union(*groups.values()) <= set(range(6))  # label 6 >= interval*k is dropped
    assert corpora.relabel(corpus, 3, seed=0) == four  # seeded: the same grouping every time
    assert any(corpora.relabel(corpus, 3, seed=s).labels != four.labels for s in range(1, 6))
    with pytest.raises(RobustError, match="cannot make"):
        corpora.relabel(corpus, 8, seed=0)


def test_sub_datasets_are_disjoint_and_share_the_variants_attack_set():
    corpus = toy_corpus()
    a, b = (corpora.sample(corpus, i, (50, 10, 12), seed=0) for i in (0, 1))
    train, val = {t for t, _ in a.train}, {t for t, _ in a.val}
    held = {t for t, _ in a.attack} | {t for t, _ in a.mr_test}
    assert len(train) == 50 and len(val) == 10 and len(held) == 24
    assert not train & val and not (train | val) & held  # the code's train/val overlap is fixed (docs/asr_predict.md)
    assert a.attack == b.attack and a.mr_test == b.mr_test and a.train != b.train
    with pytest.raises(RobustError, match="too few"):
        corpora.sample(corpus, 0, (200, 10, 12), seed=0)


def test_plan_spreads_sub_datasets_over_the_variants():
    plan = corpora.plan(["wn-noun", "mr"], [2, 4], 7, seed=0)
    assert len(plan) == 7 and {(f, k) for f, k, _ in plan} == {("wn-noun", 2), ("wn-noun", 4), ("mr", 0)}
    assert len(set(plan)) == 7  # every (variant, index) once


@pytest.fixture(scope="module")
def minilm_dir():
    from robust.core.plugins import get_registry

    return get_registry().model("minilm").source


def test_a_trained_tiny_victim_beats_an_untrained_one(minilm_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path))
    rng = random.Random(0)
    good, bad = ["great", "wonderful", "superb", "lovely"], ["awful", "terrible", "dreadful", "boring"]
    texts, labels = [], []
    for i in range(160):
        label = i % 2
        texts.append(f"the film was {rng.choice(bad if label else good)} and {rng.choice(['long', 'short'])}")
        labels.append(label)
    trained, info = train_victim("tiny-bert", minilm_dir, texts[:120], labels[:120], texts[120:], labels[120:], 2,
                                 TrainConfig(epochs=10, seed=0))
    assert info["val_accuracy"] >= 0.9
    untrained, info0 = train_victim("tiny-bert", minilm_dir, texts[:120], labels[:120], texts[120:], labels[120:], 2,
                                    TrainConfig(epochs=1, lr=1e-9, seed=0))  # negative control: no learning
    assert info0["val_accuracy"] <= 0.75
    again, _ = train_victim("tiny-bert", minilm_dir, texts[:120], labels[:120], texts[120:], labels[120:], 2,
                            TrainConfig(epochs=10, seed=0))
    assert again == trained  # cached by data and hyper-parameters
    assert json.loads((trained / "config.json").read_text())["num_hidden_layers"] == 2


BUILD = ["--set", "stage=build", "--set", "subsets=6", "--set", "families=wn-noun,wn-verb", "--set",
         "class_counts=2", "--set", "train_size=40", "--set", "val_size=10", "--set", "test_size=10",
         "--set", "epochs=2", "--set", "attacks=saliency-greedy:typo-G", "--set", "budget=30"]


def test_build_fit_predict_end_to_end(cli, tmp_path):
    table, predictor = tmp_path / "table.csv", tmp_path / "predictor.json"
    paths = ["--set", f"table={table}", "--set", f"predictor={predictor}"]
    built = cli("run", "--bench", "asr-predict", *BUILD, *paths, timeout=600)
    assert built.returncode == 0, built.stderr
    with table.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6 and {r["Family"] for r in rows} == {"wn-noun", "wn-verb"}
    for row in rows:
        assert 0.0 <= float(row["ASR"]) <= 1.0 and float(row["classes"]) == 2
        assert float(row["ASR"]) == pytest.approx(float(row["ASR_saliency-greedy:typo-G"]))
        assert float(row["seconds_victim"]) > 0 and float(row["seconds_attacks"]) > 0

    fitted = cli("run", "--bench", "asr-predict", "--set", "stage=fit", "--set", "splits=5", "--set", "folds=3",
                 "--set", "repeats=1", *paths)
    assert fitted.returncode == 0, fitted.stderr
    assert predictor.is_file() and "baseline" in fitted.stdout

    data = tmp_path / "new.jsonl"
    lines = [{"text": f"a {w} thing number {i}", "label": w} for i in range(30) for w in ("red", "blue")]
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    predicted = cli("run", "--bench", "asr-predict", "--data", str(data), *paths)
    assert predicted.returncode == 0, predicted.stderr
    shown = cli("export", "latest", "-f", "jsonl")
    record = json.loads(shown.stdout.strip().splitlines()[0])
    assert 0.0 <= record["low"] <= record["asr"] <= record["high"] <= 1.0
    assert record["classes"] == 2 and set(record["features"]) >= {"avg_tokens", "fr", "mr", "kts"}


def test_predict_without_a_predictor_or_data_says_what_to_do(cli, tmp_path):
    missing = cli("run", "--bench", "asr-predict", "--data", "x.jsonl", "--set", f"predictor={tmp_path}/none.json")
    assert missing.returncode != 0 and "stage=fit" in missing.stderr and "Traceback" not in missing.stderr
    bad = cli("run", "--bench", "asr-predict", "--set", "stage=guess")
    assert bad.returncode != 0 and "stage" in bad.stderr and "Traceback" not in bad.stderr


def test_fit_refuses_a_table_too_small_to_evaluate(cli, tmp_path):
    from robust.plugins.benchmarks.asr_predict.constants import FEATURE_KEYS

    table = tmp_path / "small.csv"
    header = ["Dataset", "Family", *FEATURE_KEYS, "ASR"]
    rows = [[f"wn-noun_{k}", "wn-noun", *([1.0] * len(FEATURE_KEYS)), 0.5] for k in (2, 4)]
    table.write_text("\n".join(",".join(map(str, r)) for r in [header, *rows]) + "\n")
    out = cli("run", "--bench", "asr-predict", "--set", "stage=fit", "--set", f"table={table}")
    assert out.returncode != 0 and "fitting needs at least" in out.stderr and "Traceback" not in out.stderr
