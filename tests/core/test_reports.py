"""Reports escape everything they did not generate: labels, texts, paths and settings from the user's data."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from robust import ModelAdapter, hookimpl
from robust.core import plugins
from tests.core.conftest import in_process

LABELS = ["<script>alert(1)</script>", "a|b *bold* _it_ [x](javascript:y) ~~s~~ # h"]


class HostileLabels(ModelAdapter):
    """A classifier whose class names are HTML and Markdown (as a user's dataset may have)."""

    name = "hostile-labels"
    description = "test model"
    capabilities = frozenset({"classify"})
    labels = LABELS

    def _classify(self, texts):
        return [np.array([0.9, 0.1]) if "good" in t else np.array([0.1, 0.9]) for t in texts]


class Plugin:
    @hookimpl
    def register_models(register):
        register(HostileLabels)


def problems(markdown: str) -> list[str]:
    """What in a Markdown report is live markup that came from the data."""
    found = [tag for tag in ("<script", "</script>", "<b>") if tag in markdown]
    for line in markdown.splitlines():
        if line.startswith("|"):  # a table row: unescaped pipes would add cells
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            if len(cells) != 3:
                found.append(f"row with {len(cells)} cells: {line}")
    found += [m for m in ("*bold*", "_it_", "[x](", "~~s~~") if m in markdown]
    return found


@pytest.fixture
def report(tmp_path):
    """The Markdown and HTML reports of an accuracy run whose labels are hostile."""
    plugins.register_plugin(Plugin, "hostile", "robust-test", "0")
    try:
        data = tmp_path / "my_data*.jsonl"
        data.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n"
                                for t, lab in (("good film", LABELS[0]), ("bad film", LABELS[1]))))
        store = tmp_path / "r.db"
        code, _, err = in_process("--store", store, "run", "--bench", "accuracy", "--model", "hostile-labels",
                                  "--data", data, "--quiet")
        assert code == 0, err
        code, _, err = in_process("--store", store, "report", "latest", "--out", tmp_path / "rep")
        assert code == 0, err
    finally:
        plugins.unregister_plugin("hostile")
    [md] = (tmp_path / "rep").glob("*.md")
    [page] = (tmp_path / "rep").glob("*.html")
    return md.read_text(), page.read_text()


def test_markdown_and_html_reports_escape_the_data(report, monkeypatch):
    markdown, page = report
    assert problems(markdown) == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markdown and "a\\|b \\*bold\\*" in markdown
    assert "<script" not in page and "&lt;script&gt;" in page
    # negative control: the same check finds the hostile labels when they are written as they are
    raw = markdown.replace("&lt;", "<").replace("&gt;", ">").replace("\\", "")
    assert "<script" in problems(raw)[0] and any("cells" in p for p in problems(raw))
