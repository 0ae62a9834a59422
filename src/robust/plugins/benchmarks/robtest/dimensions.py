"""What `--attack` selects for RobTest: dimension-tags (a Transform, or an attacker with its own edits), each
evaluated under one or more accesses (an access = the Attacker that generates its variants)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from robust import Entry, Registry, RobustError, attack_specs

#: the report's page order (Chen et al. 2023, Appendix G); unknown dimensions follow in name order
DIMENSION_ORDER = ("Typo", "Glyph", "Phonetic", "Synonym", "Contextual", "Inflection", "Syntax", "Distraction")
#: dimensions that only carry the malicious tag (Chen et al. 2023, Table 1)
MALICIOUS_ONLY = {"distraction"}


@dataclass
class DimensionTag:
    """One evaluated dimension-tag (e.g. typo-M): its transform (None for an attacker that brings its own
    edits), where it sits in the report, and its accesses: access label -> registered attacker name."""

    name: str  # used in item ids ("typo-M"; qualified, "acme:typo-M", when the bare name means another plugin)
    dimension: str  # radar axis ("Typo"); a transform without `dimension` is its own dimension
    tag: str  # "M" (malicious) or "G" (general)
    entry: Entry  # the registered transform (or transform-less attacker) the `--attack` value resolved to
    transform: Any = None  # the configured Transform, once instantiated
    accesses: dict[str, Entry] = field(default_factory=dict)  # access label -> the attacker's entry

    @property
    def sort_key(self) -> tuple[int, str, int, str]:
        known = self.dimension in DIMENSION_ORDER
        order = DIMENSION_ORDER.index(self.dimension) if known else len(DIMENSION_ORDER)
        return order, self.dimension, 0 if self.tag == "M" else 1, self.name

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "dimension": self.dimension, "tag": self.tag, "access": list(self.accesses),
                "plugin": self.entry.qualified}


@dataclass(frozen=True)
class Cell:
    """What a RobTest work item evaluates: `kind` is "clean", "augment", "rule" or a search access; `tag` the
    dimension-tag (None for clean); `example` the index of the example in the benchmark's examples."""

    kind: str
    tag: DimensionTag | None
    degree: float
    example: int


def dimension_of(name: str, target: Any) -> str:
    """The radar axis: the `dimension` attribute in the paper's spelling (Typo, Glyph, ...), else the name."""
    raw = str(getattr(target, "dimension", "") or name)
    return next((d for d in DIMENSION_ORDER if d.lower() == raw.lower()), raw)


def tag_of(name: str, target: Any) -> str:
    """'M' or 'G': from the name suffix (-M/-G), else a `tag` attribute, else by dimension (Chen et al. 2023, Table
    1)."""
    if name.endswith("-M"):
        return "M"
    if name.endswith("-G"):
        return "G"
    # a transform's optional `tag` ("M" malicious, "G" general) is RobTest's own attribute, not the Transform's
    explicit = str(getattr(target, "tag", "") or "").upper()[:1]
    if explicit in ("M", "G"):
        return explicit
    dimension = str(getattr(target, "dimension", "") or name).lower()
    return "M" if dimension in MALICIOUS_ONLY else "G"


def select(names: Iterable[str], registry: Registry) -> list[str]:
    """The transform (or transform-less attacker) names that `--attack` values select, without accesses."""
    return [t.name for t in plan(names, registry, {"rule": "rule-sampling"}, ())]


def plan(names: Iterable[str], registry: Registry, defaults: dict[str, str],
         score_skip: Sequence[str]) -> list[DimensionTag]:
    """Dimension-tags in report order. A transform is run by the `defaults` attackers (access -> attacker name),
    except those skipped for its dimension; `attacker:transform` and a transform-less attacker add that
    attacker under its own access label. Every name is resolved here, once."""
    skip = {s.lower() for s in score_skip}
    tags: dict[str, DimensionTag] = {}
    specs = attack_specs(list(names), registry)
    if not specs:
        raise RobustError("robtest needs --attack NAMES (e.g. --attack typo or --attack all); "
                          "see `robust list attacks`")
    default_entries = {access: registry.get("attacker", name) for access, name in defaults.items()}
    for spec in specs:
        source = spec.transform or spec.attacker
        name = registry.display(source)
        tag = tags.setdefault(name, DimensionTag(name, dimension_of(source.name, source.target),
                                                 tag_of(source.name, source.target), source))
        if spec.attacker is None:
            for access, attacker in default_entries.items():
                if not (access == "score" and (source.name.lower() in skip or tag.dimension.lower() in skip)):
                    tag.accesses.setdefault(access, attacker)
        else:
            if spec.transform is None and spec.attacker.target.uses_transform:
                raise RobustError(f"attacker {spec.attacker.name!r} searches over a transform's edits; "
                                  f"name one, e.g. --attack {spec.attacker.name}:typo-M")
            # an attacker's optional `access` names its column in the report (RobTest's own: rule, score)
            tag.accesses[getattr(spec.attacker.target, "access", "") or registry.display(spec.attacker)] = spec.attacker
    return sorted(tags.values(), key=lambda d: d.sort_key)
