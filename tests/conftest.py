"""Shared fixtures: one torch thread, an isolated run store, third-party plugins on demand, tiny causal LMs
saved to disk (loaded through `hf:<dir>`) and a small prose corpus from the standard library (no downloads)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PLUGIN_PACKAGES = Path(__file__).parent / "plugin_packages"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHARED = Path(__file__).resolve().parents[2] / "shared"


# folders whose session fixtures start servers or a Ray cluster: under pytest-xdist each runs on one worker
ONE_WORKER = ("served", "ray")


def pytest_collection_modifyitems(config, items):
    """Group tests for pytest-xdist's `--dist loadgroup`: a file's tests run on one worker (its module fixtures are
    made once), and so do a whole ONE_WORKER folder's (its servers or Ray start once). Without xdist: no effect."""
    root = Path(__file__).parent
    for item in items:
        parts = Path(item.path).relative_to(root).parts
        item.add_marker(pytest.mark.xdist_group(parts[0] if parts[0] in ONE_WORKER else "/".join(parts)))


def pytest_configure(config):
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def install_plugin(package: str, site: Path) -> None:
    """Expose a plugin package (a folder of tests/plugin_packages, or of examples/) as an installed
    distribution in `site`: its dist-info with entry points, and its modules and packages."""
    src = PLUGIN_PACKAGES / package if (PLUGIN_PACKAGES / package).is_dir() else EXAMPLES / package
    project = tomllib.loads((src / "pyproject.toml").read_text())["project"]
    dist = f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    (site / dist).mkdir(parents=True, exist_ok=True)
    (site / dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    eps = project.get("entry-points", {})
    lines = [f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in items.items()) for group, items in eps.items()]
    (site / dist / "entry_points.txt").write_text("\n".join(lines))
    for module in src.glob("*.py"):
        shutil.copy(module, site / module.name)
    for pkg in (p.parent for p in src.glob("*/__init__.py")):
        shutil.copytree(pkg, site / pkg.name, dirs_exist_ok=True)


@pytest.fixture
def plugin_site(tmp_path):
    """A function installing plugin packages into a fresh site dir; returns that dir."""
    site = tmp_path / "site"
    site.mkdir()

    def install(*packages: str) -> Path:
        for package in packages:
            install_plugin(package, site)
        return site

    return install


@pytest.fixture
def cli(tmp_path):
    """Run `robust ARGS` in a subprocess with its own store; returns CompletedProcess."""

    def run(*args: str, site: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300):
        full_env = {**os.environ, "ROBUST_HOME": str(tmp_path / "home"), **(env or {})}
        if site is not None:
            full_env["PYTHONPATH"] = os.pathsep.join([str(site), full_env.get("PYTHONPATH", "")])
        return subprocess.run([sys.executable, "-m", "robust", *args], capture_output=True, text=True,
                              env=full_env, timeout=timeout, cwd=tmp_path)

    return run


def error_lines(stderr: str) -> list[str]:
    """The `error:` lines of a command's stderr (the rest are notes: the default model used, what a step does)."""
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


@pytest.fixture
def shared_data():
    """The data folder beside the repository (`SHARED / "data"`), which tests may read but the project may not
    commit; skip when absent."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip(f"{path} is not present")
    return path


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
