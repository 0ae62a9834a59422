"""Helpers for the BYOD tests (the tiny causal LMs and the prose corpus are fixtures of tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from robust.core.context import RunContext
from robust.core.plugins import get_registry

#: the LDNOOBW list in the data folder beside the repository (tests may read it; the project may not commit it)
BADWORDS = Path(__file__).resolve().parents[3] / "shared" / "data" / "byod" / "ldnoobw-en.txt"


def make_model(path: Path, **config):
    return get_registry().model(f"hf:{path}", **config)


def make_ctx(model, data=None, limit=None, seed=0) -> RunContext:
    return RunContext(run_id="test", seed=seed, model=model, registry=get_registry(),
                      data=None if data is None else str(data), limit=limit)
