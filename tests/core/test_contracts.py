"""Contracts checked once, before anything runs: what a plugin class must be to register, how settings merge with
the base classes', which transforms and scorers may be paired, and where a misplaced setting belongs."""

from __future__ import annotations

import numpy as np
import pytest

import robust
from robust.core.contracts import check_plugin
from robust.core.interfaces import check_pairing


class Good(robust.Transform):
    name = "good"
    settings = {"p": robust.Setting(0.5, min=0.0, max=1.0)}

    def apply(self, example, degree, rng):
        return [example]

    def measure(self, original, perturbed):
        return 0.0


def test_a_well_formed_plugin_passes_and_every_built_in_does():
    check_plugin(Good, "transform")
    check_plugin(Good(), "transform")  # instances register too
    registry = robust.registry()
    assert not registry.broken
    for entry in registry:
        check_plugin(entry.target, entry.kind)


@pytest.mark.parametrize("patch, kind, message", [
    ({"name": "two words"}, "transform", "has no usable name ('two words')"),
    ({"name": "a,b"}, "transform", "has no usable name"),
    ({"settings": {"p": robust.Setting(2.0, min=0.0, max=1.0)}}, "transform", "the default of setting 'p' is invalid"),
    ({"settings": {"not a key": 1}}, "transform", "a setting with a bad key 'not a key'"),
    ({"settings": {"k": object()}}, "transform", "has a default of type object"),
    ({"settings": {"c": robust.Setting("x", choices=("a", "b"))}}, "transform", "the default of setting 'c'"),
    ({}, "model", "is not a model plugin"),
])
def test_malformed_plugins_are_refused_in_one_line(patch, kind, message):
    bad = type("Bad", (Good,), dict(patch))
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_plugin(bad, kind)


def test_missing_methods_are_named():
    class NoMeasure(robust.Transform):
        name = "no-measure"

        def apply(self, example, degree, rng):
            return [example]

    class Hollow(robust.ModelAdapter):
        name = "hollow"
        capabilities = frozenset({"classify", "embed"})

        def _embed(self, texts, pooling):
            return [np.zeros(2) for _ in texts]

    class Unshaped(robust.Attacker):
        name = "unshaped"

        def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
            return []

    class Wishful(robust.ModelAdapter):
        name = "wishful"
        capabilities = frozenset({"telepathy"})

    with pytest.raises(TypeError, match="^transform 'no-measure' does not implement measure$"):
        check_plugin(NoMeasure, "transform")
    with pytest.raises(TypeError, match="^model 'hollow' does not implement _classify or classify$"):
        check_plugin(Hollow, "model")
    with pytest.raises(TypeError, match="subclasses neither SearchAttacker .* nor RecipeAttacker"):
        check_plugin(Unshaped, "attacker")
    with pytest.raises(TypeError, match="declares unknown capabilities telepathy"):
        check_plugin(Wishful, "model")


def test_every_capability_is_implemented_by_a_method_of_model_adapter_and_documented():
    # the table beside ModelAdapter: each capability's description and the methods the contract check asks for
    from robust.core.interfaces import CAPABILITY_TABLE

    assert set(robust.CAPABILITIES) == set(CAPABILITY_TABLE) and "gradients" not in CAPABILITY_TABLE
    for name, cap in CAPABILITY_TABLE.items():
        assert cap.provides and all(callable(getattr(robust.ModelAdapter, m, None)) for m in cap.methods), name
    # every capability some built-in adapter declares is in the table
    declared = {c for e in robust.registry() if e.kind == "model" for c in e.target.capabilities}
    assert declared <= set(CAPABILITY_TABLE)


def test_the_removed_gradients_capability_is_deprecated_not_refused():
    class Old(robust.ModelAdapter):
        name = "old"
        capabilities = frozenset({"classify", "gradients"})

        def _classify(self, texts):
            return np.zeros((len(texts), 2))

    with pytest.warns(DeprecationWarning, match="capability 'gradients', deprecated in plugin API 1.1"):
        check_plugin(Old, "model")


def test_settings_merge_with_the_base_classes():
    class Own(robust.ModelAdapter):
        name = "own"
        capabilities = frozenset({"classify"})
        settings = {"tilt": 0.5}

    class Again(Own):
        settings = {"batch_size": robust.Setting(4, min=1), "extra": "x"}

    assert set(Own.settings) == {"batch_size", "tilt"}
    assert Own().config == {"batch_size": 32, "tilt": 0.5}
    assert Again().config == {"batch_size": 4, "tilt": 0.5, "extra": "x"}  # a key declared again replaces
    assert robust.ModelAdapter.settings == {"batch_size": robust.Setting(32, min=1)}  # the base is untouched


def test_transforms_and_scorers_pair_only_on_what_they_provide():
    registry = robust.registry()
    swap = registry.get("transform", "byod-context-swap").create()
    chop = registry.get("transform", "byod-chop").create()
    lrs = registry.get("scorer", "byod-lrs").create()
    tokenization = registry.get("scorer", "byod-tokenization").create()
    check_pairing(swap, lrs, ("sentences", "donor"), "byod's lrs test")
    check_pairing(chop, tokenization, (), "byod's tokenization test")
    check_pairing(Good(), None, (), "robtest")
    with pytest.raises(robust.RobustError, match="reads Example.data donor, sentences, which robtest's examples"):
        check_pairing(swap, None, (), "robtest")
    with pytest.raises(robust.RobustError, match="scorer 'byod-lrs' reads last from each variant's meta, which "
                                                 "transform 'byod-chop' of byod's lrs test provides"):
        check_pairing(chop, lrs, ("sentences", "donor"), "byod's lrs test")


def test_a_setting_of_another_plugin_of_the_run_names_its_key(tmp_path):
    from robust.engine.runner import RunConfig, Runner
    from robust.engine.store import Store

    runner = Runner(robust.registry(), Store(tmp_path / "r.db"))
    config = RunConfig(bench="attack", model="probe:minilm", attacks=["deepwordbug"], settings={"variant": "x"})
    with pytest.raises(robust.RobustError, match=r"^unknown setting 'variant' for attack; it is a setting of a "
                                                 r"plugin of this run: --set deepwordbug.variant=VALUE$"):
        runner.build(config)
    config = RunConfig(bench="accuracy", model="hf:gpt2", settings={"max_length": "8"})
    with pytest.raises(robust.RobustError, match=r"--set model.max_length=VALUE$"):
        runner.build(config)
    config = RunConfig(bench="accuracy", model="hf:gpt2", settings={"nonsense": "8"})
    with pytest.raises(robust.RobustError, match=r"^unknown setting 'nonsense' for accuracy; known: "):
        runner.build(config)


def test_attack_result_to_json_is_asdict_without_sharing():
    """A result's JSON is `dataclasses.asdict`'s (same keys, order and values) and shares no list or dict with it."""
    from dataclasses import asdict

    result = robust.AttackResult("a b", "a c", True, 3, "succeeded", [{"index": 1, "before": "b", "after": "c"}],
                                 ["a c", "a d"])
    out = result.to_json()
    assert list(out.items()) == list(asdict(result).items())
    out["edits"][0]["index"], out["variants"][0] = 9, "x"
    assert result.edits[0]["index"] == 1 and result.variants[0] == "a c"
