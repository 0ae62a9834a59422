"""robust-example's own test: its transform, found through robust's registry like any plugin."""

import numpy as np
import robust_example

import robust
from robust import Example


def test_leetspeak_is_registered_and_spells_every_word_at_degree_one():
    registered = not robust.registry().has("transform", "robust-example:leetspeak")
    if registered:  # not pip-installed: register the module in-process for this test
        robust.register_plugin(robust_example, "example", "robust-example", "0.1.0")
    try:
        leet = robust.registry().get("transform", "robust-example:leetspeak").create()
        out = leet.apply(Example("1", "the best film"), 1.0, np.random.default_rng(0))[0]
        assert out.text == "7h3 b357 f1lm" and leet.measure("the best film", out.text) == 1.0
    finally:
        if registered:
            robust.unregister_plugin("example")
