"""What `robust list` costs at start-up (issue 34): wall and CPU time of fresh processes, and where the import time
goes, beside `import typer, rich` alone (the floor the command line needs).

    python benchmarks/list_startup.py                    # hyperfine (if installed) + -X importtime, 15 runs each
    python benchmarks/list_startup.py --runs 40 --top 25

Wall time on a shared machine is noisy: hyperfine's user+system CPU is less so, and `-X importtime` (each
module's import time, the minimum over the runs) least. Run with bytecode caching on, as users have it
(PYTHONDONTWRITEBYTECODE unset; the first, warm-up runs write the .pyc files).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

COMMANDS = {"import typer, rich": [sys.executable, "-c", "import typer, rich"],
            "robust list": [sys.executable, "-m", "robust", "list"],
            "import robust": [sys.executable, "-c", "import robust"]}


def env() -> dict[str, str]:
    out = {**os.environ, "ROBUST_HOME": tempfile.mkdtemp(prefix="robust-startup-")}
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def hyperfine(runs: int) -> None:
    """Mean ± sd wall time and mean user/system CPU of each command, by hyperfine."""
    report = tempfile.mktemp(suffix=".json")
    cmds = [shlex.join(c) for c in COMMANDS.values()]
    subprocess.run(["hyperfine", "-N", "-w", "3", "-r", str(runs), "--export-json", report, *cmds], env=env(),
                   check=True, capture_output=True)
    print("| command | wall (mean ± sd) | min | user CPU | system CPU |\n|---|---|---|---|---|")
    for name, r in zip(COMMANDS, json.load(open(report))["results"]):
        print(f"| `{name}` | {r['mean']:.3f} ± {r['stddev']:.3f} s | {r['min']:.3f} s | {r['user']:.3f} s | "
              f"{r['system']:.3f} s |")


def cpu_times(runs: int) -> None:
    """Without hyperfine: the least wall and CPU time of `runs` fresh processes each."""
    print("| command | least wall | least CPU (user + system) |\n|---|---|---|")
    e = env()
    for name, cmd in COMMANDS.items():
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, env=e, check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(f"| `{name}` | {min(walls):.3f} s | {min(cpus):.3f} s |")


def importtime(runs: int, top: int) -> None:
    """Per module, the least self and cumulative import time over `runs` processes of `robust list`; summed by
    package (robust's by its second level: robust.plugins, robust.core, ...)."""
    best_self: dict[str, int] = {}
    best_cum: dict[str, int] = {}
    e = env()
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-X", "importtime", *COMMANDS["robust list"][1:]], env=e,
                              capture_output=True, text=True, check=True)
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, cum, name = (p.strip() for p in line[len("import time:"):].split("|"))
            best_self[name] = min(best_self.get(name, 1 << 60), int(own))
            best_cum[name] = min(best_cum.get(name, 1 << 60), int(cum))
    groups: dict[str, int] = defaultdict(int)
    for name, us in best_self.items():
        parts = name.split(".")
        groups[".".join(parts[:2]) if parts[0] == "robust" else parts[0]] += us
    total = sum(best_self.values())
    print(f"`robust list`: {len(best_self)} modules imported, {total / 1000:.0f} ms of import time "
          f"(the least of {runs} runs per module)\n")
    print("| package | import ms (self, summed) |\n|---|---|")
    for name, us in sorted(groups.items(), key=lambda kv: -kv[1])[:top]:
        print(f"| {name} | {us / 1000:.1f} |")
    print("\n| module | cumulative ms |\n|---|---|")
    for name in ("robust.cli", "robust", "robust.api", "typer", "rich", "robust.core.plugins",
                 "robust.toolkit.stats", "robust.toolkit.figures", "statistics"):
        if name in best_cum:
            print(f"| {name} | {best_cum[name] / 1000:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--top", type=int, default=15, help="packages shown")
    args = parser.parse_args()
    subprocess.run(COMMANDS["robust list"], env=env(), capture_output=True)  # writes the .pyc files
    if shutil.which("hyperfine"):
        hyperfine(args.runs)
    else:
        cpu_times(args.runs)
    print()
    importtime(args.runs, args.top)


if __name__ == "__main__":
    main()
