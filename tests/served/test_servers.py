"""What the served-model adapter relies on, asserted against the real servers (SERVER_FACTS.md has the details):
llama.cpp's next-token log-probabilities agree with transformers on the same weights while its echoed ones do
not; `transformers serve` generates what the in-process model generates; the fault proxy's faults reach a client."""

from __future__ import annotations

import time

import httpx
import pytest

from .faultproxy import Fault, FaultProxy

MR_PROMPT = ("Each review's sentiment is negative or positive.\n\nReview: a gorgeous, witty, seductive movie.\n"
             "Sentiment:")


@pytest.fixture(scope="session")
def smollm2_fp32(smollm2_dir):
    """The in-process SmolLM2 (fp32 dequantization of the GGUF) and its tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return (AutoModelForCausalLM.from_pretrained(smollm2_dir, dtype=torch.float32).eval(),
            AutoTokenizer.from_pretrained(smollm2_dir))


def next_token_logprobs(model_and_tok, prompt: str) -> dict[str, float]:
    """transformers' log-probabilities of every next token after `prompt`, by token text."""
    import torch

    model, tok = model_and_tok
    ids = tok(prompt, return_tensors="pt").input_ids
    with torch.no_grad():
        lp = model(ids).logits[0, -1].log_softmax(-1)
    return {tok.decode([i]): lp[i].item() for i in lp.topk(50).indices.tolist()}


def complete(server, **body) -> dict:
    r = httpx.post(f"{server.url}/completions", json={"model": server.model, **body}, headers=server.headers,
                   timeout=120)
    r.raise_for_status()
    return r.json()


# -- the fault proxy, in front of the real llama.cpp server -----------------------------------------------------
def test_fault_proxy_injects_each_fault_then_forwards(llama_server):
    body = {"model": llama_server.model, "prompt": "Hi", "max_tokens": 1, "temperature": 0}
    faults = {1: Fault.busy(3), 2: Fault.unavailable(), 3: Fault.stall(5), 4: Fault.drop()}
    with FaultProxy(llama_server.url, at=faults) as proxy, httpx.Client(timeout=1.0) as client:
        r = client.post(f"{proxy.url}/completions", json=body)
        assert (r.status_code, r.headers["retry-after"]) == (429, "3")
        assert client.post(f"{proxy.url}/completions", json=body).status_code == 503
        t0 = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            client.post(f"{proxy.url}/completions", json=body)
        assert time.monotonic() - t0 < 3
        with pytest.raises(httpx.RemoteProtocolError):
            client.post(f"{proxy.url}/completions", json=body)
        r = client.post(f"{proxy.url}/completions", json=body, timeout=60)
        assert r.status_code == 200 and r.json()["choices"][0]["text"] == complete(llama_server, **body)[
            "choices"][0]["text"]
        assert proxy.injected == {"429": 1, "503": 1, "stall": 1, "drop": 1}
        assert (proxy.requests, proxy.forwarded) == (5, 1)


def test_fault_proxy_faults_matching_requests_only(llama_server):
    body = {"model": llama_server.model, "prompt": "Hi", "max_tokens": 1, "temperature": 0}
    with FaultProxy(llama_server.url, match=[("POST /v1/completions", Fault.unavailable(), 2)]) as proxy:
        assert httpx.get(f"{proxy.url}/models", timeout=10).status_code == 200
        codes = [httpx.post(f"{proxy.url}/completions", json=body, timeout=60).status_code for _ in range(3)]
        assert codes == [503, 503, 200]
        assert [c.fault for c in proxy.calls] == [None, "503", "503", None]


def test_fault_proxy_answers_502_while_the_server_is_down(llama_server):
    with FaultProxy(llama_server.url) as proxy:
        llama_server.kill()
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{llama_server.url}/models", timeout=5)
        assert httpx.get(f"{proxy.url}/models", timeout=10).status_code == 502
        llama_server.restart()
        r = httpx.get(f"{proxy.url}/models", timeout=10)
        assert r.status_code == 200 and r.json()["data"][0]["id"] == llama_server.model
