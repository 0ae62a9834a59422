"""robust's own CPU work per model query, measured with a victim that costs almost nothing (issue 32).

On a GPU a query costs microseconds, so there robust's own work (drawing perturbations, measuring degrees,
searching, caching) decides a run's speed. Every workload runs `robust.run` in a fresh process with a
near-free victim behind `robust.FunctionModel`: a multinomial naive-Bayes bag-of-words classifier trained on
the MR training split (classify), or a sentence "embedder" that hashes words into a fixed random projection
(embed). After an untimed warm-up run (imports, lexicons, spaCy load once per process), the measured run
reports (the warm-up's compiled draws and word tables loaded first, `walk_loaded` and `lexicons_loaded`)

- texts: the texts the victim saw (its cache's misses: what a GPU would compute; SynBench: arrays),
- own µs / text: (process CPU time − the victim's CPU time − helper models' CPU time) / texts; helper
  models (the transforms' MiniLM, SmolLM2, spaCy's tagger and parser) count as model time like the victim: the
  batches their adapters compute (tokenization and forward pass), thread CPU time. Their loading (once per
  run) counts where it happens: weights and a tokenizer loaded inside the first batch or by a `preload` (a
  transform's `warm_up` starts it in a thread of its own) as model time, a tokenizer loaded by a direct call
  outside a batch as robust's own,
- marginal µs / text and run's fixed s: own = fixed + marginal × texts fitted through a run of N examples and
  one of N/2: the cost per query of a large run, and what every run costs once (run store, data, helper
  models' loading, package versions, report), which dominates a small run's own µs / text,
- own ms / example: robust's own CPU per example of the run (RobTest's and the attacks'; the benchmarks run whole
  have none): where the victim sees a few texts an example (Syntax: ~2), a fixed amount of work per example is a large
  figure per text; this column shows that work itself,
- own ÷ victim: robust's own CPU over the victim's, both per text: a loaded machine inflates both alike (the
  victim's work per text is fixed), so this ratio compares two versions run at different loads better than µs,
- cache hits / text: the texts the victim's output cache answered, per text the victim computed: robust's work
  on a text asked again (its lookup, and whatever built it) counts, the model's does not; `--hits N` names the
  call sites that asked them (a search repeating a round shows there),
- helper queries and own µs / query of any model: the inputs the helper models computed (their caches'
  misses, spaCy's parses), and robust's own CPU per query of the victim and the helpers together: where a
  transform's helpers serve far more queries than the victim sees (Distraction's and Contextual's degrees,
  TextFooler's window similarities), this is what a device serving every model waits for per query; the goals
  are read on own µs / text,
- peak RSS of the process (MB, warm-up included).

    python benchmarks/own_cost.py                              # every workload, 50 examples
    python benchmarks/own_cost.py --limit 10 --only robtest-typo,pwws
    python benchmarks/own_cost.py --only robtest-typo --profile 25    # + cProfile's top functions by own time
                                                               # (the run's figures then include cProfile's cost)
    python benchmarks/own_cost.py --only robtest-glyph --sample 40    # + py-spy's shares of the measured run
    python benchmarks/own_cost.py --draws --limit 20           # µs per rule-based draw of each char/word transform
    python benchmarks/own_cost.py --only robtest-inflection --phases robtest    # + CPU per named function (below)
    python benchmarks/own_cost.py --only robtest-synonym --hits 5    # + where the texts its cache answered were asked

`--sample N` runs each child under py-spy (`pip install py-spy`: a sampling profiler, 250 samples a second) and
prints the N functions with the largest own share of robust's own samples of the measured run, beside their share
with callees included (the warm-up and the half-size run left out, and so are the samples inside the victim's and
the helper models' timed calls, which are model time). cProfile's cost per call inflates call-heavy Python (the
draws: 48 % of a Glyph run under cProfile, 35 % of its samples), so the shares are the breakdown to trust; the run's
figures then include py-spy's small cost. py-spy sees Python threads only: CPU that native threads spend (BLAS
workers spinning, a compile) is in the process's time but not in the shares.

`--phases` wraps the functions it names (`module:Qualified.name`; `robtest` names a RobTest run's parts: the
runner, the store, the generators, the output cache, the two accesses, the records, spaCy) with thread-CPU counters,
each net of the other named functions it calls, and prints them for the measured run: a breakdown whose cost is the
wrapper's few µs per call, for code whose many small calls cProfile inflates; a model called inside a named function
counts there (the output cache's row holds the victim's time).

Works against older code too (PYTHONPATH=<old checkout>/src), for before/after.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peak import peak_rss_mb

HERE = Path(__file__).resolve().parent
HASH_ENCODER = "hash-encoder"  # own_cost.py's near-free helper encoder (`register_hash_encoder`)
DIMENSIONS = ("typo", "glyph", "phonetic", "synonym", "contextual", "inflection", "syntax", "distraction")


@dataclass(frozen=True)
class Workload:
    """One `robust.run`: benchmark, attack, settings; `limit=False`: the benchmark's own size (no --limit)."""

    bench: str
    attack: str | None = None
    settings: tuple[str, ...] = ()
    capability: str = "classify"
    limit: bool = True
    goal: float | None = 20.0  # µs per query the issue asks for (the mission's command, the recipes; None: none)


WORKLOADS: dict[str, Workload] = {
    "robtest-typo": Workload("robtest", "typo"),  # the mission's command (quick preset: aug_num 20)
    "deepwordbug-textattack": Workload("attack", "deepwordbug", ("deepwordbug.variant=textattack",)),
    "deepwordbug": Workload("attack", "deepwordbug"),
    "pwws": Workload("attack", "pwws"),
    "textfooler": Workload("attack", "textfooler"),
    **{f"robtest-{d}": Workload("robtest", d, goal=40.0) for d in DIMENSIONS if d != "typo"},
    # the same with a near-free sentence encoder as the helper (HASH_ENCODER): MiniLM's forward passes are 100-150
    # times robust's own work in these runs, so a 1 % slip in timing them moves robust's figure by its whole size
    "textfooler-hash": Workload("attack", "textfooler", (f"textfooler.encoder={HASH_ENCODER}",)),
    **{f"robtest-{d}-hash": Workload("robtest", d, (f"{d}.embedder={HASH_ENCODER}",), goal=40.0)
       for d in ("synonym", "distraction")},
    "accuracy": Workload("accuracy", goal=None),
    "syntextbench": Workload("syntextbench", settings=("n=256",), capability="embed", limit=False, goal=None),
    # its default size (49 levels x 2,048 + 2,048 Gaussian arrays); the victim flattens them (`identity`)
    "synbench": Workload("synbench", capability="embed_arrays", limit=False, goal=None),
}


# --- the near-free victims -----------------------------------------------------------------------------------
@dataclass
class Clock:
    """CPU seconds spent inside the victim (thread time of the calling thread) and the texts it saw."""

    cpu: float = 0.0
    texts: int = 0
    calls: int = 0

    def timed(self, fn: Any) -> Any:
        """`fn(batch)` counted: its thread CPU time, the inputs it saw, the calls."""

        def call(batch: Any) -> Any:
            start = time.thread_time()
            out = fn(batch)
            self.cpu += time.thread_time() - start
            self.texts += len(batch)
            self.calls += 1
            return out

        return call


TOKEN = re.compile(r"[a-z']+")


def naive_bayes(clock: Clock) -> tuple[Any, list[str]]:
    """A multinomial naive-Bayes classifier (add-one smoothing) over lower-cased words of MR's training split."""
    import numpy as np

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    ctx = RunContext("own-cost", 0, None, get_registry(), None, None, [])
    labels = ["negative", "positive"]
    counts = [Counter(), Counter()]
    for ex in load_examples("mr-train", ctx):
        counts[labels.index(ex.label)].update(TOKEN.findall(ex.text.lower()))
    vocab = counts[0].keys() | counts[1].keys()
    totals = [sum(c.values()) + len(vocab) for c in counts]
    weight = {w: math.log((counts[1][w] + 1) / totals[1]) - math.log((counts[0][w] + 1) / totals[0])
              for w in vocab}

    def fn(texts: list[str]) -> Any:
        logit = np.array([sum(weight.get(w, 0.0) for w in TOKEN.findall(t.lower())) for t in texts])
        p = 1 / (1 + np.exp(-np.clip(logit, -30, 30)))
        return np.stack([1 - p, p], axis=1)

    return clock.timed(fn), labels


@functools.cache
def _projection(dim: int = 64) -> Any:
    """The fixed random ±1 projection of 4,096 word hashes (made once a process)."""
    import numpy as np

    return np.random.default_rng(0).choice([-1.0, 1.0], size=(4096, dim))


def hashed(texts: list[str], dim: int = 64) -> Any:
    """Words hashed (crc32) into a fixed random ±1 projection, summed and normalised: a sentence 'embedding'."""
    import zlib

    import numpy as np

    table = _projection(dim)
    out = np.zeros((len(texts), dim))
    for i, t in enumerate(texts):
        rows = [zlib.crc32(w.encode()) % 4096 for w in TOKEN.findall(t.lower())]
        if rows:
            out[i] = table[rows].sum(axis=0)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def hashing_embedder(clock: Clock) -> Any:
    return clock.timed(hashed)


def register_hash_encoder() -> None:
    """`hash-encoder`, a model plugin registered in this process (as a third party would, `robust.register_plugin`):
    `hashed` as a helper's sentence encoder (`--set textfooler.encoder=hash-encoder`), timed as every helper is."""
    import robust

    class HashEncoder(robust.ModelAdapter):
        name = HASH_ENCODER
        description = "words hashed into a fixed random projection (own_cost.py's near-free helper encoder)"
        capabilities = frozenset({"embed"})

        def _embed(self, texts: list[str], pooling: Any) -> list[Any]:
            return list(hashed(texts))

    class Plugin:
        @staticmethod
        @robust.hookimpl
        def register_models(register: Any) -> None:
            register(HashEncoder)

    robust.register_plugin(Plugin, "own-cost-hash-encoder")


def flattener(clock: Clock) -> Any:
    """An array 'embedder' that flattens its input (SynBench's `identity` reference), counted like the others."""
    import numpy as np

    return clock.timed(lambda batch: np.asarray(batch, dtype=np.float32).reshape(len(batch), -1))


# --- helper models' own time ----------------------------------------------------------------------------------
@dataclass
class HelperClock:
    """CPU seconds (calling thread) inside helper models: every batch a ModelAdapter other than the victim
    computes (tokenization and forward pass: what the model's own `fn` of OutputCache.map runs, and the
    tokenizer that measures the inputs' lengths for batching), their weights' loading (`preload`: a transform's
    `warm_up` starts it in a thread of its own; a helper loaded at its first batch was timed there), and spaCy's
    tagger/parser calls (a statistical model, not robust's work). Each thread counts its own nesting."""

    cpu: float = 0.0
    queries: int = 0  # inputs the helper models computed: their batches' texts and the texts spaCy parsed
    local: threading.local = field(default_factory=threading.local)  # .depth: a timed call under way in the thread
    lock: threading.Lock = field(default_factory=threading.Lock)

    def counted(self, fn: Any) -> Any:
        """`fn(batch)` timed, the batch's inputs counted as queries."""
        def call(batch: Any) -> Any:
            self.queries += len(batch)
            return fn(batch)
        return self.timed(call)

    def timed(self, fn: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if getattr(self.local, "depth", 0):
                return fn(*args, **kwargs)
            self.local.depth, start = 1, time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.cpu += time.thread_time() - start
                self.local.depth = 0
        return call

    def timed_iter(self, fn: Any) -> Any:
        """`fn` returns an iterator that computes as it is consumed: each step timed, each item a query."""
        def call(*args: Any, **kwargs: Any) -> Any:
            it = iter(fn(*args, **kwargs))
            step = self.timed(lambda: next(it, _END))
            while (item := step()) is not _END:
                self.queries += 1
                yield item
        return call


_END = object()


def install_helper_clock(victim: Any) -> HelperClock:
    from robust.core.batching import OutputCache

    clock = HelperClock()
    original = OutputCache.map

    def map_(self: Any, key: Any, inputs: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if self is not victim.cache:  # a helper's batches, and its tokenizer measuring their lengths
            fn = clock.counted(fn)
            if kwargs.get("lengths") is not None:
                kwargs["lengths"] = clock.timed(kwargs["lengths"])
        return original(self, key, inputs, fn, *args, **kwargs)

    OutputCache.map = map_
    from robust.plugins.models.hf import HFModel  # the helpers' adapters (the victim is a function)

    HFModel.preload = clock.timed(HFModel.preload)
    try:
        from spacy.language import Language
    except ImportError:
        return clock
    call = Language.__call__

    def parse(self: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        clock.queries += 1
        return call(self, text, *args, **kwargs)

    Language.__call__ = clock.timed(parse)
    Language.pipe = clock.timed_iter(Language.pipe)  # parses as it is consumed
    return clock


# --- one workload, in this process ---------------------------------------------------------------------------
@dataclass
class Measured:
    name: str
    texts: int = 0
    cpu: float = 0.0
    victim_cpu: float = 0.0
    helper_cpu: float = 0.0
    helper_queries: int = 0  # inputs the helper models computed (their cache's misses; spaCy's parses)
    wall: float = 0.0
    peak_mb: float = 0.0
    fixed: float = 0.0  # own CPU seconds every run costs once (fitted, see the module doc)
    marginal_us: float = 0.0  # own µs per text beyond the fixed cost
    hits: int = 0  # texts the victim's output cache answered (asked again) in the measured run
    profile: list[str] = field(default_factory=list)

    @property
    def own(self) -> float:
        """robust's own CPU seconds: the process's less the victim's and the helper models'."""
        return self.cpu - self.victim_cpu - self.helper_cpu

    @property
    def own_us(self) -> float:
        return 1e6 * self.own / max(self.texts, 1)

    @property
    def own_us_per_query(self) -> float:
        """Per query of any model, the victim's and the helpers': what a device serving them all waits for."""
        return 1e6 * self.own / max(self.texts + self.helper_queries, 1)


def measure(name: str, limit: int, profile: int, phases: str = "", hits: int = 0) -> Measured:
    import robust

    work = WORKLOADS[name]
    for spec in (p for part in phases.split(",") if part for p in (ROBTEST_PHASES if part == "robtest" else [part])):
        try:
            PHASES.wrap(spec)
        except (ImportError, AttributeError, ValueError):
            raise SystemExit(f"--phases: no function {spec!r} (give module:Qualified.name, or robtest)") from None
    register_hash_encoder()
    try:  # helper models' forward passes are timed on their calling thread: keep torch on that one thread
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    clock = Clock()
    if work.capability == "embed_arrays":
        from robust.plugins.models.arrays import ArrayFunction

        model = ArrayFunction(flattener(clock), name="flatten")
    elif work.capability == "embed":
        model = robust.FunctionModel(hashing_embedder(clock), "embed", name="hash-embedder")
    else:
        fn, labels = naive_bayes(clock)
        model = robust.FunctionModel(fn, "classify", name="naive-bayes", labels=labels)
    helpers = install_helper_clock(model)
    store = Path(tempfile.mkdtemp()) / "robust.db"

    def run(n: int | None) -> None:
        result = robust.run(work.bench, model=model, attack=work.attack, settings=list(work.settings),
                            limit=n if work.limit else None, store=store)
        if result.status not in ("done", "finished"):
            raise SystemExit(f"{name}: run {result.status}")

    def timed(n: int | None, profiler: Any = None, measured: bool = False) -> Measured:
        model.cache.clear()
        clock.cpu = clock.texts = clock.calls = 0
        helper0, queries0 = helpers.cpu, helpers.queries
        if profiler is not None:
            profiler.enable()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        (measured_run if measured else lambda run, n: run(n))(run, n)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        if profiler is not None:
            profiler.disable()
        return Measured(name, clock.texts, cpu, clock.cpu, helpers.cpu - helper0, helpers.queries - queries0, wall)

    run(max(2, limit // 10))  # warm-up: imports, lexicons, spaCy load once per process
    walk_loaded()
    lexicons_loaded()
    half = timed(max(1, limit // 2)) if work.limit else None
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    census = HitSites(model.cache) if hits else None
    hits0 = model.cache.hits
    out = timed(limit, profiler, measured=True)
    out.hits = model.cache.hits - hits0
    out.peak_mb = peak_rss_mb()
    if half is not None and out.texts > half.texts:  # own = fixed + marginal × texts, from two sizes
        out.marginal_us = 1e6 * (out.own - half.own) / (out.texts - half.texts)
        out.fixed = half.own - 1e-6 * out.marginal_us * half.texts
    else:
        out.marginal_us = out.own_us
    if profiler is not None:
        out.profile = top_functions(profiler, profile)
    if phases:
        out.profile = PHASES.rows(out.texts)
    if census is not None:
        out.profile = census.rows(hits)
    return out


class HitSites:
    """Where the victim is asked (`--hits`): its output cache's `map`, wrapped on the instance, charges the texts of
    each call, and those the cache answered, to the innermost robust functions that asked (above the adapter and
    the cache). A search that asks the same texts round after round shows as hits here (the twenty-fifth pass
    found Inflection's greedy rounds so). Exact with one chunk at a time, the near-free victims' setting."""

    SKIP = ("robust/core/batching.py", "robust/core/interfaces.py", "own_cost.py")

    def __init__(self, cache: Any) -> None:
        from collections import Counter

        self.asked: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        original = cache.map

        def map(key: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            before = cache.hits
            out = original(key, inputs, *args, **kwargs)
            site = self.site()
            self.asked[site] += len(inputs)
            self.answered[site] += cache.hits - before
            return out

        cache.map = map

    def site(self) -> str:
        import traceback

        frames = [f for f in reversed(traceback.extract_stack(limit=12)) if not f.filename.endswith(self.SKIP)]
        return " < ".join(f"`{f.name}`" for f in frames[:3])

    def rows(self, n: int) -> list[str]:
        return [f"| {site} | {self.asked[site]:,} | {hit:,} |" for site, hit in self.answered.most_common(n)]


def measured_run(run: Any, n: int | None) -> None:
    """The measured run, under a frame of its own: `--sample` counts the samples below it."""
    PHASES.clear()
    run(n)


class Phases:
    """Thread CPU time inside each of some named functions (`module:Qualified.name`), each net of the other named
    functions it calls: a breakdown of a run whose cost is a few µs per call (the wrapper's own), where cProfile's
    per-call cost inflates call-heavy code. A function re-entered from itself counts once."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._local = threading.local()

    def clear(self) -> None:
        self.seconds.clear()
        self.calls.clear()

    def wrap(self, spec: str) -> None:
        import importlib

        module, _, qualname = spec.partition(":")
        owner: Any = importlib.import_module(module)
        *path, attr = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        fn = getattr(owner, attr)

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = self._local.__dict__.setdefault("stack", [])
            if any(frame[0] == qualname for frame in stack):
                return fn(*args, **kwargs)
            began = time.thread_time()
            stack.append([qualname, 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                _, inner = stack.pop()
                spent = time.thread_time() - began
                self.seconds[qualname] += spent - inner
                self.calls[qualname] += 1
                if stack:
                    stack[-1][1] += spent

        setattr(owner, attr, timed)

    def rows(self, texts: int) -> list[str]:
        return [f"| `{name}` | {self.calls[name]:,} | {seconds:.3f} | {1e6 * seconds / max(texts, 1):.1f} |"
                for name, seconds in self.seconds.most_common()]


PHASES = Phases()
#: `--phases robtest`: a RobTest run's parts (a transform's own functions can be added after it)
ROBTEST_PHASES = (
    "robust.engine.runner:Runner._execute", "robust.engine.store:Store.add_records",
    "robust.core.context:RunContext.rng", "robust.core.batching:OutputCache.map",
    "robust.core.interfaces:ModelAdapter.classify", "robust.core.interfaces:ModelAdapter.embed",
    "robust.plugins.benchmarks.robtest.benchmark:RobTest.run_batch",
    "robust.plugins.benchmarks.robtest.benchmark:RobTest._record",
    "robust.plugins.benchmarks.robtest.attacker:RuleSampling.attack",
    "robust.plugins.benchmarks.robtest.attacker:SaliencyGreedy.attack",
    "robust.plugins.benchmarks.robtest.attacker:_results",
    "robust.plugins.benchmarks.robtest.search:saliency_queries",
    "robust.plugins.benchmarks.robtest.search:saliency_order",
    "robust.toolkit.transforms:pos_tags_many", "robust.toolkit.transforms:parsed_words",
)


def sampled_shares(path: str, n: int) -> list[str]:
    """The `n` functions with the largest own share of robust's own samples below `measured_run` in py-spy's raw
    output (one line per stack: frames joined by ';', then its count): the samples where the function itself ran,
    beside those where it or a callee ran (each function counted once per stack). A stack inside the victim's or a
    helper model's timed call is model time and left out, as `own µs / text` leaves it out; the first row says
    which share of the run's samples is robust's own."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = models = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not any(f.startswith("measured_run ") for f in frames):
            continue
        if any(f.startswith(("Clock.timed.", "HelperClock.timed.")) for f in frames):
            models += int(count)
            continue
        total += int(count)
        for name in {_where(f) for f in frames}:
            inclusive[name] += int(count)
        own[_where(frames[-1])] += int(count)
    share = f"| (robust's own samples: {100 * total / max(total + models, 1):.1f} % of the run's) | | |"
    total = max(total, 1)
    return [share] + [f"| `{name}` | {100 * c / total:.1f} % | {100 * inclusive[name] / total:.1f} % |"
                      for name, c in own.most_common(n)]


def _where(frame: str) -> str:
    """'func (/…/site-packages/robust/x.py:12)' -> 'func (robust/x.py)'."""
    name, _, where = frame.rpartition(" (")
    file = where.rsplit(":", 1)[0]
    file = file.removeprefix(str(HERE) + "/")
    return f"{name} ({re.sub(r'.*/(src|site-packages|lib/python[0-9.]+)/', '', file)})"


def walk_loaded() -> None:
    """Wait for the compiled draws (Typo-M's and Typo-G's, Glyph-G's) where the warm-up began loading them (in a
    thread of their own, ~1-2 s, while the draws run the Python loop): the measured runs then draw as a long run
    does, and the loading's CPU is not counted as theirs."""
    try:
        from robust.toolkit.compiled import LOADERS
    except ImportError:  # older code: one loading thread for Typo's walk, or none
        from robust.plugins.attacks import typo

        loading = getattr(typo, "_loading", None)
        if loading is not None and loading.cache_info().currsize:
            loading().result()
        return
    for loader in LOADERS:
        if getattr(loader, "started", True):  # code without `started` (1fee42b-267a0a6): every loader
            loader.loading().result()


def lexicons_loaded() -> None:
    """Load the word tables that a transform loads once per process, at its first look-up in each, where the
    warm-up's few examples may have looked nothing up: lemminflect's lemma and inflection tables (0.24 s and 0.10 s
    of CPU). Syntax looks an inflection up only to turn a passive round, which 5 sentences of 50 may not hold; the
    load then fell in the measured run, and into its marginal cost. Only where the warm-up imported lemminflect."""
    lemminflect = sys.modules.get("lemminflect")
    if lemminflect is not None:
        lemminflect.getLemma("was", upos="VERB")
        lemminflect.getInflection("be", tag="VBD")


def top_functions(profiler: Any, n: int) -> list[str]:
    """cProfile's `n` largest functions by own time (tottime), as table rows."""
    import pstats

    stats = pstats.Stats(profiler).stats  # (file, line, func) -> (cc, nc, tottime, cumtime, callers)
    rows = sorted(stats.items(), key=lambda kv: -kv[1][2])[:n]
    out = []
    for (file, line, func), (_, calls, own, cum, _) in rows:
        where = re.sub(r".*/(src|site-packages|lib/python[\d.]+)/", "", file)
        out.append(f"| `{where}:{line} {func}` | {calls} | {own:.2f} | {cum:.2f} |")
    return out


# --- rule-based draws alone ---------------------------------------------------------------------------------
DRAWN = ("typo-M", "typo-G", "glyph-M", "glyph-G", "deepwordbug-edit", "phonetic-M", "phonetic-G")


def draw_costs(n: int, repeats: int = 3) -> None:
    """µs per rule-based draw of each character/word transform over `n` MR test examples × the degree grid × 5
    draws, drawn as RobTest draws them (`apply_many`: an example's draws at a degree in one call; compiled for
    Typo-M, Typo-G and Glyph-G once loaded, which the warm-up pass starts and this waits for), best of `repeats`
    passes (CPU time): a figure that a busy machine disturbs little."""
    import numpy as np

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    ctx = RunContext("own-cost", 0, None, get_registry(), None, None, [])
    examples = load_examples("mr", ctx)[:n]
    degrees = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    print(f"| transform | µs per draw (best of {repeats}; {n} examples × {len(degrees)} degrees × 5 draws) |")
    print("|---|---|")
    for name in DRAWN:
        transform = get_registry().get("transform", name).create().bind(ctx)

        def one_pass(transform: Any = transform) -> float:
            start = time.process_time()
            for ex in examples:
                rng = np.random.default_rng(7)
                for d in degrees:
                    transform.apply_many(ex, d, rng, 5)
            return time.process_time() - start

        one_pass()  # warm: lexicons, neighbour tables, the compiled draws' loading
        walk_loaded()
        best = min(one_pass() for _ in range(repeats))
        print(f"| {name} | {1e6 * best / (len(examples) * len(degrees) * 5):.0f} |", flush=True)


# --- the table -------------------------------------------------------------------------------------------------
def child(name: str, limit: int, profile: int, sample: int = 0, phases: str = "", hits: int = 0) -> Measured:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    env.setdefault("ROBUST_HOME", tempfile.mkdtemp())
    # a helper model's fast tokenizer encodes a batch on worker threads of its own (Rust), outside the calling
    # thread that HelperClock times: their CPU would count as robust's (half of TextFooler's figure). One thread,
    # as CI runs (.ci/run), keeps the tokenization inside the timed call.
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    command = [sys.executable, __file__, "--one", name, "--limit", str(limit), "--profile", str(profile),
               "--phases", phases, "--hits", str(hits)]
    samples = tempfile.mktemp(suffix=".txt")
    if sample:
        spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
        if spy is None:
            raise SystemExit("--sample needs py-spy: pip install py-spy")
        command = [spy, "record", "--rate", "250", "--format", "raw", "--output", samples, "--", *command]
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    if run.returncode:
        raise SystemExit(f"{name} failed:\n{run.stderr[-3000:]}")
    out = Measured(**json.loads(next(line for line in reversed(run.stdout.splitlines()) if line.startswith("{"))))
    if sample:
        out.profile = sampled_shares(samples, sample)
        os.unlink(samples)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=50, help="examples per workload (default 50)")
    parser.add_argument("--only", default="", help="comma-separated workloads (default: all): " + ", ".join(WORKLOADS))
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's N largest functions per workload")
    parser.add_argument("--sample", type=int, default=0, help="print the N functions with the largest share of "
                        "py-spy's samples of the measured run (pip install py-spy)")
    parser.add_argument("--phases", default="", help="comma-separated functions (module:Qualified.name, or "
                        "'robtest' for a RobTest run's parts): each one's own CPU in the measured run, net of the "
                        "others it calls")
    parser.add_argument("--hits", type=int, default=0, help="print the N call sites whose texts the victim's cache "
                        "answered most (asked again: a search repeating itself shows there)")
    parser.add_argument("--draws", action="store_true", help="only time the rule-based draws of the char/word "
                        "transforms (µs per draw, --limit examples)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.draws:
        draw_costs(args.limit)
        return
    if args.one:
        out = measure(args.one, args.limit, args.profile, args.phases, args.hits)
        print(json.dumps(out.__dict__))
        return
    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise SystemExit(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}")
    print(f"{args.limit} examples per workload; load average {os.getloadavg()[0]:.1f}\n")
    print("| workload | texts the model saw | own µs / text | marginal µs / text | goal | run's fixed s | "
          "own ms / example | victim µs / text | own ÷ victim | cache hits / text | helper models s | helper queries | "
          "own µs / query of any model | wall s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    profiles = []
    for name in names:
        m = child(name, args.limit, args.profile, args.sample, args.phases, args.hits)
        goal = WORKLOADS[name].goal
        per_example = f"{1e3 * m.own / args.limit:.2f}" if WORKLOADS[name].limit else "—"
        print(f"| {name} | {m.texts:,} | {m.own_us:.0f} | {m.marginal_us:.0f} | "
              f"{'—' if goal is None else f'≤ {goal:.0f}'} | {m.fixed:.2f} | {per_example} | "
              f"{1e6 * m.victim_cpu / max(m.texts, 1):.1f} | {m.own / max(m.victim_cpu, 1e-9):.2f} | "
              f"{m.hits / max(m.texts, 1):.2f} | {m.helper_cpu:.1f} | {m.helper_queries:,} | "
              f"{m.own_us_per_query:.0f} | {m.wall:.1f} | "
              f"{m.peak_mb:.0f} |",
              flush=True)
        if m.profile:
            profiles.append((name, m.profile))
    for name, rows in profiles:
        if args.phases:
            print(f"\n{name}: CPU inside each function named, net of the others named (the models' included where "
                  "they are called)\n\n| function | calls | s | µs per text the model saw |\n|---|---|---|---|")
        elif args.hits:
            print(f"\n{name}: where the victim was asked (the innermost robust functions), and how many of those texts "
                  "its cache answered\n\n| asked from | texts | cache hits |\n|---|---|---|")
        elif args.sample:
            print(f"\n{name}: share of robust's own py-spy samples of the measured run (models' left out)\n\n"
                  "| function (file) | its own | callees included |\n|---|---|---|")
        else:
            print(f"\n{name}: cProfile, largest own time\n\n"
                  "| function | calls | own s | cumulative s |\n|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
