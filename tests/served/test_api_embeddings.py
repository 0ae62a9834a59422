"""`api:MODEL` as an encoder: the /embeddings route of llama.cpp's server (started with `--embedding`, which returns
a vector per token), checked against the same weights in process, and SynTextBench run over it."""

from __future__ import annotations

import httpx
import numpy as np

import robust

from .test_api_model import _refused, api

TEXTS = ["a good film", "a bad film is here", "The plot was dull and the acting was worse."]


def cosines(a, b):
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_probe_finds_token_vectors_and_that_the_servers_batches_are_wrong(llama_embedding_server, llama_server):
    model = api(llama_embedding_server)
    p = model.profile
    assert p.embeddings and p.token_vectors and "embed" in model.provides()
    # the negative control: llama-cpp-python 0.3.36 gives every text but the first of a request wrong vectors
    url = f"{llama_embedding_server.url}/embeddings"
    both = httpx.post(url, json={"model": "smollm2", "input": TEXTS[:2]}).json()["data"]
    alone = httpx.post(url, json={"model": "smollm2", "input": TEXTS[1:2]}).json()["data"]
    last = [np.asarray(both[1]["embedding"])[-1:], np.asarray(alone[0]["embedding"])[-1:]]
    assert cosines(*last)[0] < 0.9
    assert p.embed_batch is False  # so robust sends one text a request
    # a server without embeddings offers none, and says why
    plain = api(llama_server)
    assert "embed" not in plain.provides() and "--embedding" in plain.why_not("embed")


def test_served_vectors_agree_with_the_same_weights_in_process(llama_embedding_server, smollm2_dir):
    from robust.core.context import RunContext

    served = api(llama_embedding_server)
    local = robust.registry().model("smollm2").bind(RunContext.default())
    for pooling in ("mean", "last-token"):
        assert served.pooling_used(pooling) == pooling
        a, b = served.embed(TEXTS, pooling=pooling), local.embed(TEXTS, pooling=pooling)
        assert a.shape == b.shape == (3, 576)
        # llama.cpp's Q4_1 weights against their fp32 dequantization: cosine 0.9995-0.9998 seen
        assert cosines(a, b).min() > 0.999
    # the pooling nobody asked for is the mean of the token vectors
    assert served.pooling_used(None) == "mean"
    raw = np.asarray(httpx.post(f"{llama_embedding_server.url}/embeddings",
                                json={"model": "smollm2", "input": [TEXTS[2]]}).json()["data"][0]["embedding"])
    assert np.allclose(served.embed(TEXTS[2:])[0], raw.mean(axis=0), atol=1e-5)


def test_syntextbench_runs_over_the_endpoint_and_a_second_run_asks_nothing_again(tmp_path, llama_embedding_server):
    store = tmp_path / "robust.db"
    settings = {"model.base_url": llama_embedding_server.url, "n": 16, "levels": [0.0, 0.5]}
    run = robust.run("syntextbench", model="api:smollm2", settings=settings, store=store)
    assert run.status == "finished" and run.result.summary["model.api_cached_answers"] == 0
    assert {r["pooling"] for r in run.records.values()} == {"last-token"}  # a decoder's: its last token
    queries = run.result.summary["model.api_requests"]
    again = robust.run("syntextbench", model="api:smollm2", settings=settings, store=store)
    # every text answered from the request cache: only the probe's requests are sent
    probe = api(llama_embedding_server)
    probe.profile  # noqa: B018 - the probe alone
    summary = again.result.summary
    assert summary["model.api_cached_answers"] > 0
    assert summary["model.api_requests"] <= probe.endpoint.client.requests < queries
    assert again.result.summary["score"] == run.result.summary["score"]


def test_an_encoder_benchmark_on_an_endpoint_without_embeddings_is_one_line_and_no_run(tmp_path, llama_server):
    said = _refused(tmp_path, "needs embed but model 'api:smollm2' offers only", bench="syntextbench",
                    model="api:smollm2", settings={"model.base_url": llama_server.url, "n": 16})
    assert "started with --embedding" in said


def test_an_embedding_the_server_pooled_is_taken_as_it_is_and_token_vectors_are_kept_pooled():
    import base64

    from robust.core.context import RunContext
    from robust.plugins.models.api.endpoint import Profile, _embeddings, _is_vector, _pooled, _same_vectors

    answer = {"data": [{"index": 1, "embedding": [0.0, 1.0]}, {"index": 0, "embedding": [1.0, 0.5]}]}
    assert _embeddings(answer) == [[1.0, 0.5], [0.0, 1.0]]  # in the order of the inputs
    assert _is_vector([1.0, 0.5]) and not _is_vector([[1.0, 0.5]]) and not _is_vector("AAAA")
    assert _same_vectors([1.0, 0.5], [1.0001, 0.5]) and not _same_vectors([1.0, 0.5], [0.0, 1.0])

    def decoded(kept):
        return {k: np.frombuffer(base64.b64decode(v), dtype=np.float32).tolist() for k, v in kept.items()}

    # what the request cache keeps: the server's vector, or the mean and the last of its token vectors
    assert decoded(_pooled([0.5, 2.0])) == {"vector": [0.5, 2.0]}
    assert decoded(_pooled([[1.0, 2.0], [3.0, 6.0]])) == {"mean": [2.0, 4.0], "last": [3.0, 6.0]}
    model = robust.registry().model("api:m", base_url="http://127.0.0.1:9/v1", request_cache=False)
    model.bind(RunContext.default())
    model.__dict__["profile"] = Profile(served=["m"], embeddings=True)
    model.endpoint.embed = lambda texts: [{"vector": np.array([1.0, 2.0, len(t)], np.float32)} for t in texts]
    assert "embed" in model.provides() and model.pooling_used("last-token") is None
    assert model.embed(["ab", "abc"], pooling="last-token").tolist() == [[1.0, 2.0, 2.0], [1.0, 2.0, 3.0]]
