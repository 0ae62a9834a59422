"""Built-in model adapters: `hf:`, the embedded `minilm` and `smollm2`, `probe:`, `finetune:`, `prompt:` (an LM
prompted to classify), `api:` (a model behind an OpenAI-compatible endpoint), and the array models `identity`,
`random-projection:K`, `random-vit` and `timm:<name>` (embed_arrays)."""

from robust import hookimpl
from robust.plugins.models.api import APIModel
from robust.plugins.models.arrays import ArrayFunction, Identity, RandomProjection
from robust.plugins.models.embedded import MiniLM, SmolLM2
from robust.plugins.models.finetune import FineTuned
from robust.plugins.models.hf import HFModel
from robust.plugins.models.probe import Probe
from robust.plugins.models.prompt import PromptModel
from robust.plugins.models.vision import RandomViT, TimmModel

__all__ = ["APIModel", "ArrayFunction", "FineTuned", "HFModel", "Identity", "MiniLM", "Probe", "PromptModel",
           "RandomProjection", "RandomViT", "SmolLM2", "TimmModel"]


@hookimpl
def register_models(register):
    register(HFModel)
    register(MiniLM)
    register(SmolLM2)
    register(Probe)
    register(FineTuned)
    register(PromptModel)
    register(APIModel)
    register(Identity)
    register(RandomProjection)
    register(RandomViT)
    register(TimmModel)
