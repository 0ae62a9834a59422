"""Settings schema, seeding, the output cache, the store's run lifecycle, the data path and gold labels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from robust import load_examples
from robust.core.batching import OutputCache, entry_bytes
from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.labels import label_index
from robust.core.plugins import get_registry
from robust.core.seeding import derive_seed, rng_for
from robust.core.settings import Setting, parse_assignments, resolve_settings
from robust.engine.store import Counted, Store


def test_settings_are_parsed_to_the_declared_type_and_checked():
    schema = {"n": Setting(10, min=1), "threshold": Setting(0.7, min=0.0, max=1.0), "mode": Setting(
        "clean", choices=("clean", "faithful")), "trace": False, "degrees": Setting([0.1, 0.2], min=0.0, max=1.0)}
    got = resolve_settings("b", schema, {"n": "8192", "threshold": "0.5", "trace": "yes", "degrees": "0,0.5"})
    assert got == {"n": 8192, "threshold": 0.5, "mode": "clean", "trace": True, "degrees": [0.0, 0.5]}
    assert resolve_settings("b", schema, {"threshold": 1})["threshold"] == 1.0  # an int is a float
    bad = [({"n": "many"}, "expected int"), ({"n": "1.5"}, "expected int"), ({"n": 1.5}, "expected int"),
           ({"n": True}, "expected int"), ({"n": "0"}, r"expected int, in \[1, inf\]"),
           ({"threshold": "5"}, r"in \[0, 1\]"), ({"threshold": "nan"}, "finite"), ({"mode": "cleen"},
           "did you mean 'clean'"), ({"degrees": "0.1,1.5"}, r"in \[0, 1\]"), ({"trace": "maybe"}, "true or false"),
           ({"treshold": "1"}, r"unknown setting 'treshold' for b \(did you mean 'threshold'\?\); known: degrees")]
    for given, message in bad:
        with pytest.raises(RobustError, match=message):
            resolve_settings("b", schema, given)
    assert parse_assignments(["a=1", "b = x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(RobustError, match="expected key=value"):
        parse_assignments(["novalue"])


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

    entry = entry_bytes("a", np.zeros(100))  # 800 bytes of output, its one-letter input and the entry's own
    cache = OutputCache(max_bytes=3 * entry)
    fn = lambda batch: [np.zeros(100) for _ in batch]
    cache.map(("k",), ["a", "b", "c"], fn, 8)
    cache.map(("k",), ["a"], fn, 8)  # touch a: b is now the oldest
    cache.map(("k",), ["d"], fn, 8)
    assert cache.bytes <= 3 * entry and cache.misses == 4
    cache.map(("k",), ["a", "c", "d"], fn, 8)
    assert cache.misses == 4  # all still cached
    cache.map(("k",), ["b"], fn, 8)
    assert cache.misses == 5  # b was evicted


def test_output_cache_counts_the_memory_its_entries_hold():
    """The bound is on what the entries really hold (traced by tracemalloc), not on the outputs' data alone: a
    classify row's 16 bytes were counted for ~450 (its text, the key, the dict's slot, the row's array header), so
    a full cache held ~30 times its bound."""
    import gc
    import tracemalloc

    import numpy as np

    cache = OutputCache()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        texts = [f"a typical movie review sentence, number {i} of them" for i in range(20_000)]
        cache.map(("classify",), texts, lambda batch: list(np.random.default_rng(0).random((len(batch), 2))), 64)
        del texts  # the cache is now their only holder, as in a run
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.8 <= cache.bytes / held <= 1.5, (cache.bytes, held)


@pytest.mark.parametrize(("value", "expected"), [("", 2**30), ("4096", 4096), ("512MiB", 512 * 2**20), ("2GiB", 2**31)])
def test_the_cache_bound_is_read_from_robust_cache_bytes(value, expected, monkeypatch):
    monkeypatch.setenv("ROBUST_CACHE_BYTES", value)
    assert OutputCache().max_bytes == expected


@pytest.mark.parametrize("value", ["0", "1.5GiB", "10MB", "lots"])
def test_a_bad_cache_bound_is_one_line(value, monkeypatch):
    monkeypatch.setenv("ROBUST_CACHE_BYTES", value)
    with pytest.raises(RobustError, match=rf"^ROBUST_CACHE_BYTES must be a number of bytes .*, not '{value}'$"):
        OutputCache()


def test_store_commits_records_once_and_ends_runs_with_counters(tmp_path):
    store = Store(tmp_path / "r.db")
    run_id = store.create_run("b", "m", {"seed": 1}, {"versions": {}}, "me")
    store.add_records(run_id, "me", [("i1", {"x": 1}), ("i2", {"x": 2})], Counted(3, 0.25))
    store.add_records(run_id, "me", [("i2", {"x": 99}), ("i3", {"x": 3})])
    assert store.records(run_id) == {"i1": {"x": 1}, "i2": {"x": 2}, "i3": {"x": 3}}
    assert store.get(run_id[:12]).id == run_id and store.get("latest").status == "running"
    assert store.get(run_id).peak_mb is None  # no process said its peak memory yet
    store.end(run_id, "me", "interrupted", Counted(7, 1.25, 310.5), "stopped")
    with pytest.raises(RobustError, match="taken over by another process"):  # the lease is gone: no more records
        store.add_records(run_id, "me", [("i4", {"x": 4})])
    assert store.latest_resumable().id == run_id
    store.acquire(run_id, "me-again")
    store.add_records(run_id, "me-again", [("i4", {"x": 4})], Counted(0, 0.0, 420.0))  # a larger worker's peak
    store.end(run_id, "me-again", "finished", Counted(5, 0.5, 200.0), result={"summary": {"a": 1}})
    run = Store(tmp_path / "r.db").get(run_id)
    assert (run.status, run.result, run.queries, run.seconds, run.error) == ("finished", {"summary": {"a": 1}},
                                                                              15, 2.0, None)
    assert run.peak_mb == 420.0 and run.queries_per_second == 7.5  # the largest peak of any process; 15 / 2 s
    assert run.to_json()["peak_memory_mb"] == 420.0
    with pytest.raises(RobustError, match="no interrupted or failed run"):
        store.latest_resumable()


def test_run_references_are_exact_prefix_or_latest_never_patterns(tmp_path):
    store = Store(tmp_path / "r.db")
    a = store.create_run("bench_x", "m", {}, {}, "o")
    for ref in ("%", "_", a[:3] + "%", "2%1"):
        with pytest.raises(RobustError, match="no run"):
            store.get(ref)
    assert store.get(a).id == a and store.get(a[:-2]).id == a


def test_a_dead_holder_is_found_and_a_live_one_refuses_a_second_resume(tmp_path):
    store = Store(tmp_path / "r.db")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    import socket

    run_id = store.create_run("b", "m", {}, {}, f"{socket.gethostname()}:{dead.stdout.strip()}:x")
    run = store.get(run_id)  # any command reaps runs whose holder is gone
    assert run.status == "interrupted" and "stale lease" in run.error
    store.acquire(run_id, f"{socket.gethostname()}:{os.getpid()}:live")
    with pytest.raises(RobustError, match="being computed by another process"):
        store.acquire(run_id, f"{socket.gethostname()}:{os.getpid()}:second")



def test_a_resume_of_a_run_another_process_holds_is_refused_before_any_model_loads(tmp_path, monkeypatch):
    import socket

    import numpy as np

    import robust
    from robust.engine.runner import Runner

    def fn(texts):
        return np.array([[0.3, 0.7] for _ in texts])

    rows = [{"text": f"text {i}", "label": i % 2} for i in range(4)]
    run = robust.run("accuracy", model=fn, data=rows, store=tmp_path / "r.db")
    store = Store(tmp_path / "r.db")
    store._exec("UPDATE runs SET status = 'interrupted' WHERE id = ?", (run.id,))
    store.acquire(run.id, f"{socket.gethostname()}:{os.getpid()}:live")  # a live process computes it
    monkeypatch.setattr(Runner, "build", lambda *a, **k: pytest.fail("the model was built for a refused resume"))
    with pytest.raises(RobustError, match="being computed by another process"):
        robust.run(resume=run.id, model=fn, store=tmp_path / "r.db")

def test_store_paths_and_corrupt_files_are_one_line_errors(tmp_path):
    with pytest.raises(RobustError, match="directory .* does not exist"):
        Store(tmp_path / "missing" / "r.db")
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database at all, just bytes" * 100)
    with pytest.raises(RobustError, match=f"{bad} is not a usable robust run store"):
        Store(bad)
    other = tmp_path / "other.db"  # another program's database is refused and left exactly as it was
    import sqlite3

    db = sqlite3.connect(other)
    db.execute("CREATE TABLE people (name TEXT)")
    db.commit()
    db.close()
    before = other.read_bytes()
    with pytest.raises(RobustError, match=r"its tables \(people\) are not a run store's"):
        Store(other)
    assert other.read_bytes() == before
    (tmp_path / "empty.db").touch()  # an empty file becomes a store
    assert Store(tmp_path / "empty.db").runs() == []


def test_deleting_runs_removes_their_records_and_refuses_a_live_run(tmp_path):
    store = Store(tmp_path / "r.db")
    done = store.create_run("b", "m", {}, {}, "o")
    store.add_records(done, "o", [("i", {})])
    store.end(done, "o", "failed", error="boom")
    live = store.create_run("b", "m", {}, {}, f"{__import__('socket').gethostname()}:{os.getpid()}:x")
    store.delete([done])
    assert [r.id for r in store.runs()] == [live] and store.records(done) == {}
    with pytest.raises(RobustError, match="is running"):
        store.delete([live])


def _ctx():
    return RunContext("", 0, None, get_registry())


@pytest.mark.parametrize("name,content,message", [
    ("a.jsonl", '{"text": "ok", "label": 1}\n{"text": "ok", "label": \n', "a.jsonl:2: not valid JSON"),
    ("b.jsonl", '{"txt": "ok", "label": 1}\n', "b.jsonl:1: missing column 'text'"),
    ("c.csv", "text,label\nfine,1\n   ,0\n", "c.csv:3: empty or non-text value"),
    ("d.tsv", "text\tlabel\nfine\t1\nalso fine\t7\n", "d.tsv:3: unknown label '7'"),
    ("e.doc", "hello\n", "unsupported data format .doc"),
    ("f.csv", "text,label\nfine,1,extra\n", "f.csv:2: more fields"),
    ("g.jsonl", '{"text": "ok", "label": 1.0}\n', "g.jsonl:1: label 1.0 is a float"),
    ("h.jsonl", '{"text": "ok", "label": true}\n', "h.jsonl:1: label True is a bool"),
    ("i.jsonl", '{"text": "ok", "label": 1}\n{"text": "' + "x" * 300 + '", "label": 0}\n',
     "i.jsonl:2: line longer than 200 characters"),
    ("j.csv", 'text,label\n"' + "y" * 300 + '",1\n', "j.csv:2: line longer than 200"),
    ("k.jsonl", "", "k.jsonl: no examples"),
    # each label is checked once: True after a valid 1 (equal, but a bool), a list after valid ones
    ("l.jsonl", '{"text": "a", "label": 1}\n{"text": "b", "label": 1}\n{"text": "c", "label": true}\n',
     "l.jsonl:3: label True is a bool"),
    ("m.jsonl", '{"text": "a", "label": 1}\n{"text": "b", "label": [1]}\n', "m.jsonl:2: label \\[1\\] is a list"),
])
def test_malformed_data_names_file_and_line(tmp_path, monkeypatch, name, content, message):
    monkeypatch.setenv("ROBUST_MAX_CHARS", "200")
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(RobustError, match=message.replace("(", r"\(")):
        load_examples(str(path), _ctx(), labels=["0", "1"])


def test_bytes_that_are_not_utf8_name_their_line(tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"text": "fine", "label": 1}\n{"text": "caf\xe9", "label": 0}\n')
    with pytest.raises(RobustError, match=r"latin.jsonl:2: not UTF-8 \(byte 0xe9"):
        load_examples(str(path), _ctx())


def test_a_huge_line_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("w") as f:
        f.write("x" * 5_000_000)
    data = _ctx().open_data(str(path), label_column="", max_chars=1000)
    import tracemalloc

    tracemalloc.start()
    with pytest.raises(RobustError, match="huge.txt:1: line longer than 1,000"):
        list(data.examples())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1_000_000


def test_data_loads_jsonl_csv_text_and_saved_hf_directories(tmp_path):
    rows = [{"sentence": "good film", "y": 1}, {"sentence": "bad film", "y": 0}]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "d.csv").write_text("sentence,y\ngood film,1\nbad film,0\n")
    (tmp_path / "d.txt").write_text("First para\nline two.\n\nSecond para.\n")
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "hf"))
    for source in ("d.jsonl", "d.csv", "hf"):
        examples = load_examples(str(tmp_path / source), _ctx(), text_column="sentence", label_column="y")
        assert [(e.text, str(e.label)) for e in examples] == [("good film", "1"), ("bad film", "0")]
    paragraphs = load_examples(str(tmp_path / "d.txt"), _ctx(), labelled=False)
    assert [(e.id, e.text) for e in paragraphs] == [("000001", "First para line two."), ("000004", "Second para.")]
    lines = list(_ctx().open_data(str(tmp_path / "d.txt"), per_line=True).examples())
    assert [e.text for e in lines] == ["First para", "line two.", "Second para."]


def test_files_are_read_by_the_registered_file_dataset_with_declared_settings(tmp_path):
    """`--data PATH` is the built-in `file` dataset (registered like a third party's, listed by `robust list
    datasets`), configured by its declared settings: what a benchmark passes, or the user's `--set file.KEY=V`."""
    from tests.core.conftest import in_process

    entry = get_registry().get("dataset", "file")
    assert entry.distribution == "robust" and entry.plugin == "datasets"
    assert entry.settings == {"path": "", "text_column": "text", "label_column": "label", "per_line": False,
                              "max_chars": 0}
    code, out, _ = in_process("list", "datasets", "--json")
    assert code == 0 and "file" in {row["name"] for row in json.loads(out)}
    path = tmp_path / "d.jsonl"
    path.write_text('{"sentence": "good film", "y": "1"}\n{"sentence": "bad film", "y": "0"}\n')
    by_benchmark = _ctx().open_data(str(path), text_column="sentence", label_column="y")
    assert by_benchmark.name == "file" and by_benchmark.config["path"] == str(path)
    by_user = RunContext("", 0, None, get_registry(), plugin_settings={"file": {"text_column": "sentence",
                                                                                "label_column": "y"}})
    by_name = by_user.open_data("file")  # --data file: its path from --set file.path=...
    with pytest.raises(RobustError, match=r"dataset 'file' needs a path: --data PATH"):
        list(by_name.examples())
    for data in (by_benchmark, by_user.open_data(str(path)),
                 by_user.create("dataset", "file", path=str(path))):
        assert [(e.id, e.text, e.label) for e in data.examples()] == [("000001", "good film", "1"),
                                                                      ("000002", "bad film", "0")]
    with pytest.raises(RobustError, match=r"unknown setting 'text_colum' for file \(did you mean 'text_column'\?\)"):
        _ctx().open_data(str(path), text_colum="sentence")
    with pytest.raises(RobustError, match=r"d.jsonl:1: missing column 'text' \(columns: sentence, y\); name yours "
                                          r"with --set text_column=NAME \(from Python: settings="):
        load_examples(str(path), _ctx())
    # the user's --set file.KEY=VALUE wins over what a benchmark passes (its own text_column default)
    assert [e.text for e in by_user.open_data(str(path), text_column="text", label_column="label").examples()] == [
        "good film", "bad film"]


def test_a_users_file_settings_reach_a_benchmark_run(tmp_path):
    """`file.text_column` (`--set file.text_column=...`) names a CSV's columns for a benchmark that has its own
    `text_column` setting (accuracy's default "text" used to override it, silently); without it the error says
    which setting names the column."""
    import robust

    path = tmp_path / "reviews.csv"
    path.write_text("review,sentiment\ngood film,1\nbad film,0\n")

    def model(texts):
        return np.array([[0.2, 0.8] if "good" in t else [0.9, 0.1] for t in texts])

    fn = robust.FunctionModel(model, "classify", labels=["0", "1"])
    with pytest.raises(RobustError, match=r"reviews.csv:2: missing column 'text' \(columns: review, sentiment\); "
                                          r"name yours with --set text_column=NAME"):
        robust.run("accuracy", model=fn, data=str(path), store=tmp_path / "r.db", progress=False)
    run = robust.run("accuracy", model=fn, data=str(path), store=tmp_path / "r.db", progress=False,
                     settings={"file.text_column": "review", "file.label_column": "sentiment"})
    assert run.summary["accuracy"] == 1.0 and run.summary["n"] == 2


def test_gold_labels_map_to_class_indices_by_name_or_index_and_nothing_else():
    named = SimpleNamespace(labels=["negative", "positive"], identity="m")
    generic = SimpleNamespace(labels=["LABEL_0", "LABEL_1"], identity="m")
    assert label_index(named, "positive") == 1 and label_index(generic, "1") == 1 and label_index(generic, 0) == 0
    assert label_index(SimpleNamespace(labels=None, identity="m"), "3") == 3
    for model, label, message in [(named, "neutral", "unknown label 'neutral'"), (generic, 2, "unknown label 2"),
                                  (generic, 1.0, "is a float"), (generic, True, "is a bool"),
                                  (named, "-1", "unknown label '-1'")]:
        with pytest.raises(RobustError, match=message):
            label_index(model, label)
