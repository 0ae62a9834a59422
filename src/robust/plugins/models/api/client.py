"""HTTP to an OpenAI-compatible endpoint: timeouts, retries with backoff and jitter, requests in flight at once,
and every answer kept in a request cache.

httpx carries the HTTP (a well-kept client, thread-safe connection pooling, per-phase timeouts, no event loop);
the OpenAI schema is plain JSON here rather than the `openai` package's models, because servers differ in the
fields they return (llama.cpp's `top_logprobs` dicts, vLLM's `prompt_logprobs`) and robust reads only a few of
them, at a cost per request far below the server's.

Retried: connection errors, timeouts, HTTP 408/409/429 and 5xx, waiting `Retry-After` when the server sends
it, else an exponential backoff with full jitter (AWS's "Exponential Backoff And Jitter"); after `max_tries`
tries the request raises `EndpointGone`, which ends a run `interrupted` with its finished records kept. Any
other HTTP error is one line with the server's own message. The API key is sent in a header and never appears
in a message, a record, the cache or a log.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from robust import Interruption, RobustError

RETRIED_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})

#: how a user gives the endpoint: the model under test's setting, or the `api` plugin's under prompt: or as a helper
URL_SETTING = ("--set model.base_url=URL (--set api.base_url=URL for an api: model inside prompt: or named as a "
               "helper; or the OPENAI_BASE_URL environment variable)")


class EndpointGone(Interruption):
    """The endpoint stopped answering (after every retry): the run ends interrupted and resumes once it is back.
    `status`: the HTTP status of the last answer (None: no answer at all)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class EndpointRefused(RobustError):
    """The endpoint answered a request with an error that retrying cannot fix (4xx)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Retry:
    """How often and how patiently a request is tried."""

    max_tries: int = 6
    base: float = 0.5  # seconds before the second try (doubling after each)
    cap: float = 30.0  # the longest wait between tries, Retry-After included

    def wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(self.cap, max(0.0, retry_after))
        return random.uniform(0, min(self.cap, self.base * 2**attempt))  # full jitter


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return when.timestamp() - time.time() if when else None


def _detail(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f": {text[0]}" if text else ""


def _server_message(response: Any) -> str:
    """The error message a server put in its body (OpenAI's {"error": {"message"}}, FastAPI's {"detail"}), one line."""
    try:
        body = response.json()
    except ValueError:
        return (response.text or response.reason_phrase).strip().splitlines()[0][:300] if response.text else ""
    err = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
    if isinstance(err, dict):
        err = err.get("message", err)
    return str(err).strip().splitlines()[0][:300] if str(err).strip() else ""


class EndpointClient:
    """Requests to one base URL: `get`, `post` (retried), `post_many` (concurrent, cached)."""

    def __init__(self, base_url: str, key: str, key_source: str, timeout: float, retry: Retry, concurrency: int,
                 ) -> None:
        import httpx

        self.base_url = base_url.rstrip("/")
        self.key_source = key_source
        self.retry, self.concurrency = retry, max(1, concurrency)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        # its pool holds the requests in flight to `concurrency`, whichever thread sends them (chunks computed at once
        # share this client); a request queued there waits for a connection without spending its timeout
        self._http = httpx.Client(base_url=self.base_url, headers=headers,
                                  timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
                                  limits=httpx.Limits(max_connections=self.concurrency,
                                                      max_keepalive_connections=self.concurrency))
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.retries: Counter[str] = Counter()  # retried failures by cause
        self.requests = 0  # requests answered by the server (cache hits excluded)

    # one request ----------------------------------------------------------------------------------------
    def get(self, path: str) -> Any:
        return self._send("GET", path, None, tries=1)

    def post(self, path: str, body: dict[str, Any], tries: int | None = None,
             retried: frozenset[int] = RETRIED_STATUS) -> Any:
        return self._send("POST", path, body, tries or self.retry.max_tries, retried)

    def _send(self, method: str, path: str, body: dict[str, Any] | None, tries: int,
              retried: frozenset[int] = RETRIED_STATUS) -> Any:
        import httpx

        last, status_code = "", None
        for attempt in range(tries):
            retry_after = None
            try:
                response = self._http.request(method, path, json=body)
            except httpx.TimeoutException:
                last, status_code = f"no answer within {self._http.timeout.read:g} s", None
                cause = "timeout"
            except httpx.TransportError as exc:
                last, status_code = f"connection failed ({type(exc).__name__}{_detail(exc)})", None
                cause = "connection"
            else:
                if response.status_code < 400:
                    with self._lock:
                        self.requests += 1
                    try:
                        return response.json()
                    except ValueError:
                        raise EndpointRefused(f"{self.base_url}{path} answered with something that is not JSON",
                                              response.status_code) from None
                message = _server_message(response)
                status = f"HTTP {response.status_code}" + (f": {message}" if message else "")
                if response.status_code not in retried:
                    if response.status_code in (401, 403):
                        raise EndpointRefused(f"the endpoint {self.base_url} refused the API key from "
                                              f"{self.key_source} ({status})", response.status_code)
                    raise EndpointRefused(f"{method} {self.base_url}{path}: {status}", response.status_code)
                last, cause, status_code = status, str(response.status_code), response.status_code
                retry_after = _retry_after(response.headers.get("retry-after"))
            if attempt + 1 < tries:
                with self._lock:
                    self.retries[cause] += 1
                time.sleep(self.retry.wait(attempt, retry_after))
        raise EndpointGone(f"the endpoint {self.base_url} did not answer {path} after {tries} "
                           f"{'try' if tries == 1 else 'tries'} (last: {last})", status_code)

    # many requests ---------------------------------------------------------------------------------------
    def post_many(self, path: str, bodies: Sequence[dict[str, Any]],
                  done: Callable[[int, Any], None] | None = None) -> list[Any]:
        """Each body posted, at most `concurrency` in flight (those of other threads included), answers in order;
        `done(i, answer)` is called as each arrives (the caller caches it there, so an answer in hand survives
        another request's failure)."""
        out: list[Any] = [None] * len(bodies)
        failed = threading.Event()

        def one(i: int) -> None:
            if failed.is_set():  # another request gave up: start no new one
                return
            try:
                out[i] = self.post(path, bodies[i])
            except BaseException:
                failed.set()
                raise
            if done is not None:
                done(i, out[i])

        if len(bodies) <= 1 or self.concurrency == 1:
            for i in range(len(bodies)):
                one(i)
            return out
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="robust-api")
        futures = [self._pool.submit(one, i) for i in range(len(bodies))]
        errors = [exc for exc in (f.exception() for f in futures) if exc is not None]  # waits for every one
        if errors:
            raise errors[0]
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._http.close()
