"""BYOD metrics: JSD by hand, entropy, bad-word counting quirks, bootstrap, corpus streaming and sampling."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from robust.core.errors import MissingResource, RobustError
from robust.plugins.benchmarks.byod import corpus, metrics
from robust.plugins.benchmarks.byod.metrics import (
    LN2,
    count_badwords_faithful,
    entropy,
    has_badword,
    jsd,
    load_badwords,
)
from robust.toolkit.stats import bootstrap, separable


def test_jsd_matches_a_hand_computation():
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5])
    m = np.array([0.375, 0.375, 0.25])
    by_hand = 0.5 * (2 * 0.5 * math.log(0.5 / 0.375)) + 0.5 * (2 * 0.25 * math.log(0.25 / 0.375)
                                                              + 0.5 * math.log(0.5 / 0.25))
    assert m.sum() == 1.0
    assert jsd(p, q) == pytest.approx(by_hand, abs=1e-9)
    assert jsd(p, q) == pytest.approx(jsd(q, p), abs=1e-12)


def test_jsd_bounds():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(50), size=4)
    assert np.all(np.abs(jsd(p, p)) < 1e-7)
    a, b = np.eye(3)[0], np.eye(3)[1]
    assert jsd(a, b) == pytest.approx(LN2, abs=1e-9)
    q = rng.dirichlet(np.ones(50), size=4)
    assert np.all((jsd(p, q) >= 0) & (jsd(p, q) <= LN2))


def test_entropy_in_nats():
    assert entropy(np.full(8, 1 / 8)) == pytest.approx(math.log(8))
    assert entropy(np.eye(4)[2]) == 0.0


def test_faithful_count_reproduces_the_code_quirks():
    bad = ["fuck", "2 girls 1 cup", "shit"]
    assert count_badwords_faithful("the cat. fuck fuck", bad, "Fuck Fuck") == 0  # trigger subtracted
    assert count_badwords_faithful("the cat. fuck", bad, "Fuck Fuck") == -1  # subtracted even if absent
    assert count_badwords_faithful("shit happens, shit.", bad, "Fuck Fuck") == 2
    assert count_badwords_faithful("look: 2 girls 1 cup", bad, "Fuck Fuck") == 0  # multi-word never counts
    assert count_badwords_faithful("scunthorpe", ["cunt"], "x") == 0  # substring gate, whole-word count


def test_clean_badword_match_counts_multiword_entries_and_whole_words_only():
    bad = ["fuck", "2 girls 1 cup"]
    assert has_badword("look: 2  girls 1 cup!", bad)
    assert has_badword("What the FUCK?", bad)
    assert not has_badword("fuckwit-free zone", ["fuck"])


def test_badword_sources(tmp_path, monkeypatch):
    f = tmp_path / "bad.txt"
    f.write_text("Foo\nbar baz\n\nfoo\n")
    words, source = load_badwords(str(f))
    assert words == ["bar baz", "foo"] and source == str(f)
    with pytest.raises(RobustError):
        load_badwords(str(tmp_path / "missing.txt"))
    packaged, source = load_badwords("")
    assert source == "better-profanity" and len(packaged) > 500
    monkeypatch.setattr(metrics, "package_dir", lambda name: None)
    with pytest.raises(MissingResource, match="badwords_path"):
        load_badwords("")


def test_bootstrap_interval_brackets_the_statistic_and_is_deterministic():
    v = np.random.default_rng(1).normal(0.3, 0.1, size=400)
    ci = bootstrap(v, "mean", seed=0)
    assert ci.low < v.mean() < ci.high and ci.high - ci.low < 0.05
    assert bootstrap(v, "mean", seed=0) == ci
    assert ci.se == pytest.approx(0.1 / np.sqrt(400), rel=0.15)
    med = bootstrap(v, "median", seed=0)
    assert med.low < np.median(v) < med.high


def coverage(interval_fn, statistic, truth, reps=300):
    rng = np.random.default_rng(7)
    hits = 0
    for seed in range(reps):
        sample = rng.exponential(1.0, size=60)  # skewed, so the median and mean differ
        lo, hi = interval_fn(sample, statistic, seed)
        hits += lo <= truth <= hi
    return hits / reps


def test_bootstrap_covers_mean_and_median_at_its_level_and_wrong_intervals_do_not():
    """Percentile bootstrap over examples: ~95 % coverage of the mean (1) and median (ln 2) of an exponential;
    negative controls: resampling without replacement (zero width) and the sample sd taken for the se."""
    right = lambda v, stat, seed: (lambda c: (c.low, c.high))(bootstrap(v, stat, seed, 300))  # noqa: E731
    assert 0.9 <= coverage(right, "mean", 1.0) <= 0.99
    assert 0.88 <= coverage(right, "median", np.log(2)) <= 0.99

    def without_replacement(v, stat, seed):  # every "resample" is a permutation: zero width
        return float(np.mean(v)), float(np.mean(v))

    def sd_as_se(v, stat, seed):  # the spread of the data instead of that of the statistic
        return float(np.mean(v) - 1.96 * v.std()), float(np.mean(v) + 1.96 * v.std())

    assert coverage(without_replacement, "mean", 1.0) < 0.1
    assert coverage(sd_as_se, "mean", 1.0) == 1.0  # vacuous: never misses, so it cannot be the 95 % interval


def test_separable_uses_both_standard_errors():
    assert separable(0.30, 0.01, 0.25, 0.01) is True  # 0.05 > 1.96 * 0.0141
    assert separable(0.30, 0.02, 0.25, 0.02) is False  # 0.05 < 1.96 * 0.0283
    assert separable(0.3, float("nan"), 0.2, 0.01) is None


def test_corpora_come_through_the_file_dataset(tmp_path, gpt2_dir):
    """BYOD reads plain text (paragraphs or lines), JSONL and CSV corpora through the registered `file` dataset."""
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.byod.benchmark import BYOD

    txt = tmp_path / "c.txt"
    txt.write_text("First para line one.\nLine two is here.\n\nSecond para. It has two sentences.\n")
    jl = tmp_path / "c.jsonl"
    jl.write_text(json.dumps({"body": "A b is c. D e f."}) + "\n\n" + json.dumps({"body": "C d. G h i."}) + "\n")
    cv = tmp_path / "c.csv"
    cv.write_text('label,text\n1,"Multi\nline. Text here."\n0,Other. And more.\n')
    second = "Second para. It has two sentences."
    cases = [(txt, {}, ["First para line one. Line two is here.", second]),
             (txt, {"per_line": True}, ["First para line one.", "Line two is here.", second]),
             (jl, {"text_column": "body"}, ["A b is c. D e f.", "C d. G h i."]),
             (cv, {}, ["Multi line. Text here.", "Other. And more."])]
    for path, settings, expected in cases:
        ctx = RunContext("t", 0, None, get_registry(), data=str(path))
        assert [p.text for p in BYOD(**settings)._corpus(ctx)] == expected
    with pytest.raises(RobustError, match="c.jsonl:1: missing column 'text'"):
        list(BYOD()._corpus(RunContext("t", 0, None, get_registry(), data=str(jl))))
    with pytest.raises(RobustError, match="no such file"):
        list(BYOD()._corpus(RunContext("t", 0, None, get_registry(), data=str(tmp_path / "nope.txt"))))


def test_sentence_splitters_agree_on_plain_prose():
    text = "The film opens in Paris. It was shot in 1999! Was it good? Critics said yes."
    expected = ["The film opens in Paris.", "It was shot in 1999!", "Was it good?", "Critics said yes."]
    assert corpus.split_sentences(text, "regex") == expected
    if corpus.punkt_available():
        assert corpus.split_sentences(text, "nltk") == expected


def test_bottom_k_sample_ignores_stream_order():
    def sample(order):
        s = corpus.BottomK(5, seed=3, label="t")
        for i in order:
            s.offer((i,), i)
        return s.items()

    forward, backward = sample(range(100)), sample(reversed(range(100)))
    assert forward == backward and len(set(forward)) == 5
    other_seed = corpus.BottomK(5, seed=4, label="t")
    for i in range(100):
        other_seed.offer((i,), i)
    assert other_seed.items() != forward


def test_wikitext_detokenizer():
    raw = " = Valkyria = \n The game @-@ play , was 1 @,@ 000 ( big ) . It 's N ."
    out = corpus.wikitext_detokenize(raw)
    assert "game-play, was 1,000 (big). It's 1 ." in out
