"""`robust compare` ranks models; it says when the runs differ in more than their model."""

from __future__ import annotations

import numpy as np
import pytest

import robust
from robust.engine.store import Store
from robust.report import unlike
from tests.core.conftest import in_process

ROWS = [{"text": f"a {w} film, take {i}", "label": int(w == "good")} for i in range(4) for w in ("good", "bad")]


def keywords(texts):
    return np.array([[0.1, 0.9] if "good" in t else [0.8, 0.2] for t in texts])


def hedged(texts):
    return np.array([[0.4, 0.6] if "good" in t else [0.6, 0.4] for t in texts])


def test_runs_that_differ_beside_their_model_are_named_and_warned_of(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    store = tmp_path / "robust.db"
    a = robust.run("accuracy", model=keywords, data=ROWS, store=store)
    b = robust.run("accuracy", model=hedged, data=ROWS, store=store)
    c = robust.run("accuracy", model=hedged, data=ROWS, limit=3, seed=2, store=store)
    runs = Store(store)
    assert unlike([runs.get(a.id), runs.get(b.id)]) == []  # only the model differs
    assert unlike([runs.get(a.id), runs.get(b.id), runs.get(c.id)]) == ["limit: default, default, 3",
                                                                        "seed: 0, 0, 2"]
    assert unlike([runs.get(a.id), runs.get(b.id)], default_data="mr") == []
    code, _, err = in_process("compare", a.id, b.id)
    assert code == 0 and "warning" not in err, err
    code, _, err = in_process("compare", a.id, c.id)
    assert code == 0 and ("warning: these runs differ in more than their model (limit: default, 3; seed: 0, 2): "
                          "the comparison ranks unlike runs") in err, err


def test_a_report_from_python_is_the_one_the_command_line_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    ev = robust.run("accuracy", model=keywords, data=ROWS, store=tmp_path / "robust.db")
    written = robust.write_report(ev, tmp_path / "py")
    assert robust.write_report("latest", tmp_path / "by-id", store=tmp_path / "robust.db") == [
        tmp_path / "by-id" / p.name for p in written]
    assert [p.name for p in written] == [f"{ev.id}.html", f"{ev.id}.md"]
    code, _, err = in_process("report", ev.id, "--out", tmp_path / "cli")
    assert code == 0, err
    for path in written:
        assert path.read_text() == (tmp_path / "cli" / path.name).read_text()
    assert written[1].read_text().startswith("# robust report: accuracy on python:function:keywords")


def test_an_unfinished_run_is_refused_by_the_report_in_the_same_line_from_python_and_the_command_line(tmp_path,
                                                                                                     monkeypatch):
    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    ev = robust.run("accuracy", model=keywords, data=ROWS, store=tmp_path / "robust.db")
    Store(tmp_path / "robust.db")._exec("UPDATE runs SET status = 'interrupted', result = NULL WHERE id = ?", (ev.id,))
    said = f"run {ev.id} has not finished: it is interrupted, with 8 records; resume it first"
    with pytest.raises(robust.RobustError) as caught:
        robust.write_report(ev, tmp_path / "py")
    assert str(caught.value) == said
    code, _, err = in_process("report", ev.id, "--out", tmp_path / "cli")
    assert code == 1 and err.strip() == f"error: {said}", err
    assert not (tmp_path / "py").exists() and not (tmp_path / "cli").exists()
