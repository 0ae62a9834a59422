"""`--attack` values resolved once into the transforms and attackers they name: a transform (run by the benchmark's
default attackers), an attacker (with its default or no transform), `attacker:transform`, or a group of
transforms (`all`, a dimension such as `typo`, a name prefix: `typo` -> `typo-M`, `DIST:GROUP`)."""

from __future__ import annotations

from dataclasses import dataclass

from robust.core.errors import RobustError, unknown
from robust.core.registry import BUILTIN, Entry, Registry


@dataclass
class AttackSpec:
    """One `--attack` value resolved once: a transform run by the benchmark's default attackers, an attacker
    (with its default or no transform), or `attacker:transform`. Benchmarks use these entries, never the name
    again; `text` is how reports and item ids show it."""

    text: str
    transform: Entry | None = None
    attacker: Entry | None = None


def group(registry: Registry, name: str) -> list[Entry]:
    """Transforms of group `name` (`all`: the built-in transforms with a dimension; a dimension such as `typo`;
    a name prefix, `typo` -> `typo-M`; `DIST:GROUP` for one distribution's), from ONE distribution: the
    built-ins when they define the group, so a third party never joins, replaces or breaks a built-in group."""
    dist, sep, low = name.lower().rpartition(":")
    found = [e for e in registry if e.kind == "transform" and (not sep or e.distribution == dist) and (
        (low == "all" and getattr(e.target, "dimension", "")) or e.name.lower().startswith(low + "-")
        or str(getattr(e.target, "dimension", "") or "").lower() == low)]
    dists = sorted({e.distribution for e in found})
    if BUILTIN in dists or len(dists) <= 1:
        return [e for e in found if e.distribution == (BUILTIN if BUILTIN in dists else dists[0])] if dists else []
    raise RobustError(f"attack group {name!r} is defined by several plugins ({', '.join(dists)}); "
                      "name the transforms instead, or qualify the group (DIST:GROUP)")


def attack_specs(values: list[str], registry: Registry) -> list[AttackSpec]:
    """`--attack` values (each may hold several, comma-separated): a transform, an attacker, a group, or
    `attacker:transform` (each may be qualified)."""
    out: list[AttackSpec] = []
    for text in (v.strip() for raw in values for v in str(raw).split(",") if v.strip()):
        out += _resolve(registry, text)
    return out


def _single(registry: Registry, text: str) -> AttackSpec | None:
    transform = registry.find("transform", text)
    if transform is not None:
        return AttackSpec(registry.display(transform), transform=transform)
    attacker = registry.find("attacker", text)
    return AttackSpec(registry.display(attacker), attacker=attacker) if attacker is not None else None


def _resolve(registry: Registry, text: str) -> list[AttackSpec]:
    """Built-ins own their names: a built-in transform or attacker, then a built-in group, then a third party's
    plugin or group, then `attacker:transform` split at each colon in turn."""
    for kind in ("transform", "attacker"):
        builtin = [e for e in registry.entries[kind].get(text, []) if e.distribution == BUILTIN]
        if builtin:
            return [AttackSpec(registry.display(builtin[0]), **{kind: builtin[0]})]
    if text.lower() in registry.builtin_groups():
        return [AttackSpec(registry.display(e), transform=e) for e in group(registry, text)]
    single = _single(registry, text)
    if single is not None:
        return [single]
    members = group(registry, text)
    if members:
        return [AttackSpec(registry.display(e), transform=e) for e in members]
    for cut in [i for i, ch in enumerate(text) if ch == ":"]:
        head, tail = text[:cut], text[cut + 1:]
        attacker = registry.find("attacker", head)
        if attacker is None:
            continue
        transform = registry.find("transform", tail)
        transforms = [transform] if transform is not None else group(registry, tail)
        if transforms:
            return [AttackSpec(f"{registry.display(attacker)}:{registry.display(t)}", t, attacker)
                    for t in transforms]
    choices = registry.names("transform") + registry.names("attacker")
    raise unknown("attack", text, choices + ["all"])
