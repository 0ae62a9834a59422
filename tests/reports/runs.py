"""Small real runs of every benchmark, made in this process through the CLI, and their reports; a model whose
class name is hostile HTML and data whose texts are, to check that reports keep them text."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from robust import ModelAdapter, hookimpl
from robust.core import plugins
from robust.engine.store import Store
from tests.conftest import install_plugin
from tests.core.conftest import in_process

HOSTILE = "<img src=x onerror=console.error('label')>"
HOSTILE_TEXT = "<script>console.error('text')</script> the film was good <img src=x onerror=console.error('t')>"


class HostileKeywords(ModelAdapter):
    """A keyword sentiment classifier whose negative class is named with HTML."""

    name = "hostile-keywords"
    description = "test model with a hostile class name"
    capabilities = frozenset({"classify"})
    labels = [HOSTILE, "positive"]

    def _classify(self, texts):
        from robust_example.resource import WORDS

        out = []
        for text in texts:
            words = [w.strip(".,!?") for w in text.lower().split()]
            score = sum(w in WORDS["+"] for w in words) - sum(w in WORDS["-"] for w in words)
            p = 1 / (1 + np.exp(-score))
            out.append(np.array([1 - p, p]))
        return out


class HostilePlugin:
    @hookimpl
    def register_models(register):
        register(HostileKeywords)


def hostile_data(path: Path) -> Path:
    """Ten tiny reviews (from robust-example's generator) with the hostile class name, and a hostile text."""
    from robust_example.data import TinyReviews

    rows = [{"text": HOSTILE_TEXT, "label": "positive"}]  # first: the first sample of every degree it flips at
    rows += [{"text": ex.text, "label": "positive" if ex.label == "positive" else HOSTILE}
             for ex in TinyReviews(n=9).examples(0)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def tiny_asr_table(path: Path) -> Path:
    """A small regression table whose features carry the ASR across corpora (known ground truth), for a fit."""
    from robust.plugins.benchmarks.asr_predict.table import write_table
    from tests.asr_predict.conftest import synthetic_table

    write_table(synthetic_table("transfer", n_families=3, per_variant=5), path)
    return path


def cli(*args: Any) -> str:
    code, out, err = in_process(*args)
    assert code == 0, err
    return out


def make_runs(tmp: Path, gpt2_dir: Path, corpus_file: Path) -> dict[str, dict[str, Any]]:
    """{benchmark: {"run", "html", "records"}} for one tiny run of each benchmark, plus a comparison page."""
    site = tmp / "site"
    install_plugin("robust-example", site)
    plugins.load_plugins()
    sys.path.insert(0, str(site))
    import robust_example

    plugins.register_plugin(robust_example, "example", "robust-example", "0.1.0")
    plugins.register_plugin(HostilePlugin, "hostile", "robust-test", "0")
    try:
        plugins.get_registry().get("resource", "keyword-lexicon").create().setup()
        store, data, out = tmp / "r.db", hostile_data(tmp / "hostile.jsonl"), tmp / "reports"
        runs = {
            "accuracy": ["--model", "hostile-keywords", "--data", data],
            "robtest": ["--model", "hostile-keywords", "--data", data, "--attack", "leetspeak",
                        "--set", "degrees=0.2,0.5", "--set", "aug_num=3"],
            "syntextbench": ["--model", "keywords", "--set", "n=64", "--set", "levels=0,0.5,0.9"],
            "byod": ["--model", f"hf:{gpt2_dir}", "--data", corpus_file, "--test", "negation,toxicity,word_order",
                     "--limit", "3", "--set", "max_new_tokens=4", "--set", "bootstrap=50"],
            "attack": ["--model", "hostile-keywords", "--data", data, "--attack", "leetspeak"],
            "synbench": ["--model", "identity", "--set", "levels=0.5,1,2,3", "--set", "n=64", "--set", "n_test=64",
                         "--set", "epsilons=0,0.2,0.8"],
            "asr-predict": ["--set", "stage=fit", "--set", f"table={tiny_asr_table(tmp / 'table.csv')}",
                            "--set", f"predictor={tmp / 'predictor.json'}", "--set", "splits=4", "--set", "folds=3",
                            "--set", "repeats=1"],
        }
        found: dict[str, dict[str, Any]] = {}
        for bench, args in runs.items():
            run = json.loads(cli("--store", store, "run", "--bench", bench, *args, "--json", "--quiet"))
            cli("--store", store, "report", run["id"], "--out", out)
            found[bench] = {"run": run, "html": out / f"{run['id']}.html", "records": Store(store).records(run["id"])}
        other = json.loads(cli("--store", store, "run", "--bench", "accuracy", "--model", "keywords", "--data",
                               "tiny-reviews", "--json", "--quiet"))
        cli("--store", store, "compare", found["accuracy"]["run"]["id"], other["id"], "--out", out)
        [page] = out.glob("compare-accuracy-*.html")
        found["compare"] = {"run": other, "html": page, "records": {}}
        return found
    finally:
        plugins.unregister_plugin("hostile")
        plugins.unregister_plugin("example")
        sys.path.remove(str(site))
