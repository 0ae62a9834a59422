"""Issue 16: batches formed by length, the model preloaded while data is prepared, deliberate thread settings,
light imports for `robust list`, and the overhead script (run at its smallest sizes)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from robust import Benchmark, ModelAdapter, Result, WorkItem
from robust.core.batching import OutputCache, plan_batches
from robust.core.errors import RobustError
from robust.core.registry import Entry, Registry
from robust.engine.runner import RunConfig, Runner
from robust.engine.store import Store
from robust.toolkit.threads import chosen_threads

ROOT = Path(__file__).resolve().parents[2]


def padding_share(lengths, batches):
    real = sum(lengths)
    padded = sum(max(lengths[i] for i in b) * len(b) for b in batches)
    return 1 - real / padded


# --- batches by length -------------------------------------------------------------------------------------------
def test_plan_batches_caps_padding_and_batch_size_and_keeps_every_input_once():
    import numpy as np

    lengths = [int(x) for x in np.random.default_rng(0).integers(8, 120, size=500)]
    batches = plan_batches(lengths, 32, max_padding=0.1)
    assert sorted(i for b in batches for i in b) == list(range(500))
    assert max(len(b) for b in batches) <= 32
    assert all(lengths[b[0]] <= lengths[b[-1]] for b in batches)  # ascending within a batch
    assert padding_share(lengths, batches) <= 0.10
    # negative control: fixed-size batches of the same length-sorted inputs pad more than the cap allows
    fixed = plan_batches(lengths, 32)
    assert all(len(b) == 32 for b in fixed[:-1])
    unsorted = [list(range(s, min(s + 32, 500))) for s in range(0, 500, 32)]
    assert padding_share(lengths, unsorted) > 0.3


def test_plan_batches_merges_short_inputs_whose_padding_costs_less_than_a_forward_pass():
    # 5, 6, 7 tokens: 3 padded positions cost less than two more forward passes (FORWARD_COST = 8)
    assert plan_batches([5, 6, 7], 32, max_padding=0.1) == [[0, 1, 2]]
    assert plan_batches([5, 60], 32, max_padding=0.1) == [[0], [1]]


def test_plan_batches_without_padding_holds_one_length_a_batch():
    assert plan_batches([5, 6, 7, 6, 5], 32, max_padding=0.0) == [[0, 4], [1, 3], [2]]
    assert plan_batches([4] * 5, 2, max_padding=0.0) == [[0, 1], [2, 3], [4]]  # and batch_size still caps


def test_output_cache_batches_by_the_lengths_the_adapter_reports():
    calls = []
    cache = OutputCache()
    fn = lambda batch: calls.append(list(batch)) or [0] * len(batch)  # noqa: E731
    tokens = {"a": 50, "bb": 51, "ccc": 5, "dddd": 6}  # characters and tokens disagree
    cache.map(("k",), list(tokens), fn, 8, lengths=lambda xs: [tokens[x] for x in xs], max_padding=0.1)
    assert calls == [["ccc", "dddd"], ["a", "bb"]]


# --- preload -------------------------------------------------------------------------------------------------------
class SlowPrepare(Benchmark):
    name = "slow-prepare"
    needs = frozenset({"classify"})
    chunk_size = 4

    def prepare(self, ctx):
        ctx.model.prepare_started.set()  # the preload thread waits for this

    def items(self, ctx):
        return [WorkItem(f"i{k}", k) for k in range(3)]

    def run_batch(self, items, ctx):
        return [{"p": float(p[0])} for p in ctx.model.classify([f"t{i.payload}" for i in items])]

    def reduce(self, records, ctx):
        return Result({"n": len(records)})


class WaitingModel(ModelAdapter):
    """preload() returns whether `prepare` started while it was loading (i.e. they overlapped)."""

    name = "waiting"
    capabilities = frozenset({"classify"})
    fail = ""

    def __init__(self, arg="", **config):
        super().__init__(arg, **config)
        self.prepare_started = threading.Event()
        self.overlapped = None
        self.wait = 5.0

    def preload(self):
        if self.fail:
            raise RobustError(self.fail)
        self.overlapped = self.prepare_started.wait(self.wait)

    def _classify(self, texts):
        import numpy as np

        return [np.array([0.5, 0.5]) for _ in texts]


def _runner(tmp_path, model_cls):
    registry = Registry()
    registry.add(Entry("benchmark", "slow-prepare", SlowPrepare, "t", "t", "0"))
    registry.add(Entry("model", "waiting", model_cls, "t", "t", "0"))
    return Runner(registry, Store(tmp_path / "r.db"), progress=False)


def test_the_model_loads_while_the_benchmark_prepares(tmp_path):
    runner = _runner(tmp_path, WaitingModel)
    bench, ctx = runner.build(RunConfig("slow-prepare", "waiting"))
    runner.plan(bench, ctx)
    assert ctx.model.overlapped is True
    # negative control: loading first, then preparing (the old order) never overlaps
    bench, ctx = runner.build(RunConfig("slow-prepare", "waiting"))
    ctx.model.wait = 0.2
    ctx.model.preload()
    bench.prepare(ctx)
    assert ctx.model.overlapped is False


def test_a_model_that_fails_to_load_reports_its_own_one_line_error(tmp_path):
    class Broken(WaitingModel):
        fail = "cannot load model 'x': no such file"

    runner = _runner(tmp_path, Broken)
    with pytest.raises(RobustError, match="^cannot load model 'x': no such file$"):
        runner.start(RunConfig("slow-prepare", "waiting"))


# --- threads -------------------------------------------------------------------------------------------------------
def test_robusts_own_small_products_run_on_one_blas_thread_with_the_same_bits():
    """Glyph's ICES rows (a 3,951 x 576 matrix times a vector, once per character) are computed with numpy's BLAS
    on the calling thread: its workers, woken, would spin-wait through the run on a core the model needs."""
    import numpy as np
    from threadpoolctl import threadpool_info

    from robust.toolkit.threads import one_blas_thread

    def pools():
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    matrix = np.random.default_rng(0).standard_normal((3951, 576)).astype(np.float32)
    every_thread = [matrix @ matrix[k] for k in range(0, 3951, 97)]
    before = pools()
    assert before, "numpy's BLAS is not visible to threadpoolctl"
    with one_blas_thread():
        assert set(pools()) == {1}
        one_thread = [matrix @ matrix[k] for k in range(0, 3951, 97)]
    assert pools() == before
    assert all(np.array_equal(a, b) for a, b in zip(every_thread, one_thread, strict=True))


def test_thread_count_follows_robust_threads_then_omp_then_usable_cpus(monkeypatch):
    from robust.toolkit import threads

    monkeypatch.setenv("ROBUST_THREADS", "3")
    assert chosen_threads(16) == 3
    monkeypatch.setenv("ROBUST_THREADS", "two")
    with pytest.raises(RobustError, match="ROBUST_THREADS"):
        chosen_threads(16)
    monkeypatch.delenv("ROBUST_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert chosen_threads(16) is None  # torch already follows OMP_NUM_THREADS
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(threads, "usable_cpus", lambda: 2)
    assert chosen_threads(16) == 2  # a 2-CPU quota on a 16-core host: 2, not torch's 16
    assert chosen_threads(1) == 1


# --- imports ---------------------------------------------------------------------------------------------------
HEAVY = ("numpy", "scipy", "sklearn", "nltk", "spacy", "torch", "transformers", "matplotlib", "pandas")


def _modules_after(code: str, **env: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code` (with `env` added to the environment)."""
    probe = f"import sys\n{code}\nprint(sorted(sys.modules))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    return set(eval(proc.stdout.strip().splitlines()[-1]))


def _heavy_after(code: str, **env: str) -> list[str]:
    return sorted({m.split(".")[0] for m in _modules_after(code, **env)} & set(HEAVY))


def _command(*args: str) -> str:
    return f"from robust.launcher import main\ntry:\n    main({list(args)!r})\nexcept SystemExit:\n    pass"


def test_robust_list_imports_no_heavy_library():
    # collected afresh (every plugin module imported and registered), then from the listing cache
    assert _heavy_after(_command("list"), ROBUST_PLUGIN_CACHE="0") == []
    assert _heavy_after(_command("list")) == []
    # negative control: the check sees numpy once a plugin module uses its lazy binding
    used = "from robust.plugins.benchmarks.syntextbench import scoring\nscoring.np.zeros(1)"
    assert _heavy_after(used) == ["numpy"]


#: what `robust list` has no use for: the command-line parser, rich, and plugin code that only a run needs
NOT_FOR_LISTING = {"typer", "rich", "robust.cli", "robust.plugins.models.api.client", "robust.plugins.models.api.cache",
                   "robust.plugins.benchmarks.asr_predict.charcnn", "robust.plugins.benchmarks.syntextbench.scoring",
                   "robust.plugins.benchmarks.syntextbench.generator", "tarfile",
                   # nor the entry-point scan (cached), or what only a mistake, `robust setup` or a build needs
                   "importlib.metadata", "email", "difflib", "subprocess", "zipfile",
                   "robust.plugins.benchmarks.asr_predict.data", "robust.plugins.benchmarks.asr_predict.victim"}


def test_robust_list_imports_neither_the_parser_nor_run_only_code(tmp_path):
    # a cache directory of its own: in the shared one, other tests' listings (each with a site of its own, so a
    # key of its own) may evict this one's (`keep_newest`) between its writing and its use
    cache = {"ROBUST_CACHE": str(tmp_path)}
    collected = _modules_after(_command("list"), **cache)  # nothing cached yet: collected, and the listing kept
    assert {"importlib.metadata", "email"} <= collected  # negative control: the check sees the entry-point scan
    assert _modules_after(_command("list"), **cache) & NOT_FOR_LISTING == set()
    assert _modules_after(_command("list", "models", "--json"), **cache) & NOT_FOR_LISTING == set()
    # negative control: any other command goes through typer's parser
    assert {"typer", "robust.cli"} <= _modules_after(_command("runs", "--json"))


# --- the overhead script ---------------------------------------------------------------------------------------
def test_overhead_script_runs_at_its_smallest_sizes(tmp_path, gpt2_dir):
    """CI smoke: the script runs end to end and writes its table (how fast is not checked here)."""
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\n<!-- overhead:start -->\nold\n<!-- overhead:end -->\n\nafter\n")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "overhead.py"), "--bench", "byod,syntextbench",
           "--sizes", "tiny", "--model", f"byod=hf:{gpt2_dir}", "--model", f"syntextbench=hf:{gpt2_dir}",
           "--no-startup", "--write", str(doc), "--json", str(tmp_path / "rows.json")]
    env = {**os.environ, "ROBUST_HOME": str(tmp_path)}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = doc.read_text()
    assert "old" not in text and text.endswith("after\n")
    rows = [line for line in text.splitlines() if line.startswith("| byod") or line.startswith("| syntextbench")]
    assert len(rows) == 2 and all("%" in row for row in rows), text
    # rows saved by a run are tabulated again, unchanged, without running anything (`--rows`)
    again = subprocess.run([*cmd[:2], "--rows", str(tmp_path / "rows.json"), "--no-startup"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    assert [line for line in again.stdout.splitlines() if line.startswith(("| byod", "| syntextbench"))] == rows


def test_mr_rows_are_parsed_once_and_again_when_the_file_changes(tmp_path):
    """The MR sentences are parsed once per process (each run asked again) and afresh when the file changes."""
    from robust.plugins.datasets import MR_FILES, _rows

    path = tmp_path / MR_FILES["sentences"]
    path.write_text("1,a fine film\n-1,a dull one\n", encoding="utf-8")
    first = _rows(tmp_path, "sentences")
    assert first == (("1", "a fine film"), ("-1", "a dull one")) and _rows(tmp_path, "sentences") is first
    path.write_text("1,a fine film\n-1,a dull one\n1,more\n", encoding="utf-8")
    assert _rows(tmp_path, "sentences")[-1] == ("1", "more")


def test_mr_sentences_are_made_once_per_split_and_again_when_the_file_changes(tmp_path):
    """The MR sentences' Examples are made once per split while the file stays the same (a run's fixed cost); the
    test split is every fifth of one fixed permutation, train the rest, and together they are every sentence."""
    from robust.plugins.datasets import MR_FILES, _sentences

    path = tmp_path / MR_FILES["sentences"]
    path.write_text("".join(f"{1 if k % 2 else -1},sentence {k}\n" for k in range(20)), encoding="utf-8")

    def made(split):
        stat = path.stat()
        return _sentences(str(path), stat.st_size, stat.st_mtime_ns, split)

    test, train, every = made("test"), made("train"), made("all")
    assert made("test") is test and len(test) == 4 and len(train) == 16
    assert sorted(ex.id for ex in test + train) == sorted(ex.id for ex in every) == [f"mr-{k:04d}" for k in range(20)]
    assert {ex.label for ex in every} == {"positive", "negative"}
    path.write_text("1,only one\n", encoding="utf-8")
    assert [(ex.text, ex.label) for ex in made("all")] == [("only one", "positive")]
