"""Compact caches built once by `robust setup` (the WordNet index, the pronouncing dictionary): one pickle each,
written atomically and loaded once per process."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from robust.core.errors import MissingResource
from robust.core.locations import cache_key, cache_path

T = TypeVar("T")
_loaded: dict[Path, Any] = {}
_in_cache: dict[tuple[Any, ...], Any] = {}  # (cache_key(), parts) -> what `load_cached` loaded


def save(path: Path, data: Any) -> None:
    """Pickle to a temporary file and rename it into place, so concurrent setups and readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
    tmp.replace(path)


def load_once(path: Path, wrap: Callable[[Any], T], missing: str) -> T:
    """`wrap(data)` of the pickle at `path`, built once per process; `missing` (one line naming the setup command)
    when the file does not exist."""
    loaded = _loaded.get(path)
    if loaded is None:
        if not path.is_file():
            raise MissingResource(missing)
        loaded = _loaded[path] = wrap(pickle.loads(path.read_bytes()))
    return loaded


def load_cached(parts: tuple[str, ...], wrap: Callable[[Any], T], missing: str, path: Path | None = None) -> T:
    """`load_once` of `path`, by default `cache_path(*parts)`, which is found again by the cache directory's variables
    (`cache_key`) with no file-system call: attacks ask for their lexicon per word, and finding the path stats the
    cache directory. `missing` is the MissingResource's line, `{path}` standing for where the file was looked for."""
    if path is not None:
        return load_once(path, wrap, missing.format(path=path))
    key = (cache_key(), parts)
    loaded = _in_cache.get(key)
    if loaded is None:
        path = cache_path(*parts)
        loaded = _in_cache[key] = load_once(path, wrap, missing.format(path=path))
    return loaded
