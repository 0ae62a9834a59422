"""The registered scorers `synbench-reference` and `synbench-score` (v2 Scorer contract: values/summarize/score)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr

from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.plugins.benchmarks.synbench.constants import S_GRID
from robust.plugins.benchmarks.synbench.scorers import ReferenceScorer, SynBenchScorer
from robust.plugins.benchmarks.synbench.theory import b_ref
from robust.plugins.models.arrays import Identity
from tests.synbench.conftest import run_synbench


def test_registered():
    registry = get_registry()
    assert isinstance(registry.get("scorer", "synbench-reference").create(), ReferenceScorer)
    assert isinstance(registry.get("scorer", "synbench-score").create(), SynBenchScorer)


def test_reference_scorer_values_and_areas():
    rows = [{"s": s} for s in S_GRID]
    scorer = ReferenceScorer(thresholds=[0.7, 0.9])
    values = scorer.values(rows)
    assert values[9]["accuracy"] == pytest.approx(ndtr(1.0)) and values[9]["margin"] == pytest.approx(1.2876, abs=1e-4)
    summary = scorer.score(rows)
    assert summary["area_aT0.7"] == pytest.approx(0.24052, abs=6e-6)  # eq. 5.4 of Ko 2024 (docs/validation/synbench.md)
    assert summary["area_aT0.9"] == pytest.approx(0.06576, abs=6e-6)


def test_reference_depends_on_eps_only_for_gaussian_h():
    iso = ReferenceScorer().values([{"s": 1.0, "epsilon": e} for e in (0.0, 0.5)])
    assert iso[0] == iso[1]
    band = ReferenceScorer(covariance="heptadiagonal", shape="3x8x8").values([{"s": 1.0, "epsilon": e}
                                                                            for e in (0.0, 0.5)])
    assert band[0]["accuracy"] != band[1]["accuracy"] and band[0]["accuracy"] < ndtr(1.0) + 1e-12


def test_score_scorer_on_the_linear_map_closed_form():
    """V5, c = 0.5: 0.7425 (a_T 0.7) and 0.4761 (a_T 0.9), exact integration, Gaussian-I reference from s."""
    rows = [{"s": s, "epsilon": e, "accuracy": float(ndtr(0.5 * s)), "margin": float(b_ref(ndtr(0.5 * s)))}
            for s in S_GRID for e in (0.0, 0.2)]
    out = SynBenchScorer(integration="exact", thresholds=[0.7, 0.9]).score(rows)
    assert out["score_eps0_aT0.7"] == pytest.approx(0.7425, abs=6e-5)
    assert out["score_eps0_aT0.9"] == pytest.approx(0.4761, abs=6e-5)
    assert out["score"] == out["score_eps0_aT0.7"] and out["recommended_epsilon"] == 0.0
    values = SynBenchScorer().values(rows[:2])
    assert values[0] == pytest.approx(rows[0]["margin"] * max(rows[0]["accuracy"] - 0.7, 0))


def test_score_scorer_agrees_with_the_benchmark():
    res = run_synbench(Identity(), shape="16", levels=[0.5, 1.0, 2.0, 3.0], n=512, n_test=512,
                       epsilons=[0.0, 0.4], integration="grid100")
    rows = [{"s": lv["s"], "epsilon": e, "accuracy": lv["accuracy"][i], "margin": lv["margin"][i],
             "ref_accuracy": lv["ref_accuracy"][i], "ref_margin": lv["ref_margin"][i]}
            for lv in res.data["levels"] for i, e in enumerate(res.data["epsilons"])]
    out = SynBenchScorer().score(rows)
    for s in res.data["scores"]:
        assert out[f"score_eps{s['epsilon']:g}_aT{s['a_T']:g}"] == pytest.approx(s["score"], abs=1e-12)
    assert np.isclose(out["score"], res.summary["score"])


def test_bad_scorer_input_is_one_line():
    with pytest.raises(RobustError, match="lacks 'accuracy'"):
        SynBenchScorer().score([{"s": 1.0, "epsilon": 0.0}])
    with pytest.raises(RobustError, match=r"a_T values must be in \[0.6, 1\)"):
        SynBenchScorer(thresholds=[0.55])
