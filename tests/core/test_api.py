"""The public surface: `robust.run` from Python (models and data as objects, stored like the CLI's runs),
`python -m robust`, and third-party code that needs nothing but `import robust`."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import robust
from robust.engine.store import Store

ROOT = Path(__file__).resolve().parents[2]
ROWS = [{"text": f"review number {i} was {'great' if i % 2 else 'awful'}", "label": i % 2} for i in range(10)]


def keyword_probs(texts):
    """1 -> 'great' reviews, 0 -> the rest."""
    return np.array([[0.1, 0.9] if "great" in t else [0.8, 0.2] for t in texts])


def test_every_public_name_is_importable_from_robust():
    assert robust.PLUGIN_API == "1.3"
    for name in robust.__all__:
        assert getattr(robust, name) is not None, name


def test_third_party_code_imports_nothing_but_robust():
    """The example package and every test plugin package use the public surface only."""
    files = [*ROOT.glob("examples/**/*.py"), *ROOT.glob("tests/plugin_packages/**/*.py")]
    assert len(files) > 10
    deep = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            deep += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.startswith("robust.")]
    assert deep == []


def test_run_from_python_with_a_callable_and_rows_is_stored_like_a_cli_run(tmp_path):
    store = tmp_path / "runs.db"
    evaluation = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store)
    assert evaluation.status == "finished" and evaluation.summary["accuracy"] == 1.0
    assert len(evaluation.records) == 10 and evaluation.result.summary == evaluation.summary
    assert [r.id for r in Store(store).runs()] == [evaluation.id]
    # what it took, as the CLI's last line says: 10 queries, their seconds, this process's peak memory so far
    run = evaluation.run
    assert run.queries == 10 and run.queries_per_second == 10 / run.seconds and run.peak_mb > 0
    config = Store(store).get(evaluation.id).config
    assert config["model"] == "python:function:keyword_probs" and Path(config["data"]).parent == tmp_path / "data"
    # the rows were written once, content-addressed: the same rows map to the same file
    again = robust.run("accuracy", model=keyword_probs, data=list(ROWS), store=store)
    assert Store(store).get(again.id).config["data"] == config["data"]


def test_a_run_s_records_outlive_its_store(tmp_path):
    """`robust.run` returns the records with the run: a store in a temporary folder may be gone when they are read."""
    import shutil

    folder = tmp_path / "scratch"
    folder.mkdir()
    evaluation = robust.run("accuracy", model=keyword_probs, data=ROWS, store=folder / "runs.db")
    shutil.rmtree(folder)
    assert len(evaluation.records) == 10


def test_data_as_a_dataframe_or_a_dataset_gives_the_same_run(tmp_path):
    pandas = pytest.importorskip("pandas")
    datasets = pytest.importorskip("datasets")
    store = tmp_path / "runs.db"
    model = robust.FunctionModel(keyword_probs, "classify")
    from_rows = robust.run("accuracy", model=model, data=ROWS, store=store)
    from_frame = robust.run("accuracy", model=model, data=pandas.DataFrame(ROWS), store=store)
    from_dataset = robust.run("accuracy", model=model, data=datasets.Dataset.from_list(ROWS), store=store)
    assert from_rows.records == from_frame.records == from_dataset.records
    assert len({Store(store).get(e.id).config["data"] for e in (from_rows, from_frame, from_dataset)}) == 1


def test_an_in_memory_transformers_model_scores_as_its_saved_directory(tmp_path, prose):
    """A model object and the same weights loaded through `hf:DIR` give the same records (a round trip)."""
    import torch
    from transformers import AutoTokenizer, GPT2Config, GPT2ForSequenceClassification

    from tests.conftest import _tokenizer

    torch.manual_seed(0)
    _tokenizer(prose, bos=False).save_pretrained(tmp_path / "clf")
    tok = AutoTokenizer.from_pretrained(tmp_path / "clf")
    cfg = GPT2Config(vocab_size=len(tok), n_positions=128, n_embd=16, n_layer=1, n_head=2, num_labels=2,
                     pad_token_id=tok.pad_token_id, bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id)
    net = GPT2ForSequenceClassification(cfg)
    net.save_pretrained(tmp_path / "clf")
    store = tmp_path / "runs.db"
    in_memory = robust.run("accuracy", model=(net, tok), data=ROWS, store=store)
    saved = robust.run("accuracy", model=f"hf:{tmp_path / 'clf'}", data=ROWS, store=store)
    assert in_memory.records == saved.records
    assert Store(store).get(in_memory.id).config["model"].startswith("python:hf:in-memory")
    texts = [row["text"] for row in ROWS]
    from_objects = robust.registry().get("model", "hf").target.from_objects(net, tok).classify(texts)
    from_directory = robust.registry().model(f"hf:{tmp_path / 'clf'}").classify(texts)
    assert np.allclose(from_objects, from_directory, atol=1e-5) and from_objects.std(0).max() > 1e-4


def test_bad_model_objects_and_data_are_one_line_refusals(tmp_path):
    with pytest.raises(robust.RobustError, match="cannot use a int as a model"):
        robust.run("accuracy", model=3, data=ROWS, store=tmp_path / "r.db")
    with pytest.raises(robust.RobustError, match="cannot read data from a int"):
        robust.run("accuracy", model=keyword_probs, data=3, store=tmp_path / "r.db")
    with pytest.raises(robust.RobustError, match=r"model settings \(model.batch_size\) and batch size apply to a "
                       "model named by a spec or a callable; configure the FunctionModel you passed instead"):
        robust.run("accuracy", model=robust.FunctionModel(keyword_probs), data=ROWS, batch_size=4,
                   store=tmp_path / "r.db")
    assert Store(tmp_path / "r.db").runs() == []


def test_a_run_of_a_python_model_is_resumed_from_python_only(tmp_path, cli):
    store = tmp_path / "home" / "robust.db"
    store.parent.mkdir()
    evaluation = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store)
    Store(store)._exec("UPDATE runs SET status = 'interrupted' WHERE id = ?", (evaluation.id,))
    proc = cli("run", "--resume", evaluation.id)
    assert proc.returncode == 1 and "resume it from Python: robust.run(resume=" in proc.stderr
    resumed = robust.run(resume=evaluation.id, model=keyword_probs, store=store)
    assert resumed.status == "finished" and resumed.records == evaluation.records


def test_python_dash_m_robust_is_the_cli(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "robust", "list", "benchmarks", "--json"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "robtest" in {e["name"] for e in json.loads(proc.stdout)}
