"""BYOD's clean tokenization test on real tokenizers trained here: SentencePiece (the `sentencepiece` library,
BPE and unigram, with and without whitespace normalisation), byte-level BPE and WordPiece (`tokenizers`).

The paper's invariant (§8): the chopped tokenization "still decodes to the same raw input text". The clean mode
must keep it for every family; the bare per-piece tokenization (the code for non-LLaMA models, and this
project's clean mode before the fix) must break it for SentencePiece and WordPiece (negative control)."""

from __future__ import annotations

import io
import re

import pytest

from robust.plugins.benchmarks.byod.transforms import _strip, chop, chopped_tokenization, special_affixes

MEDIA = ("Media.Vision would return to the franchise with the development of Valkyria: Azure Revolution "
         "for the PlayStation 4.")
STRIDES = (1, 3, 5)


@pytest.fixture(scope="module")
def sentences(prose) -> list[str]:
    text = " ".join(prose)
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if 20 < len(s) < 300][:1000]


def sentencepiece_tokenizer(sentences, model_type="bpe", normalise_spaces=False):
    """(tokenize with a BOS like Llama, decode) of a SentencePiece model trained on `sentences`."""
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=buf, vocab_size=600,
                                   model_type=model_type, remove_extra_whitespaces=normalise_spaces,
                                   byte_fallback=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_proto=buf.getvalue())
    return (lambda texts: [[1, *sp.encode(t)] for t in texts]), (lambda ids: sp.decode([i for i in ids if i != 1]))


def hf_tokenizers_tokenizer(sentences, family):
    from tokenizers import BertWordPieceTokenizer, ByteLevelBPETokenizer

    if family == "wordpiece":  # BERT-like: [CLS] ... [SEP] around every text, lower-cased
        tok = BertWordPieceTokenizer(lowercase=True)
        tok.train_from_iterator(sentences, vocab_size=600, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
        from tokenizers.processors import BertProcessing

        tok.post_processor = BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    else:
        tok = ByteLevelBPETokenizer()
        tok.train_from_iterator(sentences, vocab_size=600)
    return (lambda texts: [e.ids for e in tok.encode_batch(list(texts))]), tok.decode


def bare_pieces(pieces, tokenize):
    """The pre-fix clean mode: each piece tokenized bare; specials kept only at the ends (negative control)."""
    prefix, suffix = special_affixes(tokenize)
    rows = tokenize(list(pieces))
    return [i for k, r in enumerate(rows)
            for i in _strip(r, prefix if k else [], suffix if k < len(rows) - 1 else [])]


def decode_mismatches(sentences, tokenize, decode, chopper):
    bad = 0
    for text in [MEDIA, *sentences[:60]]:
        reference = decode(tokenize([text])[0])
        for stride in STRIDES:
            bad += decode(chopper(chop(text, stride), tokenize)) != reference
    return bad


def clean(pieces, tokenize):
    ids, unanchored = chopped_tokenization(pieces, tokenize, "clean")
    assert unanchored == 0
    return ids


TOKENIZERS = {
    "sentencepiece-bpe (Llama-like)": lambda s: sentencepiece_tokenizer(s, "bpe", False),
    "sentencepiece-unigram (T5-like, spaces normalised)": lambda s: sentencepiece_tokenizer(s, "unigram", True),
    "wordpiece (BERT-like)": lambda s: hf_tokenizers_tokenizer(s, "wordpiece"),
    "byte-level-bpe (GPT-2-like)": lambda s: hf_tokenizers_tokenizer(s, "bytebpe"),
}


@pytest.mark.parametrize("family", list(TOKENIZERS))
def test_clean_chopping_decodes_to_the_text_for_every_tokenizer_family(family, sentences):
    tokenize, decode = TOKENIZERS[family](sentences)
    assert decode_mismatches(sentences, tokenize, decode, clean) == 0
    prefix, suffix = special_affixes(tokenize)
    ids = clean(chop(MEDIA, 5), tokenize)
    assert ids[: len(prefix)] == prefix and sum(ids[i: i + len(prefix)] == prefix for i in range(len(ids))) == 1 \
        if prefix else True  # one BOS / [CLS], like the unchopped text
    assert ids != tokenize([MEDIA])[0]  # and the tokenization really differs


@pytest.mark.parametrize("family", [f for f in TOKENIZERS if not f.startswith("byte")])
def test_bare_pieces_break_the_text_for_sentencepiece_and_wordpiece(family, sentences):
    """Negative control: without anchoring, SentencePiece adds a "▁" (a space) before every piece and WordPiece
    starts a new word in the middle of one; byte-level BPE has no such marker, so both ways agree there."""
    tokenize, decode = TOKENIZERS[family](sentences)
    assert decode_mismatches(sentences, tokenize, decode, bare_pieces) > 60
    if family.startswith("sentencepiece-bpe"):
        assert decode(bare_pieces(chop(MEDIA, 5), tokenize)).startswith("Media .Visi on wo uld")


def test_byte_level_bpe_clean_equals_bare_pieces(sentences):
    tokenize, _ = TOKENIZERS["byte-level-bpe (GPT-2-like)"](sentences)
    for text in sentences[:50]:
        assert clean(chop(text, 5), tokenize) == bare_pieces(chop(text, 5), tokenize)
