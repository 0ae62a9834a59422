"""What the served-model adapter relies on, asserted against the real servers (SERVER_FACTS.md has the details):
llama.cpp's next-token log-probabilities agree with transformers on the same weights while its echoed ones do
not; `transformers serve` generates what the in-process model generates; the fault proxy's faults reach a client."""

from __future__ import annotations

import time

import httpx
import pytest

from .faultproxy import Fault, FaultProxy

MR_PROMPT = ("Each review's sentiment is negative or positive.\n\n"  # prompt:'s default instruction and template
             "Review: a gorgeous, witty, seductive movie.\nSentiment:")


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


# -- llama.cpp's server --------------------------------------------------------------------------------------
def test_llama_next_token_logprobs_agree_with_transformers(llama_server, smollm2_fp32):
    top = complete(llama_server, prompt=MR_PROMPT, max_tokens=1, temperature=0, logprobs=20)
    served = top["choices"][0]["logprobs"]["top_logprobs"][0]
    local = next_token_logprobs(smollm2_fp32, MR_PROMPT)
    # Q4_1 weights with Q8_1 activations against their fp32 dequantization: measured 0.22 and 0.27 apart, both
    # the same way, so the class margin agrees much closer
    for word in (" positive", " negative"):
        assert served[word] == pytest.approx(local[word], abs=0.3)
    margin = lambda lp: lp[" positive"] - lp[" negative"]
    assert margin(served) == pytest.approx(margin(local), abs=0.1)


def test_llama_echo_fails_the_echo_check(llama_server):
    """The negative control of the adapter's probe: the echoed log-probability of a prompt's last token must equal
    the next-token log-probability of that token after the rest of the prompt; llama-cpp-python 0.3.36 pairs
    each prompt token with the distribution after it, so it does not."""
    prompt, head = "a gorgeous, witty, seductive movie", "a gorgeous, witty, seductive"
    echo = complete(llama_server, prompt=prompt, max_tokens=1, temperature=0, logprobs=1, echo=True)
    echoed = echo["choices"][0]["logprobs"]
    assert echoed["tokens"][-1] == " movie" and echoed["token_logprobs"][0] is None
    nxt = complete(llama_server, prompt=head, max_tokens=1, temperature=0, logprobs=1000)
    expected = nxt["choices"][0]["logprobs"]["top_logprobs"][0][" movie"]
    assert abs(echoed["token_logprobs"][-1] - expected) > 1.0  # measured −7.37 against −9.12
    # what the echo's top_logprobs[i] is instead: the distribution after token i (here after " seductive"); within
    # 0.1 only, as llama.cpp's values move by up to 0.05 with the prefix its cache reuses from the last request
    after_head = nxt["choices"][0]["logprobs"]["top_logprobs"][0][","]
    assert echoed["top_logprobs"][-2][","] == pytest.approx(after_head, abs=0.1)
    assert abs(echoed["token_logprobs"][-2] - after_head) > 1.0


def test_llama_serves_large_k_one_prompt_per_request_and_ignores_bias_in_logprobs(llama_server):
    body = {"prompt": MR_PROMPT, "max_tokens": 1, "temperature": 0}
    assert len(complete(llama_server, **body, logprobs=200)["choices"][0]["logprobs"]["top_logprobs"][0]) >= 190
    plain = complete(llama_server, **body, logprobs=5)["choices"][0]
    biased = complete(llama_server, **body, logprobs=5, logit_bias={"3524": 100})["choices"][0]  # " negative"
    assert (plain["text"], biased["text"]) == (" positive", " negative")
    assert biased["logprobs"]["top_logprobs"] == plain["logprobs"]["top_logprobs"]  # bias not in the logprobs
    r = httpx.post(f"{llama_server.url}/completions", timeout=60,
                   json={"model": llama_server.model, "prompt": ["Hi", "Yo"], "max_tokens": 1})
    assert r.status_code == 500  # no batching: `assert len(prompt) <= 1`


def test_llama_seeded_sampling_repeats_and_unknown_models_are_served(llama_server):
    body = {"prompt": "The movie was", "max_tokens": 8, "temperature": 0.9}
    texts = [complete(llama_server, **body, seed=s)["choices"][0]["text"] for s in (7, 7, 8)]
    assert texts[0] == texts[1] != texts[2]
    r = httpx.post(f"{llama_server.url}/completions", timeout=60,
                   json={"model": "no-such-model", "prompt": "Hi", "max_tokens": 1})
    assert r.status_code == 200 and r.json()["model"] == "no-such-model"  # the probe must check /v1/models
    assert [m["id"] for m in httpx.get(f"{llama_server.url}/models").json()["data"]] == [llama_server.model]
    tokens = httpx.post(f"{llama_server.root}/extras/tokenize", json={"input": " positive negative"}).json()
    assert tokens == {"tokens": [2731, 3524]}


def test_llama_server_with_key_refuses_other_keys(llama_server_with_key):
    url = f"{llama_server_with_key.url}/models"
    assert httpx.get(url, headers=llama_server_with_key.headers).status_code == 200
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        r = httpx.get(url, headers=headers)
        assert (r.status_code, r.json()) == (401, {"detail": "Invalid API key"})


def test_llama_server_restarts_on_its_port_after_a_kill(llama_server):
    before = complete(llama_server, prompt="The movie was", max_tokens=5, temperature=0)["choices"][0]["text"]
    port = llama_server.port
    llama_server.kill()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{llama_server.url}/models")
    llama_server.restart()
    assert llama_server.port == port
    assert complete(llama_server, prompt="The movie was", max_tokens=5, temperature=0)["choices"][0]["text"] == before


# -- transformers serve ----------------------------------------------------------------------------------------
def test_transformers_serve_generates_as_in_process_and_ignores_logprobs(transformers_server, smollm2_fp32):
    model, tok = smollm2_fp32
    ids = tok("The movie was", return_tensors="pt").input_ids
    local = tok.decode(model.generate(ids, max_new_tokens=8, do_sample=False)[0, ids.shape[1]:])
    served = complete(transformers_server, prompt="The movie was", max_tokens=8, temperature=0, logprobs=5)
    assert served["choices"][0]["text"] == local
    assert "logprobs" not in served["choices"][0]  # ignored, not refused
    chat = httpx.post(f"{transformers_server.url}/chat/completions", timeout=120, json={
        "model": transformers_server.model, "max_tokens": 5, "temperature": 0,
        "messages": [{"role": "user", "content": "Is this review positive or negative? 'A gorgeous, witty, "
                                                 "seductive movie.' Answer with one word."}]})
    assert "positive" in chat.json()["choices"][0]["message"]["content"]
    r = httpx.post(f"{transformers_server.url}/completions", json={"model": "other", "prompt": "Hi"})
    assert r.status_code == 400 and "pinned" in r.json()["detail"]
