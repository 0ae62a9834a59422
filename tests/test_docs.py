"""The plugin tutorial shows real files: every code block of docs/plugins.md is a file of examples/, and that
package's own tests pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from robust import attack_specs

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


def test_what_docs_plugins_tells_an_author_holds():
    """Issue 34: the degree and budget the benchmarks pass an attacker, what `unit` means, how groups form and
    how a plugin ships a data file are documented, and what the doc says is what the code does."""
    import robust
    from robust.core import plugins
    from robust.plugins.benchmarks.robtest.scores import DEGREES

    for heading in ("## Degrees and units", "## What the benchmarks pass an attacker", "## Groups",
                    "## Shipping a data file with a plugin"):
        assert heading in DOC
    attack = robust.registry().get("benchmark", "attack").settings
    assert attack["degree"] == 0.3 and attack["budget"] is None and "default 0.3" in DOC
    assert "(default " + ", ".join(f"{d:g}" for d in DEGREES if d) + ")" in DOC
    assert robust.package_dir("robust") is not None and "robust.package_dir(" in DOC

    class Leet(robust.Transform):
        dimension = "Leet"

        def apply(self, example, degree, rng):
            return [example]

        def measure(self, original, perturbed):
            return 0.0

    class Plugin:
        @robust.hookimpl
        def register_transforms(register):
            for name in ("leet-M", "leet-G"):
                register(type(name, (Leet,), {"name": name, "description": name}))

    plugins.register_plugin(Plugin, "acme-leet", "acme", "1.0")
    try:
        registry = robust.registry()
        for value in ("leet", "acme:leet", "acme:all"):  # as "Groups" says: by dimension/prefix, DIST:GROUP
            assert sorted(s.text for s in attack_specs([value], registry)) == ["leet-G", "leet-M"], value
    finally:
        plugins.unregister_plugin("acme-leet")
