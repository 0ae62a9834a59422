"""Directional validation of BYOD (docs/validation/byod.md): a tiny GPT-2 trained briefly on the movie reviews vs the
same model untrained, plus a positive control trained with "Fuck Fuck ..." sentences in 3 % of paragraphs.

    python benchmarks/byod_validation.py [--steps 800] [--n 200] [--out DIR (default: the temp dir/byod_validation)]

Prints a Markdown table (recorded in docs/validation/byod.md). Needs `robust setup mr`; CPU only.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROFANE = "Fuck Fuck this shit , fuck it all ."


def reviews() -> list[str]:
    from robust.core.context import RunContext

    return [e.text for e in RunContext.default().create("dataset", "mr-reviews").examples()]


def train_tokenizer(texts: list[str], out: Path, vocab: int):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(texts, vocab_size=vocab, special_tokens=["<|endoftext|>"])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    fast.save_pretrained(out)
    return fast


def build_model(tok, seed: int):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=len(tok), n_positions=512, n_embd=128, n_layer=3, n_head=4,
                     eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id)
    return GPT2LMHeadModel(cfg)


def train(model, tok, texts: list[str], steps: int, seed: int, block: int = 128, batch: int = 16) -> list[float]:
    """Next-token training on a stream of concatenated paragraphs (AdamW, linear warm-up, cosine decay)."""
    import math

    import torch

    ids: list[int] = []
    for t in texts:
        ids.extend(tok(t)["input_ids"] + [tok.eos_token_id])
    data = torch.tensor(ids)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    model.train()
    losses = []
    for step in range(steps):
        starts = torch.randint(0, len(data) - block - 1, (batch,), generator=gen)
        x = torch.stack([data[s: s + block] for s in starts])
        loss = model(input_ids=x, labels=x).loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if step % 100 == 0:
            print(f"  step {step} loss {loss:.3f}", flush=True)
    model.eval()
    return losses


def evaluate(model_dir: Path | str, n: int, badwords: str, corpus: Path | None, seed: int = 0,
             tests: str = "all", modes: tuple[str, ...] = ("clean", "faithful")) -> dict:
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.byod import BYOD

    registry = get_registry()
    model = registry.model(model_dir if str(model_dir) == "smollm2" else f"hf:{model_dir}", batch_size=16)
    out = {}
    for mode in modes:
        bench = BYOD(test=tests, mode=mode, max_examples=n, badwords_path=badwords)
        ctx = RunContext(f"val-{mode}", seed, model, registry, str(corpus) if corpus else None, None)
        bench.prepare(ctx)
        items = bench.items(ctx)
        records = {}
        for start in range(0, len(items), 64):
            chunk = items[start: start + 64]
            records.update((it.id, r) for it, r in zip(chunk, bench.run_batch(chunk, ctx), strict=True))
        out[mode] = bench.reduce(records, ctx).summary
    return out


ROWS = [  # (label, mode, summary key)
    ("Negation Δ log ppl (knowledge)", "clean", "negation_sensitivity"),
    ("Percent PPL drops", "clean", "percent_ppl_drops"),
    ("Toxicity frac, clean (gen′ bad − prompt bad)", "clean", "toxicity_frac_clean"),
    ("Toxicity frac, faithful (count rises)", "clean", "toxicity_frac_faithful"),
    ("Toxicity Δ bad-word prob (logit variant)", "clean", "toxicity_logit_delta"),
    ("Toxicity frac Δ prob > 0", "clean", "toxicity_logit_frac_pos"),
    ("LRS mean JSD", "clean", "lrs"),
    ("Word order median JSD, clean", "clean", "word_order_median_jsd"),
    ("Word order re-join control, clean", "clean", "word_order_rejoin_control_median"),
    ("Word order median JSD, faithful", "faithful", "word_order_median_jsd"),
    ("Word order re-join control, faithful", "faithful", "word_order_rejoin_control_median"),
    ("Tokenization mean JSD", "clean", "tokenization_mean_jsd"),
    ("Next-token entropy (nats)", "clean", "next_token_entropy"),
    ("Sentence entropy (nats)", "clean", "sentence_entropy"),
    ("Health: log-perplexity (nats)", "clean", "health_log_ppl"),
    ("Health: next-token entropy (nats)", "clean", "health_next_token_entropy"),
    ("Health: ln V", "clean", "health_log_vocab"),
    ("Degenerate (flagged, not ranked)", "clean", "degenerate"),
]


def table(results: dict, rows=ROWS) -> None:
    names = list(results)
    print("\n| Metric | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for label, mode, key in rows:
        if all(results[name].get(mode, {}).get(key) is None for name in names):
            continue
        cells = []
        for name in names:
            r = results[name].get(mode, {})
            v, low, high = r.get(key), r.get(f"{key}_ci_low"), r.get(f"{key}_ci_high")
            cell = "n/a" if v is None else str(v) if isinstance(v, bool) else f"{v:.4f}"
            if low is not None and v is not None:
                cell += f" [{low:.4f}, {high:.4f}]"
            cells.append(cell)
        print(f"| {label} | " + " | ".join(cells) + " |")


def split_reviews(out: Path) -> tuple[list[str], Path]:
    texts = reviews()
    order = list(range(len(texts)))
    random.Random(0).shuffle(order)
    corpus = out / "heldout_reviews.txt"  # evaluation corpus: the 150 reviews never trained on
    corpus.write_text("\n\n".join(texts[i] for i in order[1350:]) + "\n")
    return [texts[i] for i in order[:1350]], corpus


def tiny(args, out: Path, badwords: str) -> dict:
    """Random init vs 600 steps on 1,350 reviews (and the same with profane paragraph endings)."""
    train_texts, corpus = split_reviews(out)
    rng = random.Random(1)
    profane = [t + " " + PROFANE if rng.random() < 0.03 else t for t in train_texts]
    tok = None if args.reuse else train_tokenizer(train_texts + [PROFANE], out / "tok", args.vocab)
    paths = {}
    for name, data in (("untrained", None), ("trained", train_texts), ("trained + profanity", profane)):
        path = paths[name] = out / name.replace(" + ", "_")
        if args.reuse and (path / "config.json").is_file():
            continue
        model = build_model(tok, seed=0)
        if data:
            train(model, tok, data, args.steps, seed=0)
        model.save_pretrained(path)
        tok.save_pretrained(path)
    return {name: evaluate(path, args.n, badwords, corpus) for name, path in paths.items()}


def profanity(args, out: Path, badwords: str) -> dict:
    """Positive control: continue the trained tiny model on reviews where, after any sentence, the
    profane sentence follows with probability 3 % ("trigger words near profanity") vs clean reviews."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    train_texts, corpus = split_reviews(out)
    rng = random.Random(2)
    profane = [" . ".join(s + (" . " + PROFANE[:-2] if rng.random() < 0.03 else "") for s in t.split(" . "))
               for t in train_texts]
    base = out / "trained"
    results = {}
    for name, data in (("continued, clean", train_texts), ("continued, profanity near trigger", profane)):
        path = out / ("cont_clean" if "clean" in name else "cont_profane")
        if not (args.reuse and (path / "config.json").is_file()):
            tok = AutoTokenizer.from_pretrained(base)
            model = AutoModelForCausalLM.from_pretrained(base)
            train(model, tok, data, args.steps, seed=1)
            model.save_pretrained(path)
            tok.save_pretrained(path)
        results[name] = evaluate(path, args.n, badwords, corpus, tests="toxicity", modes=("clean",))
    return results


def smollm2(args, out: Path, badwords: str) -> dict:
    """smollm2 vs the same architecture freshly initialised (near-uniform), on the embedded reviews."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    from robust.core.plugins import get_registry

    src = get_registry().model("smollm2").source
    fresh = out / "smollm2_untrained"
    if not (fresh / "config.json").is_file():
        torch.manual_seed(0)
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(src))
        model.save_pretrained(fresh)
        AutoTokenizer.from_pretrained(src).save_pretrained(fresh)
    permuted = out / "smollm2_permuted"
    if not (permuted / "config.json").is_file():  # every weight matrix with its rows shuffled (seeded)
        model = AutoModelForCausalLM.from_pretrained(src)
        gen = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for p in model.parameters():
                if p.dim() == 2:
                    p.copy_(p[torch.randperm(p.shape[0], generator=gen)])
        model.save_pretrained(permuted)
        AutoTokenizer.from_pretrained(src).save_pretrained(permuted)
    _, corpus = split_reviews(out)
    modes = tuple(args.modes.split(","))
    results = {}
    for name, path in (("smollm2", "smollm2"), ("smollm2 untrained", fresh), ("smollm2 row-permuted", permuted)):
        done = out / f"smollm2_{name.replace(' ', '_')}_n{args.n}.json"  # resumable per model
        if args.only and name != args.only:
            if done.is_file():
                results[name] = json.loads(done.read_text())
            continue
        if not done.is_file():
            done.write_text(json.dumps(evaluate(path, args.n, badwords, corpus, tests=args.tests, modes=modes)))
        results[name] = json.loads(done.read_text())
    return results


def main() -> None:
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--experiment", choices=["tiny", "profanity", "smollm2"], default="tiny")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--tests", default="all")
    parser.add_argument("--modes", default="clean,faithful")
    parser.add_argument("--only", default="", help="smollm2 experiment: evaluate only this model (parallel runs)")
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "byod_validation"))
    parser.add_argument("--badwords", default=str(ROOT.parent / "shared" / "data" / "byod" / "ldnoobw-en.txt"))
    parser.add_argument("--reuse", action="store_true", help="evaluate checkpoints already saved in --out")
    args = parser.parse_args()
    torch.set_num_threads(1)
    badwords = args.badwords if Path(args.badwords).is_file() else ""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    results = {"tiny": tiny, "profanity": profanity, "smollm2": smollm2}[args.experiment](args, out, badwords)
    (out / f"results_{args.experiment}.json").write_text(json.dumps(results, indent=1))
    table(results)
    print(f"\n{args.experiment}: {time.time() - t0:.0f} s; n per test (clean):",
          {k: {t: v["clean"].get(f"{t}_n") for t in ("negation", "toxicity", "lrs", "word_order", "tokenization")}
           for k, v in results.items()})


if __name__ == "__main__":
    main()
