"""The synthetic sentence generator (Ko et al. 2023, §2.2, App. A.5): nesting-parentheses sentences from the mixing
distribution D of Ko 2024, eq. (6.1), balanced labelled datasets per difficulty level p, and a train/test split."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from robust.toolkit.draws import Draws
from robust.toolkit.lazy import np


@dataclass(frozen=True)
class GeneratorConfig:
    p_e: float = 1 / 12  # <eos> probability; unstated in the paper, mean length 12 (docs/syntextbench.md)
    p_n: float = 0.5  # weight of "pop the last unpaired word" (Ko et al. 2023, App. A.5; Ko 2024, eq. 6.1)
    max_len: int = 128  # safety truncation, not in the paper (P(L > 128) ~ 1.5e-5)


@dataclass
class Sentence:
    tokens: list[str]
    neutral: list[bool]  # per token: drawn (or copied) from the neutral list
    pops: list[bool]  # per token: a copy popped from the stack of unpaired words

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def sample_sentence(polar: Sequence[str], neutral: Sequence[str], p: float, rng: np.random.Generator | Draws,
                    cfg: GeneratorConfig = GeneratorConfig()) -> Sentence:
    """One sentence from D (Ko 2024, eq. 6.1): <eos> w.p. p_e (never before the first word), else pop the last
    unpaired word w.p. p_n (stack non-empty), else a new word from p*f_NEU + (1-p)*f_POLAR, pushed."""
    stack: list[tuple[str, bool]] = []
    tokens: list[str] = []
    is_neu: list[bool] = []
    pops: list[bool] = []
    while len(tokens) < cfg.max_len:
        if tokens and rng.random() < cfg.p_e:
            break
        if stack and rng.random() < cfg.p_n:
            word, neu = stack.pop()
            pops.append(True)
        else:  # an empty stack gives its p_n(1-p_e) mass to new words (Ko et al. 2023, A.5)
            neu = bool(rng.random() < p)
            source = neutral if neu else polar
            # uniform over entries, duplicates kept (Ko et al. 2023, §2.2)
            word = source[int(rng.integers(len(source)))]
            stack.append((word, neu))
            pops.append(False)
        tokens.append(word)
        is_neu.append(neu)
    return Sentence(tokens, is_neu, pops)


@dataclass
class SyntheticTask:
    """One labelled synthetic dataset at difficulty p, split into train and test."""

    p: float
    train_texts: list[str]
    train_y: np.ndarray
    test_texts: list[str]
    test_y: np.ndarray
    neutral_share: float  # observed fraction of neutral tokens (tracks p)
    mean_length: float

    @property
    def texts(self) -> list[str]:
        return self.train_texts + self.test_texts


def balanced_labels(n: int, rng: np.random.Generator) -> np.ndarray:
    """Exactly n/2 labels +1 and n - n/2 labels -1, shuffled (docs/syntextbench.md)."""
    ys = np.array([1] * (n // 2) + [-1] * (n - n // 2))
    rng.shuffle(ys)
    return ys


def sample_corpus(ys: np.ndarray, p: float, pos: Sequence[str], neg: Sequence[str], neu: Sequence[str],
                  rng: np.random.Generator, cfg: GeneratorConfig) -> list[Sentence]:
    with Draws(rng) as draws:  # ~3 scalar draws a word: the generator's values at C speed
        return [sample_sentence(pos if y == 1 else neg, neu, p, draws, cfg) for y in ys]


def stratified_split(ys: np.ndarray, test_frac: float,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Train and test indices with `test_frac` of each class held out (docs/syntextbench.md: 90/10)."""
    train, test = [], []
    for c in (1, -1):
        idx = np.flatnonzero(ys == c)
        rng.shuffle(idx)
        k = int(round(len(idx) * test_frac))
        test.append(idx[:k])
        train.append(idx[k:])
    return np.concatenate(train), np.concatenate(test)


def make_task(n: int, p: float, pos: Sequence[str], neg: Sequence[str], neu: Sequence[str],
              rng: np.random.Generator, cfg: GeneratorConfig = GeneratorConfig(), split: str = "holdout",
              test_frac: float = 0.1) -> SyntheticTask:
    """A balanced dataset of n sentences at level p. split='holdout': stratified test_frac of the n is held
    out (default); split='independent': a second, independent set of n sentences is the test set."""
    ys = balanced_labels(n, rng)
    sents = sample_corpus(ys, p, pos, neg, neu, rng, cfg)
    if split == "holdout":
        tr, te = stratified_split(ys, test_frac, rng)
        train = ([sents[i] for i in tr], ys[tr])
        test = ([sents[i] for i in te], ys[te])
    elif split == "independent":
        test_ys = balanced_labels(n, rng)
        train = (sents, ys)
        test = (sample_corpus(test_ys, p, pos, neg, neu, rng, cfg), test_ys)
    else:
        raise ValueError(f"unknown split {split!r}")
    everything = train[0] + test[0]
    n_tok = sum(len(s.tokens) for s in everything)
    share = sum(sum(s.neutral) for s in everything) / max(n_tok, 1)
    return SyntheticTask(p, [s.text for s in train[0]], train[1], [s.text for s in test[0]], test[1],
                         float(share), n_tok / max(len(everything), 1))
