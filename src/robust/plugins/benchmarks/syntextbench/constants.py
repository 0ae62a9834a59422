"""SynTextBench's fixed numbers and setting choices, shared by its modules: the paper's level grid and setting
(Ko et al. 2023, App. A.12; docs/syntextbench.md), the scorings, the poolings and the lexicon default."""

from __future__ import annotations

#: the 20 difficulty levels P = {0, 0.05, ..., 0.95} (Ko et al. 2023, §2.4)
P_GRID: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(20))
SCALINGS = ("ratio", "literal", "pooled")
SECONDARY_A_T = 0.6  # docs/syntextbench.md: also report a_T = 0.6
DEFAULT_LEXICON = "afinn"
POOLINGS = ("auto", "first-last-avg", "last-token", "mean", "cls")
DECODER_CAPABILITIES = frozenset({"generate", "logprobs", "next_token_distribution"})
#: the benchmark's settings that go to its sentence generator
GENERATOR_SETTINGS = ("lexicon", "lexicon_path", "dedupe", "p_e", "p_n", "max_len", "split", "test_frac")
#: `--set precision=paper`: the paper's setting as Ko et al. 2023, App. A.12 and docs/syntextbench.md define it
#: (SentiWordNet 3.0, n = 8192
#: per level, 20 levels, 3 trials, one stratified 90/10 split, the literal d_inter, a_T = 0.7)
PAPER = {"n": 8192, "trials": 3, "lexicon": "sentiwordnet", "folds": 1, "debias": "false", "levels": list(P_GRID),
         "split": "holdout", "test_frac": 0.1, "a_T": 0.7, "p_e": 1 / 12, "p_n": 0.5, "energy": 0.99,
         "scaling": "ratio", "direction": "e1", "pooling": "auto", "dedupe": False, "max_len": 128}
DEBIAS_BELOW = 4096  # debias=auto: the smallest n of the paper (Ko et al. 2023, Table 1); below it, d_inter is debiased
