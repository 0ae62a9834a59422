"""Import TextAttack offline: local NLTK data, no post-install downloads, hubs switched to offline mode.

TextAttack's first import calls `nltk.download` six times and then crashes without NLTK stopwords
(TextAttack's `shared/utils/install.py`); it also points HF_HOME/XDG_CACHE_HOME at its own cache when TA_CACHE_DIR is
set. Here: robust's NLTK data goes first on the path, the post-install marker is written beforehand so no download is
ever tried, the hub clients are offline unless the user said otherwise, and the cache variables TextAttack
rewrites are restored after the import.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from typing import Any

from robust import MissingResource
from robust.plugins.textattack.recipes import INSTALL_HINT, RESOURCES, textattack_cache, textattack_installed
from robust.toolkit.paths import nltk_data_dir

OFFLINE_FLAGS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
_REWRITTEN = ("TFHUB_CACHE_DIR", "PYTORCH_TRANSFORMERS_CACHE", "HF_HOME", "XDG_CACHE_HOME")
POST_INSTALL_MARKER = "post_install_check_3"  # textattack/shared/utils/install.py


def prepare_environment() -> None:
    """Everything that must hold before `import textattack` (idempotent)."""
    for flag in OFFLINE_FLAGS:
        os.environ.setdefault(flag, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    local = str(nltk_data_dir())
    paths = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    if local not in paths:
        os.environ["NLTK_DATA"] = os.pathsep.join([local, *paths])
    cache = textattack_cache()
    cache.mkdir(parents=True, exist_ok=True)
    (cache / POST_INSTALL_MARKER).touch()  # TextAttack then skips its nltk.download() calls
    os.environ.setdefault("TA_CACHE_DIR", str(cache))


@functools.cache
def import_textattack() -> Any:
    """The textattack module, imported offline; one-line MissingResource when it cannot be."""
    if not textattack_installed():
        raise MissingResource(f"textattack is not installed in this environment; {INSTALL_HINT}")
    if not RESOURCES["stopwords"].present():  # `import textattack` itself needs them (docs/textattack.md)
        raise MissingResource("TextAttack needs NLTK stopwords to import; run `robust setup stopwords` once")
    prepare_environment()
    # the hub's and transformers' cache paths are fixed at their import: import them before TextAttack
    # rewrites HF_HOME & co. (restored below)
    import huggingface_hub  # noqa: F401
    import transformers.utils.hub  # noqa: F401

    saved = {key: os.environ.get(key) for key in _REWRITTEN}
    try:
        import nltk

        if str(nltk_data_dir()) not in nltk.data.path:
            nltk.data.path.insert(0, str(nltk_data_dir()))
        import textattack
    except Exception as exc:  # noqa: BLE001 - an import failure is a one-line error, not a traceback
        first = (str(exc).strip().splitlines() or [""])[0]
        raise MissingResource(f"cannot import textattack: {type(exc).__name__}: {first}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    _quiet()
    return textattack


def _quiet() -> None:
    """TextAttack logs at INFO and warns that it does not know robust's model classes (harmless, #722)."""
    import logging
    import warnings

    logging.getLogger("textattack.shared.utils.install").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="The 'warn' method is deprecated", category=DeprecationWarning)


@contextlib.contextmanager
def no_downloads() -> Iterator[None]:
    """`nltk.download` as a no-op: TextAttack components call it when built (WordSwapWordNet asks for
    omw-1.4 every time); the data they need is robust's, already on NLTK's path."""
    import nltk

    real = nltk.download
    nltk.download = lambda *args, **kwargs: False
    try:
        yield
    finally:
        nltk.download = real
