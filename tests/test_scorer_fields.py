"""A third-party scorer can be written for every built-in benchmark: here one for `synbench` and one for
`asr-predict` (the two that offered no fields before), each registered like a plugin and run at small settings.
Each scorer recomputes from its rows a number the benchmark records itself, so the rows are the data the
benchmark measured, not an empty shell."""

from __future__ import annotations

import json

import numpy as np
import pytest

import robust
from robust import Scorer, hookimpl
from tests.asr_predict.conftest import synthetic_table


class PositiveShare(Scorer):
    name = "positive-share"
    description = "Share of +1 labels among a SynBench level's training representations"
    inputs = frozenset({"train_embeddings", "train_labels", "test_embeddings", "test_labels", "s"})

    def values(self, rows, model=None):
        for row in rows:  # one representation per label, of one width in both splits
            assert len(row["train_embeddings"]) == len(row["train_labels"]) and row["s"] > 0
            assert np.shape(row["train_embeddings"])[1] == np.shape(row["test_embeddings"])[1]
        return [float(np.mean(np.asarray(row["train_labels"]) == 1)) for row in rows]


class ClassCount(Scorer):
    name = "class-count"
    description = "Distinct gold labels of the dataset an ASR is measured or predicted for"
    inputs = frozenset({"texts", "labels", "features", "asr"})

    def values(self, rows, model=None):
        for row in rows:
            assert len(row["texts"]) == len(row["labels"]) and 0 <= row["asr"] <= 1 and "avg_tokens" in row["features"]
        return [len(set(row["labels"])) for row in rows]


class Plugin:
    @hookimpl
    def register_scorers(register):  # noqa: N805 - a hook namespace, not a method
        register(PositiveShare)
        register(ClassCount)


@pytest.fixture(autouse=True)
def scorers():
    robust.register_plugin(Plugin, "test-scorer-fields")
    yield
    robust.unregister_plugin("test-scorer-fields")


def test_a_scorer_written_against_synbench_reads_each_levels_representations(tmp_path):
    run = robust.run("synbench", scorer="positive-share", store=tmp_path / "r.db",
                     settings={"levels": [0.5, 2.0], "n": 64, "n_test": 64, "epsilons": [0.0], "lossless": False})
    assert run.status == "finished" and len(run.records) == 2
    for record in run.records.values():
        assert record["scores"]["positive-share"] == pytest.approx(record["n_pos_train"] / record["n_train"])
    shares = [r["scores"]["positive-share"] for r in run.records.values()]
    assert run.summary["positive-share"] == pytest.approx(np.mean(shares))


def test_a_scorer_written_against_asr_predict_reads_the_predicted_dataset(tmp_path):
    predictor = tmp_path / "predictor.json"
    from robust.plugins.benchmarks.asr_predict.predictor import fit_predictor

    fit_predictor(synthetic_table("transfer"), seed=0, repeats=1).save(predictor)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"text": f"a {w} thing number {i}", "label": w}) + "\n"
                            for i in range(20) for w in ("red", "blue", "green")))
    run = robust.run("asr-predict", data=str(data), scorer="class-count", store=tmp_path / "r.db",
                     settings={"predictor": str(predictor), "force": True})
    record = run.records["predict"]
    assert record["scores"]["class-count"] == record["classes"] == 3
    assert run.summary["class-count"] == 3
    with pytest.raises(robust.RobustError, match="stage=fit reads a table and has none"):
        robust.run("asr-predict", scorer="class-count", store=tmp_path / "r.db", settings={"stage": "fit"})
