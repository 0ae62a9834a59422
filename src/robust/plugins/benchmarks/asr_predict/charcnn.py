"""(9) MR: misclassification rate of a character-level CNN surrogate (Zhang et al. 2015; Dang et al. 2024, Appendix A.2
(9); docs/asr_predict.md).

Topology as the authors' `models/char_cnn.py` (kernels 7,7,3,3,3,3; max-pool 3 after conv 1, 2 and 6; no
padding; channel dropout 0.1 on the input; fc width 2 x filters, dropout 0.5; weights ~ N(0, 0.05)), training as
their `utils/train.py` (Adam, cross-entropy, shuffled mini-batches, last-epoch weights). The size is scaled
down (docs/asr_predict.md): the authors' 1024 filters x 1024 characters does not fit a CPU budget of seconds.
torch is imported inside functions (plugin modules stay light).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from robust import RobustError
from robust.plugins.benchmarks.asr_predict.features import check_mode
from robust.toolkit.lazy import np

#: the authors' 69-character alphabet (utils/parsing.py), space included
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789-,;.!?:'\"/\\|_@#$%^&*~`+ =<>()[]{}"
_INDEX = {ch: i for i, ch in enumerate(ALPHABET)}


@dataclass(frozen=True)
class CharCNNConfig:
    """Authors: filters = max_chars = 1024, batch 3. Defaults here are a CPU-seconds scale-down."""

    filters: int = 64
    max_chars: int = 256
    epochs: int = 5
    batch_size: int = 16
    lr: float = 5e-4
    input_dropout: float = 0.1


def conv_output_length(max_chars: int) -> int:
    """Sequence length after the six convolutions and three poolings (34 for the authors' 1024)."""
    n = (max_chars - 6) // 3
    n = (n - 6) // 3
    return (n - 8) // 3


def encode(texts: Sequence[str], max_chars: int) -> np.ndarray:
    """One-hot [n, max_chars, 69]: lower-cased, out-of-alphabet characters dropped, order REVERSED, first
    max_chars kept (= the end of the text), zero-padded (CharCNNTokenizer.tkn_str)."""
    out = np.zeros((len(texts), max_chars, len(ALPHABET)), dtype=np.float32)
    for row, text in enumerate(texts):
        ids = [_INDEX[ch] for ch in reversed(text.lower()) if ch in _INDEX][:max_chars]
        out[row, np.arange(len(ids)), ids] = 1.0
    return out


def build_model(n_classes: int, config: CharCNNConfig):
    """The surrogate as a torch module taking one-hot [B, max_chars, 69] batches."""
    import torch
    from torch import nn

    if conv_output_length(config.max_chars) < 1:
        raise RobustError(f"char-CNN max_chars={config.max_chars} is too short for its six convolutions (min 105)")
    f = config.filters

    def conv(c_in: int, k: int, pool: bool) -> list[nn.Module]:
        return [nn.Conv1d(c_in, f, kernel_size=k), nn.ReLU()] + ([nn.MaxPool1d(3)] if pool else [])

    class CharCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.input_dropout = nn.Dropout1d(config.input_dropout)  # the code's Dropout2d on [B, L, 69]
            self.convs = nn.Sequential(*conv(len(ALPHABET), 7, True), *conv(f, 7, True), *conv(f, 3, False),
                                       *conv(f, 3, False), *conv(f, 3, False), *conv(f, 3, True))
            self.head = nn.Sequential(
                nn.Flatten(),
                nn.Linear(f * conv_output_length(config.max_chars), 2 * f), nn.ReLU(), nn.Dropout(0.5),
                nn.Linear(2 * f, 2 * f), nn.ReLU(), nn.Dropout(0.5),
                nn.Linear(2 * f, n_classes),
            )

        def forward(self, x):
            return self.head(self.convs(self.input_dropout(x).transpose(1, 2)))

    model = CharCNN()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.Conv1d, nn.Linear)):
                module.weight.normal_(0.0, 0.05)
    return model


def train_predict(
    train_texts: Sequence[str], train_labels: Sequence[int], test_texts: Sequence[str], n_classes: int,
    config: CharCNNConfig = CharCNNConfig(), seed: int = 0,
) -> np.ndarray:
    """Train the surrogate on (texts, class indices) and return its predicted class index per test text."""
    import torch

    if len(train_texts) == 0 or len(test_texts) == 0:
        raise RobustError("the char-CNN surrogate needs at least one training and one test text")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = build_model(n_classes, config)
    x = torch.from_numpy(encode(train_texts, config.max_chars))
    y = torch.as_tensor(np.asarray(train_labels, dtype=np.int64))
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    model.train()
    for _ in range(config.epochs):
        for batch in torch.randperm(len(x), generator=gen).split(config.batch_size):
            opt.zero_grad()
            loss_fn(model(x[batch]), y[batch]).backward()
            opt.step()
    model.eval()  # last-epoch weights are the ones evaluated (the code's best_model.pt is never reloaded)
    x_test = torch.from_numpy(encode(test_texts, config.max_chars))
    with torch.inference_mode():
        logits = torch.cat([model(chunk) for chunk in x_test.split(256)])
    return logits.argmax(dim=1).numpy()


def misclassification_score(predicted: np.ndarray, labels: Sequence[int], mode: str = "faithful") -> float:
    """MR from predictions and true class indices 0..K-1. faithful: the code compares 0..K-1 predictions with
    the stored 1..K labels (docs/asr_predict.md), MR = 1 - mean(pred == label + 1); fixed: mean(pred != label)."""
    y = np.asarray(labels, dtype=np.int64)
    pred = np.asarray(predicted, dtype=np.int64)
    if check_mode(mode) == "faithful":
        return float(1.0 - np.mean(pred == y + 1))
    return float(np.mean(pred != y))


def misclassification_rate(
    train_texts: Sequence[str], train_labels: Sequence[int], test_texts: Sequence[str], test_labels: Sequence[int],
    n_classes: int, mode: str = "faithful", config: CharCNNConfig = CharCNNConfig(), seed: int = 0,
) -> float:
    """(9) MR of the char-CNN trained on the training texts and scored on held-out texts."""
    check_mode(mode)
    pred = train_predict(train_texts, train_labels, test_texts, n_classes, config, seed)
    return misclassification_score(pred, test_labels, mode)
