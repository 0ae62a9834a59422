"""The progress ETA on a synthetic schedule (issue 34: "ETA 38:45" after 15 s and "17:53" after 10:45 for a run of
14:33): items of several kinds, each kind's cost guess off by its own factor, a kind that only starts late.
Deterministic: the estimator runs on a fake clock."""

from __future__ import annotations

import numpy as np
import pytest

import robust
from robust.engine.progress import Estimate
from robust.plugins.benchmarks.robtest.search import GreedyConfig, expected_queries, search_for

SECONDS_PER_QUERY = 0.1
#: kind -> (items, expected cost per item, model queries it really makes), in run order, chunks of 5 items
KINDS = {"clean": (10, 1.0, 1), "typo-M/score": (20, 150.0, 30), "typo-G/score": (40, 20.0, 20)}


def replay(with_queries: bool) -> list[tuple[float, float, float | None]]:
    """(elapsed, real total, ETA) after every chunk of the schedule."""
    todo = {f"{kind}/{i}": (kind, cost) for kind, (n, cost, _) in KINDS.items() for i in range(n)}
    chunks = [([f"{kind}/{i}" for i in range(start, min(start + 5, n))], queries)
              for kind, (n, _, queries) in KINDS.items() for start in range(0, n, 5)]
    total = sum(len(ids) * q for ids, q in chunks) * SECONDS_PER_QUERY
    now = [0.0]
    estimate = Estimate(len(todo), 0, todo, clock=lambda: now[0])
    out = []
    for ids, queries in chunks:
        now[0] += len(ids) * queries * SECONDS_PER_QUERY
        estimate.advance(ids, len(ids) * queries if with_queries else None)
        out.append((now[0], total, estimate.eta))
    return out


def test_a_kind_not_seen_yet_goes_at_the_seconds_per_query_the_run_has_measured():
    """typo-M's cost guess is 5x its real queries, typo-G's is right: before typo-G starts, its items must not
    inherit typo-M's error (the rate per unit of guessed cost), but go at the measured seconds per query."""
    rows = replay(with_queries=True)
    for elapsed, total, eta in rows:
        if eta is not None and elapsed >= total / 10:
            assert 1 / 1.5 <= (elapsed + eta) / total <= 1.5, (elapsed, eta, total)
    after_typo_m = next(eta for elapsed, _, eta in rows if elapsed == pytest.approx(61.0))
    assert after_typo_m == pytest.approx(80.0)  # 40 typo-G items x 20 queries x 0.1 s, exactly
    # negative control: without query counts (the estimator before issue 34) typo-G goes at typo-M's rate per
    # unit of cost, 5x too fast: the ETA is off by more than 1.5x after a quarter of the run
    blind = replay(with_queries=False)
    assert any(eta is not None and elapsed >= total / 4 and (elapsed + eta) / total < 1 / 1.5
               for elapsed, total, eta in blind)


def _sent(transform, text: str, degree: float) -> int:
    """Texts a real greedy search sends to a model that never flips (every round runs)."""
    search = search_for(transform, text, degree, np.random.default_rng(0), GreedyConfig(), gold=0)
    sent = 0
    try:
        batch = next(search)
        while True:
            sent += len(batch)
            batch = search.send(np.tile([0.9, 0.1], (len(batch), 1)))
    except StopIteration:
        return sent


@pytest.mark.parametrize("text", ["the film is a charming and often affecting journey through the lives of people",
                                  "a dull , plodding mess that never finds its footing"])
def test_robtests_search_cost_is_the_searchs_own_query_count_for_each_unit(text):
    """The expected queries behind RobTest's item cost follow the search: exact for a word-unit transform
    (typo-G), the round cap a char-unit one (typo-M) runs to from d = 0.3; the formula before issue 34,
    words x (1 + 40 d), priced a typo-G search like a typo-M one, over 5x too dear at d = 0.6."""
    registry = robust.registry()
    typo_g, typo_m = (registry.get("transform", n).create() for n in ("typo-G", "typo-M"))
    for degree in (0.05, 0.1, 0.3, 0.6):
        assert expected_queries("word", text, degree) == _sent(typo_g, text, degree)
    for degree in (0.3, 0.6):
        assert expected_queries("char", text, degree) == pytest.approx(_sent(typo_m, text, degree), rel=0.1)
    old = len(text.split()) * (1 + 40 * 0.6)
    assert old / _sent(typo_g, text, 0.6) > 5
