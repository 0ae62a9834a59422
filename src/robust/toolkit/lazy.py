"""Heavy libraries bound at the top of plugin modules but imported on first use: `robust list` imports every
plugin module and must stay fast (`from robust.toolkit.lazy import np` instead of `import numpy as np`)."""

from __future__ import annotations

import importlib
import types
from typing import Any


class LazyModule(types.ModuleType):
    """A stand-in for module `name` that imports it at the first attribute access, then serves its names."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_target"] = name

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self.__dict__["_target"])
        self.__dict__.update(vars(module))  # later look-ups are plain attribute reads
        return getattr(module, attr)


np: Any = LazyModule("numpy")
#: rapidfuzz's Levenshtein (C++, bit-parallel): edit distances measured after every edit of some draws and searches
Levenshtein: Any = LazyModule("rapidfuzz.distance.Levenshtein")
