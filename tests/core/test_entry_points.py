"""The entry-point cache: read back while the installed distributions are unchanged, scanned again as soon as one
is added, edited or removed, and never wrong about what `importlib.metadata` would find."""

from __future__ import annotations

import json
import sys
from importlib import metadata

import pytest

from robust.core import entry_points
from robust.core.entry_points import PluginPoint, plugin_points

GROUP = "robust"


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path to install fake distributions into, and a cache of this test's own."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(folder))
    return folder


def install(site, dist: str, points: dict[str, str], version: str = "1.0") -> None:
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))


def mine(points: list[PluginPoint]) -> set[tuple[str, str, str, str]]:
    return {(p.name, p.value, p.distribution, p.version) for p in points if p.distribution.startswith("fake")}


@pytest.fixture
def scans(monkeypatch):
    """How many times the installed distributions were scanned."""
    count = {"n": 0}
    real = entry_points.scan

    def counted(group):
        count["n"] += 1
        return real(group)

    monkeypatch.setattr(entry_points, "scan", counted)
    return count


def test_the_cache_is_read_back_until_a_distribution_changes(site, scans):
    install(site, "fake_one", {"one": "fake_one_mod"})
    assert mine(plugin_points(GROUP)) == {("one", "fake_one_mod", "fake-one", "1.0")}
    assert mine(plugin_points(GROUP)) == {("one", "fake_one_mod", "fake-one", "1.0")}
    assert scans["n"] == 1  # the second call read the cache

    install(site, "fake_two", {"two": "fake_two_mod:plugin"})  # installed: seen at once, however soon
    assert mine(plugin_points(GROUP)) == {("one", "fake_one_mod", "fake-one", "1.0"),
                                          ("two", "fake_two_mod:plugin", "fake-two", "1.0")}
    install(site, "fake_two", {"two": "fake_two_mod:plugin", "more": "fake_two_mod.sub"})  # edited in place
    assert ("more", "fake_two_mod.sub", "fake-two", "1.0") in mine(plugin_points(GROUP))
    for path in (site / "fake_one-1.0.dist-info").iterdir():  # uninstalled
        path.unlink()
    (site / "fake_one-1.0.dist-info").rmdir()
    assert {p[0] for p in mine(plugin_points(GROUP))} == {"two", "more"}
    assert scans["n"] == 4
    assert mine(plugin_points(GROUP)) == mine(entry_points.scan(GROUP))


def test_it_finds_what_importlib_metadata_finds(site):
    install(site, "fake_three", {"three": "fake_three_mod:plugin"}, version="2.5")
    expected = {(ep.name, ep.value) for ep in metadata.entry_points(group=GROUP)}
    for _ in range(2):  # scanned, then cached
        assert {(p.name, p.value) for p in plugin_points(GROUP)} == expected


def test_a_broken_cache_is_rebuilt_and_other_paths_are_kept(site, scans, tmp_path, monkeypatch):
    install(site, "fake_one", {"one": "fake_one_mod"})
    plugin_points(GROUP)
    (file,) = (tmp_path / "cache").glob("entry-points-*.json")
    file.write_text("{not json")
    assert mine(plugin_points(GROUP)) == {("one", "fake_one_mod", "fake-one", "1.0")}
    assert json.loads(file.read_text())["format"] == entry_points._FORMAT
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.syspath_prepend(str(other))  # another sys.path: a cache of its own, the first one kept
    plugin_points(GROUP)
    assert len(list((tmp_path / "cache").glob("entry-points-*.json"))) == 2
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(other)])
    before = scans["n"]
    plugin_points(GROUP)
    assert scans["n"] == before


def test_the_cache_can_be_turned_off(site, scans, tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUST_PLUGIN_CACHE", "0")
    plugin_points(GROUP)
    plugin_points(GROUP)
    assert scans["n"] == 2
    assert not list((tmp_path / "cache").glob("entry-points-*"))


@pytest.mark.parametrize("value", ["json", "json:dumps", "os:path.join", "json:dumps [extra]"])
def test_a_point_loads_what_importlib_metadata_loads(value):
    expected = metadata.EntryPoint(name="x", value=value, group=GROUP).load()
    assert PluginPoint("x", value, "d", "1").load() is expected
