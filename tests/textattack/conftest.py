"""These tests need the optional extra (`pip install "robust[textattack]"`, transformers < 5): CI runs them in
its second environment, `.venv-textattack`; elsewhere they are skipped with this reason."""

from __future__ import annotations

import importlib.util

import pytest

from robust.plugins.textattack.recipes import RESOURCES

REASON = ("textattack is not installed here: it needs transformers < 5, so CI runs tests/textattack in "
          ".venv-textattack (see docs/textattack.md)")


def pytest_collection_modifyitems(config, items):
    installed = importlib.util.find_spec("textattack") is not None
    # TextAttack 0.3.11 calls the deprecated logger.warn; not ours to fix
    quiet = pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")
    for item in items:
        if "tests/textattack/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(quiet if installed else pytest.mark.skip(reason=REASON))


@pytest.fixture(scope="session")
def needs_wordnet():
    if not RESOURCES["wordnet"].present():
        pytest.skip("WordNet not assembled; run `robust setup wordnet`")
