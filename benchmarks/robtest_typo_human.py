"""Typo edits vs real human misspellings: the distribution of single-edit operations.

    pip install codespell   # ships dictionary.txt, a list of real misspellings (origin: Wikipedia's
                            # "Lists of common misspellings" plus typos collected from code and docs)
    python benchmarks/robtest_typo_human.py

Human side: every codespell entry "misspelling->correction" (single correction, letters only) whose
Damerau-Levenshtein distance is 1, classified as delete / insert / repeat (an insert that doubles the
neighbouring letter) / replace / swap; for replacements also the share that hit a keyboard neighbour of the
intended letter (RobTest's TextBugger table). Typo side: one RobTest typo (typo.typo, uniform operation at a
uniform position, seeded) on each of the same correct words, classified the same way.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np

from robust.plugins.attacks.typo import KEYBOARD, OPS, typo


def human_pairs() -> list[tuple[str, str]]:
    try:
        import codespell_lib
    except ImportError:
        raise SystemExit("needs codespell: pip install codespell") from None
    path = os.path.join(os.path.dirname(codespell_lib.__file__), "data", "dictionary.txt")
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            wrong, _, right = line.strip().partition("->")
            right = right.strip().rstrip(",")
            if "," in right or not (wrong.isalpha() and right.isalpha() and wrong.islower() and right.islower()):
                continue
            pairs.append((right, wrong))
    return pairs


def classify(right: str, wrong: str) -> str | None:
    """The single Damerau edit turning `right` into `wrong`, or None if it takes more than one."""
    if len(wrong) == len(right) - 1:
        return "delete" if any(right[:i] + right[i + 1:] == wrong for i in range(len(right))) else None
    if len(wrong) == len(right) + 1:
        for i in range(len(wrong)):
            if wrong[:i] + wrong[i + 1:] == right:
                doubled = (i > 0 and wrong[i - 1] == wrong[i]) or (i + 1 < len(wrong) and wrong[i + 1] == wrong[i])
                return "repeat" if doubled else "insert"
        return None
    if len(wrong) == len(right):
        diff = [i for i in range(len(right)) if right[i] != wrong[i]]
        if len(diff) == 1:
            return "replace"
        if len(diff) == 2 and diff[1] == diff[0] + 1 and right[diff[0]] == wrong[diff[1]] \
                and right[diff[1]] == wrong[diff[0]]:
            return "swap"
    return None


def neighbour_share(pairs: list[tuple[str, str]]) -> float:
    hits = total = 0
    for right, wrong in pairs:
        if classify(right, wrong) == "replace":
            i = next(j for j in range(len(right)) if right[j] != wrong[j])
            total += 1
            hits += wrong[i] in KEYBOARD.get(right[i], "")
    return hits / max(total, 1)


def main() -> None:
    pairs = human_pairs()
    human = [(r, w) for r, w in pairs if classify(r, w)]
    rng = np.random.default_rng(0)
    ours = []
    for right, _ in human:
        for _ in range(20):  # the op can fail at a position (e.g. swap at index 0): draw again
            new = typo(right, int(rng.integers(len(right))), OPS[int(rng.integers(len(OPS)))], rng, False)
            if new and new != right:
                ours.append((right, new))
                break
    counts = {"human": Counter(classify(r, w) for r, w in human),
              "RobTest typo": Counter(classify(r, w) for r, w in ours)}
    print(f"codespell dictionary: {len(pairs)} single-correction word pairs, {len(human)} at Damerau distance 1\n")
    print("| operation | human misspellings | RobTest typo |")
    print("|---|---|---|")
    for op in ("delete", "insert", "repeat", "replace", "swap", None):
        cells = [f"{counts[k][op] / max(sum(counts[k].values()), 1):.1%}" for k in counts]
        print(f"| {op or 'more than one edit'} | " + " | ".join(cells) + " |")
    print(f"| replacements hitting a keyboard neighbour | {neighbour_share(human):.1%} | {neighbour_share(ours):.1%} |")


if __name__ == "__main__":
    main()
