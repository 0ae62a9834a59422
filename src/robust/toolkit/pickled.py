"""Compact caches built once by `robust setup` (the WordNet index, the pronouncing dictionary): one pickle each,
written atomically and loaded once per process."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from robust.core.errors import MissingResource

T = TypeVar("T")
_loaded: dict[Path, Any] = {}


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
