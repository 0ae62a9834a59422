"""Does the victim's accuracy fall with the degree in every dimension? Rule-based Average (and Worst) per
dimension-tag on the MR test split, for the fine-tuned victim by default.

    python benchmarks/robtest_monotone.py [--model finetune:minilm] [--attack all] [--n 40] [--aug-num 5]

Prints one row per tag: Average at each degree; the number of significant rises between consecutive degrees
(and from clean to 0.6); the drop from clean to the largest degree with its standard error; the share of draws
that fell short of their degree (`unreached`, from each transform's meta on a separate pass); and a verdict:
`falls` (no significant rise, and a significant drop from clean to 0.6), `flat, unreached` (no significant rise
or drop, and most draws at 0.6 flagged short of their degree: the transform said it could not), else `FAILS:
rises` or `FAILS: no significant fall` (a transform that reached its degrees without a measurable effect, or
too few examples to show one: try a larger --n).
Significant = the mean paired per-example difference (each example's share of correct draws at one degree minus
at the other) exceeds --z of its standard errors: one noisy step of one example is not a rise, and a
curve that ends up where it started is not a fall.

`--control TAG` adds a negative control: TAG's transform with its degrees reversed (asked for d, it perturbs
at 0.65 − d), so accuracy rises with the nominal degree; the check must give it `FAILS: rises`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import numpy as np
from robtest_common import loaded_victim, plugin_settings, run_robtest, victim_parser

from robust.plugins.benchmarks.robtest.scores import DEGREES


def unreached_share(tag: str, n: int, settings: dict[str, dict[str, str]]) -> dict[float, float]:
    """Share of one-draw perturbations per degree flagged `unreached` by the transform (with `settings`)."""
    from robtest_common import context

    from robust import load_examples
    from robust.plugins.benchmarks.robtest.data import sample

    ctx = context(plugin_settings=settings)
    transform = ctx.create("transform", tag)
    examples = sample(load_examples("mr", ctx), n, 123)
    out = {}
    for d in DEGREES[1:]:
        flags = [transform.apply(ex, d, np.random.default_rng([i, int(d * 100)]))[0].meta.get("unreached", False)
                 for i, ex in enumerate(examples)]
        out[d] = float(np.mean(flags))
    return out


def per_example(records: dict[str, dict], tag: str) -> np.ndarray:
    """Each example's share of correct rule-based draws at each degree (clean first): degrees x examples."""
    clean = {r["example"]: r["correct"] / r["n"] for r in records.values() if "tag" not in r}
    at = {(r["example"], r["degree"]): r["correct"] / r["n"] for r in records.values()
          if r.get("tag") == tag and r.get("access") == "rule"}
    examples = sorted(clean)
    return np.asarray([[clean[e] for e in examples]] + [[at[e, d] for e in examples] for d in DEGREES[1:]])


def shift(before: np.ndarray, after: np.ndarray) -> tuple[float, float]:
    """Mean paired change after - before (points) and its standard error."""
    diff = 100 * (after - before)
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else 0.0


def significant(change: tuple[float, float], z: float) -> bool:
    """A positive change beyond z standard errors (any positive change if the error is zero)."""
    mean, se = change
    return mean > z * se if se > 0 else mean > 0


def rises(acc: np.ndarray, z: float) -> int:
    """Significant increases between consecutive degrees, plus one if 0.6 is significantly above clean."""
    steps = sum(significant(shift(a, b), z) for a, b in zip(acc, acc[1:], strict=False))
    return steps + significant(shift(acc[0], acc[-1]), z)


def verdict(acc: np.ndarray, unreached_top: float, z: float) -> str:
    """`falls`, `flat, unreached` or `FAILS` (see the module docstring)."""
    if rises(acc, z):
        return "FAILS: rises"
    if significant(shift(acc[-1], acc[0]), z):
        return "falls"
    return "flat, unreached" if unreached_top > 0.5 else "FAILS: no significant fall"


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
    parser.add_argument("--z", type=float, default=2.0, help="a change is significant beyond this many standard "
                        "errors of the paired per-example difference")
    parser.add_argument("--control", nargs="*", default=[], help="tags to add as reversed-degree negative controls")
    args = parser.parse_args()
    model, _ = loaded_victim(args)
    settings = plugin_settings(args)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest.dimensions import select

    print(f"victim {model.identity}; MR test, n={args.n}, aug_num={args.aug_num}, rule-based; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| tag | " + " | ".join(f"{d:g}" for d in DEGREES) + " | significant rises | clean - 0.6 (SE) | Worst(0.6) | "
          "unreached at 0.1 / 0.3 / 0.6 | verdict |")
    print("|---|" + "---|" * len(DEGREES) + "---|---|---|---|---|")
    runs = [(tag, tag, contextlib.nullcontext()) for tag in select(args.attack, get_registry())]
    runs += [(f"{tag} (control: degrees reversed)", tag, reversed_degrees(tag)) for tag in args.control]
    for label, tag, patch in runs:
        with patch:
            result, records, _ = run_robtest(model, [tag], plugin_settings=settings, n=args.n,
                                             aug_num=args.aug_num, access=["rule"], degrees=list(DEGREES))
            short = unreached_share(tag, args.n, settings)
        curves = result.data["curves"][tag]["rule"]
        avg, worst, acc = curves["average"], curves["worst"], per_example(records, tag)
        drop, se = shift(acc[-1], acc[0])
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in avg) + f" | {rises(acc, args.z)} | "
              f"{drop:.1f} ({se:.1f}) | "
              f"{worst[-1]:.1f} | {short[0.1]:.0%} / {short[0.3]:.0%} / {short[0.6]:.0%} | "
              f"{verdict(acc, short[0.6], args.z)} |", flush=True)


if __name__ == "__main__":
    main()
