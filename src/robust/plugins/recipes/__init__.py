"""robust's own DeepWordBug, PWWS and TextFooler: Attackers batched over examples (one classify call per
step for all examples), with the Transforms that make their candidate edits. See docs/attacks.md."""

from robust import hookimpl
from robust.plugins.recipes.deepwordbug import DeepWordBug
from robust.plugins.recipes.pwws import PWWS
from robust.plugins.recipes.textfooler import TextFooler
from robust.plugins.recipes.transforms import CharacterBugs, WordNetSubstitutes

__all__ = ["PWWS", "CharacterBugs", "DeepWordBug", "TextFooler", "WordNetSubstitutes"]


@hookimpl
def register_attackers(register):
    for attacker in (DeepWordBug, PWWS, TextFooler):
        register(attacker)


@hookimpl
def register_transforms(register):
    for transform in (CharacterBugs, WordNetSubstitutes):
        register(transform)
