"""robust: measure how robust language models and representations are."""

from robust.core.hookspecs import hookimpl
from robust.core.interfaces import (
    Attacker,
    Benchmark,
    DataGenerator,
    Example,
    ModelAdapter,
    Plugin,
    Scorer,
    Transform,
    WorkItem,
)
from robust.core.results import Result, Table

__version__ = "0.1.0"
__all__ = ["Attacker", "Benchmark", "DataGenerator", "Example", "ModelAdapter", "Plugin", "Result",
           "Scorer", "Table", "Transform", "WorkItem", "hookimpl", "__version__"]
