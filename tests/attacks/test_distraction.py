"""Distraction (RobTest's code, Sentence/distraction_transform.py): types, insertion modes, the accept-while-cos > 1 − d
loop, the degree bound."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.interfaces import Example
from robust.plugins.attacks.distraction import STATEMENTS, URL_CHARS, Distraction, wiki_sentences
from robust.toolkit.transforms import REACH_TOLERANCE, reaches

TEXT = "I watch a smart, sweet and playful romantic comedy."


def bag_of_words(texts: list[str]) -> np.ndarray:
    """Hashed word counts: appending words lowers the cosine to the original, as a real encoder does."""
    out = np.zeros((len(texts), 512))
    for i, text in enumerate(texts):
        for word in re.findall(r"\w+|[^\w\s]", text.lower()):
            out[i, zlib.crc32(word.encode()) % 512] += 1
    return out


@pytest.fixture(scope="module")
def transform() -> Distraction:
    return Distraction(embedder=FunctionModel(bag_of_words, "embed"))


def test_degree_zero_returns_the_input(transform):
    example = Example("a", TEXT)
    assert transform.apply(example, 0.0, np.random.default_rng(1)) == [example]


@pytest.mark.parametrize("degree", [0.05, 0.1, 0.2, 0.4, 0.6])
def test_degree_bound_prefix_and_step_limit(transform, degree):
    changed = 0
    for seed in range(15):
        [out] = transform.apply(Example("a", TEXT), degree, np.random.default_rng(seed))
        assert out.text.startswith(TEXT + " ") or out.text == TEXT
        assert transform.measure(TEXT, out.text) <= degree  # the longest chain prefix with 1 − cos ≤ d
        assert out.meta.get("distraction_steps", 0) <= 40
        changed += out.text != TEXT
    if degree >= 0.2:
        assert changed > 0
    faithful = Distraction(embedder=FunctionModel(bag_of_words, "embed"), mode="faithful")
    for seed in range(5):
        [out] = faithful.apply(Example("a", TEXT), degree, np.random.default_rng(seed))
        assert faithful.measure(TEXT, out.text) < degree  # accepted only while cos > 1 − d
        assert out.meta.get("distraction_steps", 0) <= 9  # max_trial 10 = at most 9 accepted additions


def test_clean_reaches_high_degrees_where_ten_steps_cannot(transform):
    faithful = Distraction(embedder=FunctionModel(bag_of_words, "embed"), mode="faithful")
    clean_reached = [transform.apply(Example("a", TEXT), 0.6, np.random.default_rng(s))[0] for s in range(8)]
    faithful_reached = [faithful.apply(Example("a", TEXT), 0.6, np.random.default_rng(s))[0] for s in range(8)]
    assert all(not e.meta["unreached"] and e.meta["achieved"] >= 0.48 for e in clean_reached)
    assert not all(faithful.measure(TEXT, e.text) >= 0.48 for e in faithful_reached)  # negative control


def test_prefix_degrees_are_measured_once_in_batched_calls():
    calls = []

    def counting(texts):
        calls.append(len(texts))
        return bag_of_words(texts)

    t = Distraction(embedder=FunctionModel(counting, "embed"), pool=4)
    others = [TEXT, "The plot is thin and the acting is wooden .", "A warm , funny film ."]
    degrees = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    t.precompute(others, degrees)
    rounds, embedded = len(calls), sum(calls)
    assert rounds <= 41  # one call per round for every open chain of every sentence, not one per prefix
    assert embedded <= 3 * 4 * 41 + 3
    for degree in degrees:
        for seed in range(20):
            t.apply(Example("a", TEXT), degree, np.random.default_rng(seed))
    assert len(calls) == rounds  # every draw at every degree is answered from the measured prefixes


def test_only_as_many_chains_as_asked_for_are_measured():
    def cost(chains: int) -> int:
        texts = []
        t = Distraction(embedder=FunctionModel(lambda x: texts.extend(x) or bag_of_words(x), "embed"), chains=chains)
        t.apply(Example("a", TEXT), 0.3, np.random.default_rng(0))
        measured = sum(len(chain.values) > 1 for chain in t._pool(TEXT))
        return len(texts), measured

    (few, measured_few), (many, measured_many) = cost(2), cost(8)
    assert measured_few < measured_many == 8 and few < many


def test_draws_land_in_the_band_or_say_they_could_not(transform):
    floor = 1 - REACH_TOLERANCE
    for degree in (0.05, 0.1, 0.3, 0.6):
        outs = [transform.apply(Example("a", TEXT), degree, np.random.default_rng(s))[0] for s in range(20)]
        for e in outs:
            assert e.meta["achieved"] <= degree
            assert e.meta["achieved"] == pytest.approx(transform.measure(TEXT, e.text), abs=1e-5)
            assert e.meta["unreached"] == (e.meta["achieved"] < floor * degree - 1e-9)
        if degree >= 0.3:
            assert not any(e.meta["unreached"] for e in outs)
    # this toy encoder moves the sentence by 0.04 or by more than 0.1 with the first distractor: flagged
    assert transform.apply(Example("a", TEXT), 0.1, np.random.default_rng(0))[0].meta["unreached"]


def test_deterministic_under_a_seed_and_varied_with_a_larger_pool():
    wide = Distraction(embedder=FunctionModel(bag_of_words, "embed"), pool=16, chains=8)

    def draw(seed: int) -> str:
        return wide.apply(Example("a", TEXT), 0.6, np.random.default_rng(seed))[0].text

    assert draw(7) == draw(7)
    assert len({draw(s) for s in range(10)}) >= 4  # draws pick among the chains that land in the band


def test_distractor_types():
    t = Distraction(embedder=FunctionModel(bag_of_words, "embed"))
    rng = np.random.default_rng(0)
    for _ in range(50):
        url = t.distractor("url", rng)
        assert url.startswith("https://") and set(url[len("https://"):]) <= set(URL_CHARS)
        assert len(url) > len("https://")
        assert t.distractor("statement", rng) in STATEMENTS
        assert 1 <= len(t.distractor("random", rng).split()) <= 5
    pool = wiki_sentences(100)
    assert len(pool) == 100 and len(set(pool)) == 100
    assert all(re.fullmatch(r"[A-Z][a-z]+ is .+\.", s) for s in pool)
    assert t.distractor("wiki", rng) in pool


def test_insertion_modes():
    clean = Distraction(embedder=FunctionModel(bag_of_words, "embed"))
    faithful = Distraction(embedder=FunctionModel(bag_of_words, "embed"), mode="faithful")
    text = "The plot is thin. The acting is good."
    assert clean.insert(text, "and true is true") == text + " and true is true"
    # RobTest's code: before the first . ! ? without a space, the rest of the text dropped (docs/attacks.md)
    assert faithful.insert(text, "and true is true") == "The plot is thinand true is true . "
    assert faithful.insert("no punctuation here", "and true is true") == "no punctuation hereand true is true"


def test_edit_appends_one_distractor(transform):
    rng = np.random.default_rng(3)
    out = transform.edit(TEXT, 0, rng, TEXT)
    assert out.startswith(TEXT + " ") and len(out) > len(TEXT)
    again = transform.edit(out, 0, rng, TEXT)
    assert again.startswith(out + " ")


def test_bad_settings():
    from robust.core.errors import RobustError

    with pytest.raises(RobustError):
        Distraction(mode="sideways")
    with pytest.raises(RobustError):
        Distraction(types=["url", "poem"])


@pytest.mark.slow
def test_real_minilm_degree_bound():
    from robust.core.plugins import get_registry

    t = Distraction(embedder=get_registry().model("minilm"))
    example = Example("a", TEXT)
    outs = [t.apply(example, 0.2, np.random.default_rng(seed))[0].text for seed in range(8)]
    for text in outs:
        assert text.startswith(TEXT)
        assert t.measure(TEXT, text) < 0.2
    assert any(text != TEXT for text in outs)
    assert t.describe()["embedder"] == "minilm"


def test_prefixes_are_probed_sparsely_not_step_by_step():
    """A long sentence needs many distractors to reach 0.6: the step count doubles, then interpolates, so a chain
    that lands has fewer measured prefixes than distractors kept (a step-by-step scan measures every one)."""
    long_text = " ".join(["the film is a long and careful study of grief , memory and the small rituals"] * 3)
    t = Distraction(embedder=FunctionModel(bag_of_words, "embed"))
    t.precompute([long_text], [0.6])
    landed = [(c.values, c.cut(0.6)[0]) for c in t._pool(long_text) if reaches(c.cut(0.6)[1], 0.6)]
    assert len(landed) == 4  # `chains` chains land in the band [0.48, 0.6]
    assert all(len(values) - 1 < cut for values, cut in landed if cut >= 8)
    assert any(cut >= 8 for _, cut in landed)


def test_many_draws_equal_draws_one_at_a_time_and_share_variants():
    """`apply_many` plans a sentence's chains once and draws each pick from a `Draws`: the variants and the generator
    state of `aug_num` draws made with the generator's own scalar calls, one variant object per chain drawn."""
    t = Distraction(embedder=FunctionModel(bag_of_words, "embed"))
    example = Example("a", TEXT)
    for degree in (0.1, 0.3, 0.6):
        many, single = np.random.default_rng(7), np.random.default_rng(7)
        drawn = [v for [v] in t.apply_many(example, degree, many, 20)]
        cuts, band, closest = t._plan(TEXT, "draw", degree)
        expected = []
        for _ in range(20):
            k = band[int(single.integers(len(band)))] if band else closest
            expected.append(t._pool(TEXT)[k].prefix(cuts[k]) if cuts[k] else TEXT)
        assert [v.text for v in drawn] == expected
        assert many.bit_generator.state == single.bit_generator.state
        assert len({id(v) for v in drawn}) == len({v.text for v in drawn})  # one variant object per chain drawn


def test_distractors_drawn_from_draws_equal_the_generators():
    """A distractor of every type drawn from a `Draws` (the pool's chains, a search step's candidates) is the one the
    generator's own calls draw (`rng.integers(1, 6)` as 1 + integers(5), arrays as scalars), state included."""
    from robust.toolkit.draws import Draws

    t = Distraction(embedder=FunctionModel(bag_of_words, "embed"))
    ref, rng = np.random.default_rng(11), np.random.default_rng(11)
    expected = [t.add_random_distraction(TEXT, ref) for _ in range(200)]
    with Draws(rng) as draws:
        assert [t.add_random_distraction(TEXT, draws) for _ in range(200)] == expected
    assert rng.bit_generator.state == ref.bit_generator.state


def test_chains_are_drawn_as_far_as_they_are_read_the_same_however_they_are_read():
    """A clean chain draws its distractors when a prefix is first read, from a generator of its own: nothing past the
    longest prefix measured or cut, and the same texts read in pieces, in another order or from threads at once."""
    from concurrent.futures import ThreadPoolExecutor

    t = Distraction(embedder=FunctionModel(bag_of_words, "embed"))
    for degree in (0.1, 0.3):
        t.apply(Example("a", TEXT), degree, np.random.default_rng(0))
    pool = t._pool(TEXT)
    assert all(len(chain.texts) == max(chain.values) for chain in pool)
    assert sum(len(chain.texts) for chain in pool) < len(pool) * t.steps // 2

    whole = [Distraction()._pool(TEXT)[k].prefix(t.steps) for k in range(len(pool))]
    assert len(set(whole)) == len(pool)  # each chain its own draws
    again = Distraction()._pool(TEXT)
    with ThreadPoolExecutor(4) as threads:  # every chain read at once by four threads, at steps in another order
        list(threads.map(lambda job: job[0].prefix(job[1]), [(c, j) for c in again[::-1] for j in (7, 1, 40, 3)]))
    assert [chain.prefix(t.steps) for chain in again] == whole
    assert [chain.texts[: len(read.texts)] for chain, read in zip(again, pool, strict=True)] == [c.texts for c in pool]
