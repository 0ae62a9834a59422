"""`robust list` without importing the plugins: the listing a previous command collected, while nothing it was
made from has changed.

Importing and registering every plugin module is most of what `robust list` costs. The listing it collects (each
entry's name, description, settings and a benchmark's defaults) is a fact of the installed code, so it is kept in
robust's cache directory beside what it was made from: the installed distributions (`installed_state`: names, and
each one's entry points), `ROBUST_LOAD_PLUGINS`, and the size and modification time of every module file the
listing imported, robust's and each plugin's. Installing, removing or editing any of them makes the next `robust
list` collect afresh. What depends on the machine's state is read at every listing all the same: a resource's
readiness and why a plugin cannot run here (the modules registering those entries alone are imported, and their
hooks register them again).

Collected afresh, never cached: a listing with a broken plugin (its fix must show at once), or with such an entry
registered by something other than a module; a process that has loaded plugins itself (a notebook, a test);
`ROBUST_TRACE_PLUGINS` (which shows the loading). `ROBUST_PLUGIN_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from robust.console import warning
from robust.core.entry_points import installed_state
from robust.core.locations import cache_file, keep_newest, stamp, write_whole
from robust.listing import Listing

_FORMAT = 2


def listing(collect: Callable[[], Listing]) -> Listing:
    """The listing from the cache when it is current, else `collect()`ed (and cached when it may be)."""
    from robust.core import plugins

    file = cache_file("listing", sys.executable, *sys.path)  # `robust` and `python -m robust` differ in sys.path
    if file is None or plugins.loaded() or os.environ.get("ROBUST_TRACE_PLUGINS"):
        return collect()
    source = {"installed": installed_state(), "load_plugins": os.environ.get("ROBUST_LOAD_PLUGINS")}
    try:
        cached = json.loads(file.read_text())
        if (cached["format"] == _FORMAT and cached["source"] == source
                and cached["stamps"] == stamps(cached["files"])):
            found = Listing.from_json(cached["listing"])
            for line in found.warnings:  # as a collected listing prints them
                warning(line)
            return found
    except (OSError, ValueError, KeyError, TypeError):
        pass
    found = collect()
    if found.cacheable:
        files = module_files()
        write_whole(file, json.dumps({"format": _FORMAT, "source": source, "files": files, "stamps": stamps(files),
                                      "listing": found.to_json()}))
        keep_newest(file)
    return found


def module_files() -> list[str]:
    """The files of the modules this process has imported, but the standard library's (a change of Python
    changes the installed state)."""
    stdlib = os.path.dirname(os.__file__)
    files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    return sorted(f for f in files if isinstance(f, str)
                  and (not f.startswith(stdlib) or "site-packages" in f or "dist-packages" in f))


def stamps(files: list[str]) -> list[list[int]]:
    """Size and modification time of each file."""
    return [stamp(name) for name in files]
