"""What users look for in exports and listings (issue 34): a scorer's per-record values in CSV, the attack and
data of each run in `robust runs` (long in-memory model names cut, not widening the table), and report images
described for a reader who cannot see them."""

from __future__ import annotations

import csv
import io

import numpy as np

import robust
from robust.engine.store import Run
from robust.report import export, figure_alt

from .conftest import in_process

ROWS = [{"text": f"{'good' if i % 2 else 'bad'} film number {i}", "label": i % 2} for i in range(6)]


def keyword(texts):
    return np.array([[0.1, 0.9] if "good" in t else [0.9, 0.1] for t in texts])


def test_csv_export_keeps_each_scorers_values_as_a_column():
    run = Run("r1", 0.0, 1.0, "finished", "accuracy", "m", {}, {}, {})
    records = {"a": {"pred": 1, "scores": {"acme:toxicity": 0.25, "length": 3}, "edits": [1, 2]},
               "b": {"pred": 0, "scores": {"acme:toxicity": 0.5, "length": 4}, "edits": []}}
    rows = list(csv.DictReader(io.StringIO(export(run, records, "csv"))))
    assert [(r["item_id"], r["scores.acme:toxicity"], r["scores.length"]) for r in rows] == [
        ("a", "0.25", "3"), ("b", "0.5", "4")]
    assert "edits" not in rows[0] and "scores" not in rows[0]  # lists stay in JSON/JSONL


def test_runs_lists_attack_and_data_and_cuts_long_model_names(tmp_path):
    store = tmp_path / "r.db"
    name = "my_sentiment_classifier_from_the_notebook_trained_on_reviews_v2"
    model = robust.FunctionModel(keyword, name=name)
    robust.run("robtest", model=model, data=ROWS, attack="typo-M", store=store,
               settings={"degrees": [0.1], "aug_num": 1, "access": ["rule"]})
    code, out, err = in_process("--store", store, "runs")
    assert code == 0, err
    header = next(line for line in out.splitlines() if "benchmark" in line)
    assert "attack" in header and "data" in header
    row = next(line for line in out.splitlines() if "robtest" in line)
    assert "typo-M" in row and "rows " in row  # the rows passed from Python, by their content hash
    assert name not in row and "python:function:my_s" in row and "…" in row and "reviews_v2" in row
    assert len(row) < 160


def test_report_images_are_described_by_their_plots():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 0.1], [90, 70], label="typo-M rule")
    ax.plot([0, 0.1], [90, 60], label="typo-M score")
    ax.set(title="Average accuracy", xlabel="degree", ylabel="accuracy (%)")
    ax.legend()
    alt = figure_alt("Robustness curves", fig)
    plt.close(fig)
    assert alt == "Robustness curves. Average accuracy: accuracy (%) by degree (typo-M rule, typo-M score)"
