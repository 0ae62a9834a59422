"""Where a run's time goes: inside the models' forward passes vs everything else (issue 16).

In one process, every benchmark (and every RobTest dimension) runs at a small and a medium size through the
runner, as `robust run` does. Every outermost `torch.nn.Module` call (of the model under test and of helper
models) is timed and its padding counted (attention-mask zeros among the positions it computes). Then, in
fresh processes, the fixed start-up: `robust list`, `import robust.cli`, and a 2-query run whose forward time
is subtracted from its wall time. Peak RSS: each fresh process's own; for the in-process runs one line, the
high-water mark of the process over all of them.

    python benchmarks/overhead.py                                  # the full table (about an hour when idle)
    python benchmarks/overhead.py --write docs/performance.md      # ... and replace the table in the doc
    python benchmarks/overhead.py --sizes tiny --bench byod --model byod=hf:DIR --no-startup   # smoke run
    python benchmarks/overhead.py --sizes medium --dump DIR        # records of every run (for --compare)
    python benchmarks/overhead.py --compare DIR_BEFORE DIR_AFTER   # max |difference| per benchmark

`--dump`/`--compare` check that batching changes no record beyond float noise: the same runs (fixed seed)
on two versions of the code, every number compared, every string required to be equal.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peak import peak_line, run_child

DIMENSIONS = ("typo", "glyph", "phonetic", "synonym", "inflection", "syntax", "distraction", "contextual")
# per benchmark and size: (benchmark settings, --limit); RobTest runs once per dimension
SIZES: dict[str, dict[str, tuple[dict[str, Any], int | None]]] = {
    "syntextbench": {"tiny": ({"n": 8, "levels": [0.0, 0.5]}, None), "small": ({"n": 32}, None),
                     "medium": ({"n": 256}, None)},
    "byod": {"tiny": ({"max_examples": 2, "bootstrap": 10}, None), "small": ({"max_examples": 8}, None),
             "medium": ({"max_examples": 64}, None)},
    "robtest": {"tiny": ({"n": 1, "aug_num": 2, "degrees": [0.1]}, None), "small": ({"n": 2, "aug_num": 5}, None),
                "medium": ({"n": 5, "aug_num": 10}, None)},
    "accuracy": {"tiny": ({}, 8), "small": ({}, 50), "medium": ({}, 500)},
    # one difficulty level, 2·limit images at 3x224x224: the default random-vit (hidden 64, 2 layers), then one
    # of ViT-S size (a real model's cost; the default model `identity` has no forward pass to compare with)
    "synbench": {"tiny": ({"levels": [1.0]}, 4), "small": ({"levels": [1.0]}, 16),
                 "medium": ({"levels": [1.0]}, 128)},
}
# model (and its settings) per benchmark and size where the benchmark's default is not the one to measure
SIZE_MODELS: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
    "synbench": {"small": ("random-vit", {}),
                 "medium": ("random-vit", {"hidden_size": 384, "layers": 12, "heads": 6, "mlp_size": 1536})},
}
GENERIC = {"tiny": 4, "small": 16, "medium": 128}  # --limit of benchmarks not listed above (e.g. synbench)
MARK_START, MARK_END = "<!-- overhead:start -->", "<!-- overhead:end -->"


# --- instrumentation ------------------------------------------------------------------------------------------
@dataclass
class Meter:
    """Time and positions of outermost nn.Module calls (per thread: a preload thread never nests in a forward)."""

    wall: float = 0.0
    cpu: float = 0.0
    calls: int = 0
    positions: int = 0
    padding: int = 0
    gen_positions: int = 0  # decoding steps (use_cache): full batches on purpose, counted apart
    gen_padding: int = 0
    local: threading.local = field(default_factory=threading.local)

    def snapshot(self) -> tuple[float, float, int, int, int, int, int]:
        return self.wall, self.cpu, self.calls, self.positions, self.padding, self.gen_positions, self.gen_padding


METER = Meter()


def install_forward_meter() -> None:
    """Wrap torch.nn.Module.__call__ (once) so outermost calls are timed into METER."""
    import torch

    if getattr(torch.nn.Module, "_robust_metered", False):
        return
    original = torch.nn.Module.__call__

    def metered(self: Any, *args: Any, **kwargs: Any) -> Any:
        local = METER.local
        if getattr(local, "depth", 0):
            return original(self, *args, **kwargs)
        local.depth = 1
        w0, c0 = time.perf_counter(), time.thread_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            METER.wall += time.perf_counter() - w0
            METER.cpu += time.thread_time() - c0
            METER.calls += 1
            _count_positions(args, kwargs)
            local.depth = 0

    torch.nn.Module.__call__ = metered
    torch.nn.Module._robust_metered = True


def _count_positions(args: tuple, kwargs: dict) -> None:
    ids = kwargs.get("input_ids", args[0] if args and hasattr(args[0], "shape") else None)
    if ids is None or not hasattr(ids, "shape") or len(ids.shape) != 2 or ids.dtype.is_floating_point:
        return  # not a token batch (an LM head on hidden states, a vision input)
    mask = kwargs.get("attention_mask")
    padding = int((mask[:, -ids.shape[1]:] == 0).sum()) if mask is not None and len(mask.shape) == 2 else 0
    if kwargs.get("use_cache"):
        METER.gen_positions += int(ids.numel())
        METER.gen_padding += padding
    else:
        METER.positions += int(ids.numel())
        METER.padding += padding


def install_lazy_meter() -> None:
    """Install the meter when the first HF model loads (a fresh process keeps its own import order)."""
    from functools import cached_property

    from robust.plugins.models.hf import HFModel

    loader = HFModel.__dict__["model"].func

    def model(self: Any) -> Any:
        loaded = loader(self)
        install_forward_meter()
        return loaded

    prop = cached_property(model)
    prop.__set_name__(HFModel, "model")
    HFModel.model = prop


# --- in-process runs --------------------------------------------------------------------------------------------
@dataclass
class Row:
    bench: str
    size: str
    model: str
    items: int = 0
    forwards: int = 0
    wall: float = 0.0
    forward_wall: float = 0.0
    cpu: float = 0.0
    forward_cpu: float = 0.0
    positions: int = 0
    padding: int = 0
    gen_positions: int = 0
    gen_padding: int = 0
    error: str = ""

    @property
    def outside(self) -> float:
        return 1 - self.forward_wall / self.wall if self.wall else float("nan")

    @property
    def outside_cpu(self) -> float:
        return 1 - self.forward_cpu / self.cpu if self.cpu else float("nan")

    @property
    def padding_share(self) -> float:
        return self.padding / self.positions if self.positions else 0.0

    @property
    def gen_padding_share(self) -> str:
        return f"{self.gen_padding / self.gen_positions:.1%}" if self.gen_positions else "—"


def plan_runs(registry: Any, benches: list[str], sizes: list[str], models: dict[str, str],
              dimensions: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, size, RunConfig fields) of every run."""
    runs = []
    for bench in benches:
        target = registry.get("benchmark", bench).target
        for size in sizes:
            settings, limit = SIZES.get(bench, {}).get(size, ({}, GENERIC[size]))
            model, model_settings = SIZE_MODELS.get(bench, {}).get(size, (target.default_model or "", {}))
            base = {"bench": bench, "model": models.get(bench) or model, "data": target.default_data,
                    "limit": limit, "settings": dict(settings),
                    "model_settings": {} if bench in models else dict(model_settings)}
            if bench == "robtest":
                for dim in dimensions:
                    runs.append((f"robtest {dim}", size, {**base, "attacks": [dim]}))
            else:
                runs.append((bench, size, base))
    return runs


def measure_run(label: str, size: str, fields: dict[str, Any], store_dir: Path, dump: Path | None) -> Row:
    from robust.core.plugins import get_registry
    from robust.engine.runner import RunConfig, Runner
    from robust.engine.store import Store

    extra = " ".join(f"{k}={v}" for k, v in fields.get("model_settings", {}).items())
    row = Row(label, size, f"{fields['model']} ({extra})" if extra else fields["model"])
    store = Store(store_dir / f"{label.replace(' ', '-')}-{size}.db")
    runner = Runner(get_registry(), store, progress=False)
    before = METER.snapshot()
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        run = runner.start(RunConfig(**fields))
    except Exception as exc:  # one failing benchmark must not hide the others' rows
        row.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        return row
    row.wall, row.cpu = time.perf_counter() - w0, time.process_time() - c0
    after = METER.snapshot()
    (row.forward_wall, row.forward_cpu, row.forwards, row.positions, row.padding, row.gen_positions,
     row.gen_padding) = (a - b for a, b in zip(after, before))
    records = store.records(run.id)
    row.items = len(records)
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        (dump / f"{label.replace(' ', '-')}-{size}.json").write_text(json.dumps(records, sort_keys=True))
    return row


# --- start-up (fresh processes) ---------------------------------------------------------------------------------
def startup(repeats: int) -> list[tuple[str, float, float, float, float, float]]:
    """(what, wall s, CPU s, forward wall s, forward CPU s, peak RSS MB): the best of `repeats` fresh processes
    each (the least CPU outside forwards: the machine may be shared)."""
    home = tempfile.mkdtemp(prefix="robust-overhead-")
    env = {**os.environ, "ROBUST_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: bytecode cached after the first process
    robust = [sys.executable, "-m", "robust"]
    probes = [
        ("`import robust.cli`", [sys.executable, "-c", "import robust.cli"], False),
        ("`robust list`", [*robust, "list"], False),
        ("libraries alone: `import torch`, transformers' BERT and Llama classes",
         [sys.executable, "-c", "import torch; from transformers import BertModel, LlamaForCausalLM"], False),
        ("2-query run: accuracy, probe:minilm, --limit 2",
         ["--bench", "accuracy", "--limit", "2", "--quiet"], True),
        ("3-query run: byod word_order, smollm2, 1 example",
         ["--bench", "byod", "--set", "test=word_order", "--set", "max_examples=1", "--quiet"], True),
    ]
    out = []
    for what, args, is_run in probes:
        best: tuple[float, float, float, float, float] | None = None
        for _ in range(repeats):
            report = Path(home) / "child.json"
            cmd = [sys.executable, __file__, "--child", str(report), "--", "run", *args] if is_run else args
            proc = run_child(cmd, env=env)
            if proc.returncode != 0:
                raise SystemExit(f"{what} failed: {proc.stderr.strip().splitlines()[-1:]}")
            meter = json.loads(report.read_text()) if is_run else {"forward_wall": 0.0, "forward_cpu": 0.0}
            candidate = (proc.wall_s, proc.cpu_s, meter["forward_wall"], meter["forward_cpu"], proc.peak_mb)
            if best is None or proc.cpu_s - candidate[3] < best[1] - best[3]:
                best = candidate
        out.append((what, *best))
    return out


def child(report: str, argv: list[str]) -> None:
    """Run the CLI in this process with the lazy meter; write the forward time at exit."""
    install_lazy_meter()
    atexit.register(lambda: Path(report).write_text(json.dumps({"forward_wall": METER.wall, "forward_cpu": METER.cpu,
                                                                 "forwards": METER.calls})))
    from robust.cli import main

    sys.argv = ["robust", *argv]
    main()


# --- output -----------------------------------------------------------------------------------------------------
def table(rows: list[Row]) -> str:
    head = ("| run | size | model | items | forward passes | wall s | in forwards s | **outside** | CPU s | "
            "in forwards CPU s | outside (CPU) | padding | padding (generation) |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for r in rows:
        if r.error:
            lines.append(f"| {r.bench} | {r.size} | {r.model} | — | — | — | — | — | — | — | — | — | {r.error} |")
            continue
        lines.append(f"| {r.bench} | {r.size} | {r.model} | {r.items} | {r.forwards} | {r.wall:.1f} | "
                     f"{r.forward_wall:.1f} | **{r.outside:.1%}** | {r.cpu:.1f} | {r.forward_cpu:.1f} | "
                     f"{r.outside_cpu:.1%} | {r.padding_share:.1%} | {r.gen_padding_share} |")
    return head + "\n".join(lines) + "\n"


def startup_table(rows: list[tuple[str, float, float, float, float, float]]) -> str:
    head = ("| fresh process | wall s | in forwards s | fixed wall s | CPU s | in forwards CPU s | **fixed CPU s** | "
            "peak RSS MB |\n|---|---|---|---|---|---|---|---|\n")
    return head + "".join(f"| {w} | {wall:.2f} | {fw:.2f} | {wall - fw:.2f} | {cpu:.2f} | {fc:.2f} | "
                          f"**{cpu - fc:.2f}** | {peak:.0f} |\n" for w, wall, cpu, fw, fc, peak in rows)


def write_doc(path: Path, text: str) -> None:
    doc = path.read_text() if path.exists() else ""
    block = f"{MARK_START}\n{text}{MARK_END}"
    if MARK_START in doc:
        doc = re.sub(re.escape(MARK_START) + ".*?" + re.escape(MARK_END), lambda _: block, doc, flags=re.S)
    else:
        doc = doc.rstrip() + "\n\n" + block + "\n"
    path.write_text(doc)


# --- record comparison ------------------------------------------------------------------------------------------
def differences(a: Any, b: Any, path: str = "") -> tuple[float, list[str]]:
    """(max |Δ| over numbers, paths where structure or non-numbers differ)."""
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or a is None:
        return 0.0, [] if a == b else [path]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a != a and b != b:  # both NaN
            return 0.0, []
        return abs(float(a) - float(b)), []
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return 0.0, [f"{path} keys"]
        parts = [differences(a[k], b[k], f"{path}.{k}") for k in a]
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        parts = [differences(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
    else:
        return 0.0, [] if a == b else [path]
    return max((p[0] for p in parts), default=0.0), [m for p in parts for m in p[1]]


def compare(before: Path, after: Path) -> int:
    bad = 0
    for fa in sorted(before.glob("*.json")):
        fb = after / fa.name
        if not fb.exists():
            print(f"{fa.stem}: missing after")
            bad += 1
            continue
        delta, mismatched = differences(json.loads(fa.read_text()), json.loads(fb.read_text()))
        bad += bool(mismatched)
        print(f"{fa.stem}: max |Δ| {delta:.3g}; {len(mismatched)} non-numeric differences {mismatched[:5]}")
    return bad


# --- main -------------------------------------------------------------------------------------------------------
def main() -> None:
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        return child(sys.argv[i + 1], sys.argv[sys.argv.index("--") + 1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="all", help="comma list of benchmarks, or all")
    ap.add_argument("--sizes", default="small,medium", help="comma list of tiny, small, medium")
    ap.add_argument("--dimensions", default=",".join(DIMENSIONS), help="RobTest dimensions (--attack groups)")
    ap.add_argument("--model", action="append", default=[], help="BENCH=SPEC: another model for a benchmark")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (the doc's numbers: 1)")
    ap.add_argument("--no-startup", action="store_true", help="skip the fresh-process start-up measurements")
    ap.add_argument("--startup-only", action="store_true", help="only the fresh-process start-up measurements")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON to this file")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per start-up probe (best kept)")
    ap.add_argument("--write", type=Path, help="replace the table between the overhead markers of this file")
    ap.add_argument("--dump", type=Path, help="write every run's records to DIR/<run>.json")
    ap.add_argument("--rows", type=Path, nargs="+", help="tabulate rows saved by earlier --json runs (no new runs)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two --dump dirs")
    args = ap.parse_args()
    if args.compare:
        raise SystemExit(compare(*args.compare))
    if args.startup_only:
        print(startup_table(startup(args.repeats)))
        return
    if args.rows:  # runs measured in parts (e.g. one process per benchmark group), tabulated together
        names = set(Row.__dataclass_fields__)
        rows = [Row(**{k: v for k, v in r.items() if k in names}) for f in args.rows for r in json.loads(f.read_text())]
        return report(rows, args, f"Rows of {len(args.rows)} runs of `benchmarks/overhead.py --json`, tabulated "
                                  f"{time.strftime('%Y-%m-%d %H:%M')}.")
    sys.dont_write_bytecode = False  # as users run it: imports after the first come from bytecode
    os.environ["ROBUST_THREADS"] = str(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    install_forward_meter()
    from robust.core.plugins import get_registry

    registry = get_registry()
    benches = registry.names("benchmark") if args.bench == "all" else args.bench.split(",")
    models = dict(m.split("=", 1) for m in args.model)
    runs = plan_runs(registry, benches, args.sizes.split(","), models, args.dimensions.split(","))
    rows = []
    with tempfile.TemporaryDirectory(prefix="robust-overhead-") as tmp:
        for label, size, fields in runs:
            row = measure_run(label, size, fields, Path(tmp), args.dump)
            rows.append(row)
            print(table([row]).splitlines()[-1], flush=True)
    load = os.getloadavg()
    report(rows, args, f"Measured {time.strftime('%Y-%m-%d %H:%M')} by `benchmarks/overhead.py` ({os.cpu_count()} "
                       f"CPUs, {args.threads} torch thread(s), load average at the end {load[0]:.1f} / {load[1]:.1f} / "
                       f"{load[2]:.1f}); {peak_line()}.")


def report(rows: list[Row], args: argparse.Namespace, heading: str) -> None:
    """Print the tables (and the start-up probes unless --no-startup); --json and --write them."""
    text = heading + "\n\n" + table(rows)
    if not args.no_startup:
        text += "\n" + startup_table(startup(args.repeats))
    print(text)
    if args.json:
        args.json.write_text(json.dumps([{**vars(r), "outside": r.outside, "outside_cpu": r.outside_cpu,
                                          "padding_share": r.padding_share} for r in rows], indent=1))
    if args.write:
        write_doc(args.write, text)


if __name__ == "__main__":
    main()
