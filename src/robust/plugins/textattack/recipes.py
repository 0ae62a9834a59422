"""TextAttack 0.3.11's attack recipes as a static table, and what each needs that may be missing offline.

Nothing here imports textattack, nltk, torch or transformers: `robust list` reads this table and checks for
files only (docs/textattack.md lists which TextAttack components download what).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robust import cache_dir
from robust.toolkit.paths import nltk_data_dir

TEXTATTACK_VERSION = "0.3.11"
INSTALL_HINT = "install the extra in its own environment: see docs/textattack.md"


def textattack_cache() -> Path:
    """Where TextAttack keeps (and would download) its S3 files: `$TA_CACHE_DIR`, else robust's cache."""
    return Path(os.environ.get("TA_CACHE_DIR") or cache_dir() / "textattack")


def _nltk_dirs() -> list[Path]:
    """NLTK's search path (without importing nltk): robust's data, NLTK_DATA, then NLTK's defaults."""
    env = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    roots = [Path(sys.prefix), Path(sys.prefix) / "share", Path(sys.prefix) / "lib", Path("/usr/share"),
             Path("/usr/local/share"), Path("/usr/lib"), Path("/usr/local/lib")]
    return [nltk_data_dir(), *env, Path.home() / "nltk_data", *(root / "nltk_data" for root in roots)]


def _nltk(resource: str) -> Callable[[], bool]:
    return lambda: any((d / resource).exists() or (d / f"{resource}.zip").exists() for d in _nltk_dirs())


def _ta_file(relative: str) -> Callable[[], bool]:
    return lambda: (textattack_cache() / relative).exists()


def _hf(model_id: str) -> Callable[[], bool]:
    def present() -> bool:
        home = Path(os.environ.get("HF_HOME") or Path.home() / ".cache" / "huggingface")
        hub = os.environ.get("HF_HUB_CACHE") or home / "hub"
        return (Path(hub) / f"models--{model_id.replace('/', '--')}" / "snapshots").is_dir()

    return present


def _tfhub(url: str) -> Callable[[], bool]:
    def present() -> bool:
        if importlib.util.find_spec("tensorflow_hub") is None:
            return False
        root = Path(os.environ.get("TFHUB_CACHE_DIR") or Path(os.environ.get("TMPDIR", "/tmp")) / "tfhub_modules")
        return (root / hashlib.sha1(url.encode()).hexdigest()).is_dir()

    return present


def _flair(name: str) -> Callable[[], bool]:
    root = Path(os.environ.get("FLAIR_CACHE_ROOT") or Path.home() / ".flair")
    return lambda: any((root / "models").glob(f"{name}*"))


def _packaged(relative: str) -> Callable[[], bool]:
    def present() -> bool:
        spec = importlib.util.find_spec("textattack")
        return bool(spec and spec.origin and (Path(spec.origin).parent / relative).is_file())

    return present


def _never() -> bool:
    return False


@dataclass(frozen=True)
class Resource:
    what: str  # short name shown in the one-line reason
    present: Callable[[], bool]
    fix: str  # how to provide it


RESOURCES: dict[str, Resource] = {
    "stopwords": Resource("NLTK stopwords", _nltk("corpora/stopwords/english"), "run `robust setup stopwords`"),
    "wordnet": Resource("NLTK WordNet", _nltk("corpora/wordnet"), "run `robust setup wordnet`"),
    "embeddings": Resource("counter-fitted word embeddings (TextAttack S3)", _ta_file("word_embeddings/paragramcf"),
                           "copy TextAttack's word_embeddings/paragramcf into $TA_CACHE_DIR"),
    "hownet": Resource("HowNet candidate bank (TextAttack S3)",
                       _ta_file("transformations/hownet/word_candidates_sense.pkl"),
                       "copy TextAttack's transformations/hownet into $TA_CACHE_DIR"),
    "pos-tagger": Resource("NLTK POS tagger", lambda: _nltk("taggers/averaged_perceptron_tagger_eng")()
                           and _nltk("taggers/universal_tagset")(), "install NLTK's tagger data into NLTK_DATA"),
    "use": Resource("Universal Sentence Encoder (TF Hub)", _tfhub("https://tfhub.dev/google/universal-sentence-encoder/3"),
                    "install tensorflow + tensorflow_hub and cache the model"),
    "bert-mlm": Resource("bert-base-uncased (HF hub)", _hf("bert-base-uncased"), "cache it in the HF hub cache"),
    "distilroberta": Resource("distilroberta-base (HF hub)", _hf("distilroberta-base"), "cache it in the HF hub cache"),
    "sbert": Resource("SBERT stsb-distilbert-base (HF hub)", _hf("sentence-transformers/stsb-distilbert-base"),
                      "cache it in the HF hub cache"),
    "gpt2": Resource("GPT-2 (HF hub)", _hf("gpt2"), "cache it in the HF hub cache"),
    "google-lm": Resource("Google 1B-words LM (TensorFlow, TextAttack S3)", _never, "not offline-capable"),
    "l2w-lm": Resource("Learning-to-Write LM (TextAttack S3, torchfile)", _never, "not offline-capable"),
    "flair-ner": Resource("flair NER model (HF hub)", _flair("ner-english"), "cache flair's ner-english in ~/.flair"),
    "homoglyphs": Resource("intentional_homoglyphs.txt (missing from the 0.3.11 wheel)",
                           _packaged("shared/intentional_homoglyphs.txt"), "a TextAttack release that ships it"),
    "gradients": Resource("model gradients (white-box; robust's adapters expose none)", _never, "not supported"),
    "seq2seq": Resource("a seq2seq victim (the bridge wraps classifiers)", _never, "not supported"),
}


@dataclass(frozen=True)
class Recipe:
    name: str  # TextAttack's recipe name (`textattack attack --recipe NAME`)
    cls: str  # class in textattack.attack_recipes
    summary: str
    needs: tuple[str, ...] = ()  # RESOURCES keys beyond the textattack package itself
    params: dict[str, Any] = field(default_factory=dict)  # keyword arguments of build() (robust settings)


RECIPES: dict[str, Recipe] = {r.name: r for r in [
    Recipe("a2t", "A2TYoo2021", "A2T (Yoo & Qi 2021): embedding swaps, SBERT, POS, greedy WIR",
           ("stopwords", "embeddings", "pos-tagger", "sbert"), {"mlm": False}),
    Recipe("alzantot", "GeneticAlgorithmAlzantot2018", "Alzantot et al. 2018: embedding swaps, genetic search",
           ("stopwords", "embeddings", "google-lm")),
    Recipe("bad-characters", "BadCharacters2021", "Bad Characters (Boucher et al. 2021): imperceptible Unicode edits",
           ("homoglyphs",), {"goal_function_type": "targeted_classification", "perturbation_type": "homoglyphs"}),
    Recipe("bae", "BAEGarg2019", "BAE (Garg & Ramakrishnan 2019): BERT masked-LM swaps, USE, POS",
           ("stopwords", "bert-mlm", "pos-tagger", "use")),
    Recipe("bert-attack", "BERTAttackLi2020", "BERT-Attack (Li et al. 2020): BERT masked-LM swaps, USE",
           ("stopwords", "bert-mlm", "use")),
    Recipe("checklist", "CheckList2020", "CheckList (Ribeiro et al. 2020): contractions, names, numbers, locations",
           ("flair-ner",)),
    Recipe("clare", "CLARE2020", "CLARE (Li et al. 2020): masked-LM replace/insert/merge, USE",
           ("stopwords", "distilroberta", "use")),
    Recipe("deepwordbug", "DeepWordBugGao2018", "DeepWordBug (Gao et al. 2018): character edits, greedy WIR",
           ("stopwords",), {"use_all_transformations": True}),
    Recipe("faster-alzantot", "FasterGeneticAlgorithmJia2019", "Jia et al. 2019: faster genetic algorithm",
           ("stopwords", "embeddings", "l2w-lm")),
    Recipe("hotflip", "HotFlipEbrahimi2017", "HotFlip (Ebrahimi et al. 2017): gradient word swaps, beam search",
           ("stopwords", "gradients", "embeddings", "pos-tagger")),
    Recipe("iga", "IGAWang2019", "IGA (Wang et al. 2019): improved genetic algorithm", ("stopwords", "embeddings")),
    Recipe("input-reduction", "InputReductionFeng2018", "Input reduction (Feng et al. 2018): delete words, keep the "
           "prediction", ("stopwords",)),
    Recipe("kuleshov", "Kuleshov2017", "Kuleshov et al. 2017: embedding swaps, GPT-2 constraint",
           ("stopwords", "embeddings", "gpt2")),
    Recipe("leap", "LEAP2023", "LEAP (2023): WordNet swaps, particle swarm", ("stopwords", "wordnet")),
    Recipe("morpheus", "MorpheusTan2020", "Morpheus (Tan et al. 2020): inflections against seq2seq models",
           ("seq2seq",)),
    Recipe("pruthi", "Pruthi2019", "Pruthi et al. 2019: keyboard/character typos, greedy",
           ("stopwords",), {"max_num_word_swaps": 1}),
    Recipe("pso", "PSOZang2020", "PSO (Zang et al. 2020): HowNet swaps, particle swarm", ("stopwords", "hownet")),
    Recipe("pwws", "PWWSRen2019", "PWWS (Ren et al. 2019): WordNet swaps, weighted saliency", ("stopwords", "wordnet")),
    Recipe("seq2sick", "Seq2SickCheng2018BlackBox", "Seq2Sick (Cheng et al. 2018): against seq2seq models",
           ("seq2seq",)),
    Recipe("textbugger", "TextBuggerLi2018", "TextBugger (Li et al. 2018): char edits, homoglyphs, embeddings, USE",
           ("stopwords", "homoglyphs", "embeddings", "use")),
    Recipe("textfooler", "TextFoolerJin2019", "TextFooler (Jin et al. 2019): embedding swaps, POS, USE, greedy WIR",
           ("embeddings", "pos-tagger", "use")),
]}


def textattack_installed() -> bool:
    return importlib.util.find_spec("textattack") is not None


def missing(recipe: Recipe) -> list[str]:
    """Keys of the resources this recipe needs that are not on this machine."""
    return [key for key in recipe.needs if not RESOURCES[key].present()]


def unavailable_reason(recipe: Recipe, hints: bool = True) -> str | None:
    """One line saying why the recipe cannot run here (with how to fix it unless `hints` is False), or None."""
    gone = [RESOURCES[k] for k in missing(recipe)]
    whats, fixes = [r.what for r in gone], [r.fix for r in gone]
    if not textattack_installed():
        whats.append(f"textattack {TEXTATTACK_VERSION}")
        fixes.append(INSTALL_HINT)
    if not whats:
        return None
    return f"needs {', '.join(whats)}" + (f" ({'; '.join(dict.fromkeys(fixes))})" if hints else "")
