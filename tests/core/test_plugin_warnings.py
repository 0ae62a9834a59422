"""A clash among installed plugins is told where it matters (issue 34): a Python run warns once, with a
`PluginWarning`, of the clashes that concern the names it uses, and of no other."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robust
from robust.core import plugins
from robust.engine.evaluate import PluginWarning

ROWS = [{"text": f"{'good' if i % 2 else 'bad'} film number {i}", "label": i % 2} for i in range(8)]


def keyword(texts):
    return np.array([[0.1, 0.9] if "good" in t else [0.9, 0.1] for t in texts])


class Reversed(robust.Transform):
    """A third party's transform named like robust's own `typo-M`."""

    name, description = "typo-M", "reverses the text"

    def apply(self, example, degree, rng):
        return [example.with_text(example.text[::-1])]

    def measure(self, original, perturbed):
        return float(original != perturbed)


class Clash:
    @robust.hookimpl
    def register_transforms(register):
        register(Reversed)


@pytest.fixture
def clash():
    plugins.register_plugin(Clash, "acme-clash", "acme", "1.0")
    yield
    plugins.unregister_plugin("acme-clash")


def _caught(**kw) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        robust.run(model=keyword, data=ROWS, **kw)
    return [str(w.message) for w in seen if issubclass(w.category, PluginWarning)]


def test_a_python_run_warns_once_of_the_clash_it_uses(clash, tmp_path):
    settings = {"degrees": [0.1], "aug_num": 1, "access": ["rule"]}
    assert _caught(bench="accuracy", store=tmp_path / "r.db") == []  # no clashing name used
    first = _caught(bench="robtest", attack="typo-M", settings=settings, store=tmp_path / "r.db")
    assert len(first) == 1 and "transform 'typo-M' is also registered by acme:typo-M" in first[0]
    assert _caught(bench="robtest", attack="typo-M", settings=settings, store=tmp_path / "r.db") == []  # once
    said: list[str] = []
    robust.run("robtest", model=keyword, data=ROWS, attack="typo-M", settings=settings, store=tmp_path / "r.db",
               say=said.append)  # with `say`, warnings are said as the CLI prints them, every run
    assert [line for line in said if line.startswith("warning:")] == [
        f"warning: {first[0]}"]
