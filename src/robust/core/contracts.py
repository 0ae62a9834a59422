"""What a plugin must be to be registered, checked once at registration (a plugin that fails is listed broken with
one line, and never reaches a run): a well-formed name, well-formed settings, and the methods its kind requires."""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Any

from robust.core.errors import RobustError
from robust.core.settings import Setting

#: letters, digits, `-`, `_`, `.`, and `:` as a namespace separator (`textattack:pwws`); no spaces or commas,
#: which separate names on the command line
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]*")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: kind -> methods a plugin of that kind must override (a tuple: any one of them)
REQUIRED: dict[str, tuple[str | tuple[str, ...], ...]] = {
    "benchmark": ("items", ("run_batch", "run_item"), "reduce"),
    "transform": ("apply", "measure"),
    "attacker": ("attack",),
    "dataset": ("examples",),
    "scorer": (("values", "score"),),
    "resource": ("path", "setup"),
}
#: capabilities that are gone from CAPABILITY_TABLE but still accepted, with a DeprecationWarning, until PLUGIN_API 2.0
DEPRECATED_CAPABILITIES = {"gradients": "no adapter implemented it and nothing calls it"}


def check_plugin(obj: Any, kind: str) -> None:
    """Raise a one-line TypeError when `obj` (a class or an instance) cannot be registered as a `kind` plugin."""
    from robust.core.interfaces import CAPABILITY_TABLE, Plugin, RecipeAttacker, SearchAttacker

    cls = obj if inspect.isclass(obj) else type(obj)
    label = getattr(cls, "__qualname__", repr(obj))
    if not issubclass(cls, Plugin) or getattr(cls, "kind", None) != kind:
        raise TypeError(f"{label} is not a {kind} plugin (its kind is {getattr(cls, 'kind', None)!r})")
    name = getattr(obj, "name", "")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise TypeError(f"{label} has no usable name ({name!r}): use letters, digits, '-', '_' or '.'")
    missing = [m if isinstance(m, str) else " or ".join(m) for m in REQUIRED.get(kind, ())
               if not any(_overrides(cls, one) for one in ((m,) if isinstance(m, str) else m))]
    if kind == "attacker" and not issubclass(cls, (SearchAttacker, RecipeAttacker)):
        raise TypeError(f"attacker {name!r} subclasses neither SearchAttacker (it searches over a transform's "
                        "edits) nor RecipeAttacker (it brings its own edits): declare its shape")
    if kind == "model":
        for cap in sorted(set(cls.capabilities) & set(DEPRECATED_CAPABILITIES)):
            warnings.warn(f"{kind} {name!r} declares capability {cap!r}, deprecated in plugin API 1.1 "
                          f"({DEPRECATED_CAPABILITIES[cap]}); drop it", DeprecationWarning, stacklevel=2)
        unknown = sorted(set(cls.capabilities) - set(CAPABILITY_TABLE) - set(DEPRECATED_CAPABILITIES))
        if unknown:
            raise TypeError(f"{kind} {name!r} declares unknown capabilities {', '.join(unknown)}; known: "
                            + ", ".join(sorted(CAPABILITY_TABLE)))
        methods = [CAPABILITY_TABLE[c].methods for c in sorted(cls.capabilities) if c in CAPABILITY_TABLE]
        missing += [" or ".join(m) for m in methods if m and not any(_overrides(cls, one) for one in m)]
    if missing:
        raise TypeError(f"{kind} {name!r} does not implement {', '.join(missing)}")
    check_settings(f"{kind} {name!r}", getattr(cls, "settings", {}))


def check_settings(owner: str, settings: Any) -> None:
    """Keys are identifiers, values `Setting`s or plain JSON-like defaults, and every default is valid for its
    own bounds and choices."""
    if not hasattr(settings, "items"):
        raise TypeError(f"{owner} declares settings that are not a mapping ({type(settings).__name__})")
    for key, spec in settings.items():
        if not isinstance(key, str) or not KEY.fullmatch(key):
            raise TypeError(f"{owner} declares a setting with a bad key {key!r} (use an identifier)")
        setting = spec if isinstance(spec, Setting) else Setting(spec)
        if not isinstance(setting.default, (str, int, float, bool, list, tuple, type(None))):
            raise TypeError(f"{owner}: setting {key!r} has a default of type {type(setting.default).__name__}; "
                            "use str, int, float, bool or a list")
        try:
            setting.validate(key, setting.default)
        except RobustError as exc:
            raise TypeError(f"{owner}: the default of setting {key!r} is invalid ({exc})") from None


def _overrides(cls: type, method: str) -> bool:
    """Whether a class below the interface that declares `method` defines it."""
    from robust.core.interfaces import INTERFACES

    for klass in cls.__mro__:
        if klass in INTERFACES:
            return False
        if method in klass.__dict__:
            return True
    return False
