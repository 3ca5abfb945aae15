"""Importing what a user names as "package.module:attr" (a render backend, a reward term, a
model loader): one reading of the spec and one error shape wherever a name is taken."""

from __future__ import annotations

import importlib

from brushwork.errors import ConfigError


def is_spec(spec: str) -> bool:
    """Whether `spec` has the "package.module:attr" shape (both parts present)."""
    module, _, attr = spec.partition(":")
    return bool(module and attr)


def import_spec(spec: str, what: str, example: str = "package.module:attr") -> object:
    """The object `spec` names, imported now; a ConfigError that names `what` (e.g. "reward term")
    and says what to write when the spec is malformed or cannot be imported."""
    module, _, attr = spec.partition(":")
    if not is_spec(spec):
        raise ConfigError(_cannot(what, spec, "it has no module:attr", example))
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError, TypeError) as e:
        raise ConfigError(_cannot(what, spec, f"{type(e).__name__}: {e}", example)) from e


def _cannot(what: str, spec: str, reason: str, example: str) -> str:
    return f"cannot import {spec} ({what}): {reason}; give {example}"
