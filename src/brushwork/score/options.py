"""`ScoringOptions`: every choice that changes how a reply is scored, declared once.

The pipeline is built from it; `brushwork serve` (`ServerSettings`), `brushwork train`
(`BrushworkArguments`), `brushwork eval` and `brushwork score` extend or fill it rather
than re-declaring its fields. Fields are flat so that a YAML file, a command line and
`BRUSHWORK_*` environment variables (`ENV`) all name them the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.render.config import CPU_BUDGET_S, RenderConfig, check_backend
from brushwork.score.reward import PRESETS, RewardConfig

# The environment variable that sets each field (read by `from_env`, i.e. by `brushwork serve`).
# The judge and HPSv3 endpoints keep their clients' own variables (BRUSHWORK_JUDGE_BASE_URL,
# BRUSHWORK_JUDGE_MODEL, BRUSHWORK_JUDGE_API_KEY, BRUSHWORK_HPSV3_URL).
ENV = {"pool": "BRUSHWORK_POOL", "snapshot": "BRUSHWORK_SNAPSHOT", "preset": "BRUSHWORK_PRESET",
       "reward_file": "BRUSHWORK_REWARD_CONFIG", "judge": "BRUSHWORK_JUDGE", "aesthetic": "BRUSHWORK_AESTHETIC",
       "taste_model": "BRUSHWORK_TASTE_MODEL",
       "copy_image_similarity": "BRUSHWORK_COPY_IMAGE_SIMILARITY",
       "copy_source_similarity": "BRUSHWORK_COPY_SOURCE_SIMILARITY", "judge_copies": "BRUSHWORK_JUDGE_COPIES",
       "workers": "BRUSHWORK_WORKERS",
       "render_timeout_s": "BRUSHWORK_RENDER_TIMEOUT_S", "render_cpu_budget_s": "BRUSHWORK_RENDER_CPU_BUDGET_S",
       "render_backend": "BRUSHWORK_RENDER_BACKEND", "ray_address": "BRUSHWORK_RAY_ADDRESS",
       "ray_cpus_per_worker": "BRUSHWORK_RAY_CPUS_PER_WORKER",
       "ray_memory_mb_per_worker": "BRUSHWORK_RAY_MEMORY_MB_PER_WORKER",
       "max_sessions": "BRUSHWORK_MAX_SESSIONS", "session_timeout_s": "BRUSHWORK_SESSION_TIMEOUT_S"}
JUDGES = ("taste", "openai")
AESTHETICS = ("taste", "hpsv3")


@dataclass
class ScoringOptions:
    pool: Path | None = field(default=None, metadata={"help": "pool store or folder (default: the example pool)"})
    snapshot: str | None = field(default=None, metadata={"help": "pool store snapshot to draw references from"})
    preset: str = field(default="judge-led", metadata={"help": "reward weights: judge-led, hps-led or hps-only"})
    reward_file: Path | None = field(default=None, metadata={"help": "reward YAML (overrides the preset)"})
    judge: str = field(default="taste", metadata={"help": "judge backend: taste (offline) or openai (an "
                                                          "OpenAI-compatible VLM)"})
    judge_url: str | None = field(default=None, metadata={"help": "base URL of the OpenAI-compatible judge "
                                                                  "(default: $BRUSHWORK_JUDGE_BASE_URL)"})
    judge_model: str | None = field(default=None, metadata={"help": "judge model name "
                                                                    "(default: $BRUSHWORK_JUDGE_MODEL)"})
    judge_prompt: str = field(default="watercolour", metadata={"help": "judge prompt: a bundled name or a YAML file"})
    judge_concurrency: int = field(default=8, metadata={"help": "judge questions in flight at once"})
    verdict_cache: bool = field(default=True, metadata={"help": "reuse judge verdicts on identical image pairs"})
    aesthetic: str = field(default="taste", metadata={"help": "aesthetic backend: taste (offline) or hpsv3"})
    hpsv3_url: str | None = field(default=None, metadata={"help": "URL of a running `brushwork serve-hpsv3` "
                                                                  "(default: $BRUSHWORK_HPSV3_URL)"})
    copy_image_similarity: float = field(default=0.90, metadata={
        "help": "edge correlation (0-1, over turns, mirrors, scales and shifts) at which a painting copies a pool "
                "painting: flagged on its ScoreCard (copy_of); honest pool pairs reach 0.88; -1 turns it off"})
    copy_source_similarity: float = field(default=0.5, metadata={
        "help": "share (0-1) of a pool sketch's distinctive token fingerprints at which a sketch copies it; "
                "honest sketches reach 0.31; -1 turns it off"})
    judge_copies: bool = field(default=False, metadata={
        "help": "judge a painting that copies a pool painting like any other (default: its judge term is 0)"})
    taste_model: Path | None = field(default=None, metadata={"help": "fitted taste model file (default: fit on "
                                                                     "the pool, cached)"})
    workers: int = field(default=0, metadata={"help": "parallel renders (0: one per core)"})
    render_timeout_s: float = field(default=60.0, metadata={
        "help": "deadline of one render; past it the browser restarts and the sketch is rendered once more "
                "(None reward unless that times out too: then 0)"})
    render_cpu_budget_s: float | None = field(default=None, metadata={
        "help": f"CPU seconds a sketch's page may spend on one render before it stops as too_slow (reward 0); "
                f"below render_timeout_s (default: {CPU_BUDGET_S:g})"})
    render_cache: bool = field(default=True, metadata={"help": "reuse renders of identical code, seed and size"})
    render_backend: str = field(default="local", metadata={
        "help": "where paintings are made: local (Chromium here), ray (a Ray cluster; the cache stays here) or "
                "package.module:Class (your RenderBackend)"})
    ray_address: str | None = field(default=None, metadata={
        "help": "with render_backend ray: auto or HOST:PORT (default: $RAY_ADDRESS, else auto)"})
    ray_cpus_per_worker: float = field(default=1.0, metadata={"help": "CPUs each Ray render worker asks for"})
    ray_memory_mb_per_worker: int = field(default=1500, metadata={"help": "memory (MB) each Ray render worker "
                                                                          "asks for"})

    def __post_init__(self):
        for name in ("pool", "reward_file", "taste_model"):
            if isinstance(value := getattr(self, name), str):
                setattr(self, name, Path(value))
        if self.reward_file is None and self.preset not in PRESETS:
            raise ConfigError(f"preset {self.preset!r} is not one of {', '.join(PRESETS)}")
        if self.judge not in JUDGES:
            raise ConfigError(f"judge {self.judge!r}: use {' or '.join(JUDGES)}")
        if self.aesthetic not in AESTHETICS:
            raise ConfigError(f"aesthetic {self.aesthetic!r}: use {' or '.join(AESTHETICS)}")
        if self.workers < 0:
            raise ConfigError(f"workers must be >= 0 (0: one per core), got {self.workers}")
        check_backend(self.render_backend, "render_backend")
        for name in ("copy_image_similarity", "copy_source_similarity"):
            if (value := getattr(self, name)) != -1 and not 0 < value <= 1:
                raise ConfigError(f"{name} must be a similarity in (0, 1], or -1 (off), got {value}")
        if self.judge_concurrency < 1:
            raise ConfigError(f"judge_concurrency must be >= 1, got {self.judge_concurrency}")
        if self.render_timeout_s <= 0:
            raise ConfigError(f"render_timeout_s must be positive, got {self.render_timeout_s}")
        if not 0 < self.cpu_budget_s < self.render_timeout_s:
            raise ConfigError(f"the render CPU budget ({self.cpu_budget_s:g} CPU-s; render_cpu_budget_s, --cpu-budget, "
                              f"BRUSHWORK_RENDER_CPU_BUDGET_S) must be positive and below the render deadline "
                              f"({self.render_timeout_s:g}s)")

    @property
    def render_workers(self) -> int:
        return self.workers or len(os.sched_getaffinity(0)) or 1

    @property
    def cpu_budget_s(self) -> float:
        return CPU_BUDGET_S if self.render_cpu_budget_s is None else self.render_cpu_budget_s

    def render_config(self) -> RenderConfig:
        return RenderConfig(workers=self.render_workers, timeout_s=self.render_timeout_s,
                            cpu_budget_s=self.cpu_budget_s, use_cache=self.render_cache,
                            backend=self.render_backend, ray_address=self.ray_address,
                            ray_cpus_per_worker=self.ray_cpus_per_worker,
                            ray_memory_mb_per_worker=self.ray_memory_mb_per_worker)

    def reward_config(self) -> RewardConfig:
        if self.reward_file is not None:
            return RewardConfig.from_yaml(self.reward_file)
        return RewardConfig.from_preset(self.preset)

    def scoring(self) -> ScoringOptions:
        """Just the scoring options (a subclass such as the server's settings holds more)."""
        return ScoringOptions(**{f.name: getattr(self, f.name) for f in fields(ScoringOptions)})

    def with_(self, **changes):
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides):
        """Options from `BRUSHWORK_*` variables (`ENV`); `overrides` that are not None win."""
        environ = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            name = ENV.get(f.name)
            if name and environ.get(name, "").strip():
                values[f.name] = _convert(f, environ[name].strip(), name)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _convert(f, raw: str, name: str):
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    try:
        if kind.startswith("int"):
            return int(raw)
        if kind.startswith("float"):
            return float(raw)
    except ValueError as e:
        raise ConfigError(f"{name}={raw!r} is not a number") from e
    if kind.startswith("bool"):
        return raw.lower() in ("1", "true", "yes", "on")
    if kind.startswith("Path"):
        return Path(raw)
    return raw
