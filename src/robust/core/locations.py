"""Where robust keeps the files it makes: its cache directory (the plugin loader's entry points, the resources
`robust setup` assembles, models' caches)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """`$ROBUST_CACHE`, else `~/.cache/robust`; created on demand."""
    path = Path(os.environ.get("ROBUST_CACHE") or Path.home() / ".cache" / "robust")
    path.mkdir(parents=True, exist_ok=True)
    return path
