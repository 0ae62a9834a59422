"""`robust run --bench synbench` through the CLI: the default reference model, store, show, report, compare,
resume, and one-line errors for nonsense settings."""

from __future__ import annotations

import json

import pytest

from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.engine.runner import Runner
from robust.engine.store import Store

SMALL = ["--set", "levels=0.5,1,2,3", "--set", "n=256", "--set", "n_test=256", "--set", "epsilons=0,0.2,0.8"]


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from robust.cli import app

    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def _run_json(out):
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout[out.stdout.index("{"):])


def test_default_model_run_show_report_and_resume(invoke, tmp_path):
    out = invoke("run", "--bench", "synbench", *SMALL, "--json", "-q")
    run = _run_json(out)
    assert "built-in reference representation" in out.stderr
    summary = run["result"]["summary"]
    assert run["model"] == "identity" and summary["model"] == "identity"
    assert summary["shape"] == "3x8x8" and summary["dim"] == 192 and summary["n"] == 256
    assert summary["model_note"].startswith("built-in reference")
    assert 0 < summary["score"] <= 1.02 and summary["recommended_epsilon"] in (0.0, 0.2, 0.8)
    table = run["result"]["tables"][0]
    assert table["columns"] == ["a_T", "eps=0", "eps=0.2", "eps=0.8"] and [r[0] for r in table["rows"]] == [
        0.7, 0.75, 0.8, 0.85, 0.9]
    store = Store(tmp_path / "robust.db")
    records = store.records(run["id"])
    assert sorted(records) == ["t0-s0.50", "t0-s1.00", "t0-s2.00", "t0-s3.00"]
    assert all(len(json.dumps(r)) < 2000 for r in records.values())  # numbers only, no representations

    shown = invoke("show", run["id"])
    assert shown.exit_code == 0 and "SynBench-Score (grid100" in shown.stdout and "eps=0.2" in shown.stdout

    report = invoke("report", run["id"], "--out", str(tmp_path / "rep"))
    assert report.exit_code == 0, report.output
    html = next((tmp_path / "rep").glob("*.html")).read_text()
    assert html.count("data:image/png;base64") == 3 and "Expected bound E(a_t)" in html

    runner = Runner(get_registry(), store, progress=False)
    resumed = runner.resume(run["id"])  # a finished run: nothing left to compute, nothing changes
    assert resumed.result == run["result"] and resumed.queries == summary["model_queries"]
    reduced = runner.reduce(run["id"])  # no model: the same numbers from the stored records
    assert reduced.summary["score"] == summary["score"] and reduced.summary["shape"] == "3x8x8"


def test_compare_ranks_encoders(invoke, tmp_path):
    small_vit = ["--set", "model.image_size=8", "--set", "model.patch_size=4", "--set", "model.hidden_size=16"]
    ids = {}
    for model, extra in (("identity", []), ("random-projection:8", []), ("random-vit", small_vit)):
        ids[model] = _run_json(invoke("run", "--bench", "synbench", "--model", model, *SMALL, *extra, "--json",
                                      "-q"))["id"]
    out = invoke("compare", *ids.values(), "--json", "--out", str(tmp_path / "cmp"))
    result = _run_json(out)
    ranking = result["summary"]["ranking"]
    assert ranking[0].startswith("identity")  # the reference beats the random baselines
    assert result["summary"]["comparable"] is True
    assert len(list((tmp_path / "cmp").glob("*.html"))) == 1


@pytest.mark.parametrize("setting, message", [
    ("n=-5", "bad value -5 for setting 'n': expected int, in [16, inf]"),
    ("n_test=3", "bad value 3 for setting 'n_test': expected int, in [16, inf]"),
    ("epsilons=0,0.9", "epsilons must lie in [0, 0.8] with eps_mode=relative"),
    ("epsilons=-0.1", "bad value -0.1 for setting 'epsilons'"),
    ("thresholds=0.5,0.7", "a_T values must be in [0.6, 1) with integration=grid100"),
    ("a_T=1.2", "bad value 1.2 for setting 'a_T'"),
    ("levels=0,1", "bad value 0.0 for setting 'levels'"),
    ("integration=simpson", "bad value 'simpson' for setting 'integration'; choose one of exact, grid100"),
    ("eps_mode=percent", "bad value 'percent' for setting 'eps_mode'"),
    ("covariance=band", "bad value 'band' for setting 'covariance'"),
    ("shape=3x224", "shape must be CxHxW or d"),
    ("cutoff=0", "bad value 0.0 for setting 'cutoff'"),
    ("trials=0", "bad value 0 for setting 'trials'"),
    ("nn=3", "unknown setting 'nn' for synbench (did you mean 'n'?)"),
])
def test_nonsense_settings_are_one_line_errors(invoke, setting, message):
    out = invoke("run", "--bench", "synbench", "--set", setting, "-q")
    assert out.exit_code != 0 and isinstance(out.exception, RobustError)
    assert message in str(out.exception) and "\n" not in str(out.exception)


def test_text_models_are_refused_with_one_line(invoke):
    out = invoke("run", "--bench", "synbench", "--model", "minilm", *SMALL, "-q")
    assert isinstance(out.exception, RobustError) and "needs embed_arrays" in str(out.exception)


def test_hf_vision_encoder_from_a_local_directory(invoke, tmp_path):
    """A tiny ViT saved with save_pretrained (no hub): native shape and the processor's normalisation are used."""
    import torch
    from transformers import ViTConfig, ViTModel

    torch.manual_seed(0)
    path = tmp_path / "tiny-vit"
    ViTModel(ViTConfig(image_size=16, patch_size=8, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=32)).save_pretrained(path)
    (path / "preprocessor_config.json").write_text(json.dumps({"image_mean": [0.5] * 3, "image_std": [0.25] * 3}))
    run = _run_json(invoke("run", "--bench", "synbench", "--model", f"hf:{path}", *SMALL, "--json", "-q"))
    summary = run["result"]["summary"]
    assert summary["shape"] == "3x16x16" and summary["dim"] == 16
    assert summary["normalization"] == "mean=(0.5, 0.5, 0.5) std=(0.25, 0.25, 0.25)"
    assert "model_note" not in summary and 0 <= summary["score"] <= 1.05


def test_timm_model_at_its_native_input_shape(invoke):
    pytest.importorskip("timm", reason="timm is optional: pip install timm")
    out = invoke("run", "--bench", "synbench", "--model", "timm:test_vit", "--set", "model.pretrained=false",
                 "--set", "levels=0.5,2", "--set", "n=64", "--set", "n_test=64", "--set", "epsilons=0", "--json", "-q")
    summary = _run_json(out)["result"]["summary"]
    assert summary["shape"] == "3x160x160"  # timm's pretrained_cfg input size, not the 3x8x8 fallback
    offline = invoke("run", "--bench", "synbench", "--model", "timm:test_vit", "--set", "n=64")
    assert isinstance(offline.exception, RobustError)  # no weights offline: one line saying what to do
    assert "model.pretrained=false" in str(offline.exception) and "\n" not in str(offline.exception)
