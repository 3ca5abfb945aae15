"""The p5.brush blend-shader builds compared (run by render.py; `render.py --shader-only` runs just this).

On the same sketches and seed, one `Renderer` (default workers, cache off) per pass, passes
interleaved so drift in the machine's load falls on every build alike:

    upstream A, deterministic A, fast, upstream B, deterministic B

- CPU-seconds per render: every Chromium process's CPU (browser, GPU process = SwiftShader,
  renderer = JavaScript) from the first render to the last, over the renders; renders per minute.
- Fidelity: each patched build against upstream A (mean |Δ| on 0-255, worst pixel, pixels changed).
- Noise: upstream A against upstream B, deterministic A against deterministic B (byte-identical?).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- render-shader:start -->", "<!-- render-shader:end -->"
PASSES = (("upstream", "A"), ("deterministic", "A"), ("fast", ""), ("upstream", "B"), ("deterministic", "B"))
TARGETS = {"mean_abs": 0.05, "cpu_ratio": 1.4}


@dataclass
class Pass:
    build: str
    label: str
    pngs: dict[str, bytes] = field(default_factory=dict)
    walls: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)   # process type -> CPU-s during the renders
    elapsed_s: float = 0.0
    others_cores: float = 0.0
    failed: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.build} {self.label}".strip()

    @property
    def per_render(self) -> float:
        return sum(self.cpu.values()) / max(1, len(self.pngs))


def sketch_set(pool: int = 32, painter: int = 8) -> list[tuple[str, str]]:
    """Every recipe sketch, the first `pool` example-pool sources, `painter` painter seeds."""
    from brushwork.painter import paint
    from brushwork.pool import example_pool_dir

    recipe = sorted((HERE / "sketches").glob("recipe_*.js"))
    sources = sorted((example_pool_dir() / "sources").glob("*.js"))[:pool]
    return [(p.stem, p.read_text()) for p in [*recipe, *sources]] + \
        [(f"painter_{s}", paint(s).code) for s in range(painter)]


def _chromium_cpu() -> dict[int, tuple[str, float]]:
    """pid -> (process type, CPU-s) for every Chromium below this process."""
    import psutil

    found = {}
    for proc in psutil.Process().children(recursive=True):
        try:
            if "chrom" not in proc.name().lower():
                continue
            kind = next((a.split("=", 1)[1] for a in proc.cmdline() if a.startswith("--type=")), "browser")
            t = proc.cpu_times()
            found[proc.pid] = (kind, t.user + t.system)
        except psutil.Error:
            pass
    return found


async def run_pass(build: str, label: str, sketches, seed: int) -> Pass:
    import psutil

    from brushwork.render import RenderConfig, Renderer

    result = Pass(build, label)
    async with Renderer(RenderConfig(use_cache=False, brush_shader=build)) as r:
        before, machine, t0 = _chromium_cpu(), psutil.cpu_times(), time.perf_counter()
        renders = await asyncio.gather(*(r.render(code, seed) for _, code in sketches))
        result.elapsed_s = time.perf_counter() - t0
        after, machine_after = _chromium_cpu(), psutil.cpu_times()
    for pid, (kind, cpu) in after.items():
        kind = {"gpu-process": "gpu", "renderer": "renderer"}.get(kind, "browser")
        result.cpu[kind] = result.cpu.get(kind, 0.0) + cpu - before.get(pid, (kind, 0.0))[1]
    idle = (machine_after.idle - machine.idle) + (getattr(machine_after, "iowait", 0) - getattr(machine, "iowait", 0))
    busy = max(0.0, len(os.sched_getaffinity(0)) - idle / result.elapsed_s)
    result.others_cores = max(0.0, busy - sum(result.cpu.values()) / result.elapsed_s)
    for (name, _), render in zip(sketches, renders):
        if render.ok and render.png:
            result.pngs[name] = render.png
            result.walls.append(render.timings.wall_s)
        else:
            result.failed.append(f"{name}: {render.status}")
    return result


def compare(a: Pass, b: Pass) -> dict:
    from brushwork.render.image import difference, paint_fraction, to_rgb

    diffs = {n: difference(a.pngs[n], b.pngs[n]) for n in a.pngs if n in b.pngs}
    paint = {n: abs(paint_fraction(to_rgb(a.pngs[n])) - paint_fraction(to_rgb(b.pngs[n]))) for n in diffs}
    worst = max(diffs, key=lambda n: diffs[n].mean_abs)
    return {"n": len(diffs), "identical": sum(a.pngs[n] == b.pngs[n] for n in diffs),
            "mean_max": diffs[worst].mean_abs, "worst_sketch": worst,
            "mean_mean": statistics.fmean(d.mean_abs for d in diffs.values()),
            "max_abs": max(d.max_abs for d in diffs.values()),
            "pixels_max": max(d.pixels for d in diffs.values()),
            "pixels_median": statistics.median(d.pixels for d in diffs.values()),
            "paint_max": max(paint.values())}


async def run(seed: int, pool: int, painter: int, console) -> list[Pass]:
    sketches = sketch_set(pool, painter)
    console.print(f"[bold]shader builds[/]: {len(sketches)} sketches, passes "
                  + ", ".join(f"{b} {label}".strip() for b, label in PASSES))
    passes = []
    for build, label in PASSES:
        p = await run_pass(build, label, sketches, seed)
        console.print(f"  {p.name}: {p.per_render:.2f} CPU-s/render, {60 * len(p.pngs) / p.elapsed_s:.1f}/min, "
                      f"other load {p.others_cores:.2f} cores" + (f", failed {p.failed}" if p.failed else ""))
        passes.append(p)
    return passes


def tables(passes: list[Pass]) -> list[tuple[str, list, list]]:
    by = {p.name: p for p in passes}
    builds = {}
    for p in passes:
        builds.setdefault(p.build, []).append(p)
    up_cpu = statistics.fmean(p.per_render for p in builds["upstream"])
    cost = []
    for build, runs in builds.items():
        n = sum(len(p.pngs) for p in runs)
        cpu = {k: sum(p.cpu.get(k, 0.0) for p in runs) / n for k in ("gpu", "renderer", "browser")}
        total = sum(cpu.values())
        cost.append([build, str(len(runs)), f"{total:.2f}", f"{cpu['gpu']:.2f}", f"{cpu['renderer']:.2f}",
                     f"{cpu['browser']:.2f}", f"{up_cpu / total:.2f}×" if total else "-",
                     f"{statistics.fmean(60 * len(p.pngs) / p.elapsed_s for p in runs):.1f}",
                     f"{statistics.median(w for p in runs for w in p.walls):.2f}",
                     ", ".join(f"{p.others_cores:.2f}" for p in runs)])
    fidelity = []
    for name, against, what in (("fast", "upstream A", "the rewrite alone"),
                                ("deterministic A", "upstream A", "rewrite + derivatives before the return"),
                                ("upstream B", "upstream A", "upstream run to run (noise)"),
                                ("deterministic B", "deterministic A", "deterministic run to run"),
                                ("fast", "upstream B", "the rewrite alone, against the other upstream run")):
        c = compare(by[against], by[name])
        fidelity.append([f"{name} vs {against}", what, f"{c['identical']}/{c['n']}", f"{c['mean_max']:.4f} "
                         f"({c['worst_sketch']})", f"{c['mean_mean']:.4f}", str(c["max_abs"]),
                         f"{c['pixels_median']:g} / {c['pixels_max']}", f"{100 * c['paint_max']:.2f}"])
    return [("CPU per render by p5.brush build (all Chromium processes; ratio = upstream / build)",
             ["build", "passes", "CPU-s/render", "GPU process", "renderer", "browser", "fewer CPU-s",
              "renders/min", "median wall s", "other load (cores)"], cost),
            ("Paintings compared (mean |Δ| on 0–255 per sketch; goal for the rewrite ≤ "
             f"{TARGETS['mean_abs']} on every sketch)",
             ["pair", "what", "byte-identical", "mean |Δ|, worst sketch", "mean |Δ|, mean", "worst pixel",
              "pixels changed, median / max", "paint fraction |Δ| max (points)"], fidelity)]


def section(passes: list[Pass], header: str) -> str:
    from results import markdown

    return markdown(tables(passes), START, END, header)
