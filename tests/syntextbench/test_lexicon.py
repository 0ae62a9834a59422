"""Lexicons: the paper's word-list rule on both SentiWordNet layouts, file discovery, the embedded default,
third-party lexicon plugins."""

from __future__ import annotations

import zipfile

import pytest

from robust.core.errors import MissingResource, RobustError
from robust.core.interfaces import DataGenerator, Example
from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench
from robust.plugins.benchmarks.syntextbench.data import SyntheticSentences
from robust.plugins.benchmarks.syntextbench.lexicon import (
    NEGATIONS,
    SWN_ENV,
    find_sentiwordnet,
    paper_stopwords,
    read_sentiwordnet,
    word_lists_from_examples,
)

from .conftest import SHARED_SWN, make_ctx, random_embedder

# [P] Table 4: (PosScore, NegScore, SynsetTerms)
TABLE4 = [(0.125, 0, "able#1"), (0, 0, "acroscopic#1"), (0.5, 0.125, "living#3"), (0.5, 0, "accurate#1"),
          (0, 0.5, "unfaithful#4"), (0, 0.75, "unable#1"), (0.5, 0.5, "unquestioning#2"),
          (0.625, 0.25, "concrete#1"), (0, 0, "straight#5"), (0.5, 0.125, "active#5")]


def write_swn(path, six_columns: bool):
    lines = ["# SentiWordNet test file", "# POS\tID\tPosScore\tNegScore\tSynsetTerms\tGloss"] if six_columns else []
    for i, (ps, ns, terms) in enumerate(TABLE4):
        cols = ["a", f"{i:08d}", str(ps), str(ns), terms, "a gloss; with words"] if six_columns else \
            [str(ps), str(ns), terms]
        lines.append("\t".join(cols))
    lines.append("\t\t\t\t\t")  # the official file ends with an empty row
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("six", [True, False])
def test_table4_rule_on_both_layouts(tmp_path, six):
    lists = read_sentiwordnet(write_swn(tmp_path / "swn.txt", six))
    assert sorted(lists.pos) == sorted(["able", "living", "accurate", "concrete", "active"])
    assert sorted(lists.neg) == ["unable", "unfaithful"]
    assert sorted(lists.neu) == ["acroscopic", "straight"]
    assert "unquestioning" not in lists.pos + lists.neg + lists.neu  # PosScore = NegScore > 0 is dropped
    assert lists.scores["unable"] == pytest.approx(-0.75)


def test_multiword_lemmas_and_duplicates_kept(tmp_path):
    path = tmp_path / "swn.txt"
    path.write_text("0.5\t0\tgood#1 the_right_way#2\n0.25\t0\tgood#3\n0\t0\tlotus-eater#1\n0\t0.5\tbad#1\n")
    lists = read_sentiwordnet(path)
    assert lists.pos == ["good", "the_right_way", "good"]  # a multiset: one entry per qualifying sense
    assert lists.deduped().pos == ["good", "the_right_way"]
    assert lists.neu == ["lotus-eater"]


@pytest.mark.skipif(not SHARED_SWN.exists(), reason="shared SentiWordNet copy not available")
def test_shared_sentiwordnet_counts():
    lists = read_sentiwordnet(SHARED_SWN)
    # docs/syntextbench.md: 23,148 / 26,439 / 154,993 (paper: 23,147 / 26,440 / 154,993, Ko et al. 2023, App. A.3)
    assert lists.sizes() == {"pos": 23148, "neg": 26439, "neu": 154993}
    assert {"rarefy", "shine", "pleasurable"} <= set(lists.pos)  # words of the printed examples (Ko 2024, §6.4.2)
    assert {"unpleasant", "loser", "dishonesty"} <= set(lists.neg)


def test_discovery_order(tmp_path, monkeypatch):
    explicit = write_swn(tmp_path / "a.txt", True)
    env_dir = tmp_path / "env"
    env_dir.mkdir()
    write_swn(env_dir / "SentiWordNet_3.0.0.txt", False)
    monkeypatch.setenv(SWN_ENV, str(env_dir))
    assert find_sentiwordnet(str(explicit)) == explicit
    assert find_sentiwordnet("") == env_dir / "SentiWordNet_3.0.0.txt"
    monkeypatch.delenv(SWN_ENV)
    nltk_dir = tmp_path / "nltk"
    (nltk_dir / "corpora").mkdir(parents=True)
    with zipfile.ZipFile(nltk_dir / "corpora" / "sentiwordnet.zip", "w") as zf:
        zf.write(explicit, "sentiwordnet/SentiWordNet_3.0.0.txt")
    monkeypatch.setenv("NLTK_DATA", str(nltk_dir))
    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path / "cache"))
    found = find_sentiwordnet("")
    assert found.name == "sentiwordnet.zip"
    assert sorted(read_sentiwordnet(found).neg) == ["unable", "unfaithful"]


def test_missing_file_is_one_line_error(tmp_path, monkeypatch):
    monkeypatch.delenv(SWN_ENV, raising=False)
    with pytest.raises(MissingResource) as err:
        find_sentiwordnet(str(tmp_path / "nope.txt"))
    assert "\n" not in str(err.value) and "nope.txt" in str(err.value)
    bad = tmp_path / "bad.txt"
    bad.write_text("hello world\n")
    with pytest.raises(RobustError):
        read_sentiwordnet(bad)


def test_embedded_lexicon(afinn_lists):
    assert afinn_lists.name == "afinn" and "afinn" in afinn_lists.source
    sizes = afinn_lists.sizes()
    assert sizes["pos"] > 1000 and sizes["neg"] > 2000 and sizes["neu"] > 20000
    assert not set(afinn_lists.neu) & (set(afinn_lists.pos) | set(afinn_lists.neg))
    assert not set(afinn_lists.neu) & (paper_stopwords() | NEGATIONS)
    assert "good" in afinn_lists.pos and "bad" in afinn_lists.neg
    assert afinn_lists.scores["good"] > 0 > afinn_lists.scores["bad"]
    assert len(paper_stopwords()) == 271  # the 284 printed stop words, deduplicated


class TinyLexicon(DataGenerator):
    name = "tiny-lexicon"
    description = "test lexicon"

    def examples(self, seed=0):
        for i, (w, y) in enumerate([("joy", "pos"), ("grief", "neg"), ("table", "neu"), ("chair", 0)]):
            yield Example(str(i), w, y)


def test_third_party_lexicon_plugin(registry):
    from robust.core.registry import Entry

    registry.add(Entry("dataset", TinyLexicon.name, TinyLexicon, "test", "test-dist", "0"))
    try:
        lists = SyntheticSentences(lexicon="tiny-lexicon").word_lists()
        assert (lists.pos, lists.neg, sorted(lists.neu)) == (["joy"], ["grief"], ["chair", "table"])
        assert lists.info()["lexicon"] == "tiny-lexicon"
        with pytest.raises(RobustError):
            SyntheticSentences(lexicon="tiny-lexicon", lexicon_path="x").word_lists()
        bench = SynTextBench(lexicon="tiny-lexicon", n=40, levels=[0.0, 0.5])
        ctx = make_ctx(registry, random_embedder())
        bench.prepare(ctx)
        records = {i.id: bench.run_item(i, ctx) for i in bench.items(ctx)}
        assert all(r["lexicon"] == "tiny-lexicon" and r["lexicon_rule_accuracy"] is None for r in records.values())
        result = bench.reduce(records, ctx)
        assert result.summary["lexicon"] == "tiny-lexicon" and result.summary["lexicon_pos"] == 1
        assert len(bench.figures(result)) == 2
    finally:
        registry.entries["dataset"].pop(TinyLexicon.name)
    with pytest.raises(RobustError):
        word_lists_from_examples("empty", [Example("0", "joy", "pos")])


def test_lexicon_selection(registry, tmp_path):
    path = write_swn(tmp_path / "swn.txt", True)
    assert SyntheticSentences().lexicon_name() == "afinn"
    lists = SyntheticSentences(lexicon_path=str(path)).word_lists()
    assert lists.name == "sentiwordnet" and lists.source == str(path)
    assert SyntheticSentences(lexicon_path=str(path), dedupe=True).word_lists().sizes()["pos"] == 5
    with pytest.raises(RobustError, match="unknown lexicon 'nonexistent'"):
        SyntheticSentences(lexicon="nonexistent").word_lists()
