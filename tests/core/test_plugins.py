"""Plugin discovery through real distributions, isolation of broken plugins, duplicates, env controls."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from robust.core import plugins
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import Benchmark, DataGenerator, Example, ModelAdapter, Scorer, Transform

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
    assert by_name[("model", "keywords")]["distribution"] == "robust-hello"
    assert by_name[("attack", "word-dropout")]["description"].startswith("Delete")
    assert by_name[("benchmark", "accuracy")]["origin"] == "built-in"
    run = cli("run", "--bench", "hello-dropout", "--model", "keywords", "--json", "--quiet", site=site)
    assert run.returncode == 0, run.stderr
    assert 0.0 <= json.loads(run.stdout)["result"]["summary"]["accuracy"] <= 1.0


def test_broken_plugins_are_one_warning_each_and_siblings_work(cli, plugin_site):
    site = plugin_site("robust-hello", "robust-broken")
    proc, entries = _listed(cli, site)
    assert proc.returncode == 0
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "robust-broken" in warnings[0] and "a_module_that_does_not_exist" in warnings[0]
    assert {"hello-dropout", "accuracy"} <= {e["name"] for e in entries}


def test_duplicate_names_are_an_error_naming_both_distributions(cli, plugin_site):
    site = plugin_site("robust-hello", "robust-clash")
    proc, entries = _listed(cli, site)
    assert proc.returncode == 1
    assert "robust-hello 0.1.0" in proc.stderr and "robust-clash 2.0.0" in proc.stderr
    assert "hello-dropout" not in {e["name"] for e in entries}  # ambiguous: listed nowhere
    assert "failed in register_attacks" in proc.stderr  # the clash plugin's broken hook is isolated too
    assert "word-dropout" in {e["name"] for e in entries}
    run = cli("run", "--bench", "hello-dropout", "--model", "keywords", site=site)
    assert run.returncode == 1 and "registered by both" in run.stderr


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
    assert "register_models: hello registered model 'keywords'" in proc.stderr


def test_list_plugins_shows_hooks_and_versions(cli, plugin_site):
    proc, entries = _listed(cli, plugin_site("robust-hello"), "plugins")
    hello = next(p for p in entries if p["name"] == "hello")
    assert hello["version"] == "0.1.0"
    assert hello["hooks"] == ["register_attacks", "register_benchmarks", "register_models"]


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

    class P:
        @hookimpl
        def register_benchmarks(register):
            register(Bench)

    with _Registered(P, "p-bench") as reg:
        entry = reg.get("benchmark", "t-bench")
        assert entry.origin == "robust-test 9.9" and isinstance(entry.create(), Bench)


def test_hook_register_attacks():
    class Shout(Transform):
        name, description = "t-shout", "upper-case everything"

        def apply(self, example, degree, rng):
            return [example.with_text(example.text.upper())]

    class P:
        @hookimpl
        def register_attacks(register):
            register(Shout())

    with _Registered(P, "p-attack") as reg:
        shout = reg.get("attack", "t-shout").create()
        assert shout.apply(Example("1", "hi there"), 0.1, None)[0].text == "HI THERE"


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
    class Mean(Scorer):
        name, description = "t-mean", "mean of values"

        def score(self, values):
            return {"mean": sum(values) / len(values)}

    class P:
        @hookimpl
        def register_scorers(register):
            register(Mean)

    with _Registered(P, "p-scorer") as reg:
        assert reg.get("scorer", "t-mean").create().score([1, 2, 3]) == {"mean": 2.0}


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
        assert any("not a named model plugin" in w for w in reg.warnings)


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_test(hook):
    assert f"test_hook_{hook}" in globals(), f"hook {hook} has no test_hook_{hook}"


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    docs = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
    assert f"### {hook}(" in docs, f"docs/plugins.md has no section for {hook}"
