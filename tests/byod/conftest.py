"""Fixtures for the BYOD tests: tiny random causal LMs saved to disk (loaded through `hf:<dir>`) and a
small prose corpus from the standard library (no downloads)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from robust.core.context import RunContext
from robust.core.plugins import get_registry

BADWORDS = Path("/work/shared/data/byod/ldnoobw-en.txt")


def _prose_paragraphs() -> list[str]:
    from pydoc_data.topics import topics

    paragraphs = []
    for text in topics.values():
        for block in re.split(r"\n\s*\n", text):
            line = " ".join(block.split())
            if line.count(". ") >= 3 and not block.startswith(" ") and len(line.split()) > 30:
                paragraphs.append(line)
    return paragraphs


@pytest.fixture(scope="session")
def prose() -> list[str]:
    return _prose_paragraphs()


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory, prose) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n\n".join(prose[:120]) + "\n")
    return path


def _tokenizer(prose: list[str], bos: bool):
    from tokenizers import ByteLevelBPETokenizer
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    tok = ByteLevelBPETokenizer()
    specials = ["<|endoftext|>", "<s>"]
    tok.train_from_iterator(prose + ["fuck shit damn"] * 20, vocab_size=600, special_tokens=specials)
    if bos:
        tok.post_processor = TemplateProcessing(single="<s> $A", special_tokens=[("<s>", tok.token_to_id("<s>"))])
        return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="<|endoftext|>",
                                       pad_token="<|endoftext|>")
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>")


def save_tiny_lm(path: Path, prose: list[str], arch: str = "gpt2", seed: int = 0) -> Path:
    """A random 2-layer causal LM with a 600-token byte-level BPE; 'llama' adds a BOS to every text."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    tok = _tokenizer(prose, bos=arch == "llama")
    if arch == "llama":
        cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                          bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
        model = LlamaForCausalLM(cfg)
    else:
        cfg = GPT2Config(vocab_size=len(tok), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                         eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id)
        model = GPT2LMHeadModel(cfg)
    with torch.no_grad():  # sharper than the default init, so distributions differ visibly between inputs
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(8.0)
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def gpt2_dir(tmp_path_factory, prose) -> Path:
    return save_tiny_lm(tmp_path_factory.mktemp("tiny-gpt2"), prose, "gpt2")


@pytest.fixture(scope="session")
def llama_dir(tmp_path_factory, prose) -> Path:
    return save_tiny_lm(tmp_path_factory.mktemp("tiny-llama"), prose, "llama")


def make_model(path: Path, **config):
    return get_registry().model(f"hf:{path}", **config)


def make_ctx(model, data=None, limit=None, seed=0) -> RunContext:
    return RunContext(run_id="test", seed=seed, model=model, registry=get_registry(),
                      data=None if data is None else str(data), limit=limit)
