"""Original -> perturbed pairs of every RobTest dimension, for hand labelling (tests/robtest/data/).

    python benchmarks/robtest_pairs.py --out pairs.tsv [--n 50] [--degree 0.1] [--seed 0]

One draw per (tag, example) at one degree, on the MR test sentences sampled as the benchmark samples them
(random.seed(123)). Char-level dimensions alternate their -M and -G tags over the examples. Run it against
today's code (PYTHONPATH=<old checkout>/src) and the new code to get the OLD and NEW columns of the labels.
"""

from __future__ import annotations

import argparse
import csv
import sys

import numpy as np

DIMENSIONS = {"typo": ["typo-M", "typo-G"], "glyph": ["glyph-M", "glyph-G"],
              "phonetic": ["phonetic-M", "phonetic-G"], "synonym": ["synonym"], "contextual": ["contextual"],
              "inflection": ["inflection"], "syntax": ["syntax"], "distraction": ["distraction"]}


def originals(n: int) -> list:
    from robtest_common import context

    from robust import load_examples
    from robust.plugins.benchmarks.robtest.data import sample

    return sample(load_examples("mr", context()), n, 123)


def pairs(dimension: str, n: int, degree: float, seed: int, start: int = 0,
          settings: dict[str, dict[str, str]] | None = None) -> list[tuple[str, str, str, str]]:
    """(tag, example id, original, perturbed) for sampled MR test sentences start .. start + n - 1."""
    from robtest_common import context

    ctx = context(plugin_settings=settings)
    tags = DIMENSIONS[dimension]
    transforms = {t: ctx.create("transform", t) for t in tags}
    out = []
    for i, ex in enumerate(originals(start + n)):
        if i < start:
            continue
        tag = tags[i % len(tags)]
        rng = np.random.default_rng([seed, i])
        variants = transforms[tag].apply(ex, degree, rng)
        out.append((tag, ex.id, ex.text, variants[int(rng.integers(len(variants)))].text))
    return out


def main() -> None:
    from robtest_common import add_set_option, plugin_settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--dimensions", nargs="+", default=list(DIMENSIONS))
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--degree", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="skip the first sampled sentences (a held-out set)")
    add_set_option(parser)
    args = parser.parse_args()
    settings = plugin_settings(args)

    import torch

    torch.set_num_threads(2)
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(["dimension", "tag", "example", "degree", "original", "perturbed"])
        for dimension in args.dimensions:
            for tag, ex_id, original, perturbed in pairs(dimension, args.n, args.degree, args.seed, args.start,
                                                             settings):
                writer.writerow([dimension, tag, ex_id, args.degree, original, perturbed])
            f.flush()
            print(f"{dimension}: done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
