"""Table cleaning with the authors' pandas semantics (docs/asr_predict.md), robust's own table format, round trip."""

from __future__ import annotations

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.benchmarks.asr_predict import table as T
from robust.plugins.benchmarks.asr_predict.constants import FEATURE_KEYS

HEADER = ("Index,Dataset,Average number of tokens,Number of unique tokens,Minimum number of tokens,"
          "Maximum number of tokens,Mean distance,Fisher ratio,CalHara Index,DaBou Index,Number of cluster,"
          "Pearson Med,Number of labels,Kurtosis,Misclassification rate,Number of classes,ASR_TextFooler,ASR_PWWS,"
          "ASR_BERT,ASR_DeepWordBug")


def _row(i: int, dataset: str, fr: str = "2.0", bert: str = "0.5", dwb: str = "0.3", tf: str = "0.6") -> str:
    return f"{i},{dataset},40.5,7000,5,200,0.5,{fr},500,2.1,3,0.0,4,1.5,0.8,4,{tf},0.9,{bert},{dwb}"


def _write(tmp_path, lines):
    path = tmp_path / "data.csv"
    path.write_text("\n".join([HEADER, *lines]) + "\n")
    return path


def test_authors_cleaning_semantics(tmp_path):
    path = _write(tmp_path, [
        _row(0, "ag_news"),
        _row(1, "banking77__4", bert="Nan"),  # 'Nan' only in ASR_BERT: kept (the column is dropped first)
        _row(2, "banking77__10", bert=""),  # empty ASR_BERT: pandas NA -> dropped before the column goes
        _row(3, "dbpedia", dwb="Nan"),  # 'Nan' in a kept column: dropped
        _row(4, "tweet_eval_emoji_2", tf="0.05"),  # kept, except with the released >= 0.1 filter
    ])
    t = T.load_table(path)
    assert t.variant.tolist() == ["ag_news", "banking77__4", "tweet_eval_emoji_2"]
    assert t.family.tolist() == ["ag_news", "banking77", "tweet_eval_emoji"]
    assert t.y[0] == pytest.approx((0.6 + 0.9 + 0.3) / 3)  # mean of TextFooler, PWWS, DeepWordBug
    assert t.X[0, FEATURE_KEYS.index("fr")] == pytest.approx(0.5)  # FR := 1 / Fisher ratio
    assert t.X.shape == (3, 13)
    assert T.load_table(path, asr_filter=True).variant.tolist() == ["ag_news", "banking77__4"]


def test_own_format_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    t = T.Table(rng.normal(size=(4, 13)), rng.uniform(size=4), np.array(["a_2", "a_4", "b", "b"]),
                np.array(["a", "a", "b", "b"]))
    T.write_table(t, tmp_path / "own.csv")
    back = T.load_table(tmp_path / "own.csv")
    np.testing.assert_array_equal(back.X, t.X)
    np.testing.assert_array_equal(back.y, t.y)
    assert back.family.tolist() == ["a", "a", "b", "b"]
    assert t.without("md").features == tuple(k for k in FEATURE_KEYS if k != "md")


@pytest.mark.parametrize("content, message", [
    ("Dataset,ASR\nx,0.5\n", "missing column"),
    ("a,b\n1,2\n", "missing column 'Dataset'"),
    ("", "empty"),
])
def test_bad_tables_are_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(RobustError, match=message):
        T.load_table(path)
    with pytest.raises(RobustError, match="not found"):
        T.load_table(tmp_path / "absent.csv")


def test_corpus_family_merges_relabelled_variants():
    assert T.corpus_family("banking77__14") == "banking77"
    assert T.corpus_family("tweet_eval_emoji_5") == "tweet_eval_emoji"
    assert T.corpus_family("amazon_review_full") == "amazon_review_full"


def test_authors_tables_clean_to_the_published_row_counts(robusttext):
    # docs/validation/asr_predict.md: BERT 454 -> 437 (-> 394 with the >= 0.1 filter); RoBERTa 398 -> 362 (-> 359)
    for name, n, n_filtered, mean in (("bert", 437, 394, 0.625), ("roberta", 362, 359, 0.591)):
        t = T.load_table(robusttext / f"data_{name}.csv")
        assert len(t) == n and len(T.load_table(robusttext / f"data_{name}.csv", asr_filter=True)) == n_filtered
        assert t.y.mean() == pytest.approx(mean, abs=5e-4)
        assert (len(np.unique(t.variant)), len(np.unique(t.family))) == (17, 9)
        # docs/asr_predict.md: CHI == (N - K) / ((K - 1) FR) with N = 900 and K = # labels (= # classes here)
        x = dict(zip(t.features, t.X.T))
        assert np.allclose(x["chi"], (900 - x["classes"]) / ((x["classes"] - 1) * x["fr"]), rtol=1e-6)


def test_cleaning_equals_pandas(robusttext):
    pd = pytest.importorskip("pandas")
    for name in ("bert", "roberta"):
        df = pd.read_csv(robusttext / f"data_{name}.csv")
        df = df[df.notnull().all(axis=1)].drop(columns=["ASR_BERT"])
        df = df[(df != "Nan").all(axis=1)]
        t = T.load_table(robusttext / f"data_{name}.csv")
        assert t.variant.tolist() == df["Dataset"].tolist()
        asr = df[list(T.ATTACKS)].astype(float).mean(axis=1).to_numpy()
        np.testing.assert_allclose(t.y, asr)
        np.testing.assert_allclose(t.X[:, FEATURE_KEYS.index("fr")], 1 / df["Fisher ratio"].astype(float))
