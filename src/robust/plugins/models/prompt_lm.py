"""Log-likelihoods of answers (verbalizers) after a prompt: causal LMs with the shared prefix's key/value cache
(or without it, the naive path), seq2seq LMs with the answer as the decoder's output.

A causal query is three token segments: the shared prefix P (instruction, demonstrations, the template up to
`{text}`), the example's segment E (its text and the template's rest) and an answer A_k. The log-likelihood of
A_k is sum_j log p(A_k[j] | P, E, A_k[:j]) (lm-eval-harness's loglikelihood). P is encoded once; its keys and
values are expanded over every row of a batch (one row per example and distinct answer head A_k[:-1]; with
single-token answers, one row per example), rows are right-padded after P with position ids continuing from
|P|. The naive path encodes P + E + A_k[:-1] whole for every row; both read the same token sequences, so
their scores agree up to float rounding.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from typing import Any

from robust.plugins.models.hf import cache_kwarg, returned_cache
from robust.toolkit.lazy import np


def expand_cache(cache: Any, n: int) -> Any:
    """A shallow copy of a batch-1 key/value cache whose tensors are views expanded to batch `n` (no copy:
    the forward pass concatenates the new positions into fresh tensors and leaves the original untouched)."""
    grow = lambda t: t.expand(n, *t.shape[1:])  # noqa: E731
    if isinstance(cache, tuple):  # legacy format: one (key, value) pair per layer
        return tuple(tuple(grow(t) for t in layer) for layer in cache)
    out = copy.copy(cache)
    if hasattr(out, "layers"):  # transformers >= 4.56: one CacheLayer per layer
        out.layers = [copy.copy(layer) for layer in cache.layers]
        for layer in out.layers:
            layer.keys, layer.values = grow(layer.keys), grow(layer.values)
    else:
        out.key_cache = [grow(t) for t in cache.key_cache]
        out.value_cache = [grow(t) for t in cache.value_cache]
    return out


def _target_logprobs(states: Any, rows: Sequence[int], positions: Sequence[int], targets: Sequence[int],
                     head: Any, chunk: int) -> Any:
    """log p(target) from the states (hidden states with `head`, else logits) at (row, position) pairs, `chunk`
    positions' vocabulary logits at a time."""
    import torch

    out = []
    for s in range(0, len(rows), chunk):
        r = torch.tensor(rows[s: s + chunk], device=states.device)
        p = torch.tensor(positions[s: s + chunk], device=states.device)
        t = torch.tensor(targets[s: s + chunk], device=states.device)
        picked = states[r, p]
        logits = (head(picked) if head is not None else picked).float()
        out.append(torch.log_softmax(logits, -1).gather(-1, t[:, None])[:, 0])
    return torch.cat(out).double().cpu().numpy()


class CausalScorer:
    """Answer log-likelihoods for a causal LM (an `hf:` adapter: its model, device, _split, _pad, HEAD_CHUNK)."""

    def __init__(self, lm: Any, prefix: Sequence[int], answers: Sequence[Sequence[int]], share_prefix: bool) -> None:
        self.lm, self.prefix, self.answers = lm, list(prefix), [list(a) for a in answers]
        self.share_prefix = share_prefix and bool(self.prefix)
        self.heads = list(dict.fromkeys(tuple(a[:-1]) for a in self.answers))  # distinct rows per example
        self._lock = threading.Lock()
        self._cache: Any = None

    @property
    def _net(self) -> tuple[Any, Any]:
        """(network returning states, head or None): the body and LM head when the adapter checked that they
        split, else the whole model (states are logits)."""
        split = self.lm._split
        return (split[0], split[1]) if split is not None else (self.lm.model, None)

    def prefix_cache(self) -> Any:
        """The key/value cache of the shared prefix (batch 1), computed once."""
        import torch

        with self._lock:
            if self._cache is None:
                net, _ = self._net
                ids = torch.tensor([self.prefix], device=self.lm.device)
                with torch.inference_mode():
                    out = net(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True)
                self._cache = returned_cache(out)
            return self._cache

    def release(self) -> None:
        """Free the prefix cache; the next query computes it again."""
        with self._lock:
            self._cache = None

    def loglik(self, segments: Sequence[Sequence[int]]) -> np.ndarray:
        """Summed log-probabilities of every answer after each segment, ndarray[n, K] (float64)."""
        import torch

        rows: list[list[int]] = []
        reads: list[tuple[int, int, int, int]] = []  # (example, answer, row, position in the row) per token
        targets: list[int] = []
        for i, seg in enumerate(segments):
            first = len(rows)
            rows += [list(seg) + list(h) for h in self.heads]
            for k, answer in enumerate(self.answers):
                row = first + self.heads.index(tuple(answer[:-1]))
                for j, token in enumerate(answer):
                    reads.append((i, k, row, len(seg) - 1 + j))
                    targets.append(token)
        net, head = self._net
        offset = 0
        with torch.inference_mode():
            if self.share_prefix:
                cache = self.prefix_cache()
                ids, mask = self.lm._pad(rows)
                p, (n, width) = len(self.prefix), ids.shape
                mask = torch.cat([torch.ones((n, p), dtype=mask.dtype, device=mask.device), mask], 1)
                positions = torch.arange(p, p + width, device=ids.device).expand(n, width)
                kw = {cache_kwarg(net): expand_cache(cache, n), "use_cache": True}
                out = net(input_ids=ids, attention_mask=mask, position_ids=positions, **kw)
            else:
                offset = len(self.prefix)
                ids, mask = self.lm._pad([self.prefix + r for r in rows])
                out = net(input_ids=ids, attention_mask=mask, use_cache=False)
            states = out.last_hidden_state if head is not None else out.logits
            logp = _target_logprobs(states, [r for _, _, r, _ in reads], [offset + q for _, _, _, q in reads],
                                    targets, head, self.lm.HEAD_CHUNK)
        scores = np.zeros((len(segments), len(self.answers)))
        np.add.at(scores, ([i for i, _, _, _ in reads], [k for _, k, _, _ in reads]), logp)
        return scores


class Seq2SeqScorer:
    """Answer log-likelihoods for an encoder-decoder LM: the whole prompt is the encoder's input (bidirectional,
    so no prefix can be shared), each answer the decoder's output after the decoder start token."""

    def __init__(self, lm: Any, answers: Sequence[Sequence[int]]) -> None:
        self.lm, self.answers = lm, [list(a) for a in answers]

    def release(self) -> None:
        """Nothing is kept between queries."""

    def loglik(self, prompts: Sequence[Sequence[int]]) -> np.ndarray:
        import torch

        model, k = self.lm.model, len(self.answers)
        start = model.config.decoder_start_token_id
        start = model.config.pad_token_id if start is None else start
        with torch.inference_mode():
            ids, mask = self.lm._pad(prompts)
            hidden = model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
            pick = torch.arange(len(prompts), device=ids.device).repeat_interleave(k)
            dec, dec_mask = self.lm._pad([[start, *a[:-1]] for a in self.answers] * len(prompts))
            out = model(encoder_outputs=(hidden[pick],), attention_mask=mask[pick], decoder_input_ids=dec,
                        decoder_attention_mask=dec_mask, use_cache=False)
            rows = [r for r in range(len(pick)) for _ in self.answers[r % k]]
            positions = [j for r in range(len(pick)) for j in range(len(self.answers[r % k]))]
            targets = [t for r in range(len(pick)) for t in self.answers[r % k]]
            logp = _target_logprobs(out.logits, rows, positions, targets, None, self.lm.HEAD_CHUNK)
        scores = np.zeros(len(prompts) * k)
        np.add.at(scores, rows, logp)
        return scores.reshape(len(prompts), k)
