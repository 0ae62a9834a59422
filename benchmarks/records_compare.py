"""Do two versions of robust write the same records on the same seed? Runs small configurations of every benchmark
under each source tree (a `git archive` of a commit, or the working tree) and compares the records item by item.

    git archive REV src | tar -x -C /tmp/old
    python benchmarks/records_compare.py --old /tmp/old/src [--new src] [--only robtest,accuracy] [--tol 1e-6]
    python benchmarks/records_compare.py --old /tmp/old/src --run "--bench robtest --attack glyph --limit 10"

Fields only one side has are listed by name (added or dropped fields); values are compared with a relative
tolerance for floats (`--tol`), wall-clock fields (`seconds*`) left out. Each run uses its own store under a
temporary directory.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: benchmark -> the small run compared (seed 0)
RUNS = {
    "accuracy": ["--bench", "accuracy", "--limit", "40"],
    "robtest": ["--bench", "robtest", "--attack", "typo-M,synonym", "--limit", "3", "--set", "degrees=0.1,0.3",
                "--set", "aug_num=3"],
    "attack": ["--bench", "attack", "--attack", "deepwordbug,saliency-greedy:typo-G", "--limit", "8"],
    "byod": ["--bench", "byod", "--test", "negation,word_order", "--limit", "6"],
    "syntextbench": ["--bench", "syntextbench", "--set", "n=64", "--set", "trials=1"],
    "synbench": ["--bench", "synbench", "--set", "trials=1", "--limit", "256"],
}


def records(src: Path, args: list[str], home: Path) -> dict[str, dict]:
    home.mkdir(parents=True, exist_ok=True)
    # chunks of a fixed size, one at a time: chunk sizes otherwise follow the wall clock, and a helper model's
    # batches with them (a text padded beside others can differ in its last float bits, and a distractor chain
    # near a degree's band edge then flips)
    env = {**os.environ, "PYTHONPATH": str(src), "ROBUST_HOME": str(home), "ROBUST_CHUNK_SECONDS": "0",
           "ROBUST_OVERLAP": "1"}
    run = subprocess.run([sys.executable, "-m", "robust", "run", *args, "--quiet", "--json"], capture_output=True,
                         text=True, env=env, cwd=home)
    if run.returncode:
        raise SystemExit(f"{src}: robust run {' '.join(args)} failed: {run.stderr.strip().splitlines()[-1:]}")
    out = subprocess.run([sys.executable, "-m", "robust", "export", "latest", "-f", "jsonl"], capture_output=True,
                         text=True, env=env, cwd=home, check=True).stdout
    return {row.pop("item_id"): row for row in map(json.loads, out.splitlines())}


def differ(a: object, b: object, tol: float) -> bool:
    if isinstance(a, float) and isinstance(b, (int, float)) or isinstance(b, float) and isinstance(a, (int, float)):
        return not math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) != len(b) or any(differ(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() != b.keys() or any(differ(a[k], b[k], tol) for k in a)
    return a != b


def compare(old: dict[str, dict], new: dict[str, dict], tol: float) -> dict[str, object]:
    shared = sorted(old.keys() & new.keys())
    added = sorted({k for i in shared for k in new[i].keys() - old[i].keys()})
    dropped = sorted({k for i in shared for k in old[i].keys() - new[i].keys()})
    changed: dict[str, int] = {}
    for i in shared:
        for k in old[i].keys() & new[i].keys():
            if not k.startswith("seconds") and differ(old[i][k], new[i][k], tol):
                changed[k] = changed.get(k, 0) + 1
    return {"items": len(shared), "only old": len(old.keys() - new.keys()), "only new": len(new.keys() - old.keys()),
            "fields added": added, "fields dropped": dropped, "values changed (field: items)": changed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the older source tree's src directory")
    parser.add_argument("--new", type=Path, default=ROOT / "src")
    parser.add_argument("--only", default=",".join(RUNS))
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--run", action="append", default=[], metavar="ARGS",
                        help="a `robust run` of your own instead of the presets (repeatable), e.g. "
                             "\"--bench robtest --attack glyph --limit 10\"")
    args = parser.parse_args()
    runs = {f"run {i + 1}": shlex.split(r) for i, r in enumerate(args.run)}
    runs = runs or {bench: RUNS[bench] for bench in args.only.split(",")}
    with tempfile.TemporaryDirectory() as tmp:
        for name, run_args in runs.items():
            slug = name.replace(" ", "-")
            old = records(args.old.resolve(), run_args, Path(tmp, f"old-{slug}").resolve())
            new = records(args.new.resolve(), run_args, Path(tmp, f"new-{slug}").resolve())
            print(name, json.dumps(compare(old, new, args.tol)), flush=True)


if __name__ == "__main__":
    main()
