"""A predictor's domain: its table's feature extractors, each feature's range and provenance, and the trust statement
computed from its fit. Negative controls: a predictor fitted on one extractor's features is refused on another's
(one line naming both), a feature outside the training range is flagged, features that only fingerprint the corpus
are "not better than the mean"."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.plugins.benchmarks.asr_predict import domain
from robust.plugins.benchmarks.asr_predict import predictor as PR
from robust.plugins.benchmarks.asr_predict.benchmark import ASRPredict
from robust.plugins.benchmarks.asr_predict.constants import AUTHORS_EXTRACTOR, FEATURE_KEYS
from robust.plugins.benchmarks.asr_predict.table import Table, load_table, write_table
from tests.asr_predict.conftest import robusttext_dir, synthetic_table

OTHER = {"embedder": "use-v4@fake", "tokenizer": "bert-base-cased", "mode": "faithful",
         "surrogate": "char-CNN 1024 filters x 1024 chars", "clustering": "HDBSCAN min_cluster_size 5"}


def run_extractor() -> dict:
    """What a default `asr-predict` run (minilm embedder) computes its features with."""
    registry = get_registry()
    ctx = RunContext("t", 0, registry.model("minilm"), registry, model_spec="minilm")
    return ASRPredict().bind(ctx).extractor(ctx)


def fitted_file(tmp_path, kind: str, extractor: dict | None, name: str = "p.json"):
    table = dataclasses.replace(synthetic_table(kind, n_families=5, per_variant=8, seed=2), extractor=extractor)
    write_table(table, tmp_path / f"{name}.csv")
    return PR.fit_from_table_file(tmp_path / f"{name}.csv", tmp_path / name), tmp_path / name


def test_tables_carry_their_extractor_and_refuse_mixtures(tmp_path):
    table = dataclasses.replace(synthetic_table("transfer", seed=1), extractor=OTHER)
    write_table(table, tmp_path / "t.csv")
    back = load_table(tmp_path / "t.csv")
    assert back.extractor == OTHER and back.source == "robust's table format"
    lines = (tmp_path / "t.csv").read_text().splitlines()
    mixed = [lines[0], lines[1], lines[2].replace("use-v4@fake", "minilm")]
    (tmp_path / "mixed.csv").write_text("\n".join(mixed) + "\n")
    with pytest.raises(RobustError, match="2 different feature extractors") as err:
        load_table(tmp_path / "mixed.csv")
    assert "\n" not in str(err.value)
    write_table(dataclasses.replace(table, extractor=None), tmp_path / "bare.csv")
    assert load_table(tmp_path / "bare.csv").extractor is None  # unknown, not guessed


def test_the_authors_tables_are_the_authors_extractor():
    path = robusttext_dir()
    if path is None:
        pytest.skip("the authors' data_bert.csv is not available")
    table = load_table(path / "data_bert.csv")
    assert table.extractor == AUTHORS_EXTRACTOR and "authors" in table.source
    assert domain.mismatch(table.extractor, run_extractor())  # robust's MiniLM features are another domain


def test_predictor_records_ranges_provenance_and_flags_every_feature_outside(tmp_path):
    pred, path = fitted_file(tmp_path, "transfer", OTHER)
    dom = PR.load_predictor(path).domain
    assert dom["extractor"] == OTHER and dom["table"]["file"] == "p.json.csv" and len(dom["table"]["sha256"]) == 16
    ranges = dom["feature_ranges"]
    assert list(ranges) == list(FEATURE_KEYS) and all(lo <= hi for lo, hi in ranges.values())
    inside = {k: (lo + hi) / 2 for k, (lo, hi) in ranges.items()}
    assert pred.out_of_range(inside) == []
    outside = {**inside, "fr": ranges["fr"][0] - 1.0, "md": ranges["md"][1] + 0.5}
    flagged = pred.out_of_range(outside)
    assert [(o["feature"], o["side"]) for o in flagged] == [("md", "above"), ("fr", "below")]
    assert domain.at_edge({**inside, "kts": ranges["kts"][0]}, ranges) == ["kts"]


def shared_table(n_families: int = 6, per_family: int = 20, seed: int = 0) -> Table:
    """Every corpus family draws its features from the same range and ASR is a step in one of them: what a forest
    learns on some corpora holds on an unseen one."""
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 1, (n_families * per_family, len(FEATURE_KEYS)))
    y = 0.2 + 0.6 * (X[:, 0] > 0) + rng.normal(0, 0.02, len(X))
    family = np.repeat([f"fam{f}" for f in range(n_families)], per_family)
    return Table(X, y, np.array([f"{f}_2" for f in family]), family, FEATURE_KEYS)


def test_trust_says_not_better_than_the_mean_when_it_is_not(tmp_path):
    """Features that carry over between corpora beat the mean on an unseen corpus; features that only fingerprint
    the corpus do not (NEGATIVE CONTROL), and the statement says so."""
    good = PR.fit_predictor(shared_table()).trust()
    bad = PR.fit_predictor(synthetic_table("fingerprint", n_families=6, per_variant=10, seed=3)).trust()
    assert good["basis"] == "unseen-corpus" and good["better_than_baseline"] is True
    assert "it is better than the mean" in good["sentence"] and good["rmse"] < good["baseline_rmse"]
    assert bad["better_than_baseline"] is False and "it is not better than the mean" in bad["sentence"]
    assert bad["diff_high"] >= 0 and "corpus families resampled" in bad["sentence"]
    one = PR.fit_predictor(dataclasses.replace(synthetic_table("transfer", n_families=2, per_variant=10),
                                               family=np.array(["one"] * 40))).trust()
    assert one["basis"] == "known-corpus" and "one corpus family" in one["sentence"]


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    rng = random.Random(0)
    path = tmp_path_factory.mktemp("data") / "new.jsonl"
    words = {"pos": ["great", "superb", "lovely"], "neg": ["awful", "dreadful", "boring"]}
    lines = [{"text": f"the film was {rng.choice(words[lab])} number {i}", "label": lab}
             for i in range(40) for lab in ("pos", "neg")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_predict_refuses_another_extractors_predictor_in_one_line(cli, tmp_path, data_file):
    _, path = fitted_file(tmp_path, "transfer", OTHER)
    refused = cli("run", "--bench", "asr-predict", "--data", str(data_file), "--set", f"predictor={path}")
    message = refused.stderr.strip().splitlines()[-1]
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "use-v4@fake in the fit vs minilm@" in message and "force=true" in message
    assert json.loads(cli("runs", "--json").stdout) == []  # refused before a run exists
    forced = cli("run", "--bench", "asr-predict", "--data", str(data_file), "--set", f"predictor={path}",
                 "--set", "force=true", "--json", "-q")
    assert forced.returncode == 0, forced.stderr
    result = json.loads(forced.stdout[forced.stdout.index("{"):])["result"]
    assert "(forced)" in result["summary"]["extractor_mismatch"]
    assert result["data"]["sentence"].startswith("Outside the predictor's domain")


def test_predict_with_its_own_extractor_leads_with_trust_and_flags_ranges(cli, tmp_path, data_file):
    _, path = fitted_file(tmp_path, "transfer", run_extractor())  # same extractors: accepted without force
    out = cli("run", "--bench", "asr-predict", "--data", str(data_file), "--set", f"predictor={path}", "--json", "-q")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout[out.stdout.index("{"):])["result"]
    summary = result["summary"]
    assert list(summary)[0] == "trust" and result["data"]["sentence"].startswith("On a corpus not in its table")
    assert "extractor_mismatch" not in summary
    flagged = summary["features_out_of_range"]  # the synthetic table's ranges do not hold real text's features
    assert flagged != "none" and "trained on" in flagged
    table = {row[0]: row[3] for row in result["tables"][1]["rows"]}
    assert sum(flag.startswith("OUTSIDE") for flag in table.values()) == flagged.count("trained on")


def test_predict_without_a_predictor_says_where_a_table_comes_from(cli, tmp_path, data_file):
    out = cli("run", "--bench", "asr-predict", "--data", str(data_file), "--set", f"predictor={tmp_path}/none.json")
    assert out.returncode != 0 and "stage=build" in out.stderr and "stage=fit" in out.stderr
    old, path = fitted_file(tmp_path, "transfer", OTHER, "old.json")
    raw = json.loads(path.read_text())
    del raw["meta"]["domain"]  # a predictor saved before robust recorded its domain
    path.write_text(json.dumps(raw))
    refused = cli("run", "--bench", "asr-predict", "--data", str(data_file), "--set", f"predictor={path}")
    assert refused.returncode != 0 and "records no feature extractor" in refused.stderr


def test_limit_says_what_it_limits():
    assert ASRPredict().describe_limit(5).startswith("--limit 5: the first 5 examples of --data")
    assert "nothing at stage=fit" in ASRPredict(stage="fit").describe_limit(5)
