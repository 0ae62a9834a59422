"""Native DeepWordBug, PWWS and TextFooler on tiny victims: query budgets, real flips, edit constraints,
closed-form runs, batching, determinism, modes, registration. Every check has a negative control."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robust.core.errors import MissingResource
from robust.core.interfaces import AttackResult, Example
from robust.plugins.recipes import PWWS, CharacterBugs, DeepWordBug, TextFooler, WordNetSwap
from robust.plugins.recipes.charset import HOMOGLYPHS
from robust.plugins.recipes.lexicon import stopwords, wordnet_substitutes
from robust.plugins.recipes.tokens import textattack_words, wordpunct
from robust.toolkit.search import drive, leave_one_out, masked_between
from robust.toolkit.text import levenshtein
from tests.recipes.toys import (
    LABELS,
    REVIEWS,
    Spy,
    budget_violations,
    context,
    flip_violations,
    homoglyph_violations,
    lexicon_probs,
    spied_queries,
    synonym_violations,
    victim,
)

KINDS = ("deepwordbug", "deepwordbug-textattack", "pwws", "textfooler")


def make(kind: str, ctx=None, **config):
    ctx = ctx or context()
    if kind == "deepwordbug-textattack":
        return DeepWordBug(variant="textattack", **config).bind(ctx)
    if kind == "textfooler":
        return TextFooler(encoder="toy-encoder", **config).bind(ctx)
    return {"deepwordbug": DeepWordBug, "pwws": PWWS}[kind](**config).bind(ctx)


def rngs(seed: int, n: int = len(REVIEWS)) -> list[np.random.Generator]:
    return [np.random.default_rng([seed, k]) for k in range(n)]


def predictions(texts) -> list[int]:
    return [int(p) for p in lexicon_probs(list(texts)).argmax(1)]


# --- query budget -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("budget", [0, 1, 2, 3, 7, 20, 60])
def test_budget_is_never_exceeded_and_queries_are_what_the_victim_saw(kind, budget):
    assert budget_violations(make(kind), REVIEWS, budget) == []


@pytest.mark.parametrize("kind", KINDS)
def test_budget_zero_asks_nothing_and_budget_one_only_the_original(kind):
    attacker = make(kind)
    for res in attacker.attack(REVIEWS, victim(), budget=0, rngs=rngs(0)):
        assert (res.queries, res.status, res.success, res.perturbed) == (0, "budget", False, res.original)
    textattack = kind == "deepwordbug-textattack"
    for ex, res in zip(REVIEWS, attacker.attack(REVIEWS, victim(), budget=1, rngs=rngs(0))):
        assert res.queries == 1 and not res.success
        tokens = (textattack_words if textattack else wordpunct)(ex.text).words
        # TextAttack skips the misclassified w1; a text without words has nothing to attack; the rest run dry
        expected = "skipped" if textattack and ex.id == "w1" else "failed" if not tokens else "budget"
        assert res.status == expected


@pytest.mark.parametrize("kind", KINDS)
def test_the_budget_setting_applies_when_the_caller_sets_none(kind):
    capped = make(kind, budget=4)
    assert all(seen <= 4 for seen, _ in spied_queries(capped, REVIEWS, None))
    uncapped = [seen for seen, _ in spied_queries(make(kind), REVIEWS, None)]
    assert max(uncapped) > 4  # the cap really bound
    assert make(kind).config["budget"] is None  # no cap; asr-predict passes 1000 (docs/asr_predict.md)


def test_budget_check_catches_an_attacker_that_overspends_or_underreports():
    class Overspending(PWWS):
        def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
            return super().attack(examples, model, transform, degree, None if budget is None else budget + 3, rngs)

    class Underreporting(PWWS):
        def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
            out = super().attack(examples, model, transform, degree, budget, rngs)
            for res in out:
                res.queries = max(0, res.queries - 1)
            return out

    ctx = context()
    assert budget_violations(PWWS().bind(ctx), REVIEWS, 7) == []
    assert budget_violations(Overspending().bind(ctx), REVIEWS, 7)
    assert budget_violations(Underreporting().bind(ctx), REVIEWS, 7)


# --- success means a flip ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_faithful_success_flips_the_models_own_prediction_and_misclassified_examples_are_attacked(kind):
    results = make(kind).attack(REVIEWS, victim(), rngs=rngs(0))
    if kind == "deepwordbug-textattack":  # TextAttack's goal: the gold label, misclassified skipped
        targets = [LABELS.index(ex.label) for ex in REVIEWS]
        assert results[5].status == "skipped"
    else:  # OpenAttack's goal: the model's own original prediction; w1 (gold neg, predicted pos) is attacked
        targets = predictions(ex.text for ex in REVIEWS)
        assert results[5].status != "skipped" and targets[5] == 1
    assert flip_violations(results, REVIEWS, targets) == []
    assert sum(r.success for r in results) >= 3  # not vacuous
    assert all(r.queries <= 1000 for r in results)


@pytest.mark.parametrize("kind", KINDS)
def test_clean_mode_attacks_the_gold_label_and_skips_misclassified_examples(kind):
    results = make(kind, mode="clean").attack(REVIEWS, victim(), rngs=rngs(0))
    assert results[5].status == "skipped" and results[5].queries == 1
    assert flip_violations(results, REVIEWS, [LABELS.index(ex.label) for ex in REVIEWS]) == []
    assert sum(r.success for r in results) >= 2


def test_flip_check_catches_a_forged_success():
    results = make("pwws").attack(REVIEWS, victim(), rngs=rngs(0))
    targets = predictions(ex.text for ex in REVIEWS)
    failed = next(k for k, r in enumerate(results) if not r.success)
    forged = list(results)
    forged[failed] = AttackResult(results[failed].original, results[failed].perturbed, True, 1, "succeeded")
    assert flip_violations(forged, REVIEWS, targets)
    # and a success judged against the wrong class (gold instead of the prediction) for the misclassified one
    gold = [LABELS.index(ex.label) for ex in REVIEWS]
    assert flip_violations(results, REVIEWS, gold) or not results[5].success


# --- constraints --------------------------------------------------------------------------------------------------
def test_deepwordbug_edits_at_most_five_tokens_one_homoglyph_each():
    results = make("deepwordbug").attack(REVIEWS, victim(), rngs=rngs(0))
    for res in results:
        assert homoglyph_violations(res.original, res.perturbed) == []
        assert all(len(e["before"]) == len(e["after"]) for e in res.edits)
    assert max(len(r.edits) for r in results) >= 3


def test_homoglyph_check_catches_too_many_tokens_and_other_edits():
    text = "good fun clever nice great movie plot cast story year"
    loud = make("deepwordbug", power=8).attack([Example("x", text, "pos")], victim(), rngs=rngs(0, 1))[0]
    assert len(loud.edits) == 8 and homoglyph_violations(text, loud.perturbed)
    typo = make("deepwordbug-textattack").attack(REVIEWS[:3], victim(), rngs=rngs(0, 3))
    assert any(homoglyph_violations(r.original, " ".join(wordpunct(r.perturbed).words)) for r in typo if r.edits)


def test_deepwordbug_closed_form_run():
    # drops when a token is replaced by <UNK>: good 2 > fun 1.5 > clever 1 > all others 0 (then position order)
    ex = Example("x", "A good film , really clever and fun to watch .", "pos")
    res = make("deepwordbug").attack([ex], victim(), rngs=rngs(0, 1))[0]
    n = len(wordpunct(ex.text).words)
    assert res.queries == n + 2  # the original, n replace-one texts, one final query
    # the first five tokens: good, fun, clever, then 'A' (no look-alike for 'A': unchanged) and 'film'
    assert sorted(e["index"] for e in res.edits) == [1, 2, 5, 7]
    assert res.success and res.status == "succeeded"
    assert res.perturbed.split(" ")[0] == "A"  # OpenAttack does not lower-case for DeepWordBug


def test_deepwordbug_textattack_variant_edits_each_word_once_by_one_character_operation():
    ctx = context()
    stop = stopwords(ctx)
    results = make("deepwordbug-textattack", ctx).attack(REVIEWS, victim(), rngs=rngs(0))
    for res in results:
        assert levenshtein(res.original, res.perturbed) <= 30
        indices = [e["index"] for e in res.edits]
        assert len(indices) == len(set(indices))
        for e in res.edits:
            assert e["before"] not in stop
            assert levenshtein(e["before"], e["after"]) <= 2 and abs(len(e["before"]) - len(e["after"])) <= 1
    assert any(r.success for r in results)


@pytest.mark.parametrize("kind", ["pwws", "textfooler"])
@pytest.mark.parametrize("mode", ["faithful", "clean"])
def test_word_substitutes_are_wordnet_synonyms_of_the_original_word_never_stop_words(kind, mode):
    ctx = context()
    results = make(kind, ctx, mode=mode).attack(REVIEWS, victim(), rngs=rngs(0))
    assert all(synonym_violations(ctx, r) == [] for r in results)
    assert sum(len(r.edits) for r in results) >= 3
    if mode == "faithful":  # OpenAttack lower-cases and re-joins WordPunct tokens with spaces
        assert all(r.perturbed == " ".join(wordpunct(r.original.lower()).words) or r.edits for r in results)
        assert all(r.perturbed == r.perturbed.lower() for r in results)
    else:  # clean: edited in place, everything else as it was
        for r in results:
            restored = r.perturbed
            for e in r.edits:
                restored = restored.replace(e["after"], e["before"], 1)
            assert restored == r.original


def test_synonym_check_catches_non_synonyms_and_stop_words():
    ctx = context()
    forged = AttackResult("a good film", "a bad film", True, 3, "succeeded", [{"index": 1, "before": "good",
                                                                                "after": "bad"}])
    assert synonym_violations(ctx, forged)
    assert "bad" not in wordnet_substitutes("good")
    stop = AttackResult("the film", "a film", True, 3, "succeeded", [{"index": 0, "before": "the", "after": "a"}])
    assert synonym_violations(ctx, stop)


def test_textfooler_accepts_only_substitutes_above_the_similarity_threshold():
    results = make("textfooler").attack(REVIEWS, victim(), rngs=rngs(0))
    for ex, r in zip(REVIEWS, results):
        threshold = 0.1 if len(wordpunct(ex.text).words) < 15 else 0.5
        assert all(e["similarity"] >= threshold for e in r.edits)
    assert any(r.edits for r in results)
    # negative control: an encoder under which no two texts are alike lets nothing through
    distinct = lambda texts: _tilted(texts, 0.0)  # noqa: E731 - every window orthogonal to every other
    blind = make("textfooler", context(distinct)).attack(REVIEWS, victim(), rngs=rngs(0))
    assert all(not r.edits and not r.success for r in blind)


def _tilted(texts, shared=0.3):
    """Every text: cosine `shared` to every other text (a shared component, plus a direction of its own)."""
    out = np.zeros((len(texts), 1 + 4096))
    out[:, 0] = np.sqrt(shared)
    for row, text in enumerate(texts):
        out[row, 1 + zlib.crc32(text.encode()) % 4096] = np.sqrt(1 - shared)
    return out


def test_textfooler_threshold_per_example_or_sticky_as_openattack():
    short, long = REVIEWS[0], REVIEWS[1]  # 11 and 15 tokens: thresholds 0.1 and 0.5
    assert len(wordpunct(short.text).words) < 15 <= len(wordpunct(long.text).words)
    plain = make("textfooler", context(_tilted)).attack([short, long], victim(), rngs=rngs(0, 2))
    assert plain[0].edits and not plain[1].edits  # similarity 0.3 passes 0.1, fails 0.5
    sticky = make("textfooler", context(_tilted), sticky_threshold=True)
    after_short = sticky.attack([short, long], victim(), rngs=rngs(0, 2))
    assert after_short[1].edits and after_short[1].success  # the long text inherits 0.1 (docs/attacks.md, TextFooler)
    fresh = make("textfooler", context(_tilted), sticky_threshold=True)
    assert not fresh.attack([long], victim(), rngs=rngs(0, 1))[0].edits
    assert fresh.attack([short], victim(), rngs=rngs(0, 1))[0].edits
    assert fresh.attack([long], victim(), rngs=rngs(0, 1))[0].edits  # sticks across calls of one object


def test_pwws_closed_form_run():
    # P(pos) = sigmoid(nice 1 + good 2 - 0.25); substitutes outside the lexicon weigh 0
    ex = Example("x", "nice good film", "pos")
    res = make("pwws").attack([ex], victim(), rngs=rngs(0, 1))[0]
    # saliency S = p(x) - p(x without the word): good 0.261 > nice 0.088 > film 0; each best substitute (the first,
    # all weigh 0) lowers p(pos) by the same amounts, so H orders good, nice, film: good -> well keeps pos
    # (sigmoid(0.75)), nice -> decent flips it (sigmoid(-0.25) < 0.5)
    assert wordnet_substitutes("good")[0] == "well" and wordnet_substitutes("nice")[0] == "decent"
    assert res.perturbed == "decent well film" and res.success
    assert [(e["index"], e["after"]) for e in res.edits] == [(0, "decent"), (1, "well")]
    subs = sum(len(wordnet_substitutes(w)) for w in ("nice", "good", "film"))
    # the original (= the saliency's base text), 3 leave-one-out texts, every substitute text, the final text
    # ("nice well film" was already classified as a substitute)
    assert res.queries == 1 + 3 + subs + 1


# --- batching, determinism ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_batching_changes_no_outcome_and_costs_one_call_per_step(kind):
    calls = {"n": 0}

    def counting(texts):
        calls["n"] += 1
        return lexicon_probs(texts)

    together = make(kind).attack(REVIEWS, victim(counting), rngs=rngs(5))
    batched_calls, alone_calls = calls["n"], []
    for k, ex in enumerate(REVIEWS):
        calls["n"] = 0
        alone = make(kind).attack([ex], victim(counting), rngs=[rngs(5)[k]])[0]
        alone_calls.append(calls["n"])
        assert alone.to_json() == together[k].to_json()
    assert batched_calls <= max(alone_calls) < sum(alone_calls)


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_same_results(kind):
    first = [r.to_json() for r in make(kind).attack(REVIEWS, victim(), rngs=rngs(1))]
    assert first == [r.to_json() for r in make(kind).attack(REVIEWS, victim(), rngs=rngs(1))]
    other = [r.to_json() for r in make(kind).attack(REVIEWS, victim(), rngs=rngs(2))]
    if kind.startswith("deepwordbug"):  # random character positions: another seed changes some text
        assert other != first
    else:  # PWWS and TextFooler make no random choice
        assert other == first


def test_without_rngs_the_run_seed_decides():
    a = make("deepwordbug", context(seed=1)).attack(REVIEWS, victim())
    b = make("deepwordbug", context(seed=1)).attack(REVIEWS, victim())
    c = make("deepwordbug", context(seed=2)).attack(REVIEWS, victim())
    assert [r.to_json() for r in a] == [r.to_json() for r in b] != [r.to_json() for r in c]


# --- transforms -------------------------------------------------------------------------------------------------
def test_transforms_make_the_recipes_edits_on_whitespace_words():
    rng = np.random.default_rng(0)
    glyph = CharacterBugs().bind(context())
    out = glyph.edit("a (good) film", 1, rng, "a (good) film")
    inner = out.split()[1]
    assert inner.startswith("(") and inner.endswith(")")  # punctuation around the word kept
    assert homoglyph_violations("good", inner[1:-1]) == []
    swap = WordNetSwap().bind(context())
    new = swap.edit("A Good film", 1, rng, "A Good film").split()[1]
    assert new.lower() in wordnet_substitutes("good") and new[0].isupper()
    assert swap.edit("the of and", 0, rng, "the of and") is None  # no substitute: no edit
    drawn = swap.apply(Example("x", "good nice film plot", "pos"), 0.5, rng)[0].text
    assert sum(a != b for a, b in zip(drawn.split(), "good nice film plot".split())) == 2


# --- registration, construction, resources -------------------------------------------------------------------------
def test_registered_built_in_and_created_by_name():
    ctx = context()
    for name, cls in (("deepwordbug", DeepWordBug), ("pwws", PWWS), ("textfooler", TextFooler)):
        attacker = ctx.create("attacker", name)
        assert isinstance(attacker, cls) and ctx.registry.get("attacker", name).origin == "built-in"
    assert isinstance(ctx.create("transform", "deepwordbug-edit"), CharacterBugs)
    assert isinstance(ctx.create("transform", "wordnet-swap"), WordNetSwap)
    pwws = ctx.create("attacker", "pwws", budget=50)
    res = pwws.attack(REVIEWS[:2], victim(), rngs=rngs(0, 2))
    assert all(r.queries <= 50 for r in res)


def test_missing_wordnet_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path))
    with pytest.raises(MissingResource, match="robust setup wordnet-index"):
        PWWS.check_available()
    with pytest.raises(MissingResource, match="robust setup"):
        make("pwws").attack(REVIEWS[:1], victim())


def test_drive_budget_zero_means_no_query():
    def search():
        probs = yield ["a", "b"]
        return probs

    spy = Spy()
    outcome = drive([search()], spy, 0, reserve=0, partial=True)[0]
    assert outcome.value is None and outcome.queries == 0 and spy.seen == set() and outcome.capped


# --- through the `attack` benchmark and RobTest's attacker -------------------------------------------------------
def _write(path, examples):
    import json

    path.write_text("".join(json.dumps({"text": ex.text, "label": ex.label}) + "\n" for ex in examples))
    return path


def test_attack_benchmark_runs_the_recipes_by_name(tmp_path):
    from robust.core.context import RunContext
    from robust.plugins.benchmarks.attack.benchmark import AttackBenchmark

    data = _write(tmp_path / "reviews.jsonl", REVIEWS[:6])
    attacks = ["deepwordbug", "pwws", "textfooler"]
    ctx = RunContext("t", 0, victim(), context().registry, data=str(data), attacks=attacks,
                     plugin_settings={"textfooler": {"encoder": "toy-encoder"}})
    ctx._models.update(context()._models)
    bench = AttackBenchmark(budget=300).bind(ctx)
    bench.required_capabilities(ctx)
    bench.prepare(ctx)
    items = bench.items(ctx)
    records = dict(zip([it.id for it in items], bench.run_batch(items, ctx)))
    summary = bench.reduce(records, ctx).summary
    for name in attacks:
        assert summary[f"{name}/n"] == 6 and summary[f"{name}/skipped"] == 1  # the benchmark skips w1
        assert summary[f"{name}/attack_success_rate"] == pytest.approx(3 / 5)  # p1-p3 flip, n1-n2 cannot
    assert all(r["queries"] <= 300 for r in records.values())


def test_saliency_greedy_searches_over_the_recipe_transforms():
    from robust.plugins.benchmarks.robtest.attacker import SaliencyGreedy

    ctx = context()
    greedy = SaliencyGreedy(stop_on_flip=True).bind(ctx)
    ex = Example("x", "a good film and a nice plot", "pos")
    for transform in (CharacterBugs().bind(ctx), WordNetSwap().bind(ctx)):
        res = greedy.attack([ex], victim(), transform, 0.5, None, rngs(0, 1))[0]
        assert res.success and "good" not in res.perturbed.split()


@pytest.mark.parametrize("spaced", [False, True], ids=["around-the-spans", "single-spaced"])
def test_tokens_render_and_replacing_rebuild_the_text_around_the_tokens(spaced):
    texts = ["the film's acting -- though slight -- is 'excellent' , really!", "  lead and trail  ", "one", "@ * -",
             "naïve café's 𝚝ext,\tand tabs"]
    for text in texts:
        for tokenize in (textattack_words, wordpunct):
            tokens = tokenize(text, spaced=spaced)
            words = tokens.words
            # the spans' own slow reference: the text cut at each span, the tokens put in between
            pieces, last = [], 0
            for (a, b), word in zip(tokens.spans, [w.upper() + "~" for w in words], strict=True):
                pieces += [text[last:a], word]
                last = b
            reference = " ".join(w.upper() + "~" for w in words) if spaced else "".join([*pieces, text[last:]])
            assert tokens.render([w.upper() + "~" for w in words]) == reference
            assert tokens.render(words) == (" ".join(words) if spaced else text)
            for i in range(len(words)):
                news = ["X", "", words[i], "ab cd"]
                assert tokens.replacing(words, i, news) == [tokens.render([*words[:i], n, *words[i + 1:]])
                                                           for n in news]
            assert tokens.replacing(words, 0, []) == []
            if words and not spaced:  # a token list of another length is refused, never rendered shifted
                with pytest.raises(ValueError):
                    tokens.render(words[:-1])


def test_textfoolers_window_texts_are_the_windows_of_the_replaced_token_lists():
    """`window_texts` joins the window around the token once; each text equals the slice of the replaced list
    (OpenAttack's negative `lo` for short texts read from the end, as Python slices it; empty tokens kept)."""
    from robust.plugins.recipes.textfooler import window, window_texts

    subs = ["X", "", "ab cd"]
    for tokens in (["a"], ["a", "b"], ["w0", "", "w2", "w3", "w4"], [f"w{i}" for i in range(20)]):
        n = len(tokens)
        for size in (1, 3, 15):
            for clamp in (True, False):
                for i in range(n):
                    lo, hi = window(i, n, size, clamp)
                    expected = [" ".join([*tokens[:i], w, *tokens[i + 1:]][lo:hi]) for w in subs]
                    assert window_texts(tokens, i, subs, lo, hi) == expected, (tokens, size, clamp, i)
        assert window_texts(tokens, 0, [], *window(0, n, 15, False)) == []
    # a window that does not hold the token: every text is the current window's
    assert window_texts(["a", "b", "c", "d"], 3, ["X", "Y"], 0, 2) == ["a b", "a b"]


def test_textfooler_loads_its_encoders_weights_before_the_first_example():
    """`warm_up` (the attack benchmark calls it while preparing) loads the encoder's weights, so that the first
    example's `seconds_per_example` times the attack, not the encoder's load; without it they load at the first
    `embed`."""
    from robust import FunctionModel
    from tests.recipes.toys import hashed_embed

    loaded: list[bool] = []

    class Encoder(FunctionModel):
        def preload(self) -> None:
            loaded.append(True)

    ctx = context()
    ctx._models["toy-encoder"] = Encoder(hashed_embed, "embed")
    attacker = make("textfooler", ctx)
    assert loaded == []
    attacker.warm_up()
    assert loaded == [True]


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(st.text(min_size=1, max_size=6), max_size=12), data=st.data())
def test_masked_texts_are_each_token_replaced_in_the_rendered_text(tokens, data):
    """`masked_between` builds each masked text from a part before and a part after its token, computed once: the
    same as rendering every masked token list whole, for any gaps, positions in any order and repeats."""
    gaps = data.draw(st.lists(st.text(max_size=3), min_size=len(tokens) + 1, max_size=len(tokens) + 1))
    indices = data.draw(st.none() | st.lists(st.integers(0, len(tokens) - 1), max_size=8) if tokens else st.none())

    def render(words):
        return "".join(g + w for g, w in zip(gaps, words)) + gaps[-1]

    expected = [render([*tokens[:i], "[M]", *tokens[i + 1:]]) for i in (range(len(tokens)) if indices is None
                                                                         else indices)]
    assert masked_between(tokens, gaps, "[M]", indices) == expected


@pytest.mark.parametrize("spaced", [False, True], ids=["around-the-spans", "single-spaced"])
def test_tokens_masked_is_leave_one_out_of_their_render(spaced):
    for text in ["the film's acting -- though slight -- is 'excellent' , really!", "  lead and trail  ", "one",
                 "@ * -", "naïve café's 𝚝ext,\tand tabs"]:
        for tokenize in (textattack_words, wordpunct):
            tokens = tokenize(text, spaced=spaced)
            words = tokens.words
            assert tokens.masked(words, "[UNK]") == leave_one_out(words, "[UNK]", tokens.render)
            picked = list(range(len(words)))[::-2]
            assert tokens.masked(words, "<u>", picked) == leave_one_out(words, "<u>", tokens.render, picked)
    with pytest.raises(ValueError, match="3 gaps around 1 tokens"):
        masked_between(["a"], ["", " ", ""], "[M]")


def _textattack_words_token_by_token(text: str) -> list[tuple[int, int]]:
    """TextAttack's words_from_text as it reads: each whitespace token stripped of `'-_*@`, then each run of word
    characters in it stripped of them (the spans `textattack_words` finds in one pass over the text)."""
    from robust.plugins.recipes.tokens import _EDGES, _ta_run

    spans = []
    for token in re.finditer(r"\S+", text):
        word = token.group()
        left = len(word) - len(word.lstrip(_EDGES))
        for run in _ta_run().finditer(word.strip(_EDGES)):
            stripped = run.group().strip(_EDGES)
            if stripped:
                a = token.start() + left + run.start() + len(run.group()) - len(run.group().lstrip(_EDGES))
                spans.append((a, a + len(stripped)))
    return spans


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab1Z \t\n'-_*@.,!é" + "".join(sorted(HOMOGLYPHS.values())[:6])),
               max_size=24) | st.text(max_size=24))
def test_textattack_words_in_one_pass_are_its_words_token_by_token(text):
    assert list(textattack_words(text).spans) == _textattack_words_token_by_token(text)
