"""The plugin tutorial shows real files: every code block of docs/plugins.md is a file of examples/, and that
package's own tests pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "plugins.md").read_text()
BLOCK = re.compile(r"File: `(?P<path>[^`]+)`\n\n```\w*\n(?P<code>.*?)\n```", re.S)


def test_every_file_block_is_the_file_itself():
    blocks = list(BLOCK.finditer(DOC))
    assert len(blocks) >= 9
    for match in blocks:
        assert (ROOT / match["path"]).read_text().rstrip("\n") == match["code"], match["path"]


def test_every_python_and_toml_block_is_a_file():
    shown = {m.start("code") for m in BLOCK.finditer(DOC)}
    fences = [m.end() for m in re.finditer(r"```(python|toml)\n", DOC)]
    assert fences and all(start in shown for start in fences)


def test_the_example_package_passes_its_own_tests():
    package = ROOT / "examples" / "robust-example"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
                          capture_output=True, text=True, env=env, cwd=package)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_score_fields_table_is_what_each_benchmark_offers():
    from robust.core.plugins import get_registry

    section = DOC[DOC.index("The fields each built-in benchmark offers"):].split("\n\n")[1]
    rows = re.findall(r"^\| `([\w-]+)`(?:, `([\w-]+)`)? \| [^|]+ \| (.+) \|$", section, re.M)
    table = {name: set(re.findall(r"`(\w+)`", fields)) for first, second, fields in rows
             for name in filter(None, (first, second))}
    offered = {e.name: set(e.target.score_fields) for e in get_registry() if e.kind == "benchmark"
               and e.distribution == "robust"}
    assert table == offered
