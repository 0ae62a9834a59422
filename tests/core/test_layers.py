"""The code's layers: plugins import from robust.core / robust.toolkit (never another plugin's internals), and
core, engine and toolkit never import a plugin."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "robust"


def imported_modules(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def plugin_of(module: str) -> str | None:
    """`robust.plugins.benchmarks.byod.report` -> `benchmarks.byod`; `robust.plugins.recipes.x` -> `recipes`."""
    parts = module.split(".")
    if parts[:2] != ["robust", "plugins"] or len(parts) < 3:
        return None
    return ".".join(parts[2:4]) if parts[2] == "benchmarks" and len(parts) > 3 else parts[2]


def violations() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        own = plugin_of("robust." + ".".join(path.relative_to(SRC).with_suffix("").parts))
        for module in imported_modules(path):
            other = plugin_of(module)
            if other is not None and other != own:
                found.append(f"{path.relative_to(SRC)} imports {module}")
    return found


def test_no_plugin_imports_another_and_the_layers_import_no_plugin():
    assert violations() == []


def test_the_check_sees_a_cross_plugin_import(tmp_path, monkeypatch):
    # negative control: a recipes module importing the attacks plugin is reported
    fake = tmp_path / "robust"
    (fake / "plugins" / "recipes").mkdir(parents=True)
    (fake / "plugins" / "recipes" / "x.py").write_text("from robust.plugins.attacks.typo import TypoM\n")
    (fake / "toolkit").mkdir()
    (fake / "toolkit" / "y.py").write_text("import robust.plugins.resources\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert violations() == ["plugins/recipes/x.py imports robust.plugins.attacks.typo",
                            "toolkit/y.py imports robust.plugins.resources"]
