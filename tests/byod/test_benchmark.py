"""The `byod` benchmark end to end on tiny random causal LMs loaded through `hf:<dir>`."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.core.interfaces import ModelAdapter
from robust.core.results import Result
from robust.plugins.benchmarks.byod import BYOD
from robust.plugins.benchmarks.byod.metrics import LN2

from .conftest import BADWORDS, make_ctx, make_model

BAD = str(BADWORDS) if BADWORDS.is_file() else ""  # the paper's list when present, else better-profanity
JSD_TESTS = ("lrs", "word_order", "tokenization")


def run(bench: BYOD, ctx, chunk: int = 32) -> dict[str, dict]:
    bench.prepare(ctx)
    items = bench.items(ctx)
    records = {}
    for start in range(0, len(items), chunk):
        batch = items[start: start + chunk]
        records.update((it.id, rec) for it, rec in zip(batch, bench.run_batch(batch, ctx), strict=True))
    return records


@pytest.fixture(scope="module")
def gpt2_run(gpt2_dir, corpus_file):
    model = make_model(gpt2_dir, batch_size=8)
    bench = BYOD(badwords_path=BAD)
    ctx = make_ctx(model, corpus_file, limit=6)
    return bench, ctx, run(bench, ctx)


def test_every_test_yields_finite_scores_in_range(gpt2_run):
    bench, ctx, records = gpt2_run
    tests = {r["test"] for r in records.values()} - {"health"}
    assert tests == {"negation", "toxicity", "lrs", "word_order", "tokenization", "entropy"}
    assert all(sum(r["test"] == t for r in records.values()) == 6 for t in tests)
    assert 6 < sum(r["test"] == "health" for r in records.values()) <= 64  # the degenerate-model check, unlimited
    for rec in records.values():
        assert rec["value"] is not None and math.isfinite(rec["value"])
        if rec["test"] in JSD_TESTS:
            assert 0 <= rec["value"] <= LN2 + 1e-9
    assert all(r["aligned"] for r in records.values() if r["test"] == "lrs")  # last m ids identical
    assert all(r["rejoin_control"] == 0 for r in records.values() if r["test"] == "word_order")
    result = bench.reduce(records, ctx)
    assert result.summary["mode"] == "clean"
    for metric in ("negation_sensitivity", "toxicity_frac", "lrs", "word_order_median_jsd", "tokenization_mean_jsd"):
        low, value, high = (result.summary[f"{metric}_ci_low"], result.summary[metric],
                            result.summary[f"{metric}_ci_high"])
        assert low <= value <= high
    assert result.summary["lrs"] > 0 and result.summary["tokenization_mean_jsd"] > 0
    assert result.summary["tokenization_unanchored_pieces"] == 0  # every piece tokenized in place
    assert "bootstrap over examples" in result.summary["ci_method"] and result.summary["lrs_se"] > 0


def test_negation_record_is_the_difference_of_hf_losses(gpt2_run, gpt2_dir):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _, _, records = gpt2_run
    tok, lm = AutoTokenizer.from_pretrained(gpt2_dir), AutoModelForCausalLM.from_pretrained(gpt2_dir)

    def loss(text):  # log ppl(x) = HF loss with labels = input_ids, truncated to 128 tokens (docs/byod.md)
        ids = tok(text, return_tensors="pt", truncation=True, max_length=128)["input_ids"]
        with torch.no_grad():
            return float(lm(ids, labels=ids).loss)

    for rec in (r for r in records.values() if r["test"] == "negation"):
        assert " not " in rec["x_prime"]
        assert rec["value"] == pytest.approx(loss(rec["x_prime"]) - loss(rec["x"]), abs=1e-4)


def test_result_round_trips_and_draws_figures(gpt2_run):
    bench, ctx, records = gpt2_run
    result = bench.reduce(records, ctx)
    again = Result.from_json(json.loads(json.dumps(result.to_json())))
    assert again.summary == result.summary and again.data == result.data
    titles = [t for t, _ in bench.figures(again)]
    assert titles == ["BYOD radar chart", "BYOD per-example distributions"]
    # the tiny random LM predicts confidently and wrongly: flagged, with a warning table, and never ranked
    assert result.summary["degenerate"] is True and result.tables[0].title == "BYOD warnings"
    assert result.summary["health_log_ppl"] > result.summary["health_log_vocab"] - 1
    healthy = Result.from_json(json.loads(json.dumps(result.to_json())))
    healthy.data["degenerate"] = False
    other = Result.from_json(json.loads(json.dumps(healthy.to_json())))
    other.data["radar"] = {k: v * 2 for k, v in other.data["radar"].items()}
    cmp = BYOD.compare([("a", healthy), ("b", other), ("broken", result)])
    assert [s[0] for s in cmp.data["series"]] == ["a", "b"] and len(cmp.tables[0].rows) == 3 * 6
    assert cmp.summary["not_ranked"] == ["broken"] and len(bench.figures(cmp)) == 1
    # a and b have the same scores and intervals: no test separates them, and compare says so for each test
    assert len(cmp.summary["not_separable"]) == 6 and cmp.tables[1].columns[-1] == "separable"


def test_batching_and_chunking_do_not_change_records(gpt2_dir, corpus_file):
    runs = []
    for batch_size, chunk in ((1, 1), (8, 32)):
        model = make_model(gpt2_dir, batch_size=batch_size)
        runs.append(run(BYOD(badwords_path=BAD), make_ctx(model, corpus_file, limit=4), chunk))
    one, many = runs
    assert one.keys() == many.keys()
    for item_id, rec in one.items():
        other = many[item_id]
        assert rec["value"] == pytest.approx(other["value"], abs=1e-5), item_id
        if rec["test"] == "toxicity":  # seeded per prompt: identical continuations
            assert rec["continuation_triggered"] == other["continuation_triggered"]


def test_uniform_model_is_insensitive(gpt2_dir, corpus_file, tmp_path):
    """A model whose logits are constant scores exactly 0 on every JSD test and Δ log ppl = 0."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    lm = AutoModelForCausalLM.from_pretrained(gpt2_dir)
    with torch.no_grad():
        lm.lm_head.weight.zero_()  # tied to the input embeddings: every logit is 0
    lm.save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(gpt2_dir).save_pretrained(tmp_path)
    bench = BYOD(test="negation,lrs,word_order,tokenization")
    ctx = make_ctx(make_model(tmp_path), corpus_file, limit=3)
    records = run(bench, ctx)
    assert all(abs(r["value"]) < 1e-5 for r in records.values() if r["test"] != "health")  # float32 noise only
    summary = bench.reduce(records, ctx).summary  # and it is flagged: perplexity = V exactly
    assert summary["degenerate"] and summary["health_log_ppl"] == pytest.approx(summary["health_log_vocab"], 1e-4)


def test_bos_tokenizer_counts_last_sentence_without_bos_in_clean_mode(llama_dir, corpus_file):
    model = make_model(llama_dir)
    ms = {}
    for mode in ("clean", "faithful"):
        recs = run(BYOD(test="lrs", mode=mode), make_ctx(model, corpus_file, limit=3))
        ms[mode] = [r["m"] for r in recs.values() if r["test"] == "lrs"]
    bench = BYOD(test="lrs")
    ctx = make_ctx(model, corpus_file, limit=3)
    lasts = [it.payload.x_prime.meta["last"] for it in bench.items(ctx) if it.payload.test == "lrs"]
    bos = model.tokenizer.bos_token_id
    assert all(model.tokenize([" " + s])[0][0] == bos for s in lasts)
    assert ms["clean"] == [len(model.tokenize([" " + s])[0]) - 1 for s in lasts]
    faithful_items = [it for it in BYOD(test="lrs", mode="faithful").items(ctx) if it.payload.test == "lrs"]
    assert ms["faithful"] == [len(model.tokenize([" " + it.payload.x_prime.meta["last"]])[0]) for it in faithful_items]


class TriggeredModel(ModelAdapter):
    """A fake causal LM that swears after the trigger and puts all mass on one token (id 1 = 'fuck')."""

    name = "triggered"
    capabilities = frozenset({"generate", "next_token_distribution", "tokenize"})
    VOCAB = ["the", "fuck", "cat", " the", " fuck", " cat"]

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        return [[self.VOCAB.index(w) if w in self.VOCAB else 0 for w in t.split(" ") if w] if t else []
                for t in texts]

    def _generate(self, prompts, max_new_tokens, seed, do_sample):
        return [" fuck that" if p.endswith("Fuck Fuck") else " a cat" for p in prompts]

    def _next_token_distribution(self, inputs):
        return [np.eye(len(self.VOCAB))[1 if str(x).endswith("Fuck Fuck") else 2] for x in inputs]


def test_toxicity_scores_a_swearing_model_as_toxic(corpus_file):
    bench = BYOD(test="toxicity", badwords_path=BAD)
    ctx = make_ctx(TriggeredModel(), corpus_file, limit=5)
    result = bench.reduce(run(bench, ctx), ctx)
    s = result.summary
    assert s["toxicity_frac"] == 1.0 and s["toxicity_frac_faithful"] == 1.0  # all 5 prompts are clean prose
    assert s["toxicity_logit_delta"] == pytest.approx(1.0) and s["toxicity_logit_frac_pos"] == 1.0


def test_settings_errors_and_overrides(gpt2_dir, corpus_file):
    from robust.core.hookspecs import hookimpl
    from robust.core.plugins import register_plugin, unregister_plugin
    from robust.plugins.benchmarks.byod.scorers import WordOrderScorer

    with pytest.raises(RobustError, match="unknown BYOD test"):
        BYOD(test="negation,bogus")
    with pytest.raises(RobustError, match="mode"):
        BYOD(mode="exact")
    assert BYOD(test="knowledge,word-order").tests == ["negation", "word_order"]

    class MeanWordOrder(WordOrderScorer):
        name = "mean-word-order"
        aggregate = "mean"

    class Plugin:
        @hookimpl
        def register_scorers(register):  # noqa: N805 - a hook namespace, not a method
            register(MeanWordOrder)

    register_plugin(Plugin, "test-byod-override")
    try:
        ctx = make_ctx(make_model(gpt2_dir), corpus_file, limit=5)
        bench = BYOD(test="word_order", scorers="word_order=mean-word-order")
        result = bench.reduce(run(bench, ctx), ctx)
        assert result.summary["word_order_median_jsd"] == pytest.approx(result.summary["word_order_mean_jsd"])
    finally:
        unregister_plugin("test-byod-override")


def test_normalized_negation_score_subtracts_the_benign_mean_absolute_change(gpt2_dir, corpus_file, tmp_path):
    benign = tmp_path / "benign.jsonl"
    benign.write_text("\n".join(json.dumps({"text": t}) for t in (
        "The boat was red. It is late.", "She is a painter and he was a cook.", "Rain is cold.")) + "\n")
    bench = BYOD(test="negation", benign_data=str(benign))
    ctx = make_ctx(make_model(gpt2_dir), corpus_file, limit=4)
    records = run(bench, ctx)
    benign_values = [r["value"] for k, r in records.items() if k.startswith("negation_benign/")]
    main_values = [r["value"] for k, r in records.items() if k.startswith("negation/")]
    assert len(benign_values) == 4 and len(main_values) == 4
    s = bench.reduce(records, ctx).summary
    expected = np.mean(main_values) - np.mean(np.abs(benign_values))
    assert s["negation_sensitivity_normalized"] == pytest.approx(expected)


def test_degenerate_settings_give_exactly_zero(gpt2_dir, corpus_file):
    """n_swap = 0 and a stride longer than any sentence leave x' = x, so JSD is exactly 0."""
    ctx = make_ctx(make_model(gpt2_dir), corpus_file, limit=4)
    records = run(BYOD(test="word_order,tokenization", n_swap=0, stride=100_000, health_n=0), ctx)
    assert len(records) == 8 and all(r["value"] == 0.0 for r in records.values())
    assert all(r["same_tokenization"] for r in records.values() if r["test"] == "tokenization")


class ByteLM(ModelAdapter):
    """A fake causal LM over bytes (V = 256): `kind` = "good" puts 0.6 on the true next byte, "uniform" is flat,
    "broken" puts 0.99 on a wrong byte (like a weight-permuted model: confident and wrong)."""

    name = "byte-lm"
    capabilities = frozenset({"logprobs", "next_token_distribution", "tokenize"})

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def tokenize(self, texts):
        return [list(t.encode()) for t in texts]

    def _dist(self, peak: int) -> np.ndarray:
        if self.kind == "uniform":
            return np.full(256, 1 / 256)
        p = np.full(256, (0.4 if self.kind == "good" else 0.01) / 255)
        p[peak if self.kind == "good" else (peak + 1) % 256] += 1 - p.sum()
        return p

    def _next_token_distribution(self, inputs):
        return [self._dist(ord("e")) for _ in inputs]

    def _logprobs(self, inputs):
        return [np.log([self._dist(t)[t] for t in row[1:]]) for row in inputs]


def test_health_check_flags_uniform_and_broken_models_only():
    from robust.core.context import RunContext
    from robust.core.interfaces import Example

    rows = [{"x": Example(str(i), t), "x_prime": Example(str(i), t)} for i, t in
            enumerate(["The film was good.", "A long and tedious sequel.", "It is what it is."])]
    health = RunContext.default().create("scorer", "byod-health")
    verdicts = {kind: health.score(rows, ByteLM(kind)) for kind in ("good", "uniform", "broken")}
    assert [bool(verdicts[k]["degenerate"]) for k in ("good", "uniform", "broken")] == [False, True, True]
    assert verdicts["uniform"]["health_log_ppl"] == pytest.approx(np.log(256))
    assert verdicts["broken"]["health_next_token_entropy"] < 1.0  # peaked, so entropy alone would miss it
    assert "not ranked" in health.reason(verdicts["broken"])

    def entropy_only(summary):  # negative control: the near-uniform criterion alone
        return summary["health_next_token_entropy"] >= summary["health_log_vocab"] - 1

    assert not entropy_only(verdicts["broken"])


def test_a_corpus_without_what_a_test_reads_is_named_as_the_user_gave_it_with_what_the_test_needs(gpt2_dir, tmp_path):
    """Rows from Python are named as such (not the file robust keeps them in), with what the empty test reads;
    no run is stored."""
    import robust
    from robust.engine.store import Store

    rows = [{"review": "The plot was dull. Nothing happens for an hour. The ending is bad."}]
    store = tmp_path / "runs.db"
    with pytest.raises(RobustError) as caught:
        robust.run("byod", model=f"hf:{gpt2_dir}", data=rows, store=store,
                   settings={"text_column": "review", "test": "negation,word_order"})
    assert str(caught.value) == ("byod: the rows passed as data= gave no usable sentences for word_order (it needs "
                                 "a passage of more than 20 words holding a sentence of more than 5); choose other "
                                 "tests with --test")
    assert Store(store).runs() == []


def test_long_range_swap_without_a_second_passage_says_it_needs_one(gpt2_dir, tmp_path):
    """A passage of five sentences is a candidate, but the swap takes its sentences from another passage; with none
    of at least lrs_swap sentences the test is empty, and the line says what was missing."""
    import robust

    rows = [{"text": "The film opens in a small town. The mayor was a singer. His daughter runs the bakery. "
                     "A stranger arrives. He looks for a song."}, {"text": "Short line."}]
    with pytest.raises(RobustError) as caught:
        robust.run("byod", model=f"hf:{gpt2_dir}", data=rows, store=tmp_path / "runs.db", settings={"test": "lrs"})
    assert str(caught.value) == ("byod: the rows passed as data= gave no usable sentences for lrs (it needs a passage "
                                 "of at least 3 sentences (lrs_sentences) and another passage of at least 2 (lrs_swap) "
                                 "to take sentences from)")
    rows[1]["text"] = "A second review. It has two sentences."
    run = robust.run("byod", model=f"hf:{gpt2_dir}", data=rows, store=tmp_path / "runs.db", settings={"test": "lrs"})
    assert run.status == "finished" and len(run.records) >= 1
