"""`prompt:api:smollm2` over llama.cpp's server against the in-process `prompt:smollm2` on the same 200 MR test
sentences, 0- and 4-shot: the same predicted class on at least 95 % of them, and each accuracy inside the other's
95 % interval. llama.cpp computes with the Q4_1 weights (and Q8_1 activations), transformers with their fp32
dequantization; the largest class-score difference seen is printed (`pytest -s`) and stated in docs/llm.md."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import robust
from robust.core.context import RunContext

N = 200


@pytest.fixture(scope="module")
def sentences():
    examples = list(RunContext.default().create("dataset", "mr").examples(0))[:N]
    return [ex.text for ex in examples], [ex.label for ex in examples]


def _prompted(spec: str, shots: int, base_url: str):
    ctx = RunContext("", 0, None, robust.registry(), data="mr",
                     plugin_settings={"api": {"base_url": base_url, "request_cache": False}})
    model = robust.registry().model(spec, shots=shots)
    model.bind(ctx)
    return model


@pytest.mark.parametrize("shots", [0, 4])
def test_served_and_in_process_prompting_agree(llama_server, sentences, shots):
    texts, labels = sentences
    local = _prompted("prompt:smollm2", shots, llama_server.url)
    served = _prompted("prompt:api:smollm2", shots, llama_server.url)
    assert served.parts == local.parts  # the same prompt, demonstrations included
    with ThreadPoolExecutor(1) as pool:  # the server computes while this process does (one core each)
        served_scores = pool.submit(served.scores, texts)
        a = local.scores(texts)
        b = served_scores.result()
    gold = np.array([local.classes.index(label) for label in labels])
    agree = float(np.mean(a.argmax(1) == b.argmax(1)))
    acc = [float(np.mean(s.argmax(1) == gold)) for s in (a, b)]
    lows, highs = zip(*(robust.wilson(round(x * N), N) for x in acc))
    worst = float(np.abs(a - b).max())
    margin = float(np.abs((a[:, 1] - a[:, 0]) - (b[:, 1] - b[:, 0])).max())
    print(f"\n{shots}-shot: agreement {agree:.3f}, accuracy in-process {acc[0]:.3f} served {acc[1]:.3f}, "
          f"largest class-score difference {worst:.3f} nats, largest margin difference {margin:.3f}")
    assert agree >= 0.95
    assert lows[0] <= acc[1] <= highs[0] and lows[1] <= acc[0] <= highs[1]
