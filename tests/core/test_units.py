"""Settings coercion, seeding, the output cache, the store and dataset loading."""

from __future__ import annotations

import json

import pytest

from robust.core.datasets import load_dataset
from robust.core.errors import RobustError
from robust.core.model_cache import OutputCache
from robust.core.seeding import derive_seed, rng_for
from robust.core.settings import parse_assignments, resolve_settings
from robust.core.store import Store


def test_settings_are_coerced_to_the_default_type():
    defaults = {"n": 10, "threshold": 0.7, "mode": "clean", "trace": False, "degrees": [0.1, 0.2]}
    got = resolve_settings("b", defaults, {"n": "8192", "threshold": "0.5", "trace": "yes", "degrees": "0,0.5"})
    assert got == {"n": 8192, "threshold": 0.5, "mode": "clean", "trace": True, "degrees": [0.0, 0.5]}
    with pytest.raises(RobustError, match="expected int"):
        resolve_settings("b", defaults, {"n": "many"})
    with pytest.raises(RobustError, match="unknown setting 'treshold' for b \\(did you mean 'threshold'\\?\\)"):
        resolve_settings("b", defaults, {"treshold": "1"})
    assert parse_assignments(["a=1", "b = x=y"]) == {"a": "1", "b": "x=y"}


def test_seeds_are_stable_and_label_dependent():
    assert derive_seed(0, "item-1") == derive_seed(0, "item-1")
    assert len({derive_seed(0, "a"), derive_seed(0, "b"), derive_seed(1, "a")}) == 3
    assert rng_for(3, "x").random() == rng_for(3, "x").random()


def test_output_cache_dedupes_and_sorts_by_length():
    calls = []
    cache = OutputCache()

    def fn(batch):
        calls.append(list(batch))
        return [len(x) for x in batch]

    assert cache.map(("k",), ["ccc", "a", "ccc", "bb"], fn, batch_size=2) == [3, 1, 3, 2]
    assert calls == [["a", "bb"], ["ccc"]]
    assert cache.map(("k",), ["a", "dddd"], fn, batch_size=2) == [1, 4] and calls[-1] == ["dddd"]
    assert (cache.hits, cache.misses) == (2, 4)
    assert cache.map(("other",), ["a"], fn, 2) == [1] and cache.misses == 5  # keys are per method


def test_output_cache_is_bounded_by_bytes_least_recently_used_first():
    import numpy as np

    cache = OutputCache(max_bytes=3 * 800)
    fn = lambda batch: [np.zeros(100) for _ in batch]  # 800 bytes each
    cache.map(("k",), ["a", "b", "c"], fn, 8)
    cache.map(("k",), ["a"], fn, 8)  # touch a: b is now the oldest
    cache.map(("k",), ["d"], fn, 8)
    assert cache.bytes <= 2400 and cache.misses == 4
    cache.map(("k",), ["a", "c", "d"], fn, 8)
    assert cache.misses == 4  # all still cached
    cache.map(("k",), ["b"], fn, 8)
    assert cache.misses == 5  # b was evicted


def test_store_commits_records_once(tmp_path):
    store = Store(tmp_path / "r.db")
    run_id = store.create_run("b", "m", {"seed": 1}, {"versions": {}})
    store.add_records(run_id, [("i1", {"x": 1}), ("i2", {"x": 2})])
    store.add_records(run_id, [("i2", {"x": 99}), ("i3", {"x": 3})])
    assert store.records(run_id) == {"i1": {"x": 1}, "i2": {"x": 2}, "i3": {"x": 3}}
    assert store.get(run_id[:12]).id == run_id and store.get("latest").status == "running"
    store.finish(run_id, {"summary": {"a": 1}})
    assert Store(tmp_path / "r.db").get(run_id).result == {"summary": {"a": 1}}


@pytest.mark.parametrize("name,content,message", [
    ("a.jsonl", '{"text": "ok", "label": 1}\n{"text": "ok", "label": \n', "a.jsonl:2: not valid JSON"),
    ("b.jsonl", '{"txt": "ok", "label": 1}\n', "b.jsonl:1: missing column 'text'"),
    ("c.csv", "text,label\nfine,1\n   ,0\n", "c.csv:3: empty text"),
    ("d.tsv", "text\tlabel\nfine\t1\nalso fine\t7\n", "d.tsv:3: unknown label '7'"),
    ("e.txt", "hello\n", "unsupported dataset format .txt"),
    ("f.csv", "text,label\nfine,1,extra\n", "f.csv:2: more fields"),
])
def test_malformed_datasets_name_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(RobustError, match=message.replace("(", r"\(")):
        load_dataset(path, labels=["0", "1"])


def test_datasets_load_jsonl_csv_and_saved_hf_directories(tmp_path):
    rows = [{"sentence": "good film", "y": 1}, {"sentence": "bad film", "y": 0}]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "d.csv").write_text("sentence,y\ngood film,1\nbad film,0\n")
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "hf"))
    for source in ("d.jsonl", "d.csv", "hf"):
        examples = load_dataset(tmp_path / source, text_column="sentence", label_column="y")
        assert [(e.text, str(e.label)) for e in examples] == [("good film", "1"), ("bad film", "0")]


def test_gold_labels_map_to_class_indices_by_name_or_index():
    from types import SimpleNamespace

    from robust.core.labels import label_index

    named = SimpleNamespace(labels=["negative", "positive"])
    generic = SimpleNamespace(labels=["LABEL_0", "LABEL_1"])
    assert label_index(named, "positive") == 1 and label_index(generic, "1") == 1 and label_index(generic, 0) == 0
    assert label_index(SimpleNamespace(), "3") == 3
    with pytest.raises(RobustError, match="not one of the model's labels"):
        label_index(named, "neutral")
    with pytest.raises(RobustError, match="label 2"):
        label_index(generic, 2)
