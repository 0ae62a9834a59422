"""The `hf:` adapter's own host work per text, outside the network's forward pass (issue 32).

On a GPU a forward pass costs little, and what the adapter does around it on the host counts. That covers
tokenising, padding, copying to the device and reading the probabilities back. This measures it on any machine
with a tiny random BERT (2 layers, hidden 32) behind `hf:`, whose forward pass is cheap. It classifies MR
sentences in calls of 200 new texts. The forward passes are timed by hooks on the network, and the rest of each
call is the adapter's:

    python benchmarks/hf_host_cost.py             # 2,200 texts after a 200-text warm-up, one torch thread
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from gpu_victim import save_random_bert
from peak import peak_rss_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2200)
    parser.add_argument("--call", type=int, default=200, help="texts per classify call")
    args = parser.parse_args()
    import torch

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    torch.set_num_threads(1)
    registry = get_registry()
    texts = [ex.text for ex in load_examples("mr-train", RunContext("host", 0, None, registry))]
    texts = texts[: args.call + args.texts]
    path = save_random_bert(Path(tempfile.gettempdir()) / "robust-tiny-bert", hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=2, intermediate_size=64)
    model = registry.model(f"hf:{path}", device="cpu", batch_size=64)
    model.preload()
    model.classify(texts[: args.call])  # warm-up: first-call costs out of the figure
    began_at, passes = threading.local(), []
    model.model.register_forward_pre_hook(lambda m, a, kw: setattr(began_at, "t", time.perf_counter()),
                                          with_kwargs=True)
    model.model.register_forward_hook(lambda m, a, kw, out: passes.append(time.perf_counter() - began_at.t),
                                      with_kwargs=True)
    measured = texts[args.call :]
    began = time.perf_counter()
    for start in range(0, len(measured), args.call):
        model.classify(measured[start : start + args.call])
    wall = time.perf_counter() - began
    n = len(measured)
    print(f"{n:,} texts, {len(passes)} forward passes: {wall / n * 1e6:.0f} µs a text, of which the forward passes "
          f"{sum(passes) / n * 1e6:.0f} and the adapter's own host work {(wall - sum(passes)) / n * 1e6:.0f}; "
          f"peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
