"""robust: measure how robust language models and representations are.

The public surface (Plugin API 1.0) is `robust.api`, re-exported here: `from robust import Transform, run`. The
toolkit's helpers among it (`wilson`, `words`, `strips_figure`, ...) are imported on first use."""

from typing import Any

from robust import api as _api

globals().update({name: getattr(_api, name) for name in _api.__all__ if name not in _api.LAZY})
PLUGIN_API = _api.PLUGIN_API
__version__ = "0.2.0"
__all__ = [*_api.__all__, "__version__"]


def __getattr__(name: str) -> Any:
    """A lazy public name of `robust.api`, imported at its first use."""
    if name in _api.LAZY:
        value = getattr(_api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'robust' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_api.LAZY})
