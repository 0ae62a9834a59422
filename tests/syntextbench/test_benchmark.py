"""The benchmark glue: items, records, resume, reduce, figures, compare, settings, pooling choice."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.core.results import Result
from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench, choose_pooling

from .conftest import lexical_embedder, make_ctx, random_embedder

SMALL = {"n": 200, "levels": [0.0, 0.3, 0.6, 0.9], "trials": 2}


def run(bench, ctx, chunk=1):
    bench.prepare(ctx)
    items = bench.items(ctx)
    records = {}
    for start in range(0, len(items), chunk):
        batch = items[start:start + chunk]
        records.update(zip([i.id for i in batch], bench.run_batch(batch, ctx)))
    return records


@pytest.fixture(scope="module")
def lexical_run(registry, afinn_lists):
    bench = SynTextBench(**SMALL)
    ctx = make_ctx(registry, lexical_embedder(afinn_lists))
    records = run(bench, ctx)
    return bench, ctx, records, bench.reduce(records, ctx)


def test_items_are_trial_level_pairs(registry):
    bench = SynTextBench(**SMALL)
    ids = [i.id for i in bench.items(make_ctx(registry, None))]
    assert ids == [f"t{t}-p{p:.2f}" for t in range(2) for p in SMALL["levels"]] and len(set(ids)) == 8
    assert len(SynTextBench().items(make_ctx(registry, None))) == 20  # paper grid, one trial by default


def test_records_are_small_json_and_independent_of_batching(lexical_run, registry, afinn_lists):
    _, _, records, _ = lexical_run
    rec = records["t0-p0.30"]
    assert len(json.dumps(rec)) < 1000 + 12 * 200  # per-level numbers and one margin per sentence, no embeddings
    assert rec["n_train"] == 180 and rec["n_test"] == 20 and rec["lexicon"] == "afinn"
    assert rec["folds"] == 10 and sum(len(m) for m in rec["margins"]) == 200  # cross-fitted: all held out once
    assert rec["pooling"] == "model's own"  # a function embedder ignores `pooling`: no pooling is claimed
    # a fresh benchmark in bigger batches, or resuming one item alone, gives identical records
    again = run(SynTextBench(**SMALL), make_ctx(registry, lexical_embedder(afinn_lists)), chunk=3)
    assert again == records
    fresh = SynTextBench(**SMALL)
    ctx = make_ctx(registry, lexical_embedder(afinn_lists))
    item = [i for i in fresh.items(ctx) if i.id == "t1-p0.90"]
    assert fresh.run_batch(item, ctx)[0] == records["t1-p0.90"]  # no prepare() needed when resuming


def test_lexical_embedder_result(lexical_run):
    bench, _, records, result = lexical_run
    acc = {p: np.mean([r["accuracy"] for r in records.values() if r["p"] == p]) for p in SMALL["levels"]}
    assert acc[0.0] > 0.9 and acc[0.0] >= acc[0.9]  # harder with more neutral words
    share = {p: np.mean([r["neutral_share"] for r in records.values() if r["p"] == p]) for p in SMALL["levels"]}
    assert all(abs(share[p] - p) < 0.06 for p in SMALL["levels"])
    s = result.summary
    assert s["score"] > 0.1 and s["trials"] == 2 and s["levels"] == 4 and s["n"] == 200 and s["complete"]
    assert s["score_sd"] > 0 and s["lexicon"] == "afinn" and "wordfreq" in s["lexicon_source"]
    assert s["score_ci_low"] < s["score"] < s["score_ci_high"] and 0 < s["score_se"] < 0.05
    assert s["score_aT0.6_ci_low"] < s["score_aT0.6"] < s["score_aT0.6_ci_high"]
    assert "bootstrap over held-out sentences" in s["score_ci_method"] and "CI" in result.tables[0].title
    assert s["debias"] is True and s["debias_rule"] == "auto: n = 200 < 4096" and s["folds"] == 10
    assert s["score_aT0.6"] > s["score"]
    table = result.tables[0]
    assert [row[0] for row in table.rows] == SMALL["levels"] and "accuracy" in table.columns
    back = Result.from_json(json.loads(json.dumps(result.to_json())))
    assert back.summary == s and back.tables[0].rows == table.rows
    figs = bench.figures(back)
    assert [t for t, _ in figs] == ["Robustness-accuracy curve s(a)", "Accuracy and margin by neutral share p"]
    assert all(hasattr(f, "savefig") for _, f in figs)


def test_random_embedder_scores_zero_and_compare_ranks(lexical_run, registry):
    bench = SynTextBench(**SMALL)
    ctx = make_ctx(registry, random_embedder())
    result = bench.reduce(run(bench, ctx), ctx)
    assert result.summary["score"] < 0.02 < lexical_run[3].summary["score"]
    cmp = SynTextBench.compare([("random", result), ("lexical", lexical_run[3])])
    assert cmp.summary["ranking"] == ["lexical", "random"] and cmp.summary["comparable"]
    assert cmp.tables[0].rows[0][:2] == [1, "lexical"] and cmp.summary["not_separable"] == []
    lexical = lexical_run[3]
    twin = Result({**lexical.summary, "score": lexical.summary["score"] + 0.2 * lexical.summary["score_se"]},
                  lexical.tables, lexical.data)  # within the interval: not separable, and compare says so
    again = SynTextBench.compare([("lexical", lexical), ("twin", twin)])
    assert again.summary["not_separable"] == [["twin", "lexical"]]
    assert again.tables[0].rows[0][again.tables[0].columns.index("separable_from_next")] == "no"
    other = Result({**result.summary, "lexicon": "sentiwordnet"}, result.tables, result.data)
    assert SynTextBench.compare([("a", other), ("b", lexical_run[3])]).summary["differing_settings"] == ["lexicon"]


def test_same_seed_same_corpus_across_models(registry, afinn_lists):
    bench = SynTextBench(**SMALL)
    a = bench.task(0, 0.3, make_ctx(registry, random_embedder()))
    b = bench.task(0, 0.3, make_ctx(registry, lexical_embedder(afinn_lists)))
    c = bench.task(0, 0.3, make_ctx(registry, None, seed=1))
    assert a.texts == b.texts and a.texts != c.texts
    assert len(bench.task(0, 0.3, make_ctx(registry, None, limit=40)).texts) == 40  # --limit caps n


def test_pooling_choice():
    assert choose_pooling("auto", frozenset({"embed"})) == "first-last-avg"
    assert choose_pooling("auto", frozenset({"embed", "logprobs", "generate"})) == "last-token"
    assert choose_pooling("mean", frozenset({"embed", "generate"})) == "mean"


@pytest.mark.parametrize("bad", [{"split": "x"}, {"scaling": "x"}, {"pooling": "x"}, {"direction": "x"},
                                 {"n": 2}, {"test_frac": 1.5}, {"nope": 1}])
def test_bad_settings(bad):
    with pytest.raises(RobustError):
        SynTextBench(**bad)


def test_string_settings_are_coerced():
    bench = SynTextBench(n="8192", a_T="0.6", levels="0.1,0.2", dedupe="true")
    assert bench.config["n"] == 8192 and bench.config["a_T"] == 0.6 and bench.config["levels"] == [0.1, 0.2]
    assert bench.config["dedupe"] is True


def test_pooling_follows_what_the_instance_provides(registry, tmp_path):
    """`hf:` declares every capability on the class; an encoder instance provides only `embed`."""
    import json as _json

    (tmp_path / "config.json").write_text(_json.dumps({"architectures": ["BertModel"]}))
    encoder = registry.model(f"hf:{tmp_path}")
    assert SynTextBench().pooling(make_ctx(registry, encoder)) == "first-last-avg"
    (tmp_path / "config.json").write_text(_json.dumps({"architectures": ["GPT2LMHeadModel"]}))
    decoder = registry.model(f"hf:{tmp_path}")
    assert SynTextBench().pooling(make_ctx(registry, decoder)) == "last-token"


def test_debias_auto_decides_on_the_effective_n_and_says_why(registry):
    """debias=auto: literal d_inter at the paper's sizes (n >= 4096), debiased below, on the n left after --limit."""
    ctx = make_ctx(registry, None)
    assert SynTextBench().debias(ctx)[0] is True
    assert SynTextBench(n="4096").debias(ctx) == (False, "auto: n = 4096 >= 4096, the paper's literal d_inter")
    assert SynTextBench(n="8192").debias(make_ctx(registry, None, limit=300)) == (True, "auto: n = 300 < 4096")
    assert SynTextBench(n="8192", debias="true").debias(ctx) == (True, "set: true")


def test_precision_paper_is_the_papers_setting(registry):
    from robust.plugins.benchmarks.syntextbench.constants import PAPER

    bench = SynTextBench(precision="paper", lexicon_path="/somewhere/SentiWordNet_3.0.0.txt")
    assert {k: bench.config[k] for k in PAPER} == PAPER and bench.folds == 1
    assert bench.config["n"] == 8192 and bench.config["trials"] == 3 and bench.config["lexicon"] == "sentiwordnet"
    assert bench.debias(make_ctx(registry, None)) == (False, "set: false")
    assert len(bench.items(make_ctx(registry, None))) == 60  # 3 trials x 20 levels
    with pytest.raises(RobustError, match="precision=paper fixes n=8192"):
        SynTextBench(precision="paper", n=256)
    assert SynTextBench(precision="paper", a_T=0.7).config["a_T"] == 0.7  # the paper's own value is fine


def test_cross_fitting_needs_the_holdout_split():
    assert SynTextBench(split="independent").folds == 1 and SynTextBench().folds == 10
    assert SynTextBench(test_frac=0.2).folds == 5 and SynTextBench(folds=1).folds == 1
    with pytest.raises(RobustError, match="cross-fitting needs split=holdout"):
        SynTextBench(split="independent", folds=10)
