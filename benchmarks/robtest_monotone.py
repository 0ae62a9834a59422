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

import contextlib
import os
from collections.abc import Iterator

import numpy as np
from robtest_common import loaded_victim, run_robtest, victim_parser

from robust.plugins.benchmarks.robtest.scores import DEGREES


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


def rises(average: list[float], slack: float) -> int:
    """Increases between consecutive degrees larger than `slack` points."""
    return sum(b > a + slack for a, b in zip(average, average[1:], strict=False))


def verdict(average: list[float], unreached_top: float, slack: float) -> str:
    """`falls`, `flat, unreached` or `FAILS` (see the module docstring)."""
    if rises(average, slack):
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
    parser = victim_parser(__doc__.splitlines()[0], model="finetune:minilm", attack="all", n=40, aug_num=5,
                           threads=2)
    parser.add_argument("--slack", type=float, default=2.5, help="rises smaller than this (points) are noise")
    parser.add_argument("--control", nargs="*", default=[], help="tags to add as reversed-degree negative controls")
    args = parser.parse_args()
    model, _ = loaded_victim(args)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest.dimensions import select

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
                                       degrees=list(DEGREES))
            short = unreached_share(tag, args.n)
        curves = result.data["curves"][tag]["rule"]
        avg, worst = curves["average"], curves["worst"]
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in avg) + f" | {rises(avg, args.slack)} | "
              f"{avg[0] - avg[-1]:.1f} | "
              f"{worst[-1]:.1f} | {short[0.1]:.0%} / {short[0.3]:.0%} / {short[0.6]:.0%} | "
              f"{verdict(avg, short[0.6], args.slack)} |", flush=True)


if __name__ == "__main__":
    main()
