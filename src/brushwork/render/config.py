"""How paintings are made: `RenderSettings`, the render section of the configuration (its
keys as a user sets them), and `RenderConfig`, what a `Renderer` is built with."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from brushwork.core.imports import import_spec, is_spec
from brushwork.core.settings import SettingError, check, problem, setting
from brushwork.errors import ConfigError
from brushwork.render.brush_patch import DEFAULT_MODE, MODES

# Renderer-process CPU per render, measured over 78 honest sketches (corpus, pool sources,
# benchmarks): mean 1.0, max 2.4 CPU-s. A busy loop spends one CPU-s per second.
CPU_BUDGET_S = 6.0
TIMEOUT_S = 60.0
SIZE = 600
# More browsers than this per core only queue for the CPU (and thousands never start).
BROWSERS_PER_CORE = 4
SHADER_ENV = "BRUSHWORK_BRUSH_SHADER"
# Where paintings are made: a name here, or any `RenderBackend` class given as "package.module:Class"
# (built with the `RenderConfig`): a new backend is one module, nothing here changes.
BACKENDS = {"local": "brushwork.render.chromium:ChromiumBackend", "ray": "brushwork.render.ray_pool:RayBackend"}


def check_backend(name: str, option: str = "render backend") -> str:
    """`name` if it names a backend (a built-in or "module:Class"), else a ConfigError naming `option`."""
    if name not in BACKENDS and not is_spec(name):
        raise ConfigError(f"{option} {name!r}: use {' or '.join(BACKENDS)}, or a RenderBackend class as "
                          "package.module:Class")
    return name


def backend_class(name: str) -> type:
    """The class a backend name stands for (imported now: ray only when asked for)."""
    return import_spec(BACKENDS.get(check_backend(name), name), "render backend", "package.module:Class")


def cores() -> int:
    return len(os.sched_getaffinity(0)) or 1


def _cpu_budget(value: float | None) -> float:
    return CPU_BUDGET_S if value is None else value


def _over_budget(budget: float, deadline: float) -> str | None:
    """The check across render settings: a render's CPU budget stays below its deadline."""
    if budget < deadline:
        return None
    return f"({budget:g} CPU-s) must be below the render deadline, render_timeout_s ({deadline:g}s); lower one " \
        "or raise the other"


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
    render_nice: int = setting(10, "how much lower the browsers' CPU priority is than the process that starts "
                               "them (nice, 0-19): the trainer generating and the server's event loop come "
                               "first; a render's CPU budget is CPU time, so it is not shortened", min=0, max=19)
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
        if (p := _over_budget(self.cpu_budget_s, self.render_timeout_s)) is not None:
            raise SettingError("render_cpu_budget_s", p)

    @property
    def render_workers(self) -> int:
        return self.workers or cores()

    @property
    def cpu_budget_s(self) -> float:
        return _cpu_budget(self.render_cpu_budget_s)

    def render_config(self, **changes) -> RenderConfig:
        return RenderConfig(**{**{name: getattr(self, key) for name, key in AS_SETTING.items()}, **changes})


DECLARED = {f.name: f for f in fields(RenderSettings)}


def _setting(key: str):
    """A `RenderConfig` field standing for the render setting `key`: its default, help and bounds
    are the setting's."""
    return field(default=DECLARED[key].default, metadata={"help": DECLARED[key].metadata["help"],
                                                          "render_setting": key})


@dataclass
class RenderConfig:
    """What a `Renderer` is built with: the render settings under the renderer's names (`timeout_s`
    for `render_timeout_s`), resolved (workers 0 is one per core, the CPU budget a number), and
    what only Python sets (the cache folder, the Chromium binary, the paint tolerance)."""

    workers: int = _setting("workers")
    size: int = _setting("size")
    timeout_s: float = _setting("render_timeout_s")
    cpu_budget_s: float | None = _setting("render_cpu_budget_s")
    use_cache: bool = _setting("render_cache")
    nice: int = _setting("render_nice")
    backend: str = _setting("render_backend")
    ray_address: str | None = _setting("ray_address")
    ray_cpus_per_worker: float = _setting("ray_cpus_per_worker")
    ray_memory_mb_per_worker: int = _setting("ray_memory_mb_per_worker")
    # None: $BRUSHWORK_BRUSH_SHADER, else the default (read whenever a RenderConfig is made).
    brush_shader: str | None = _setting("brush_shader")
    cache_dir: Path | None = field(default=None, metadata={"help": "render cache folder (default ~/.cache/brushwork)"})
    chromium: str | None = field(default=None, metadata={"help": "Chromium binary (default: Debian's)"})
    paint_tolerance: int = field(default=4, metadata={"help": "channel difference that counts as paint"})

    def __post_init__(self):
        shader_from_env = self.brush_shader is None and bool(os.environ.get(SHADER_ENV, "").strip())
        if shader_from_env:
            self.brush_shader = os.environ[SHADER_ENV].strip()
        for name, key in AS_SETTING.items():
            if (p := problem(DECLARED[key], getattr(self, name))) is not None:
                raise SettingError(key, p, SHADER_ENV if name == "brush_shader" and shader_from_env
                                   else f"RenderConfig.{name}")
        # Not bounded by this machine's cores, unlike the settings: a Ray worker's config is made here.
        self.workers, self.cpu_budget_s = self.workers or cores(), _cpu_budget(self.cpu_budget_s)
        self.brush_shader = self.brush_shader or DEFAULT_MODE
        if (p := _over_budget(self.cpu_budget_s, self.timeout_s)) is not None:
            raise SettingError("render_cpu_budget_s", p, "RenderConfig.cpu_budget_s")


# Each RenderConfig field that is a render setting, and the setting's key.
AS_SETTING = {f.name: f.metadata["render_setting"] for f in fields(RenderConfig) if "render_setting" in f.metadata}
