"""robust: measure how robust language models and representations are."""

from robust.core.context import RunContext
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import (
    Attacker,
    AttackResult,
    Benchmark,
    DataGenerator,
    Example,
    ModelAdapter,
    Plugin,
    Resource,
    Scorer,
    Transform,
    WorkItem,
)
from robust.core.results import Result, Table
from robust.core.settings import Setting

__version__ = "0.2.0"
__all__ = ["AttackResult", "Attacker", "Benchmark", "DataGenerator", "Example", "ModelAdapter", "Plugin",
           "Resource", "Result", "RunContext", "Scorer", "Setting", "Table", "Transform", "WorkItem", "hookimpl",
           "__version__"]
