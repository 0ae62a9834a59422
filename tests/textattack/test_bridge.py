"""The TextAttack bridge against plain TextAttack on the same keyword victim, seeds and examples."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.errors import MissingResource
from robust.core.interfaces import Example
from robust.plugins.textattack import RECIPES, recipe_attacker
from tests.conftest import error_lines
from tests.robtest.robtest_toys import keyword_probs

SENTENCES = [
    ("the acting in this film was good and the story held up well", "pos"),
    ("a good cast cannot save a plot this thin , but it tries", "pos"),
    ("the director made a good film out of a very old idea", "pos"),
    ("i found the ending good , the middle slow and the music loud", "pos"),
    ("it is a bad film with one or two funny moments", "neg"),
    ("bad writing sinks what could have been a decent thriller", "neg"),
    ("good grief , what a long and tiring evening this was", "pos"),
    ("the jokes are good , the pacing is good , the rest is good", "pos"),
]
EXAMPLES = [Example(f"ex{i}", text, label) for i, (text, label) in enumerate(SENTENCES)]


def victim(fn=keyword_probs):
    return FunctionModel(fn, "classify", labels=["neg", "pos"])


def rngs(seed=0):
    return [np.random.default_rng([seed, i]) for i in range(len(EXAMPLES))]


def bridge(recipe, examples=EXAMPLES, model=None, budget=None, seed=0, **config):
    attacker = recipe_attacker(RECIPES[recipe])(**config)
    return attacker.attack(examples, model or victim(), budget=budget, rngs=rngs(seed)[: len(examples)])


def plain(recipe, seed=0):
    """Stock TextAttack: the recipe class on a plain ModelWrapper, `set_seed`, `Attack.attack` per example."""
    from robust.plugins.textattack.bridge import example_seed
    from robust.plugins.textattack.offline import import_textattack

    textattack = import_textattack()  # offline; a bare `import textattack` would try NLTK downloads

    class Plain(textattack.models.wrappers.ModelWrapper):
        def __init__(self):
            self.model = keyword_probs

        def __call__(self, text_input_list, **kwargs):
            return keyword_probs(list(text_input_list))

    attack = getattr(textattack.attack_recipes, RECIPES[recipe].cls).build(Plain())
    out = []
    for ex, rng in zip(EXAMPLES, rngs(seed)):
        textattack.shared.utils.set_seed(example_seed(rng))
        out.append(attack.attack(ex.text, ["neg", "pos"].index(ex.label)))
    return out


def outcome(result):
    """(TextAttack type, perturbed text, queries) of a TextAttack result or of a bridged one."""
    if hasattr(result, "textattack_result"):
        return result.textattack_result, result.perturbed, result.queries
    return type(result).__name__, result.perturbed_result.attacked_text.text, result.perturbed_result.num_queries


@pytest.mark.parametrize("recipe", ["deepwordbug", "pwws"])
def test_bridge_outcomes_equal_plain_textattack(recipe, needs_wordnet):
    ours = [outcome(r) for r in bridge(recipe)]
    theirs = [outcome(r) for r in plain(recipe)]
    assert ours == theirs
    kinds = [k for k, _, _ in ours]
    assert "SuccessfulAttackResult" in kinds and "SkippedAttackResult" not in kinds
    assert any(t != ex.text for (_, t, _), ex in zip(ours, EXAMPLES))


def test_a_different_seed_changes_deepwordbug_so_the_comparison_can_fail():
    ours = [outcome(r) for r in bridge("deepwordbug")]
    other = [outcome(r) for r in plain("deepwordbug", seed=1)]
    assert ours != other  # random character edits depend on the per-example seed


def test_pwws_swaps_the_keyword_for_a_wordnet_synonym(needs_wordnet, monkeypatch):
    import nltk

    tried = []
    monkeypatch.setattr(nltk, "download", lambda *a, **k: tried.append(a))
    results = bridge("pwws", EXAMPLES[:1])
    assert tried == []  # WordSwapWordNet() asks nltk.download for omw-1.4 on every construction; not here
    assert results[0].status == "succeeded" and results[0].success
    (edit,) = results[0].edits
    assert edit["before"] == "good" and edit["after"] not in ("good", "")


def test_result_types_map_to_statuses():
    wrong = lambda texts: keyword_probs(texts)[:, ::-1]  # noqa: E731 - always wrong: TextAttack skips
    skipped = bridge("deepwordbug", EXAMPLES[:2], model=victim(wrong))
    assert [(r.status, r.success, r.queries, r.textattack_result) for r in skipped] == \
        [("skipped", False, 1, "SkippedAttackResult")] * 2
    done = bridge("deepwordbug", EXAMPLES[:1])[0]
    assert (done.status, done.success, done.textattack_result) == ("succeeded", True, "SuccessfulAttackResult")
    capped = bridge("deepwordbug", EXAMPLES[:1], budget=3)[0]  # WIR alone needs one query per word
    assert (capped.status, capped.success, capped.queries) == ("budget", False, 3)
    assert capped.textattack_result == "FailedAttackResult"
    negative = bridge("deepwordbug", EXAMPLES[4:5])[0]  # no edit of 'bad' makes the victim say pos
    assert (negative.status, negative.success) == ("failed", False) and negative.queries > 3
    reduced = bridge("input-reduction", EXAMPLES[:1])[0]  # keeps the prediction: maximized, not a success
    assert (reduced.textattack_result, reduced.status, reduced.success) == ("MaximizedAttackResult", "failed", False)
    assert len(reduced.perturbed.split()) < len(EXAMPLES[0].text.split())


def test_wrapper_sends_each_goal_function_call_to_the_adapter_at_once():
    calls = []

    def spy(texts):
        calls.append(len(texts))
        return keyword_probs(texts)

    model = victim(spy)
    bridge("deepwordbug", EXAMPLES[:1], model=model)
    assert max(calls) > 1 and len(calls) <= 4  # initial query, the whole WIR batch, then one swap round or so


def test_recipe_with_missing_resources_is_one_line_error():
    attacker = recipe_attacker(RECIPES["textfooler"])()
    with pytest.raises(MissingResource) as err:
        attacker.attack(EXAMPLES[:1], victim())
    message = str(err.value)
    assert "\n" not in message and "counter-fitted word embeddings" in message and "textattack:textfooler" in message


def cli(*args, env=None, timeout=300):
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "robust", *args], capture_output=True, text=True,
                          env=full, timeout=timeout)


def test_list_shows_availability_per_recipe():
    out = cli("list", "attackers", "--json")
    rows = {e["name"]: e.get("unavailable", "") for e in json.loads(out.stdout) if e["name"].startswith("textattack:")}
    assert set(rows) == {f"textattack:{name}" for name in RECIPES}
    assert rows["textattack:deepwordbug"] == ""
    assert rows["textattack:textfooler"].startswith("needs counter-fitted word embeddings")
    assert "intentional_homoglyphs.txt" in rows["textattack:textbugger"]
    table = cli("list", "attackers").stdout
    assert "textattack:deepwordbug" in table and "textattack:textfooler" not in table  # summarised in one line
    shown = cli("list", "attackers", "--all").stdout
    assert "textattack:textfooler" in shown and "cannot run here: needs counter-fitted" in shown


def test_without_stopwords_the_run_stops_with_one_line(tmp_path):
    env = {"ROBUST_CACHE": str(tmp_path / "cache"), "NLTK_DATA": "", "HOME": str(tmp_path),
           "ROBUST_HOME": str(tmp_path / "runs")}
    out = cli("run", "--bench", "attack", "--attack", "textattack:deepwordbug", "--model", "probe:minilm",
              "--limit", "2", env=env)
    assert out.returncode == 1
    assert error_lines(out.stderr) == ["error: textattack:deepwordbug cannot run here: needs NLTK stopwords "
                                  "(run `robust setup stopwords`)"]


IMPORT_PROBE = """
import json, os, socket, sys
calls = []
def refuse(*a, **k):
    calls.append("socket")
    raise OSError("network disabled in this test")
socket.socket.connect = refuse
import nltk
nltk.download = lambda *a, **k: calls.append(("nltk.download",) + a) or False
home = os.environ.get("HF_HOME")
if sys.argv[1] == "bridge":
    from robust.plugins.textattack.offline import import_textattack
    import_textattack()
else:
    import textattack
print(json.dumps({"calls": calls, "hf_home_kept": os.environ.get("HF_HOME") == home}))
"""


def test_import_is_offline_and_leaves_hf_home_alone(tmp_path):
    env = {**os.environ, "TA_CACHE_DIR": str(tmp_path / "ta"), "HF_HOME": str(tmp_path / "hf")}
    ours = subprocess.run([sys.executable, "-c", IMPORT_PROBE, "bridge"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout.splitlines()[-1]) == {"calls": [], "hf_home_kept": True}
    # negative control: a raw import with a fresh TextAttack cache tries its NLTK downloads
    env["TA_CACHE_DIR"] = str(tmp_path / "ta2")
    env["NLTK_DATA"] = str(_robust_nltk())
    raw = subprocess.run([sys.executable, "-c", IMPORT_PROBE, "raw"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert raw.returncode == 0, raw.stderr
    probe = json.loads(raw.stdout.splitlines()[-1])
    assert ("nltk.download", "stopwords") in [tuple(c) for c in probe["calls"]]
    assert probe["hf_home_kept"] is False  # TextAttack points HF_HOME at its cache


def _robust_nltk():
    from robust.toolkit.paths import nltk_data_dir

    return nltk_data_dir()


@pytest.mark.slow
def test_real_victim_end_to_end_and_resume(tmp_path):
    env = {"ROBUST_HOME": str(tmp_path / "runs")}
    out = cli("run", "--bench", "attack", "--attack", "textattack:deepwordbug", "--limit", "3", "--json", "-q",
              env=env)
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    summary = run["result"]["summary"]
    assert summary["n"] == 3 and summary["succeeded"] + summary["failed"] + summary["skipped"] == 3
    again = cli("run", "--resume", run["id"], "--json", "-q", env=env)  # nothing left to do: same result
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["result"]["summary"]["succeeded"] == summary["succeeded"]
