"""Where robust keeps the files it makes: its cache directory (the plugin loader's entry points and `robust
list`'s listing, the resources `robust setup` assembles, models' caches), and how a cache file is written."""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

_cache_dirs: dict[tuple[str | None, str | None], Path] = {}


def cache_key() -> tuple[str | None, str | None]:
    """What decides the cache directory: ($ROBUST_CACHE, $HOME)."""
    return os.environ.get("ROBUST_CACHE"), os.environ.get("HOME")


def cache_dir() -> Path:
    """`$ROBUST_CACHE`, else `~/.cache/robust`; created on demand. Lexicons ask for it per word, so the path is
    remembered per `cache_key()` and only checked to still be a directory (a stat)."""
    key = cache_key()
    path = _cache_dirs.get(key)
    if path is None or not os.path.isdir(path):
        path = Path(key[0] or Path.home() / ".cache" / "robust")
        path.mkdir(parents=True, exist_ok=True)
        _cache_dirs[key] = path
    return path


def cache_path(*parts: str) -> Path:
    """`cache_dir() / parts[0] / ...`, joined once per cache directory (lexicons look their file up per word)."""
    return _joined(cache_dir(), parts)


@functools.lru_cache(maxsize=64)
def _joined(root: Path, parts: tuple[str, ...]) -> Path:
    return root.joinpath(*parts)


def stamp(path: str) -> list[int]:
    """A file's size and modification time (ns), [-1, -1] when it is gone: what tells a cache its source changed."""
    try:
        stat = os.stat(path)
    except OSError:
        return [-1, -1]
    return [stat.st_size, stat.st_mtime_ns]


def write_whole(file: Path, text: str) -> None:
    """Write `text` to `file` whole or not at all: concurrent writers each write their own file and rename it into
    place; a folder that cannot be written leaves `file` as it was (a cache is rebuilt next time)."""
    temporary = file.with_name(f"{file.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, file)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def cache_file(prefix: str, *key: str) -> Path | None:
    """A file of robust's cache named by `key` (e.g. the interpreter), or None when `ROBUST_PLUGIN_CACHE=0` or the
    cache directory cannot be made (a read-only home): the caller then computes afresh."""
    import zlib

    if os.environ.get("ROBUST_PLUGIN_CACHE") == "0":
        return None
    try:
        folder = cache_dir()
    except OSError:
        return None
    return folder / f"{prefix}-{zlib.crc32(chr(0).join(key).encode()):08x}.json"


def keep_newest(file: Path, keep: int = 8) -> None:
    """Remove all but the `keep` cache files of `file`'s kind (its name's prefix) written last: keyed by the
    interpreter and `sys.path`, they multiply (each test's site, `python -m robust` beside `robust`)."""
    prefix = file.name.rpartition("-")[0]
    with contextlib.suppress(OSError):  # another process may remove one meanwhile
        files = sorted(file.parent.glob(f"{prefix}-*.json"), key=lambda f: f.stat().st_mtime_ns, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
