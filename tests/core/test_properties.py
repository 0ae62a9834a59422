"""Property-based tests (hypothesis) of what users type and feed: `robust run` arguments and settings, run
references, and malformed JSONL/CSV files. Every case ends either in a finished run or with a non-zero exit, at
most two lines on stderr, no traceback, and the run store byte-identical. The CLI runs in-process with cheap models
(robust-example's `keywords`, a missing `hf:` directory that fails only after every setting was checked)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import string
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from robust.core import plugins
from robust.core.settings import schema
from tests.core.conftest import in_process

FAST = settings(max_examples=40, deadline=timedelta(seconds=10), derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
MISSING_MODEL = "hf:/nonexistent-model-dir"


@pytest.fixture(scope="module")
def store(example_site, tmp_path_factory):
    """A store holding one finished run (robust-example is registered in this process)."""
    path = tmp_path_factory.mktemp("store") / "robust.db"
    code, _, err = robust("--store", str(path), "run", "--bench", "perturbed-accuracy", "--quiet")
    assert code == 0, err
    return path


robust = in_process


def dump(path) -> bytes:
    """The store's bytes, with every committed write moved from its write-ahead log into the file first."""
    db = sqlite3.connect(path)
    try:
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0, "a connection to the store was left open"
    finally:
        db.close()
    return path.read_bytes()


def check(store, *args: str) -> tuple[int, str, str]:
    """Run `robust --store STORE ARGS` and assert the contract: a finished run, or a clean refusal that left the
    store as it was. Returns (code, stdout, the last stderr line)."""
    before = dump(store)
    code, out, err = robust("--store", str(store), *args)
    lines = [line for line in err.splitlines() if line.strip()]
    if currently_in_test_context():  # for --hypothesis-show-statistics
        event("finished" if code == 0 else "refused: " + (lines[-1].rsplit(": ", 1)[-1] if lines else "?")[:40])
    # the notes a run says (default model, each phase) are free; a refusal is one error line, the last
    assert "Traceback" not in err and sum(line.startswith("error:") for line in lines) <= 1, err
    if code == 0:
        return code, out, lines[-1] if lines else ""
    assert lines and lines[-1].startswith("error: "), err
    assert "--debug for the traceback" not in lines[-1], f"an unexpected exception, not a user error: {err}"
    assert dump(store) == before, "a refused command changed the store"
    return code, out, lines[-1]


# --- settings of every benchmark and model, before any model is loaded ----------------------------------
BENCHES = ("accuracy", "robtest", "syntextbench", "byod")
NUMBERS = st.one_of(st.integers(-10**9, 10**9), st.floats(allow_nan=True, allow_infinity=True))
VALUES = st.one_of(NUMBERS.map(str), st.sampled_from(["", "true", "no", "maybe", "1.5", "-0", "1e400", "nan", "x,y",
                                                      "0,1.5", "<b>", "%", "_"]),
                   st.text(string.printable, max_size=8))


@st.composite
def bench_setting(draw):
    """(benchmark, prefix, key, value): a benchmark's own setting, or the model's (`model.`), declared or not."""
    bench = draw(st.sampled_from(BENCHES))
    prefix = draw(st.sampled_from(["", "model."]))
    declared = _schema(bench, prefix)
    key = draw(st.one_of(st.sampled_from(sorted(declared)), st.text(string.ascii_lowercase + "_", min_size=1,
                                                                     max_size=6)))
    numeric = key in declared and type(declared[key].default) in (int, float)
    return bench, prefix, key, draw(NUMBERS if numeric and draw(st.booleans()) else VALUES)


def _schema(bench, prefix):
    """The settings schema `--set PREFIXkey=value` is checked against (the model under test is `hf:`)."""
    entry = plugins.get_registry().get(*(("model", "hf") if prefix else ("benchmark", bench)))
    return schema(entry.target.settings)


@FAST
@given(case=bench_setting())
@example(("syntextbench", "", "levels", 1.5)).via("the issue's nonsense values")
@example(("syntextbench", "", "p_e", 5))
@example(("syntextbench", "", "a_T", 2))
@example(("robtest", "", "aug_num", -2))
@example(("byod", "", "max_examples", -1))
@example(("accuracy", "model.", "batch_size", 0))
def test_every_setting_is_checked_before_a_run_exists(store, case):
    settings_case(store, case)


def settings_case(store, case):
    bench, prefix, key, value = case
    spec = _schema(bench, prefix).get(key)
    code, _, line = check(store, "run", "--bench", bench, "--model", MISSING_MODEL, "--set", f"{prefix}{key}={value}")
    assert code != 0  # the model is missing: nothing may run
    model_error = "no such model directory" in line
    if spec is None:
        assert f"unknown setting {key.strip()!r}" in line or "expected key=value" in line, line
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and type(spec.default) in (int, float):
        # an independent oracle for numbers: the declared type and bounds
        fits = (type(spec.default) is float or isinstance(value, int)) and value == value and abs(value) != float(
            "inf") and (spec.min is None or value >= spec.min) and (spec.max is None or value <= spec.max)
        assert model_error == fits, (value, spec, line)
    if not model_error:
        assert key.strip() in line or str(value).strip() in line, line  # the error names what was wrong


# --- run options on a cheap benchmark: accepted ones finish -----------------------------------------------
OPTION = st.one_of(st.none(), st.integers(1, 60).map(str), st.integers(-5, 0).map(str),
                   st.sampled_from(["-0", "1.5", "x", "", "1e3"]))


@FAST
@given(limit=OPTION, batch=OPTION, seed=st.integers(-2**70, 2**70).map(str),
       degree=st.one_of(st.none(), st.floats(0, 1).map(str), st.floats(-1, 2, allow_nan=False).map(str)),
       n=st.integers(-3, 30))
@example(limit="-5", batch=None, seed="0", degree=None, n=8).via("--limit -5")
@example(limit="3", batch="2", seed="seven", degree=None, n=8).via("a seed that is no number")
@example(limit=None, batch="-3", seed="0", degree=None, n=8).via("--batch-size -3")
def test_run_options_finish_or_are_refused_cleanly(store, limit, batch, seed, degree, n):
    args = ["run", "--bench", "perturbed-accuracy", "--quiet", "--json", "--seed", seed,
            "--set", f"tiny-reviews.n={n}"]
    args += ["--limit", limit] if limit is not None else []
    args += ["--batch-size", batch] if batch is not None else []
    args += ["--set", f"degree={degree}"] if degree is not None else []
    code, out, line = check(store, *args)

    def positive(text):
        return text is None or (text.lstrip("-").isdigit() and int(text) >= 1)

    fits = (positive(limit) and positive(batch) and seed.lstrip("-").isdigit() and n >= 2
            and (degree is None or 0 <= float(degree) <= 1))
    assert (code == 0) == fits, line
    if code == 0:
        run = json.loads(out)
        examples = min(n, int(limit)) if limit else n
        assert run["status"] == "finished" and run["result"]["summary"]["items"] == examples
        assert run["model_queries"] <= examples


# --- run references: an exact id, a unique prefix, or `latest`; nothing else ------------------------------
@FAST
@given(ref=st.one_of(st.text(string.printable, max_size=12), st.sampled_from(["%", "_", "2%", "latest", "LATEST"]),
                     st.integers(0, 40)))
def test_run_references_are_exact_prefix_or_latest(store, ref):
    ids = [row[0] for row in sqlite3.connect(store).execute("SELECT id FROM runs ORDER BY created")]
    if isinstance(ref, int):  # a prefix of a stored id
        ref = ids[0][:ref]
    assume(ref.strip() and not ref.startswith("-"))
    code, out, line = check(store, "show", ref, "--json")
    matches = [i for i in ids if i == ref] or [i for i in ids if i.startswith(ref)]
    if ref == "latest":
        matches = ids[-1:]
    if len(matches) == 1:
        assert code == 0 and json.loads(out)["id"] == matches[0]
    else:
        assert code == 1 and ("no run" in line or "ambiguous" in line), line


# --- malformed data files: the first bad line is named, good files finish ---------------------------------
GOOD_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=20).filter(
    lambda t: t.strip())
GOOD_LABEL = st.sampled_from(["positive", "negative", 0, 1, "1", " positive "])
JSONL_DEFECTS = {  # the kind of defect -> (a line, what the error says)
    "json": ('{"text": "cut', "not valid JSON"), "nested": ("[" * 4000 + "]" * 4000, "nested too deeply"),
    "array": ('["a film", "positive"]', "expected a JSON object"), "no text": ('{"label": "positive"}',
                                                                          "missing column 'text'"),
    "empty text": ('{"text": "  ", "label": "positive"}', "empty or non-text"),
    "number text": ('{"text": 5, "label": "positive"}', "empty or non-text"),
    "no label": ('{"text": "a film"}', "missing column 'label'"),
    "float label": ('{"text": "a film", "label": 1.0}', "label 1.0 is a float"),
    "bool label": ('{"text": "a film", "label": true}', "label True is a bool"),
    "null label": ('{"text": "a film", "label": null}', "empty label in column 'label'"),
    "unknown label": ('{"text": "a film", "label": "neutral"}', "unknown label 'neutral'"),
    "index label": ('{"text": "a film", "label": 2}', "unknown label 2"),
    "html label": ('{"text": "a film", "label": "<b>positive</b>"}', "unknown label '<b>positive</b>'"),
    "latin-1": (b'{"text": "caf\xe9", "label": "positive"}', "not UTF-8"),
    "long": ('{"text": "' + "x" * 9000 + '", "label": "positive"}', "line longer than 8,192 characters"),
    "long multibyte": ("é" * 40000, "line longer than 8,192 characters"),
}
CSV_DEFECTS = {
    "extra field": ("a film,positive,more", "more fields than the header has"),
    "empty text": ('"  ",positive', "empty or non-text"),
    "float label": ("a film,1.0", "unknown label '1.0'"),
    "bool label": ("a film,true", "unknown label 'true'"),
    "latin-1": (b"caf\xe9,positive", "not UTF-8"),
    "empty label": ("a film,", "empty label in column 'label'"),
    "long": ("x" * 9000 + ",positive", "line longer than 8,192 characters"),
}


@st.composite
def data_file(draw):
    """(suffix, lines as bytes, 1-based line of the first defect or None, expected message, good examples)."""
    suffix = draw(st.sampled_from([".jsonl", ".csv"]))
    defects = JSONL_DEFECTS if suffix == ".jsonl" else CSV_DEFECTS
    good_row = st.tuples(GOOD_TEXT, GOOD_LABEL)
    rows = draw(st.lists(st.one_of(good_row, good_row, good_row, st.sampled_from(sorted(defects)), st.just("blank")),
                         max_size=8))
    lines, first, message, good = ([b"text,label"] if suffix == ".csv" else []), None, "", 0
    for row in rows:
        if row == "blank" and suffix == ".csv":
            continue  # a blank CSV line ends nothing and holds nothing: covered by JSONL
        if row == "blank":
            line = b""
        elif isinstance(row, tuple):
            if suffix == ".jsonl":
                line = json.dumps({"text": row[0], "label": row[1]}, ensure_ascii=draw(st.booleans())).encode()
            else:
                buf = io.StringIO()
                csv.writer(buf, lineterminator="").writerow(row)
                line = buf.getvalue().encode()
            good += first is None
        else:
            text, why = defects[row]
            line = text if isinstance(text, bytes) else text.encode()
            if first is None:
                first, message = len(lines) + 1, why
        lines.append(line)
    return suffix, lines, first, message, good


@FAST
@given(case=data_file())
def test_malformed_data_names_its_first_bad_line_and_good_data_finishes(store, tmp_path_factory, monkeypatch, case):
    monkeypatch.setenv("ROBUST_MAX_CHARS", "8192")
    data_case(store, tmp_path_factory.mktemp("data"), case)


def data_case(store, folder, case):
    suffix, lines, first, message, good = case
    path = folder / f"d{suffix}"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, out, line = check(store, "run", "--bench", "accuracy", "--model", "keywords", "--data", str(path),
                            "--quiet", "--json")
    if first is not None:
        assert code == 1 and line.startswith(f"error: {path}:{first}: ") and message in line, line
    elif good == 0:
        assert code == 1 and line == f"error: {path}: no examples"
    else:
        run = json.loads(out)
        assert code == 0 and run["status"] == "finished" and run["result"]["summary"]["n"] == good


# --- negative controls: the same properties fail when a check is removed ---------------------------------
def test_the_properties_fail_without_the_checks_they_guard(store, tmp_path, monkeypatch):
    from robust.core import settings
    from robust.core.errors import RobustError
    from robust.engine.runner import Runner
    from robust.plugins.datasets import file
    from robust.toolkit import data

    with monkeypatch.context() as m:  # no range check: p_e=5 goes on to the model
        m.setattr(settings.Setting, "validate", lambda self, name, value: settings._convert(name, value, self.default))
        with pytest.raises(AssertionError):
            settings_case(store, ("syntextbench", "", "p_e", 5))
    case = (".jsonl", [b'{"text": "a film", "label": 1.0}'], 1, "label 1.0 is a float", 0)
    data_case(store, tmp_path, case)
    with monkeypatch.context() as m:  # no label type check while reading (nor the held-out examples' check of
        m.setattr(data, "label_problem", lambda label, names: None)  # gold labels): the float fails a run that exists
        m.setattr(file, "label_problem", lambda label, names: None)
        m.setattr(data, "label_index", lambda model, label: 0)
        with pytest.raises(AssertionError, match="changed the store"):
            data_case(store, tmp_path, case)
    plan = Runner.plan

    def plan_then_fail(self, bench, ctx, error):  # a refusal that leaves a run behind
        plan(self, bench, ctx)
        self.store.create_run("b", "m", {}, {}, "o")
        raise error

    for error, message in ((RobustError("late"), "changed the store"), (RuntimeError("late"), "unexpected exception")):
        with monkeypatch.context() as m:
            m.setattr(Runner, "plan", lambda self, bench, ctx, error=error: plan_then_fail(self, bench, ctx, error))
            with pytest.raises(AssertionError, match=message):
                check(store, "run", "--bench", "perturbed-accuracy", "--quiet")
