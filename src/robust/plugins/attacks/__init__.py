"""Built-in transforms: RobTest's robustness dimensions as `Transform` plugins.

Each module below exposes `TRANSFORMS = [...]`. A module that fails to import is skipped with a warning so
the others stay available.
"""

from __future__ import annotations

import importlib
import warnings

from robust import hookimpl

MODULES = ("typo", "glyph", "phonetic", "synonym", "inflection", "contextual", "syntax", "distraction")


@hookimpl
def register_transforms(register):
    for name in MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # not written yet
            warnings.warn(f"attack module {name!r} skipped: {exc}", stacklevel=2)
            continue
        except Exception as exc:  # noqa: BLE001 - one broken module must not hide the others
            warnings.warn(f"attack module {name!r} skipped: {exc}", stacklevel=2)
            continue
        for transform in getattr(module, "TRANSFORMS", ()):
            register(transform)
