"""The environment server's settings: the scoring options (`ScoringOptions`) and the server
section, filled from `brushwork serve` flags or `BRUSHWORK_<KEY>` environment variables
(`BRUSHWORK_WORKERS`, `BRUSHWORK_MAX_SESSIONS`, ...: every key, upper-cased), read once when
the server starts. `brushwork config show` lists every key and where its value came from.

The judge's API key keeps its client's own variable (BRUSHWORK_JUDGE_API_KEY), never a flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from brushwork.core.settings import check, setting
from brushwork.score.options import ScoringOptions

DEFAULT_SESSION_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class ServerSection:
    host: str = setting("127.0.0.1", "interface to listen on (0.0.0.0 in a container)")
    port: int = setting(8000, "port to listen on", min=1, max=65535)
    max_sessions: int = setting(0, "concurrent sessions (0: twice the workers)", min=0)
    session_timeout_s: float = setting(DEFAULT_SESSION_TIMEOUT_S, "idle seconds after which a session is "
                                       "reclaimed; longer than the slowest generation between two steps", above=0,
                                       aliases=("--session-timeout",))
    max_request_bytes: int = setting(0, "largest HTTP request body and WebSocket message in bytes; a larger one "
                                     "is refused (HTTP 413) before it is read (0: 16 x max_chars, the longest reply "
                                     "the gate reads, 4 x max_chars, at 4 bytes a character)", min=0)


@dataclass(frozen=True)
class ServerSettings(ServerSection, ScoringOptions):
    """The scoring options (pool, reward, scorers, gate, renderer) and the server section."""

    def __post_init__(self):
        ScoringOptions.__post_init__(self)
        check(self)

    @property
    def session_limit(self) -> int:
        return self.max_sessions or 2 * self.render_workers

    @property
    def request_limit(self) -> int:
        return self.max_request_bytes or 16 * self.max_chars
