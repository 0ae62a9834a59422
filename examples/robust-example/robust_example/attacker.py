"""An Attacker: random search over a transform's unit edits, stopping at the first flip or the query budget."""

from robust import AttackResult, SearchAttacker, Setting, label_index, word_edits


class RandomSearch(SearchAttacker):
    name = "random-search"
    description = "Random single edits from a transform, kept one after another, until the label flips"
    access = "random"  # its column in RobTest's report
    settings = {"steps": Setting(10, min=1, help="edits tried per example")}

    def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
        rngs = rngs or [self.ctx.rng(self.name, ex.id) for ex in examples]
        golds = [label_index(model, ex.label) for ex in examples]
        texts = [ex.text for ex in examples]
        queries = [0] * len(examples)
        done = [False] * len(examples)
        for _ in range(int(self.config["steps"])):
            # one batched model call per round, over every example still under attack
            live = [i for i, d in enumerate(done) if not d and (not budget or queries[i] < budget)]
            proposals = {}
            for i in live:
                index = int(rngs[i].integers(len(texts[i].split())))
                proposals[i] = transform.edit(texts[i], index, rngs[i], examples[i].text) or texts[i]
            if not proposals:
                break
            predicted = model.classify(list(proposals.values())).argmax(1)
            for (i, text), pred in zip(proposals.items(), predicted):
                texts[i], queries[i] = text, queries[i] + 1
                done[i] = int(pred) != golds[i]
        return [AttackResult(ex.text, text, ok, used, "succeeded" if ok else
                             ("budget" if budget and used >= budget else "failed"), word_edits(ex.text, text), [text])
                for ex, text, ok, used in zip(examples, texts, done, queries)]
