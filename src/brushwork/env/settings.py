"""The environment server's settings: one dataclass, filled from `brushwork serve` flags or from
`BRUSHWORK_*` environment variables, read once when the server starts.

| variable | setting |
|---|---|
| BRUSHWORK_POOL / BRUSHWORK_SNAPSHOT | pool store or folder, and its snapshot |
| BRUSHWORK_PRESET / BRUSHWORK_REWARD_CONFIG | reward weights |
| BRUSHWORK_JUDGE (taste, openai), BRUSHWORK_AESTHETIC (taste, hpsv3), BRUSHWORK_TASTE_MODEL | scorers |
| BRUSHWORK_WORKERS / BRUSHWORK_RENDER_TIMEOUT_S / BRUSHWORK_RENDER_CPU_BUDGET_S | renderer |
| BRUSHWORK_RENDER_BACKEND (local, ray) / BRUSHWORK_RAY_ADDRESS (auto, HOST:PORT) | where paintings are made |
| BRUSHWORK_MAX_SESSIONS / BRUSHWORK_SESSION_TIMEOUT_S | sessions |

The judge and HPSv3 endpoints keep their own variables (BRUSHWORK_JUDGE_BASE_URL,
BRUSHWORK_JUDGE_MODEL, BRUSHWORK_JUDGE_API_KEY, BRUSHWORK_HPSV3_URL), read by their clients.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from brushwork.errors import ConfigError
from brushwork.score.options import ScoringOptions

DEFAULT_SESSION_TIMEOUT_S = 900.0


@dataclass
class ServerSettings(ScoringOptions):
    """The scoring options (`ScoringOptions`: pool, reward, scorers, renderer) and the sessions."""

    max_sessions: int = field(default=0, metadata={"help": "concurrent sessions (0: twice the workers)"})
    session_timeout_s: float = field(default=DEFAULT_SESSION_TIMEOUT_S,
                                     metadata={"help": "idle seconds after which a session is reclaimed; "
                                                       "longer than the slowest generation between two steps"})

    def __post_init__(self):
        super().__post_init__()
        if self.max_sessions < 0:
            raise ConfigError(f"max_sessions must be >= 0 (0: twice the workers), got {self.max_sessions}")
        if self.session_timeout_s <= 0:
            raise ConfigError(f"session_timeout_s must be positive, got {self.session_timeout_s}")

    @property
    def session_limit(self) -> int:
        return self.max_sessions or 2 * self.render_workers
