"""RobTest per dimension-tag and access: seconds per example per degree, victim queries, and the share of wall
time spent outside the victim's forward passes (the attack's own work: candidates, helper models, degrees).

    python benchmarks/robtest_profile.py [--attack all] [--n 5] [--aug-num 20] [--model probe:minilm]
                                         [--access rule score] [--threads 1]

Each (tag, access) runs the protocol over the full degree grid (0.05 ... 0.6) on the MR test sample with a cold
victim output cache, after an untimed one-example warm-up (lexicons, spaCy, helper models). Helper models are
loaded once per process (as `ctx.load_model` does within a run); their forward time counts as outside the victim,
and the last column reports the share outside every model's forward passes (victim and helpers: outermost
`torch.nn.Module` calls, as benchmarks/overhead.py measures). Works against older code too
(PYTHONPATH=<old checkout>/src), for before/after.
"""

from __future__ import annotations

import os
import time

from overhead import METER, install_forward_meter
from peak import peak_line
from robtest_common import loaded_victim, plugin_settings, run_robtest, victim_parser

from robust.plugins.benchmarks.robtest.scores import DEGREES


def warm_lexicons() -> None:
    """Load the lexicons a one-example warm-up may not touch (lemminflect's table loads on the first inflection:
    0.6 s), so that a one-time load is not counted as a transform's cost."""
    from lemminflect import getInflection

    getInflection("watch", tag="VBD")


def main() -> None:
    parser = victim_parser(__doc__.splitlines()[0], model="probe:minilm", attack="all", n=5, aug_num=20, threads=1)
    parser.add_argument("--access", nargs="+", default=["rule"])
    args = parser.parse_args()
    model, stats = loaded_victim(args)
    settings = plugin_settings(args)
    install_forward_meter()
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest.dimensions import select

    print(f"victim {model.identity}; MR test n={args.n}; aug_num={args.aug_num}; degrees 0.05-0.6; torch threads "
          f"{args.threads}; load average {os.getloadavg()[0]:.1f}\n")
    print("| tag | access | seconds | s / example / degree | victim texts | victim seconds | outside victim | "
          "outside every model |")
    print("|---|---|---|---|---|---|---|---|")
    for tag in select(args.attack, get_registry()):
        for access in args.access:
            if access == "score" and tag == "syntax":
                continue  # no score-based Syntax (the paper prints '-')
            run_robtest(model, [tag], plugin_settings=settings, n=1, aug_num=2, access=[access],
                        degrees=[0, 0.1])  # warm-up, untimed
            warm_lexicons()
            model.cache.clear()
            if hasattr(model, "embedder"):
                model.embedder.cache.clear()
            for key in ("seconds", "batches", "texts", "classify_calls"):
                setattr(stats, key, 0)
            start, forwards = time.perf_counter(), METER.wall
            run_robtest(model, [tag], plugin_settings=settings, n=args.n, aug_num=args.aug_num, access=[access],
                        degrees=list(DEGREES))
            seconds, forwards = time.perf_counter() - start, METER.wall - forwards
            per = seconds / (args.n * (len(DEGREES) - 1))
            print(f"| {tag} | {access} | {seconds:.1f} | {per:.2f} | {stats.texts} | {stats.seconds:.1f} | "
                  f"{1 - stats.seconds / seconds:.1%} | {1 - forwards / seconds:.1%} |", flush=True)
    print(peak_line())


if __name__ == "__main__":
    main()
