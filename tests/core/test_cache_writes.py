"""Caches built once per machine (a dequantized model, a fine-tuned victim, a probe head) are published whole: two
processes building the same one at once never write into each other's files, and a reader never sees half of one."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from robust.toolkit.paths import built_in_place, write_whole


def _build(target: str, marker: str, start) -> None:
    from pathlib import Path

    start.wait()
    with built_in_place(Path(target)) as building:
        for i in range(50):  # a build that takes a while, file by file
            (building / f"part-{i}.txt").write_text(marker * 1000)
        (building / "done.json").write_text(json.dumps({"by": marker}))


def test_concurrent_builders_publish_one_whole_folder_and_leave_nothing_behind(tmp_path):
    target = tmp_path / "cache" / "model"
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    builders = [context.Process(target=_build, args=(str(target), marker, start)) for marker in "ab"]
    for process in builders:
        process.start()
    start.set()
    for process in builders:
        process.join(60)
        assert process.exitcode == 0
    by = json.loads((target / "done.json").read_text())["by"]
    assert {p.read_text() for p in target.glob("part-*.txt")} == {by * 1000}  # one builder's files, all of them
    assert len(list(target.iterdir())) == 51
    assert [p.name for p in target.parent.iterdir()] == ["model"]  # the later builder's copy was dropped


def test_a_failed_build_leaves_the_target_as_it_was(tmp_path):
    target = tmp_path / "model"
    with pytest.raises(RuntimeError), built_in_place(target) as building:
        (building / "weights.bin").write_bytes(b"half")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    with built_in_place(target) as building:
        (building / "weights.bin").write_bytes(b"whole")
    with built_in_place(target) as building:  # a second build of a finished cache changes nothing
        (building / "weights.bin").write_bytes(b"other")
    assert (target / "weights.bin").read_bytes() == b"whole" and list(tmp_path.iterdir()) == [target]


def test_write_whole_replaces_a_file_and_leaves_no_temporary(tmp_path):
    file = tmp_path / "head.json"
    write_whole(file, "old")
    write_whole(file, "new")
    assert file.read_text() == "new" and list(tmp_path.iterdir()) == [file]
    write_whole(tmp_path / "missing" / "x.json", "text")  # an unwritable place: nothing written, nothing raised
    assert not (tmp_path / "missing").exists()


def test_a_setup_cache_is_found_again_per_cache_directory(tmp_path, monkeypatch):
    """`pickled.load_cached` (the WordNet index, the pronouncing dictionary: asked per word) loads a cache file once
    per cache directory and finds it again without the file system; another $ROBUST_CACHE is looked up afresh, so a
    missing file there is the one-line MissingResource naming where it was looked for."""
    from robust.core.errors import MissingResource
    from robust.toolkit import pickled

    parts = ("lexicon", "test-cache.pickle")
    first, empty = tmp_path / "first", tmp_path / "empty"
    monkeypatch.setenv("ROBUST_CACHE", str(first))
    pickled.save(first.joinpath(*parts), {"n": 1})
    loaded = pickled.load_cached(parts, dict, "none at {path}")
    (first / "lexicon" / "test-cache.pickle").unlink()
    assert loaded == {"n": 1} and pickled.load_cached(parts, dict, "none at {path}") is loaded
    monkeypatch.setenv("ROBUST_CACHE", str(empty))
    with pytest.raises(MissingResource, match=f"^none at {empty}/lexicon/test-cache.pickle$"):
        pickled.load_cached(parts, dict, "none at {path}")
    monkeypatch.setenv("ROBUST_CACHE", str(first))
    assert pickled.load_cached(parts, dict, "none at {path}") is loaded
