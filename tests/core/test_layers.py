"""The code's layers, enforced: `core` (contracts) imports nothing of robust outside core; `engine` and `toolkit`
import no plugin, no report and no CLI; a built-in plugin is written like a third-party one: it imports `robust`
(the public surface), `robust.toolkit` and its own package, never `robust.core`, the engine, report page code or a
sibling plugin (each attack dimension is a plugin of its own, each benchmark package one plugin); no plugin package
has an import circle (imports inside functions included; imports only for type checkers are not imports)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "robust"
#: plugin packages whose modules are each a plugin of their own (the rest: one plugin per package)
ONE_PER_MODULE = ("attacks",)
#: what each layer may import besides itself
ALLOWED = {"core": ("robust.core",), "engine": ("robust.core", "robust.engine", "robust.toolkit"),
           "toolkit": ("robust.core", "robust.toolkit")}
#: deprecation shims that reach past their layer, each with the PLUGIN_API that removes it (docs/plugins.md,
#: "Stability"): `Registry.attack_specs`, whose resolution moved to the engine (`robust.attack_specs`) in 1.2
SHIMS = {("robust.core.registry", "robust.engine.attacks"): "2.0"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["robust", *parts])


def imported_modules(path: Path, root: Path) -> set[str]:
    """Every robust module a file imports, at module level or inside functions (relative imports resolved)."""
    out = set()
    modules = {module_name(p, root) for p in root.rglob("*.py")}
    own = module_name(path, root).split(".")
    package = own if path.name == "__init__.py" else own[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules
            out |= submodules  # `from pkg import module` imports that module (its package is imported anyway)
            if len(submodules) < len(node.names):
                out.add(base)
    return {m for m in out if m in modules}


def plugin_of(module: str) -> str | None:
    """`robust.plugins.benchmarks.byod.report` -> `benchmarks.byod`; `robust.plugins.attacks.typo` ->
    `attacks.typo`; `robust.plugins.recipes.base` -> `recipes`; a package's registering `__init__` -> itself."""
    parts = module.split(".")
    if parts[:2] != ["robust", "plugins"] or len(parts) < 3:
        return None
    if (parts[2] == "benchmarks" or parts[2] in ONE_PER_MODULE) and len(parts) > 3:
        return ".".join(parts[2:4])
    return ".".join(parts[2:3 if parts[2] != "benchmarks" else 4])


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "robust"


def violations(root: Path | None = None) -> list[str]:
    root = root or SRC
    graph = {module_name(p, root): imported_modules(p, root) for p in sorted(root.rglob("*.py"))}
    found = []
    for module, imports in sorted(graph.items()):
        layer, own = layer_of(module), plugin_of(module)
        for target in sorted(imports):
            if (module, target) in SHIMS:
                continue
            if layer in ALLOWED and not target.startswith(ALLOWED[layer]):
                found.append(f"{module} imports {target} ({layer} imports only {', '.join(ALLOWED[layer])})")
            elif layer == "plugins":
                other = plugin_of(target)
                registers = module == f"robust.plugins.{own}" if own else False
                if other is None and target != "robust" and layer_of(target) != "toolkit":
                    found.append(f"{module} imports {target} (a plugin imports only robust, robust.toolkit and its "
                                 "own package)")
                elif other is not None and other != own and not (registers and other.startswith(own + ".")):
                    found.append(f"{module} imports {target} (another plugin)")
                elif other is not None and target == f"robust.plugins.{own}" and module != target:
                    found.append(f"{module} imports {target} (its own package's registering module)")
    plugins = {m: {t for t in ts if t.startswith("robust.plugins.")} for m, ts in graph.items()
               if m.startswith("robust.plugins.")}
    return found + [f"import circle: {' -> '.join(c)}" for c in circles(plugins)]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules (a package's __init__ importing its submodules is not
    a cycle unless a submodule imports it back)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w == v:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group) + [sorted(group)[0]])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_layers_hold_on_main():
    assert violations() == []


def test_each_shim_goes_with_its_major_version():
    import warnings

    import robust

    major = int(robust.PLUGIN_API.split(".")[0])
    assert all(major < int(until.split(".")[0]) for until in SHIMS.values())
    with warnings.catch_warnings(record=True) as caught:  # the shim still resolves, and says what replaces it
        warnings.simplefilter("always")
        old = robust.registry().attack_specs(["typo"])
    assert old == robust.attack_specs(["typo"], robust.registry()) and [s.text for s in old] == ["typo-G", "typo-M"]
    assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
        "Registry.attack_specs(values) is deprecated; use robust.attack_specs(values, registry)"]


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "robust"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


BASE = {"__init__.py": "", "core/__init__.py": "", "core/interfaces.py": "", "engine/__init__.py": "",
        "engine/runner.py": "", "toolkit/__init__.py": "", "toolkit/text.py": "", "plugins/__init__.py": "",
        "plugins/attacks/__init__.py": "from robust.plugins.attacks import typo, synonym\n",
        "plugins/attacks/typo.py": "from robust.toolkit import text\n", "plugins/attacks/synonym.py": "",
        "plugins/benchmarks/__init__.py": "", "plugins/benchmarks/b/__init__.py": "",
        "plugins/benchmarks/b/report.py": "from robust import Result\n",
        "plugins/benchmarks/b/benchmark.py": "from robust.plugins.benchmarks.b.report import x\n"}


def test_a_clean_tree_passes(tmp_path):
    assert violations(_tree(tmp_path, BASE)) == []


def test_the_check_sees_a_core_to_engine_import(tmp_path):
    # negative control: core reaching up into the engine
    root = _tree(tmp_path, {**BASE, "core/interfaces.py": "def f():\n    from robust.engine.runner import R\n"})
    assert violations(root) == ["robust.core.interfaces imports robust.engine.runner "
                                "(core imports only robust.core)"]


def test_the_check_sees_a_sibling_plugin_import(tmp_path):
    # negative control: one attack dimension importing another (contextual -> synonym was such a case)
    root = _tree(tmp_path, {**BASE, "plugins/attacks/typo.py": "from robust.plugins.attacks.synonym import y\n"})
    assert violations(root) == ["robust.plugins.attacks.typo imports robust.plugins.attacks.synonym "
                                "(another plugin)"]


def test_the_check_sees_a_plugin_importing_the_engine(tmp_path):
    root = _tree(tmp_path, {**BASE, "plugins/attacks/synonym.py": "import robust.engine.runner\n"})
    assert violations(root) == ["robust.plugins.attacks.synonym imports robust.engine.runner "
                                "(a plugin imports only robust, robust.toolkit and its own package)"]


def test_the_check_sees_a_built_in_importing_core(tmp_path):
    # negative control: 84 of 97 built-in plugin files imported robust.core.* before the public line was drawn
    root = _tree(tmp_path, {**BASE, "plugins/attacks/synonym.py": "from robust.core.interfaces import Transform\n"})
    assert violations(root) == ["robust.plugins.attacks.synonym imports robust.core.interfaces "
                                "(a plugin imports only robust, robust.toolkit and its own package)"]


def test_the_check_sees_an_import_circle_inside_a_benchmark_package(tmp_path):
    # negative control: a report module importing its benchmark back, inside a function
    root = _tree(tmp_path, {**BASE, "plugins/benchmarks/b/report.py":
                            "def f():\n    from robust.plugins.benchmarks.b.benchmark import RADAR\n"})
    assert violations(root) == ["import circle: robust.plugins.benchmarks.b.benchmark -> "
                                "robust.plugins.benchmarks.b.report -> robust.plugins.benchmarks.b.benchmark"]
