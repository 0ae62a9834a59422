"""robust vs TextAttack on the same victim, examples, seeds and query budget (docs/performance/textattack.md).

    python benchmarks/vs_textattack.py --n 50                 # the speed table
    python benchmarks/vs_textattack.py --evidence --n 20      # bridge == plain TextAttack, three recipes

One command runs every leg in its own process: the TextAttack legs with the textattack environment's python
(`--ta-python`, default `.venv-textattack/bin/python`, see docs/textattack.md), robust's native attacks with
this python; every leg imports robust from this checkout (`src/` first on PYTHONPATH). Each leg times only its
attack loop (model loading, imports and a warm-up call excluded) and writes JSON; this process collects them and
prints ratios, and each leg's peak RSS (the whole leg process's own, imports and model included, from `os.wait4`).

Victim: `probe:minilm` (all-MiniLM-L6-v2 mean-pooled + the logistic-regression head robust trains on MR). For
stock TextAttack the same weights are a `transformers.PreTrainedModel` (`MeanPoolProbe` below), so TextAttack
runs it through its own `HuggingFaceModelWrapper`, which pads every batch to 512 tokens.

Legs:
  textattack      TextAttack's DeepWordBugGao2018 on HuggingFaceModelWrapper, `Attack.attack` per example
  textattack-dyn  the same on a plain ModelWrapper with dynamic padding (how far padding alone goes)
  bridge          robust's `textattack:deepwordbug` through the `attack` benchmark on probe:minilm
  native          robust's `deepwordbug` (OpenAttack's DeepWordBug: replace-one ranking, 5 homoglyphs, one final
                  query; docs/attacks.md) through the same benchmark, in this environment
  native-ta       robust's `deepwordbug` with variant=textattack (TextAttack's DeepWordBug search, batched over
                  the benchmark's chunk of examples)
  greedy          robust's `saliency-greedy` + `typo-G` (stop when the prediction flips; RobTest's search)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from peak import run_child

ROOT = Path(__file__).resolve().parents[1]
SPEED_LEGS = ("textattack", "textattack-dyn", "bridge", "native", "native-ta", "greedy")
TA_LEGS = {"textattack", "textattack-dyn", "bridge", "plain"}
EVIDENCE_RECIPES = ("deepwordbug", "pwws", "textfooler")


# --- the victim ---------------------------------------------------------------------------------------
def probe():
    from robust.core.plugins import get_registry

    model = get_registry().model("probe:minilm")
    model.classify(["warm up"])  # loads the encoder and the (cached) head
    return model


def hf_victim(robust_probe: Any) -> tuple[Any, Any]:
    """probe:minilm as a transformers PreTrainedModel + tokenizer (mean pooling, then the linear head)."""
    import torch
    import transformers
    from transformers.modeling_outputs import SequenceClassifierOutput

    class MeanPoolProbe(transformers.BertPreTrainedModel):
        def __init__(self, config):
            super().__init__(config)
            self.bert = transformers.BertModel(config, add_pooling_layer=False)
            self.head = torch.nn.Linear(config.hidden_size, 2)

        def forward(self, input_ids=None, attention_mask=None, token_type_ids=None, **kwargs):
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(h.dtype)
            return SequenceClassifierOutput(logits=self.head((h * mask).sum(1) / mask.sum(1)))

    path = robust_probe.embedder.source
    transformers.logging.set_verbosity_error()
    model = MeanPoolProbe.from_pretrained(path).eval()
    with torch.no_grad():
        model.head.weight.copy_(torch.tensor(robust_probe.head["coef"]))
        model.head.bias.copy_(torch.tensor(robust_probe.head["bias"]))
    return model, transformers.AutoTokenizer.from_pretrained(path)


def dynamic_wrapper(textattack: Any, model: Any, tokenizer: Any) -> Any:
    """A plain TextAttack ModelWrapper: the HF victim with padding to the longest text of the batch."""
    import torch

    class Dynamic(textattack.models.wrappers.ModelWrapper):
        def __init__(self):
            self.model = model

        def __call__(self, text_input_list, **kwargs):
            enc = tokenizer(list(text_input_list), padding=True, truncation=True, max_length=512, return_tensors="pt")
            with torch.no_grad():
                return self.model(**enc).logits.softmax(-1).numpy()

    return Dynamic()


def examples(n: int) -> list[Any]:
    from robust.core.plugins import get_registry

    return list(get_registry().get("dataset", "mr").create().examples())[:n]


# --- legs (run in child processes) --------------------------------------------------------------------
def leg_plain(args: argparse.Namespace, recipe: str, padding: str) -> dict[str, Any]:
    """Stock TextAttack: the recipe class, `set_seed`, `Attack.attack` per example, its own query count."""
    import math

    from robust.core.labels import label_index
    from robust.core.seeding import rng_for
    from robust.plugins.textattack.bridge import build_attack, convert, example_seed
    from robust.plugins.textattack.offline import import_textattack
    from robust.plugins.textattack.recipes import RECIPES, unavailable_reason

    reason = unavailable_reason(RECIPES[recipe])
    if reason:
        return {"unavailable": reason}
    textattack = import_textattack()  # offline (as the bridge does): stock import would try NLTK downloads
    victim = probe()
    model, tokenizer = hf_victim(victim)
    if padding == "max_length":
        wrapper = textattack.models.wrappers.HuggingFaceModelWrapper(model, tokenizer)
    else:
        wrapper = dynamic_wrapper(textattack, model, tokenizer)
    attack = build_attack(RECIPES[recipe], wrapper, dict(RECIPES[recipe].params))
    attack.goal_function.query_budget = args.budget or math.inf
    wrapper(["warm up"])
    data = examples(args.n)
    rows, start = [], time.perf_counter()
    for ex in data:
        textattack.shared.utils.set_seed(example_seed(rng_for(args.seed, "attack", f"textattack:{recipe}", ex.id)))
        result = convert(attack.attack(ex.text, label_index(victim, ex.label)), args.budget or math.inf)
        rows.append({"id": ex.id, "status": result.status, "success": result.success, "queries": result.queries,
                     "perturbed": result.perturbed, "type": result.textattack_result})
    return {"rows": rows, "seconds": time.perf_counter() - start}


def leg_bench(args: argparse.Namespace, attack: str, settings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """An --attack value through robust's `attack` benchmark code path (prepare, items, run_batch), no store."""
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.attack.benchmark import AttackBenchmark

    registry = get_registry()
    victim = probe()
    ctx = RunContext("bench", args.seed, victim, registry, "mr", args.n, [attack], plugin_settings=settings)
    bench = AttackBenchmark(budget=args.budget, degree=args.degree).bind(ctx)
    try:
        bench.required_capabilities(ctx)
    except Exception as exc:  # noqa: BLE001 - an unavailable recipe is the leg's outcome
        return {"unavailable": str(exc)}
    bench.prepare(ctx)  # loads the model and builds a TextAttack recipe: not timed
    items = bench.items(ctx)
    rows, start = [], time.perf_counter()
    for i in range(0, len(items), bench.chunk_size):
        chunk = items[i : i + bench.chunk_size]
        for item, rec in zip(chunk, bench.run_batch(chunk, ctx)):
            rows.append({"id": item.payload.example.id, "status": rec["status"], "success": rec["success"],
                         "queries": rec["queries"], "perturbed": rec["perturbed"],
                         "type": rec.get("textattack_result", "")})
    return {"rows": rows, "seconds": time.perf_counter() - start}


def run_leg(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    if args.leg == "textattack":
        return leg_plain(args, args.recipe, "max_length")
    if args.leg in ("textattack-dyn", "plain"):
        return leg_plain(args, args.recipe, "dynamic")
    if args.leg == "bridge":
        return leg_bench(args, f"textattack:{args.recipe}", {})
    if args.leg == "native":
        return leg_bench(args, "deepwordbug", {})
    if args.leg == "native-ta":
        return leg_bench(args, "deepwordbug", {"deepwordbug": {"variant": "textattack"}})
    if args.leg == "greedy":
        return leg_bench(args, f"saliency-greedy:{args.transform}",
                         {"saliency-greedy": {"stop_on_flip": True, "ratio": args.ratio}})
    raise SystemExit(f"unknown leg {args.leg}")


# --- the parent: run legs, compare ----------------------------------------------------------------------
def spawn(args: argparse.Namespace, leg: str, recipe: str) -> dict[str, Any]:
    python = args.ta_python if leg in TA_LEGS else sys.executable
    if not Path(python).exists():
        return {"unavailable": f"no textattack environment at {python}; see docs/textattack.md"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "leg.json"
        cmd = [python, __file__, "--leg", leg, "--recipe", recipe, "--n", str(args.n), "--budget", str(args.budget),
               "--seed", str(args.seed), "--degree", str(args.degree), "--transform", args.transform,
               "--ratio", str(args.ratio),
               "--json-out", str(out)]
        path = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
        env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
               "PYTHONPATH": path}
        proc = run_child(cmd, env=env)
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
            return {"unavailable": f"leg {leg} failed: {tail}"}
        result = json.loads(out.read_text())
        result["process_seconds"], result["peak_rss_mb"] = proc.wall_s, proc.peak_mb
        print(f"  {leg:<15} {recipe:<12} done in {result['process_seconds']:.0f} s", file=sys.stderr)
        return result


def summary(result: dict[str, Any]) -> dict[str, Any]:
    rows = result["rows"]
    attacked = [r for r in rows if r["status"] != "skipped"]
    wins = [r for r in rows if r["status"] == "succeeded"]
    return {"n": len(rows), "attacked": len(attacked), "succeeded": len(wins),
            "asr": len(wins) / len(attacked) if attacked else 0.0,
            "queries": sum(r["queries"] for r in attacked) / len(attacked) if attacked else 0.0,
            "max_queries": max((r["queries"] for r in rows), default=0),
            "sec_per_example": result["seconds"] / len(rows) if rows else 0.0}


def same_outcomes(a: dict[str, Any], b: dict[str, Any]) -> tuple[int, int]:
    """(examples with equal status and perturbed text, examples compared)."""
    pairs = list(zip(a["rows"], b["rows"]))
    assert all(x["id"] == y["id"] for x, y in pairs)
    return sum((x["status"], x["perturbed"]) == (y["status"], y["perturbed"]) for x, y in pairs), len(pairs)


def speed(args: argparse.Namespace) -> dict[str, Any]:
    results = {leg: spawn(args, leg, "deepwordbug") for leg in args.legs}
    lines = [f"n={args.n} MR test sentences, victim probe:minilm, query budget {args.budget or 'none'}, "
             f"seed {args.seed}, 1 torch thread", "",
             "| leg | attack success rate | queries / attacked example (max) | s / example | speed-up vs textattack | "
             "peak RSS MB |", "|---|---|---|---|---|---|"]
    base = results.get("textattack", {})
    base_sec = summary(base)["sec_per_example"] if "rows" in base else None
    for leg, res in results.items():
        if "rows" not in res:
            lines.append(f"| {leg} | unavailable: {res['unavailable']} | | | | |")
            continue
        s = summary(res)
        ratio = f"{base_sec / s['sec_per_example']:.1f}x" if base_sec and s["sec_per_example"] else "-"
        lines.append(f"| {leg} | {s['asr']:.3f} ({s['succeeded']}/{s['attacked']}) | {s['queries']:.1f} "
                     f"({s['max_queries']}) | {s['sec_per_example']:.3f} | {ratio} | {res['peak_rss_mb']:.0f} |")
    for a, b in (("bridge", "textattack"), ("bridge", "textattack-dyn")):
        if "rows" in results.get(a, {}) and "rows" in results.get(b, {}):
            same, total = same_outcomes(results[a], results[b])
            lines.append(f"\nper-example outcome (status, perturbed text) {a} == {b}: {same}/{total}")
    return {"table": "\n".join(lines), "results": results}


def evidence(args: argparse.Namespace) -> dict[str, Any]:
    lines = [f"n={args.n} MR test sentences, probe:minilm, seed {args.seed}, budget {args.budget or 'none'}: "
             "plain TextAttack (recipe class + dynamic-padding ModelWrapper + set_seed + Attack.attack) vs the bridge",
             "", "| recipe | plain TextAttack ASR | bridge ASR | equal outcomes | equal queries |",
             "|---|---|---|---|---|"]
    results = {}
    for recipe in args.recipes:
        plain, ours = spawn(args, "plain", recipe), spawn(args, "bridge", recipe)
        results[recipe] = {"plain": plain, "bridge": ours}
        if "rows" not in plain or "rows" not in ours:
            reason = plain.get("unavailable") or ours.get("unavailable")
            lines.append(f"| {recipe} | unavailable: {reason} | | | |")
            continue
        same, total = same_outcomes(plain, ours)
        queries = sum(x["queries"] == y["queries"] for x, y in zip(plain["rows"], ours["rows"]))
        lines.append(f"| {recipe} | {summary(plain)['asr']:.3f} | {summary(ours)['asr']:.3f} | {same}/{total} | "
                     f"{queries}/{total} |")
    return {"table": "\n".join(lines), "results": results}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=50, help="MR test sentences (default 50)")
    p.add_argument("--budget", type=int, default=200, help="max classify queries per example, all legs (0 = none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--degree", type=float, default=1.0, help="greedy: max share of words typo-G may edit")
    p.add_argument("--transform", default="typo-G", help="greedy: the Transform saliency-greedy applies")
    p.add_argument("--ratio", type=float, default=0.15, help="greedy: share of words edited per saliency round")
    p.add_argument("--legs", nargs="+", default=list(SPEED_LEGS), choices=SPEED_LEGS)
    p.add_argument("--evidence", action="store_true", help="compare the bridge with plain TextAttack instead")
    p.add_argument("--recipes", nargs="+", default=list(EVIDENCE_RECIPES))
    p.add_argument("--ta-python", default=str(ROOT / ".venv-textattack" / "bin" / "python"))
    p.add_argument("--json", type=Path, help="also write every per-example outcome here")
    p.add_argument("--leg", help=argparse.SUPPRESS)
    p.add_argument("--recipe", default="deepwordbug", help=argparse.SUPPRESS)
    p.add_argument("--json-out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.leg:
        args.json_out.write_text(json.dumps(run_leg(args)))
        return
    report = evidence(args) if args.evidence else speed(args)
    print(report["table"])
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
