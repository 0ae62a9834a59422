"""The RobTest protocol on a keyword victim with tiny Transforms: items, batching, metrics, report, augment."""

from __future__ import annotations

import json

import pytest

from robust import FunctionModel, load_examples
from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.interfaces import WorkItem
from robust.core.results import Result
from robust.plugins.benchmarks.robtest import RobTest
from robust.plugins.benchmarks.robtest.dimensions import plan, select

from .robtest_toys import CountingFn, OneWord, Shout, ToyChar, ToyWord, registry_with, write_reviews

DEGREES = [0.0, 0.05, 0.1, 0.3]


def make(tmp_path, attacks=("toy",), fn=None, transforms=(ToyChar, ToyWord, Shout), **settings):
    fn = fn or CountingFn()
    model = FunctionModel(fn, "classify", labels=["neg", "pos"], batch_size=10_000)
    registry = registry_with(*transforms)
    data = write_reviews(tmp_path / "reviews.jsonl")
    ctx = RunContext("t", seed=7, model=model, registry=registry, data=str(data), attacks=list(attacks),
                     out_dir=tmp_path)
    bench = RobTest(degrees=DEGREES, aug_num=20, **settings)
    bench.prepare(ctx)
    return bench, ctx, fn


def run(bench, ctx, chunk=None):
    items = bench.items(ctx)
    chunk = chunk or bench.chunk_size
    records = {}
    for start in range(0, len(items), chunk):
        batch = items[start : start + chunk]
        records.update(zip([i.id for i in batch], bench.run_batch(batch, ctx), strict=True))
    return records


def test_items_are_stable_unique_and_share_degree_zero(tmp_path):
    bench, ctx, _ = make(tmp_path)
    ids = [i.id for i in bench.items(ctx)]
    assert len(ids) == len(set(ids)) == 18 + 2 * 2 * 3 * 18  # clean + tags x access x non-zero degrees x examples
    assert "clean/000001" in ids and "toy-M/rule/0.05/000001" in ids and "toy-G/score/0.3/000018" in ids
    assert not any("/0/" in i for i in ids)
    bench2, ctx2, _ = make(tmp_path)
    assert ids == [i.id for i in bench2.items(ctx2)]


def test_items_carry_typed_cells_and_the_search_stream_comes_from_the_cell(tmp_path):
    bench, ctx, _ = make(tmp_path)
    item = next(i for i in bench.items(ctx) if i.id == "toy-G/score/0.3/000018")
    cell = item.payload
    assert (cell.kind, cell.tag.name, cell.degree, bench.examples[cell.example].id) == ("score", "toy-G", 0.3, "000018")
    # one stream per (tag, access, example), read from the cell: an id the benchmark could not parse changes nothing
    # (the old code split item.id and failed on this one)
    renamed = WorkItem("an opaque id", cell)
    assert bench._rng(ctx, renamed).random() == ctx.rng("toy-G", "score", "000018").random()


def test_records_do_not_depend_on_batch_composition(tmp_path):
    bench, ctx, _ = make(tmp_path)
    whole = run(bench, ctx, chunk=10_000)
    bench2, ctx2, _ = make(tmp_path)
    pieces = run(bench2, ctx2, chunk=7)
    assert whole == pieces


def test_score_based_finds_the_salient_word_and_beats_rule_based(tmp_path):
    bench, ctx, _ = make(tmp_path)
    result = bench.reduce(run(bench, ctx), ctx)
    curves = result.data["curves"]
    for tag in ("toy-M", "toy-G"):
        score, rule = curves[tag]["score"], curves[tag]["rule"]
        assert score["average"][0] == rule["average"][0] == 100.0  # clean accuracy
        # greedy saliency edits 'good' first: every positive flips, every negative (6 of 18) survives
        assert score["average"][1:] == pytest.approx([100 * 6 / 18] * 3)
        assert all(s <= r + 1e-9 for s, r in zip(score["average"], rule["average"], strict=True))
        assert rule["average"][1] > 80  # random positions rarely hit the one decisive word at 5 %
        for c in (rule, score):
            assert all(a >= b for a, b in zip(c["worst"], c["worst"][1:], strict=False))  # cumulative
            assert all(w <= a + 1e-9 for w, a in zip(c["worst"], c["average"], strict=True))
    assert result.summary["clean accuracy"] == 100.0


def test_average_and_worst_match_the_records(tmp_path):
    bench, ctx, _ = make(tmp_path)
    records = run(bench, ctx)
    result = bench.reduce(records, ctx)
    rule = [records[f"toy-G/rule/0.05/{i:06d}"] for i in range(1, 19)]
    assert result.data["curves"]["toy-G"]["rule"]["average"][1] == pytest.approx(
        100 * sum(r["correct"] / r["n"] for r in rule) / 18)
    assert result.data["curves"]["toy-G"]["rule"]["worst"][1] == pytest.approx(
        100 * sum(r["all_correct"] for r in rule) / 18)
    assert all(1 < r["n"] <= 20 for r in rule)  # de-duplicated draws
    row = next(t for t in result.tables if t.title.startswith("toy-G")).rows[0]
    assert row[0] == "Rule-Average" and len(row) == 1 + len(DEGREES) + 1


def test_one_classify_call_per_rule_batch_and_per_greedy_round(tmp_path):
    bench, ctx, fn = make(tmp_path)
    items = bench.items(ctx)
    rule = [i for i in items if "/rule/" in i.id]
    bench.run_batch(rule[:40], ctx)
    assert fn.calls == 1
    score = [i for i in items if i.id.startswith("toy-G/score/")]
    fn.calls = 0
    bench.run_batch(score[:30], ctx)  # 10 examples x 3 degrees; at most int(k*3/B) = 4 rounds at 0.3
    assert 1 <= fn.calls <= 4 + 1


def test_faithful_variant_draws_worst_separately(tmp_path):
    bench, ctx, _ = make(tmp_path, variant="faithful")
    records = run(bench, ctx)
    assert all("worst_n" in r for k, r in records.items() if "/rule/" in k)
    result = bench.reduce(records, ctx)
    assert result.data["settings"]["variant"] == "faithful"
    with pytest.raises(RobustError):
        make(tmp_path, variant="bogus")


def test_attack_selection(tmp_path):
    registry = registry_with(ToyChar, ToyWord, Shout)
    assert select(["toy"], registry) == ["toy-M", "toy-G"]  # report order: malicious first
    assert select(["toy-M"], registry) == ["toy-M"]
    assert select(["all"], registry) == ["toy-M", "toy-G"]  # Shout has no dimension
    tags = plan(["shout", "toy", "saliency-greedy:shout"], registry, {"rule": "rule-sampling"}, ())
    assert [(t.name, t.dimension, t.tag, {a: e.name for a, e in t.accesses.items()}) for t in tags] == [
        ("toy-M", "Toy", "M", {"rule": "rule-sampling"}), ("toy-G", "Toy", "G", {"rule": "rule-sampling"}),
        ("shout", "shout", "G", {"rule": "rule-sampling", "score": "saliency-greedy"})]
    with pytest.raises(RobustError, match="unknown attack 'tpyo'"):
        select(["tpyo"], registry)
    with pytest.raises(RobustError, match="needs --attack"):
        select([], registry)
    with pytest.raises(RobustError, match="searches over a transform's edits"):
        select(["saliency-greedy"], registry)


def test_report_round_trips_and_draws_figures(tmp_path):
    bench, ctx, _ = make(tmp_path, access=["rule", "score"])
    result = Result.from_json(json.loads(json.dumps(bench.reduce(run(bench, ctx), ctx).to_json())))
    titles = [t for t, _ in bench.figures(result)]
    assert titles[:2] == ["toy-M: robustness vs degree", "toy-G: robustness vs degree"]
    assert not any("Radar" in t for t in titles)  # one dimension: a radar would be a point (tests/reports)
    other = Result.from_json(json.loads(json.dumps(result.to_json())))
    cmp = RobTest.compare([("A", result), ("B", other)])
    table = next(t for t in cmp.tables if t.title == "Rule-based: toy-M")
    assert [r[0] for r in table.rows] == ["A-Average", "A-Worst", "B-Average", "B-Worst"]
    assert table.rows[0][1:] == table.rows[2][1:]
    assert len(RobTest().figures(cmp)) == 2  # the two curves; no radar of one dimension
    with pytest.raises(RobustError):
        RobTest.compare([("A", result)])


def test_augment_mode_writes_perturbed_copies(tmp_path):
    out = tmp_path / "aug" / "copies.jsonl"
    bench, ctx, fn = make(tmp_path, attacks=("toy-G",), mode="augment", degree=0.1, output=str(out))
    assert bench.required_capabilities(ctx) == frozenset()
    result = bench.reduce(run(bench, ctx), ctx)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert result.summary["written"] == len(rows) > 18
    assert fn.calls == 0
    originals = {ex.id: ex.text for ex in bench.examples}
    for row in rows:
        assert row["text"] != originals[row["source_id"]]
        assert sum(a != b for a, b in zip(row["text"].split(), originals[row["source_id"]].split(),
                                          strict=True)) == 2  # ceil(14 words x 0.1)
    assert len(load_examples(str(out), ctx)) == len(rows)  # readable as a dataset


def test_user_mistakes_are_one_line_errors(tmp_path):
    with pytest.raises(RobustError, match="preset"):
        make(tmp_path, preset="huge").items(None)
    bench, ctx, _ = make(tmp_path)
    ctx.model = FunctionModel(CountingFn(), "classify", labels=["a", "b"])
    with pytest.raises(RobustError, match=r"reviews.jsonl:1: unknown label 'pos'; expected one of \['a', 'b'\]"):
        bench.prepare(ctx)


def test_records_carry_queries_outcomes_and_a_budget_summary(tmp_path):
    bench, ctx, _ = make(tmp_path, budget=17)  # 15-word reviews: 16 texts per saliency round, 1 for the check
    records = run(bench, ctx)
    clean = records["clean/000001"]
    assert clean["text"].startswith("the plot") and clean["pred"] == clean["gold"] == 1
    score = [r for k, r in records.items() if "/score/" in k]
    assert all(r["queries"] <= 17 and r["status"] in ("succeeded", "failed", "budget") for r in score)
    assert any(r["status"] == "budget" for r in score)  # a second round never fits: negatives never flip
    flipped = next(r for k, r in records.items() if k.startswith("toy-G/score/0.05/") and r["status"] == "succeeded")
    assert flipped["queries"] == 17 and flipped["pred"] == 0 and flipped["edits"][0]["before"] == "good"
    assert all(e["before"] != e["after"] for r in score for e in r["edits"])
    result = bench.reduce(records, ctx)
    hits = sum(r["status"] == "budget" for r in score)
    assert result.summary["query budget"] == 17 and result.summary["items that hit the query budget"] == hits
    diagnostics = next(t for t in result.tables if t.title == "Generation diagnostics")
    assert any(row[2] == "examples that hit the query budget" for row in diagnostics.rows)


def test_draws_short_of_their_degree_are_counted_and_named(tmp_path):
    bench, ctx, _ = make(tmp_path, attacks=("one-word", "toy-G"), transforms=(ToyWord, OneWord), access="rule")
    records = run(bench, ctx)
    short = {(r["tag"], r["degree"]): r["short"] for r in records.values() if "tag" in r}
    # 15-word reviews: one changed word is 1/15 = 0.067, at least 0.8 d for d = 0.05 but not for 0.1 or 0.3
    assert short["one-word", 0.05] == 0 and short["one-word", 0.1] == short["one-word", 0.3] == 1
    assert all(v == 0 for (tag, _), v in short.items() if tag == "toy-G")
    result = bench.reduce(records, ctx)
    assert result.summary["most draws short of their degree"] == "one-word from 0.1"
    diagnostics = next(t for t in result.tables if t.title == "Generation diagnostics")
    row = next(r for r in diagnostics.rows if r[0] == "one-word" and r[2] == "draws short of the degree (%)")
    assert row[3:] == ["-", 0, 100, 100]
