"""A Benchmark: accuracy of a classifier when a registered transform perturbs its data at one degree."""

from robust import Benchmark, Result, Setting, Table, WorkItem, label_index, load_examples


class KeywordRobustness(Benchmark):
    name = "perturbed-accuracy"
    description = "Accuracy under one transform at one degree (robust-example's benchmark)"
    needs = frozenset({"classify"})
    default_model = "keywords"
    default_data = "tiny-reviews"
    scorers = ("accuracy",)
    settings = {"transform": Setting("leetspeak", help="a registered transform"),
                "degree": Setting(0.3, min=0.0, max=1.0)}
    chunk_size = 16

    def prepare(self, ctx):
        self.examples = load_examples(ctx.data or self.default_data, ctx, labels=ctx.model.labels, limit=ctx.limit)
        self.transform = ctx.create("transform", self.config["transform"])

    def items(self, ctx):
        return [WorkItem(ex.id, ex) for ex in self.examples]

    def run_batch(self, items, ctx):
        texts = [self.transform.apply(it.payload, self.config["degree"], ctx.rng(it.id))[0].text for it in items]
        preds = ctx.model.classify(texts).argmax(1)
        return [{"text": t, "gold": label_index(ctx.model, it.payload.label), "pred": int(p)}
                for it, t, p in zip(items, texts, preds)]

    def reduce(self, records, ctx):
        rows = list(records.values())
        summary = ctx.create("scorer", "accuracy").score(rows)
        return Result(summary, [Table("Perturbed accuracy", ["examples", "accuracy"],
                                      [[len(rows), round(summary["accuracy"], 4)]])])
