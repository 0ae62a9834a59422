"""The progress ETA on a synthetic schedule (issue 34: "ETA 38:45" after 15 s and "17:53" after 10:45 for a run of
14:33): items of several kinds, each kind's cost guess off by its own factor, a kind that only starts late.
Deterministic: the estimator runs on a fake clock."""

from __future__ import annotations

import numpy as np
import pytest

import robust
from robust import Benchmark, ModelAdapter, Result, WorkItem
from robust.core.registry import Entry, Registry
from robust.engine.progress import Estimate, interleave, spread
from robust.engine.runner import RunConfig, Runner
from robust.engine.store import Store
from robust.plugins.benchmarks.robtest.search import GreedyConfig, expected_queries, search_for
from tests.core.conftest import robtest_records

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


def test_robtests_items_are_weighed_by_their_examples_length():
    """A query of a long example's texts costs more than a short one's (the model reads more, robust draws over
    more), so RobTest weighs each example's items by (words + LENGTH_OFFSET) against the run's mean: the weights
    average 1 (a run's total stays its expected queries), a 30-word example weighs (30 + 4) / (10 + 4) a 10-word
    one, and examples of one length weigh 1 each, as the costs were before."""
    from robust import Example
    from robust.plugins.benchmarks.robtest.benchmark import LENGTH_OFFSET, length_weights

    texts = [" ".join(["word"] * n) for n in (10, 30, 20)]
    weights = length_weights([Example(str(k), text) for k, text in enumerate(texts)])
    assert sum(weights) / 3 == pytest.approx(1.0)
    assert weights[1] / weights[0] == pytest.approx((30 + LENGTH_OFFSET) / (10 + LENGTH_OFFSET)) and LENGTH_OFFSET == 4
    assert length_weights([Example("a", "one two three"), Example("b", "four five six")]) == [1.0, 1.0]


#: RobTest's mission command (probe:minilm, typo, the quick preset's 50 examples), per (kind, degree): an item's
#: expected cost, the model queries it made and its seconds, from a recorded `--limit 12` run
#: (benchmarks/eta_calibration.py) scaled to the 14:33 the whole run took on a quiet machine. Per model query
#: a search takes a third of a rule draw's time, and a typo-M search at d = 0.6 nine times one at d = 0.05.
MISSION = {
    "clean": {0.0: (1, 1, 0.151)},
    "typo-M/rule": {0.05: (20, 20, 0.565), 0.1: (20, 20, 0.603), 0.2: (20, 20, 0.453), 0.3: (20, 20, 0.396),
                    0.4: (20, 20, 0.433), 0.5: (20, 20, 0.433), 0.6: (20, 20, 0.521)},
    "typo-G/rule": {0.05: (20, 20, 0.399), 0.1: (20, 20, 0.262), 0.2: (20, 20, 0.200), 0.3: (20, 20, 0.247),
                    0.4: (20, 20, 0.318), 0.5: (20, 20, 0.233), 0.6: (20, 20, 0.241)},
    "typo-M/score": {0.05: (124, 53, 0.435), 0.1: (123, 37, 0.307), 0.2: (241, 142, 1.135), 0.3: (241, 175, 1.476),
                     0.4: (247, 198, 1.710), 0.5: (235, 265, 2.440), 0.6: (252, 398, 3.946)},
    "typo-G/score": {0.05: (26, 3, 0.041), 0.1: (1, 1, 0.029), 0.2: (26, 26, 0.129), 0.3: (2, 2, 0.032),
                     0.4: (26, 25, 0.136), 0.5: (12, 12, 0.092), 0.6: (15, 14, 0.096)},
}
WARM_UP = 2.0  # seconds the first chunk takes on top (the model's first batch)


def mission_run(order) -> list[tuple[float, float, float | None]]:
    """(elapsed, real total, ETA) at every 15 s of the mission's run, its items in RobTest's order (every kind
    example-major) put in `order`, computed in chunks cut by the executor's ChunkSizer. Each example's items take
    a seeded 0.7-1.4 times the table's seconds (sentences differ)."""
    from robust.engine.executor import ChunkSizer

    factor = np.random.default_rng(0).uniform(0.7, 1.4, 50)
    items = [(f"{kind}/{d}/{e}", kind, cost, queries, seconds * factor[e])
             for kind, degrees in MISSION.items() for e in range(50)
             for d, (cost, queries, seconds) in degrees.items()]
    items = order(items)
    total = WARM_UP + sum(it[4] for it in items)
    now, ticks, out = [0.0], iter(range(15, int(total), 15)), []
    estimate = Estimate(len(items), 0, {it[0]: (it[1], it[2]) for it in items}, clock=lambda: now[0])
    sizer, start, tick = ChunkSizer(64, 2.0), 0, next(ticks)
    while start < len(items):
        chunk = items[start : start + sizer.size]
        took = sum(it[4] for it in chunk) + (WARM_UP if start == 0 else 0.0)
        while tick is not None and tick < now[0] + took:
            now[0] = tick
            out.append((tick, total, estimate.eta))
            tick = next(ticks, None)
        now[0] += took
        sizer.observe(len(chunk), took)
        estimate.advance([it[0] for it in chunk], sum(it[3] for it in chunk))
        start += len(chunk)
    return out


def test_the_mission_runs_eta_is_within_one_and_a_half_times_from_the_first_minute_on():
    """Issue 34: "ETA 38:45" after 15 s of a run that took 14:33. The runner computes the kinds side by side,
    each kind's examples in a spread order (`interleave`), so from the first minute on every kind goes at its
    own measured rate, on a sample of all its examples. Negative control: RobTest's plain order, where the
    searches (two thirds of the time) start after about 5 minutes, priced until then at the rule draws' seconds
    per query, three times theirs in the recorded run."""
    def factors(rows):
        return [(t, (t + eta) / total) for t, total, eta in rows if t >= 60]

    def interleaved(items):  # a group: one example's items of a kind (RobTest.item_group)
        return interleave(items, lambda it: it[1], lambda it: it[2], lambda it: "/".join(it[0].rsplit("/", 2)[::2]))

    ours = factors(mission_run(interleaved))
    assert ours and all(1 / 1.5 <= f <= 1.5 for _, f in ours), ours[:8]
    plain = factors(mission_run(lambda items: items))
    assert max(f for _, f in plain) > 1.5


def test_spread_samples_every_prefix_about_evenly():
    """Every prefix of n leaves no stretch of the range unsampled longer than twice its share (the benchmark's
    order, the negative control, leaves the last 50 - n)."""
    def widest_gap(taken, size):
        marks = [-1, *sorted(taken), size]
        return max(b - a for a, b in zip(marks, marks[1:]))

    for size in (7, 50, 64, 1000):
        order = spread(size)
        assert sorted(order) == list(range(size))
        assert all(widest_gap(order[:n], size) <= 2 * size / n + 1 for n in range(2, size + 1))
    assert widest_gap(range(10), 50) > 2 * 50 / 10 + 1


def test_interleave_keeps_groups_and_moves_every_kind_at_one_pace():
    items = [(f"a{i}", 1.0) for i in range(100)] + [(f"b{i}", 10.0) for i in range(10)]
    kind, cost = (lambda it: it[0][0]), (lambda it: it[1])
    out = interleave(items, kind, cost)
    assert sorted(out) == sorted(items)
    for n in range(1, len(out) + 1):  # at every point each kind's share done is within one item of the other's
        share = {k: sum(c for i, c in out[:n] if i[0] == k) / (100 if k == "a" else 100) for k in "ab"}
        assert abs(share["a"] - share["b"]) <= 0.1 + 1e-9, (n, share)
    assert interleave(items[:100], lambda it: "", cost) == items[:100]  # one kind: the benchmark's order
    # groups of 3 (items sharing work) stay together, in their order
    grouped = interleave(items, kind, cost, lambda it: it[0][0] + str(int(it[0][1:]) // 3))
    for k in range(0, 99, 3):
        at = grouped.index(items[k])
        assert grouped[at : at + 3] == items[k : k + 3]


class TwoKinds(Benchmark):
    """40 cheap items of kind "a", then 10 dear ones of kind "b" in groups of 2 (items sharing work)."""

    name = "two-kinds"
    needs = frozenset({"classify"})
    chunk_size = 50
    seen: list[str] = []

    def items(self, ctx):
        return [WorkItem(f"a{k}", "a") for k in range(40)] + [WorkItem(f"b{k}", "b") for k in range(10)]

    def item_kind(self, item):
        return item.payload

    def item_cost(self, item):
        return 1.0 if item.payload == "a" else 10.0

    def item_group(self, item):
        return f"{item.id[0]}{int(item.id[1:]) // 2}"

    def run_batch(self, items, ctx):
        TwoKinds.seen += [i.id for i in items]
        return [{"p": float(p[0])} for p in ctx.model.classify([i.id for i in items])]

    def reduce(self, records, ctx):
        return Result({"n": len(records)})


class Even(ModelAdapter):
    name = "even"
    capabilities = frozenset({"classify"})

    def _classify(self, texts):
        return [np.array([0.5, 0.5]) for _ in texts]


def test_a_run_computes_its_kinds_side_by_side(tmp_path):
    """The runner interleaves the kinds by the share of their cost done, groups whole (a0 and a1, b0 and b1
    share work), each kind's groups spread over its range: a0-a1 (to 2.5 % of a's cost), a32-a33 (7.5 %), then
    b0-b1 (10 % of b's): the ETA has measured every kind within seconds. Before issue 34 the "b" items ran last."""
    registry = Registry()
    registry.add(Entry("benchmark", "two-kinds", TwoKinds, "t", "t", "0"))
    registry.add(Entry("model", "even", Even, "t", "t", "0"))
    TwoKinds.seen = []
    run = Runner(registry, Store(tmp_path / "r.db"), progress=False).start(RunConfig("two-kinds", "even"))
    assert run.status == "finished"
    assert TwoKinds.seen[:6] == ["a0", "a1", "a32", "a33", "b0", "b1"]
    assert sorted(TwoKinds.seen) == sorted([*(f"a{k}" for k in range(40)), *(f"b{k}" for k in range(10))])


def test_robtest_records_do_not_depend_on_the_order(example_site, tmp_path, monkeypatch):
    """Interleaving reorders the work, never its results: each item's randomness derives from its id, and a
    search's degrees start from one stream per example. The same run in the benchmark's order stores the same
    records; interleaving did move work (the first score search ran before the last rule draw)."""
    from robust.engine import runner

    interleaved = robtest_records(tmp_path / "interleaved.db")
    monkeypatch.setattr(runner, "interleave", lambda items, *_: list(items))
    plain = robtest_records(tmp_path / "plain.db")
    assert interleaved == plain and len(plain) == 90

    def search_before_last_draw(ids):
        ids = list(ids)
        return ids.index(next(i for i in ids if "/score/" in i)) < ids.index([i for i in ids if "/rule/" in i][-1])

    assert search_before_last_draw(interleaved) and not search_before_last_draw(plain)
