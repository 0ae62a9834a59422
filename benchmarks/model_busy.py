"""Does the model wait for robust? A simulated GPU victim's busy share on a RobTest typo run (issue 32).

The victim is a naive-Bayes bag-of-words classifier (word log-odds counted on the MR training split) behind
`robust.FunctionModel`, on a simulated device: each batch holds one device lock (a GPU runs one batch at a time)
while it computes and sleeps `--per-text` seconds per text with the GIL released, as a GPU kernel or a server
request does. Busy share = seconds inside that lock / wall seconds of the whole `robust.run` call. Each
configuration runs in a fresh process (its peak resident memory is its own):

    python benchmarks/model_busy.py                      # overlap 1, 2, 4 at 30 µs per text, 30 examples
    python benchmarks/model_busy.py --overlap 1 2 --per-text 30e-6 100e-6 --limit 10

Columns: overlap (chunks computed at once, `ROBUST_OVERLAP`), the run's wall seconds, the device's busy share,
model queries (texts the victim computed) per wall second, robust's own CPU seconds per query (process CPU
minus the victim's compute), and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path


class Device:
    """One simulated accelerator: a batch at a time, `per_text` seconds per text with the GIL released."""

    def __init__(self, per_text: float) -> None:
        self.per_text, self.lock = per_text, threading.Lock()
        self.busy = self.held = self.compute_cpu = 0.0
        self.texts = self.batches = 0

    def run(self, fn, texts: list[str]):
        with self.lock:
            began, cpu = time.perf_counter(), time.thread_time()
            out = fn(texts)
            self.compute_cpu += time.thread_time() - cpu
            time.sleep(self.per_text * len(texts))
            # busy: the compute plus the sleep asked for (a loaded machine wakes a sleeper late; a GPU would
            # have finished on time), held: what the lock really was held
            self.busy += time.thread_time() - cpu + self.per_text * len(texts)
            self.held += time.perf_counter() - began
            self.texts += len(texts)
            self.batches += 1
        return out


def dictionary_classifier():
    """(labels, texts -> probabilities): naive Bayes over lower-cased words, add-one smoothing, MR training split."""
    import numpy as np

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    examples = load_examples("mr-train", RunContext("busy", 0, None, get_registry()))
    labels = sorted({ex.label for ex in examples}, key=str)
    counts = {lab: Counter() for lab in labels}
    for ex in examples:
        counts[ex.label].update(ex.text.lower().split())
    vocab = set().union(*counts.values())
    totals = {lab: sum(c.values()) + len(vocab) for lab, c in counts.items()}
    logp = {w: np.array([math.log((counts[lab][w] + 1) / totals[lab]) for lab in labels]) for w in vocab}
    zero = np.zeros(len(labels))

    def classify(texts: list[str]):
        z = np.array([sum((logp.get(w, zero) for w in t.lower().split()), zero) for t in texts])
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(1, keepdims=True)

    return labels, classify


def one(overlap: int, per_text: float, limit: int, attack: str) -> dict:
    """One run in this process; its measures as a dict."""
    import robust

    labels, classify = dictionary_classifier()
    device = Device(per_text)
    model = robust.FunctionModel(lambda texts: device.run(classify, texts), "classify", name="nb-gpu-sim",
                                 labels=labels, overlap=overlap)
    cpu0, began = time.process_time(), time.perf_counter()
    with tempfile.TemporaryDirectory() as home:
        robust.run("robtest", model=model, attack=attack, limit=limit, store=Path(home) / "robust.db")
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu0
    own = cpu - device.compute_cpu
    return {"overlap": overlap, "per_text_us": round(per_text * 1e6), "limit": limit, "wall_s": round(wall, 2),
            "busy_share": round(device.busy / wall, 3),
            "held_share": round(device.held / wall, 3), "queries": model.queries,
            "queries_per_s": round(model.queries / wall), "texts_per_batch": round(device.texts / device.batches, 1),
            "cpu_share": round(cpu / wall, 2), "own_cpu_us_per_query": round(own / model.queries * 1e6, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--overlap", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--per-text", type=float, nargs="+", default=[30e-6], help="device seconds per text")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--attack", default="typo")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.overlap[0], args.per_text[0], args.limit, args.attack)))
        return
    print(HEADER)
    for per_text in args.per_text:
        for overlap in args.overlap:
            cmd = [sys.executable, __file__, "--one", "--overlap", str(overlap), "--per-text", str(per_text),
                   "--limit", str(args.limit), "--attack", args.attack]
            out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
            if out.returncode:
                raise SystemExit(out.stderr.strip().splitlines()[-1:])
            print(row(json.loads(out.stdout.strip().splitlines()[-1])), flush=True)


HEADER = ("| device µs/text | overlap | wall s | device busy (lock held) | queries | queries/s | texts/batch "
          "| process CPU/wall | robust's own CPU µs/query | peak RSS MB |\n" + "|---" * 10 + "|")


def row(r: dict) -> str:
    cells = [r["per_text_us"], r["overlap"], r["wall_s"], f"{r['busy_share']:.0%} ({r['held_share']:.0%})",
             f"{r['queries']:,}", f"{r['queries_per_s']:,}", r["texts_per_batch"], r["cpu_share"],
             r["own_cpu_us_per_query"], r["peak_rss_mb"]]
    return "| " + " | ".join(map(str, cells)) + " |"


if __name__ == "__main__":
    main()
