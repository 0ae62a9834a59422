"""Which Transforms `--attack NAMES` selects, and how they group into RobTest's dimensions and tags."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from robust.core.errors import RobustError, did_you_mean
from robust.core.interfaces import Transform
from robust.core.registry import Registry

#: the report's page order (spec §4.3); unknown dimensions follow in name order
DIMENSION_ORDER = ("Typo", "Glyph", "Phonetic", "Synonym", "Contextual", "Inflection", "Syntax", "Distraction")
#: dimensions that only carry the malicious tag (spec §2.0 Table 1)
MALICIOUS_ONLY = {"distraction"}


@dataclass(frozen=True)
class DimensionTag:
    """One evaluated dimension-tag (e.g. typo-M): the registered Transform and where it sits in the report."""

    name: str  # registered attack name, used in item ids ("typo-M")
    dimension: str  # radar axis ("Typo"); a Transform without `dimension` is its own dimension
    tag: str  # "M" (malicious) or "G" (general)
    transform: Transform | None = None  # None when only describing a finished run

    @property
    def sort_key(self) -> tuple[int, str, int, str]:
        known = self.dimension in DIMENSION_ORDER
        order = DIMENSION_ORDER.index(self.dimension) if known else len(DIMENSION_ORDER)
        return order, self.dimension, 0 if self.tag == "M" else 1, self.name


def _is_transform(target: Any) -> bool:
    cls = target if inspect.isclass(target) else type(target)
    return issubclass(cls, Transform)


def dimension_of(name: str, target: Any) -> str:
    """The radar axis: the `dimension` attribute in the paper's spelling (Typo, Glyph, ...), else the name."""
    raw = str(getattr(target, "dimension", "") or name)
    return next((d for d in DIMENSION_ORDER if d.lower() == raw.lower()), raw)


def tag_of(name: str, target: Any) -> str:
    """'M' or 'G': from the name suffix (-M/-G), else a `tag` attribute, else by dimension (spec §2.0)."""
    if name.endswith("-M"):
        return "M"
    if name.endswith("-G"):
        return "G"
    explicit = str(getattr(target, "tag", "") or "").upper()[:1]
    if explicit in ("M", "G"):
        return explicit
    dimension = str(getattr(target, "dimension", "") or name).lower()
    return "M" if dimension in MALICIOUS_ONLY else "G"


def transform_names(registry: Registry) -> dict[str, Any]:
    """Registered Transform targets by name (Attackers are searches, not dimensions)."""
    attacks = registry.entries["attack"].items()
    return {name: entry.target for name, entry in attacks if _is_transform(entry.target)}


def select(names: Iterable[str], registry: Registry) -> list[str]:
    """Attack names for `--attack` values: exact names, a dimension or name prefix (`typo` -> typo-M, typo-G),
    or `all` (every Transform that declares a `dimension`)."""
    available = transform_names(registry)
    chosen: list[str] = []
    for raw in names:
        for name in (n.strip() for n in str(raw).split(",") if n.strip()):
            if name == "all":
                found = [n for n, t in available.items() if getattr(t, "dimension", None)]
            elif name in available:
                found = [name]
            else:
                low = name.lower()
                found = [n for n, t in available.items()
                         if n.lower().startswith(low + "-") or str(getattr(t, "dimension", "") or "").lower() == low]
            if not found:
                hint = did_you_mean(name, available)
                known = ", ".join(sorted(available)) or "none registered"
                raise RobustError(f"unknown attack {name!r} for robtest{hint}; known: all, {known}")
            chosen.extend(n for n in sorted(found) if n not in chosen)
    if not chosen:
        raise RobustError("robtest needs --attack NAMES (e.g. --attack typo or --attack all); "
                          "see `robust list attacks`")
    return chosen


def build(names: Iterable[str], registry: Registry, configs: Mapping[str, Mapping[str, Any]],
          instantiate: bool = True, mode: str | None = None) -> list[DimensionTag]:
    """The selected dimension-tags in report order, with configured Transforms (or just described).
    `mode` ('clean'/'faithful') is passed to every Transform with a `mode` setting unless set explicitly."""
    out = []
    for name in select(names, registry):
        entry = registry.get("attack", name)
        config = dict(configs.get(name, {}))
        if mode and "mode" in entry.settings and "mode" not in config:
            config["mode"] = mode
        transform = entry.create(**config) if instantiate else None
        target = transform if instantiate else entry.target
        out.append(DimensionTag(name, dimension_of(name, target), tag_of(name, target), transform))
    return sorted(out, key=lambda d: d.sort_key)
