"""Built-in model adapters: `hf:`, the embedded `minilm` and `smollm2`, and `probe:`, `finetune:`."""

from robust.core.hookspecs import hookimpl
from robust.plugins.models.embedded import MiniLM, SmolLM2
from robust.plugins.models.finetune import FineTuned
from robust.plugins.models.function import FunctionModel
from robust.plugins.models.hf import HFModel
from robust.plugins.models.probe import Probe

__all__ = ["FineTuned", "FunctionModel", "HFModel", "MiniLM", "Probe", "SmolLM2"]


@hookimpl
def register_models(register):
    register(HFModel)
    register(MiniLM)
    register(SmolLM2)
    register(Probe)
    register(FineTuned)
