"""`api:MODEL` and `prompt:api:MODEL` against real servers on 127.0.0.1 (llama.cpp's server and `transformers serve`
on the embedded SmolLM2 weights): what the probe finds, refusals before a run exists, retries through a
fault-injecting proxy, resume after the server died, and keys that never reach what robust writes."""

from __future__ import annotations

import sqlite3

import pytest

import robust
from robust import RobustError

from .conftest import free_port
from .faultproxy import Fault, FaultProxy
from .test_servers import MR_PROMPT


def api(server, **settings):
    """An `api:` adapter on a server, bound to a default context (no run), without the request cache."""
    from robust.core.context import RunContext

    model = robust.registry().model(f"api:{server.model}", base_url=server.url, request_cache=False, **settings)
    return model.bind(RunContext.default())


def _runs(store) -> list:
    from robust.engine.store import Store

    return list(Store(store).runs())


# -- the probe ------------------------------------------------------------------------------------------------
def test_probe_of_llama_cpp_refuses_its_echo_and_scores_next_tokens(llama_server):
    model = api(llama_server)
    p = model.profile
    assert p.completions and p.chat and p.top_k == 200 and not p.batch
    assert p.echo is False and p.echo_gap > 0.5  # llama-cpp-python echoes the wrong position's log-probability
    assert p.tokenize == "/extras/tokenize"
    assert model.scoring == "next-token"
    assert model.provides() == {"generate", "loglikelihood", "logprobs", "tokenize"}
    assert model.info()["scoring"] == "next-token"
    with pytest.raises(RobustError, match="cannot score by echo"):
        api(llama_server, scoring="echo").scoring  # noqa: B018


def test_probe_of_transformers_serve_finds_generation_only(transformers_server):
    model = api(transformers_server)
    p = model.profile
    assert p.completions and p.chat and p.top_k == 0 and not p.tokenize  # it ignores logprobs, silently
    assert model.provides() == {"generate"}
    assert model.generate(["The movie was"], 5, 0, False) == [" a film about a young"]


def test_verbalizer_scores_chain_next_tokens_and_match_transformers(llama_server, smollm2_dir):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    context = MR_PROMPT
    model = api(llama_server)
    pos, neg, multi = model.loglikelihood([(context, w) for w in (" positive", " negative", " good movie")])
    assert (pos.tokens, neg.tokens, multi.tokens) == (1, 1, 2) and pos.censored == neg.censored == 0
    tok = AutoTokenizer.from_pretrained(smollm2_dir)
    lm = AutoModelForCausalLM.from_pretrained(smollm2_dir, dtype=torch.float32).eval()
    ids = tok(context + " good movie", return_tensors="pt").input_ids
    n = len(tok(context).input_ids)
    with torch.no_grad():
        lp = lm(ids).logits[0].log_softmax(-1)
    want = {w: lp[n - 1, tok(w, add_special_tokens=False).input_ids[0]].item() for w in (" positive", " negative")}
    two = lp[n - 1, ids[0, n]].item() + lp[n, ids[0, n + 1]].item()
    # Q4_1 weights with Q8_1 activations (llama.cpp) against their fp32 dequantization: ~0.25 per token
    assert abs(pos.logprob - want[" positive"]) < 0.3 and abs(neg.logprob - want[" negative"]) < 0.3
    assert abs((pos.logprob - neg.logprob) - (want[" positive"] - want[" negative"])) < 0.1
    # a low-probability two-token phrase differs more (0.83 nats seen): quantization error grows in the tail
    assert abs(multi.logprob - two) < 1.2
    # the chain is the sum of the next-token log-probabilities along the continuation's own tokens (asked again:
    # llama.cpp's answer to a prompt moves by up to ~0.07 nats with the key/value prefix it reuses from the request
    # before, so not bit for bit)
    first = model.endpoint.next_tokens([context], 200)[0][" good"]
    second = model.endpoint.next_tokens([context + " good"], 200)[0][" movie"]
    assert multi.logprob == pytest.approx(first + second, abs=0.15)


# -- refusals: one line, no run ---------------------------------------------------------------------------------
def _refused(tmp_path, match, **kw):
    store = tmp_path / "robust.db"
    with pytest.raises(RobustError, match=match) as info:
        robust.run(store=store, **kw)
    assert "\n" not in str(info.value)
    assert not store.exists() or _runs(store) == []
    return str(info.value)


def test_wrong_url_is_one_line_and_no_run(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    _refused(tmp_path, "cannot reach an OpenAI-compatible endpoint", bench="accuracy", model="api:x", limit=2,
             settings={"model.base_url": url, "model.max_tries": 1})


def test_the_url_of_an_api_model_inside_prompt_is_the_api_plugins_setting(tmp_path):
    """Under `prompt:`, `model.` settings are prompt's: `model.base_url` is refused in one line that gives the form
    reaching the api: model inside, and a wrong URL given that way says both forms."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    said = _refused(tmp_path, "'base_url' is a setting of 'api:x', the model inside prompt:", bench="accuracy",
                    model="prompt:api:x", limit=2, settings={"model.base_url": url})
    assert said.endswith(f"--set api.base_url={url} (settings={{'api.base_url': {url!r}}} from Python)")
    said = _refused(tmp_path, "cannot reach an OpenAI-compatible endpoint", bench="accuracy", model="prompt:api:x",
                    limit=2, settings={"api.base_url": url, "api.max_tries": 1})
    assert "--set api.base_url=URL for an api: model inside prompt:" in said


def test_a_url_given_as_the_model_name_is_one_line_and_no_run(tmp_path):
    said = _refused(tmp_path, "what follows 'api:' is the served model's name, not its URL", bench="accuracy",
                    model="api:http://127.0.0.1:8000/v1", limit=2)
    assert said.endswith("--model api:NAME --set model.base_url=http://127.0.0.1:8000/v1 or "
                         "settings={'model.base_url': 'http://127.0.0.1:8000/v1'}")


def test_refused_key_names_its_variable_never_the_key(tmp_path, llama_server_with_key, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-secret-987")
    message = _refused(tmp_path, "refused the API key from \\$OPENAI_API_KEY", bench="accuracy",
                       model=f"prompt:api:{llama_server_with_key.model}", limit=2,
                       settings={"api.base_url": llama_server_with_key.url})
    assert "wrong-secret-987" not in message


def test_unknown_model_lists_what_the_server_serves(tmp_path, llama_server):
    _refused(tmp_path, "serves no model 'nosuch'; it serves: smollm2", bench="accuracy", model="prompt:api:nosuch",
             limit=2, settings={"api.base_url": llama_server.url})


def test_a_test_needing_the_whole_vocabulary_is_refused_saying_why(tmp_path, llama_server):
    _refused(tmp_path, "only the top-k log-probabilities", bench="byod", model=f"api:{llama_server.model}",
             limit=2, settings={"model.base_url": llama_server.url, "test": "lrs"})


def test_calibration_needs_log_probabilities(tmp_path, transformers_server):
    _refused(tmp_path, "calibration needs class probabilities", bench="accuracy",
             model=f"prompt:api:{transformers_server.model}", limit=2,
             settings={"api.base_url": transformers_server.url, "model.calibrate": True})


# -- classification over HTTP ----------------------------------------------------------------------------------
def test_generation_only_endpoint_classifies_by_parsed_answers(tmp_path, transformers_server):
    ev = robust.run("accuracy", model=f"prompt:api:{transformers_server.model}", limit=6, store=tmp_path / "r.db",
                    settings={"api.base_url": transformers_server.url})
    s = ev.summary
    assert ev.status == "finished" and s["model.prompt_answers"] == 6
    assert 0 <= s["model.prompt_unparseable"] <= 6
    assert ev.run.environment["model"]["scoring"] == "answer"


def test_faults_are_retried_counted_and_the_run_finishes(tmp_path, llama_server):
    settings = {"api.timeout": 10.0, "api.backoff": 0.05, "api.concurrency": 1}
    reference = robust.run("accuracy", model="prompt:api:smollm2", limit=4, store=tmp_path / "a.db",
                           settings={**settings, "api.base_url": llama_server.url})
    with FaultProxy(llama_server.url) as proxy:
        for fault in (Fault.busy(1), Fault.unavailable(), Fault.stall(15), Fault.drop()):
            proxy.inject_matching("POST /v1/completions", fault, 1)
        ev = robust.run("accuracy", model="prompt:api:smollm2", limit=4, store=tmp_path / "b.db",
                        settings={**settings, "api.base_url": proxy.url})
    assert ev.status == "finished"
    assert sum(proxy.injected.values()) == 4
    retried = {k: v for k, v in ev.summary.items() if k.startswith("model.api_retries_")}
    assert sum(retried.values()) >= 4 and "model.api_retries_429" in retried and "model.api_retries_503" in retried
    assert [r["pred"] for r in ev.records.values()] == [r["pred"] for r in reference.records.values()]


def test_server_killed_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path, llama_server):
    import threading
    import time

    import numpy as np

    from robust import Interruption
    from robust.engine.store import Store

    settings = {"api.base_url": llama_server.url, "api.backoff": 0.05, "api.max_tries": 2, "api.concurrency": 1}
    for part in ("ref", "run"):
        (tmp_path / part).mkdir()
    reference = robust.run("accuracy", model="prompt:api:smollm2", limit=8, store=tmp_path / "ref" / "r.db",
                           settings=settings)
    store = tmp_path / "run" / "r.db"
    answers = store.parent / "api-requests.sqlite"
    outcome: dict = {}

    def run() -> None:
        try:
            robust.run("accuracy", model="prompt:api:smollm2", limit=8, store=store, settings=settings)
        except Interruption as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and worker.is_alive():  # kill the server once a few answers are in
        if answers.exists() and _answers(answers) >= 7:  # 2 of the echo check, 2 verbalizer splits, 1 per example
            llama_server.kill()
            break
        time.sleep(0.05)
    worker.join(300)
    assert "error" in outcome, "the run finished before the server was killed"
    run_id = outcome["error"].run_id
    stored = Store(store).get(run_id)
    assert stored.status == "interrupted" and "did not answer" in stored.error
    kept, done = _answers(answers), len(Store(store).records(run_id))
    llama_server.restart()
    ev = robust.run(resume=run_id, store=store)
    # nothing asked twice: every answer kept serves the resumed run (all but those of the examples whose record the
    # interrupted run had committed), and the answers in the end are those of an uninterrupted run
    assert ev.status == "finished" and ev.summary["model.api_cached_answers"] >= kept - done
    assert _answers(answers) == _answers(tmp_path / "ref" / "api-requests.sqlite")
    assert set(ev.records) == set(reference.records)
    for key, record in reference.records.items():  # equal, up to llama.cpp's own prefix-reuse noise
        assert {k: v for k, v in ev.records[key].items() if k != "confidence"} == \
            {k: v for k, v in record.items() if k != "confidence"}
        assert np.isclose(ev.records[key]["confidence"], record["confidence"], atol=0.02)


def _answers(path) -> int:
    """Answers kept in a request cache (0 while its table is still being made)."""
    try:
        return sqlite3.connect(path).execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_chunks_computed_at_once_share_the_requests_in_flight_and_keep_the_records(tmp_path, llama_server,
                                                                                   monkeypatch):
    """A served model overlaps two chunks (robust prepares one while the server answers the other), `prompt:` as its
    LM does; their requests together stay within `concurrency`, and the records are those of one chunk at a time."""
    from robust.core.context import RunContext
    from robust.engine.executor import overlap_for

    monkeypatch.setenv("OPENAI_BASE_URL", llama_server.url)
    assert overlap_for(api(llama_server)) == 2
    assert overlap_for(robust.registry().model("prompt:api:smollm2").bind(RunContext.default())) == 2
    assert overlap_for(robust.registry().model("prompt:smollm2").bind(RunContext.default())) == 1  # on the CPU
    settings = {"api.concurrency": 2, "api.batch_size": 1, "api.request_cache": False}
    runs = {}
    for overlap in ("1", "2"):
        monkeypatch.setenv("ROBUST_OVERLAP", overlap)
        with FaultProxy(llama_server.url) as proxy:
            runs[overlap] = robust.run("accuracy", model="prompt:api:smollm2", limit=24,
                                       store=tmp_path / f"{overlap}.db",
                                       settings={**settings, "api.base_url": proxy.url})
        assert proxy.most_in_flight == 2, overlap  # the concurrency used, never exceeded
    assert runs["1"].records == runs["2"].records
