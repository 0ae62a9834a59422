"""`asr-predict` (RobustText: Dang, Le and Le, "A Curious Case of Searching for the Correlation between Training
Data and Adversarial Robustness of Transformer Textual Models", Findings of ACL 2024): predict the attack success
rate a classifier fine-tuned on a dataset would suffer, from 13 features of the dataset, in seconds instead of
fine-tuning and attacking it.

Three stages (`--set stage=...`), the model (`--model`, default `minilm`) being the embedder of the features:
* `build`: sample sub-datasets of the offline corpora (corpora.py), and for each one compute its features,
  fine-tune a victim (victim.py) and attack it with each of `attacks`; one record (= one table row) per
  sub-dataset, so an interrupted build resumes where it stopped. The table is written to `table` (CSV).
* `fit`: read `table` (robust's own or the authors' `data_bert.csv`), evaluate the regressors under the
  paper's interpolation splits, repeated k-fold and leave-one-corpus-out, beside the global-mean and
  same-corpus-mean baselines and the label-noise floor, say whether the features beat the baselines, and save
  the random-forest predictor (JSON) to `predictor`.
* `predict` (default): the features of `--data` (a labelled dataset) and the saved predictor's ASR with its
  cross-validated error bar, and the time saved against fine-tuning and attacking (measured in the build). It is
  refused, before any feature is computed, when the predictor was fitted on features of other extractors (unless
  `force`); every feature outside the table's range is flagged; the report leads with whether the fit beat
  predicting the table's mean.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from robust import (
    Benchmark,
    Result,
    RobustError,
    RunContext,
    Setting,
    Table,
    WorkItem,
    add_scores,
    attack_specs,
    cache_dir,
    load_examples,
    summarize_scores,
)
from robust.plugins.benchmarks.asr_predict import domain
from robust.plugins.benchmarks.asr_predict.constants import (
    ASR_COLUMNS,
    ATTACKS,
    CLASS_COUNTS,
    EXTRACTOR_COLUMN,
    FAMILIES,
    FEATURE_KEYS,
    POOLED_RMSE,
    STAGES,
    TIME_COLUMNS,
    protocol_rank,
)
from robust.toolkit.lazy import LazyModule, np

# a build's corpora and victim training, imported when a build uses them (`robust list` imports this module)
corpora = LazyModule("robust.plugins.benchmarks.asr_predict.data")
training = LazyModule("robust.plugins.benchmarks.asr_predict.victim")


def default_path(name: str) -> str:
    return str(cache_dir() / "asr-predict" / name)


class ASRPredict(Benchmark):
    name = "asr-predict"
    description = ("RobustText: predict a fine-tuned classifier's attack success rate from 13 dataset features "
                   "(stage=build | fit | predict)")
    needs = frozenset({"embed"})
    default_model = "minilm"
    #: one row per dataset: a built sub-dataset (its training set, measured ASR) or --data (the predicted ASR)
    score_fields = frozenset({"stage", "texts", "labels", "features", "asr"})
    settings = {
        "stage": Setting("predict", choices=STAGES, help="build the table, fit the predictor, or predict"),
        "table": Setting("", help="regression table CSV (build writes it, fit reads it; default: the cache)"),
        "predictor": Setting("", help="predictor JSON (fit writes it, predict reads it; default: the cache)"),
        "mode": Setting("faithful", choices=("faithful", "fixed"), help="features: the authors' code or fixed"),
        "text_column": "text",
        "label_column": "label",
        # build
        "families": Setting(list(FAMILIES), choices=FAMILIES, min_items=1,
                            help="corpus families sampled by stage=build"),
        "class_counts": Setting(list(CLASS_COUNTS), min=2, min_items=1, help="relabelled class counts"),
        "subsets": Setting(20, min=1, help="sub-datasets (table rows) built"),
        "train_size": Setting(450, min=10, help="training texts per sub-dataset (docs/asr_predict.md)"),
        "val_size": Setting(50, min=1, help="validation texts per sub-dataset"),
        "test_size": Setting(50, min=1, help="attacked texts per corpus variant (and MR-surrogate texts)"),
        "victim": Setting("tiny-bert", help="tiny-bert (random init, MiniLM vocabulary), minilm, or hf:DIR_OR_ID"),
        "epochs": Setting(10, min=1, help="victim training epochs (the best on validation is kept)"),
        "victim_seed": Setting(-1, min=-1, help="seed of victim training and attacks (-1: from the run seed); "
                                                 "the same sub-datasets with another victim_seed measure label noise"),
        "lr": Setting(0.0, min=0.0, help="victim learning rate (0: 5e-4 for tiny-bert, else 5e-5)"),
        "attacks": Setting(list(ATTACKS), min_items=1, item=str, help="attackers whose mean ASR is the target"),
        "budget": Setting(1000, min=1, help="classify queries per attacked example (docs/asr_predict.md)"),
        # fit
        "splits": Setting(202, min=2, help="paper interpolation splits (Dang et al. 2024, §5)"),
        "folds": Setting(5, min=2, help="k of the repeated k-fold protocol"),
        "repeats": Setting(10, min=1, help="repeats of the k-fold protocol"),
        # predict
        "force": Setting(False, help="predict even with a predictor fitted on features of other extractors (the "
                                     "prediction is then outside the predictor's domain, and says so)"),
    }

    @property
    def stage(self) -> str:
        return str(self.config["stage"])

    def table_path(self) -> Path:
        return Path(self.config["table"] or default_path("table.csv")).expanduser()

    def predictor_path(self) -> Path:
        return Path(self.config["predictor"] or default_path("predictor.json")).expanduser()

    def describe_limit(self, limit: int) -> str:
        """What `--limit N` limits here, in one line."""
        if self.stage == "predict":
            return f"--limit {limit}: the first {limit} examples of --data (their features are what is predicted from)"
        return f"--limit {limit}: nothing at stage={self.stage} (it reads no --data)"

    def extractor(self, ctx: RunContext) -> dict[str, str]:
        """The feature extractors this run uses: the embedder (`--model`, its pooling), the tokenizer, the feature
        mode and the `asr-features` settings of the surrogate and the clustering (no model is loaded)."""
        model = ctx.model
        pooling = model.config.get("pooling") if model is not None else None
        embedder = (model.identity if model is not None else ctx.model_spec) + (f" ({pooling} pooling)" if pooling
                                                                                  else "")
        tokenizer = model.identity if self._own_tokenizer(ctx) else ctx.registry.model("minilm").identity
        settings = ctx.create("scorer", "asr-features").config
        return domain.extractor(embedder, tokenizer, str(self.config["mode"]), settings)

    @staticmethod
    def _own_tokenizer(ctx: RunContext) -> bool:
        """Whether the token features use the embedder's own tokenizer (it has a checkpoint), else MiniLM's: the
        one choice both what is recorded (`extractor`) and what is used (`_tokens`) follow."""
        return ctx.model is not None and "checkpoint" in ctx.model.provides()

    # items ------------------------------------------------------------------------------------------------
    def prepare(self, ctx: RunContext) -> None:
        c = self.config
        if self.stage == "fit" and ctx.scorers:
            raise RobustError("asr-predict gives --scorer a row per dataset at stage=build and stage=predict; "
                              "stage=fit reads a table and has none")
        if self.stage == "build":
            self.plan = corpora.plan(c["families"], [int(k) for k in c["class_counts"]], int(c["subsets"]), ctx.seed)
            self._corpora: dict[str, corpora.Corpus] = {}
            self.specs = {}  # each attack resolved once; unknown attackers fail before the run
            for name in c["attacks"]:
                spec = self.specs[name] = attack_specs([name], ctx.registry)[0]
                if spec.attacker is None:
                    raise RobustError(f"asr-predict attacks are attackers (deepwordbug, pwws, textfooler, ...), "
                                      f"not the transform {spec.text!r}")
            self._extractor = self.extractor(ctx)  # constant for the run: recorded in every row
        elif self.stage == "fit":
            from robust.plugins.benchmarks.asr_predict.table import load_table

            self.table = load_table(self.table_path())
            least = max(6, 2 * int(c["folds"]))
            if len(self.table) < least:
                raise RobustError(f"{self.table_path()}: {len(self.table)} rows; fitting needs at least {least} "
                                  "(build more with --set stage=build --set subsets=N)")
            if len(set(self.table.family.tolist())) < 2:
                raise RobustError(f"{self.table_path()}: one corpus family; the leave-one-corpus-out protocol needs "
                                  "two or more (--set families=...)")
        else:
            from robust.plugins.benchmarks.asr_predict.predictor import load_predictor

            if not self.predictor_path().is_file():
                raise RobustError(f"no ASR predictor at {self.predictor_path()}: fit one from a regression table with "
                                  "`robust run --bench asr-predict --set stage=fit --set table=TABLE.csv` (a table "
                                  "comes from `--set stage=build`), or --set predictor=FILE")
            self.predictor = load_predictor(self.predictor_path())
            self._extractor = self.extractor(ctx)  # constant for the run
            self._mismatch = self.check_domain(ctx)
            if not ctx.data:
                raise RobustError("asr-predict needs --data: the labelled dataset whose ASR to predict "
                                  "(or --set stage=build / stage=fit)")
            self.examples = load_examples(ctx.data, ctx, text_column=c["text_column"],
                                          label_column=c["label_column"], limit=ctx.limit)
            if len({e.label for e in self.examples}) < 2:
                raise RobustError(f"{self.data_label(ctx)}: the dataset features need at least two labels")

    def check_domain(self, ctx: RunContext) -> list[str]:
        """Refuse (one line, naming both) a predictor fitted on features of other extractors, unless `force`;
        returns the differences (`domain.mismatch`) between its extractors and this run's (`self._extractor`)."""
        fitted, used = self.predictor.domain.get("extractor"), self._extractor
        differ = domain.mismatch(fitted, used)
        if not differ:
            return differ
        if self.config["force"]:
            ctx.say(f"asr-predict: forced: the predictor's features came from {domain.describe(fitted)}, this "
                    f"run's from {domain.describe(used)}; the prediction is outside its domain")
            return differ
        if not fitted:
            raise RobustError(f"{self.predictor_path()} records no feature extractor (fitted before robust recorded "
                              f"it), and this run computes features with {domain.describe(used)}: refit it with "
                              "--set stage=fit, or --set force=true to predict anyway")
        raise RobustError(f"{self.predictor_path()} was fitted on features of other extractors than this run's "
                          f"({'; '.join(differ)}): refusing to predict across feature extractors; --set force=true "
                          "to predict anyway")

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        if self.stage == "build":
            return [WorkItem(f"subset/{i:04d}", spec) for i, spec in enumerate(self.plan)]
        return [WorkItem(self.stage, None)]

    def run_item(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        if self.stage == "build":
            return self.build_row(*item.payload, ctx)
        if self.stage == "fit":
            return self.fit(ctx)
        return self.predict(ctx)

    # features -----------------------------------------------------------------------------------------------
    def features(self, train: Sequence[tuple[str, Any]], mr_test: Sequence[tuple[str, Any]], classes: Sequence[str],
                 ctx: RunContext) -> dict[str, float]:
        """The 13 features (Dang et al. 2024, §3.2 and Appendix A.2) of a training set; `mr_test` is the char-CNN
        surrogate's held-out set."""
        texts = [t for t, _ in train] + [t for t, _ in mr_test]
        embeddings = ctx.model.embed(texts)
        tokens = self._tokens(texts, ctx)
        splits = ["train"] * len(train) + ["test"] * len(mr_test)
        rows = [{"text": t, "label": str(y), "embedding": e, "tokens": k, "split": s}
                for (t, y), e, k, s in zip([*train, *mr_test], embeddings, tokens, splits)]
        scorer = ctx.create("scorer", "asr-features", mode=self.config["mode"], classes=list(classes),
                            seed=ctx.seed)
        return scorer.score(rows)

    def _tokens(self, texts: Sequence[str], ctx: RunContext) -> list[list[int]]:
        """Token ids without truncation (Dang et al. 2024, Appendix A.2): the embedder's own tokenizer, else
        MiniLM's."""
        own = self._own_tokenizer(ctx)
        tokenizer = (ctx.model if own else ctx.load_model("minilm", {"checkpoint"}, user="asr-predict")).tokenizer
        return [list(ids) for ids in tokenizer(list(texts))["input_ids"]]

    # build ----------------------------------------------------------------------------------------------------
    def corpus(self, family: str, k: int, ctx: RunContext) -> corpora.Corpus:
        key = f"{family}_{k}"
        if key not in self._corpora:
            if family == "mr":
                examples = load_examples("mr-train", ctx)
                base = corpora.indexed("mr", "mr", [e.text for e in examples], [str(e.label) for e in examples])
            else:
                base = corpora.wordnet_corpus(ctx.resource("wordnet"), family)
            self._corpora[key] = corpora.relabel(base, k, ctx.seed) if k else base
        return self._corpora[key]

    def build_row(self, family: str, k: int, index: int, ctx: RunContext) -> dict[str, Any]:
        c = self.config
        sub = corpora.sample(self.corpus(family, k, ctx), index,
                             (int(c["train_size"]), int(c["val_size"]), int(c["test_size"])), ctx.seed)
        classes = [str(i) for i in range(sub.n_classes)]
        start = time.perf_counter()
        features = self.features(sub.train, sub.mr_test, classes, ctx)
        seconds_features = time.perf_counter() - start
        start = time.perf_counter()
        victim, info = self.victim(sub, ctx)
        seconds_victim = time.perf_counter() - start
        start = time.perf_counter()
        asr = {}
        for name in c["attacks"]:
            asr[name] = self.attack_success_rate(name, victim, sub, ctx)
        seconds_attacks = time.perf_counter() - start
        record = {"dataset": sub.variant, "family": sub.family, "index": index, "features": features,
                  "extractor": dict(self._extractor),
                  "asr": asr, "target": float(np.mean(list(asr.values()))), "victim_val_accuracy": info["val_accuracy"],
                  "victim_clean_accuracy": info.get("attack_accuracy"), "seconds_features": seconds_features,
                  "seconds_victim": seconds_victim, "seconds_attacks": seconds_attacks}
        row = {"stage": "build", "texts": [t for t, _ in sub.train], "labels": [y for _, y in sub.train],
               "features": features, "asr": record["target"]}
        return add_scores([record], [row], self.extra_scorers(ctx), ctx.model)[0]

    def victim(self, sub: corpora.SubDataset, ctx: RunContext) -> tuple[Any, dict[str, float]]:
        arch = str(self.config["victim"])
        if arch in ("tiny-bert", "minilm"):
            base = ctx.load_model("minilm", {"checkpoint"}, user="asr-predict's victim").source
        elif arch.startswith("hf:"):
            base = arch[3:]
        else:
            raise RobustError(f"unknown victim {arch!r}: tiny-bert, minilm or hf:DIR_OR_ID")
        config = training.TrainConfig(epochs=int(self.config["epochs"]),
                                      lr=training.learning_rate(arch, float(self.config["lr"])),
                                      seed=ctx.seed_for("victim", self._victim_seed(ctx), sub.variant, sub.train[0][0]))
        directory, info = training.train_victim(arch, base, [t for t, _ in sub.train], [y for _, y in sub.train],
                                                [t for t, _ in sub.val], [y for _, y in sub.val], sub.n_classes, config)
        model = ctx.registry.model(f"hf:{directory}")
        model.bind(ctx)
        predictions = model.classify([t for t, _ in sub.attack]).argmax(1)
        info = {**info, "attack_accuracy": float(np.mean(predictions == np.array([y for _, y in sub.attack])))}
        return model, info

    def _victim_seed(self, ctx: RunContext) -> int:
        return ctx.seed if int(self.config["victim_seed"]) < 0 else int(self.config["victim_seed"])

    def attack_success_rate(self, name: str, victim: Any, sub: corpora.SubDataset, ctx: RunContext) -> float:
        """Dang et al. 2024, §3.3: successes / all attacked examples (every example of the attack set is attacked;
        success = the victim's prediction differs from its own original prediction)."""
        from robust import Example

        spec = self.specs[name]
        attacker = ctx.create("attacker", spec.attacker)
        transform = ctx.create("transform", spec.transform) if spec.transform else None
        own = victim.classify([t for t, _ in sub.attack]).argmax(1)
        # the untargeted goal of the paper's code: move the victim off its own prediction
        examples = [Example(f"{sub.variant}/{i}", t, str(int(p))) for i, ((t, _), p) in enumerate(zip(sub.attack, own))]
        rngs = [ctx.rng("asr-attack", self._victim_seed(ctx), name, sub.variant, ex.id) for ex in examples]
        results = attacker.attack(examples, victim, transform, 0.3, int(self.config["budget"]), rngs)
        return float(np.mean([bool(r.success) for r in results]))

    # fit ------------------------------------------------------------------------------------------------------
    def fit(self, ctx: RunContext) -> dict[str, Any]:
        from robust.plugins.benchmarks.asr_predict import protocols
        from robust.plugins.benchmarks.asr_predict.predictor import fit_predictor

        c = self.config
        ctx.say(f"asr-predict: fitting the regressors and baselines on {len(self.table)} rows under the paper's "
                f"{c['splits']} interpolation splits, {c['repeats']}x{c['folds']}-fold and leave-one-corpus-out "
                "(one item: its progress shows when it ends)")
        assessment = protocols.assess(self.table, n_splits=int(c["splits"]), k=int(c["folds"]),
                                      repeats=int(c["repeats"]), seed=ctx.seed)
        predictor = fit_predictor(self.table, seed=ctx.seed, path=self.table_path())
        predictor.meta.update(table=str(self.table_path()), **self._build_seconds())
        predictor.save(self.predictor_path())
        runs = {}
        for result in (assessment.interpolation, assessment.kfold, assessment.extrapolation):
            runs[result.protocol] = {name: {**result.summary(name), **{f"pooled_{k}": v for k, v in
                                                                         result.pooled(name).items()}}
                                     for name in result.names}
        return {"protocols": runs, "verdict": assessment.verdict.text(), "beats": assessment.verdict.beats,
                "trust": predictor.trust(), "domain": predictor.domain,
                "comparisons": [asdict(c) for c in assessment.verdict.comparisons],
                "noise": assessment.verdict.noise, "rows": len(self.table),
                "families": sorted(set(self.table.family.tolist())), "predictor": str(self.predictor_path()),
                "errors": predictor.errors}

    def _build_seconds(self) -> dict[str, float]:
        """Mean seconds per sub-dataset of the build (features vs victim + attacks), if the table has them."""
        from robust.plugins.benchmarks.asr_predict.table import read_csv

        header, rows = read_csv(self.table_path())
        if not set(TIME_COLUMNS) <= set(header):
            return {}
        col = {name: [float(r[header.index(name)]) for r in rows] for name in TIME_COLUMNS}
        return {f"mean_{name}": float(np.mean(v)) for name, v in col.items()}

    # predict --------------------------------------------------------------------------------------------------
    def predict(self, ctx: RunContext) -> dict[str, Any]:
        from robust.plugins.benchmarks.asr_predict.scorers import class_list

        start = time.perf_counter()
        labelled = [(e.text, e.label) for e in self.examples]
        classes = class_list([y for _, y in labelled], [])
        order = np.random.default_rng(ctx.seed).permutation(len(labelled))
        held = max(1, len(labelled) // 10)  # the char-CNN surrogate's held-out tenth
        train = [labelled[i] for i in order[held:]]
        mr_test = [labelled[i] for i in order[:held]]
        features = self.features(train, mr_test, classes, ctx)
        prediction = self.predictor.predict(features)[0]
        record = {"features": features, "asr": prediction.asr, "error": prediction.error, "low": prediction.low,
                  "high": prediction.high, "basis": prediction.basis, "tree_sd": prediction.tree_sd,
                  "seconds": time.perf_counter() - start, "n": len(labelled), "classes": len(classes),
                  "predictor": str(self.predictor_path()), "predictor_meta": self.predictor.meta,
                  "trust": self.predictor.trust(prediction.basis), "extractor": self._extractor,
                  "extractor_mismatch": self._mismatch,
                  "out_of_range": self.predictor.out_of_range(features),
                  "at_edge": domain.at_edge(features, self.predictor.domain.get("feature_ranges") or {})}
        row = {"stage": "predict", "texts": [t for t, _ in labelled], "labels": [y for _, y in labelled],
               "features": features, "asr": prediction.asr}
        return add_scores([record], [row], self.extra_scorers(ctx), ctx.model)[0]

    # reduce ---------------------------------------------------------------------------------------------------
    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        if self.stage == "fit":
            return self.reduce_fit(next(iter(records.values())))
        result = (self.reduce_build(records) if self.stage == "build"
                  else self.reduce_predict(next(iter(records.values()))))
        for scorer in self.extra_scorers(ctx):  # names that clash with the benchmark's get the scorer's prefix
            for key, value in summarize_scores(records.values(), [scorer]).items():
                result.summary[f"{scorer.name}: {key}" if key in result.summary else key] = value
        return result

    def reduce_build(self, records: Mapping[str, dict[str, Any]]) -> Result:
        rows = [records[k] for k in sorted(records)]
        attacks = list(rows[0]["asr"])
        header = ["Dataset", "Family", *FEATURE_KEYS, *(ASR_COLUMNS.get(a, f"ASR_{a}") for a in attacks), "ASR",
                  *TIME_COLUMNS, "victim_val_accuracy", "victim_clean_accuracy", EXTRACTOR_COLUMN]
        body = [[r["dataset"], r["family"], *(r["features"][k] for k in FEATURE_KEYS),
                 *(r["asr"][a] for a in attacks), r["target"], *(r[t] for t in TIME_COLUMNS),
                 r["victim_val_accuracy"], r["victim_clean_accuracy"], domain.encode(r.get("extractor"))]
                for r in rows]
        path = self.table_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        import csv

        with tmp.open("w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle)
            out.writerow(header)
            out.writerows(body)
        tmp.replace(path)
        seconds = {t: float(np.mean([r[t] for r in rows])) for t in TIME_COLUMNS}
        summary = {"rows": len(rows), "mean_asr": float(np.mean([r["target"] for r in rows])),
                   "sd_asr": float(np.std([r["target"] for r in rows])),
                   **{f"mean_asr_{a}": float(np.mean([r["asr"][a] for r in rows])) for a in attacks},
                   "mean_victim_clean_accuracy": float(np.mean([r["victim_clean_accuracy"] for r in rows])),
                   **{f"mean_{k}": v for k, v in seconds.items()}, "table": str(path)}
        return Result(summary, [Table("Regression table (one row per sub-dataset)", header, body)],
                      {"table": str(path)})

    def reduce_fit(self, record: Mapping[str, Any]) -> Result:
        verdict = record["verdict"].splitlines()
        tables = [Table("Verdict", ["finding"], [[line.lstrip("- ")] for line in verdict])]
        for protocol, by_name in sorted(record["protocols"].items(), key=lambda kv: protocol_rank(kv[0])):
            columns = ["model", "RMSE (mean ± sd over splits)", "R²", "pooled RMSE", "pooled R²"]
            tables.append(Table(protocol, columns, [
                [name, f"{m['rmse_mean']:.4f} ± {m['rmse_std']:.4f}", f"{m['r2_mean']:.3f}",
                 f"{m['pooled_rmse']:.4f}", f"{m['pooled_r2']:.3f}"] for name, m in by_name.items()]))
        trust = record.get("trust") or {}
        summary = {"rows": record["rows"], "features_beat_baselines": record["beats"],
                   **({"trust": trust["sentence"]} if trust else {}),
                   "verdict_statistic": POOLED_RMSE,
                   **{f"noise_{k}": v for k, v in record["noise"].items()},
                   **{f"error_{basis}_rmse": e["rmse"] for basis, e in record["errors"].items()},
                   "predictor": record["predictor"]}
        pooled = {protocol: {name: {k: m[k] for k in ("pooled_rmse", "pooled_r2", "rmse_mean", "rmse_std")}
                             for name, m in by_name.items()} for protocol, by_name in record["protocols"].items()}
        return Result(summary, tables, {"verdict": record["verdict"], "families": record["families"], "trust": trust,
                                        "protocols": pooled, "noise": record["noise"],
                                        "comparisons": record.get("comparisons", [])})

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        from robust.plugins.benchmarks.asr_predict.report import report_parts

        return report_parts(result, records)

    def reduce_predict(self, record: Mapping[str, Any]) -> Result:
        meta = record["predictor_meta"]
        trust = record.get("trust") or {}
        outside = record.get("out_of_range") or []
        mismatch = record.get("extractor_mismatch") or []
        summary = {**({"trust": trust["sentence"]} if trust else {}),
                   "predicted_asr": record["asr"], "asr_low": record["low"], "asr_high": record["high"],
                   "asr_interval": (f"95 % quantile of the predictor's cross-validated absolute errors "
                                    f"({record['basis']} basis), not the spread of its trees"),
                   "error_rmse": record["error"], "error_basis": record["basis"],
                   "features_out_of_range": ", ".join(_outside(o) for o in outside) or "none",
                   "extractor": domain.describe(record.get("extractor")),
                   **({"extractor_mismatch": "; ".join(mismatch) + " (forced)"} if mismatch else {}),
                   "seconds": record["seconds"], "n": record["n"], "classes": record["classes"]}
        saved = ""
        if "mean_seconds_victim" in meta:
            cost = meta["mean_seconds_victim"] + meta["mean_seconds_attacks"]
            summary["build_seconds"] = cost
            saved = (f" Fine-tuning and attacking took {cost:.0f} s per sub-dataset in the build "
                     f"({meta.get('rows', '?')} rows); predicting took {record['seconds']:.1f} s.")
        sentence = (f"Predicted attack success rate {record['asr']:.3f} (95 % interval {record['low']:.3f}–"
                    f"{record['high']:.3f}; cross-validated RMSE {record['error']:.3f}, {record['basis']} basis)."
                    f"{saved}")
        if trust:
            sentence = f"{trust['sentence']} {sentence}"
        if mismatch:
            fitted = ((meta.get("domain") or {}).get("extractor") or {}).get("embedder", "unknown extractors")
            used = (record.get("extractor") or {}).get("embedder", "?")
            sentence = (f"Outside the predictor's domain: it was fitted on features from {fitted}, these come from "
                        f"{used} (predicted anyway with force; every difference in the notes). {sentence}")
        if outside:
            sentence += (f" {len(outside)} feature{'s' if len(outside) > 1 else ''} outside the training range: "
                         f"{', '.join(_outside(o) for o in outside)}.")
        features = Table("Dataset features", ["feature", "value", "training range", "flag"],
                         [[k, v, _range(meta, k), _flag(k, outside, record.get("at_edge") or [])]
                          for k, v in record["features"].items()])
        return Result(summary, [Table("Prediction", ["finding"], [[sentence]]), features],
                      {"sentence": sentence, "predictor_meta": meta, "trust": trust, "out_of_range": outside,
                       "extractor_mismatch": mismatch})


def _outside(o: Mapping[str, Any]) -> str:
    return f"{o['feature']} {o['value']:.4g} (trained on {o['low']:.4g}–{o['high']:.4g})"


def _range(meta: Mapping[str, Any], feature: str) -> str:
    span = ((meta.get("domain") or {}).get("feature_ranges") or {}).get(feature)
    return f"{span[0]:.4g} – {span[1]:.4g}" if span else "unknown"


def _flag(feature: str, outside: Sequence[Mapping[str, Any]], edge: Sequence[str]) -> str:
    for o in outside:
        if o["feature"] == feature:
            return f"OUTSIDE ({o['side']})"
    return "at the edge" if feature in edge else ""
