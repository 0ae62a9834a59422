"""A model that cannot do the task is said so first and ranked nowhere: clean accuracy with its interval beside the
majority-class rate, in the accuracy, attack and RobTest results and comparisons."""

from __future__ import annotations

import numpy as np
import pytest

import robust
from robust.toolkit.chance import chance_check, chance_sentence
from robust.toolkit.stats import wilson

ROWS = [{"text": f"{'good' if i % 3 else 'bad'} film number {i}", "label": 1 if i % 3 else 0} for i in range(60)]


def always_positive(texts):
    return np.array([[0.1, 0.9]] * len(texts))


def keyword(texts):
    return np.array([[0.1, 0.9] if "good" in t else [0.9, 0.1] for t in texts])


def test_the_check_is_the_wilson_interval_against_the_majority_rate():
    golds = [1] * 40 + [0] * 20
    check = chance_check(golds, [g == 1 for g in golds])  # always answering the majority class
    assert check["clean_accuracy"] == pytest.approx(2 / 3) and check["majority_rate"] == pytest.approx(2 / 3)
    assert (check["clean_accuracy_ci_low"], check["clean_accuracy_ci_high"]) == wilson(40, 60)
    assert not check["above_chance"] and "cannot do this task" in chance_sentence(check, "positive")
    assert "always answering 'positive' would score" in chance_sentence(check, "positive")
    perfect = chance_check(golds, [True] * 60)
    assert perfect["above_chance"] and chance_sentence(perfect) == ""
    assert not chance_check([0, 1] * 5, [True] * 8 + [False] * 2)["above_chance"]  # 8/10: too few to tell


def test_the_sentence_says_the_interval_reaches_down_to_the_majority_rate_and_names_the_class():
    """Issue 34: "clean accuracy 80 % (95 % interval 38–96) is not above the 60 % of always answering 1" read as a
    contradiction (80 is above 60): the check is on the interval's lower end, and the class has a name."""
    golds = [1, 1, 1, 0, 0]
    check = chance_check(golds, [True, True, True, True, False], {0: "negative", 1: "positive"})
    assert check["majority_class"] == 1 and check["majority_label"] == "positive" and not check["above_chance"]
    sentence = chance_sentence(check)
    assert "80\u00a0% (95 % interval 38–96\u00a0%, 5 examples)" in sentence
    assert "that interval reaches down past the 60\u00a0% that always answering 'positive' would score" in sentence
    assert "not clearly above chance" in sentence and "not above the" not in sentence and "answering 1" not in sentence
    # at or below the majority rate the accuracy itself is the reason, said as such
    below = chance_sentence(chance_check(golds, [True, False, True, False, False], {1: "positive"}))
    assert "40\u00a0%" in below and "no better than the 60\u00a0% that always answering 'positive'" in below
    assert "interval reaches" not in below


def test_accuracy_leads_with_it_and_compare_ranks_only_the_able(tmp_path):
    store = tmp_path / "r.db"
    dumb = robust.run("accuracy", model=always_positive, data=ROWS, store=store)
    able = robust.run("accuracy", model=keyword, data=ROWS, store=store)
    assert "cannot do the task" in dumb.summary and "cannot do the task" not in able.summary
    bench = robust.registry().get("benchmark", "accuracy").create()
    assert bench.report(dumb.result, dumb.records).headline.startswith("The model cannot do this task")
    assert "always answering '1'" in dumb.summary["cannot do the task"]  # unnamed classes: the data's label
    named = robust.run("accuracy", model=robust.FunctionModel(always_positive, labels=["neg", "pos"]),
                       data=[{**r, "label": ["neg", "pos"][r["label"]]} for r in ROWS], store=store)
    assert "always answering 'pos'" in named.summary["cannot do the task"]  # the model's class name
    compared = type(bench).compare([("dumb", dumb.result), ("able", able.result)])
    assert compared.summary["ranking"] == ["able"] and compared.summary["not ranked (not above chance)"] == ["dumb"]


@pytest.mark.parametrize("bench, extra", [("robtest", {"degrees": [0.1], "aug_num": 2, "access": ["rule"]}),
                                          ("attack", {})])
def test_robustness_benchmarks_say_it_first_and_rank_only_the_able(tmp_path, bench, extra):
    store = tmp_path / "r.db"
    kw = {"data": ROWS, "attack": "typo-M", "settings": extra, "store": store}
    dumb, able = robust.run(bench, model=always_positive, **kw), robust.run(bench, model=keyword, **kw)
    cls = robust.registry().get("benchmark", bench).target
    parts = cls().report(dumb.result, dumb.records)
    assert parts.headline.startswith("The model cannot do this task") and "cannot do the task" in dumb.summary
    assert not cls().report(able.result, able.records).headline.startswith("The model cannot")
    compared = cls.compare([("dumb", dumb.result), ("able", able.result)])
    assert compared.summary["not ranked (not above chance)"] == ["dumb"]
