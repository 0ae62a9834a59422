"""Run any registered Attacker over a batch of labelled examples and get one `AttackResult` per example.

Two calling conventions exist while the core contract is being landed:
- the CONTRACTS.md one, `attack(examples, model, transform=None, degree=None, budget=None, rngs=None)
  -> list[AttackResult]` (the TextAttack bridge implements it);
- today's `attack(example, model, degree, rng) -> list[Example]` (e.g. `saliency-greedy`). For those, this
  module classifies the originals (skip the already-wrong), runs the search (batched over the examples when
  the attacker exposes its score-based search) while counting the texts it sends, and classifies the
  returned variants. It goes away once every Attacker implements the contract.
"""

from __future__ import annotations

import inspect
from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

from robust.core.labels import label_index
from robust.plugins.benchmarks.attack.results import AttackResult, word_edits

if TYPE_CHECKING:
    import numpy as np

    from robust.core.interfaces import Attacker, Example, ModelAdapter


def follows_contract(attacker: Attacker) -> bool:
    """Whether `attacker.attack` takes a batch of examples (CONTRACTS.md) rather than one example."""
    params = list(inspect.signature(attacker.attack).parameters)
    return bool(params) and params[0] == "examples"


def run_attacker(attacker: Attacker, examples: Sequence[Example], model: ModelAdapter,
                 rngs: Sequence[np.random.Generator], degree: float, budget: int | None) -> list[AttackResult]:
    """One AttackResult per example, whichever calling convention the attacker follows."""
    if follows_contract(attacker):
        return attacker.attack(examples, model, degree=degree, budget=budget, rngs=rngs)  # type: ignore[call-arg]
    return _legacy(attacker, examples, model, rngs, degree, budget)


class _Sent:
    """The distinct texts one example sent to the model (a repeated text is cached: it costs nothing), and
    the last answered query of its search."""

    def __init__(self, budget: int | None) -> None:
        self.texts: set[str] = set()
        self.budget = budget
        self.last: str | None = None
        self.exhausted = False

    def add(self, texts: Sequence[str]) -> None:
        self.texts.update(texts)

    def fits(self, texts: Sequence[str]) -> bool:
        """Whether sending `texts` keeps this example within its budget."""
        return self.budget is None or len(self.texts | set(texts)) <= self.budget


class _CountingModel:
    """A model proxy recording the texts each `classify` call sends (no budget: these attackers cannot stop)."""

    def __init__(self, model: ModelAdapter, sent: _Sent) -> None:
        self._model, self._sent = model, sent

    def classify(self, texts: Sequence[str]) -> Any:
        self._sent.add(texts)
        return self._model.classify(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


def _counted(search: Generator, sent: _Sent) -> Generator:
    """A score-based search whose queries are recorded in `sent`; when the next query would exceed the
    budget the search stops and returns the first text of its last answered query (the greedy search's
    current text)."""
    value = None
    try:
        while True:
            query = search.send(value)
            if not sent.fits(query):
                search.close()
                sent.exhausted = True
                return [sent.last] if sent.last is not None else []
            sent.add(query)
            value = yield query
            sent.last = query[0] if query else sent.last
    except StopIteration as stop:
        return stop.value


def _legacy(attacker: Any, examples: Sequence[Example], model: ModelAdapter, rngs: Sequence[np.random.Generator],
            degree: float, budget: int | None) -> list[AttackResult]:
    golds = [label_index(model, ex.label) for ex in examples]
    sent = [_Sent(budget) for _ in examples]
    for s, ex in zip(sent, examples):
        s.add([ex.text])
    clean = model.classify([ex.text for ex in examples]).argmax(1)
    todo = [i for i, (p, g) in enumerate(zip(clean, golds)) if int(p) == g]
    variants: dict[int, list[str]] = {}
    if hasattr(attacker, "search_config") and hasattr(attacker, "transform"):
        from robust.plugins.benchmarks.robtest.search import drive, search_for

        searches = [_counted(search_for(attacker.transform, examples[i].text, degree, rngs[i],
                                        attacker.search_config), sent[i]) for i in todo]
        variants = dict(zip(todo, drive(searches, model.classify)))
    else:
        for i in todo:
            found = attacker.attack(examples[i], _CountingModel(model, sent[i]), degree, rngs[i])
            variants[i] = [v.text for v in found]
    out = []
    for i, ex in enumerate(examples):
        if i not in variants:
            out.append(AttackResult(ex.text, ex.text, False, len(sent[i].texts), [], "skipped", []))
            continue
        texts = [t for t in variants[i] if sent[i].fits([t])] or [sent[i].last or ex.text]
        if len(texts) < len(variants[i]):
            sent[i].exhausted = True  # a returned variant could not be checked within the budget
        sent[i].add(texts)
        preds = model.classify(texts).argmax(1)
        wrong = [t for t, p in zip(texts, preds) if int(p) != golds[i]]
        perturbed = wrong[0] if wrong else texts[-1]
        status = "succeeded" if wrong else "budget" if sent[i].exhausted else "failed"
        out.append(AttackResult(ex.text, perturbed, bool(wrong), len(sent[i].texts), word_edits(ex.text, perturbed),
                                status, list(texts)))
    return out
