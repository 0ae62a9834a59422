"""What an OpenAI-compatible endpoint can do for one model, found by a probe, and the requests robust makes of it:
completions (several prompts per request where the server takes a list), chat, next-token top-k
log-probabilities, echoed prompt log-probabilities, tokenization, embeddings (several texts per request).

The probe asks the models list (a wrong URL, a refused key or an unknown model is one line), then one tiny
request per feature. It also checks the server's echo: the echoed log-probability of a prompt's last tokens must
equal the next-token log-probability of each after the rest of the prompt (llama-cpp-python 0.3's server echoes
wrong values for prompt tokens; llama.cpp's own returns none), so echo is used only where it is right.
"""

from __future__ import annotations

import base64
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from robust import RobustError
from robust.plugins.models.api.cache import RequestCache, request_key
from robust.plugins.models.api.client import (
    RETRIED_STATUS,
    URL_SETTING,
    EndpointClient,
    EndpointGone,
    EndpointRefused,
)

if TYPE_CHECKING:
    import numpy as np

#: the prompt whose echo is checked; its last tokens (" lazy", " dog") are predictable after the rest
ECHO_PROBE = "The quick brown fox jumps over the lazy dog"
#: top-k sizes tried, largest first, until the server accepts one
TOP_K_STEPS = (200, 100, 50, 20, 10, 5, 1)
#: the largest |echo - next-token| log-probability difference that still counts as equal (float noise)
ECHO_TOLERANCE = 0.02
TOKENIZE_ROUTES = (("/extras/tokenize", "input"), ("/tokenize", "content"), ("/tokenize", "prompt"))


@dataclass
class Profile:
    """What the endpoint offers for the model (found once per run by `Endpoint.probe`)."""

    served: list[str] = field(default_factory=list)  # the model ids the models list names
    completions: bool = False
    chat: bool = False
    top_k: int = 0  # the most next-token log-probabilities a completion returns (0: none)
    batch: bool = False  # several prompts per completions request
    echo: bool = False  # echoed prompt log-probabilities passed the check
    echo_gap: float | None = None  # the largest |echo - next-token| difference seen at the check
    echo_tokens: bool = False  # the echo splits a prompt into the server's tokens (even where its values are wrong)
    tokenize: str = ""  # the route that tokenizes ("" none), and the JSON field it reads
    tokenize_field: str = ""
    embeddings: bool = False  # /embeddings answers for the model
    token_vectors: bool = False  # ... with a vector per token (the server does not pool: llama.cpp's default)
    embed_batch: bool = False  # several texts per /embeddings request give what each gives alone (checked)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _top(choice: dict[str, Any], position: int = 0) -> dict[str, float] | None:
    """The top-k {token: log-probability} of a completion choice at a generated position (OpenAI's legacy format:
    a dict per position; also its list-of-objects variant)."""
    logprobs = choice.get("logprobs") or {}
    tops = logprobs.get("top_logprobs")
    if not tops or len(tops) <= position or tops[position] is None:
        return None
    top = tops[position]
    if isinstance(top, list):  # [{"token": ..., "logprob": ...}]
        return {t["token"]: float(t["logprob"]) for t in top}
    return {str(k): float(v) for k, v in top.items()}


@dataclass(frozen=True)
class Echo:
    """A prompt's tokens as the server split it, with each token's log-probability after the ones before (None for
    the first) and its character offset in the prompt."""

    tokens: list[str]
    logprobs: list[float | None]
    offsets: list[int]


class Endpoint:
    """One model behind one OpenAI-compatible base URL."""

    def __init__(self, client: EndpointClient, model: str, cache: RequestCache | None, batch_size: int,
                 top_k: int) -> None:
        self.client, self.model, self.cache = client, model, cache
        self.batch_size, self.want_top_k = max(1, batch_size), top_k
        self.profile = Profile()
        self.cache_hits = 0
        self._lock = threading.Lock()  # chunks computed at once count their cache hits here

    @property
    def where(self) -> str:
        return self.client.base_url

    # the probe -------------------------------------------------------------------------------------------
    def probe(self) -> Profile:
        """Find what the endpoint offers; one line (RobustError) for a wrong URL, a refused key, an unknown model."""
        p = self.profile
        try:
            listed = self.client.get("/models")
        except EndpointGone as exc:
            raise RobustError(f"cannot reach an OpenAI-compatible endpoint at {self.where} ({_cause(exc)}); check "
                              f"that the server runs and the URL: {URL_SETTING}") from None
        except EndpointRefused as exc:
            if exc.status in (401, 403):
                raise RobustError(str(exc)) from None
            raise RobustError(f"{self.where} is not an OpenAI-compatible endpoint: GET /models gave "
                              f"{_cause(exc)}; the base URL usually ends in /v1") from None
        data = listed.get("data") if isinstance(listed, dict) else None
        if not isinstance(data, list):
            raise RobustError(f"{self.where}/models did not list models (an OpenAI-compatible endpoint answers "
                              "{\"data\": [...]}); the base URL usually ends in /v1")
        p.served = [str(m.get("id")) for m in data if isinstance(m, dict)]
        if self.model not in p.served:
            raise RobustError(f"the endpoint {self.where} serves no model {self.model!r}; it serves: "
                              f"{', '.join(p.served) or 'none'}")
        p.completions = bool(self._try("/completions", {"prompt": "Hello", "max_tokens": 1, "temperature": 0}))
        p.chat = bool(self._try("/chat/completions", {"messages": [{"role": "user", "content": "Hello"}],
                                                      "max_tokens": 1, "temperature": 0}))
        if p.completions:
            p.top_k = self._top_k()
            p.batch = self._batches()
            p.echo, p.echo_gap = self._echo_check() if p.top_k else (False, None)
        p.tokenize, p.tokenize_field = self._tokenizer_route()
        p.embeddings, p.token_vectors, p.embed_batch = self._embeddings_check()
        return p

    def _embeddings_check(self) -> tuple[bool, bool, bool]:
        """Whether /embeddings answers for the model, with a vector per token, and whether a request of several texts
        gives each the vector it gets alone (llama-cpp-python 0.3's server, returning a vector per token, gives wrong
        ones to every text but the first of a request: texts then go one per request)."""
        both = _embeddings(self._try("/embeddings", {"input": ["Hello", "Good"]}) or {})
        if len(both) != 2 or not all(_is_vector(v) or (v and all(map(_is_vector, v))) for v in both):
            return False, False, False
        alone = _embeddings(self._try("/embeddings", {"input": ["Good"]}) or {})
        return True, not _is_vector(both[0]), bool(alone) and _same_vectors(alone[0], both[1])

    def _try(self, route: str, body: dict[str, Any]) -> Any:
        """The answer to a probe's request, or None where the server refuses it or fails on it (a feature it lacks:
        llama-cpp-python answers a list of prompts with HTTP 500)."""
        try:  # retried as any request, except a 500: the server failing on what it cannot do
            return self.client.post(route, {"model": self.model, **body}, retried=RETRIED_STATUS - {500})
        except EndpointRefused as exc:
            if exc.status in (401, 403):
                raise RobustError(str(exc)) from None
            return None
        except EndpointGone as exc:
            if exc.status is not None:
                return None
            raise RobustError(f"the endpoint {self.where} stopped answering during the probe ({_cause(exc)})") from None

    def _top_k(self) -> int:
        """The largest k the server takes (a refused k tries the next smaller); 0 where it ignores logprobs."""
        for k in (k for k in TOP_K_STEPS if k <= self.want_top_k):
            answer = self._try("/completions", {"prompt": "Hello", "max_tokens": 1, "temperature": 0, "logprobs": k})
            if answer is not None:
                return k if answer.get("choices") and _top(answer["choices"][0]) else 0
        return 0

    def _batches(self) -> bool:
        answer = self._try("/completions", {"prompt": ["Hello", "Good"], "max_tokens": 1, "temperature": 0})
        return bool(answer) and sorted(c.get("index", -1) for c in answer.get("choices", [])) == [0, 1]

    def _echo_check(self) -> tuple[bool, float | None]:
        """Echo is right where each of the probe's last two tokens has the log-probability next-token scoring gives."""
        echoed = self._echo_one(ECHO_PROBE)
        if echoed is None or len(echoed.tokens) < 3:
            return False, None
        self.profile.echo_tokens = "".join(echoed.tokens) == ECHO_PROBE
        gap = 0.0
        for j in (len(echoed.tokens) - 2, len(echoed.tokens) - 1):
            head = ECHO_PROBE[: echoed.offsets[j]]
            top = self.next_tokens([head], self.profile.top_k)[0]
            lp, want = echoed.logprobs[j], top.get(echoed.tokens[j])
            if lp is None or want is None:
                return False, None
            gap = max(gap, abs(lp - want))
        return gap <= ECHO_TOLERANCE, gap

    def _echo_one(self, text: str) -> Echo | None:
        answer = self._try("/completions", {"prompt": text, "max_tokens": 1, "temperature": 0, "echo": True,
                                            "logprobs": 1})
        if not answer or not answer.get("choices"):
            return None
        return _echo_of(answer["choices"][0], len(text))

    @property
    def root(self) -> str:
        """The server's root URL: tokenization routes sit beside /v1 (llama.cpp's, llama-cpp-python's, vLLM's)."""
        return self.where[: -len("/v1")] if self.where.endswith("/v1") else self.where

    def _tokenizer_route(self) -> tuple[str, str]:
        for route, key in TOKENIZE_ROUTES:
            try:
                answer = self.client.post(self.root + route, {"model": self.model, key: "Hello"}, tries=1)
            except (EndpointRefused, EndpointGone):
                continue
            if isinstance(answer, dict) and isinstance(answer.get("tokens"), list):
                return route, key
        return "", ""

    # requests -------------------------------------------------------------------------------------------
    def complete(self, prompts: Sequence[str], **params: Any) -> list[dict[str, Any]]:
        """One completion choice per prompt (`params`: max_tokens, temperature, seed, logprobs, echo), batched
        `batch_size` prompts per request where the server takes a list."""
        if not self.profile.batch:
            return self._answers("/completions", prompts, params, 1, lambda group: {"prompt": group[0]})
        return self._answers("/completions", prompts, params, self.batch_size, lambda group: {"prompt": group})

    def embed(self, texts: Sequence[str]) -> list[dict[str, np.ndarray]]:
        """Each text's embedding, `batch_size` texts per request: {"vector": …} as the server pooled it, or, where it
        returns a vector per token, {"mean": …, "last": …} of them (kept as such in the request cache: a float32
        vector of 576 dimensions in base64 is ~3 KB, where a sentence's token vectors in JSON are ~100 KB)."""
        import numpy as np

        per = self.batch_size if self.profile.embed_batch else 1
        answers = self._answers("/embeddings", texts, {}, per, lambda group: {"input": group},
                                lambda answer: [_pooled(v) for v in _embeddings(answer)])
        return [{k: np.frombuffer(base64.b64decode(v), dtype=np.float32) for k, v in a.items()} for a in answers]

    def chat(self, prompts: Sequence[str], **params: Any) -> list[dict[str, Any]]:
        """One chat choice per prompt, each sent as one user message."""
        return self._answers("/chat/completions", prompts, params, 1,
                             lambda group: {"messages": [{"role": "user", "content": group[0]}]})

    def _answers(self, route: str, prompts: Sequence[str], params: dict[str, Any], per: int,
                 body: Callable[[list[str]], dict[str, Any]],
                 items: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
        """The choice of each prompt, each asked once: cached per prompt, deduplicated, `per` prompts in a request
        (`body` makes its prompt part; `items` reads an answer's part per prompt, in order: its choices by default),
        the requests concurrent."""
        keys = [request_key(self.where, self.model, route, params, p) for p in prompts]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        with self._lock:
            self.cache_hits += sum(k in found for k in keys)
        missing = list(dict.fromkeys((k, p) for k, p in zip(keys, prompts) if k not in found))
        groups = [missing[s: s + per] for s in range(0, len(missing), per)]
        bodies = [{"model": self.model, **body([p for _, p in g]), **params} for g in groups]

        def done(i: int, answer: dict[str, Any]) -> None:
            choices = items(answer) if items else sorted(answer.get("choices") or [], key=lambda c: c.get("index", 0))
            if len(choices) != len(groups[i]):
                raise RobustError(f"the endpoint {self.where} answered {len(choices)} choices for "
                                  f"{len(groups[i])} prompts")
            got = {k: c for (k, _), c in zip(groups[i], choices)}
            found.update(got)
            if self.cache is not None:
                self.cache.put_many(got)

        self.client.post_many(route, bodies, done)
        return [found[k] for k in keys]

    def next_tokens(self, prompts: Sequence[str], k: int) -> list[dict[str, float]]:
        """The top-k next-token {token: log-probability} after each prompt (greedy, one token generated)."""
        out = []
        for choice in self.complete(prompts, max_tokens=1, temperature=0, logprobs=k):
            top = _top(choice)
            if top is None:
                raise RobustError(f"the endpoint {self.where} returned no log-probabilities for a completion")
            out.append(top)
        return out

    def echo(self, texts: Sequence[str]) -> list[Echo]:
        """Each text's tokens with their echoed log-probabilities (use only where `profile.echo`)."""
        choices = self.complete(texts, max_tokens=1, temperature=0, echo=True, logprobs=1)
        out = []
        for text, choice in zip(texts, choices):
            echoed = _echo_of(choice, len(text))
            if echoed is None:
                raise RobustError(f"the endpoint {self.where} echoed no log-probabilities for a prompt")
            out.append(echoed)
        return out

    def split(self, text: str) -> tuple[list[str], list[int]]:
        """A text's tokens and their character offsets as the server splits it, from its echo (whose split is right
        even where its log-probabilities are not)."""
        echoed = _echo_of(self.complete([text], max_tokens=1, temperature=0, echo=True, logprobs=1)[0], len(text))
        if echoed is None:
            raise RobustError(f"the endpoint {self.where} does not echo a prompt's tokens, so per-token "
                              "log-probabilities of a text cannot be computed")
        return echoed.tokens, echoed.offsets

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        route, key = self.profile.tokenize, self.profile.tokenize_field
        keys = [request_key(self.where, self.model, route, key, t) for t in texts]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        missing = list(dict.fromkeys((k, t) for k, t in zip(keys, texts) if k not in found))
        bodies = [{"model": self.model, key: t} for _, t in missing]
        answers = self.client.post_many(self.root + route, bodies)
        got = {k: [int(i) for i in a["tokens"]] for (k, _), a in zip(missing, answers)}
        if self.cache is not None and got:
            self.cache.put_many(got)
        found.update(got)
        return [found[k] for k in keys]


def _echo_of(choice: dict[str, Any], prompt_chars: int) -> Echo | None:
    """The prompt's part of an echoed choice (tokens starting before `prompt_chars`)."""
    lp = choice.get("logprobs") or {}
    tokens, values, offsets = lp.get("tokens"), lp.get("token_logprobs"), lp.get("text_offset")
    if not tokens or values is None or offsets is None:
        return None
    n = sum(1 for o in offsets if o < prompt_chars)
    if n == 0 or n > len(values):
        return None
    vals = [None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in values[:n]]
    return Echo(list(tokens[:n]), vals, [int(o) for o in offsets[:n]])


def _embeddings(answer: dict[str, Any]) -> list[Any]:
    """The embeddings of an /embeddings answer, in the order of its inputs."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        return []
    return [d.get("embedding") for d in sorted(data, key=lambda d: d.get("index", 0)) if isinstance(d, dict)]


def _pooled(embedding: Any) -> dict[str, str]:
    """An embedding as `Endpoint.embed` keeps it: float32 vectors in base64, the server's own or the mean and the last
    of its token vectors."""
    import numpy as np

    a = np.asarray(embedding, dtype=np.float32)
    vectors = {"mean": a.mean(axis=0), "last": a[-1]} if a.ndim == 2 else {"vector": a}
    return {k: base64.b64encode(np.ascontiguousarray(v, dtype=np.float32).tobytes()).decode()
            for k, v in vectors.items()}


def _is_vector(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, (int, float)) for x in value[:4])


def _same_vectors(a: Any, b: Any) -> bool:
    """Whether two embeddings (vectors, or vectors per token) agree to float noise: cosine ≥ 0.999."""
    import numpy as np

    x, y = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if x.shape != y.shape or not x.size:
        return False
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return norm > 0 and float(x @ y) / norm >= 0.999


def _cause(exc: Exception) -> str:
    text = str(exc)
    return text[text.find("(") + 1: text.rfind(")")] if "(" in text and text.endswith(")") else text
