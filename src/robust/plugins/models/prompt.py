"""`prompt:<LM>`: any causal or seq2seq LM (`smollm2`, `hf:<id or dir>`) as a classifier by prompting.

The prompt is an instruction, k demonstrations and the template with the example in its `{text}` slot; each
class has a verbalizer (its label, or a word set in settings) and its score is the log-likelihood of the
verbalizer after the prompt (summed over its tokens, optionally divided by its length), as lm-eval-harness
scores multiple-choice answers; probabilities are the softmax over the class scores. Contextual calibration
(Zhao et al. 2021, "Calibrate Before Use", §4) divides them by the mean probabilities of content-free inputs
("N/A", "", "[MASK]") under the same prompt and renormalises (the paper's W = diag(p_cf)^-1, b = 0; its
argmax is the paper's). Everything before `{text}` is encoded once and its key/value cache shared by every
query (`prompt_lm.CausalScorer`).

A served LM (`prompt:api:MODEL`) is scored the same way from the endpoint's log-probabilities
(`prompt_remote.RemoteScorer`); an endpoint that only generates classifies by its greedy answer, parsed
(`prompt_remote.parse_answer`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from robust import Example, ModelAdapter, RobustError, Setting, derive_seed, load_examples
from robust.toolkit.lazy import np

NORMALIZATIONS = ("none", "tokens", "chars")
#: settings that change the class scores (the identity's digest); batching and the prefix cache do not
PROMPT_KEYS = ("instruction", "template", "separator", "answer_prefix", "labels", "verbalizers", "shots", "train",
               "demo_seed", "balanced", "normalize", "calibrate", "content_free", "max_length")


class PromptModel(ModelAdapter):
    name = "prompt"
    description = ("A causal or seq2seq LM as a classifier by prompting: verbalizer log-likelihoods, k-shot, "
                   "calibration, shared-prefix cache; prompt:smollm2, prompt:hf:DIR, prompt:api:MODEL (served)")
    capabilities = frozenset({"classify", "instruction"})
    settings = {
        "batch_size": Setting(16, min=1, help="examples per forward pass"),
        # the default prompt: the best of 9 zero-shot prompts for smollm2 on 200 MR training sentences
        "instruction": Setting("Each review's sentiment is {labels}.",
                               help="text before the demonstrations; {labels} lists the verbalizers"),
        "template": Setting("Review: {text}\nSentiment:", help="one example; {text} is its text, the verbalizer "
                            "follows"),
        "separator": Setting("\n\n", help="between the instruction, the demonstrations and the query"),
        "answer_prefix": Setting(" ", help="put before every verbalizer"),
        "labels": Setting([], help="class names in order (default: the sorted labels of the training data)"),
        "verbalizers": Setting([], help="LABEL=WORDS pairs (default: each label's own name)"),
        "shots": Setting(0, min=0, help="demonstrations in the prompt (k-shot)"),
        "train": Setting("", help="labelled file or dataset the demonstrations come from (default: the run "
                                  "data's training split, or the run data itself minus the demonstrations)"),
        "text_column": "text",
        "label_column": "label",
        "demo_seed": Setting(0, min=0, help="seed of the demonstrations' choice and order"),
        "balanced": Setting(True, help="demonstrations taken from the labels in turn"),
        "normalize": Setting("none", choices=NORMALIZATIONS, help="class score: summed verbalizer log-likelihood, "
                             "or divided by its tokens or characters"),
        "calibrate": Setting(False, help="contextual calibration against content-free inputs (Zhao et al. 2021)"),
        "content_free": Setting(["N/A", "", "[MASK]"], help="the content-free inputs of calibration"),
        "prefix_cache": Setting(True, help="encode the shared prefix once (false: the naive path, every prompt whole)"),
        "max_length": Setting(2048, min=8, help="tokens per query; longer texts lose their start"),
        "max_padding": Setting(0.1, min=0.0, max=1.0, help="batches are cut where padding would exceed this share"),
        "answer_tokens": Setting(8, min=1, help="tokens an endpoint that only generates may answer with"),
    }

    #: with_instruction's variants that keep their prefix's key/value cache (smollm2, 4-shot: 156 tokens, 7.2 MB
    #: each); an older one recomputes it (the same tensors) when its instruction returns
    WARM_VARIANTS = 8

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg or "smollm2", **config)
        for key in ("instruction", "template", "separator", "answer_prefix"):  # `--set` cannot type a newline
            self.config[key] = self.config[key].replace("\\n", "\n").replace("\\t", "\t")
        if self.config["template"].count("{text}") != 1:
            raise RobustError(f"prompt template {self.config['template']!r} must contain {{text}} exactly once")
        self.max_padding = None if self.config["max_padding"] >= 1 else float(self.config["max_padding"])
        self._lock = threading.RLock()  # the runner preloads in a background thread while the benchmark prepares
        self._memo: dict[str, list[int]] = {}
        self._variants: dict[str, PromptModel] = {}  # with_instruction's adapters
        self._warm: OrderedDict[str, None] = OrderedDict()  # the variants holding a prefix cache, oldest first

    # the language model -----------------------------------------------------------------------------------
    @cached_property
    def lm(self) -> Any:
        """The wrapped LM adapter (`smollm2`, `hf:...`), one instance per run; its weights load on first use."""
        model = self.ctx.load_model(self.arg, (), user="model 'prompt'")
        caps = model.provides()  # a causal LM scores with logprobs, a seq2seq one generates; both are checkpoints
        local = "checkpoint" in caps and caps & {"logprobs", "generate"}
        if "classify" in caps or not (local or caps & {"loglikelihood", "generate"}):
            raise RobustError(f"model 'prompt' needs a causal or seq2seq transformers LM (smollm2, hf:<id or dir>) "
                              f"or a served one (api:MODEL); {self.arg!r} is not one")
        return model

    @property
    def overlap(self) -> int:  # type: ignore[override]
        """The wrapped LM's: two chunks at once on a GPU or an endpoint, one on a CPU."""
        return int(getattr(self.lm, "overlap", 1) or 1)

    @cached_property
    def mode(self) -> str:
        """How classes are scored: 'causal' or 'seq2seq' (a local checkpoint), 'remote' (a served LM's
        log-likelihoods) or 'answer' (a served LM that only generates: its answer, parsed)."""
        caps = self.lm.provides()
        if "checkpoint" in caps:
            return "causal" if self.lm.task == "causal" else "seq2seq"
        return "remote" if "loglikelihood" in caps else "answer"

    @property
    def causal(self) -> bool:
        return self.mode == "causal"

    @property
    def served(self) -> bool:
        return self.mode in ("remote", "answer")

    # data: classes, verbalizers, demonstrations -------------------------------------------------------------
    @cached_property
    def pool(self) -> list[Example]:
        """The labelled examples demonstrations are drawn from (and default class names read from)."""
        with self._lock:
            if "pool" in self.__dict__:
                return self.__dict__["pool"]
            cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
            spec, ctx = self.config["train"], self.ctx
            if not spec and not ctx.data:
                return []
            if not spec and not Path(ctx.data).exists() and ctx.registry.has("dataset", ctx.data):
                # a registered dataset's training split
                split = ctx.registry.get("dataset", ctx.data).target.settings.get("split")
                if isinstance(split, Setting) and "train" in (split.choices or ()):
                    return [ex for ex in ctx.create("dataset", ctx.data, split="train").examples(ctx.seed)
                            if ex.label is not None]
            return load_examples(spec or ctx.data, ctx, **cols)

    @cached_property
    def classes(self) -> list[Any]:
        if self.config["labels"]:
            return list(self.config["labels"])
        if not self.pool:
            raise RobustError("model 'prompt' needs class names: run it on labelled --data, or --set "
                              "model.labels=A,B (or model.train=FILE)")
        return sorted({ex.label for ex in self.pool}, key=str)

    @property
    def labels(self) -> list[Any]:  # type: ignore[override]
        return list(self.classes)

    @cached_property
    def words(self) -> list[str]:
        """The verbalizer of each class, in class order."""
        names = [str(c) for c in self.classes]
        given: dict[str, str] = {}
        for item in self.config["verbalizers"]:
            label, sep, word = item.partition("=")
            if not sep:
                raise RobustError(f"verbalizer {item!r}: expected LABEL=WORDS, e.g. positive=great")
            if label.strip() not in names:
                raise RobustError(f"verbalizer {item!r} names no class; the classes are {', '.join(names)}")
            given[label.strip()] = word
        return [given.get(name, name) for name in names]

    @cached_property
    def demonstrations(self) -> list[Example]:
        """`shots` labelled examples of the pool, chosen and ordered by `demo_seed` (labels in turn if balanced)."""
        k = int(self.config["shots"])
        if k == 0:
            return []
        names = [str(c) for c in self.classes]
        pool = [ex for ex in self.pool if str(ex.label) in names]
        if k > len(pool):
            source = self.config["train"] or self.ctx.data or "no training data"
            raise RobustError(f"{k} shots asked, but the training data ({source}) has only {len(pool)} labelled "
                              "examples of these classes")
        rng = np.random.default_rng(derive_seed(int(self.config["demo_seed"]), "demonstrations"))
        if self.config["balanced"]:
            groups = [[pool[i] for i in rng.permutation(len(pool)) if str(pool[i].label) == name] for name in names]
            chosen: list[Example] = []
            while len(chosen) < k:
                chosen += [g.pop(0) for g in groups if g][: k - len(chosen)]
        else:
            chosen = [pool[i] for i in rng.choice(len(pool), k, replace=False)]
        return [chosen[i] for i in rng.permutation(k)]

    # the prompt --------------------------------------------------------------------------------------------
    def _word(self, label: Any) -> str:
        return self.words[[str(c) for c in self.classes].index(str(label))]

    @cached_property
    def parts(self) -> tuple[str, str]:
        """(prefix, suffix): the prompt before and after the query's text."""
        head, _, tail = self.config["template"].partition("{text}")
        instruction = self.instruction
        answer = self.config["answer_prefix"]
        blocks = [instruction] if instruction else []
        blocks += [head + ex.text + tail + answer + self._word(ex.label) for ex in self.demonstrations]
        return "".join(b + self.config["separator"] for b in blocks) + head, tail

    def prompt(self, text: str) -> str:
        """The full prompt of one text, as the model reads it (before the verbalizer)."""
        prefix, suffix = self.parts
        return prefix + text + suffix

    def _tokens(self, text: str) -> list[int]:
        return self.lm.encode(text, add_special_tokens=False)

    @cached_property
    def _layout(self) -> dict[str, Any]:
        """Token segments: the shared prefix (with the tokenizer's leading special tokens), the spaces moved from
        the prefix's end to each example and from the suffix's end to each answer (lm-eval's convention: a word
        keeps its leading space), and the answers' token ids."""
        prefix, suffix = self.parts
        core, tail = prefix.rstrip(" "), suffix.rstrip(" ") if suffix.strip() else suffix
        plain, full = self._tokens("a"), self.lm.encode("a")
        lead = full[: len(full) - len(plain)] if full[len(full) - len(plain):] == plain else []
        if self.causal:
            return {"prefix": lead + self._tokens(core) if core else list(lead), "moved": prefix[len(core):],
                    "suffix": tail, "answers": [self._tokens(suffix[len(tail):] + self.config["answer_prefix"] + w)
                                                for w in self.words]}
        return {"prefix": [], "moved": "", "suffix": suffix,
                "answers": [self._tokens(self.config["answer_prefix"] + w) for w in self.words]}

    def check(self) -> None:
        """Refuse, before any weights load, classes without two distinct non-empty verbalizers or too many shots."""
        with self._lock:
            names = [str(c) for c in self.classes]
            if len(names) < 2:
                raise RobustError(f"model 'prompt' needs at least two classes; got {names}")
            self.demonstrations  # noqa: B018 - refuses more shots than training examples
            if self.served:
                from robust.plugins.models.prompt_remote import check_verbalizers

                check_verbalizers(names, self.words, self.mode)
                if self.mode == "answer" and self.config["calibrate"]:
                    raise RobustError(f"calibration needs class probabilities, and {self.arg} only generates "
                                      "(its endpoint returns no log-probabilities)")
                return
            answers = self._layout["answers"]
            for name, word, ids in zip(names, self.words, answers):
                if not ids:
                    raise RobustError(f"the verbalizer of class {name!r} ({word!r}) tokenizes to nothing")
            for i in range(len(answers)):
                for j in range(i):
                    if answers[i] == answers[j]:
                        raise RobustError(f"classes {names[j]!r} and {names[i]!r} have verbalizers with the same "
                                          f"tokens ({self.words[j]!r}, {self.words[i]!r})")
            if self.causal and len(self._layout["prefix"]) + 2 >= int(self.config["max_length"]):
                raise RobustError(f"the shared prompt has {len(self._layout['prefix'])} tokens, more than "
                                  f"max_length={self.config['max_length']} allows")

    def _segments(self, texts: Sequence[str]) -> list[list[int]]:
        """The token ids each text adds to the shared prefix (causal; the whole prompt for seq2seq), remembered."""
        lay, memo = self._layout, self._memo
        room = int(self.config["max_length"]) - len(lay["prefix"]) - max(len(a) for a in lay["answers"])
        out = []
        for text in texts:
            ids = memo.get(text)  # read once: another chunk's thread may clear the memo meanwhile
            if ids is None:
                if self.causal:
                    ids = self._tokens(lay["moved"] + text + lay["suffix"])[-max(1, room):]
                else:
                    ids = self.lm.encode(self.prompt(text), truncation=True, max_length=int(self.config["max_length"]))
                if not ids:
                    raise RobustError(f"the prompt of text {text!r} produced no tokens")
                if len(memo) > 100_000:
                    memo.clear()
                memo[text] = ids
            out.append(ids)
        return out

    # scoring -----------------------------------------------------------------------------------------------
    @cached_property
    def scorer(self) -> Any:
        from robust.plugins.models.prompt_lm import CausalScorer, Seq2SeqScorer
        from robust.plugins.models.prompt_remote import AnswerScorer, RemoteScorer

        self.check()
        if self.served:
            prefix, suffix = self.parts
            tail = suffix.rstrip(" ") if suffix.strip() else suffix  # trailing spaces go to the answer, as in-process
            answers = [suffix[len(tail):] + self.config["answer_prefix"] + w for w in self.words]
            if self.mode == "remote":
                return RemoteScorer(self.lm, prefix, tail, answers)
            return AnswerScorer(self.lm, prefix, suffix, self.words, int(self.config["answer_tokens"]))
        lay = self._layout
        if self.causal:
            return CausalScorer(self.lm, lay["prefix"], lay["answers"], bool(self.config["prefix_cache"]))
        return Seq2SeqScorer(self.lm, lay["answers"])

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """Class scores (verbalizer log-likelihoods, normalised as set), ndarray[n, k]; one forward pass, uncached."""
        if self.served:
            raw, tokens = self.scorer.loglik(list(texts))
        else:
            raw = self.scorer.loglik(self._segments(texts))
            tokens = np.array([len(a) for a in self._layout["answers"]])
        mode = self.config["normalize"]
        if mode == "tokens":
            raw = raw / np.maximum(tokens, 1)
        elif mode == "chars":
            raw = raw / np.array([max(1, len(w.strip())) for w in self.words])
        return raw

    @staticmethod
    def _softmax(scores: np.ndarray) -> np.ndarray:
        z = np.exp(scores - scores.max(1, keepdims=True))
        return z / z.sum(1, keepdims=True)

    @cached_property
    def content_free(self) -> np.ndarray | None:
        """The mean class probabilities of the content-free inputs (calibration), None when not calibrating."""
        if not self.config["calibrate"]:
            return None
        texts = list(self.config["content_free"])
        if not texts:
            raise RobustError("calibration needs at least one content-free input (setting content_free)")
        return self._softmax(self.scores(texts)).mean(0)

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        probs = self._softmax(self.scores(texts))
        if self.content_free is not None:  # Zhao et al. 2021 §4: W = diag(p_cf)^-1, then renormalised
            probs = probs / self.content_free
            probs = probs / probs.sum(1, keepdims=True)
        return list(probs)

    def input_lengths(self, inputs: Sequence[Any]) -> list[int]:
        if self.served:
            return [len(text) for text in inputs]
        return [len(ids) for ids in self._segments(inputs)]

    def _batched(self, key: tuple, inputs: Any, fn: Any) -> list[Any]:
        if not self.served:
            return super()._batched(key, inputs, fn)
        size = max(int(self.config["batch_size"]), getattr(self.lm, "in_flight", 1) * 8)  # keep the endpoint busy
        return self.cache.map(key, list(inputs), fn, size, lengths=self.input_lengths)

    def run_notes(self) -> dict[str, float]:
        notes = dict(self.lm.run_notes()) if "lm" in self.__dict__ else {}
        if "scorer" in self.__dict__:
            notes.update(getattr(self.scorer, "notes", dict)())
        return notes

    # run plumbing ------------------------------------------------------------------------------------------
    def preload(self) -> None:
        """Refusals first (classes, verbalizers, shots), then the weights and the shared prefix's cache."""
        self.check()
        self.lm.preload()
        if self.causal and self.scorer.share_prefix:
            self.scorer.prefix_cache()

    @cached_property
    def digest(self) -> str:
        """A short hash of everything that changes the class scores (settings and the demonstrations' texts)."""
        raw = json.dumps([{k: self.config[k] for k in PROMPT_KEYS},
                          [(ex.id, ex.text, str(ex.label)) for ex in self.demonstrations]], sort_keys=True)
        return hashlib.sha256(raw.encode()).hexdigest()[:12]

    @property
    def identity(self) -> str:
        return f"prompt[{self.lm.identity}|{self.digest}]"

    def info(self) -> dict[str, Any]:
        out = {**super().info(), "lm": self.lm.identity, "labels": [str(c) for c in self.classes],
               "verbalizers": self.words, "demonstrations": [ex.id for ex in self.demonstrations], "scoring": self.mode}
        if self.served:
            return {**out, "lm_info": self.lm.info()}
        return {**out, "prefix_tokens": len(self._layout["prefix"])}

    def trained_on(self, data: str) -> frozenset[str] | None:
        """The examples of `data` whose text is a demonstration: a benchmark never tests on them."""
        demos = {ex.text for ex in self.demonstrations}
        if not demos:
            return None
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        found = frozenset(ex.id for ex in load_examples(data, self.ctx, labelled=False, **cols) if ex.text in demos)
        return found or None

    @property
    def instruction(self) -> str:
        """The instruction as the LM reads it (`{labels}` filled in): what a prompt-robustness benchmark perturbs."""
        return self.config["instruction"].replace("{labels}", " or ".join(w.strip() for w in self.words))

    def with_instruction(self, instruction: str) -> PromptModel:
        """The same LM, classes and demonstrations under another instruction, read as given (a perturbed prompt, as
        PromptBench attacks it), with its own prefix cache and output cache; one per instruction, its queries
        counted here."""
        if instruction == self.instruction:
            return self
        lm, pool = self.lm, self.pool
        with self._lock:  # chunks computed at once ask for variants
            if instruction not in self._variants:
                clone = type(self)(self.arg, **{**self.config, "instruction": instruction})
                clone.bind(self.ctx)
                clone.__dict__.update(lm=lm, pool=pool)
                self._variants[instruction] = clone
            self._warm[instruction] = None
            self._warm.move_to_end(instruction)
            if len(self._warm) > self.WARM_VARIANTS:  # a search visits thousands of instructions: bound their caches
                cold = self._variants[self._warm.popitem(last=False)[0]]
                if "scorer" in cold.__dict__:
                    cold.scorer.release()
            return self._variants[instruction]

    @property
    def queries(self) -> int:
        return self.cache.misses + sum(v.queries for v in self._variants.values())
