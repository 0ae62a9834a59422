"""Vision encoders for `embed_arrays`: the shared feature read-out of transformers vision models (used by
`hf:` for vision checkpoints), the built-in `random-vit` baseline, and `timm:<name>` when timm is installed.

Inputs are model-ready pixel arrays (n, C, H, W), already normalised with the constants of `input_spec()`.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any

from robust import RobustError, Setting
from robust.plugins.models.arrays import ArrayInput, ArrayModel
from robust.toolkit.devices import check_device_name, torch_device
from robust.toolkit.lazy import np

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
VISION_POOLINGS = ("auto", "cls", "mean")


def pool_vision_output(out: Any, pooling: str = "auto") -> Any:
    """The final pooled representation a linear probe would use (Ko 2024, §5.2.3), as a (n, d) tensor.

    Token outputs (ViT, DeiT, DINOv2, CLIP vision; (n, T, d)): `auto`/`cls` = the normed class token, which is
    timm's pre-logits for ViTs; `mean` = mean of the other tokens. Feature maps (ResNet, ConvNeXt; (n, C, H, W)):
    `auto` = the model's own pooler output, `mean` = global average pooling."""
    hidden = out.last_hidden_state
    if hidden.dim() == 3:
        return hidden[:, 0] if pooling in ("auto", "cls") else hidden[:, 1:].mean(1)
    if pooling == "cls":
        raise RobustError("pooling=cls needs a token-based vision model (ViT-like), not a convolutional one")
    pooled = getattr(out, "pooler_output", None)
    if pooling == "auto" and pooled is not None:
        return pooled.reshape(len(pooled), -1)
    return hidden.mean(dim=tuple(range(2, hidden.dim())))


def _size(value: Any) -> int | None:
    """An image side from a config/processor entry (int, [h, w], {"height": h} or {"shortest_edge": s})."""
    if isinstance(value, int):
        return value
    if isinstance(value, (list, tuple)) and value:
        return int(value[0])
    if isinstance(value, dict):
        for key in ("height", "shortest_edge"):
            if key in value:
                return int(value[key])
    return None


def hf_vision_input(source: str, config: Any) -> ArrayInput:
    """(C, S, S) and mean/std of a transformers vision model: the image processor's `image_mean`/`image_std`
    and crop/size when it has one (preprocessor_config.json or AutoImageProcessor), else ImageNet constants and
    the config's `image_size` (224 if absent). Resizing/rescaling of the processor do not apply: SynBench's
    inputs are generated at the native size, in [0, 1] pixel units."""
    processor: dict[str, Any] = {}
    local = Path(source) / "preprocessor_config.json"
    if local.is_file():
        processor = json.loads(local.read_text())
    elif not Path(source).exists():
        try:
            from transformers import AutoImageProcessor

            processor = AutoImageProcessor.from_pretrained(source).to_dict()
        except Exception:  # no processor published: documented ImageNet default below
            processor = {}
    side = (_size(processor.get("crop_size")) or _size(getattr(config, "image_size", None))
            or _size(processor.get("size")) or 224)
    channels = int(getattr(config, "num_channels", 3) or 3)
    mean = tuple(float(v) for v in processor.get("image_mean") or IMAGENET_MEAN)
    std = tuple(float(v) for v in processor.get("image_std") or IMAGENET_STD)
    if len(mean) != channels:
        mean, std = (mean[0],) * channels, (std[0],) * channels
    return ArrayInput((channels, side, side), mean, std)


def torch_features(model: Any, batch: np.ndarray, device: str, call: Any) -> np.ndarray:
    """`call(model, pixel_values)` under inference mode -> float numpy (n, d)."""
    import torch

    pixels = torch.from_numpy(np.ascontiguousarray(batch, dtype=np.float32)).to(device)
    with torch.inference_mode():
        feats = call(model, pixels)
    return feats.float().cpu().numpy()


class RandomViT(ArrayModel):
    """A randomly initialised small ViT (transformers ViTModel, seeded): an untrained-architecture baseline."""

    name = "random-vit"
    description = "Baseline representation: a seeded, randomly initialised small ViT (class token features)"
    settings = {"batch_size": Setting(64, min=1), "image_size": Setting(224, min=1),
                "patch_size": Setting(16, min=1), "hidden_size": Setting(64, min=1), "layers": Setting(2, min=1),
                "heads": Setting(2, min=1), "mlp_size": Setting(128, min=1), "seed": 0,
                "pooling": Setting("cls", choices=VISION_POOLINGS)}
    identity_settings = ("heads", "mlp_size", "pooling")  # the others are in its identity already

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg, **config)
        c = self.config
        if int(c["image_size"]) % int(c["patch_size"]) or int(c["hidden_size"]) % int(c["heads"]):
            raise RobustError("random-vit needs patch_size dividing image_size and heads dividing hidden_size")
        self._model: Any = None

    @property
    def identity(self) -> str:
        c = self.config
        return self.with_settings(f"random-vit(img{c['image_size']},p{c['patch_size']},h{c['hidden_size']},"
                                  f"L{c['layers']},seed{c['seed']})")

    def input_spec(self) -> ArrayInput:
        side = int(self.config["image_size"])
        return ArrayInput((3, side, side), IMAGENET_MEAN, IMAGENET_STD)

    @property
    def model(self) -> Any:
        if self._model is None:
            import torch
            from transformers import ViTConfig, ViTModel

            c = self.config
            cfg = ViTConfig(image_size=int(c["image_size"]), patch_size=int(c["patch_size"]),
                            hidden_size=int(c["hidden_size"]), num_hidden_layers=int(c["layers"]),
                            num_attention_heads=int(c["heads"]), intermediate_size=int(c["mlp_size"]))
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(int(c["seed"]))
                self._model = ViTModel(cfg, add_pooling_layer=False).eval()
        return self._model

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        pooling = self.config["pooling"]
        return torch_features(self.model, batch, "cpu",
                              lambda m, x: pool_vision_output(m(pixel_values=x), pooling))


class TimmModel(ArrayModel):
    """`timm:<model name>`: timm's pooled pre-logits (`num_classes=0`), as the authors' code (Ko 2024, §5.2.3).
    Needs `pip install timm`; weights come from timm's cache or `checkpoint` (no download when offline)."""

    name = "timm"
    description = "Any timm image model's pooled pre-logit features (needs the optional `timm` package)"
    settings = {"batch_size": Setting(32, min=1), "pretrained": True, "checkpoint": "", "device": "cpu"}
    identity_settings = ("pretrained", "checkpoint")

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg, **config)
        if not self.arg:
            raise RobustError("model 'timm' needs a model name, e.g. timm:vit_base_patch16_224")
        check_device_name(self.config["device"])
        self._model: Any = None

    @cached_property
    def device(self) -> str:
        """The torch device of the `device` setting, refused in one line where this torch cannot reach it."""
        return torch_device(self.config["device"], self.name)

    @property
    def model(self) -> Any:
        if self._model is None:
            device = self.device  # a device this torch cannot reach is said before anything loads
            try:
                import timm
            except ImportError:
                raise RobustError("timm is not installed: `pip install timm` to use timm: models") from None
            c = self.config
            kw: dict[str, Any] = {"pretrained": bool(c["pretrained"]) and not c["checkpoint"], "num_classes": 0}
            if c["checkpoint"]:
                kw["checkpoint_path"] = c["checkpoint"]
            try:
                self._model = timm.create_model(self.arg, **kw).to(device).eval()
            except Exception as exc:  # unknown name, missing weights offline, bad checkpoint
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise RobustError(f"cannot load timm model {self.arg!r}: {first} (offline? pass "
                                  "--set model.checkpoint=FILE or model.pretrained=false)") from None
        return self._model

    def input_spec(self) -> ArrayInput:
        cfg = getattr(self.model, "pretrained_cfg", None) or {}
        shape = tuple(int(v) for v in cfg.get("input_size", (3, 224, 224)))
        return ArrayInput(shape, tuple(cfg.get("mean", IMAGENET_MEAN)), tuple(cfg.get("std", IMAGENET_STD)))

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        return torch_features(self.model, batch, self.device, lambda m, x: m(x))
