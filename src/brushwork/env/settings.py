"""The environment server's settings: one dataclass, filled from `brushwork serve` flags or from
`BRUSHWORK_*` environment variables, read once when the server starts.

| variable | setting |
|---|---|
| BRUSHWORK_POOL / BRUSHWORK_SNAPSHOT | pool store or folder, and its snapshot |
| BRUSHWORK_PRESET / BRUSHWORK_REWARD_CONFIG | reward weights |
| BRUSHWORK_JUDGE (taste, openai), BRUSHWORK_AESTHETIC (taste, hpsv3), BRUSHWORK_TASTE_MODEL | scorers |
| BRUSHWORK_WORKERS / BRUSHWORK_RENDER_TIMEOUT_S / BRUSHWORK_RENDER_CPU_BUDGET_S | renderer |
| BRUSHWORK_MAX_SESSIONS / BRUSHWORK_SESSION_TIMEOUT_S | sessions |

The judge and HPSv3 endpoints keep their own variables (BRUSHWORK_JUDGE_BASE_URL,
BRUSHWORK_JUDGE_MODEL, BRUSHWORK_JUDGE_API_KEY, BRUSHWORK_HPSV3_URL), read by their clients.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from brushwork.errors import ConfigError

DEFAULT_SESSION_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class ServerSettings:
    pool: Path | None = field(default=None, metadata={"help": "pool store or folder (default: the example pool)",
                                                      "env": "BRUSHWORK_POOL"})
    snapshot: str | None = field(default=None, metadata={"help": "pool store snapshot", "env": "BRUSHWORK_SNAPSHOT"})
    preset: str = field(default="judge-led", metadata={"help": "judge-led, hps-led or hps-only",
                                                       "env": "BRUSHWORK_PRESET"})
    reward_file: Path | None = field(default=None, metadata={"help": "reward YAML (overrides the preset)",
                                                             "env": "BRUSHWORK_REWARD_CONFIG"})
    judge: str = field(default="taste", metadata={"help": "judge backend: taste (offline) or openai",
                                                  "env": "BRUSHWORK_JUDGE"})
    judge_url: str | None = field(default=None, metadata={"help": "OpenAI-compatible base URL"})
    judge_model: str | None = field(default=None, metadata={"help": "judge model name"})
    aesthetic: str = field(default="taste", metadata={"help": "aesthetic backend: taste (offline) or hpsv3",
                                                      "env": "BRUSHWORK_AESTHETIC"})
    hpsv3_url: str | None = field(default=None, metadata={"help": "brushwork serve-hpsv3 URL"})
    taste_model: Path | None = field(default=None, metadata={"help": "fitted taste model file",
                                                             "env": "BRUSHWORK_TASTE_MODEL"})
    workers: int = field(default=0, metadata={"help": "parallel browsers (0: one per core)",
                                              "env": "BRUSHWORK_WORKERS"})
    render_timeout_s: float = field(default=60.0, metadata={"help": "deadline of one render; past it the "
                                                                    "browser restarts and the sketch is rendered "
                                                                    "once more (a second timeout scores 0)",
                                                            "env": "BRUSHWORK_RENDER_TIMEOUT_S"})
    render_cpu_budget_s: float | None = field(default=None, metadata={
        "help": "CPU seconds the page may spend on one render before it stops as too_slow (scores 0); "
                "below render_timeout_s (default: the renderer's, 6)", "env": "BRUSHWORK_RENDER_CPU_BUDGET_S"})
    max_sessions: int = field(default=0, metadata={"help": "concurrent sessions (0: twice the workers)",
                                                   "env": "BRUSHWORK_MAX_SESSIONS"})
    session_timeout_s: float = field(default=DEFAULT_SESSION_TIMEOUT_S,
                                     metadata={"help": "idle seconds after which a session is reclaimed; "
                                                       "longer than the slowest generation between two steps",
                                               "env": "BRUSHWORK_SESSION_TIMEOUT_S"})

    def __post_init__(self):
        if self.workers < 0:
            raise ConfigError(f"workers must be >= 0 (0: one per core), got {self.workers}")
        if self.max_sessions < 0:
            raise ConfigError(f"max_sessions must be >= 0 (0: twice the workers), got {self.max_sessions}")
        if self.session_timeout_s <= 0:
            raise ConfigError(f"session_timeout_s must be positive, got {self.session_timeout_s}")
        if self.render_timeout_s <= 0:
            raise ConfigError(f"render_timeout_s must be positive, got {self.render_timeout_s}")
        from brushwork.render.renderer import CPU_BUDGET_S

        budget = CPU_BUDGET_S if self.render_cpu_budget_s is None else self.render_cpu_budget_s
        if not 0 < budget < self.render_timeout_s:
            raise ConfigError(f"the render CPU budget ({budget:g} CPU-s; --cpu-budget, BRUSHWORK_RENDER_CPU_BUDGET_S) "
                              f"must be positive and below the render deadline ({self.render_timeout_s:g}s)")

    @property
    def render_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    @property
    def session_limit(self) -> int:
        return self.max_sessions or 2 * self.render_workers

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> ServerSettings:
        """Settings from `BRUSHWORK_*` variables; `overrides` (flags given explicitly) win."""
        environ = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            name = f.metadata.get("env")
            if name and environ.get(name, "").strip():
                values[f.name] = _convert(f, environ[name].strip(), name)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_(self, **changes) -> ServerSettings:
        return replace(self, **changes)

    def service_config(self):
        from brushwork.render import RenderConfig
        from brushwork.score.build import BackendOptions
        from brushwork.score.service import ServiceConfig

        backends = BackendOptions(judge=self.judge, judge_url=self.judge_url, judge_model=self.judge_model,
                                  aesthetic=self.aesthetic, hpsv3_url=self.hpsv3_url, taste_model=self.taste_model)
        budget = {"cpu_budget_s": self.render_cpu_budget_s} if self.render_cpu_budget_s else {}
        render = RenderConfig(workers=self.render_workers, timeout_s=self.render_timeout_s, **budget)
        return ServiceConfig(pool=self.pool, snapshot=self.snapshot, preset=self.preset,
                             reward_file=self.reward_file, backends=backends, render=render)

    def to_dict(self) -> dict:
        return {f.name: (str(v) if isinstance(v := getattr(self, f.name), Path) else v) for f in fields(self)}


def _convert(f, raw: str, name: str):
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    try:
        if kind.startswith("int"):
            return int(raw)
        if kind.startswith("float"):
            return float(raw)
    except ValueError as e:
        raise ConfigError(f"{name}={raw!r} is not a number") from e
    if kind.startswith("Path"):
        return Path(raw)
    return raw
