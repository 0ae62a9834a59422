"""The `attack` benchmark on a keyword victim: records, summary arithmetic, query counting, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.interfaces import AttackResult, Example, RecipeAttacker, Scorer
from robust.core.registry import Entry
from robust.plugins.benchmarks.attack.benchmark import AttackBenchmark, summarize
from robust.toolkit.text import changed_words
from tests.robtest.robtest_toys import ToyWord, keyword_probs, registry_with, write_reviews

GREEDY = "saliency-greedy:toy-G"


def make(tmp_path, attacks=(GREEDY,), fn=keyword_probs, extra_attackers=(), settings=None, scorers=(), data=None,
         **bench_settings):
    model = FunctionModel(fn, "classify", labels=["neg", "pos"], batch_size=10_000)
    registry = registry_with(ToyWord)
    for target in (AttackBenchmark, *extra_attackers):
        registry.add(Entry(target.kind, target.name, target, "tests", "local", "0"))
    data = data or write_reviews(tmp_path / "reviews.jsonl", n_pos=6, n_neg=4)
    plugin = settings if settings is not None else {"saliency-greedy": {"stop_on_flip": True}}
    ctx = RunContext("t", seed=3, model=model, registry=registry, data=str(data), attacks=list(attacks),
                     plugin_settings=plugin, scorers=[s.name for s in scorers])
    for scorer in scorers:
        registry.add(Entry("scorer", scorer.name, scorer, "tests", "local", "0"))
    bench = AttackBenchmark(**bench_settings).bind(ctx)
    bench.required_capabilities(ctx)
    bench.prepare(ctx)
    return bench, ctx


def run(bench, ctx, chunk):
    items = bench.items(ctx)
    records = {}
    for start in range(0, len(items), chunk):
        batch = items[start : start + chunk]
        records.update(zip([i.id for i in batch], bench.run_batch(batch, ctx), strict=True))
    return records


def without_time(records):
    return {k: {f: v for f, v in r.items() if f != "chunk_seconds_share"} for k, r in records.items()}


def test_summary_follows_textattack_conventions():
    recs = [{"status": "succeeded", "queries": 10, "word_share": 0.5, "chunk_seconds_share": 1.0},
            {"status": "succeeded", "queries": 20, "word_share": 0.1, "chunk_seconds_share": 2.0},
            {"status": "failed", "queries": 30, "word_share": 0.9, "chunk_seconds_share": 3.0},
            {"status": "budget", "queries": 40, "word_share": 0.9, "chunk_seconds_share": 4.0},
            {"status": "skipped", "queries": 1, "word_share": 0.0, "seconds": 5.0}]  # as stored before the rename
    s = summarize(recs)
    assert s["attack_success_rate"] == pytest.approx(2 / 4)  # skipped examples are not attacked
    assert s["accuracy_under_attack"] == pytest.approx(2 / 5)  # failed + budget over all
    assert s["clean_accuracy"] == pytest.approx(4 / 5)
    assert s["mean_queries"] == pytest.approx(25.0)  # over attacked examples only
    assert s["mean_perturbed_word_share"] == pytest.approx(0.3)  # over successful attacks only
    assert (s["succeeded"], s["failed"], s["budget"], s["skipped"]) == (2, 1, 1, 1)
    assert s["seconds_per_example"] == pytest.approx(3.0)  # every record's share of its chunk's seconds


def test_native_attack_flips_positives_and_fails_on_negatives(tmp_path):
    bench, ctx = make(tmp_path)
    records = run(bench, ctx, chunk=100)
    pos = [r for r in records.values() if r["label"] == "pos"]
    neg = [r for r in records.values() if r["label"] == "neg"]
    # the victim says pos only with 'good': masking finds it first and toy-G replaces it
    assert all(r["status"] == "succeeded" and r["success"] for r in pos)
    assert all("good" not in r["perturbed"].split() and "zzz" in r["perturbed"] for r in pos)
    assert all({"before": "good", "after": "zzz"} in [{k: e[k] for k in ("before", "after")} for e in r["edits"]]
               for r in pos)
    # removing 'bad' leaves P(pos) = 0.4: negatives can never flip
    assert all(r["status"] == "failed" and not r["success"] for r in neg)
    summary = bench.reduce(records, ctx).summary
    assert summary["attack_success_rate"] == pytest.approx(6 / 10)
    assert summary["clean_accuracy"] == 1.0
    assert summary["mean_perturbed_word_share"] == pytest.approx(np.mean([r["word_share"] for r in pos]))


class KeptWords(Scorer):
    """Share of the original's words the adversarial text keeps, for successful attacks (None otherwise)."""

    name = "kept-words"
    inputs = frozenset({"text", "perturbed", "status", "clean_pred", "pred"})

    def values(self, rows, model=None):
        return [sum(a == b for a, b in zip(r["text"].split(), r["perturbed"].split())) / len(r["text"].split())
                if r["status"] == "succeeded" and r["pred"] != r["clean_pred"] else None for r in rows]


def test_a_scorer_reads_the_fields_the_attack_benchmark_offers(tmp_path):
    bench, ctx = make(tmp_path, scorers=(KeptWords,))
    records = run(bench, ctx, chunk=4)
    pos = [r for r in records.values() if r["label"] == "pos"]
    assert pos and all(r["scores"]["kept-words"] == pytest.approx(1 - r["word_share"]) for r in pos)
    assert all(r["scores"]["kept-words"] is None for r in records.values() if r["label"] == "neg")
    summary = bench.reduce(records, ctx).summary
    assert summary["kept-words"] == pytest.approx(np.mean([1 - r["word_share"] for r in pos]))
    assert summary["kept-words_n"] == len(pos)


def test_records_do_not_depend_on_chunking(tmp_path):
    bench, ctx = make(tmp_path)
    whole = run(bench, ctx, chunk=100)
    bench2, ctx2 = make(tmp_path)
    assert without_time(whole) == without_time(run(bench2, ctx2, chunk=3))


def test_queries_are_the_distinct_texts_the_victim_saw(tmp_path):
    bench, ctx = make(tmp_path)
    records = run(bench, ctx, chunk=100)
    arm = bench.arms[GREEDY]
    for ex in bench.examples[:4]:
        seen: set[str] = set()

        def spy(texts, seen=seen):
            seen.update(texts)
            return keyword_probs(texts)

        alone = FunctionModel(spy, "classify", labels=["neg", "pos"])
        res = arm.attacker.attack([ex], alone, arm.transform, 0.3, None, [ctx.rng("attack", GREEDY, ex.id)])[0]
        assert res.queries == len(seen) > 1
        assert records[f"{GREEDY}/{ex.id}"]["queries"] == res.queries  # batching changes nothing


def test_already_wrong_examples_are_skipped(tmp_path):
    flipped = lambda texts: keyword_probs(texts)[:, ::-1]  # noqa: E731 - the victim is wrong on every example
    bench, ctx = make(tmp_path, fn=flipped)
    records = run(bench, ctx, chunk=100)
    assert {r["status"] for r in records.values()} == {"skipped"}
    assert all(r["queries"] == 1 and r["perturbed"] == r["original"] for r in records.values())
    assert bench.reduce(records, ctx).summary["clean_accuracy"] == 0.0


def test_attackers_get_the_batch_the_budget_and_no_transform_when_they_bring_their_own(tmp_path):
    calls = []

    class Echo(RecipeAttacker):
        name = "echo"

        def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
            calls.append((len(examples), transform, budget, len(rngs)))
            return [AttackResult(ex.text, ex.text.upper(), True, budget, "succeeded") for ex in examples]

    bench, ctx = make(tmp_path, attacks=("echo",), extra_attackers=(Echo,), budget=7)
    records = run(bench, ctx, chunk=4)
    assert calls == [(4, None, 7, 4), (4, None, 7, 4), (2, None, 7, 2)]
    assert all(r["queries"] == 7 and r["perturbed"] == r["original"].upper() for r in records.values())
    assert all(r["perturbed_words"] == sum(w != w.upper() for w in r["original"].split()) for r in records.values())



def test_perturbed_words_are_the_attackers_word_edits_not_its_re_spacing_or_case(tmp_path):
    """A recipe that re-tokenizes and lower-cases (OpenAttack's faithful mode: "Co-star" -> "co - star") and
    replaces one token reports one edit: one perturbed word, not every whitespace word its spacing moved."""

    class Respaced(RecipeAttacker):
        name = "respaced"

        def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
            out = []
            for ex in examples:  # NLTK WordPunct tokens of the lower-cased text, one replaced, joined by spaces
                tokens = re.findall(r"\w+|[^\w\s]+", ex.text.lower())
                index = tokens.index("good")
                tokens[index] = "zzz"
                out.append(AttackResult(ex.text, " ".join(tokens), True, 2, "succeeded",
                                        [{"index": index, "before": "good", "after": "zzz"}]))
            return out

    rows = [{"text": f"My Co-star's {i} was good , she said.", "label": "pos"} for i in range(4)]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench, ctx = make(tmp_path, attacks=("respaced",), extra_attackers=(Respaced,), data=data)
    records = run(bench, ctx, chunk=10)
    assert [r["perturbed"] for r in records.values()][0] == "my co - star ' s 0 was zzz , she said ."
    assert all(r["perturbed_words"] == 1 and r["n_words"] == 8 for r in records.values())
    assert all(r["word_share"] == pytest.approx(1 / 8) for r in records.values())
    # the whitespace words that differ would have counted the inserted and re-spaced words too
    assert all(changed_words(r["original"], r["perturbed"]) > 1 for r in records.values())

def test_a_bare_transform_is_run_by_the_default_attacker(tmp_path):
    bench, ctx = make(tmp_path, attacks=("toy-G",))
    assert list(bench.arms) == [GREEDY]


def test_user_mistakes_are_one_line_errors(tmp_path):
    with pytest.raises(RobustError, match="needs --attack"):
        make(tmp_path, attacks=())
    with pytest.raises(RobustError, match="searches over a transform's edits"):
        make(tmp_path, attacks=("saliency-greedy",))
    with pytest.raises(RobustError, match="no-such-attack"):
        make(tmp_path, attacks=("no-such-attack",))


def test_example_objects_are_what_attackers_receive(tmp_path):
    bench, ctx = make(tmp_path)
    assert all(isinstance(it.payload.example, Example) for it in bench.items(ctx))
    assert [it.id for it in bench.items(ctx)][:2] == [f"{GREEDY}/000001", f"{GREEDY}/000002"]


def test_listing_attacks_never_imports_textattack_or_torch():
    code = ("import sys; from robust.core.plugins import get_registry; r = get_registry(); "
            "import json; print(json.dumps([sorted(m for m in ('textattack', 'torch', 'transformers', 'nltk') "
            "if m in sys.modules), r.get('attacker', 'textattack:textfooler').target.unavailable(), "
            "r.get('attacker', 'textattack:deepwordbug').target.unavailable()]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    imported, textfooler, deepwordbug = json.loads(out.stdout)
    assert imported == []
    assert textfooler.startswith("needs counter-fitted word embeddings (TextAttack S3)")
    assert deepwordbug == "" or "needs textattack 0.3.11" in deepwordbug


@pytest.mark.parametrize("budget", [5, 20, 40])
def test_native_attack_never_exceeds_the_budget(tmp_path, budget):
    bench, ctx = make(tmp_path, budget=budget)
    records = run(bench, ctx, chunk=100)
    assert all(r["queries"] <= budget for r in records.values())
    unlimited = run(*make(tmp_path), chunk=100)
    for key, r in records.items():
        if unlimited[key]["queries"] <= budget:  # the budget did not bind: same outcome
            assert without_time({key: r}) == without_time({key: unlimited[key]})
        else:
            assert r["status"] in ("budget", "succeeded") and r["queries"] < unlimited[key]["queries"]
    if budget == 5:  # one saliency round needs 15 texts: nothing can be tried
        assert {r["status"] for r in records.values()} == {"budget"}
