"""Distraction's clean mode on RobTest's sample: docs/attacks.md's examples and its table of achieved degrees.

One draw per sentence and degree (rng(i) for the i-th sentence), every degree measured together as RobTest does
(`precompute`), the degree's encoder `minilm`; the victim only selects the held-out sample (a naive-Bayes
bag-of-words classifier, `own_cost.py`'s). Run it under two source trees to compare their draws' distributions:

    python benchmarks/distraction_table.py            # the docs' 40 sentences
    PYTHONPATH=/tmp/old/src python benchmarks/distraction_table.py --n 240
"""

from __future__ import annotations

import argparse

import numpy as np
from own_cost import Clock, naive_bayes
from robtest_common import context

import robust
from robust.core.plugins import get_registry

TEXT = "I watch a smart, sweet and playful romantic comedy."
DEGREES = (0.05, 0.1, 0.2, 0.4, 0.6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="sentences of RobTest's sample")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    fn, labels = naive_bayes(Clock())
    ctx = context(robust.FunctionModel(fn, "classify", name="naive-bayes", labels=labels), ["distraction"])
    bench = get_registry().get("benchmark", "robtest").create(n=args.n)
    bench.bind(ctx)
    bench.prepare(ctx)
    transform = next(tag.transform for tag in bench.tags if getattr(tag, "transform", None) is not None)
    for degree, seed in ((0.2, 1), (0.2, 2), (0.4, 0)):
        out = transform.apply(robust.Example("a", TEXT), degree, np.random.default_rng(seed))[0]
        print(f"d = {degree}, rng({seed}): {out.text!r} [{out.meta.get('achieved', 0.0):.3f}]")
    texts = [ex.text for ex in bench.examples]
    transform.precompute(texts, DEGREES)
    rows: dict[str, list[str]] = {"achieved 1 − cos, mean (max)": [], "distractors appended, mean": [],
                                  "unchanged": [], "flagged `unreached`": []}
    for degree in DEGREES:
        outs = [transform.apply(robust.Example(str(i), text), degree, np.random.default_rng(i))[0]
                for i, text in enumerate(texts)]
        achieved = [out.meta.get("achieved", 0.0) for out in outs]
        rows["achieved 1 − cos, mean (max)"].append(f"{np.mean(achieved):.3f} ({max(achieved):.3f})")
        rows["distractors appended, mean"].append(f"{np.mean([o.meta.get('distraction_steps', 0) for o in outs]):.2f}")
        rows["unchanged"].append(f"{sum(o.text == t for o, t in zip(outs, texts, strict=True))}/{len(texts)}")
        rows["flagged `unreached`"].append(f"{sum(bool(o.meta.get('unreached')) for o in outs)}/{len(texts)}")
    print(f"\n| d | {' | '.join(map(str, DEGREES))} |\n|---|{'---|' * len(DEGREES)}")
    for name, cells in rows.items():
        print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
