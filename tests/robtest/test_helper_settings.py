"""A plugin's helper model named by a setting (`--set distraction.embedder=NAME`): the run uses that model, and
a name no plugin registers is refused in one line before a run exists."""

from __future__ import annotations

import sqlite3
import zlib

import numpy as np
import pytest

import robust

ROWS = [{"text": f"the film was {'good' if i % 2 else 'bad'} overall number {i}", "label": i % 2} for i in range(4)]
SEEN: list[str] = []


class CountingEncoder(robust.ModelAdapter):
    """Words hashed into 16 dimensions; remembers every text it embedded."""

    name = "counting-encoder"
    capabilities = frozenset({"embed"})

    def _embed(self, texts, pooling):
        SEEN.extend(texts)
        out = np.zeros((len(texts), 16))
        for i, text in enumerate(texts):
            for word in text.split():
                out[i, zlib.crc32(word.encode()) % 16] += 1.0
        return list(out)


class Plugin:
    @staticmethod
    @robust.hookimpl
    def register_models(register):
        register(CountingEncoder)


@pytest.fixture
def encoder():
    robust.register_plugin(Plugin, "counting-encoder-test")
    SEEN.clear()
    yield
    robust.unregister_plugin("counting-encoder-test")


def _victim():
    return robust.FunctionModel(lambda texts: np.array([[0.3, 0.7] if "good" in t else [0.7, 0.3] for t in texts]),
                                "classify", name="keyword-victim", labels=["negative", "positive"])


def _run(tmp_path, embedder):
    return robust.run("robtest", model=_victim(), data=ROWS, attack="distraction", store=tmp_path / "r.db",
                      settings={"access": ["rule"], "degrees": [0.1], "aug_num": 2, "distraction.embedder": embedder})


def test_the_setting_names_the_helper_the_run_uses(tmp_path, encoder):
    run = _run(tmp_path, "counting-encoder")
    assert run.status == "finished"
    # the degree D_s = 1 - cos(E(x), E(x')) was measured by the named encoder, on the sentences and their variants
    assert {row["text"] for row in ROWS} <= set(SEEN)
    assert any(text not in {row["text"] for row in ROWS} for text in SEEN)


@pytest.mark.parametrize(("name", "why"), [("no-such-encoder", "unknown model 'no-such-encoder' .*; known: "
                                                                ".*counting-encoder"),
                                           ("", "empty model spec")])
def test_an_unknown_helper_name_is_one_line_and_no_run(tmp_path, encoder, name, why):
    with pytest.raises(robust.RobustError, match=rf"^setting distraction\.embedder='{name}': {why}"):
        _run(tmp_path, name)
    assert not SEEN
    store = tmp_path / "r.db"
    if store.exists():
        assert sqlite3.connect(store).execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)


def test_an_attackers_unknown_helper_is_refused_before_it_loads_and_no_run(tmp_path, encoder):
    with pytest.raises(robust.RobustError, match=r"^setting textfooler\.encoder='no-such-encoder': unknown model"):
        robust.run("attack", model=_victim(), data=ROWS, attack="textfooler", store=tmp_path / "r.db",
                   settings={"textfooler.encoder": "no-such-encoder"})
    store = tmp_path / "r.db"
    if store.exists():
        assert sqlite3.connect(store).execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)
