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


class SettingError(ConfigError):
    """A value of one setting cannot work: `key` names the setting, `problem` says what to fix
    (raised by the settings in `brushwork.core.settings`)."""

    def __init__(self, key: str, problem: str, spelled: str | None = None):
        self.key, self.problem = key, problem
        super().__init__(f"{spelled or key} {problem}")

    def spelled(self, name: str) -> SettingError:
        return SettingError(self.key, self.problem, name)


class RenderError(BrushworkError):
    """The renderer itself failed (not the sketch): browser would not start, pool closed."""


class PatchError(SetupError):
    """The p5.brush build is not the one the blend-shader patch rewrites (an anchor moved):
    reinstall the pinned p5.brush (`npm ci`), or render with brush_shader upstream."""


class DependencyNotInstalled(SetupError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str):
        super().__init__(f"{package} is not installed: pip install 'brushwork[{extra}]'")


# -- the environment ---------------------------------------------------------------------------
class EpisodeError(BrushworkError):
    """The episode was used out of order (stepped before reset or after it ended); the message
    says which call comes first."""


class ActionError(BrushworkError):
    """A call to the environment has the wrong shape: an action with a missing, unknown or
    mistyped field, or an unknown reset argument; the message names it and the shape the
    environment expects. Not a `ValueError`, so pydantic passes the message through instead of
    a generic validation error."""


class SessionClosed(EpisodeError):
    """The server reclaimed this session (idle past its timeout); reconnect and reset."""


class AtCapacity(BrushworkError):
    """The environment server holds --max-sessions sessions (WebSocket sessions and HTTP requests
    together); retry later, raise the limit, or close idle clients."""


class EnvServerError(BrushworkError):
    """The environment server answered with an error (bad arguments, an episode used out of
    order, capacity). `code` is the server's error code; the message is the server's."""

    def __init__(self, message: str, code: str = "UNKNOWN"):
        super().__init__(f"{message} (code: {code})")
        self.code = code


# -- remote services ---------------------------------------------------------------------------
class ServiceUnavailable(BrushworkError):
    """A remote service (a chat model, a judge, a scorer, the environment server) could not
    answer after its retries: an infrastructure failure, never a verdict on a painting."""


class JudgeUnavailable(ServiceUnavailable):
    """The judge backend could not answer after its retries (infrastructure, not the painting)."""


class ScorerUnavailable(ServiceUnavailable):
    """The aesthetic scorer could not answer after its retries."""


class ModelUnavailable(ServiceUnavailable):
    """The code model or the critic could not answer after its retries."""


class EnvConnectionError(ServiceUnavailable):
    """The environment server could not be reached, even after reconnecting and retrying once."""
