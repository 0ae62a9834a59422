"""robust: measure how robust language models and representations are.

The public surface (Plugin API 1.0) is `robust.api`, re-exported here: `from robust import Transform, run`."""

from robust.api import *  # noqa: F403 - the public surface, re-exported
from robust.api import PLUGIN_API  # noqa: F401
from robust.api import __all__ as _api

__version__ = "0.2.0"
__all__ = [*_api, "__version__"]
