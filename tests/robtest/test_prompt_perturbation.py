"""Perturbing the prompt (PromptBench's question): RobTest and the attack benchmark on a prompted model's
instruction (`perturb=instruction`), RobTest on instruction and input together (`perturb=both`), and PromptBench's
performance drop rate beside RobTest's scores."""

from __future__ import annotations

import numpy as np
import pytest

import robust

ROWS = [{"text": f"the film was {'good' if i % 2 else 'bad'} overall number {i}", "label": i % 2}
        for i in range(12)]
INSTRUCTION = "Decide whether the sentiment of each review below is positive or negative ."


class Prompted(robust.ModelAdapter):
    """A prompted classifier that reads its instruction: the intact instruction lets it find 'good'; any edit to
    the instruction's words makes it answer class 0 (so perturbing the instruction costs accuracy)."""

    name = "prompted-toy"
    capabilities = frozenset({"classify", "instruction"})

    def __init__(self, instruction: str = INSTRUCTION) -> None:
        super().__init__()
        self.text, self.seen = instruction, set()

    @property
    def instruction(self) -> str:
        return self.text

    def with_instruction(self, instruction: str) -> Prompted:
        self.seen.add(instruction)
        return self if instruction == self.text else Prompted(instruction)

    def _classify(self, texts):
        intact = self.text == INSTRUCTION
        return [np.array([0.2, 0.8]) if intact and "good" in t else np.array([0.8, 0.2]) for t in texts]


def _robtest(tmp_path, model, perturb, access=("rule", "score"), degrees=(0.1, 0.3)):
    return robust.run("robtest", model=model, data=ROWS, attack="typo-M", store=tmp_path / "r.db",
                      settings={"perturb": perturb, "access": list(access), "degrees": list(degrees), "aug_num": 3})


def test_perturbing_the_instruction_costs_accuracy_and_leaves_the_input(tmp_path):
    model = Prompted()
    run = _robtest(tmp_path, model, "instruction")
    data = run.result.data
    assert data["clean_accuracy"] == 100.0
    rule = [r for k, r in run.records.items() if "/rule/" in k]
    assert rule and all(r["original"] == INSTRUCTION for r in rule)
    gold = {r["example"]: r["gold"] for k, r in run.records.items() if k.startswith("clean/")}
    # under a perturbed instruction the toy answers 0: every 'good' review is lost, every 'bad' one kept
    assert all(r["correct"] == (r["n"] if gold[r["example"]] == 0 else 0) for r in rule)
    # the rule-based draws of one degree are the same instructions for every example (one prompt, whole dataset)
    by_degree = {}
    for r in rule:
        by_degree.setdefault(r["degree"], set()).add(r.get("sample"))
    assert all(len(samples - {None}) <= 1 for samples in by_degree.values())
    # PromptBench's PDR = 1 - accuracy / clean accuracy, at each degree
    curve = data["curves"]["typo-M"]["rule"]["average"]
    assert data["pdr"]["typo-M"]["rule"]["average"] == [round(1 - v / curve[0], 4) for v in curve[1:]]
    assert all(p > 0 for p in data["pdr"]["typo-M"]["rule"]["average"])
    assert run.summary["typo-M Rule-Average PDR (mean over degrees)"] > 0


def test_perturbing_the_input_is_the_negative_control(tmp_path):
    model = Prompted()
    run = _robtest(tmp_path, model, "input", access=("rule",))
    assert model.seen == set()  # the instruction was never changed
    assert all("original" not in r for r in run.records.values())


def test_both_pairs_perturbed_instructions_with_perturbed_inputs_and_refuses_searches(tmp_path):
    run = _robtest(tmp_path, Prompted(), "both", access=("rule",))
    rule = [r for k, r in run.records.items() if "/rule/" in k]
    assert any(" ⏎ " in (r.get("sample") or "") for r in rule)  # a pair: perturbed instruction, perturbed input
    with pytest.raises(robust.RobustError, match="perturb=both runs the rule-based access only"):
        _robtest(tmp_path, Prompted(), "both", access=("rule", "score"))


def test_a_model_without_an_instruction_is_refused_before_a_run_exists(tmp_path):
    plain = robust.FunctionModel(lambda texts: [[0.5, 0.5]] * len(texts), "classify")
    with pytest.raises(robust.RobustError, match="needs instruction but model"):
        _robtest(tmp_path, plain, "instruction")
    from robust.engine.store import Store

    assert Store(tmp_path / "r.db").runs() == []


def test_the_attack_benchmark_searches_the_instruction_and_reports_the_drop_rate(tmp_path):
    run = robust.run("attack", model=Prompted(), data=ROWS, attack="saliency-greedy:typo-G", store=tmp_path / "r.db",
                     settings={"perturb": "instruction"})
    attacked = [r for r in run.records.values() if r["status"] != "skipped"]
    assert len(attacked) == 12 and all(r["original"] == INSTRUCTION for r in attacked)
    # a perturbed instruction makes the toy answer 0: the 'good' reviews flip, the 'bad' ones cannot
    assert {(r["gold"], r["status"]) for r in attacked} == {(1, "succeeded"), (0, "failed")}
    assert all(r["perturbed"] != INSTRUCTION and r["pred"] == 0 for r in attacked if r["gold"] == 1)
    s = run.summary
    assert s["performance_drop_rate"] == pytest.approx(1 - s["accuracy_under_attack"] / s["clean_accuracy"])
    assert s["performance_drop_rate"] == pytest.approx(0.5)


def test_the_instruction_is_drawn_once_per_tag_and_degree_not_per_example(tmp_path, monkeypatch):
    """The rule-based draws are the same for every example: they are made (and measured) once per dimension-tag
    and degree, not 12 times over."""
    from robust.plugins.benchmarks.robtest import benchmark

    calls = []
    draw = benchmark.instruction_variants
    monkeypatch.setattr(benchmark, "instruction_variants", lambda *a: calls.append(a[2]) or draw(*a))
    _robtest(tmp_path, Prompted(), "instruction", access=("rule",))
    assert sorted(calls) == [0.1, 0.3]  # one tag (typo-M) at two degrees, over 12 examples
