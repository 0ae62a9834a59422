"""The per-example outcome of an Attacker, as in CONTRACTS.md (`AttackResult`), plus word-level diff helpers.

Until the lead's core contract lands this dataclass lives here; afterwards it is imported from
`robust.core.interfaces` and this definition goes away (same fields, same meaning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STATUSES = ("succeeded", "failed", "skipped", "budget")


@dataclass
class AttackResult:
    original: str
    perturbed: str  # the adversarial text (the last text tried when the attack failed)
    success: bool  # the model's prediction on `perturbed` != gold label
    queries: int  # classify queries this example used (each text sent counts once)
    edits: list[dict[str, Any]] = field(default_factory=list)  # {"index": 3, "before": "good", "after": "g00d"}
    status: str = "failed"  # "succeeded" | "failed" | "skipped" (already wrong) | "budget" (hit the cap)
    variants: list[str] = field(default_factory=list)  # every text the search returns for evaluation

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown attack status {self.status!r}; expected one of {STATUSES}")


def word_edits(original: str, perturbed: str) -> list[dict[str, Any]]:
    """Whitespace words that differ, aligned by a word-level edit script (substitutions, insertions and
    deletions each count once); `index` is the position in the original."""
    a, b = original.split(), perturbed.split()
    if len(a) == len(b):
        return [{"index": i, "before": x, "after": y} for i, (x, y) in enumerate(zip(a, b)) if x != y]
    import difflib

    out: list[dict[str, Any]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        before, after = a[i1:i2], b[j1:j2]
        for k in range(max(len(before), len(after))):
            out.append({"index": i1 + min(k, max(len(before) - 1, 0)),
                        "before": before[k] if k < len(before) else "",
                        "after": after[k] if k < len(after) else ""})
    return out
