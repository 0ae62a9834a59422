"""The miniature RobustText study (docs/validation/asr_predict.md, §7) end to end on offline text, resumable.

    python benchmarks/asr_study.py --out study/ --subsets 40            # build, noise floor, fit, time ratio
    python benchmarks/asr_study.py --out study/ --subsets 40            # again after an interruption: resumes

Steps, each a `robust run --bench asr-predict` in a store of its own (OUT/home), so `--resume latest` is always
this study's run:
1. build `--subsets` sub-datasets (one table row each) -> OUT/table.csv;
2. the label-noise floor: the first `--noise-subsets` sub-datasets again with victim seeds 1 and 2 (same data,
   other victim and attack randomness) -> the within-sub-dataset sd of the target ASR;
3. fit: the three protocols beside the baselines, the verdict, the predictor -> OUT/fit.json;
4. the time ratio per sub-dataset: (features) vs (victim fine-tuning + attacks), from the table's timings.
OUT/summary.md collects the numbers.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def robust(home: Path, *args: str) -> dict:
    """One `robust run ...` in the study's store, resumed if its last attempt was interrupted; the run as JSON."""
    env = {**os.environ, "ROBUST_HOME": str(home)}
    cmd = [sys.executable, "-m", "robust"]
    marker = home / ("done-" + "-".join(a.replace("/", "_") for a in args if not a.startswith("--"))[:150])
    if marker.is_file():
        return json.loads(marker.read_text())
    pending = subprocess.run([*cmd, "runs", "--json"], env=env, capture_output=True, text=True)
    runs = json.loads(pending.stdout or "[]") if pending.returncode == 0 else []
    resumable = [r for r in runs if r.get("status", "").split(":")[0] in ("interrupted", "failed")]
    if resumable:
        print(f"resuming {resumable[0]['id']}", flush=True)
        proc = subprocess.run([*cmd, "run", "--resume", resumable[0]["id"], "--json"], env=env, text=True,
                              stdout=subprocess.PIPE)
    else:
        proc = subprocess.run([*cmd, "run", *args, "--json"], env=env, text=True, stdout=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit(f"robust run {' '.join(args)} failed (exit {proc.returncode}); run the script again to resume")
    marker.write_text(proc.stdout)
    return json.loads(proc.stdout)


def read_table(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("asr-study"))
    ap.add_argument("--subsets", type=int, default=40)
    ap.add_argument("--noise-subsets", type=int, default=5)
    ap.add_argument("--set", action="append", default=[], help="extra asr-predict settings for every build")
    ap.add_argument("--fit-set", action="append", default=[], help="extra asr-predict settings for the fit")
    args = ap.parse_args()
    out = args.out.resolve()
    home = out / "home"
    home.mkdir(parents=True, exist_ok=True)
    extra = [x for s in args.set for x in ("--set", s)]
    table = out / "table.csv"
    build = ["--bench", "asr-predict", "--set", "stage=build", "--set", f"subsets={args.subsets}", *extra]
    robust(home, *build, "--set", f"table={table}")
    noise_tables = []
    for seed in (1, 2):
        path = out / f"noise-{seed}.csv"
        robust(home, "--bench", "asr-predict", "--set", "stage=build", "--set", f"subsets={args.noise_subsets}",
               "--set", f"victim_seed={seed}", *extra, "--set", f"table={path}")
        noise_tables.append(read_table(path))
    fit = robust(home, "--bench", "asr-predict", "--set", "stage=fit", "--set", f"table={table}",
                 "--set", f"predictor={out / 'predictor.json'}", *(x for s in args.fit_set for x in ("--set", s)))
    (out / "fit.json").write_text(json.dumps(fit, indent=1))

    rows = read_table(table)
    first = rows[: args.noise_subsets]  # build order = sub-dataset order; the noise runs draw the same data
    sds = [statistics.pstdev([float(r["ASR"]), *(float(t[i]["ASR"]) for t in noise_tables)])
           for i, r in enumerate(first)]
    ratios = sorted((float(r["seconds_victim"]) + float(r["seconds_attacks"])) / float(r["seconds_features"])
                    for r in rows)
    asr = [float(r["ASR"]) for r in rows]
    result = fit.get("result", {})
    lines = [
        f"# Miniature RobustText study ({len(rows)} sub-datasets)", "",
        f"- target ASR: mean {statistics.mean(asr):.3f}, sd {statistics.pstdev(asr):.3f}, "
        f"range {min(asr):.3f}-{max(asr):.3f}",
        f"- victim clean accuracy on the attack sets: mean "
        f"{statistics.mean(float(r['victim_clean_accuracy']) for r in rows):.3f}",
        f"- label-noise floor (sd of the target over 3 victim seeds, {len(sds)} sub-datasets): "
        f"mean {statistics.mean(sds):.3f}",
        f"- time ratio (victim + attacks) / features per sub-dataset: median {statistics.median(ratios):.1f}, "
        f"range {ratios[0]:.1f}-{ratios[-1]:.1f}",
        f"- mean seconds per sub-dataset: features {statistics.mean(float(r['seconds_features']) for r in rows):.1f}, "
        f"victim {statistics.mean(float(r['seconds_victim']) for r in rows):.1f}, "
        f"attacks {statistics.mean(float(r['seconds_attacks']) for r in rows):.1f}", "",
        "## Fit", "", "```", json.dumps(result.get("data", {}).get("verdict", ""), indent=1).strip('"')
        .replace("\\n", "\n"), "```", "",
    ]
    for table_json in result.get("tables", []):
        lines += [f"### {table_json['title']}", "", "| " + " | ".join(table_json["columns"]) + " |",
                  "|" + "---|" * len(table_json["columns"])]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in table_json["rows"]]
        lines.append("")
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
