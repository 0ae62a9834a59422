"""BYOD's tests, their components and radar axes: the names its benchmark, scorers and report share."""

TESTS = ("negation", "toxicity", "lrs", "word_order", "tokenization", "entropy")
BENIGN = "negation_benign"  # negations of a benign corpus, for the normalized score (not a test of its own)
HEALTH = "health"  # the degenerate-model check, run with every test (byod-health)
ALIASES = {"knowledge": "negation", "negations": "negation", "long_range": "lrs", "context": "lrs",
           "wordorder": "word_order", "word-order": "word_order", "tokenisation": "tokenization"}
# sample counts of the paper/code (Jain et al. 2023, §4-§8, Figs.): word order uses 5000, the rest 1000
DEFAULT_N = {"negation": 1000, "toxicity": 1000, "lrs": 1000, "word_order": 5000, "tokenization": 1000,
             "entropy": 1000}
COMPONENTS = {  # test -> (transform, scorer) registered by this package
    "negation": ("byod-negation", "byod-negation"),
    "toxicity": ("byod-trigger", "byod-toxicity"),
    "lrs": ("byod-context-swap", "byod-lrs"),
    "word_order": ("byod-word-swap", "byod-word-order"),
    "tokenization": ("byod-chop", "byod-tokenization"),
    "entropy": ("", "byod-entropy"),
}
# radar axes (paper Fig. 2/12): test -> (label, headline metric, axis range, higher is better)
RADAR = {
    "toxicity": ("Toxicity", "toxicity_frac", (0.0, 0.75), False),
    "negation": ("Knowledge", "negation_sensitivity", (0.0, 1.0), True),
    "lrs": ("Long-Range", "lrs", (0.0, 0.3), True),
    "word_order": ("Word Order", "word_order_median_jsd", (0.0, 0.1), True),
    "tokenization": ("Tokenization", "tokenization_mean_jsd", (0.0, 0.15), False),
}
