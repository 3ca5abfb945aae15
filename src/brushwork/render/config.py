"""How paintings are made: `RenderSettings`, the render section of the configuration (its
keys as a user sets them), and `RenderConfig`, what a `Renderer` is built with."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.core.settings import SettingError, check, setting
from brushwork.errors import ConfigError
from brushwork.render.brush_patch import DEFAULT_MODE, MODES, check_mode

# Renderer-process CPU per render, measured over 78 honest sketches (corpus, pool sources,
# benchmarks): mean 1.0, max 2.4 CPU-s. A busy loop spends one CPU-s per second.
CPU_BUDGET_S = 6.0
TIMEOUT_S = 60.0
SIZE = 600
# More browsers than this per core only queue for the CPU (and thousands never start).
BROWSERS_PER_CORE = 4
# Where paintings are made: a name here, or any `RenderBackend` class given as "package.module:Class"
# (built with the `RenderConfig`): a new backend is one module, nothing here changes.
BACKENDS = {"local": "brushwork.render.chromium:ChromiumBackend", "ray": "brushwork.render.ray_pool:RayBackend"}


def check_backend(name: str, option: str = "render backend") -> str:
    """`name` if it names a backend (a built-in or "module:Class"), else a ConfigError naming `option`."""
    module, _, attr = name.partition(":")
    if name not in BACKENDS and not (module and attr):
        raise ConfigError(f"{option} {name!r}: use {' or '.join(BACKENDS)}, or a RenderBackend class as "
                          "package.module:Class")
    return name


def backend_class(name: str) -> type:
    """The class a backend name stands for (imported now: ray only when asked for)."""
    import importlib

    module, _, attr = BACKENDS.get(check_backend(name), name).partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"render backend {name!r}: cannot import {module}:{attr} ({e})") from e


def cores() -> int:
    return len(os.sched_getaffinity(0)) or 1


def _backend_problem(name: str) -> str | None:
    try:
        check_backend(name, "")
    except ConfigError as e:
        return str(e).strip()
    return None


@dataclass(frozen=True)
class RenderSettings:
    """The render section: browsers, canvas, deadline, CPU budget, cache and where paintings are made."""

    workers: int = setting(0, "browsers rendering in parallel (0: one per core)", min=0)
    size: int = setting(SIZE, "canvas side in pixels a sketch must create", min=16, max=4096)
    render_timeout_s: float = setting(TIMEOUT_S, "deadline of one render; past it the browser restarts and the "
                                      "sketch is rendered once more (None reward unless that times out too: then 0)",
                                      above=0, aliases=("--render-timeout", "--timeout"))
    render_cpu_budget_s: float | None = setting(None, "CPU seconds a sketch's page may spend on one render before "
                                                f"it stops as too_slow (reward 0); below render_timeout_s "
                                                f"(default: {CPU_BUDGET_S:g})", above=0, aliases=("--cpu-budget",))
    render_cache: bool = setting(True, "reuse renders of identical code, seed and size", aliases=("--no-cache",))
    render_backend: str = setting("local", "where paintings are made: local (Chromium here), ray (a Ray cluster; "
                                  "pip install 'brushwork[ray]'; the cache stays here) or package.module:Class "
                                  "(your RenderBackend)", check=_backend_problem)
    ray_address: str | None = setting(None, "with render_backend ray: auto or HOST:PORT "
                                      "(default: $RAY_ADDRESS, else auto)")
    ray_cpus_per_worker: float = setting(1.0, "CPUs each Ray render worker asks for (one browser per whole CPU)",
                                         above=0)
    ray_memory_mb_per_worker: int = setting(1500, "memory (MB) each Ray render worker asks for (a warm browser "
                                            "uses ~600 MB)", min=1)
    brush_shader: str | None = setting(None, "p5.brush's blend shader: deterministic (rewritten: ~0.7x the CPU, "
                                       "byte-identical renders), fast (rewritten, upstream's edge noise) or "
                                       f"upstream (p5.brush's own build) (default: {DEFAULT_MODE})", choices=MODES)

    def __post_init__(self):
        check(self)
        if self.render_backend == "local" and self.workers > BROWSERS_PER_CORE * cores():
            raise SettingError("workers", f"must be at most {BROWSERS_PER_CORE * cores()} on this machine "
                               f"({cores()} cores, {BROWSERS_PER_CORE} browsers each; 0: one per core), "
                               f"got {self.workers}")
        if not self.cpu_budget_s < self.render_timeout_s:
            raise SettingError("render_cpu_budget_s", f"({self.cpu_budget_s:g} CPU-s) must be below the render "
                               f"deadline, render_timeout_s ({self.render_timeout_s:g}s); lower one or raise the "
                               "other")

    @property
    def render_workers(self) -> int:
        return self.workers or cores()

    @property
    def cpu_budget_s(self) -> float:
        return CPU_BUDGET_S if self.render_cpu_budget_s is None else self.render_cpu_budget_s

    def render_config(self, **changes) -> RenderConfig:
        extra = {} if self.brush_shader is None else {"brush_shader": self.brush_shader}
        return RenderConfig(**{"workers": self.render_workers, "size": self.size,
                               "timeout_s": self.render_timeout_s, "cpu_budget_s": self.cpu_budget_s,
                               "use_cache": self.render_cache, "backend": self.render_backend,
                               "ray_address": self.ray_address, "ray_cpus_per_worker": self.ray_cpus_per_worker,
                               "ray_memory_mb_per_worker": self.ray_memory_mb_per_worker, **extra, **changes})


@dataclass
class RenderConfig:
    workers: int = field(default_factory=cores,
                         metadata={"help": "browsers rendering in parallel (one per core is best)"})
    size: int = field(default=SIZE, metadata={"help": "canvas side in pixels a sketch must create"})
    timeout_s: float = field(default=TIMEOUT_S,
                             metadata={"help": "deadline for one render; past it the browser restarts"})
    cpu_budget_s: float = field(default=CPU_BUDGET_S, metadata={
        "help": "CPU seconds the page's renderer process may spend on one render (honest sketches spend "
                "0.2-2.4); past it the render stops as too_slow, the sketch's fault. Keep it below timeout_s"})
    use_cache: bool = field(default=True, metadata={"help": "reuse renders of identical code+seed+size"})
    cache_dir: Path | None = field(default=None, metadata={"help": "render cache folder (default ~/.cache/brushwork)"})
    chromium: str | None = field(default=None, metadata={"help": "Chromium binary (default: Debian's)"})
    paint_tolerance: int = field(default=4, metadata={"help": "channel difference that counts as paint"})
    backend: str = field(default="local", metadata={
        "help": "where paintings are made: local (Chromium on this machine), ray (render workers on a Ray "
                "cluster; pip install 'brushwork[ray]') or package.module:Class (your RenderBackend)"})
    ray_address: str | None = field(default=None, metadata={
        "help": "Ray cluster to join with backend ray: auto (the running cluster) or HOST:PORT "
                "(default: $RAY_ADDRESS, else auto)"})
    ray_cpus_per_worker: float = field(default=1.0, metadata={
        "help": "CPUs each Ray render worker asks for (one browser per whole CPU; a render keeps ~1.3 busy)"})
    ray_memory_mb_per_worker: int = field(default=1500, metadata={
        "help": "memory (MB) each Ray render worker asks for (a warm browser uses ~600 MB)"})
    brush_shader: str = field(default_factory=lambda: os.environ.get("BRUSHWORK_BRUSH_SHADER") or DEFAULT_MODE,
                              metadata={"help": "p5.brush's blend shader: deterministic (rewritten: ~0.7x the CPU, "
                                                "byte-identical renders), fast (rewritten, upstream's edge noise) or "
                                                "upstream (p5.brush's own build) [$BRUSHWORK_BRUSH_SHADER]"})

    def __post_init__(self):
        check_backend(self.backend)
        try:
            check_mode(self.brush_shader)
        except ValueError as e:
            raise ConfigError(f"{e} (RenderConfig.brush_shader, --brush-shader, BRUSHWORK_BRUSH_SHADER)") from e
        if self.ray_cpus_per_worker <= 0 or self.ray_memory_mb_per_worker <= 0:
            raise ConfigError("ray_cpus_per_worker and ray_memory_mb_per_worker must be positive")
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, got {self.workers}")
        if not 16 <= self.size <= 4096:
            raise ConfigError(f"size must be between 16 and 4096 pixels, got {self.size}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be positive, got {self.timeout_s}")
        if not 0 < self.cpu_budget_s < self.timeout_s:
            raise ConfigError(f"cpu_budget_s must be positive and below timeout_s ({self.timeout_s:g}s), got "
                              f"{self.cpu_budget_s:g}; lower the CPU budget or raise the deadline")
