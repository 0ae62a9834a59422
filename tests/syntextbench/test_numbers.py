"""Numbers that agree and say what they are: the summary and the table give the same score whatever `--scorer`s a run
has, no column is all missing without a reason, `--limit` says what it limits, spreads are sample sds over trials,
and `compare` prints no `None`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from robust.core.interfaces import Scorer
from robust.core.registry import Entry
from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench
from robust.plugins.benchmarks.syntextbench.compare import compare_results

from .conftest import lexical_embedder, make_ctx, random_embedder
from .test_benchmark import run


class Clash(Scorer):
    """A third-party scorer whose summary names collide with the benchmark's (`score`)."""

    name = "clash"
    inputs: ClassVar[frozenset[str]] = frozenset({"p"})

    def values(self, rows, model=None):
        return [0.0 for _ in rows]

    def summarize(self, values, rows):
        return {"score": 0.0, "clash_rows": float(len(values))}


def reduce_with(registry, scorers, embedder, limit=None, said=None, **settings):
    bench = SynTextBench(**settings)
    ctx = make_ctx(registry, embedder, limit=limit)
    ctx.scorers = list(scorers)
    if said is not None:
        ctx.say = said.append
    return bench.reduce(run(bench, ctx), ctx)


@pytest.fixture
def clash(registry):
    registry.add(Entry("scorer", Clash.name, Clash, "test", "test-dist", "0"))
    yield
    registry.entries["scorer"].pop(Clash.name)


def test_summary_and_table_agree_for_every_scorer(registry, afinn_lists, clash):
    """`--scorer syntextbench` (the benchmark's own score) used to overwrite the summary's score with a default-set
    copy (0 against the table's 0.12); a third-party scorer's colliding names get its prefix instead."""
    settings = {"n": 40, "levels": [0.0, 0.5]}
    said_plain: list[str] = []
    said_both: list[str] = []
    plain = reduce_with(registry, [], lexical_embedder(afinn_lists), said=said_plain, **settings)
    both = reduce_with(registry, ["syntextbench", "clash"], lexical_embedder(afinn_lists), said=said_both, **settings)
    assert not any("own score" in line for line in said_plain)  # negative control: said only when asked for
    assert any("own score" in line for line in said_both)
    for result in (plain, both):
        assert f"score {result.summary['score']:.4f}" in result.tables[0].title
    assert both.summary["score"] == plain.summary["score"] > 0  # not overwritten
    assert both.summary["clash: score"] == 0.0 and both.summary["clash_rows"] == 2.0  # one row per level


def test_limit_one_reads_the_lexicon_rule_on_every_level(registry):
    """At --limit 1 (8 sentences, cross-fitted) the held-out split is empty; the rule is read on the sentences
    behind the accuracy, so no level is missing it."""
    result = reduce_with(registry, [], random_embedder(), limit=1, levels=[0.0, 0.5, 0.9])
    assert result.summary["n"] == 8 and result.summary["folds"] == 10
    rule = [row["lexicon_rule_accuracy"] for row in result.data["levels"]]
    assert all(r is not None and 0 <= r <= 1 for r in rule)
    assert [row["held_out"] for row in result.data["levels"]] == [8, 8, 8]
    text = SynTextBench().describe_limit(1)
    assert text.startswith("--limit 1: 8 sentences per level") and "20 levels" in text


def test_no_column_is_all_missing_without_a_reason(registry):
    from tests.syntextbench.test_lexicon import TinyLexicon

    registry.add(Entry("dataset", TinyLexicon.name, TinyLexicon, "test", "test-dist", "0"))
    try:
        result = reduce_with(registry, [], random_embedder(), lexicon="tiny-lexicon", n=40, levels=[0.0, 0.5])
    finally:
        registry.entries["dataset"].pop(TinyLexicon.name)
    assert "lexicon_rule_accuracy" not in result.tables[0].columns
    assert "gives no polarity scores" in result.summary["lexicon_rule_accuracy"]
    for j, column in enumerate(result.tables[0].columns):
        assert any(row[j] is not None and row[j] == row[j] for row in result.tables[0].rows), column


def test_spread_over_trials_is_a_sample_sd_and_compare_prints_no_none(registry, afinn_lists):
    three = reduce_with(registry, [], lexical_embedder(afinn_lists), n=40, levels=[0.0, 0.5], trials=3)
    per_trial = three.data["scores"]
    assert three.summary["score_sd"] == pytest.approx(np.std(per_trial, ddof=1))
    assert "sd over 3 trials" in three.summary["score_spread"]
    one = reduce_with(registry, [], random_embedder(), n=40, levels=[0.0, 0.5])
    assert "score_sd" not in one.summary and "one trial" in one.summary["score_spread"]
    table = compare_results([("lexical", three), ("random", one)]).tables[0]
    assert all(cell is not None for row in table.rows for cell in row)
    sd = table.columns.index("sd over trials")
    assert table.rows[0][sd] == pytest.approx(round(three.summary["score_sd"], 4))
    assert table.rows[1][sd] == "none: 1 trial"
