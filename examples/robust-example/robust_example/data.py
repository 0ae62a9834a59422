"""A DataGenerator: short labelled reviews built from the keyword lists, deterministic for a seed."""

from robust import DataGenerator, Example, Setting, rng_for
from robust_example.resource import WORDS


class TinyReviews(DataGenerator):
    name = "tiny-reviews"
    description = "Short synthetic movie reviews with a positive or negative keyword majority"
    settings = {"n": Setting(40, min=2, help="number of reviews")}

    def examples(self, seed=0):
        rng = rng_for(seed, self.name)
        for i in range(self.config["n"]):
            label = "positive" if i % 2 == 0 else "negative"
            major, minor = (WORDS["+"], WORDS["-"]) if label == "positive" else (WORDS["-"], WORDS["+"])
            picks = [major[int(j)] for j in rng.integers(len(major), size=2)] + [minor[int(rng.integers(len(minor)))]]
            yield Example(f"tiny-{i:03d}", f"the film was {picks[0]} and {picks[1]} but the ending was {picks[2]}",
                          label)
