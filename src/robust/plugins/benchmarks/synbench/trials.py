"""What SynBench's scores over trials support: a t interval of the mean score per (ε, a_T), and the recommended
ε* with the ε values it cannot be told apart from (paired over trials), or the grid edge it sits on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from robust.plugins.benchmarks.synbench.scoring import recommended_eps
from robust.toolkit.lazy import np
from robust.toolkit.stats import LEVEL, MeanInterval, mean_interval

Key = tuple[float, float]  # (ε, a_T)


def intervals(per_trial: Sequence[Mapping[Key, float]]) -> dict[Key, MeanInterval]:
    """Mean, sd and t interval over trials of every (ε, a_T) score."""
    return {key: mean_interval([scores[key] for scores in per_trial]) for key in per_trial[0]}


@dataclass(frozen=True)
class EpsChoice:
    """ε* = argmax of the mean score (Sec. 5.3.3) and what the grid and the trials say about it."""

    best: float
    #: the ε values whose score is not below ε*'s beyond the 95 % paired t bound (None: one trial, no test)
    within_noise: tuple[float, ...] | None
    #: "upper" / "lower" when ε* is the largest / smallest ε of the grid, else ""
    edge: str
    step: float | None  # the grid step around ε* (None: a one-point grid)

    def text(self) -> str:
        """The clause that qualifies ε* in prose."""
        if self.edge == "upper":
            where = "the largest ε of the grid, so the score may still rise beyond it"
        elif self.edge == "lower":
            where = "the smallest ε of the grid: robust probing does not raise the score"
        else:
            where = f"grid step {self.step:g}" if self.step else "a one-point grid"
        if self.within_noise is None:
            return f"{where}; one trial, so no interval"
        others = [e for e in self.within_noise if e != self.best]
        if not others:
            return f"{where}; every other ε scores lower beyond the 95 % paired t bound over trials"
        return (f"{where}; within noise of it (95 % paired t over trials): ε = "
                f"{', '.join(f'{e:g}' for e in self.within_noise)}")


def choose_eps(per_trial: Sequence[Mapping[float, float]], level: float = LEVEL) -> EpsChoice:
    """ε* of the mean headline scores, and the ε whose paired difference to ε* has a t interval reaching 0."""
    eps = sorted(per_trial[0])
    means = {e: float(np.mean([t[e] for t in per_trial])) for e in eps}
    best = recommended_eps(means)
    i = eps.index(best)
    edge = "" if len(eps) < 2 else "upper" if i == len(eps) - 1 else "lower" if i == 0 else ""
    steps = [abs(eps[j] - best) for j in (i - 1, i + 1) if 0 <= j < len(eps)]
    within = None
    if len(per_trial) > 1:
        within = tuple(e for e in eps if e == best or
                       not mean_interval([t[best] - t[e] for t in per_trial], level).low > 0)
    return EpsChoice(best, within, edge, min(steps) if steps else None)
