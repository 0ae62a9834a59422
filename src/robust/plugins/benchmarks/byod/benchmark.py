"""The `byod` benchmark: self-supervised sensitivity tests of causal LMs on any corpus (Jain et al. 2023).

Work items are (test, example) pairs with ids `test/00042`; each test is a Transform (x -> x') and a Scorer
(model, pairs -> per-example records), looked up in the registry so either can be replaced.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from robust import (
    Benchmark,
    Example,
    Result,
    RobustError,
    RunContext,
    Setting,
    WorkItem,
    add_scores,
    check_pairing,
    derive_seed,
    summarize_scores,
)
from robust.plugins.benchmarks.byod.constants import ALIASES, BENIGN, COMPONENTS, DEFAULT_N, HEALTH, TESTS
from robust.plugins.benchmarks.byod.corpus import BottomK, Passage, passages, split_sentences
from robust.plugins.benchmarks.byod.report import build_result, compare, figures, report_parts
from robust.plugins.benchmarks.byod.transforms import LOCATIONS, MODES

#: what the examples of the long-range test carry in `Example.data` (a window and another passage's sentences)
PASSAGE_DATA = ("sentences", "donor")


@dataclass
class Candidate:
    """An unperturbed unit for a test: a sentence, or a window plus donor sentences (LRS)."""

    id: str
    text: str
    data: dict[str, Any] | None = None


@dataclass(frozen=True)
class Pair:
    """What a BYOD work item scores: a test, its unperturbed example and the transformed one."""

    test: str
    x: Example
    x_prime: Example


def parse_tests(value: str) -> list[str]:
    names = [ALIASES.get(t.strip().lower(), t.strip().lower()) for t in str(value).split(",") if t.strip()]
    if not names or names == ["all"]:
        return list(TESTS)
    for name in names:
        if name not in TESTS:
            raise RobustError(f"unknown BYOD test {name!r}; choose from {', '.join(TESTS)} or all")
    return list(dict.fromkeys(names))


def parse_overrides(value: str, kind: str) -> dict[str, str]:
    """`negation=my-transform,lrs=other` -> {test: plugin name}."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in str(value).split(","))):
        test, sep, name = part.partition("=")
        test = ALIASES.get(test.strip(), test.strip())
        if not sep or test not in TESTS:
            raise RobustError(f"bad {kind} override {part!r}; expected TEST=NAME with TEST in {', '.join(TESTS)}")
        out[test] = name.strip()
    return out


class BYOD(Benchmark):
    name = "byod"
    description = "BYOD: self-supervised sensitivity of causal LMs on your own corpus (negation, toxicity, "\
        "long-range context, word order, tokenization)"
    needs = frozenset({"logprobs", "next_token_distribution", "generate", "tokenize"})
    chunk_size = 32
    default_model = "smollm2"
    default_data = "mr-reviews"
    scorers = tuple(scorer for _, scorer in COMPONENTS.values())
    score_fields = frozenset({"test", "x", "x_prime", "seed"})  # x, x_prime: Examples
    settings: ClassVar[dict[str, Any]] = {
        "test": Setting("all", help="comma list of negation,toxicity,lrs,word_order,tokenization,entropy, or all"),
        "mode": Setting("clean", choices=MODES, help="clean: the paper, quirks fixed; faithful: the authors' code"),
        "max_examples": Setting(0, min=0, help="per test; 0 = the paper's counts (1000; word order 5000)"),
        "text_column": "text",
        "per_line": Setting(False, help="plain text: one paragraph per line instead of blank-line blocks"),
        "splitter": Setting("auto", choices=("auto", "nltk", "regex"), help="auto: nltk punkt_tab if set up"),
        "detokenize": Setting(False, help="apply the wikitext detokenizer of BYOD's code to each paragraph"),
        "negation_source": Setting("auto", choices=("auto", "topic", "all"),
                                   help="topic: first sentence of each paragraph; auto: topic if faithful"),
        "badwords_path": "",
        "trigger": "Fuck Fuck",
        "trigger_repeat": Setting(1, min=1),
        "trigger_location": Setting("append", choices=LOCATIONS),
        "max_new_tokens": Setting(20, min=1),
        "lrs_sentences": Setting(3, min=2),
        "lrs_swap": Setting(2, min=0),
        "n_swap": Setting(1, min=0),
        "stride": Setting(5, min=1),
        "transforms": Setting("", help="TEST=NAME overrides, e.g. negation=my-negation"),
        "scorers": Setting("", help="TEST=NAME overrides of the scorers"),
        "bootstrap": Setting(1000, min=0, help="bootstrap resamples for the confidence intervals"),
        "benign_data": Setting("", help="a benign corpus (file or dataset) for the normalized negation score"),
        "health_n": Setting(64, min=0, help="sentences of the degenerate-model check (0 = off)"),
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.tests = parse_tests(self.config["test"])
        self._components: dict[str, tuple[Any, Any]] = {}
        self._items: list[WorkItem] | None = None

    # components ---------------------------------------------------------------------------------
    def _component_config(self, kind: str, test: str) -> dict[str, Any]:
        c, mode = self.config, {"mode": self.config["mode"]}
        if kind == "attack":
            return {"negation": mode, "toxicity": {"phrase": c["trigger"], "repeat": c["trigger_repeat"],
                                                   "location": c["trigger_location"]},
                    "lrs": {"n_swap": c["lrs_swap"]}, "word_order": {**mode, "n_swap": c["n_swap"]},
                    "tokenization": {"stride": c["stride"]}}.get(test, {})
        return {"toxicity": {**mode, "badwords_path": c["badwords_path"], "trigger": c["trigger"],
                             "max_new_tokens": c["max_new_tokens"]},
                "lrs": mode, "tokenization": mode}.get(test, {})

    def components(self, ctx: RunContext, test: str) -> tuple[Any, Any]:
        """(transform or None, scorer) for a test; built-ins get this run's settings, overrides their own."""
        if test == BENIGN:
            return self.components(ctx, "negation")
        if test == HEALTH:
            if HEALTH not in self._components:
                self._components[HEALTH] = (None, ctx.create("scorer", "byod-health"))
            return self._components[HEALTH]
        if test not in self._components:
            transforms = parse_overrides(self.config["transforms"], "transform")
            scorers = parse_overrides(self.config["scorers"], "scorer")
            t_name, s_name = transforms.get(test, COMPONENTS[test][0]), scorers.get(test, COMPONENTS[test][1])
            t_conf = {} if test in transforms else self._component_config("attack", test)
            s_conf = {} if test in scorers else self._component_config("scorer", test)
            transform = ctx.create("transform", t_name, **t_conf) if t_name else None
            scorer = ctx.create("scorer", s_name, **s_conf)
            check_pairing(transform, scorer, PASSAGE_DATA if test == "lrs" else (), f"byod's {test} test")
            self._components[test] = (transform, scorer)
        return self._components[test]

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        needs = frozenset().union(*(self.components(ctx, t)[1].needs for t in self.tests))
        return needs.union(super().required_capabilities(ctx) - self.needs)

    # data -----------------------------------------------------------------------------------------
    def _corpus(self, ctx: RunContext, source: str | None = None) -> Iterator[Passage]:
        """Passages of a corpus from the core data path (a dataset may give its own sentence split)."""
        c = self.config
        splitter = lambda text: split_sentences(text, c["splitter"])  # noqa: E731
        data = ctx.open_data(source or ctx.data or self.default_data, text_column=c["text_column"],
                             label_column="", per_line=c["per_line"])
        texts = ((e.text, list(e.meta["sentences"])) if "sentences" in e.meta else e.text
                 for e in data.examples(ctx.seed))
        return passages(texts, splitter, c["detokenize"])

    def _needs(self, test: str) -> str:
        """What a test takes from the corpus (`candidates`' filters), for the line that says none was found."""
        c = self.config
        if test == "negation":
            return "it needs a sentence with " + ("is, was, are or were" if c["mode"] == "faithful" else
                                                  "is, was or were")
        if test == "lrs":
            n_in, n_swap = int(c["lrs_sentences"]), int(c["lrs_swap"])
            if c["mode"] == "faithful":
                return (f"it needs a passage of more than 100 words and at least {n_in + n_swap + 1} sentences "
                        "(lrs_sentences + lrs_swap + 1)")
            return (f"it needs a passage of at least {n_in} sentences (lrs_sentences) and another passage of at "
                    f"least {n_swap} (lrs_swap) to take sentences from")
        if test == "word_order":
            return "it needs a passage of more than 20 words holding a sentence of more than 5"
        if test in ("tokenization", "entropy"):
            return "it needs a passage of 50 characters or more holding a sentence of more than 5 words"
        return "it needs a sentence"

    def _n(self, test: str, ctx: RunContext) -> int:
        if test == HEALTH:
            return int(self.config["health_n"])
        n = int(self.config["max_examples"]) or DEFAULT_N["negation" if test == BENIGN else test]
        return min(n, ctx.limit) if ctx.limit else n

    def candidates(self, ctx: RunContext) -> dict[str, list[Candidate]]:
        """One streaming pass over the corpus: a seeded uniform sample of candidates for every test."""
        c, seed, faithful = self.config, ctx.seed, self.config["mode"] == "faithful"
        topic = c["negation_source"] == "topic" or (c["negation_source"] == "auto" and faithful)
        n_in, n_swap = int(c["lrs_sentences"]), int(c["lrs_swap"])
        # oversampled (3x as the code, + 100 for small n) since transforms may reject candidates;
        # entropy shares the tokenization sample
        pools = {t: BottomK(3 * self._n(t, ctx) + 100, seed, "tokenization" if t == "entropy" else t)
                 for t in self.tests}
        donors = BottomK(4 * self._n("lrs", ctx), seed, "lrs-donor")
        health = BottomK(self._n(HEALTH, ctx), seed, HEALTH)
        for p in self._corpus(ctx):
            words, s = len(p.text.split()), p.sentences
            pick = lambda label, n, i=p.index: derive_seed(seed, label, i) % n  # noqa: E731
            long = [(k, x) for k, x in enumerate(s) if len(x.split()) > 5]
            for test, pool in pools.items():
                if test == "negation":
                    for k, x in enumerate(s[:1] if topic else s):
                        pool.offer((p.index, k), Candidate(f"p{p.index}s{k}", x))
                elif test == "toxicity":
                    for k, x in enumerate(s):
                        pool.offer((p.index, k), Candidate(f"p{p.index}s{k}", x))
                elif test == "lrs" and faithful and words > 100:  # the code's filter (Jain et al. 2023, §6)
                    pool.offer((p.index,), Candidate(f"p{p.index}", p.text, {"sentences": list(s)}))
                elif test == "lrs" and not faithful and len(s) >= n_in:
                    start = pick("lrs-window", len(s) - n_in + 1)
                    window = list(s[start: start + n_in])
                    pool.offer((p.index,), Candidate(f"p{p.index}s{start}", " ".join(window),
                                                     {"sentences": window, "passage": p.index}))
                elif test == "word_order" and words > 20 and long:  # one sentence per paragraph (BYOD's code)
                    k, x = long[pick("word-order", len(long))]
                    pool.offer((p.index,), Candidate(f"p{p.index}s{k}", x))
                elif test in ("tokenization", "entropy") and len(p.text) >= 50:
                    for k, x in long:  # entropy shares the tokenization sample (same label)
                        pool.offer((p.index, k), Candidate(f"p{p.index}s{k}", x))
            for k, x in long:
                health.offer((p.index, k), Candidate(f"p{p.index}s{k}", x))
            if "lrs" in pools and not faithful and len(s) >= n_swap:
                start = pick("lrs-donor", len(s) - n_swap + 1)
                donors.offer((p.index,), (p.index, list(s[start: start + n_swap])))
        out = {t: pool.items() for t, pool in pools.items()}
        if self._n(HEALTH, ctx):
            out[HEALTH] = health.items()
        if self.config["benign_data"] and "negation" in self.tests:  # m = n benign sentences (docs/byod.md)
            benign = BottomK(3 * self._n(BENIGN, ctx) + 100, seed, BENIGN)
            for p in self._corpus(ctx, self.config["benign_data"]):
                for k, x in enumerate(p.sentences):
                    benign.offer((p.index, k), Candidate(f"b{p.index}s{k}", x))
            out[BENIGN] = benign.items()
        if "lrs" in out:
            out["lrs"] = self._pair_lrs(out["lrs"], donors.items(), faithful, n_in, n_swap, ctx)
        return out

    def _pair_lrs(self, pool: list[Candidate], donors: list[tuple[int, list[str]]], faithful: bool,
                  n_in: int, n_swap: int, ctx: RunContext) -> list[Candidate]:
        if faithful:  # x = last 3 sentences, donor = first 2 of the previous paragraph in shuffled order
            out = []
            for i, cand in enumerate(pool):
                s = cand.data["sentences"]
                if len(s) < n_in + n_swap + 1:
                    continue
                donor = pool[i - 1].data["sentences"][:n_swap]
                out.append(Candidate(cand.id, " ".join(s[-n_in:]), {"sentences": s[-n_in:], "donor": donor}))
            return out
        out = []
        for cand in pool:  # clean: a uniformly random *other* passage (docs/byod.md)
            others = [d for d in donors if d[0] != cand.data["passage"]]
            if not others:
                continue
            donor = others[derive_seed(ctx.seed, "lrs-pair", cand.id) % len(others)][1]
            out.append(Candidate(cand.id, cand.text, {"sentences": cand.data["sentences"], "donor": donor}))
        return out

    def describe_limit(self, limit: int) -> str:
        return (f"at most {limit} sentences (or passages) per test, in place of max_examples (the health check keeps "
                "health_n)")

    # items ------------------------------------------------------------------------------------------
    def prepare(self, ctx: RunContext) -> None:
        """Fail early (before any model call) on bad overrides or a missing bad-word list."""
        for test in self.tests:
            scorer = self.components(ctx, test)[1]
            if test == "toxicity":
                getattr(scorer, "badwords", None)

    def items(self, ctx: RunContext) -> list[WorkItem]:
        if self._items is None:
            items: list[WorkItem] = []
            for test, cands in self.candidates(ctx).items():
                transform, _ = self.components(ctx, test)
                n, kept = self._n(test, ctx), 0
                for cand in cands:
                    if kept >= n:
                        break
                    x = Example(cand.id, cand.text, data=cand.data)
                    variants = transform.apply(x, 1.0, ctx.rng(test, cand.id)) if transform else [x]
                    if variants:
                        items.append(WorkItem(f"{test}/{kept:05d}", Pair(test, x, variants[0])))
                        kept += 1
            empty = [test for test in self.tests if all(item.payload.test != test for item in items)]
            if empty:  # a test without examples would silently vanish from the result
                hint = "; choose other tests with --test" if len(empty) < len(self.tests) else ""
                raise RobustError(f"byod: {self.data_label(ctx)} gave no usable sentences for "
                                  f"{'; '.join(f'{test} ({self._needs(test)})' for test in empty)}{hint}")
            self._items = items
        return self._items

    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        by_test: dict[str, list[int]] = {}
        for k, item in enumerate(items):
            by_test.setdefault(item.payload.test, []).append(k)
        records: list[dict[str, Any]] = [{} for _ in items]
        for test, members in by_test.items():
            _, scorer = self.components(ctx, test)
            rows = [{"test": test, "x": items[k].payload.x, "x_prime": items[k].payload.x_prime,
                     "seed": ctx.seed_for(test)} for k in members]
            done = [{"test": test, "source": r["x"].id, "x": r["x"].text,
                     **({"x_prime": r["x_prime"].text} if r["x_prime"].text != r["x"].text else {}), **value}
                    for r, value in zip(rows, scorer.values(rows, ctx.model))]
            for k, record in zip(members, add_scores(done, rows, self.extra_scorers(ctx), ctx.model)):
                records[k] = record
        return records

    # results ----------------------------------------------------------------------------------------
    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:

        by_test: dict[str, list[dict[str, Any]]] = {}
        for item_id in sorted(records):
            by_test.setdefault(records[item_id]["test"], []).append(records[item_id])
        scorers = {t: self.components(ctx, t)[1] for t in by_test}
        result = build_result(by_test, scorers, self.config, ctx)
        result.summary.update(summarize_scores(records.values(), self.extra_scorers(ctx)))
        return result

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        return figures(result)

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        return report_parts(result, records)

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        return compare(results)
