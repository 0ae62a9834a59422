"""Array models (embed_arrays): identity, random-projection, ArrayFunction, random-vit, hf: vision (tiny ViT
saved to a temp dir, no hub) and timm: (clean error without timm; adapter logic on a stand-in module)."""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.core.interfaces import CAPABILITIES
from robust.core.plugins import get_registry
from robust.plugins.models.arrays import ArrayFunction, Identity, RandomProjection
from robust.plugins.models.hf import HFModel
from robust.plugins.models.vision import IMAGENET_MEAN, RandomViT, TimmModel


def test_capability_is_declared():
    assert "embed_arrays" in CAPABILITIES
    for name in ("identity", "random-projection", "random-vit", "timm"):
        assert get_registry().get("model", name).capabilities == ["embed_arrays"]


def test_identity_flattens_and_counts_queries_in_batches():
    model = Identity(batch_size=3)
    x = np.arange(7 * 2 * 3, dtype=np.float32).reshape(7, 2, 3)
    calls = []
    original = model._embed_arrays
    model._embed_arrays = lambda b: calls.append(len(b)) or original(b)
    out = model.embed_arrays(x)
    assert out.shape == (7, 6) and np.array_equal(out, x.reshape(7, 6))
    assert calls == [3, 3, 1] and model.queries == 7


def test_random_projection_is_orthonormal_seeded_and_validated():
    a, b = RandomProjection("4"), RandomProjection("4", seed=1)
    M = a.matrix(20)
    np.testing.assert_allclose(M.T @ M, np.eye(4), atol=1e-6)
    x = np.random.default_rng(0).normal(size=(5, 20)).astype(np.float32)
    assert np.array_equal(a.embed_arrays(x), RandomProjection("4").embed_arrays(x))
    assert not np.allclose(a.embed_arrays(x), b.embed_arrays(x))
    for bad in ("", "x", "0"):
        with pytest.raises(RobustError):
            RandomProjection(bad)
    with pytest.raises(RobustError, match="K <= 20"):
        RandomProjection("30").embed_arrays(x)


def test_array_function_checks_its_output():
    model = ArrayFunction(lambda x: x.sum(axis=(1, 2)), name="sum", input_shape=(2, 3))
    assert model.embed_arrays(np.ones((4, 2, 3))).shape == (4, 1)
    assert model.input_spec().shape == (2, 3)
    bad = ArrayFunction(lambda x: np.zeros((len(x) + 1, 2)), name="bad")
    with pytest.raises(RobustError, match="shape"):
        bad.embed_arrays(np.ones((3, 4)))


def test_random_vit_is_seeded_and_declares_its_input():
    small = {"image_size": 16, "patch_size": 8, "hidden_size": 16, "heads": 2, "mlp_size": 32}
    a, b, c = RandomViT(**small), RandomViT(**small), RandomViT(seed=1, **small)
    assert a.input_spec().shape == (3, 16, 16) and a.input_spec().mean == IMAGENET_MEAN
    x = np.random.default_rng(0).normal(size=(5, 3, 16, 16)).astype(np.float32)
    za = a.embed_arrays(x)
    assert za.shape == (5, 16)
    np.testing.assert_allclose(za, b.embed_arrays(x), atol=1e-6)
    assert not np.allclose(za, c.embed_arrays(x))
    np.testing.assert_allclose(RandomViT(batch_size=2, **small).embed_arrays(x), za, atol=1e-5)  # batch-invariant
    with pytest.raises(RobustError, match="patch_size dividing"):
        RandomViT(image_size=20, patch_size=8)


# --- hf: vision ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vit_dirs(tmp_path_factory):
    import torch
    from transformers import ViTConfig, ViTForImageClassification, ViTModel

    cfg = dict(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
               intermediate_size=64)
    torch.manual_seed(0)
    backbone = tmp_path_factory.mktemp("vit")
    ViTModel(ViTConfig(**cfg)).save_pretrained(backbone)
    (backbone / "preprocessor_config.json").write_text(json.dumps(
        {"image_processor_type": "ViTImageProcessor", "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5],
         "size": {"height": 32, "width": 32}}))
    classifier = tmp_path_factory.mktemp("vitcls")
    ViTForImageClassification(ViTConfig(**cfg, num_labels=3)).save_pretrained(classifier)
    return str(backbone), str(classifier)


def test_hf_vision_task_input_and_cls_features(vit_dirs):
    import torch
    from transformers import ViTModel

    backbone, classifier = vit_dirs
    model = HFModel(backbone, batch_size=3)
    assert model.task == "vision" and model.provides() == {"embed_arrays"}
    spec = model.input_spec()
    assert spec.shape == (3, 32, 32) and spec.mean == (0.5, 0.5, 0.5) and spec.std == (0.5, 0.5, 0.5)
    x = np.random.default_rng(0).normal(size=(5, 3, 32, 32)).astype(np.float32)
    feats = model.embed_arrays(x)
    with torch.inference_mode():
        direct = ViTModel.from_pretrained(backbone).eval()(pixel_values=torch.from_numpy(x)).last_hidden_state[:, 0]
    np.testing.assert_allclose(feats, direct.numpy(), atol=1e-5)
    mean_pooled = HFModel(backbone, pooling="mean").embed_arrays(x)
    assert mean_pooled.shape == (5, 32) and not np.allclose(mean_pooled, feats)
    cls_model = HFModel(classifier)  # a classification checkpoint: its backbone's class token
    assert cls_model.task == "vision" and cls_model.input_spec().mean == IMAGENET_MEAN  # no processor file
    assert cls_model.embed_arrays(x).shape == (5, 32)
    with pytest.raises(RobustError, match="vision models pool"):
        HFModel(backbone, pooling="last-token").embed_arrays(x)


# --- timm: -----------------------------------------------------------------------------------------------
def test_timm_missing_is_one_clean_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "timm", None)  # import timm -> ImportError
    with pytest.raises(RobustError) as err:
        TimmModel("vit_base_patch16_224").embed_arrays(np.zeros((1, 3, 8, 8), np.float32))
    assert str(err.value) == "timm is not installed: `pip install timm` to use timm: models"


def test_timm_device_is_checked_before_anything_loads(monkeypatch):
    """A device name that is none of torch's is refused when the model is made; a device this torch cannot reach,
    when it loads, before timm is imported."""
    import torch

    with pytest.raises(RobustError, match=r"^bad value 'gpu' for setting 'device': expected auto, cpu"):
        TimmModel("vit_tiny", device="gpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setitem(sys.modules, "timm", None)  # had timm been imported first, it would be the error
    with pytest.raises(RobustError, match=r"^setting device='cuda' of model 'timm' asks for a CUDA GPU, and this "):
        TimmModel("vit_tiny", device="cuda").embed_arrays(np.zeros((1, 3, 8, 8), np.float32))


def test_timm_adapter_logic_on_a_stand_in_module(monkeypatch):
    """Not timm itself (it needs a torchvision matching the CPU torch): a module with timm's create_model
    signature, to check the adapter's arguments, input spec, forward and error mapping."""
    import torch

    seen = {}

    class Net(torch.nn.Module):
        pretrained_cfg = {"input_size": (3, 8, 8), "mean": (0.1, 0.2, 0.3), "std": (0.4, 0.5, 0.6)}

        def forward(self, x):
            return x.flatten(1)[:, :4] * 2

    def create_model(name, pretrained=False, num_classes=None, checkpoint_path=None):
        seen.update(name=name, pretrained=pretrained, num_classes=num_classes, checkpoint_path=checkpoint_path)
        if name == "missing":
            raise RuntimeError("No pretrained weights exist or were found for this model.\nmore")
        return Net()

    monkeypatch.setitem(sys.modules, "timm", types.SimpleNamespace(create_model=create_model))
    model = TimmModel("vit_tiny", checkpoint="/tmp/w.pth")
    assert model.input_spec().shape == (3, 8, 8) and model.input_spec().std == (0.4, 0.5, 0.6)
    x = np.ones((3, 3, 8, 8), np.float32)
    assert np.array_equal(model.embed_arrays(x), np.full((3, 4), 2.0, np.float32))
    assert seen == {"name": "vit_tiny", "pretrained": False, "num_classes": 0, "checkpoint_path": "/tmp/w.pth"}
    with pytest.raises(RobustError) as err:
        TimmModel("missing").embed_arrays(x)
    assert "cannot load timm model 'missing': No pretrained weights" in str(err.value) and "\n" not in str(err.value)
