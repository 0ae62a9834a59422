"""robust's own DeepWordBug, PWWS and TextFooler (Dang et al. 2024, §3.3, with the offline substitutes of
docs/asr_predict.md): Attackers batched over examples (one classify call per search step for all examples) under a
per-example query budget, and the Transforms that make their edits (`deepwordbug-edit`, `wordnet-swap`). See
docs/attacks.md."""

from robust import hookimpl
from robust.plugins.recipes.deepwordbug import DeepWordBug
from robust.plugins.recipes.pwws import PWWS
from robust.plugins.recipes.textfooler import TextFooler
from robust.plugins.recipes.transforms import CharacterBugs, WordNetSwap

__all__ = ["PWWS", "CharacterBugs", "DeepWordBug", "TextFooler", "WordNetSwap"]


@hookimpl
def register_attackers(register):
    for attacker in (DeepWordBug, PWWS, TextFooler):
        register(attacker)


@hookimpl
def register_transforms(register):
    for transform in (CharacterBugs, WordNetSwap):
        register(transform)
