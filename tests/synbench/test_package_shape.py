"""SynBench, SynTextBench and the ASR predictor have one package shape (benchmark, data, scorers, report, constants)
and no import circle among their modules, lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "src" / "robust" / "plugins" / "benchmarks"
SHAPE = ("benchmark", "data", "scorers", "report", "constants")


def imports(package: Path, name: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports anywhere in its source."""
    prefix = f"robust.plugins.benchmarks.{name}"
    graph = {}
    for path in package.glob("*.py"):
        out = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == prefix:
                out |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix + "."):
                out.add(node.module[len(prefix) + 1:].split(".")[0])
            elif isinstance(node, ast.Import):
                out |= {a.name[len(prefix) + 1:].split(".")[0] for a in node.names if a.name.startswith(prefix + ".")}
        graph[path.stem] = out - {path.stem}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle (as a path that returns to its start), found by depth-first search."""
    found, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


@pytest.mark.parametrize("name", ["synbench", "syntextbench", "asr_predict"])
def test_one_shape_and_no_import_circle(name):
    package = BENCHMARKS / name
    assert all((package / f"{module}.py").is_file() for module in SHAPE)
    assert circles(imports(package, name)) == []


def test_the_check_sees_a_lazy_circle(tmp_path):
    """Negative control: a report that imports the benchmark inside a function, as asr_predict's did."""
    pkg = tmp_path / "fake"
    pkg.mkdir()
    (pkg / "benchmark.py").write_text("def report():\n    from robust.plugins.benchmarks.fake.report import parts\n")
    (pkg / "report.py").write_text("def parts():\n    from robust.plugins.benchmarks.fake.benchmark import rank\n")
    (pkg / "constants.py").write_text("from robust.plugins.benchmarks.fake import data as d\n")
    (pkg / "data.py").write_text("import robust.plugins.benchmarks.fake.constants\n")
    assert sorted(map(tuple, circles(imports(pkg, "fake")))) == [("benchmark", "report", "benchmark"),
                                                                 ("constants", "data", "constants")]
