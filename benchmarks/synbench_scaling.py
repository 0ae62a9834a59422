"""SynBench cost: time and peak memory against the input size d, the sample size n and the model size, and the
share of time spent outside the encoder's forward passes (generation + probing + scoring).

Each configuration runs in a fresh subprocess (so its peak RSS is its own) on one thread:

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/synbench_scaling.py            # about 10 minutes
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/synbench_scaling.py --quick    # about 2 minutes

Results are written to docs/performance/synbench.md by hand from the printed table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from peak import peak_rss_mb, reset_peak_rss

os.environ.setdefault("OMP_NUM_THREADS", "1")


def measure(config: dict) -> dict:
    """One synbench run (all its levels) in this process; timings from the records, peak RSS of the process."""
    if config.get("kind") == "lossless":
        return measure_lossless(config)
    import torch

    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.synbench.benchmark import SynBench
    from robust.plugins.models.arrays import ArrayFunction

    torch.set_num_threads(1)
    registry = get_registry()
    if config["model"] == "channel-mean":  # 3 numbers per image (V4, docs/validation/synbench.md): a near-free encoder
        model = ArrayFunction(lambda x: x.reshape(len(x), x.shape[1], -1).mean(-1), name="channel-mean",
                              input_shape=(3, 224, 224))
    else:
        model = registry.model(config["model"], **config.get("model_settings", {}))
    bench = SynBench(**config["settings"])
    ctx = RunContext("perf", 0, model, registry)
    warm_up(bench, model)
    base = reset_peak_rss()
    start = time.perf_counter()
    bench.prepare(ctx)
    records = {item.id: bench.run_item(item, ctx) for item in bench.items(ctx)}
    result = bench.reduce(records, ctx)
    wall = time.perf_counter() - start
    s = result.summary
    images = sum(r["n_train"] + r["n_test"] for r in records.values())
    return {"label": config["label"], "shape": s["shape"], "dim": s["dim"], "n": s["n"], "levels": s["levels"],
            "images": images, "wall_s": round(wall, 2), "generate_s": round(s["seconds_generate"], 2),
            "model_s": round(s["seconds_model"], 2), "probe_s": round(s["seconds_probe"], 2),
            "outside_share": round(1 - s["seconds_model"] / wall, 4),
            "ms_per_image_model": round(1000 * s["seconds_model"] / images, 3),
            "ms_per_image_generate": round(1000 * s["seconds_generate"] / images, 3),
            "rss_before_mb": round(base), "peak_rss_mb": round(peak_rss_mb()),
            "score": round(float(s["score"]), 4), "params": params(model)}


def measure_lossless(config: dict) -> dict:
    """The lossless representation of one width at one level (the reduce-time reference; cached in a run)."""
    from robust.plugins.benchmarks.synbench.lossless import lossless_points

    lossless_points(4, [1.0], 16, 16, [0.0], 0, 0)  # warm-up: imports, BLAS discovery
    base = reset_peak_rss()
    start = time.perf_counter()
    points = lossless_points(config["width"], [1.0], config["n"], config["n"], [0.0, 0.2, 0.8], 0, 0)
    wall = time.perf_counter() - start
    return {"label": config["label"], "dim": config["width"], "n": config["n"], "images": 2 * config["n"],
            "wall_s": round(wall, 2), "generate_s": "–", "model_s": "–", "probe_s": round(wall, 2),
            "outside_share": "–", "ms_per_image_model": "–", "ms_per_image_generate": "–",
            "rss_before_mb": round(base), "peak_rss_mb": round(peak_rss_mb()), "params": None,
            "score": round(points[0][0].accuracy, 4)}


def warm_up(bench, model) -> None:
    """Load the model and run one tiny forward pass and probe, so one-time costs (weights, lazy imports, BLAS
    thread-pool discovery) are not timed."""
    import numpy as np

    from robust.plugins.benchmarks.synbench.probe import probe

    shape = bench.input_setup(model)["shape"]
    model.embed_arrays(np.zeros((2, *shape), np.float32))
    rng = np.random.default_rng(0)
    z, y = rng.normal(size=(16, 4)), np.tile([1, -1], 8)
    probe(z, y, z, y, [0.0, 0.5])


def params(model) -> int | None:
    net = getattr(model, "_model", None) or (getattr(model, "__dict__", {}).get("model"))
    return int(sum(p.numel() for p in net.parameters())) if net is not None and hasattr(net, "parameters") else None


def run_child(config: dict) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", json.dumps(config)], capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    if out.returncode:
        raise SystemExit(f"{config['label']} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def save_vit_base(path: str) -> None:
    """A randomly initialised ViT-B/16 (86M parameters) in a local directory, for the hf: path."""
    import torch
    from transformers import ViTConfig, ViTModel

    torch.manual_seed(0)
    ViTModel(ViTConfig(), add_pooling_layer=False).save_pretrained(path)


def configs(quick: bool, vit_dir: str) -> list[dict]:
    one = {"levels": [1.0], "epsilons": [0.0, 0.2, 0.8], "lossless": False}  # the lossless reference: own rows
    out = [{"label": f"lossless reference width {w}", "kind": "lossless", "width": w, "n": 2048}
           for w in (192, 768, 2048, 150528)]
    for d in ("192", "768", "3072", "12288"):  # identity: generation + probe (Gram path when d > n)
        out.append({"label": f"identity d={d}", "model": "identity",
                    "settings": {**one, "shape": d, "n": 2048, "n_test": 2048}})
    for n in (512, 2048, 8192):
        out.append({"label": f"identity d=192 n={n}", "model": "identity",
                    "settings": {**one, "shape": "192", "n": n, "n_test": n}})
    full = {**one, "n": 2048, "n_test": 2048}
    out.append({"label": "channel-mean 3x224x224 n=2048", "model": "channel-mean", "settings": full})
    small = {**one, "n": 64 if quick else 128, "n_test": 64 if quick else 128}
    out.append({"label": "random-vit (h64, L2) 3x224x224", "model": "random-vit", "settings": small})
    out.append({"label": "random-vit (h384, L12; ViT-S size) 3x224x224", "model": "random-vit", "settings": small,
                "model_settings": {"hidden_size": 384, "layers": 12, "heads": 6, "mlp_size": 1536}})
    if not quick:
        out.append({"label": "hf: ViT-B/16 random init 3x224x224", "model": f"hf:{vit_dir}", "settings": small})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--only", help="run only configurations whose label contains this text")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(json.loads(args.one))))
        return
    with tempfile.TemporaryDirectory() as vit_dir:
        if not args.quick and (not args.only or args.only in "hf: ViT-B/16"):
            save_vit_base(vit_dir)
        rows = [run_child(c) for c in configs(args.quick, vit_dir) if not args.only or args.only in c["label"]]
    keys = ["label", "dim", "n", "images", "wall_s", "generate_s", "model_s", "probe_s", "outside_share",
            "ms_per_image_model", "ms_per_image_generate", "rss_before_mb", "peak_rss_mb", "params"]
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
