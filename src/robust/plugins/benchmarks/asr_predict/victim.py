"""The victim of a sub-dataset (Dang et al. 2024, §5; offline substitutes in docs/asr_predict.md): a sequence classifier
fine-tuned on its 450 training texts, saved as a Hugging Face model directory and loaded back through the `hf:` adapter
(so the attacks query it with robust's batching and cache).

Architectures (`victim` setting):
* `tiny-bert` (default): a randomly initialised BertForSequenceClassification with MiniLM's uncased
  WordPiece vocabulary (30,522), hidden 128, 2 layers, 2 heads, intermediate 512, max length 64;
  AdamW lr 5e-4, weight decay 0.01, 10 % linear warm-up, <= 10 epochs, batch 32, the epoch with the best
  validation accuracy kept.
* `minilm`: the embedded MiniLM encoder + a new linear head, lr 5e-5.
* `hf:DIR_OR_ID`: any pretrained Hugging Face checkpoint with a new classification head, lr 5e-5.

Directories are cached by (architecture, data, hyper-parameters, seed): a resumed build retrains nothing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from robust import RobustError, cache_dir
from robust.toolkit.lazy import np
from robust.toolkit.paths import built_in_place

TINY_BERT = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
             "max_position_embeddings": 512}


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 10
    batch_size: int = 32
    lr: float = 5e-4  # tiny-bert; pretrained starts use 5e-5 (docs/asr_predict.md)
    weight_decay: float = 0.01
    warmup: float = 0.1
    max_length: int = 64
    seed: int = 0


def learning_rate(arch: str, lr: float) -> float:
    """lr 0 = the default for the architecture (docs/asr_predict.md)."""
    return lr or (5e-4 if arch == "tiny-bert" else 5e-5)


def _key(arch: str, base: str, texts: Sequence[str], labels: Sequence[int], val: tuple, config: TrainConfig) -> str:
    data = [list(texts), list(map(int, labels)), list(val[0]), list(map(int, val[1]))]
    h = hashlib.sha256(json.dumps([arch, base, data, asdict(config)]).encode())
    return h.hexdigest()[:20]


def _base_model(arch: str, base_dir: str, n_classes: int):
    from transformers import AutoModelForSequenceClassification, BertConfig, BertForSequenceClassification

    if arch == "tiny-bert":
        vocab = json.loads((Path(base_dir) / "config.json").read_text()).get("vocab_size", 30522)
        return BertForSequenceClassification(BertConfig(vocab_size=vocab, num_labels=n_classes, **TINY_BERT))
    try:
        return AutoModelForSequenceClassification.from_pretrained(base_dir, num_labels=n_classes,
                                                                  ignore_mismatched_sizes=True)
    except (OSError, ValueError) as exc:
        raise RobustError(f"victim {arch!r}: cannot load {base_dir!r}: {str(exc).splitlines()[0]}") from None


def train_victim(arch: str, base_dir: str, texts: Sequence[str], labels: Sequence[int], val_texts: Sequence[str],
                 val_labels: Sequence[int], n_classes: int, config: TrainConfig) -> tuple[Path, dict[str, float]]:
    """Fine-tune (or train from scratch) and save; returns (model directory, {"val_accuracy", "epoch"}).
    `base_dir` holds the tokenizer (and, unless tiny-bert, the starting weights)."""
    target = cache_dir() / "asr-predict" / "victims" / _key(arch, base_dir, texts, labels, (val_texts, val_labels),
                                                            config)
    info_file = target / "robust-victim.json"
    if info_file.is_file():
        info = json.loads(info_file.read_text())
        return target, {k: info[k] for k in ("val_accuracy", "epoch")}  # its domain is in the file, not the record
    import torch
    from transformers import AutoTokenizer, get_linear_schedule_with_warmup

    torch.manual_seed(config.seed)
    tokenizer = AutoTokenizer.from_pretrained(base_dir)
    model = _base_model(arch, base_dir, n_classes)
    if getattr(model.config, "pad_token_id", None) is None and tokenizer.pad_token_id is not None:
        model.config.pad_token_id = tokenizer.pad_token_id

    def encode(batch: Sequence[str]):
        return tokenizer(list(batch), padding=True, truncation=True, max_length=config.max_length,
                         return_tensors="pt")

    y = torch.tensor(np.asarray(labels, dtype=np.int64))
    steps_per_epoch = -(-len(texts) // config.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    total = steps_per_epoch * config.epochs
    schedule = get_linear_schedule_with_warmup(optimizer, int(config.warmup * total), total)
    rng = np.random.default_rng(config.seed)
    best: tuple[float, int, dict] = (-1.0, 0, {})
    for epoch in range(1, config.epochs + 1):
        model.train()
        order = rng.permutation(len(texts))
        for start in range(0, len(texts), config.batch_size):
            idx = order[start: start + config.batch_size]
            loss = model(**encode([texts[i] for i in idx]), labels=y[idx]).loss
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
        accuracy = evaluate(model, encode, val_texts, val_labels)
        if accuracy > best[0]:  # keep the epoch with the best validation accuracy (docs/asr_predict.md)
            best = (accuracy, epoch, {k: v.detach().clone() for k, v in model.state_dict().items()})
    model.load_state_dict(best[2])
    model.config.id2label = {i: str(i) for i in range(n_classes)}
    model.config.label2id = {str(i): i for i in range(n_classes)}
    info = {"val_accuracy": best[0], "epoch": best[1]}
    domain = {"arch": arch, "base": base_dir, "classes": n_classes, "train_size": len(texts), "config": asdict(config)}
    if target.exists() and not info_file.is_file():  # half-written by a version that saved in place
        shutil.rmtree(target)
    with built_in_place(target) as building:
        model.save_pretrained(building)
        tokenizer.save_pretrained(building)
        (building / "robust-victim.json").write_text(json.dumps({**info, "domain": domain}))
    return target, info


def evaluate(model, encode, texts: Sequence[str], labels: Sequence[int], batch_size: int = 64) -> float:
    import torch

    if not len(texts):
        return 0.0
    model.eval()
    right = 0
    with torch.inference_mode():
        for start in range(0, len(texts), batch_size):
            logits = model(**encode(texts[start: start + batch_size])).logits
            right += int((logits.argmax(-1).numpy() == np.asarray(labels[start: start + batch_size])).sum())
    return right / len(texts)
