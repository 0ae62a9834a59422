"""Plugin discovery through real distributions, isolation of broken plugins, duplicates, env controls."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from robust import attack_specs
from robust.core import plugins
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import (
    AttackResult,
    Benchmark,
    DataGenerator,
    Example,
    ModelAdapter,
    RecipeAttacker,
    Resource,
    Scorer,
    Transform,
)
from robust.core.results import Result

HOOKS = [name for name in dir(plugins.pm.hook) if name.startswith("register_")]


def _listed(cli, site, *args, env=None):
    proc = cli("list", *args, "--json", site=site, env=env)
    return proc, json.loads(proc.stdout or "[]")


def test_third_party_distribution_is_discovered_and_runs(cli, plugin_site):
    site = plugin_site("robust-hello")
    proc, entries = _listed(cli, site)
    assert proc.returncode == 0, proc.stderr
    by_name = {(e["kind"], e["name"]): e for e in entries}
    hello = by_name[("benchmark", "hello-dropout")]
    assert hello["origin"] == "robust-hello 0.1.0" and hello["capabilities"] == ["classify"]
    assert hello["qualified"] == "robust-hello:hello-dropout"
    assert by_name[("model", "keywords")]["distribution"] == "robust-hello"
    assert by_name[("transform", "word-dropout")]["description"].startswith("Delete")
    assert by_name[("benchmark", "accuracy")]["origin"] == "built-in"
    run = cli("run", "--bench", "hello-dropout", "--model", "keywords", "--json", "--quiet", site=site)
    assert run.returncode == 0, run.stderr
    assert 0.0 <= json.loads(run.stdout)["result"]["summary"]["accuracy"] <= 1.0


def test_broken_plugins_are_listed_with_their_cause_and_siblings_work(cli, plugin_site):
    site = plugin_site("robust-hello", "robust-broken")
    proc, entries = _listed(cli, site)
    assert proc.returncode == 0
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "robust-broken" in warnings[0] and "a_module_that_does_not_exist" in warnings[0]
    assert {"hello-dropout", "accuracy"} <= {e.get("name") for e in entries}
    broken = [e for e in entries if e["kind"] == "broken"]
    assert broken == [{"kind": "broken", "plugin": "broken", "step": "import",
                       "cause": "ModuleNotFoundError: No module named 'a_module_that_does_not_exist'"}]
    table = cli("list", site=site)
    assert "Broken plugins" in table.stdout and "ModuleNotFoundError" in table.stdout
    debug = cli("--debug", "list", "models", site=site)
    assert "Traceback (most recent call last)" in debug.stderr and "import a_module_that_does_not_exist" in debug.stderr


def test_a_plugin_failing_in_one_hook_leaves_nothing_registered(cli, plugin_site):
    proc, entries = _listed(cli, plugin_site("robust-halfbroken"))
    assert "half-bench" not in {e.get("name") for e in entries}
    assert "failed in register_transforms: RuntimeError: this hook is broken on purpose" in proc.stderr
    plugins_proc, rows = _listed(cli, plugin_site("robust-halfbroken"), "plugins")
    assert next(r for r in rows if r["name"] == "halfbroken")["status"].startswith("broken: RuntimeError")


def test_one_isolation_path_for_submodules_and_commands(cli, plugin_site):
    # a package of plugins (`PLUGINS`, as robust's own attacks) whose one submodule fails to import, and a plugin
    # whose register_commands raises: both are listed under broken plugins with their cause, once each, by the
    # registry (no warnings.warn, no line printed by the CLI itself); the working submodule registers
    site = plugin_site("robust-subplugins")
    proc = cli("--debug", "list", "--json", site=site)  # --debug: the full command line, commands included
    assert proc.returncode == 0, proc.stderr
    entries = json.loads(proc.stdout)
    broken = sorted((e["plugin"], e["step"], e["cause"]) for e in entries if e["kind"] == "broken")
    assert broken == [("badcmd", "register_commands", "RuntimeError: this command hook is broken on purpose"),
                      ("subs.bad", "import",
                       "ModuleNotFoundError: No module named 'a_dependency_that_is_not_installed'")]
    names = {e.get("name") for e in entries}
    assert "sub-upper" in names and "cmd-lower" not in names and "typo-M" in names
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2 and sum("subs.bad" in w for w in warnings) == sum("badcmd" in w for w in warnings) == 1
    assert "UserWarning" not in proc.stderr and "failed in register_commands: RuntimeError(" not in proc.stderr


def test_name_clashes_warn_once_and_bare_names_are_ambiguous(cli, plugin_site):
    site = plugin_site("robust-hello", "robust-clash")
    proc, entries = _listed(cli, site)
    assert proc.returncode == 0
    clash = [line for line in proc.stderr.splitlines() if "hello-dropout" in line]
    assert len(clash) == 1 and "robust-hello 0.1.0" in clash[0] and "robust-clash 2.0.0" in clash[0]
    assert {e["qualified"] for e in entries if e.get("name") == "hello-dropout"} == {
        "robust-hello:hello-dropout", "robust-clash:hello-dropout"}
    run = cli("run", "--bench", "hello-dropout", "--model", "keywords", site=site)
    assert run.returncode == 1 and "benchmark name 'hello-dropout' is ambiguous: registered by" in run.stderr
    assert "robust-hello:hello-dropout (robust-hello 0.1.0)" in run.stderr.splitlines()[-1]
    qualified = cli("run", "--bench", "robust-hello:hello-dropout", "--model", "keywords", "--quiet", site=site)
    assert qualified.returncode == 0, qualified.stderr


def test_a_third_party_transform_never_joins_a_built_in_group(plugin_site, monkeypatch):
    plugins.load_plugins()  # first: the site's own entry point must not load into this process for later tests
    monkeypatch.syspath_prepend(str(plugin_site("robust-clash")))
    import robust_clash

    with _Registered(robust_clash, "clash-test") as registry:
        _assert_groups_are_built_in(registry)


def _assert_groups_are_built_in(registry):
    assert registry.get("transform", "typo-X").origin == "robust-test 9.9"
    assert [s.transform.name for s in attack_specs(["typo"], registry)] == ["typo-G", "typo-M"]
    assert [s.transform.name for s in attack_specs(["all"], registry)] == sorted(
        e.name for e in registry if e.kind == "transform" and e.distribution == "robust" and e.target.dimension)
    assert attack_specs(["typo-X"], registry)[0].transform.distribution == "robust-test"


def test_load_plugins_allow_list(cli, plugin_site):
    site = plugin_site("robust-hello", "robust-clash")
    _, entries = _listed(cli, site, env={"ROBUST_LOAD_PLUGINS": "robust-hello"})
    names = {e["name"] for e in entries}
    assert "hello-dropout" in names and "accuracy" in names  # built-ins always load
    _, entries = _listed(cli, site, env={"ROBUST_LOAD_PLUGINS": ""})
    assert "hello-dropout" not in {e["name"] for e in entries}


def test_trace_plugins_prints_hook_calls(cli, plugin_site):
    site = plugin_site("robust-hello")
    proc = cli("list", "models", site=site, env={"ROBUST_TRACE_PLUGINS": "1"})
    assert "[robust plugins] loaded hello from robust-hello 0.1.0" in proc.stderr
    assert "hello registered model 'keywords'" in proc.stderr


def test_list_plugins_shows_hooks_and_versions(cli, plugin_site):
    proc, entries = _listed(cli, plugin_site("robust-hello"), "plugins")
    hello = next(p for p in entries if p["name"] == "hello")
    assert hello["version"] == "0.1.0"
    assert hello["hooks"] == ["register_benchmarks", "register_models", "register_transforms"]
    assert hello["status"] == "ok"


def test_list_does_not_import_torch(tmp_path):
    import subprocess

    code = ("import sys\nfrom robust import cli\ntry:\n    cli.main(['list'])\nexcept SystemExit:\n    pass\n"
            "print('TORCH' if 'torch' in sys.modules or 'transformers' in sys.modules else 'CLEAN')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip().splitlines()[-1] == "CLEAN", proc.stderr


# --- one test per hook (datasette's rule, enforced below) -----------------------------------------
class _Registered:
    """Registers a plugin object in-process and removes it afterwards."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __enter__(self):
        plugins.register_plugin(self.module, self.name, "robust-test", "9.9")
        return plugins.get_registry()

    def __exit__(self, *exc):
        plugins.unregister_plugin(self.name)


def test_hook_register_benchmarks():
    class Bench(Benchmark):
        name, description = "t-bench", "a test benchmark"

        def items(self, ctx):
            return []

        def run_batch(self, items, ctx):
            return []

        def reduce(self, records, ctx):
            return Result()

    class P:
        @hookimpl
        def register_benchmarks(register):
            register(Bench)

    with _Registered(P, "p-bench") as reg:
        entry = reg.get("benchmark", "t-bench")
        assert entry.origin == "robust-test 9.9" and isinstance(entry.create(), Bench)


def test_hook_register_transforms():
    class Shout(Transform):
        name, description = "t-shout", "upper-case everything"

        def apply(self, example, degree, rng):
            return [example.with_text(example.text.upper())]

        def measure(self, original, perturbed):
            return float(original != perturbed)

    class P:
        @hookimpl
        def register_transforms(register):
            register(Shout())

    with _Registered(P, "p-transform") as reg:
        shout = reg.get("transform", "t-shout").create()
        assert shout.apply(Example("1", "hi there"), 0.1, None)[0].text == "HI THERE"
        assert attack_specs(["t-shout"], reg)[0].transform.name == "t-shout"


def test_hook_register_attackers():
    class Always(RecipeAttacker):
        name, description = "t-always", "claims success without a query"

        def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
            return [AttackResult(ex.text, ex.text + "!", True, 0, "succeeded") for ex in examples]

    class P:
        @hookimpl
        def register_attackers(register):
            register(Always)

    with _Registered(P, "p-attacker") as reg:
        spec = attack_specs(["t-always"], reg)[0]
        assert spec.attacker.name == "t-always" and spec.transform is None
        assert spec.attacker.create().attack([Example("1", "hi")], None)[0].perturbed == "hi!"
        combo = attack_specs(["t-always:typo"], reg)
        assert [(s.attacker.name, s.transform.name) for s in combo] == [("t-always", "typo-G"), ("t-always", "typo-M")]


def test_hook_register_resources(tmp_path):
    class Notes(Resource):
        name, description = "t-notes", "a notes file"

        def path(self):
            return tmp_path / "notes.txt"

        def setup(self):
            self.path().write_text("hi")
            return "notes -> ready"

    class P:
        @hookimpl
        def register_resources(register):
            register(Notes)

    with _Registered(P, "p-resource") as reg:
        from robust.core.errors import MissingResource

        notes = reg.get("resource", "t-notes").create()
        with pytest.raises(MissingResource, match="run `robust setup t-notes` once"):
            notes.locate()
        assert notes.setup() == "notes -> ready" and notes.locate().read_text() == "hi"


def test_hook_register_models():
    class Echo(ModelAdapter):
        name, description = "t-echo", "length as a one-dimensional embedding"
        capabilities = frozenset({"embed"})

        def _embed(self, texts, pooling):
            import numpy as np

            return [np.array([len(t)], dtype=float) for t in texts]

    class P:
        @hookimpl
        def register_models(register):
            register(Echo)

    with _Registered(P, "p-model") as reg:
        model = reg.model("t-echo:variant")
        assert model.identity == "t-echo:variant"
        assert model.embed(["ab", "abcd", "ab"]).tolist() == [[2.0], [4.0], [2.0]]
        assert model.queries == 2  # the repeated text came from the cache


def test_a_module_registers_every_hook_routine_it_holds_and_nothing_else():
    """A plugin module is registered as its hook implementations alone: a function, one imported from elsewhere
    and a bound method all count (as pluggy counts routines); its other names are never touched, not even a lazy
    object whose attributes would import something."""
    import types

    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError(f"registration touched .{name} of a module attribute")

    class Holder:
        @hookimpl
        def register_datasets(self, register):
            register(Lines)

    class Lines(DataGenerator):
        name, description = "t-lines", "two fixed lines"

        def examples(self, seed=0):
            yield from (Example(id=str(i), text=t) for i, t in enumerate(["a", "b"]))

    @hookimpl
    def register_scorers(register):
        pass

    module = types.ModuleType("robust_test_routines")
    module.register_datasets = Holder().register_datasets  # a bound method
    module.register_scorers = register_scorers
    module.lazy, module.np_like = Untouchable(), Untouchable()
    with _Registered(module, "p-routines") as reg:
        assert reg.get("dataset", "t-lines").plugin == "p-routines"
        hooks = {c.name for c in plugins.pm.get_hookcallers(plugins.pm.get_plugin("p-routines"))}
        assert hooks == {"register_datasets", "register_scorers"}
        with pytest.raises(ValueError, match="already registered as plugin 'p-routines'"):
            plugins.register_plugin(module, "p-again")


def test_hook_register_datasets():
    class Numbers(DataGenerator):
        name, description = "t-numbers", "three numbered examples"

        def examples(self, seed=0):
            return iter(Example(str(i), f"text {i}", i % 2) for i in range(3))

    class P:
        @hookimpl
        def register_datasets(register):
            register(Numbers)

    with _Registered(P, "p-data") as reg:
        assert [e.text for e in reg.get("dataset", "t-numbers").create().examples()] == ["text 0", "text 1", "text 2"]


def test_hook_register_scorers():
    class Length(Scorer):
        name, description = "t-length", "words per text"
        inputs = frozenset({"text"})

        def values(self, rows, model=None):
            return [len(r["text"].split()) for r in rows]

    class P:
        @hookimpl
        def register_scorers(register):
            register(Length)

    with _Registered(P, "p-scorer") as reg:
        rows = [{"text": "a b"}, {"text": "a b c d"}]
        assert reg.get("scorer", "t-length").create().score(rows) == {"t-length": 3.0, "t-length_n": 2.0}


def test_hook_register_commands(cli, tmp_path):
    site = tmp_path / "cmdsite"
    site.mkdir()
    (site / "robust_cmd.py").write_text(
        "import robust\n\n@robust.hookimpl\ndef register_commands(app):\n"
        "    @app.command()\n    def hello(name: str):\n        print(f'hello {name}')\n"
    )
    dist = site / "robust_cmd-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: robust-cmd\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[robust]\ncmd = robust_cmd\n")
    proc = cli("hello", "world", site=site)
    assert proc.returncode == 0 and proc.stdout.strip() == "hello world"


def test_register_rejects_wrong_kind():
    class NotAModel:
        name, kind = "x", "benchmark"

    class P:
        @hookimpl
        def register_models(register):
            register(NotAModel)

    with _Registered(P, "p-wrong") as reg:
        assert any("NotAModel is not a model plugin" in w for w in reg.warnings)


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_test(hook):
    assert f"test_hook_{hook}" in globals(), f"hook {hook} has no test_hook_{hook}"


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    docs = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
    assert f"### {hook}(" in docs, f"docs/plugins.md has no section for {hook}"
