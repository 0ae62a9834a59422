"""The entry points of a group, with their distributions, read from a cache while the installed distributions are
unchanged.

Finding them with `importlib.metadata` reads every installed distribution's metadata (and imports the email
package to parse it): a fifth of `robust list`'s start-up in an environment with torch and transformers. The scan's
result is kept in robust's cache directory with the state it was read from: for each `sys.path` entry, the names
of its distributions and the size and modification time of each one's `entry_points.txt`. Installing, removing,
upgrading or editing a distribution changes that state and the scan runs again; so does a cache that cannot be
read. (stevedore's entry-point cache takes the same approach, keyed on `sys.path`'s modification times.)
`ROBUST_PLUGIN_CACHE=0` always scans.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import zlib
from dataclasses import asdict, dataclass
from typing import Any

from robust.core.locations import cache_file, keep_newest, stamp, write_whole

_FORMAT = 3


@dataclass(frozen=True)
class PluginPoint:
    """One entry point: `value` is `module` or `module:attribute`, as in the distribution's entry_points.txt."""

    name: str
    value: str
    distribution: str
    version: str

    def load(self) -> Any:
        """Import the module and return the attribute it names (what `importlib.metadata.EntryPoint.load` does)."""
        module, _, attrs = self.value.split("[")[0].partition(":")
        target = importlib.import_module(module.strip())
        for attr in attrs.strip().split(".") if attrs.strip() else ():
            target = getattr(target, attr)
        return target


def normal(distribution: str) -> str:
    """A distribution's name as robust shows it: lower case, `-` for `_`."""
    return distribution.lower().replace("_", "-")


def installed_state() -> str:
    """A digest of what the entry points depend on, cheap to read (a millisecond for 140 distributions): each
    `sys.path` entry with its distributions' names and their entry_points.txt's size and modification time."""
    state: list[Any] = [sys.executable]
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                names = sorted(e.name for e in found if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:  # a zip file, or a path that does not exist
            state.append([entry, stamp(entry)])
            continue
        state.append([entry, [[name, *stamp(os.path.join(entry or ".", name, "entry_points.txt"))]
                              for name in names]])
    data = json.dumps(state).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"  # hashlib's OpenSSL would cost 2-3 ms to import


def scan(group: str) -> list[PluginPoint]:
    """The group's entry points from the installed distributions' metadata, each distribution's parsed once."""
    from importlib import metadata

    seen: dict[int, tuple[str, str]] = {}
    points = []
    for ep in metadata.entry_points(group=group):
        if ep.dist is None:
            dist, version = "unknown", "?"
        else:
            if id(ep.dist) not in seen:  # `.name` and `.version` parse METADATA anew on every call
                meta = ep.dist.metadata
                seen[id(ep.dist)] = (normal(meta["Name"]), meta["Version"])
            dist, version = seen[id(ep.dist)]
        points.append(PluginPoint(ep.name, ep.value, dist, version))
    return points


def plugin_points(group: str) -> list[PluginPoint]:
    """The group's entry points: from the cache when the installed distributions are as they were when it was
    written, else scanned (and the cache rewritten). One cache file per interpreter and `sys.path` (a script's
    folder, a test's site), so that commands run from different places do not evict each other's."""
    file = cache_file("entry-points", sys.executable, group, *sys.path)
    if file is None:
        return scan(group)
    state = installed_state()
    try:
        cached = json.loads(file.read_text())
        if cached["format"] == _FORMAT and cached["state"] == state:
            return [PluginPoint(**point) for point in cached["points"]]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    points = scan(group)
    write_whole(file, json.dumps({"format": _FORMAT, "state": state, "points": [asdict(p) for p in points]}))
    keep_newest(file)
    return points
