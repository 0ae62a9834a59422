"""Does the victim's accuracy fall with the degree in every dimension? Rule-based Average (and Worst) per
dimension-tag on the MR test split, for the fine-tuned victim by default.

    python benchmarks/robtest_monotone.py [--model finetune:minilm] [--attack all] [--n 40] [--aug-num 5]

Prints one row per tag: Average at each degree, the number of rises between consecutive degrees larger
than the noise allowance (--slack points), the drop from clean to the largest degree, the share of
draws that fell short of their degree (`unreached`, from each transform's meta on a separate pass), and a
verdict: `falls` (no rise beyond the slack, and a drop of at least the slack), `flat, unreached` (no rise, an
end within the slack of clean, and most draws at 0.6 flagged short of their degree: the transform said it could
not), else `FAILS`.

`--control TAG` adds a negative control: TAG's transform with its degrees reversed (asked for d, it perturbs
at 0.65 − d), so accuracy rises with the nominal degree; the check must give it `FAILS`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

import numpy as np
from robtest_common import run_robtest, timed_model, warm

DEGREES = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]


def unreached_share(tag: str, n: int) -> dict[float, float]:
    """Share of one-draw perturbations per degree flagged `unreached` by the transform."""
    from robtest_common import context

    from robust.core.data import load_examples
    from robust.plugins.benchmarks.robtest.data import sample

    ctx = context()
    transform = ctx.create("transform", tag)
    examples = sample(load_examples("mr", ctx), n, 123)
    out = {}
    for d in DEGREES[1:]:
        flags = [transform.apply(ex, d, np.random.default_rng([i, int(d * 100)]))[0].meta.get("unreached", False)
                 for i, ex in enumerate(examples)]
        out[d] = float(np.mean(flags))
    return out


def verdict(average: list[float], unreached_top: float, slack: float) -> str:
    """`falls`, `flat, unreached` or `FAILS` (see the module docstring)."""
    rises = sum(b > a + slack for a, b in zip(average, average[1:], strict=False))
    if rises:
        return "FAILS"
    drop = average[0] - average[-1]
    if drop >= slack:
        return "falls"
    return "flat, unreached" if abs(drop) < slack and unreached_top > 0.5 else "FAILS"


@contextlib.contextmanager
def reversed_degrees(tag: str) -> Iterator[None]:
    """The negative control: `tag`'s transform asked for degree d perturbs at max + min − d (0.65 − d)."""
    from robust.core.plugins import get_registry

    cls = get_registry().get("transform", tag).target
    original = cls.apply
    top, low = max(DEGREES), min(d for d in DEGREES if d > 0)

    def apply(self, example, degree, rng):  # noqa: ANN001, ANN202
        return original(self, example, top + low - degree if degree > 0 else degree, rng)

    cls.apply = apply
    try:
        yield
    finally:
        cls.apply = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="finetune:minilm")
    parser.add_argument("--attack", nargs="+", default=["all"])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--aug-num", type=int, default=5)
    parser.add_argument("--slack", type=float, default=2.5, help="rises smaller than this (points) are noise")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--control", nargs="*", default=[], help="tags to add as reversed-degree negative controls")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest.dimensions import select

    model, _ = timed_model(args.model)
    warm(model)
    print(f"victim {model.identity}; MR test, n={args.n}, aug_num={args.aug_num}, rule-based; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| tag | " + " | ".join(f"{d:g}" for d in DEGREES) + " | rises > slack | clean - 0.6 | Worst(0.6) | "
          "unreached at 0.1 / 0.3 / 0.6 | verdict |")
    print("|---|" + "---|" * len(DEGREES) + "---|---|---|---|---|")
    runs = [(tag, tag, contextlib.nullcontext()) for tag in select(args.attack, get_registry())]
    runs += [(f"{tag} (control: degrees reversed)", tag, reversed_degrees(tag)) for tag in args.control]
    for label, tag, patch in runs:
        with patch:
            result, _, _ = run_robtest(model, [tag], n=args.n, aug_num=args.aug_num, access=["rule"],
                                       degrees=DEGREES)
            short = unreached_share(tag, args.n)
        curves = result.data["curves"][tag]["rule"]
        avg, worst = curves["average"], curves["worst"]
        rises = sum(b > a + args.slack for a, b in zip(avg, avg[1:], strict=False))
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in avg) + f" | {rises} | {avg[0] - avg[-1]:.1f} | "
              f"{worst[-1]:.1f} | {short[0.1]:.0%} / {short[0.3]:.0%} / {short[0.6]:.0%} | "
              f"{verdict(avg, short[0.6], args.slack)} |", flush=True)


if __name__ == "__main__":
    main()
