"""`RenderConfig`: how paintings are made (browsers, canvas size, deadline, CPU budget, cache)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.errors import ConfigError

# Renderer-process CPU per render, measured over 78 honest sketches (corpus, pool sources,
# benchmarks): mean 1.0, max 2.4 CPU-s. A busy loop spends one CPU-s per second.
CPU_BUDGET_S = 6.0
BACKENDS = ("local", "ray")


@dataclass
class RenderConfig:
    workers: int = field(default_factory=lambda: len(os.sched_getaffinity(0)) or 1,
                         metadata={"help": "browsers rendering in parallel (one per core is best)"})
    size: int = field(default=600, metadata={"help": "canvas side in pixels a sketch must create"})
    timeout_s: float = field(default=60.0, metadata={"help": "deadline for one render; past it the browser restarts"})
    cpu_budget_s: float = field(default=CPU_BUDGET_S, metadata={
        "help": "CPU seconds the page's renderer process may spend on one render (honest sketches spend "
                "0.2-2.4); past it the render stops as too_slow, the sketch's fault. Keep it below timeout_s"})
    use_cache: bool = field(default=True, metadata={"help": "reuse renders of identical code+seed+size"})
    cache_dir: Path | None = field(default=None, metadata={"help": "render cache folder (default ~/.cache/brushwork)"})
    chromium: str | None = field(default=None, metadata={"help": "Chromium binary (default: Debian's)"})
    paint_tolerance: int = field(default=4, metadata={"help": "channel difference that counts as paint"})
    backend: str = field(default="local", metadata={
        "help": "where paintings are made: local (Chromium on this machine) or ray (render workers on a Ray "
                "cluster; pip install 'brushwork[ray]')"})
    ray_address: str | None = field(default=None, metadata={
        "help": "Ray cluster to join with backend ray: auto (the running cluster) or HOST:PORT "
                "(default: $RAY_ADDRESS, else auto)"})
    ray_cpus_per_worker: float = field(default=1.0, metadata={
        "help": "CPUs each Ray render worker asks for (one browser per whole CPU; a render keeps ~1.3 busy)"})
    ray_memory_mb_per_worker: int = field(default=1500, metadata={
        "help": "memory (MB) each Ray render worker asks for (a warm browser uses ~600 MB)"})

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ConfigError(f"render backend {self.backend!r}: use {' or '.join(BACKENDS)}")
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
