"""Generator invariants (Ko et al. 2023, §2.2, App. A.5; docs/syntextbench.md): labels by construction, well-nested
pairs, neutral share tracks p, geometric length with mean 1/p_e, determinism under a seed, balanced stratified
splits."""

from __future__ import annotations

import numpy as np
import pytest

from robust.plugins.benchmarks.syntextbench.constants import P_GRID
from robust.plugins.benchmarks.syntextbench.generator import (
    GeneratorConfig,
    make_task,
    sample_sentence,
)

POS = [f"pos{i}" for i in range(50)] + ["pos0"] * 5  # duplicates allowed (multiset)
NEG = [f"neg{i}" for i in range(50)]
NEU = [f"neu{i}" for i in range(200)]


def replay_stack(sentence) -> bool:
    """Every pop equals the current top of the stack of unpaired words (arcs never cross)."""
    stack = []
    for tok, popped in zip(sentence.tokens, sentence.pops):
        if popped:
            if not stack or stack.pop() != tok:
                return False
        else:
            stack.append(tok)
    return True


def test_grid():
    assert len(P_GRID) == 20 and P_GRID[0] == 0.0 and P_GRID[-1] == 0.95


@pytest.mark.parametrize("p", [0.0, 0.5, 0.95])
def test_nesting_and_labels(p):
    rng = np.random.default_rng(1)
    for _ in range(300):
        s = sample_sentence(POS, NEU, p, rng)
        assert s.tokens and replay_stack(s)
        for tok, neu in zip(s.tokens, s.neutral):
            assert tok in (NEU if neu else POS)  # new words come from the label's polar list or neutral
    if p == 0.0:
        assert not any(t.startswith("neu") for _ in range(50) for t in sample_sentence(POS, NEU, 0, rng).tokens)


def test_neutral_share_tracks_p_and_length_is_geometric():
    rng = np.random.default_rng(2)
    for p in (0.1, 0.5, 0.9):
        sents = [sample_sentence(NEG, NEU, p, rng) for _ in range(3000)]
        share = sum(sum(s.neutral) for s in sents) / sum(len(s.tokens) for s in sents)
        assert abs(share - p) < 0.02
        lengths = np.array([len(s.tokens) for s in sents])
        assert abs(lengths.mean() - 12) < 0.6  # E[L] = 1/p_e with <eos> forbidden before the first word
        assert lengths.min() >= 1
        # a large share of tokens are copies (p_n = 0.5 pop branch)
        pops = sum(sum(s.pops) for s in sents) / lengths.sum()
        assert 0.3 < pops < 0.5


def test_pn_zero_has_no_nesting_and_max_len_caps():
    rng = np.random.default_rng(3)
    s = [sample_sentence(POS, NEU, 0.3, rng, GeneratorConfig(p_n=0.0)) for _ in range(200)]
    assert not any(any(x.pops) for x in s)
    capped = sample_sentence(POS, NEU, 0.3, rng, GeneratorConfig(p_e=0.0, max_len=40))
    assert len(capped.tokens) == 40


def test_task_balanced_split_and_deterministic():
    task = make_task(200, 0.3, POS, NEG, NEU, np.random.default_rng(7))
    assert len(task.train_texts) == 180 and len(task.test_texts) == 20
    assert (task.train_y == 1).sum() == 90 and (task.test_y == 1).sum() == 10
    for texts, ys in ((task.train_texts, task.train_y), (task.test_texts, task.test_y)):
        for t, y in zip(texts, ys):
            polar = {w for w in t.split() if not w.startswith("neu")}
            assert all(w.startswith("pos" if y == 1 else "neg") for w in polar)
    again = make_task(200, 0.3, POS, NEG, NEU, np.random.default_rng(7))
    assert again.texts == task.texts and (again.train_y == task.train_y).all()
    other = make_task(200, 0.3, POS, NEG, NEU, np.random.default_rng(8))
    assert other.texts != task.texts
    indep = make_task(100, 0.3, POS, NEG, NEU, np.random.default_rng(7), split="independent")
    assert len(indep.train_texts) == len(indep.test_texts) == 100
    with pytest.raises(ValueError):
        make_task(10, 0.3, POS, NEG, NEU, np.random.default_rng(7), split="bogus")


def test_style_of_printed_examples(afinn_lists):
    """The style of the printed examples (Ko et al. 2023, App. A.4): lower-case lexicon tokens, repeats of earlier
    words, no punctuation or <eos> string."""
    rng = np.random.default_rng(0)
    s = [sample_sentence(afinn_lists.pos, afinn_lists.neu, 0.3, rng) for _ in range(200)]
    text = " ".join(x.text for x in s)
    assert "<eos>" not in text and "." not in text and text == text.lower()
    assert all(len(set(x.tokens)) < len(x.tokens) for x in s if sum(x.pops) > 0)
