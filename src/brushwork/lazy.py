"""Package namespaces whose names are imported on first use, so `brushwork --help` and the
light commands never pay for OpenEnv, torch or a browser they do not need."""

from __future__ import annotations

import sys
from importlib import import_module


def lazy_exports(package: str, exports: dict[str, str]):
    """(`__getattr__`, `__all__`) for `package`, whose names live in the modules `exports` maps them to."""
    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(exports[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__, sorted(exports)
