"""TextAttack's attack recipes as robust Attackers named `textattack:<recipe>` (optional extra `textattack`).

Registration reads a static table (recipes.py) and checks files only: listing never imports textattack.
Running a recipe imports it offline (offline.py) and drives TextAttack's own Attack on robust's model
adapter (bridge.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from robust import RecipeAttacker, hookimpl
from robust.plugins.textattack.recipes import RECIPES, Recipe, unavailable_reason

if TYPE_CHECKING:
    import numpy as np

    from robust import AttackResult, Example, ModelAdapter, Transform

PREFIX = "textattack:"


class TextAttackRecipe(RecipeAttacker):
    """Base of the generated `textattack:<recipe>` classes; `recipe` names the row of the table."""

    recipe: ClassVar[Recipe]
    needs = frozenset({"classify"})

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._runner: tuple[Any, Any] | None = None

    def attack(self, examples: Sequence[Example], model: ModelAdapter, transform: Transform | None = None,
               degree: float | None = None, budget: int | None = None,
               rngs: Sequence[np.random.Generator] | None = None) -> list[AttackResult]:
        """TextAttack's recipe on each example (one at a time, as TextAttack does); at most `budget` queries
        per example; `transform` and `degree` are ignored (the recipe defines its own)."""
        self.check_available()
        if rngs is None:
            import numpy as np

            rngs = [np.random.default_rng(i) for i in range(len(examples))]
        return self.runner(model).run(examples, budget, rngs)

    @classmethod
    def unavailable(cls) -> str:
        return unavailable_reason(cls.recipe) or ""

    def warm_up(self, model: ModelAdapter) -> None:
        """Import textattack and build the recipe before the first example (the benchmark times attacks)."""
        self.check_available()
        self.runner(model)

    def runner(self, model: ModelAdapter) -> Any:
        """The recipe built for `model` (built once per model)."""
        if self._runner is None or self._runner[0] is not model:
            from robust.plugins.textattack.bridge import RecipeRunner

            self._runner = (model, RecipeRunner(self.recipe, model, dict(self.config)))
        return self._runner[1]


def recipe_attacker(recipe: Recipe) -> type[TextAttackRecipe]:
    """The Attacker class of one recipe (`robust list attackers --all` says whether it can run here)."""
    return type(f"TextAttack_{recipe.cls}", (TextAttackRecipe,), {
        "name": PREFIX + recipe.name, "recipe": recipe, "settings": dict(recipe.params),
        "description": f"TextAttack {recipe.summary}", "__module__": __name__,
    })


@hookimpl
def register_attackers(register):
    for recipe in RECIPES.values():
        register(recipe_attacker(recipe))
