"""How the recipes cut a text into words and put it back together.

- `textattack_words`: TextAttack's `words_from_text` as character spans: inside each whitespace token, runs of
  word characters (letters, digits, `_`, the homoglyphs of DeepWordBug's table and `'-*@`), with `'-_*@`
  stripped from both ends of the token and of each run. Replacing a word keeps the rest of the text as it was,
  as TextAttack's `AttackedText.replace_word_at_index` does.
- `wordpunct`: NLTK's WordPunct tokenization (runs of word characters, runs of other non-space characters), as
  OpenAttack's default English tokenizer (which splits sentences with punkt first: that changes the tokens only
  where a run of punctuation spans a sentence boundary; not done here); OpenAttack detokenizes by joining tokens
  with single spaces (`Tokens.spaced`), robust's clean mode rebuilds the original text around the replaced tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property

from robust.plugins.recipes.charset import HOMOGLYPHS
from robust.toolkit.search import masked_between, single_spaces

_EDGES = "'-_*@"
_WORDPUNCT = re.compile(r"\w+|[^\w\s]+")


@cache
def _ta_run() -> re.Pattern[str]:
    """A run of TextAttack's word characters, homoglyphs included (compiled on first use: `\\w` beside non-ASCII
    characters takes `re` 4-6 ms to compile, which every `robust list` would pay)."""
    return re.compile("[\\w" + re.escape("".join(HOMOGLYPHS.values()) + _EDGES) + "]+")


@dataclass(frozen=True)
class Tokens:
    """A text, the spans of its tokens, and how a token list becomes text again (`spaced`: OpenAttack's
    single-space join; otherwise the original text with the spans replaced)."""

    text: str
    spans: tuple[tuple[int, int], ...]
    spaced: bool = False

    @property
    def words(self) -> list[str]:
        return [self.text[a:b] for a, b in self.spans]

    def __len__(self) -> int:
        return len(self.spans)

    @cached_property
    def _gaps(self) -> tuple[str, ...]:
        """The text before each token, between tokens, and after the last one (len(spans) + 1 pieces)."""
        ends = [0, *(b for _, b in self.spans)]
        starts = [*(a for a, _ in self.spans), len(self.text)]
        return tuple(self.text[b:a] for b, a in zip(ends, starts, strict=True))

    def render(self, tokens: Sequence[str]) -> str:
        """The text with these tokens in place of the original ones (same number of tokens)."""
        if self.spaced:
            return " ".join(tokens)
        if len(tokens) != len(self.spans):
            raise ValueError(f"{len(tokens)} tokens for a text of {len(self.spans)}")
        gaps = self._gaps
        return "".join([piece for pair in zip(gaps, tokens) for piece in pair]) + gaps[-1]

    def _around(self, tokens: Sequence[str]) -> tuple[str, ...]:
        """The gaps `render` puts around `tokens`: single spaces (`spaced`), or the original text's."""
        return single_spaces(len(tokens)) if self.spaced else self._gaps

    def masked(self, tokens: Sequence[str], mask: str, indices: Iterable[int] | None = None) -> list[str]:
        """`render` of `tokens` with each token (or each of `indices`) replaced by `mask` in turn: leave-one-out
        word importance's queries, the text around each token built once for all of them (`masked_between`)."""
        gaps = self._around(tokens)
        if len(tokens) != len(gaps) - 1:
            raise ValueError(f"{len(tokens)} tokens for a text of {len(self.spans)}")
        return masked_between(tokens, gaps, mask, indices)

    def replacing(self, tokens: Sequence[str], index: int, news: Sequence[str]) -> list[str]:
        """`render` of `tokens` with token `index` replaced by each of `news` in turn: the text around the token is
        rendered once, so a candidate costs one concatenation."""
        if not news:
            return []
        gaps = self._around(tokens)
        before = "".join([piece for pair in zip(gaps, tokens[:index]) for piece in pair]) + gaps[index]
        after = gaps[index + 1] + "".join([piece for pair in zip(tokens[index + 1:], gaps[index + 2:])
                                           for piece in pair])
        return [before + new + after for new in news]


def textattack_words(text: str, spaced: bool = False) -> Tokens:
    """TextAttack's words of `text` (words_from_text, as spans). TextAttack strips `'-_*@` from each whitespace
    token's ends, then from each run of word characters in it; those characters are word characters and no run
    crosses whitespace, so stripping each run of the whole text gives the same words (in one pass: 27 -> 11 µs a
    sentence of MR's)."""
    spans = []
    for run in _ta_run().finditer(text):
        piece = run.group()
        core = piece.strip(_EDGES)
        if core:
            a = run.start() + len(piece) - len(piece.lstrip(_EDGES))
            spans.append((a, a + len(core)))
    return Tokens(text, tuple(spans), spaced)


def wordpunct(text: str, spaced: bool = False) -> Tokens:
    """NLTK's WordPunct tokens of `text` (`\\w+|[^\\w\\s]+`), as spans."""
    return Tokens(text, tuple(m.span() for m in _WORDPUNCT.finditer(text)), spaced)


def replaced(tokens: Sequence[str], index: int, new: str) -> list[str]:
    """A copy of `tokens` with token `index` replaced by `new`."""
    out = list(tokens)
    out[index] = new
    return out

