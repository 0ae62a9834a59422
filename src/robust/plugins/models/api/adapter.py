"""`api:MODEL`: a model served behind an OpenAI-compatible endpoint (vLLM, llama.cpp's server, TGI, SGLang, Ollama,
LM Studio, `transformers serve`, hosted APIs) as a model under test.

Capabilities, as far as the endpoint offers them (found by the probe when the run is prepared):
- `loglikelihood`: the log-probability of a continuation after a context, summed over its tokens (lm-eval's
  `loglikelihood`), so `prompt:api:MODEL` scores verbalizers. From the echoed prompt log-probabilities where the
  server's echo passes the probe's check, else chained next-token top-k log-probabilities: the continuation is
  consumed token by token, each the longest top-k token that starts what is left of it. A token outside the top k
  is censored: its log-probability is at most the k-th's, which is used and counted.
- `logprobs` (of every token of a text; BYOD's negation test): echo, or the same chain over the text's own tokens.
- `generate`: completions, or chat where the endpoint only chats; temperature 0 unless sampling (seeded).
- `tokenize`: through the server's tokenize route where it has one.
- `embed`: the /embeddings route where it answers for the model (an embedding model behind vLLM, TEI, Ollama or a
  hosted API; llama.cpp's server started with `--embedding`). Where the server returns a vector per token (llama.cpp
  without pooling), robust pools them: their mean, or the last token's (`pooling`, as SynTextBench asks of a
  decoder).
The full next-token distribution is not offered: an endpoint returns only its top-k log-probabilities.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from robust import ModelAdapter, RobustError, Setting, cache_dir

if TYPE_CHECKING:  # imported when an endpoint is made: listing plugins needs none of HTTP, sqlite or threads
    from robust.plugins.models.api.endpoint import Endpoint, Profile

SCORING = ("auto", "echo", "next-token")
#: which of the vectors `Endpoint.embed` keeps a text's embedding is, by the pooling applied
KEPT = {None: "vector", "mean": "mean", "last-token": "last"}
WHY_NOT = {
    "next_token_distribution": "an OpenAI-compatible endpoint returns only the top-k log-probabilities of the next "
                               "token, not the distribution over the whole vocabulary",
    "token_distributions": "an OpenAI-compatible endpoint returns only top-k next-token log-probabilities",
}


@dataclass
class _Chain:
    """One continuation being scored token by token from next-token top-k log-probabilities: along the server's own
    split of it (`pieces`) where the server tells it, else greedily, each step the longest top-k token that starts
    what is left."""

    context: str
    rest: str
    pieces: list[str] | None = None
    logprob: float = 0.0
    tokens: int = 0
    censored: int = 0

    def piece(self, top: dict[str, float]) -> str:
        """The top-k token this step takes ('' when the next token is not among them)."""
        if self.pieces is not None:
            return self.pieces[0] if self.pieces[0] in top else ""
        return max((t for t in top if t and self.rest.startswith(t)), key=len, default="")

    def step(self, top: dict[str, float]) -> None:
        """Take the next token; outside the top k: censored at the k-th log-probability, and the rest is out of reach
        (its tokens would follow one the model did not rank)."""
        piece = self.piece(top)
        self.tokens += 1
        if piece:
            self.context, self.rest = self.context + piece, self.rest[len(piece):]
            self.pieces = self.pieces[1:] if self.pieces is not None else None
            self.logprob += top[piece]
        else:
            self.rest, self.logprob, self.censored = "", self.logprob + min(top.values()), self.censored + 1


@dataclass(frozen=True)
class Continuation:
    """A continuation's log-probability after its context: summed over `tokens` tokens, `censored` of which fell
    outside the endpoint's top k (their bound, the k-th log-probability, was used)."""

    logprob: float
    tokens: int
    censored: int = 0


class APIModel(ModelAdapter):
    name = "api"
    description = ("A model behind an OpenAI-compatible endpoint (vLLM, llama.cpp, TGI, Ollama, transformers serve, "
                   "hosted APIs): api:MODEL (generation, log-likelihoods, embeddings), prompt:api:MODEL to classify; "
                   "base URL and key from settings or OPENAI_BASE_URL / OPENAI_API_KEY")
    capabilities = frozenset({"loglikelihood", "logprobs", "generate", "tokenize", "embed"})
    settings = {
        "base_url": Setting("", help="the endpoint, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)"),
        "key_env": Setting("OPENAI_API_KEY", help="the environment variable holding the API key (the key itself is "
                           "never a setting, so it never reaches the run store)"),
        "concurrency": Setting(8, min=1, help="requests in flight at once"),
        "batch_size": Setting(16, min=1, help="prompts per completions request, where the server takes a list"),
        "timeout": Setting(120.0, min=0.1, help="seconds to wait for one answer"),
        "max_tries": Setting(6, min=1, help="tries of a request (429, 5xx, timeouts, dropped connections) before "
                             "the run stops interrupted"),
        "backoff": Setting(0.5, min=0.0, help="seconds before the first retry (doubling, with jitter; Retry-After "
                           "wins)"),
        "top_k": Setting(200, min=1, help="next-token log-probabilities asked for (the server may cap it)"),
        "wide_k": Setting(5000, min=1, help="asked again where a continuation's token is outside the top k "
                          "(skipped where the server refuses it); beyond it, a token is censored"),
        "scoring": Setting("auto", choices=SCORING, help="log-likelihoods from the echo (only where the probe's check "
                           "passes) or chained next-token top-k; auto: echo where it is right"),
        "temperature": Setting(1.0, min=0.0, help="when sampling (BYOD's generations); greedy decoding uses 0"),
        "request_cache": Setting(True, help="keep every answer on disk, keyed by its request, beside the run store "
                                 "(api-requests.sqlite)"),
    }

    identity_settings = ("top_k", "wide_k", "scoring", "temperature")
    #: two chunks at once: a request releases the GIL, so robust prepares the next chunk's queries while the server
    #: answers this one's; the requests in flight stay within `concurrency`, whichever chunk sends them
    overlap = 2

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg, **config)
        if not self.arg:
            raise RobustError("model 'api' needs the served model's name, e.g. api:gpt-4o-mini or api:my-model")
        if self.arg.startswith(("http://", "https://")):
            raise RobustError(f"model api:{self.arg}: what follows 'api:' is the served model's name, not its URL; "
                              f"name the model and give the URL as a setting: --model api:NAME --set "
                              f"model.base_url={self.arg} or settings={{'model.base_url': {self.arg!r}}}")
        self.base_url = (self.config["base_url"] or os.environ.get("OPENAI_BASE_URL", "")).rstrip("/")
        if not self.base_url:
            from robust.plugins.models.api.client import URL_SETTING

            raise RobustError(f"model {self.identity_name} needs the endpoint's URL, e.g. http://127.0.0.1:8000/v1: "
                              f"{URL_SETTING}")
        if not self.base_url.startswith(("http://", "https://")):
            raise RobustError(f"base URL {self.base_url!r} is not an http(s) URL")
        self._lock = threading.Lock()
        self.censored = 0  # tokens scored at their top-k bound (next-token scoring)
        self._refuses_wide = False
        self._splits: dict[str, list[str] | None] = {}  # the server's split of each continuation scored
        self._texts: dict[tuple[int, ...], str] = {}  # the text of each token-id list `tokenize` returned (BYOD)

    @property
    def identity_name(self) -> str:
        return f"api:{self.arg}"

    @property
    def identity(self) -> str:
        return self.with_settings(f"api:{self.arg}@{self.base_url}")

    # the endpoint ------------------------------------------------------------------------------------------
    @cached_property
    def endpoint(self) -> Endpoint:
        from robust.plugins.models.api.cache import RequestCache
        from robust.plugins.models.api.client import EndpointClient, Retry
        from robust.plugins.models.api.endpoint import Endpoint

        key_env = self.config["key_env"]
        retry = Retry(int(self.config["max_tries"]), float(self.config["backoff"]))
        client = EndpointClient(self.base_url, os.environ.get(key_env, ""), f"${key_env}",
                                float(self.config["timeout"]), retry, int(self.config["concurrency"]))
        home = self.ctx.store_dir or cache_dir() / "api"  # beside the run store, so --resume finds the answers
        cache = RequestCache(home / "api-requests.sqlite") if self.config["request_cache"] else None
        return Endpoint(client, self.arg, cache, int(self.config["batch_size"]), int(self.config["top_k"]))

    @cached_property
    def profile(self) -> Profile:
        """What the endpoint offers (probed once, when the run is prepared)."""
        with self._lock:
            if "profile" in self.__dict__:
                return self.__dict__["profile"]
            return self.endpoint.probe()

    @cached_property
    def scoring(self) -> str:
        """How log-likelihoods are computed here: 'echo' or 'next-token' ('' where neither is possible)."""
        p, asked = self.profile, self.config["scoring"]
        if asked == "echo" and not p.echo:
            why = "its echo failed the check" if p.echo_gap is not None else "it echoes no log-probabilities"
            raise RobustError(f"--set model.scoring=echo: the endpoint {self.base_url} cannot score by echo ({why}); "
                              "use scoring=next-token or auto")
        if p.echo and asked in ("auto", "echo"):
            return "echo"
        return "next-token" if p.top_k else ""

    def provides(self) -> frozenset[str]:
        p = self.profile
        caps = set()
        if p.completions or p.chat:
            caps.add("generate")
        if self.scoring:
            caps |= {"loglikelihood", "logprobs"} if (p.echo or p.tokenize) else {"loglikelihood"}
        if p.tokenize:
            caps.add("tokenize")
        if p.embeddings:
            caps.add("embed")
        return frozenset(caps)

    def why_not(self, capability: str) -> str:
        """Why this endpoint lacks a capability, in a few words ('' when unknown)."""
        if capability in WHY_NOT:
            return WHY_NOT[capability]
        p = self.profile
        if capability in ("loglikelihood", "logprobs"):
            return ("the endpoint returns no log-probabilities (it only generates)" if not self.scoring else
                    "the endpoint neither echoes prompt log-probabilities correctly nor tokenizes")
        if capability == "tokenize" and not p.tokenize:
            return "the endpoint has no tokenize route"
        if capability == "embed" and not p.embeddings:
            return ("the endpoint returns no embeddings for it: POST /embeddings failed (serve an embedding model; "
                    "llama.cpp's server embeds when started with --embedding)")
        return ""

    def preload(self) -> None:
        self.profile  # noqa: B018 - the probe: a wrong URL, key or model is one line before the run starts

    def info(self) -> dict[str, Any]:
        return {**super().info(), "base_url": self.base_url, "scoring": self.scoring or "none",
                "endpoint": self.profile.to_json()}

    def run_notes(self) -> dict[str, float]:
        """What this process's requests went through: retries by cause, answers from the cache, censored tokens."""
        client = self.endpoint.client
        notes: dict[str, float] = {"api_requests": float(client.requests),
                                   "api_cached_answers": float(self.endpoint.cache_hits)}
        notes.update({f"api_retries_{cause}": float(n) for cause, n in sorted(client.retries.items())})
        if self.censored:
            notes["api_censored_tokens"] = float(self.censored)
        return notes

    @property
    def in_flight(self) -> int:
        """Prompts the endpoint works on at once: requests in flight, times prompts per request where it batches.
        Callers hand over several times this many, so no request waits for a batch's slowest one to return."""
        per = int(self.config["batch_size"]) if self.profile.batch else 1
        return int(self.config["concurrency"]) * per

    # capabilities -------------------------------------------------------------------------------------------
    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[Continuation]:
        """Each continuation's log-probability after its context, cached per pair."""
        return self.cache.map(("loglik", self.scoring), [tuple(p) for p in pairs], self._loglikelihood,
                              8 * self.in_flight, length=lambda pair: len(pair[0]) + len(pair[1]))

    def _batched(self, key: tuple, inputs: Any, fn: Any) -> list[Any]:
        return self.cache.map(key, list(inputs), fn, 8 * self.in_flight, lengths=self.input_lengths)

    def _loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[Continuation]:
        if self.scoring == "echo":
            out = []
            for (context, _), echoed in zip(pairs, self.endpoint.echo([c + x for c, x in pairs])):
                # the continuation's tokens: those ending after the context (a token straddling the boundary counts)
                picked = [lp for tok, lp, off in zip(echoed.tokens, echoed.logprobs, echoed.offsets)
                          if off + len(tok) > len(context)]
                out.append(Continuation(float(sum(lp for lp in picked if lp is not None)), len(picked)))
            return out
        return self._chain(pairs)

    def _pieces(self, texts: Sequence[str]) -> dict[str, list[str] | None]:
        """The server's own split of each continuation, where its echo tells it (None: unknown, scored greedily)."""
        for text in dict.fromkeys(texts):
            if text not in self._splits:  # a handful of verbalizers: asked once each, whatever the request cache
                tokens = self.endpoint.split(text)[0] if self.profile.echo_tokens and text else None
                self._splits[text] = tokens if tokens is not None and "".join(tokens) == text else None
        return {text: self._splits[text] for text in texts}

    def _chain(self, pairs: Sequence[tuple[str, str]], whole: bool = False) -> list[Continuation]:
        """Next-token scoring: every pair's continuation consumed one top-k token at a time, all pairs' next steps
        sent together (requests for the same context, e.g. several classes' first tokens, asked once); `whole`: each
        continuation is one token of the server's own split."""
        k = self.profile.top_k
        pieces = {} if whole else self._pieces([rest for _, rest in pairs])
        chains = [_Chain(context, rest, [rest] if whole else pieces[rest]) for context, rest in pairs]
        while live := [c for c in chains if c.rest]:
            contexts = list(dict.fromkeys(c.context for c in live))
            tops = dict(zip(contexts, self.endpoint.next_tokens(contexts, k)))
            unseen = list(dict.fromkeys(c.context for c in live if not c.piece(tops[c.context])))
            if unseen:  # keep the continuation in view: ask those again with a wider k where the server allows it
                tops.update(zip(unseen, self._wider(unseen, tops)))
            for c in live:
                c.step(tops[c.context])
        censored = sum(c.censored for c in chains)
        with self._lock:
            self.censored += censored
        return [Continuation(c.logprob, c.tokens, c.censored) for c in chains]

    def generate(self, prompts: Sequence[str], max_new_tokens: int = 20, seed: int = 0,
                 do_sample: bool = True) -> list[str]:
        fn = lambda batch: self._generate(batch, max_new_tokens, seed, do_sample)  # noqa: E731
        return self.cache.map(("generate", max_new_tokens, seed, do_sample), list(prompts), fn, 8 * self.in_flight)

    def _wider(self, contexts: list[str], tops: dict[str, dict[str, float]]) -> list[dict[str, float]]:
        """The top `wide_k` next tokens after each context, or the top k already in hand where the server refuses a
        k that large (hosted APIs cap it at 5 or 20)."""
        wide = int(self.config["wide_k"])
        if wide <= self.profile.top_k or self._refuses_wide:
            return [tops[c] for c in contexts]
        from robust.plugins.models.api.client import EndpointRefused

        try:
            return self.endpoint.next_tokens(contexts, wide)
        except EndpointRefused:
            self._refuses_wide = True
            return [tops[c] for c in contexts]

    def _generate(self, prompts: Sequence[str], max_new_tokens: int, seed: int, do_sample: bool) -> list[str]:
        params = {"max_tokens": int(max_new_tokens), "temperature": float(self.config["temperature"]) if do_sample
                  else 0.0, "seed": int(seed)}
        if self.profile.completions:
            return [c.get("text", "") for c in self.endpoint.complete(prompts, **params)]
        return [(c.get("message") or {}).get("content") or "" for c in self.endpoint.chat(prompts, **params)]

    def pooling_used(self, pooling: str | None) -> str | None:
        """A server that pools returns its own vector (None); one that returns a vector per token is pooled here:
        the last token's where asked ('last-token'), else their mean."""
        if not self.profile.token_vectors:
            return None
        return "last-token" if pooling == "last-token" else "mean"

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[Any]:
        pick = KEPT[pooling]  # the pooling `pooling_used` resolved: None where the server pooled
        return [answer[pick] for answer in self.endpoint.embed(list(texts))]

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        if not self.profile.tokenize:
            raise RobustError(f"model {self.identity_name}: {self.why_not('tokenize')}")
        ids = self.endpoint.tokenize(list(texts))
        with self._lock:
            for text, row in zip(texts, ids):
                self._texts[tuple(row)] = text
        return ids

    def _logprobs(self, inputs: Sequence[Any]) -> list[Any]:
        """Log-probability of every token after the ones before it, ndarray[T-1] per text (or token ids `tokenize`
        returned): echoed where right, else each token chained from the echo's split of the text."""
        import numpy as np

        texts = [x if isinstance(x, str) else self._text_of(x) for x in inputs]
        if self.scoring == "echo":
            return [np.array([lp for lp in e.logprobs[1:]], dtype=float) for e in self.endpoint.echo(texts)]
        pairs = []
        spans = []
        for text in texts:
            tokens, offsets = self.endpoint.split(text)
            spans.append(len(tokens) - 1)
            pairs += [(text[: offsets[j]], tokens[j]) for j in range(1, len(tokens))]
        scored = iter(self._chain(pairs, whole=True))
        return [np.array([next(scored).logprob for _ in range(n)], dtype=float) for n in spans]

    def _text_of(self, ids: Sequence[int]) -> str:
        text = self._texts.get(tuple(ids))
        if text is None:
            raise RobustError(f"model {self.identity_name} scores token ids only of whole texts it tokenized (a "
                              "truncated text: raise the scorer's max_tokens)")
        return text

    def input_lengths(self, inputs: Sequence[Any]) -> list[int]:
        return [len(x) if isinstance(x, (str, list, tuple)) else 1 for x in inputs]
