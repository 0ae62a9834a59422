"""A compact WordNet 3.0 index that loads in a few hundredths of a second, answering as NLTK's reader does.

`robust setup wordnet-index` parses the WordNet files that `robust setup wordnet` assembled (index.*, data.*,
*.exc) once into one pickle: lemma -> synsets per POS, the morphological exception lists, and one JSON record
per synset (decoded on first access). NLTK's reader takes seconds to import and load; this does not import
NLTK at all.

The API is the part of NLTK's that robust's attacks use, with the same answers:

    wn = wordnet_index()
    wn.synsets("dogs")                  # morphy + index, same synsets in the same order as NLTK
    wn.synsets("good", pos="a")         # 'a' includes satellites, 's' only satellites (as NLTK)
    s.name(), s.pos(), s.lemma_names(), s.definition(), s.examples(), s.lemmas()
    s.hypernyms(), s.hyponyms(), s.similar_tos(), ...   # in WordNet's file order
    lemma.antonyms(), lemma.pertainyms(), lemma.derivationally_related_forms()
    wn.morphy("churches", "n"), wn.synset("dog.n.01"), wn.lemmas("dog")

One deliberate difference: NLTK keeps a synset's relations in a set, so `hyponyms()` comes in a different order
in every process (Python's string hashing is randomized); here relations keep the data file's order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from robust.core.errors import MissingResource
from robust.core.locations import cache_path
from robust.toolkit import pickled

FORMAT = 1
POS_LIST = ("n", "v", "a", "r")  # what synsets(lemma) searches without a POS, in this order (as NLTK)
FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# WordNet's detachment rules per POS (morphy(7WN)); 's' shares the adjective's
SUBSTITUTIONS = {
    "n": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
SUBSTITUTIONS["s"] = SUBSTITUTIONS["a"]
# pointer symbols (wninput(5WN)) behind NLTK's relation methods
SYNSET_RELATIONS = {
    "hypernyms": "@", "instance_hypernyms": "@i", "hyponyms": "~", "instance_hyponyms": "~i",
    "member_holonyms": "#m", "substance_holonyms": "#s", "part_holonyms": "#p", "member_meronyms": "%m",
    "substance_meronyms": "%s", "part_meronyms": "%p", "attributes": "=", "entailments": "*", "causes": ">",
    "also_sees": "^", "verb_groups": "$", "similar_tos": "&", "topic_domains": ";c", "region_domains": ";r",
    "usage_domains": ";u", "in_topic_domains": "-c", "in_region_domains": "-r", "in_usage_domains": "-u",
}
LEMMA_RELATIONS = {"antonyms": "!", "pertainyms": "\\", "derivationally_related_forms": "+", "also_sees": "^",
                   "verb_groups": "$"}
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")  # adjective syntactic markers: good(a), galore(ip)


def _file_pos(pos: str) -> str:
    return "a" if pos == "s" else pos


# --- building -------------------------------------------------------------------------------------------------
def _data_lines(wordnet_dir: Path, pos: str):
    with open(wordnet_dir / f"data.{FILES[pos]}", encoding="utf-8") as fp:
        for line in fp:
            if not line.startswith(" "):  # the license header is indented
                yield line


def build_index(wordnet_dir: Path) -> dict[str, Any]:
    """Parse WordNet's index, data and exception files (wndb(5WN)) into the compact structure."""
    raw: list[dict[str, Any]] = []  # synsets in file order; pointers as (file pos, offset) for now
    ids: dict[tuple[str, int], int] = {}
    satellites: set[int] = set()
    for pos in POS_LIST:
        for line in _data_lines(wordnet_dir, pos):
            columns, _, gloss = line.strip().partition("|")
            fields = columns.split()
            offset, ss_type, n_words = int(fields[0]), fields[2], int(fields[3], 16)
            names = [_MARKER.match(fields[4 + 2 * k]).group(1) for k in range(n_words)]
            at = 4 + 2 * n_words
            pointers: list[tuple[str, str, int, int, int]] = []  # symbol, pos, offset, source, target
            for _ in range(int(fields[at])):
                symbol, target, tpos, st = fields[at + 1: at + 5]
                pointers.append((symbol, _file_pos(tpos), int(target), int(st[:2], 16), int(st[2:], 16)))
                at += 4
            ids[(pos, offset)] = len(raw)
            if ss_type == "s":
                satellites.add(offset)
            raw.append({"pos": ss_type, "offset": offset, "lemmas": names, "pointers": pointers,
                        "definition": re.sub(r"[\"].*?[\"]", "", gloss).strip().strip("; "),
                        "examples": re.findall(r'"([^"]*)"', gloss)})
    index: dict[str, dict[str, list[int]]] = {}
    for pos in POS_LIST:
        with open(wordnet_dir / f"index.{FILES[pos]}", encoding="utf-8") as fp:
            for line in fp:
                if line.startswith(" "):
                    continue
                fields = line.split()
                lemma, n_synsets, n_pointers = fields[0], int(fields[2]), int(fields[3])
                start = 4 + n_pointers + 2
                offsets = [int(x) for x in fields[start: start + n_synsets]]
                entry = index.setdefault(lemma, {})
                entry[pos] = [ids[(pos, o)] for o in offsets]
                if pos == "a":  # NLTK: 's' lists the satellites among the adjective senses, in index order
                    entry["s"] = [ids[("a", o)] for o in offsets if o in satellites]
    exceptions: dict[str, dict[str, list[str]]] = {}
    for pos in POS_LIST:
        table = exceptions[pos] = {}
        path = wordnet_dir / f"{FILES[pos]}.exc"
        for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else ():
            terms = line.split()
            if terms:
                table[terms[0]] = terms[1:]
    records = []
    for rec in raw:  # name = first lemma . pos . its sense number among that lemma's senses (as NLTK)
        first = rec["lemmas"][0].lower()
        sense = index[first][rec["pos"]].index(len(records)) + 1
        relations: dict[str, list[int]] = {}
        lemma_relations: dict[str, list[list[int]]] = {}
        for symbol, tpos, target, source, tword in rec["pointers"]:
            tid = ids[(tpos, target)]
            if source == 0 and tword == 0:  # synset to synset (a set in NLTK: no repeats)
                if tid not in relations.setdefault(symbol, []):
                    relations[symbol].append(tid)
            else:  # lemma to lemma: keyed by the source lemma's position
                lemma_relations.setdefault(f"{source - 1} {symbol}", []).append([tid, tword - 1])
        records.append(json.dumps({"name": f"{first}.{rec['pos']}.{sense:02d}", "pos": rec["pos"],
                                   "offset": rec["offset"], "lemmas": rec["lemmas"],
                                   "definition": rec["definition"], "examples": rec["examples"],
                                   "rel": relations, "lrel": lemma_relations}, separators=(",", ":")))
    packed = {lemma: ";".join(f"{p}:{','.join(map(str, v))}" for p, v in entry.items())
              for lemma, entry in index.items()}
    return {"format": FORMAT, "index": packed, "exceptions": exceptions, "synsets": records}


# --- reading --------------------------------------------------------------------------------------------------
class Synset:
    """One synset; equal to another iff same id. Relation methods return synsets in the data file's order."""

    __slots__ = ("_wn", "id", "_data")

    def __init__(self, wn: CompactWordNet, sid: int) -> None:
        self._wn, self.id, self._data = wn, sid, None

    @property
    def _rec(self) -> dict[str, Any]:
        """Its record, decoded when first read (a look-up that stops at a word's first senses decodes no others)."""
        rec = self._data
        if rec is None:
            rec = self._data = self._wn._record(self.id)
        return rec

    def name(self) -> str:
        return self._rec["name"]

    def pos(self) -> str:
        return self._rec["pos"]

    def offset(self) -> int:
        return self._rec["offset"]

    def lemma_names(self) -> list[str]:
        return list(self._rec["lemmas"])

    def lemmas(self) -> list[Lemma]:
        return [Lemma(self, k) for k in range(len(self._rec["lemmas"]))]

    def definition(self) -> str:
        return self._rec["definition"]

    def examples(self) -> list[str]:
        return list(self._rec["examples"])

    def related(self, symbol: str) -> list[Synset]:
        """Synsets this one points to with a WordNet pointer symbol ('@' hypernym, '&' similar to, ...)."""
        return [self._wn._synset(t) for t in self._rec["rel"].get(symbol, ())]

    def __getattr__(self, attr: str) -> Any:
        if attr in SYNSET_RELATIONS:
            return lambda: self.related(SYNSET_RELATIONS[attr])
        raise AttributeError(attr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Synset) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("synset", self.id))

    def __repr__(self) -> str:
        return f"Synset({self.name()!r})"


class Lemma:
    """A word sense: a lemma name in a synset."""

    __slots__ = ("_synset", "_index")

    def __init__(self, synset: Synset, index: int) -> None:
        self._synset, self._index = synset, index

    def name(self) -> str:
        return self._synset._rec["lemmas"][self._index]

    def synset(self) -> Synset:
        return self._synset

    def related(self, symbol: str) -> list[Lemma]:
        wn = self._synset._wn
        targets = self._synset._rec["lrel"].get(f"{self._index} {symbol}", ())
        return [Lemma(wn._synset(sid), k) for sid, k in targets]

    def __getattr__(self, attr: str) -> Any:
        if attr in LEMMA_RELATIONS:
            return lambda: self.related(LEMMA_RELATIONS[attr])
        raise AttributeError(attr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lemma) and (other._synset, other._index) == (self._synset, self._index)

    def __hash__(self) -> int:
        return hash(("lemma", self._synset.id, self._index))

    def __repr__(self) -> str:
        return f"Lemma('{self._synset.name()}.{self.name()}')"


class CompactWordNet:
    """NLTK-compatible look-ups over the compact index (see the module docstring)."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("format") != FORMAT:
            raise MissingResource("the compact WordNet index is outdated; run `robust setup wordnet-index` again")
        self._index: dict[str, str] = data["index"]
        self._exceptions: dict[str, dict[str, list[str]]] = data["exceptions"]
        self._exceptions["s"] = self._exceptions["a"]
        self._records: list[str] = data["synsets"]
        self._decoded: dict[int, dict[str, Any]] = {}
        self._synsets: dict[int, Synset] = {}
        self._entries: dict[str, dict[str, tuple[int, ...]]] = {}

    def _record(self, sid: int) -> dict[str, Any]:
        rec = self._decoded.get(sid)
        if rec is None:
            rec = self._decoded[sid] = json.loads(self._records[sid])
        return rec

    def _synset(self, sid: int) -> Synset:
        found = self._synsets.get(sid)
        if found is None:
            found = self._synsets[sid] = Synset(self, sid)
        return found

    def _entry(self, lemma: str) -> dict[str, tuple[int, ...]]:
        """POS -> synset ids of a lemma as WordNet's index lists it (decoded once)."""
        out = self._entries.get(lemma)
        if out is None:
            out = {}
            for part in filter(None, self._index.get(lemma, "").split(";")):
                pos, _, ids = part.partition(":")
                out[pos] = tuple(int(i) for i in ids.split(",")) if ids else ()
            if len(self._entries) < 200_000:
                self._entries[lemma] = out
        return out

    def morphy_all(self, form: str, pos: str) -> list[str]:
        """Every base form of `form` for `pos` that WordNet lists: the exception list's bases, else the
        detachment rules applied once; the form itself first (NLTK's `_morphy`)."""
        exceptions = self._exceptions[pos]
        if form in exceptions:
            forms = exceptions[form]
        else:
            forms = [form[: -len(old)] + new for old, new in SUBSTITUTIONS[pos] if form.endswith(old)]
        out: list[str] = []
        for candidate in [form, *forms]:
            if pos in self._entry(candidate) and candidate not in out:
                out.append(candidate)
        return out

    def morphy(self, form: str, pos: str | None = None) -> str | None:
        """The first base form found, trying n, v, a, r without a POS (NLTK's `morphy`)."""
        for p in (pos,) if pos else POS_LIST:
            found = self.morphy_all(form, p)
            if found:
                return found[0]
        return None

    def synsets(self, lemma: str, pos: str | None = None) -> list[Synset]:
        """Synsets of every base form of `lemma` (lower-cased), per POS in n, v, a, r order, in index order."""
        return [self._synset(sid) for sid in self._synset_ids(lemma, pos)]

    def _synset_ids(self, lemma: str, pos: str | None = None) -> list[int]:
        """The ids of `synsets(lemma, pos)`, in its order (no record decoded)."""
        lemma = lemma.lower()
        return [sid for p in ((pos,) if pos else POS_LIST)
                for form in self.morphy_all(lemma, p) for sid in self._entry(form).get(p, ())]

    def first_antonyms(self, lemma: str) -> frozenset[str]:
        """The name of the first antonym of every lemma of every synset of `lemma` (any POS): what `Lemma.antonyms()`
        gives, read without decoding the synsets that have none (most: their record's text holds no antonym key,
        `"N !"`, and is only searched)."""
        antonym = LEMMA_RELATIONS["antonyms"]
        out = set()
        for sid in self._synset_ids(lemma):
            if f' {antonym}"' not in self._records[sid]:  # the end of a key "N !" in the record's JSON
                continue
            for key, targets in self._record(sid)["lrel"].items():
                if targets and key.partition(" ")[2] == antonym:
                    target, index = targets[0]
                    out.add(self._record(target)["lemmas"][index])
        return frozenset(out)

    def lemmas(self, name: str, pos: str | None = None) -> list[Lemma]:
        name = name.lower()
        return [lemma for s in self.synsets(name, pos) for lemma in s.lemmas() if lemma.name().lower() == name]

    def synset(self, name: str) -> Synset:
        """A synset by its name, e.g. 'dog.n.01'."""
        from robust.core.errors import RobustError

        lemma, pos, sense = name.rsplit(".", 2)
        ids = self._entry(lemma).get(pos, ())
        if not sense.isdigit() or not 0 < int(sense) <= len(ids):
            raise RobustError(f"no WordNet synset named {name!r}")
        return self._synset(ids[int(sense) - 1])

    def all_lemma_names(self, pos: str | None = None) -> list[str]:
        return [k for k in self._index if pos is None or pos in self._entry(k)]


INDEX = ("lexicon", f"wordnet-3.0-v{FORMAT}.pickle")  # in the cache directory


def index_path() -> Path:
    """Where `robust setup wordnet-index` writes the compact index."""
    return cache_path(*INDEX)


def wordnet_index(path: Path | None = None) -> CompactWordNet:
    """The compact WordNet (loaded once per process), or a one-line MissingResource naming the setup command."""
    return pickled.load_cached(INDEX, CompactWordNet,
                               "compact WordNet index not found at {path}; run `robust setup wordnet-index` once", path)
