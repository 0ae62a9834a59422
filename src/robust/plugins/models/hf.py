"""`hf:<hub id or local dir>`: any transformers classifier, causal LM, seq2seq model, encoder or masked LM.

On a GPU: `dtype=auto` computes in bfloat16 where the CUDA device supports it (float32 on a CPU, MPS or an older
GPU); attention uses PyTorch's fused scaled-dot-product kernel (`sdpa`) where transformers offers it for the
architecture, else the model's own; a batch that runs out of device memory is split in halves and retried (the
largest size that fitted is kept for the following batches), so a run never fails for a batch too large.
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections.abc import Sequence
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robust import ModelAdapter, RobustError, Setting, derive_seed
from robust.toolkit.devices import check_device_name, torch_device

if TYPE_CHECKING:
    import numpy as np

TASK_CAPABILITIES = {
    "classify": frozenset({"classify", "embed"}),
    "causal": frozenset({"logprobs", "next_token_distribution", "generate", "embed"}),
    "encoder": frozenset({"embed"}),
    "fill-mask": frozenset({"fill_mask", "embed"}),
    "seq2seq": frozenset({"generate"}),
    "vision": frozenset({"embed_arrays"}),
}
POOLINGS = ("mean", "cls", "first-last-avg", "last-token")


def _task_from_architectures(architectures: Sequence[str]) -> str:
    arch = " ".join(architectures)
    if "ForSequenceClassification" in arch:
        return "classify"
    if "ForCausalLM" in arch or "LMHeadModel" in arch:
        return "causal"
    if "ForMaskedLM" in arch:
        return "fill-mask"
    if "ForConditionalGeneration" in arch:
        return "seq2seq"
    return "encoder"


def _task_from_config(cfg: dict[str, Any]) -> str:
    """Vision backbones (ViT, DeiT, DINOv2, ResNet, ConvNeXt, CLIP vision...) have image channels and no
    vocabulary; everything else is told apart by its architecture name."""
    architectures = cfg.get("architectures") or []
    if ("num_channels" in cfg and "vocab_size" not in cfg) or any("ForImageClassification" in a for a in architectures):
        return "vision"
    return _task_from_architectures(architectures)


def cache_kwarg(net: Any) -> str:
    """The forward argument that takes a key/value cache (`cache` since transformers 5, else past_key_values)."""
    import inspect

    return "cache" if "cache" in inspect.signature(net.forward).parameters else "past_key_values"


def returned_cache(out: Any) -> Any:
    """The key/value cache a forward pass returned, under either name."""
    cache = getattr(out, "cache", None)
    return cache if cache is not None else out.past_key_values


class HFModel(ModelAdapter):
    name = "hf"
    description = "Any transformers model by hub id or local dir: classifier, causal LM, seq2seq, encoder, masked LM"
    capabilities = frozenset().union(*TASK_CAPABILITIES.values(), {"tokenize", "checkpoint"})
    poolings = POOLINGS
    settings = {
        "batch_size": Setting(32, min=1),
        "task": Setting("auto", choices=("auto", *TASK_CAPABILITIES)),
        "pooling": Setting("auto", choices=("auto", *POOLINGS), help="auto: mean; last-token for causal LMs"),
        "max_length": Setting(512, min=2, help="tokens per input (longer inputs are truncated)"),
        "device": Setting("auto", help="auto (cuda if available, else cpu), cpu, cuda, cuda:1, mps"),
        "dtype": Setting("auto", choices=("auto", "float32", "float16", "bfloat16"),
                         help="auto: bfloat16 on a CUDA GPU that supports it, else float32"),
        "attention": Setting("auto", choices=("auto", "sdpa", "eager"),
                             help="auto: sdpa where transformers offers it for the model (on CUDA without cuDNN's "
                                  "kernels, which build a plan per input shape), else its default; sdpa: with the "
                                  "kernels torch picks"),
        "trust_remote_code": False,
        "revision": "",
        "gguf_file": "",
        "top_k": Setting(50, min=0, help="sampling in generate (HF default); 0 = no cut"),
        "temperature": Setting(1.0, min=1e-6),
        "num_beams": Setting(1, min=1, help="beam search for seq2seq generation (e.g. paraphrasers)"),
        "max_padding": Setting(0.1, min=0.0, max=1.0, help="batches are cut (in length order) where padding "
                               "would exceed this share of the positions; 1 = fixed batch_size; 0 = no padding "
                               "(an output does not depend on its batch-mates: a helper model's default)"),
    }
    identity_settings = ("task", "pooling", "max_length", "dtype", "revision", "gguf_file", "trust_remote_code",
                         "top_k", "temperature", "num_beams")
    HEAD_CHUNK = 1024  # token positions whose logits are materialized at once (x vocabulary size floats)
    TOKEN_MEMO = 100_000  # texts whose token ids are remembered (lengths for batching, then the forward pass)

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg, **config)
        if not self.arg:
            raise RobustError(f"model {self.name!r} needs a hub id or a local directory, e.g. hf:gpt2")
        local = Path(self.arg).expanduser()
        if self.arg.startswith(("/", ".", "~")) and not local.is_dir():
            if not local.exists():
                raise RobustError(f"no such model directory: {local}")
            gguf = (f"; for a GGUF file: --model hf:{local.parent} --set model.gguf_file={local.name}"
                    if local.suffix == ".gguf" else "")
            raise RobustError(f"hf: takes a model directory, not a file: {local}{gguf}")
        check_device_name(self.config["device"])
        self.max_padding = None if self.config["max_padding"] >= 1 else float(self.config["max_padding"])
        self._load_lock = threading.RLock()  # the runner may preload in a background thread
        self._token_lock = threading.Lock()  # a fast tokenizer must not be called from two threads at once
        # int32 arrays (4 bytes an id) rather than lists of ints (36 bytes an id): 100,000 texts of 26 tokens
        # (an MR sentence) hold 18 MB instead of 99 MB
        self._token_memo: dict[str, array[int]] = {}
        self.fits: int | None = None  # the largest batch known to fit the device's memory (None: any so far)

    # what to load -----------------------------------------------------------------------------
    @property
    def source(self) -> str:
        return self.arg

    def _load_kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"trust_remote_code": bool(self.config["trust_remote_code"])}
        if self.config["revision"]:
            kw["revision"] = self.config["revision"]
        if self.config["gguf_file"]:
            kw["gguf_file"] = self.config["gguf_file"]
        return kw

    @cached_property
    def task(self) -> str:
        if self.config["task"] != "auto":
            return self.config["task"]
        config_file = Path(self.source) / "config.json"
        if config_file.is_file():
            return _task_from_config(json.loads(config_file.read_text()))
        if Path(self.source).is_dir() and not self.config["gguf_file"]:
            raise RobustError(_not_a_model_dir(Path(self.source)))
        from transformers import AutoConfig

        try:
            cfg = AutoConfig.from_pretrained(self.source, **self._load_kwargs())
        except (OSError, ValueError) as exc:
            raise RobustError(f"cannot load model {self.source!r}: {_first_line(exc)}") from None
        found = cfg.to_dict()
        if self.config["gguf_file"] and not found.get("architectures"):  # a GGUF's config names no architecture,
            return "seq2seq" if found.get("model_type") in ("t5", "umt5") else "causal"  # and llama.cpp's are LMs
        return _task_from_config(found)

    def provides(self) -> frozenset[str]:
        caps = TASK_CAPABILITIES[self.task] | ({"checkpoint"} if self.task != "vision" else set())
        return caps | {"tokenize"} if self.task == "causal" else caps

    @property
    def mask_token(self) -> str:
        return self.tokenizer.mask_token or super().mask_token

    @classmethod
    def from_objects(cls, model: Any, tokenizer: Any = None, **config: Any) -> HFModel:
        """An adapter over a transformers model (and its tokenizer) already in memory: `robust.run(bench,
        model=(model, tokenizer))`. It is used where it is (its device and dtype) and never reloaded. Its task comes
        from the object's class (its head: `BertForSequenceClassification` classifies whatever
        `config.architectures` says), unless the setting `task` names one."""
        task = config.get("task", "auto")
        if task == "auto":
            task = _task_from_config({**model.config.to_dict(), "architectures": [type(model).__name__]})
        if tokenizer is None and task != "vision":
            raise RobustError(f"a {type(model).__name__} needs its tokenizer: pass model=(model, tokenizer)")
        adapter = cls("in-memory", **{**config, "device": str(getattr(model, "device", "cpu"))})
        adapter.arg = f"in-memory:{getattr(model, 'name_or_path', '') or type(model).__name__}"
        adapter.__dict__.update(task=task, model=model.eval(), dtype=getattr(model, "dtype", None),
                                **({"tokenizer": tokenizer} if tokenizer else {}))
        _no_attention_plans_per_shape(adapter.config["attention"], adapter.config["device"])  # as a loaded model's
        return adapter

    def info(self) -> dict[str, Any]:
        return {**super().info(), "task": self.task, "source": self.source,
                "dtype": str(self.dtype).removeprefix("torch.")}

    @property
    def overlap(self) -> int:  # type: ignore[override]
        """Chunks at once on a GPU (robust prepares some while the device computes another), else one. Four for a
        classifier or an encoder: a BERT-base victim on an H200 ran RobTest typo 1.2x faster than with two
        (docs/performance/gpu.md); two for a language model, whose batches hold more activations (not measured)."""
        if not self.device.startswith("cuda"):
            return 1
        return 2 if self.task in ("causal", "seq2seq") else 4

    # loading ----------------------------------------------------------------------------------
    @cached_property
    def device(self) -> str:
        """The torch device of the `device` setting, refused in one line where this torch cannot reach it."""
        return torch_device(self.config["device"], self.name)

    def identity_values(self) -> dict[str, Any]:
        """The settings that change the outputs, and the dtype `auto` resolves to where it is not float32 (bfloat16
        on a CUDA GPU): a run begun there and resumed on a CPU is not taken for the same model's."""
        values = super().identity_values()
        if self.config["dtype"] == "auto" and (resolved := str(self.dtype).removeprefix("torch.")) != "float32":
            values["dtype"] = resolved
        return values

    @cached_property
    def dtype(self) -> Any:
        """The torch dtype the weights compute in; `auto`: bfloat16 on a CUDA device that supports it, else
        float32 (CPUs and MPS compute bfloat16 slowly or not at all; float16 overflows in some models)."""
        import torch

        name = self.config["dtype"]
        if name == "auto":
            cuda = self.device.startswith("cuda") and torch.cuda.is_available()
            name = "bfloat16" if cuda and torch.cuda.is_bf16_supported() else "float32"
        return getattr(torch, name)

    @cached_property
    def tokenizer(self) -> Any:
        with self._load_lock:
            if "tokenizer" in self.__dict__:  # loaded by another thread meanwhile
                return self.__dict__["tokenizer"]
            from transformers import AutoTokenizer

            try:
                tok = AutoTokenizer.from_pretrained(self.source, **self._load_kwargs())
            except (OSError, ValueError) as exc:
                raise RobustError(f"cannot load tokenizer of {self.source!r}: {_first_line(exc)}") from None
            return tok

    def _model_class(self) -> Any:
        import transformers as tf

        return {"classify": tf.AutoModelForSequenceClassification, "causal": tf.AutoModelForCausalLM,
                "fill-mask": tf.AutoModelForMaskedLM, "encoder": tf.AutoModel,
                "seq2seq": tf.AutoModelForSeq2SeqLM, "vision": tf.AutoModel}[self.task]

    @cached_property
    def model(self) -> Any:
        with self._load_lock:
            if "model" in self.__dict__:  # loaded by another thread meanwhile
                return self.__dict__["model"]
            from transformers.utils import logging as hf_logging

            from robust.toolkit.heap import bound_heap
            from robust.toolkit.threads import configure_threads

            configure_threads()
            bound_heap()
            hf_logging.disable_progress_bar()
            hf_logging.set_verbosity_error()
            device = self.device  # a device this torch cannot reach is said before the weights load
            kw = self._load_kwargs()
            kw["dtype"] = self.dtype
            attention = self.config["attention"]
            kw["output_loading_info"] = True
            try:
                try:
                    model, loaded = self._model_class().from_pretrained(
                        self.source, attn_implementation="sdpa" if attention == "auto" else attention, **kw)
                except (ValueError, ImportError):
                    if attention != "auto":
                        raise
                    model, loaded = self._model_class().from_pretrained(self.source, **kw)  # no sdpa: the model's own
            except (OSError, ValueError, ImportError) as exc:
                raise RobustError(f"cannot load model {self.source!r}: {_first_line(exc)}") from None
            missing = sorted(loaded.get("missing_keys") or ())
            if self.task == "classify" and missing:  # transformers filled them at random: its answers mean nothing
                raise RobustError(f"model hf:{self.arg} has no trained classification head: {', '.join(missing[:4])}"
                                  f"{' …' if len(missing) > 4 else ''} are not in its checkpoint (an encoder or a "
                                  f"language model, not a fine-tuned classifier); give a fine-tuned one, or train one "
                                  f"on your data: --model finetune:hf:{self.arg}")
            _no_attention_plans_per_shape(attention, device)
            return model.to(device).eval()

    def preload(self) -> None:
        """Tokenizer, weights and the checked logits split, before the first query (see `Runner`)."""
        if self.task != "vision":  # vision models read pixels: they have no tokenizer
            self.tokenizer  # noqa: B018
        self.model  # noqa: B018
        self._split  # noqa: B018

    @cached_property
    def _split(self) -> tuple[Any, Any] | None:
        """(body, head) with head(body(ids).last_hidden_state) == model(ids).logits for a causal LM, so logits
        are computed only at the positions a query reads; checked once on a probe input (a model whose logits
        are post-processed, e.g. soft-capped, fails the check and keeps full logits)."""
        import torch

        if self.task != "causal":
            return None
        body, head = getattr(self.model, "base_model", None), self.model.get_output_embeddings()
        if body is None or body is self.model or head is None:
            return None
        ids = torch.tensor([self.tokenize(["The probe checks that logits split, as the model computes them."])[0]],
                           device=self.device)
        mask = torch.ones_like(ids)
        try:
            with torch.inference_mode():
                full = self.model(input_ids=ids, attention_mask=mask).logits.float()
                split = head(body(input_ids=ids, attention_mask=mask).last_hidden_state).float()
        except (TypeError, ValueError, AttributeError, RuntimeError):
            return None
        same = split.shape == full.shape and bool(torch.allclose(split, full, rtol=1e-4, atol=1e-4))
        return (body, head) if same else None

    @property
    def labels(self) -> list[Any] | None:
        """Class names in index order (classifiers only)."""
        if self.task != "classify":
            return None
        id2label = getattr(self.model.config, "id2label", None) or {}
        return [id2label.get(i, i) for i in range(self.model.config.num_labels)]

    # batching ---------------------------------------------------------------------------------
    def _max_length(self) -> int:
        limit = getattr(self.tokenizer, "model_max_length", None) or 10**9
        return int(min(self.config["max_length"], limit if limit < 10**6 else 10**9))

    def encode(self, text: str, **options: Any) -> list[int]:
        """The token ids of one text, the tokenizer called with `options` under the adapter's tokenizer lock (for
        adapters that wrap this one, such as `prompt`, whose chunks may be computed at once)."""
        with self._token_lock:
            return list(self.tokenizer(text, **options)["input_ids"])

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids; texts longer than `max_length` lose their start for causal LMs (whose predictions
        are about what follows the end) and their end otherwise. Remembered per text (batching by length
        tokenizes before the forward pass does)."""
        memo, tokenizer = self._token_memo, self.tokenizer
        with self._token_lock:
            new = list(dict.fromkeys(t for t in texts if t not in memo))
            if new:
                side = "left" if self.task == "causal" else "right"
                if getattr(tokenizer, "truncation_side", side) != side:
                    tokenizer.truncation_side = side
                enc = tokenizer(new, truncation=True, max_length=self._max_length())
                if len(memo) + len(new) > self.TOKEN_MEMO:
                    memo.clear()
                memo.update(zip(new, (array("i", ids) for ids in enc["input_ids"])))
                if any(t not in memo for t in texts):  # more new texts than the memo holds
                    return [list(ids) for ids in tokenizer(list(texts), truncation=True,
                                                           max_length=self._max_length())["input_ids"]]
            return [memo[t].tolist() for t in texts]

    def _fitted(self, fn: Any) -> Any:
        """`fn` on batches that fit the device's memory: a batch that runs out of it is split in halves and each
        half retried (recursively); the size that fitted caps the batches that follow (`fits`)."""

        def run(batch: Sequence[Any]) -> list[Any]:
            cap = self.fits
            if cap is not None and len(batch) > cap:
                return [out for start in range(0, len(batch), cap) for out in run(batch[start : start + cap])]
            try:
                return list(fn(batch))
            except RuntimeError as exc:  # torch.OutOfMemoryError is one
                if not _out_of_memory(exc):
                    raise
                if len(batch) == 1:
                    raise RobustError(f"model {self.identity} ran out of device memory on a single input "
                                      f"({_first_line(exc)}); lower max_length or use a larger device") from None
            half = (len(batch) + 1) // 2  # retried outside the except block, so the failed batch's memory is freed
            self.fits = half if self.fits is None else min(self.fits, half)
            _empty_device_cache()
            return run(batch[:half]) + run(batch[half:])

        return run

    def input_lengths(self, inputs: Sequence[Any]) -> list[int]:
        """Token counts (batches are formed by them)."""
        return [len(ids) for ids in self._ids(inputs)]

    def _ids(self, inputs: Sequence[Any]) -> list[list[int]]:
        texts = [x for x in inputs if isinstance(x, str)]
        encoded = iter(self.tokenize(texts)) if texts else iter(())
        ids = [next(encoded) if isinstance(x, str) else list(x) for x in inputs]
        if any(not row for row in ids):
            raise RobustError("empty input: a text produced no tokens")
        return ids

    def _pad(self, ids: list[list[int]], left: bool = False) -> tuple[Any, Any]:
        """Dynamic padding to the longest row; returns (input_ids, attention_mask) tensors on the device. Built in
        numpy in one pass (a row's ids fill its mask's positions in order), not a tensor per row."""
        import numpy as np
        import torch

        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        width = int(lengths.max())
        pad_id = self.tokenizer.pad_token_id
        columns = np.arange(width)
        mask = columns >= width - lengths[:, None] if left else columns < lengths[:, None]
        input_ids = np.full((len(ids), width), 0 if pad_id is None else pad_id, dtype=np.int64)
        input_ids[mask] = np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
        return (torch.from_numpy(input_ids).to(self.device),
                torch.from_numpy(mask.astype(np.int64)).to(self.device))

    def _forward(self, inputs: Sequence[Any], hidden: bool = False, body: bool = False) -> tuple[Any, list[int]]:
        """One right-padded forward pass; `body`: the base model only (hidden states, no task head)."""
        import torch

        ids = self._ids(inputs)
        input_ids, mask = self._pad(ids)
        net = self.model
        if body and getattr(net, "base_model", None) is not None:
            net = net.base_model
        with torch.inference_mode():
            out = net(input_ids=input_ids, attention_mask=mask, output_hidden_states=hidden)
        return out, [len(r) for r in ids]

    def _logits_at(self, inputs: Sequence[Any], rows: Sequence[Sequence[int]], reduce: Any) -> list[Any]:
        """`reduce(i, logits)` for each input i, where logits [len(rows[i]), V] (float) are its logits at token
        positions rows[i] (each predicts the next token), from one forward pass. When the model splits
        (`_split`) the LM head runs only at those positions, on about HEAD_CHUNK positions at a time."""
        import torch

        split = self._split
        if split is None:
            out, _ = self._forward(inputs)
            return [reduce(i, out.logits[i, list(pos)].float()) for i, pos in enumerate(rows)]
        body, head = split
        input_ids, mask = self._pad(self._ids(inputs))
        results: list[Any] = []
        with torch.inference_mode():
            hidden = body(input_ids=input_ids, attention_mask=mask).last_hidden_state
            start = 0
            while start < len(rows):
                stop, count = start, 0
                while stop < len(rows) and (stop == start or count + len(rows[stop]) <= self.HEAD_CHUNK):
                    count, stop = count + len(rows[stop]), stop + 1
                picked = torch.cat([hidden[i, list(rows[i])] for i in range(start, stop)])
                logits = head(picked).float().split([len(rows[i]) for i in range(start, stop)])
                results += [reduce(i, lg) for i, lg in zip(range(start, stop), logits)]
                start = stop
        return results

    # capabilities -----------------------------------------------------------------------------
    def _pooling(self, pooling: str | None) -> str:
        chosen = pooling or self.config["pooling"]
        if chosen == "auto":
            chosen = "last-token" if self.task == "causal" else "mean"
        if chosen not in POOLINGS:
            raise RobustError(f"unknown pooling {chosen!r}; choose from {', '.join(POOLINGS)}")
        return chosen

    def pooling_used(self, pooling: str | None) -> str:
        return self._pooling(pooling)

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        import torch

        mode = self._pooling(pooling)
        # every layer's states only where the pooling reads a first layer: keeping all of them alive until pooled
        # holds layers + 1 activations of the batch at once (7 for MiniLM), for nothing
        first = mode == "first-last-avg"
        out, lengths = self._forward(texts, hidden=first, body=True)
        last = out.hidden_states[-1] if first else out.last_hidden_state
        mask = torch.zeros(last.shape[:2], dtype=last.dtype, device=last.device)
        for i, n in enumerate(lengths):
            mask[i, :n] = 1
        if mode == "cls":
            pooled = last[:, 0]
        elif mode == "last-token":
            pooled = last[torch.arange(len(lengths)), torch.tensor(lengths) - 1]
        else:  # mean of the last layer, or SimCSE's avg_first_last: mean of (h[1] + h[-1]) / 2
            h = last if mode == "mean" else (out.hidden_states[1] + last) / 2
            pooled = (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        # compact: a row of a strided view (cls, last-token) would keep the whole batch's states alive in the cache
        return list(pooled.float().contiguous().cpu().numpy())

    # vision (embed_arrays): pixel arrays normalised with input_spec()'s constants ----------------------------
    def input_spec(self) -> Any:
        from robust.plugins.models.vision import hf_vision_input

        return hf_vision_input(self.source, self.model.config)

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        from robust.plugins.models.vision import VISION_POOLINGS, pool_vision_output, torch_features

        pooling = self.config["pooling"]
        if pooling not in VISION_POOLINGS:
            raise RobustError(f"vision models pool with {', '.join(VISION_POOLINGS)}, not {pooling!r}")
        forward = lambda m, x: pool_vision_output(m(pixel_values=x), pooling)  # noqa: E731
        return torch_features(self.model, batch, self.device, forward)

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        out, _ = self._forward(texts)
        return list(out.logits.float().softmax(-1).cpu().numpy())

    def _next_token_distribution(self, inputs: Sequence[Any]) -> list[np.ndarray]:
        ids = self._ids(inputs)
        return self._logits_at(ids, [[len(r) - 1] for r in ids], lambda i, lg: lg[0].softmax(-1).cpu().numpy())

    def _token_distributions(self, inputs: Sequence[Any], lasts: Sequence[int]) -> list[np.ndarray]:
        ids = self._ids(inputs)
        for row, last in zip(ids, lasts):
            if last >= len(row):
                raise RobustError(f"input of {len(row)} tokens has no {last} predicted positions")
        rows = [range(len(r) - 1 - last, len(r) - 1) for r, last in zip(ids, lasts)]
        return self._logits_at(ids, rows, lambda i, lg: lg.softmax(-1).cpu().numpy())

    def _logprobs(self, inputs: Sequence[Any]) -> list[np.ndarray]:
        import torch

        ids = self._ids(inputs)

        def logp_of_targets(i: int, logits: Any) -> np.ndarray:
            target = torch.tensor(ids[i][1:], device=logits.device)
            return torch.log_softmax(logits, -1).gather(-1, target[:, None])[:, 0].cpu().numpy()

        return self._logits_at(ids, [range(len(r) - 1) for r in ids], logp_of_targets)

    def _fill_mask(self, texts: Sequence[str], top_k: int) -> list[list[tuple[str, float]]]:
        mask_id = self.tokenizer.mask_token_id
        if mask_id is None:
            raise RobustError(f"model {self.source!r} has no mask token")
        ids = self._ids(texts)
        for i, row in enumerate(ids):
            if mask_id not in row:
                raise RobustError(f"no {self.tokenizer.mask_token} in text {texts[i]!r}")

        def ranked(i: int, logits: Any) -> list[tuple[str, float]]:
            values, indices = logits[0].softmax(-1).topk(top_k)
            tokens = self.tokenizer.convert_ids_to_tokens(indices.tolist())
            return [(t, float(v)) for t, v in zip(tokens, values.tolist())]

        return self._logits_at(ids, [[row.index(mask_id)] for row in ids], ranked)

    def _generate(self, prompts: Sequence[str], max_new_tokens: int, seed: int, do_sample: bool) -> list[str]:
        """Left-padded batched decoding with one torch.Generator per prompt, so batching never changes results."""
        import torch

        if self.task == "seq2seq":
            return self._generate_seq2seq(prompts, max_new_tokens, seed, do_sample)

        ids = self._ids(prompts)
        input_ids, mask = self._pad(ids, left=True)
        gens = [torch.Generator(device=self.device).manual_seed(derive_seed(seed, p)) for p in prompts]
        eos = self.tokenizer.eos_token_id
        new = torch.empty((len(ids), 0), dtype=torch.long, device=self.device)
        done = torch.zeros(len(ids), dtype=torch.bool, device=self.device)
        past, cur, cache = None, input_ids, cache_kwarg(self.model)
        with torch.inference_mode():
            for _ in range(max_new_tokens):
                positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, -cur.shape[1]:]
                out = self.model(input_ids=cur, attention_mask=mask, position_ids=positions,
                                 use_cache=True, **{cache: past}, **self._last_logits_only)
                past, logits = returned_cache(out), out.logits[:, -1].float()
                nxt = torch.stack([self._pick(row, g, do_sample) for row, g in zip(logits, gens)])
                if eos is not None:
                    nxt = torch.where(done, torch.full_like(nxt, eos), nxt)
                    done |= nxt == eos
                new = torch.cat([new, nxt[:, None]], 1)
                cur = nxt[:, None]
                mask = torch.cat([mask, torch.ones_like(cur)], 1)
                if bool(done.all()):
                    break
        return [self.tokenizer.decode(_until_eos(row.tolist(), eos), skip_special_tokens=True) for row in new]

    @cached_property
    def _last_logits_only(self) -> dict[str, Any]:
        """The forward argument that computes logits at the last position only, if the model takes one."""
        import inspect

        params = inspect.signature(self.model.forward).parameters
        for name in ("logits_to_keep", "num_logits_to_keep"):
            if name in params:
                return {name: 1}
        return {}

    def _generate_seq2seq(self, prompts: Sequence[str], max_new_tokens: int, seed: int, do_sample: bool) -> list[str]:
        """transformers' generate, one prompt at a time when sampling (seeded by the prompt), batched when greedy."""
        import torch

        options = {"max_new_tokens": max_new_tokens, "do_sample": do_sample, "num_beams": int(self.config["num_beams"])}
        if do_sample:
            options.update(top_k=int(self.config["top_k"]), temperature=float(self.config["temperature"]))
        groups = [[p] for p in prompts] if do_sample else [list(prompts)]
        out: list[str] = []
        with torch.inference_mode():
            for group in groups:
                input_ids, mask = self._pad(self._ids(group))
                if do_sample:
                    torch.manual_seed(derive_seed(seed, group[0]))
                ids = self.model.generate(input_ids=input_ids, attention_mask=mask, **options)
                out += self.tokenizer.batch_decode(ids, skip_special_tokens=True)
        return out

    def _pick(self, logits: Any, generator: Any, do_sample: bool) -> Any:
        import torch

        if not do_sample:
            return logits.argmax()
        logits = logits / float(self.config["temperature"])
        k = int(self.config["top_k"])
        if 0 < k < logits.shape[-1]:
            cutoff = logits.topk(k).values[-1]
            logits = logits.masked_fill(logits < cutoff, float("-inf"))
        return torch.multinomial(logits.softmax(-1), 1, generator=generator)[0]


def _no_attention_plans_per_shape(attention: str, device: str) -> None:
    """For `attention=auto` on CUDA, turn off cuDNN's attention kernels, PyTorch's first choice for bfloat16 and
    float16 on Hopper GPUs. They build a plan for each new input shape, and robust pads each batch to its own
    length, so nearly every batch is a new shape. PyTorch's flash or memory-efficient kernels compute the same
    attention without a plan. The flag is process-wide (torch keeps one); `attention=sdpa` leaves it as it is."""
    if attention != "auto" or not device.startswith("cuda"):
        return
    import torch

    if hasattr(torch.backends.cuda, "enable_cudnn_sdp"):
        torch.backends.cuda.enable_cudnn_sdp(False)


def _out_of_memory(exc: BaseException) -> bool:
    """torch's OutOfMemoryError (CUDA), or a RuntimeError saying `out of memory` (MPS, older torch, ROCm)."""
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    return isinstance(exc, oom) or "out of memory" in str(exc).lower()


def _empty_device_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _until_eos(tokens: list[int], eos: int | None) -> list[int]:
    return tokens[: tokens.index(eos)] if eos is not None and eos in tokens else tokens


def _not_a_model_dir(path: Path) -> str:
    """Why a local directory is not a transformers model, and where one may be: a folder below it holding a
    config.json, or a GGUF file to name."""
    below = sorted(p.parent for p in [*path.glob("*/config.json"), *path.glob("*/*/config.json")])
    ggufs = sorted(p.name for p in path.glob("*.gguf"))
    why = f"cannot load model {str(path)!r}: the directory has no config.json (not a transformers model directory)"
    if below:
        return f"{why}; one is in {below[0]}: --model hf:{below[0]}"
    if ggufs:
        return f"{why}; it holds a GGUF file: --set model.gguf_file={ggufs[0]}"
    return f"{why}; give the directory that holds the model's config.json and weights"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    hint = " (offline? set HF_HUB_OFFLINE=1 and use a local directory)" if os.environ.get("HF_HUB_OFFLINE") else ""
    return (text[0] if text else type(exc).__name__) + hint
