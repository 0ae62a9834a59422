"""`Transform.warm_up` of the transforms with helpers: what their draws need (spaCy's pipeline, the helper models of
their configuration) starts loading as the benchmark prepares, while the model under test loads."""

from __future__ import annotations

import threading

import pytest

import robust
from robust.plugins.attacks import contextual, inflection, synonym, syntax
from robust.toolkit import transforms
from robust.toolkit.loading import Once

CAN = frozenset({"embed", "fill_mask", "next_token_distribution", "tokenize", "logprobs", "generate"})


class Helper:
    """A helper model that says in which thread its weights were loaded."""

    def __init__(self, identity: str) -> None:
        self.identity = identity
        self.loaded_in: list[str] = []

    def provides(self) -> frozenset[str]:
        return CAN

    def preload(self) -> None:
        self.loaded_in.append(threading.current_thread().name)


def preloaded(transform: robust.Transform, *helpers: Helper) -> set[str]:
    """The helpers whose weights `transform.warm_up()` loaded, each in a thread of its own."""
    transform.warm_up()
    for thread in threading.enumerate():
        if any(thread.name == f"robust-load {h.identity}" for h in helpers):
            thread.join(10)
    assert all(h.loaded_in in ([], [f"robust-load {h.identity}"]) for h in helpers)
    return {h.identity for h in helpers if h.loaded_in}


@pytest.mark.parametrize("mode", ["clean", "faithful"])
def test_each_transform_preloads_the_helpers_its_configuration_calls(mode):
    lm, mlm, embedder = Helper("lm"), Helper("mlm"), Helper("embedder")
    assert preloaded(synonym.Synonym(embedder=embedder, mode=mode), embedder) == ({"embedder"} if mode == "clean"
                                                                                  else set())
    lm, embedder = Helper("lm"), Helper("embedder")
    assert preloaded(contextual.Contextual(lm_model=lm, embedder=embedder, mode=mode), lm, embedder) == (
        {"lm", "embedder"} if mode == "clean" else {"lm"})
    lm, mlm, embedder = Helper("lm"), Helper("mlm"), Helper("embedder")
    assert preloaded(contextual.Contextual(mlm_model=mlm, lm_model=lm, embedder=embedder, mode=mode),
                     lm, mlm, embedder) == ({"mlm", "embedder"} if mode == "clean" else {"mlm"})  # no lm there
    embedder = Helper("embedder")
    assert preloaded(syntax.Syntax(embedder=embedder), embedder) == {"embedder"}  # no paraphrase model set


@pytest.mark.parametrize("mode", ["clean", "faithful"])
def test_the_tagger_loads_while_the_model_does(mode, monkeypatch, tmp_path):
    """RobTest calls `warm_up` as it prepares, before the runner preloads the model: Inflection's tagger (spaCy's
    pipeline) has begun loading when the model's `preload` runs, in both modes (both tag the sentence)."""
    loaded = transforms.SPACY.get()
    fresh = Once("spaCy", lambda: loaded)
    for module in (transforms, inflection):
        monkeypatch.setattr(module, "SPACY", fresh)
    started_by_preload: list[bool] = []

    class Loading(robust.FunctionModel):
        def preload(self) -> None:
            started_by_preload.append(fresh.started)

    model = Loading(lambda texts: [[0.4, 0.6] if "good" in t else [0.6, 0.4] for t in texts], "classify",
                    labels=["neg", "pos"])
    rows = [{"text": f"the films were {'good' if i % 2 else 'bad'} overall", "label": i % 2} for i in range(4)]
    robust.run("robtest", model=model, data=rows, attack="inflection", store=tmp_path / "r.db", progress=False,
               settings={"inflection.mode": mode, "aug_num": 2, "degrees": "0.3"})
    assert started_by_preload == [True]


def test_tags_are_the_taggers_own_and_parses_see_the_dependencies():
    """One spaCy pipeline serves both: `pos_tags` runs it without its parser (spaCy's attribute ruler then reads
    "does" as an auxiliary, as a tagger alone does), `parsed_words` with it (a main verb there)."""
    text = "he does his best work here ."
    assert transforms.pos_tags(text)[1] == ("VBZ", "AUX")
    assert transforms.parsed_words(text)[1].pos_ == "VERB" and transforms.parsed_words(text)[1].dep_ == "ROOT"
