"""A rule-based English paraphraser: structure-changing rules on spaCy's dependency parse (clause reordering,
active<->passive, adjunct fronting, it-clefts, wh-clefts, framing phrases), applied once and composed once. The
offline paraphraser of RobTest's Syntax dimension (robust.plugins.attacks.syntax), usable on its own:
`rule_paraphrases(text)` gives (paraphrase, rule names) pairs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from robust.toolkit.transforms import FOR_PARAPHRASES, SPACY

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

CONCESSIVE = {"although", "though", "whereas", "while"}  # trailing, they follow a comma
SUBORDINATORS = {"because", "although", "though", "while", "when", "whenever", "if", "unless", "since",
                 "after", "before", "until", "once", "whereas", "as soon as"}
TIME_ADVERBS = {"yesterday", "today", "tomorrow", "tonight", "now", "then", "later", "recently", "sometimes",
                "often", "eventually", "finally", "again", "lately", "soon"}
TO_OBJECT = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them", "who": "whom"}
TO_SUBJECT = {v: k for k, v in TO_OBJECT.items() if k != "who"}
# sentence adverbs that can open the sentence without changing its meaning
SENTENCE_ADVERBS = {"ultimately", "finally", "eventually", "unfortunately", "fortunately", "clearly", "obviously",
                    "sadly", "thankfully", "surely", "certainly", "frankly", "basically", "essentially",
                    "generally", "usually", "often", "sometimes", "occasionally", "undoubtedly", "apparently",
                    "admittedly", "arguably", "oddly", "ironically", "perhaps", "probably", "honestly"}
# verbs that do not passivise ("the film lacks balance" -/-> "balance is lacked by the film")
STATIVE = {"have", "be", "get", "lack", "resemble", "fit", "suit", "cost", "weigh", "equal", "become", "mean",
           "let", "seem", "own"}
PLURAL_PRONOUNS = {"we", "they", "you", "us", "them", "these", "those"}


class NotMovable(Exception):
    """A phrase whose subtree is not a contiguous part of the sentence body."""


# --- building sentences from tokens ------------------------------------------------------------------
class Clause:
    """One parsed sentence split into body and final punctuation, with helpers to rebuild text."""

    def __init__(self, sent: Span) -> None:
        tokens = list(sent)
        stop = len(tokens)
        while stop > 1 and tokens[stop - 1].is_space:  # "\n" tokens stay trailing whitespace
            stop -= 1
        self.tail = "".join(t.text_with_ws for t in tokens[stop - 1:])[len(tokens[stop - 1].text):]
        end = stop
        while end > 1 and tokens[end - 1].is_punct and tokens[end - 1].dep_ == "punct":
            end -= 1
        self.sent = sent
        self.body: list[Token] = tokens[:end]
        self.punct: list[Token] = tokens[end:stop]
        self.root: Token = sent.root
        self.upper = bool(tokens[0].text[:1].isupper())
        self.first = tokens[0]
        # tokenised corpora (SST/MR: "film ." ) put a space before punctuation; keep that style
        self.comma = " ," if self.punct and tokens[end - 1].whitespace_ else ","
        self._kids: dict[int, list[tuple[str, Token]]] = {}  # each head's (dependency, child): the rules ask often
        self._spans: dict[int, list[Token] | None] = {}  # each token's `span` (None: not movable), as often asked

    @property
    def start(self) -> int:
        return self.body[0].i

    @property
    def end(self) -> int:  # index after the last body token
        return self.body[-1].i + 1

    def word(self, token: Token) -> str:
        """Token text, de-capitalised when the sentence-initial word moves away from the front."""
        text = token.text
        movable = token.pos_ != "PROPN" or token.is_stop
        if token.i == self.first.i and movable and text != "I" and not (len(text) > 1 and text.isupper()):
            return text[:1].lower() + text[1:]
        return text

    def text(self, tokens: Iterable[Token]) -> str:
        tokens = list(tokens)
        if not tokens:
            return ""
        return "".join(self.word(t) + t.whitespace_ for t in tokens[:-1]) + self.word(tokens[-1])

    def span(self, token: Token) -> list[Token]:
        """The token's subtree as a contiguous token list (a crossing parse cannot be moved safely)."""
        if token.i not in self._spans:
            span = [t for t in self.body if token.left_edge.i <= t.i <= token.right_edge.i]
            inside = sum(1 for t in token.subtree if not t.is_space and t.i < self.end)  # final "." may hang here
            self._spans[token.i] = None if len(span) != inside or len(span) == len(self.body) else span
        span = self._spans[token.i]
        if span is None:
            raise NotMovable(token.text)
        return list(span)

    def finish(self, pieces: Sequence[str]) -> str:
        """Join rebuilt pieces, restore sentence case, final punctuation and trailing whitespace."""
        out = " ".join(p for p in pieces if p)
        if self.upper:
            out = out[:1].upper() + out[1:]
        if self.punct:
            gap = self.body[-1].whitespace_
            out += gap + "".join(t.text_with_ws for t in self.punct[:-1]) + self.punct[-1].text
        return out + self.tail

    def children(self, dep: str | set[str], token: Token | None = None) -> list[Token]:
        deps = {dep} if isinstance(dep, str) else dep
        head = token or self.root
        kids = self._kids.get(head.i)
        if kids is None:
            kids = self._kids[head.i] = [(c.dep_, c) for c in head.children]
        return [c for d, c in kids if d in deps]

    def without(self, drop: Iterable[Token]) -> list[Token]:
        gone = {t.i for t in drop}
        return [t for t in self.body if t.i not in gone]

    def finite(self) -> bool:
        """The main verb is tensed (not a fragment like "paul bettany playing malcolm mcdowell")."""
        return self.root.tag_ in {"VBD", "VBZ", "VBP"} or bool(self.children({"aux", "auxpass"}))

    def past(self) -> bool:
        return self.root.tag_ == "VBD" or any(a.tag_ == "VBD" for a in self.children({"aux", "auxpass"}))


def _strip_commas(tokens: list[Token]) -> list[Token]:
    while tokens and tokens[-1].text == ",":
        tokens = tokens[:-1]
    while tokens and tokens[0].text == ",":
        tokens = tokens[1:]
    return tokens


def _plural(head: Token) -> bool:
    return head.tag_ in {"NNS", "NNPS"} or head.lower_ in PLURAL_PRONOUNS or any(
        c.dep_ == "conj" for c in head.children)


def _be(subject: Token, past: bool) -> str:
    if subject.lower_ in {"i", "me"}:
        return "was" if past else "am"
    if _plural(subject):
        return "were" if past else "are"
    return "was" if past else "is"


def _have(subject: Token, past: bool) -> str:
    if past:
        return "had"
    return "have" if _plural(subject) or subject.lower_ in {"i", "me"} else "has"


def _inflect(token: Token, tag: str) -> str | None:
    from lemminflect import getInflection

    forms = getInflection(token.lemma_, tag=tag)
    return forms[0] if forms else None


def _noun_phrase(clause: Clause, head: Token, case: dict[str, str]) -> str:
    """A moved argument; a bare pronoun switches case (he -> him), other words keep their text."""
    if head.tag_ == "PRP" and head.left_edge.i == head.right_edge.i and head.lower_ in case:
        return case[head.lower_]
    return clause.text(clause.span(head))


def _has_brackets(tokens: Iterable[Token]) -> bool:
    return any(t.is_bracket or t.is_quote for t in tokens)


def _negation(token: Token) -> str:
    return "not" if token.lower_ == "n't" else token.text


def _clean_verb_group(tokens: Iterable[Token]) -> bool:
    """Contractions ('ll, n't, 's) are left alone: rebuilding them is error-prone."""
    return all(not (t.text.startswith("'") or t.lower_ in {"ca", "wo"}) for t in tokens)


# --- the rules: each maps a parsed sentence to one paraphrase or None ----------------------------------
def _verb_group(middle: Sequence[Token]) -> tuple[list[str], list[str], list[str], bool, bool]:
    """The words between subject and main verb: negations, adverbs, modals, and whether a perfect
    ("have") or progressive ("be") auxiliary is among them."""
    auxes = [t for t in middle if t.dep_ == "aux"]
    negs = [_negation(t) for t in middle if t.dep_ == "neg"]
    adverbs = [t.text for t in middle if t.dep_ == "advmod"]
    modal = [t.text for t in auxes if t.tag_ == "MD"]
    return (negs, adverbs, modal, any(t.lemma_ == "have" for t in auxes), any(t.lemma_ == "be" for t in auxes))


def clause_to_front(c: Clause) -> str | None:
    """"I stayed home because it rained." -> "Because it rained, I stayed home." """
    for clause in c.children("advcl"):
        marks = [m.lower_ for m in c.children("mark", clause)]
        span = c.span(clause)
        if clause.i < c.root.i or not marks or marks[0] not in SUBORDINATORS or span[-1].i + 1 != c.end:
            continue
        main = _strip_commas([t for t in c.body if t.i < span[0].i])
        return c.finish([c.text(span) + c.comma, c.text(main)])
    return None


def clause_to_back(c: Clause) -> str | None:
    """"Although the plot is thin, the acting is good." -> "The acting is good, although the plot is thin." """
    for clause in c.children("advcl"):
        marks = [m.lower_ for m in c.children("mark", clause)]
        span = c.span(clause)
        if clause.i > c.root.i or not marks or marks[0] not in SUBORDINATORS or span[0].i != c.start:
            continue
        if span[-1].i + 1 >= c.end or c.body[span[-1].i + 1 - c.start].text != ",":
            continue  # the clause must end at its comma, or the parse is not trustworthy
        main = _strip_commas([t for t in c.body if t.i > span[-1].i])
        comma = c.comma if marks[0] in CONCESSIVE else ""  # "the acting is good, although the plot is thin"
        return c.finish([c.text(main) + comma, c.text(span)])
    return None


def but_to_although(c: Clause) -> str | None:
    """"The plot is thin, but the acting is good." -> "Although the plot is thin, the acting is good." """
    if _simple_clause(c) is None:
        return None
    ccs = [t for t in c.children("cc") if t.lower_ == "but" and t.i > c.root.i]
    conjs = [t for t in c.children("conj") if ccs and t.i > ccs[0].i and t.pos_ in {"VERB", "AUX"}
             and any(ch.dep_ in {"nsubj", "nsubjpass"} for ch in t.children)]
    if len(ccs) != 1 or len(conjs) != 1:
        return None
    second = c.span(conjs[0])
    if second[-1].i + 1 != c.end or second[0].i != ccs[0].i + 1:
        return None
    first = _strip_commas([t for t in c.body if t.i < ccs[0].i])
    return c.finish(["although", c.text(first) + c.comma, c.text(second)])


def adverb_to_front(c: Clause) -> str | None:
    """"The film is ultimately a failure." -> "Ultimately, the film is a failure." """
    subject = _simple_clause(c)
    adverbs = [t for t in c.children("advmod") if t.lower_ in SENTENCE_ADVERBS and not list(t.children)]
    if subject is None or len(adverbs) != 1 or adverbs[0].i < subject.right_edge.i:
        return None
    rest = [t for t in c.body if t.i != adverbs[0].i]
    if len(rest) < 2 or rest[-1].text == ",":
        return None
    return c.finish([adverbs[0].text + c.comma, c.text(rest)])


def _subject(c: Clause, dep: str) -> Token | None:
    subjects = c.children(dep)
    return subjects[0] if c.finite() and len(subjects) == 1 and subjects[0].i < c.root.i else None


def _simple_phrase(c: Clause, head: Token) -> bool:
    """A noun phrase without clauses or punctuation inside or right after it (safe to move)."""
    span = c.span(head)
    after = c.body[span[-1].i + 1 - c.start] if span[-1].i + 1 < c.end else None
    inside = all(t.pos_ not in {"VERB", "AUX"} and not t.is_punct for t in span)
    return inside and not (after is not None and after.is_punct)


def _simple_clause(c: Clause) -> Token | None:
    """The subject of a plain declarative clause: a finite main verb whose subject opens the sentence and is
    followed only by auxiliaries, negation and adverbs before the verb; None otherwise."""
    subject = _subject(c, "nsubj") or _subject(c, "nsubjpass")
    if subject is None or subject.left_edge.i != c.start:
        return None
    span = c.span(subject)
    middle = [t for t in c.body if span[-1].i < t.i < c.root.i]
    if any(t.dep_ not in {"aux", "auxpass", "neg", "advmod"} for t in middle):
        return None
    return subject


def _final_adjunct(c: Clause) -> list[Token] | None:
    """A sentence-final PP or temporal adverbial attached to the main verb, if any."""
    if c.root.pos_ not in {"VERB", "AUX"} or _simple_clause(c) is None:
        return None
    for child in reversed(list(c.root.rights)):
        if child.right_edge.i + 1 != c.end:
            continue
        ok = (child.dep_ == "prep" and child.lower_ not in {"of", "than"} and c.children("pobj", child)) or (
            child.dep_ == "npadvmod") or (child.dep_ == "advmod" and child.lower_ in TIME_ADVERBS)
        span = c.span(child)
        if ok and span[0].i > c.root.i and len(span) <= 8 and not any(
                t.pos_ in {"VERB", "AUX"} or t.is_punct for t in span):
            return span
        return None
    return None


def adjunct_to_front(c: Clause) -> str | None:
    """"She reads books in the evening." -> "In the evening, she reads books." """
    span = _final_adjunct(c)
    if span is None:
        return None
    main = _strip_commas([t for t in c.body if t.i < span[0].i])
    return c.finish([c.text(span) + c.comma, c.text(main)]) if main else None


def adjunct_cleft(c: Clause) -> str | None:
    """"She reads books in the evening." -> "It is in the evening that she reads books." """
    span = _final_adjunct(c)
    if span is None:
        return None
    main = _strip_commas([t for t in c.body if t.i < span[0].i])
    be = "was" if c.past() else "is"
    return c.finish(["it", be, c.text(span), "that", c.text(main)]) if main else None


def subject_cleft(c: Clause) -> str | None:
    """"The critics praised the film." -> "It was the critics that praised the film." """
    subject = _simple_clause(c)
    if subject is None or subject.pos_ not in {"NOUN", "PROPN"} or not _simple_phrase(c, subject):
        return None
    span = c.span(subject)
    rest = [t for t in c.body if t.i > span[-1].i]
    if rest[0].text.startswith("'"):  # "that's" -> "it is that that 's"
        return None
    be = "was" if c.past() else "is"
    return c.finish(["it", be, c.text(span), "that", c.text(rest)])


def wh_cleft(c: Clause) -> str | None:
    """"The critics praised the film." -> "What the critics praised was the film." """
    subject, objects = _simple_clause(c), c.children("dobj")
    if subject is None or len(objects) != 1 or c.root.pos_ != "VERB" or objects[0].tag_ in {"PRP", "WP"}:
        return None
    span = c.span(objects[0])
    if span[-1].i + 1 != c.end or span[0].i <= c.root.i:
        return None
    head = [t for t in c.body if t.i < span[0].i]
    return c.finish(["what", c.text(head), "was" if c.past() else "is", c.text(span)])


def active_to_passive(c: Clause) -> str | None:
    """"The critics praised the film." -> "The film was praised by the critics." """
    root, subject, objects = c.root, _subject(c, "nsubj"), c.children("dobj")
    if (subject is None or len(objects) != 1 or root.pos_ != "VERB"
            or c.children({"auxpass", "dative", "conj"}) or root.lemma_ in STATIVE
            or objects[0].tag_ in {"WP", "WDT"}
            or subject.tag_ in {"WP", "WDT", "EX"} or subject.lower_ in {"it", "this", "that"}  # "by it"
            or c.sent.text.rstrip().endswith("?")):
        return None
    obj, subj_span = objects[0], c.span(subject)
    obj_span = c.span(obj)
    if _has_brackets(subj_span) or _has_brackets(obj_span):
        return None
    middle = [t for t in c.body if subj_span[-1].i < t.i < root.i]
    particles = c.children("prt")
    if obj_span[0].i < root.i or not _clean_verb_group(middle) or any(
            t.dep_ not in {"aux", "neg", "advmod"} for t in middle):
        return None
    participle = _inflect(root, "VBN")
    if participle is None:
        return None
    past = c.past()
    negs, adverbs, modal, has_have, progressive = _verb_group(middle)
    if modal:
        group = [modal[0], *negs, *(["have", "been"] if has_have else ["be"])]
    elif has_have:
        group = [_have(obj, past), *negs, "been"]
    elif progressive:
        group = [_be(obj, past), *negs, "being"]
    else:
        group = [_be(obj, past), *negs]
    skip = {t.i for t in [*subj_span, *middle, root, *obj_span, *particles]}
    before = [t for t in c.body if t.i < subj_span[0].i]
    after = [t for t in c.body if t.i > root.i and t.i not in skip]
    return c.finish([c.text(before), _noun_phrase(c, obj, TO_SUBJECT), *group, *adverbs, participle,
                     *(p.text for p in particles), "by", _noun_phrase(c, subject, TO_OBJECT), c.text(after)])


def passive_to_active(c: Clause) -> str | None:
    """"The film was praised by the critics." -> "The critics praised the film." """
    root, subject, agents = c.root, _subject(c, "nsubjpass"), c.children("agent")
    if subject is None or len(agents) != 1 or root.tag_ != "VBN" or not c.children("auxpass"):
        return None
    agent_objects = c.children("pobj", agents[0])
    if len(agent_objects) != 1:
        return None
    new_subject, subj_span, agent_span = agent_objects[0], c.span(subject), c.span(agents[0])
    if _has_brackets(subj_span) or _has_brackets(agent_span):
        return None
    middle = [t for t in c.body if subj_span[-1].i < t.i < root.i]
    if agent_span[0].i < root.i or not _clean_verb_group(middle) or any(
            t.dep_ not in {"aux", "auxpass", "neg", "advmod"} for t in middle):
        return None
    past = c.past()
    negs, adverbs, modal, has_have, progressive = _verb_group(middle)
    third_singular = not _plural(new_subject) and new_subject.lower_ not in {"i", "me", "you"}
    if modal:
        group = [modal[0], *negs, *(["have"] if has_have else []), *adverbs,
                 _inflect(root, "VBN" if has_have else "VB")]
    elif has_have:
        group = [_have(new_subject, past), *negs, *adverbs, _inflect(root, "VBN")]
    elif progressive:
        group = [_be(new_subject, past), *negs, *adverbs, _inflect(root, "VBG")]
    elif "not" in negs:
        do = "did" if past else ("does" if third_singular else "do")
        group = [do, "not", *adverbs, _inflect(root, "VB")]
    else:  # "was never praised" -> "never praised"
        group = [*negs, *adverbs, _inflect(root, "VBD" if past else ("VBZ" if third_singular else "VBP"))]
    if None in group:
        return None
    skip = {t.i for t in [*subj_span, *middle, root, *agent_span]}
    before = [t for t in c.body if t.i < subj_span[0].i]
    after = [t for t in c.body if t.i > root.i and t.i not in skip]
    particles = [t for t in after if t.dep_ == "prt"]
    after = [t for t in after if t.dep_ != "prt"]
    return c.finish([c.text(before), _noun_phrase(c, new_subject, TO_SUBJECT), *group,
                     *(p.text for p in particles), _noun_phrase(c, subject, TO_OBJECT), c.text(after)])


def _frame(words: str, clause_only: bool = False) -> Callable[[Clause], str | None]:
    """A rule that opens the sentence with a framing phrase, as SCPN's PP-initial template does (the paper's
    example: "In my eyes will be a witty, sweet romantic comedy."); `clause_only`: tensed clauses only."""

    def rule(c: Clause) -> str | None:
        # an expletive ("there's a ...") or a clausal subject (and spaCy's csubj misparse of "majidi is ...") counts
        subject = next(filter(None, (_subject(c, dep) for dep in ("nsubj", "nsubjpass", "expl", "csubj"))), None)
        if c.sent.start != 0 or (clause_only and not (c.finite() and subject is not None)):
            return None  # the text's first sentence only (spaCy splits "ms . bullock" mid-sentence)
        if c.punct and c.punct[-1].text == "?":
            return None  # "as far as i can tell , do you say ...?", "in my view , under 15 ?"
        if subject is None and c.root.pos_ in {"VERB", "AUX"}:
            return None  # "in my view , confirms the suspicion ..." frames a subjectless fragment
        opener = c.first.text.lower()
        if opener in {"in", "to", "as", "i"} | SUBORDINATORS or c.first.is_punct:
            return None  # already framed, or would stack two openers ("i think although ...")
        comma = "" if clause_only else c.comma
        phrase = words.replace(" i ", " I ") if c.upper else words
        return c.finish([phrase + comma, c.text(c.body)])

    rule.__doc__ = f'"The film is fun." -> "{words}{"" if clause_only else ","} the film is fun."'
    return rule


def fragment_to_clause(c: Clause) -> str | None:
    """"A charming romp." -> "It is a charming romp." (a verbless noun-phrase fragment becomes a clause)"""
    if c.root.pos_ not in {"NOUN", "PROPN"} or any(t.pos_ in {"VERB", "AUX"} for t in c.body):
        return None
    if c.first.pos_ != "DET" or c.sent.start != 0:
        return None  # "good movie ." -/-> "it is good movie ."
    return c.finish(["it is", c.text(c.body)])


FRAMES = {"frame_view", "frame_tell", "frame_think"}
CLEFTS = {"subject_cleft", "adjunct_cleft", "wh_cleft"}
INVERSES = {("active_to_passive", "passive_to_active"), ("passive_to_active", "active_to_passive"),
            ("clause_to_front", "clause_to_back"), ("clause_to_back", "clause_to_front"),
            ("adjunct_to_front", "adjunct_cleft"), ("adjunct_cleft", "adjunct_to_front")}

RULES: dict[str, Callable[[Clause], str | None]] = {
    "clause_to_front": clause_to_front,
    "clause_to_back": clause_to_back,
    "but_to_although": but_to_although,
    "adverb_to_front": adverb_to_front,
    "adjunct_to_front": adjunct_to_front,
    "adjunct_cleft": adjunct_cleft,
    "subject_cleft": subject_cleft,
    "wh_cleft": wh_cleft,
    "active_to_passive": active_to_passive,
    "passive_to_active": passive_to_active,
    "fragment_to_clause": fragment_to_clause,
    "frame_view": _frame("in my view"),
    "frame_tell": _frame("as far as i can tell"),
    "frame_think": _frame("i think", clause_only=True),
}


def rule_paraphrases(
    text: str, rules: Sequence[str] = tuple(RULES), compose: bool = True
) -> list[tuple[str, str]]:
    """(paraphrase, rule names) for every rule that applies to a sentence of `text`, then once more on each
    result (two-step compositions such as passive + adjunct fronting), in a deterministic order."""
    return rule_paraphrases_many([text], rules, compose)[0]


def rule_paraphrases_many(
    texts: Sequence[str], rules: Sequence[str] = tuple(RULES), compose: bool = True
) -> list[list[tuple[str, str]]]:
    """`rule_paraphrases` of many texts, parsed in two spaCy `pipe` batches (the texts, then their paraphrases)."""
    nlp = SPACY.get()
    found: list[dict[str, str]] = [{} for _ in texts]
    firsts = [_expand(doc, text, "", rules, seen)
              for doc, text, seen in zip(nlp.pipe(texts, disable=FOR_PARAPHRASES), texts, found, strict=True)]
    if compose:
        todo = [(k, paraphrase, name) for k, first in enumerate(firsts) for paraphrase, name in first
                if name not in CLEFTS]  # a cleft is a finished construction
        for doc, (k, _, name) in zip(nlp.pipe([t[1] for t in todo], disable=FOR_PARAPHRASES), todo, strict=True):
            _expand(doc, texts[k], name, rules, found[k])
    return [list(seen.items()) for seen in found]


def _expand(doc: Any, text: str, history: str, rules: Sequence[str], found: dict[str, str]) -> list[tuple[str, str]]:
    """The new paraphrases of `text` made by one more rule on a sentence of `doc` (`text` after the rules in
    `history`), added to `found` (paraphrase -> rule names) in a deterministic order."""
    out = []
    for sent in doc.sents:
        clause = Clause(sent)
        if len(clause.body) < 2:
            continue
        for name in rules:
            done = history.split("+")
            if name in done or (done[-1], name) in INVERSES or (name in FRAMES and FRAMES & set(done)):
                continue
            try:
                new = RULES[name](clause)
            except NotMovable:
                continue
            if not new or new == sent.text_with_ws:
                continue
            paraphrase = doc[: sent.start].text_with_ws + new + doc[sent.end:].text_with_ws
            if paraphrase != text and paraphrase not in found:
                found[paraphrase] = f"{history}+{name}" if history else name
                out.append((paraphrase, found[paraphrase]))
    return out
