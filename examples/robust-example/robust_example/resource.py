"""A Resource: a keyword list that `robust setup keyword-lexicon` writes once into robust's cache."""

from robust import Resource, cache_dir

WORDS = {"+": ["good", "great", "fun", "best", "love", "wonderful", "excellent", "moving"],
         "-": ["bad", "boring", "worst", "dull", "hate", "awful", "mess", "tedious"]}


class KeywordLexicon(Resource):
    name = "keyword-lexicon"
    description = "Keyword sentiment lexicon of robust-example"

    def path(self):
        return cache_dir() / "robust-example" / "keywords.txt"

    def setup(self):
        path = self.path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{sign} {word}\n" for sign, words in WORDS.items() for word in words))
        return f"keyword lexicon -> {path}"
