"""`robust list` from its cache: the same output as a listing collected afresh, without importing the plugins;
collected again as soon as a plugin's code or the installed distributions change; a resource's readiness asked
every time; never cached with a broken plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ASKED = [("list",), ("list", "--json"), ("list", "attacks", "--all"), ("list", "resources", "--json")]


@pytest.fixture
def listing(cli, tmp_path):
    """`robust list ARGS` with a cache of the test's own; `cached=False` turns the cache off."""

    def run(*args, site=None, cached=True):
        env = {"ROBUST_CACHE": str(tmp_path / "cache"), **({} if cached else {"ROBUST_PLUGIN_CACHE": "0"})}
        proc = cli(*args, site=site, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout + proc.stderr

    return run


def modules_after_list(tmp_path, site) -> set[str]:
    """The modules `robust list` leaves imported, in a fresh interpreter with the test's cache and site."""
    env = {**os.environ, "ROBUST_CACHE": str(tmp_path / "cache"), "ROBUST_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    code = ("import sys\nfrom robust.launcher import main\nmain(['list'])\n"
            "print(sorted(sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return set(eval(proc.stdout.strip().splitlines()[-1]))


def test_a_cached_listing_is_the_listing_and_imports_no_plugin(listing, plugin_site, tmp_path):
    site = plugin_site("robust-hello", "robust-example")
    first = modules_after_list(tmp_path, site)  # collected (and cached)
    assert "robust.plugins.benchmarks.robtest.benchmark" in first and "robust_hello" in first
    cached = modules_after_list(tmp_path, site)
    assert "robust.plugins.benchmarks.robtest.benchmark" not in cached and "robust_hello" not in cached
    assert "robust.plugins.resources" in cached  # asked for its resources' readiness
    for args in ASKED:
        assert listing(*args, site=site) == listing(*args, site=site, cached=False), args


def test_editing_a_plugin_or_installing_one_shows_at_once(listing, plugin_site):
    site = plugin_site("robust-hello")
    assert "hello-dropout" in listing("list", "benchmarks", site=site)
    module = site / "robust_hello.py"
    module.write_text(module.read_text().replace('description = "', 'description = "EDITED '))
    assert "EDITED" in listing("list", "benchmarks", site=site)
    plugin_site("robust-example")  # another distribution into the same site
    assert "keyword-lexicon" in listing("list", "resources", site=site)


def test_a_resource_is_asked_whether_it_is_ready_at_every_listing(listing, plugin_site, tmp_path):
    site = plugin_site("robust-example")

    def lexicon():
        entries = json.loads(listing("list", "resources", "--json", site=site))
        return next(e for e in entries if e["name"] == "keyword-lexicon")["ready"]

    assert lexicon() is False
    assert lexicon() is False  # from the cache
    path = tmp_path / "cache" / "robust-example" / "keywords.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("+ good\n")
    assert lexicon() is True


def test_a_broken_plugin_is_never_cached(listing, plugin_site, tmp_path):
    site = plugin_site("robust-broken")
    for _ in range(2):
        assert "Broken plugins" in listing("list", site=site)
    assert not list((tmp_path / "cache").glob("listing-*.json"))
