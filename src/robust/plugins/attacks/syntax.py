"""Syntax (Chen et al. 2023, §2.1 and Table 1): syntactic paraphrases kept when 1 − cos(E(x), E(x′)) ≤ d.

The paper cites SCPN/SynPG/AESOP and the public code has none (Chen et al. 2023, §2.1; docs/attacks.md, Syntax). Two
paraphrasers:
- `model=hf:...`: any generator model (a seq2seq/causal paraphraser), `num_candidates` seeded samples;
- offline default: structure-changing rules on spaCy's dependency parse (clause reordering, active↔passive,
  adjunct fronting, it-clefts, wh-clefts), applied once and composed once (robust.toolkit.paraphrase).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robust import Example, RobustError, Setting, hookimpl
from robust.toolkit.lazy import np
from robust.toolkit.loading import import_soon
from robust.toolkit.paraphrase import RULES, rule_paraphrases_many
from robust.toolkit.transforms import SPACY, SentenceTransform, reaches, with_degree


class Syntax(SentenceTransform):
    name = "syntax"
    dimension = "Syntax"
    description = "RobTest Syntax: syntactic paraphrases (spaCy-parse rules or an hf: model), 1 − cos ≤ d"
    models = {"embedder": frozenset({"embed"}), "model": frozenset({"generate"})}
    settings = {
        "embedder": Setting("minilm", help="the sentence encoder of the degree (never the victim)"),
        "model": Setting("", help="hf:<paraphrase model> to paraphrase with `generate`; empty: spaCy-parse rules"),
        "prompt": Setting("{text}", help="how the paraphraser is prompted, e.g. 'paraphrase: {text}'"),
        "num_candidates": Setting(10, min=1, max=100, help="seeded samples from the paraphrase model (SCPN: ten)"),
        "rules": Setting(list(RULES), choices=tuple(RULES), min_items=1, help="the rules the offline paraphraser uses"),
        "compose": Setting(True, help="apply the rules once more to each paraphrase (two-step paraphrases)"),
    }

    def __init__(self, embedder: Any = None, paraphraser: Any = None, **config: Any) -> None:
        super().__init__(embedder, **config)
        if "{text}" not in self.config["prompt"]:
            raise RobustError("syntax.prompt must contain {text}, where the sentence goes")
        self.provide("model", paraphraser)
        self._cache: dict[str, list[tuple[str, str]]] = {}
        self._scored: dict[str, list[tuple[str, str, float]]] = {}
        self._chosen: dict[tuple[str, float], list[tuple[str, str, float]]] = {}

    @property
    def source(self) -> str:
        given = self.given("model")
        if given is not None:
            return f"model:{getattr(given, 'identity', type(given).__name__)}"
        return f"model:{self.config['model']}" if self.config["model"] else "rules:spacy"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, **self.config}

    def warm_up(self) -> None:
        super().warm_up()  # the embedder and a paraphrase model, or the parser, load while the model does
        if self.source == "rules:spacy":
            SPACY.start()
            import_soon("lemminflect")

    @property
    def paraphraser(self) -> Any:
        """The paraphrase model (setting `model`, loaded through the run context, or the one provided)."""
        return self.helper("model")

    def paraphrases(self, text: str) -> list[tuple[str, str]]:
        """(paraphrase, how it was made) candidates of `text`, cached per text."""
        if text not in self._cache:
            self._paraphrase([text])
        return self._cache[text]

    def _paraphrase(self, texts: Sequence[str]) -> None:
        if self.source == "rules:spacy":
            found = rule_paraphrases_many(texts, self.config["rules"], self.config["compose"])
            self._cache.update(zip(texts, found, strict=True))
        else:
            self._cache.update((text, self._model_paraphrases(text)) for text in texts)

    def precompute(self, texts: Sequence[str], degrees: Sequence[float]) -> None:
        """The candidates of many texts and their degrees at once: batched parses, one embedding call."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._scored]
        self._paraphrase([t for t in todo if t not in self._cache])
        pairs = [(t, p) for t in todo for p, _ in self._cache[t]]
        degree = dict(zip(pairs, self.degrees_of(pairs), strict=True))
        for t in todo:
            self._scored[t] = [(p, how, degree[(t, p)]) for p, how in self._cache[t]]

    def _model_paraphrases(self, text: str) -> list[tuple[str, str]]:
        prompt = self.config["prompt"].replace("\\n", "\n").format(text=text)  # "\n" typed on the CLI
        budget = 2 * len(text.split()) + 10
        out: dict[str, str] = {}
        for seed in range(int(self.config["num_candidates"])):
            new = self.paraphraser.generate([prompt], max_new_tokens=budget, seed=seed, do_sample=True)[0]
            lines = [line for line in new.strip().splitlines() if line.strip()]
            new = " ".join(lines[0].split()) if lines else ""  # a causal LM runs on after the paraphrase
            if new and new != text and new not in out:
                out[new] = f"model:seed{seed}"
        return list(out.items())

    def scored(self, text: str) -> list[tuple[str, str, float]]:
        """Candidates with their degree 1 − cos (Chen et al. 2023, §2.1), cached per text."""
        if text not in self._scored:
            self.precompute([text], ())
        return self._scored[text]

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        """The paraphrases closest to the degree from below: those with (1 − REACH_TOLERANCE)·d ≤ 1 − cos ≤ d
        in a random order, else the single most distant one within d (flagged `unreached`); the original
        if none is within d (docs/attacks.md, Syntax). Returning every paraphrase within d made the evaluated texts
        almost the same at every degree."""
        return self.apply_many(example, degree, rng, 1)[0]

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        """`draws` calls of `apply`: each candidate's variant made once (an Example is frozen), each draw its own
        order of them."""
        if degree <= 0:
            return [[example] for _ in range(draws)]
        chosen = self.chosen(example.text, degree)
        if not chosen:
            unchanged = with_degree(example, example.text, degree, 0.0)
            return [[unchanged] for _ in range(draws)]
        variants = [with_degree(example, text, degree, reached, syntax_rule=how, syntax_source=self.source)
                    for text, how, reached in chosen]
        if len(variants) == 1:  # numpy draws nothing to order one
            return [list(variants) for _ in range(draws)]
        return [[variants[i] for i in rng.permutation(len(variants)).tolist()] for _ in range(draws)]

    def chosen(self, text: str, degree: float) -> list[tuple[str, str, float]]:
        """The candidates `apply` draws from at `degree` (none: no paraphrase within d), cached per text and degree
        (a sentence's draws share them)."""
        key = (text, float(degree))
        if key not in self._chosen:
            kept = [(p, how, deg) for p, how, deg in self.scored(text) if deg <= degree]
            band = [k for k in kept if reaches(k[2], degree)]
            self._chosen[key] = (band or [max(kept, key=lambda k: (k[2], k[0]))]) if kept else []
        return self._chosen[key]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        """One random paraphrase of `text` (the paper evaluates Syntax rule-based only; Chen et al. 2023, §2.2)."""
        candidates = self.paraphrases(text)
        return candidates[int(rng.integers(len(candidates)))][0] if candidates else None


TRANSFORMS = [Syntax]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
