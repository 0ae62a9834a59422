"""Helpers of the core tests: `robust` run in this process, and robust-example registered in it."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import sys

import pytest

from robust import cli
from robust.core import plugins
from tests.conftest import install_plugin


def in_process(*args: str) -> tuple[int, str, str]:
    """`robust ARGS` in this process (no interpreter start-up): (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return code, out.getvalue(), err.getvalue()


def robtest_records(db) -> dict[str, dict]:
    """Records of a small RobTest run stored in `db` (keyword victim, tiny-reviews, typo-G: rule and score access,
    6 examples), by item id in the order they were stored."""
    code, _, err = in_process("--store", db, "run", "--bench", "robtest", "--model", "keywords", "--data",
                              "tiny-reviews", "--attack", "typo-G", "--limit", "6", "--quiet")
    assert code == 0, err
    rows = sqlite3.connect(db).execute("SELECT item_id, payload FROM records ORDER BY rowid").fetchall()
    return {item_id: json.loads(payload) for item_id, payload in rows}


@pytest.fixture(scope="module")
def example_site(tmp_path_factory):
    """robust-example installed in a site directory (for subprocesses) and registered in this process, with
    its keyword lexicon set up; unregistered after the module."""
    site = tmp_path_factory.mktemp("site")
    install_plugin("robust-example", site)
    plugins.load_plugins()  # this environment's entry points, before robust-example is importable
    sys.path.insert(0, str(site))
    import robust_example

    plugins.register_plugin(robust_example, "example", "robust-example", "0.1.0")
    plugins.get_registry().get("resource", "keyword-lexicon").create().setup()
    yield site
    plugins.unregister_plugin("example")
    sys.path.remove(str(site))
