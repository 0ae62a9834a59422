"""A model's fingerprint, taken when a run starts and checked when it resumes, so that every record of a run comes
from one model. A model named by a spec is what the spec resolves to (its identity); a model passed as a Python
object is what it does: its capabilities, class names and outputs on a few fixed probe texts, compared within a
tolerance (float noise never refuses an identical model). Probing also checks the outputs (their shape, and that
class scores are probabilities) before a run exists, so a mistaken model is refused in one line."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from robust.core.errors import RobustError, one_line
from robust.toolkit.function_model import checked_outputs
from robust.toolkit.lazy import np

#: the probe: short texts of different kinds, each model call on them costs one small batch
PROBE_TEXTS = ("The film was a delight from start to finish.", "A dull, overlong and tiresome plot.",
               "Shares fell 3% after the quarterly report.", "ok")
WIDTH = 8  # numbers kept per probe output; wider outputs (embeddings) are projected on fixed random directions
TOLERANCE = 1e-3  # absolute and relative: outputs closer than this are the same


@dataclass(frozen=True)
class Fingerprint:
    """What identifies a model: `identity` for a spec (nothing else is recorded); capabilities, labels and probe
    outputs for an object (its identity, a name, is informative only: a new object computing the same is the same)."""

    identity: str
    capabilities: tuple[str, ...] = ()
    labels: tuple[str, ...] | None = None
    probe: str = ""  # the output probed: classify, embed, or '' (a model without either, or a spec)
    width: int = 0  # number of classes or embedding dimensions
    outputs: tuple[tuple[float, ...], ...] = ()
    settings_named: bool = True  # False: stored before identities named the settings that change outputs

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Fingerprint:
        labels = obj.get("labels")
        return cls(obj.get("identity", ""), tuple(obj.get("capabilities", ())),
                   tuple(labels) if labels is not None else None, obj.get("probe", ""), obj.get("width", 0),
                   tuple(tuple(row) for row in obj.get("outputs", ())), obj.get("settings_named", False))

    def difference(self, run: Fingerprint, this: str = "the model passed to resume") -> str | None:
        """One line saying how this model differs from the run's (None: the same model)."""
        if not run.capabilities:  # a spec's: what it resolves to
            # a run stored before identities named their settings (`minilm@...` now `minilm@...[max_length=64]`): the
            # settings come from its stored configuration, so only the way of writing them differs
            legacy = not run.settings_named and self.identity.startswith(run.identity + "[")
            if self.identity != run.identity and not legacy:
                return f"{this} resolves to {self.identity} now, the run's model was {run.identity}"
            return None
        if self.capabilities != run.capabilities:
            return (f"{this} offers {', '.join(self.capabilities) or 'nothing'}, the run's model offered "
                    f"{', '.join(run.capabilities) or 'nothing'}")
        if self.width != run.width:
            what = "classes" if self.probe == "classify" else "embedding dimensions"
            return f"{this} returns {self.width} {what}, the run's model returned {run.width}"
        if self.labels != run.labels:
            return f"{this} names its classes {_names(self.labels)}, the run's model named {_names(run.labels)}"
        differ = sum(not np.allclose(a, b, rtol=TOLERANCE, atol=TOLERANCE) for a, b in zip(self.outputs, run.outputs))
        if differ:
            return (f"{this} answers differently on the probe texts than the run's model ({differ} of "
                    f"{len(run.outputs)} probe outputs differ)")
        return None


def _names(labels: tuple[str, ...] | None) -> str:
    return "none" if labels is None else "[" + ", ".join(labels) + "]"


def of_spec(model: Any) -> Fingerprint:
    """A model named by a spec: what the spec resolves to (no model call)."""
    return Fingerprint(model.identity)


def of_object(model: Any, who: str) -> Fingerprint:
    """A model passed as a Python object (`who` names it in errors): its capabilities, class names and outputs on
    the probe texts, checked (one small batch, no cache, not counted as queries of the run)."""
    caps = tuple(sorted(model.provides()))
    labels = tuple(str(c) for c in model.labels) if model.labels is not None else None
    texts = list(PROBE_TEXTS)
    probe = "classify" if "classify" in caps else "embed" if "embed" in caps else ""
    if not probe:
        return Fingerprint(model.identity, caps, labels)
    try:
        values = model._classify(texts) if probe == "classify" else model._embed(texts, model.pooling_used(None))
    except RobustError:
        raise
    except Exception as exc:  # the user's code: one line here, the traceback chained for Python users
        raise RobustError(f"{who} fails on the probe texts ({probe}): {one_line(exc)}") from exc
    out = checked_outputs(values, len(texts), probe, who)
    width = out.shape[1]
    if probe == "classify" and labels is not None and width != len(labels):
        raise RobustError(f"{who} returns {width} class probabilities per text but names {len(labels)} classes "
                          f"({', '.join(labels)})")
    if width > WIDTH:  # a fixed projection: the same for every model and process
        out = out @ np.random.default_rng(0).standard_normal((width, WIDTH)) / np.sqrt(width)
    rows = tuple(tuple(round(float(v), 6) for v in row) for row in out)
    return Fingerprint(model.identity, caps, labels, probe, width, rows)
