"""brushwork's one error vocabulary.

Each boundary raises one of these, wrapping third-party errors with ``raise ... from e``.
Messages say what to do next. A hostile or broken sketch never raises: it becomes a
`GateReport` (see `brushwork.gate`).
"""

from __future__ import annotations


class BrushworkError(Exception):
    """Base class of every error brushwork raises on purpose."""


class SetupError(BrushworkError):
    """A required tool or file is missing (Chromium, node_modules, an optional extra)."""


class ConfigError(BrushworkError, ValueError):
    """A configuration value is invalid; the message names the field and the fix."""


class RenderError(BrushworkError):
    """The renderer itself failed (not the sketch): browser would not start, pool closed."""


class DependencyNotInstalled(SetupError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str):
        super().__init__(f"{package} is not installed: pip install 'brushwork[{extra}]'")
