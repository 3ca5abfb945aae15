"""Render benchmark: the public recipe's page-per-sketch rendering against brushwork's renderer.

Modes, all on the same Chromium binary, the same sketches and the same seed:

- a1  the recipe as published: Playwright launches Chromium with the recipe's flags, one
      browser, a fresh page per sketch with p5 and p5.brush inlined by `page.set_content`
      (no brushwork harness, as in the recipe: Math.random and p5's random/noise seeded as
      brushwork seeds them, so the paintings are comparable, and a small p5 addon that captures
      the canvas after the first frame), sketches one after another;
- a2  the same page-per-sketch baseline launched with brushwork's `CHROMIUM_FLAGS`;
- b   brushwork's `Renderer` (cache off, default workers), all sketches at once.

Then (shader.py; `--shader-only` runs just this, `--skip-shader` skips it) p5.brush's own build
against brushwork's patched builds (brushwork.render.brush_patch) on 48 sketches: CPU-seconds per
render (GPU process, renderer, browser) and renders per minute, how far each patched painting
sits from upstream, and run-to-run noise (upstream's against the deterministic build's zero).

Reports renders per minute, median latency, wall/in-page overhead (b), peak RSS of all
Chromium processes, the mean absolute pixel difference of each baseline painting against
brushwork's, and (unless --skip-extras) how long replacing a killed browser takes and what
the static gate and OCR cost. Writes its section of benchmarks/RESULTS.md. (Render time against
an earlier renderer is `--against REV`, below.)

    .venv/bin/python benchmarks/render.py                # full run, ~10-12 min on 2 cores (a1 is ~8)
    .venv/bin/python benchmarks/render.py --quick        # smoke run, writes nothing
    .venv/bin/python benchmarks/render.py --shader-only  # only the p5.brush builds, ~6-8 min on 2 cores
    .venv/bin/python benchmarks/render.py --against 28b51cd  # only: this checkout vs that rev, ABBA, ~5-8 min

`--against REV` runs only one measure: this checkout's renderer (B) against the one at REV (A; use
28b51cd, the last single-realm renderer), each side a subprocess (_render_worker.py: one worker, cache
off) with its own src on PYTHONPATH, REV's tree from a temporary `git worktree`; blocks A B B A, each
an untimed warm-up render of every sketch and then `--against-passes` timed passes. Writes the section
"Render: sketch realm vs single realm (ABBA)".
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import json
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
SKETCH_DIR = HERE / "sketches"
SIZE = 600
# What the public recipe launched Chromium with, plus the flags that keep it quiet on a
# closed network (without them it stalls on update and sync requests).
RECIPE_FLAGS = ("--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                "--disable-gpu-sandbox", "--no-sandbox")
QUIET_FLAGS = ("--disable-background-networking", "--disable-component-update", "--no-first-run",
               "--disable-sync", "--disable-quic")
QUIET_CORES = 0.25  # other processes' load below which a mode counts as undisturbed
TARGETS = {"diff": 0.25, "vs_a1": 10.0, "vs_a2": 1.5, "overhead": 1.05, "realm": 1.10}
START, END = "<!-- render-benchmark:start -->", "<!-- render-benchmark:end -->"
# --against: the last single-realm renderer (the sketch ran in the paint page: harness.js, guard.js).
REALM_BASELINE = "28b51cd"
REALM_START, REALM_END = "<!-- render-realm:start -->", "<!-- render-realm:end -->"
REALM_TITLE = "Render: sketch realm vs single realm (ABBA)"
WORKER = HERE / "_render_worker.py"
HANG = """function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}
function draw() {
  while (true) {}
}
"""
console = Console(width=None if sys.stdout.isatty() else 200)


@dataclass
class Render:
    """One sketch rendered in one mode."""

    name: str
    ok: bool
    wall_s: float
    png: bytes | None = None
    detail: str = ""
    overhead: float | None = None


@dataclass
class ModeRun:
    mode: str
    label: str
    renders: list[Render] = field(default_factory=list)
    startup_s: float = 0.0
    elapsed_s: float = 0.0  # first render started -> last render done (startup excluded)
    peak_rss: int = 0
    chromium_cpu_s: float = 0.0
    others_cores: float = 0.0  # CPU other processes on the machine used meanwhile
    load_before: float = 0.0  # cores busy just before the mode started
    attempts: int = 1

    @property
    def ok(self) -> list[Render]:
        return [r for r in self.renders if r.ok]

    @property
    def per_minute(self) -> float:
        return 60 * len(self.ok) / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def median_latency(self) -> float | None:
        return statistics.median(r.wall_s for r in self.ok) if self.ok else None

    @property
    def median_overhead(self) -> float | None:
        values = [r.overhead for r in self.ok if r.overhead]
        return statistics.median(values) if values else None


class Sampler:
    """Peak summed RSS of this process's Chromium descendants, and where the CPU went.

    Sampled in a thread every `interval_s`. RSS counts shared pages once per process, so the
    sum over-states what the processes really hold; it is the same measure for every mode.
    CPU: Chromium's CPU seconds (last sample of each process), and the machine's busy cores
    from /proc/stat, so load from other processes on the machine shows up as `others_cores`.
    """

    def __init__(self, interval_s: float = 0.2):
        self.interval_s = interval_s
        self.peak = 0
        self.chromium_cpu_s = 0.0
        self.others_cores = 0.0
        self._chromium: dict[int, float] = {}
        self._ours: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> int:
        import psutil

        total = 0
        for proc in [psutil.Process(), *psutil.Process().children(recursive=True)]:
            try:
                t = proc.cpu_times()
                self._ours[proc.pid] = t.user + t.system
                if "chrom" in proc.name().lower():
                    self._chromium[proc.pid] = self._ours[proc.pid]
                    total += proc.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval_s)

    def __enter__(self) -> Self:
        import psutil

        self._machine, self._t0 = psutil.cpu_times(), time.perf_counter()
        self._own0 = sum(psutil.Process().cpu_times()[:2])
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        import psutil

        self._stop.set()
        self._thread.join()
        window = time.perf_counter() - self._t0
        self._ours[os.getpid()] -= self._own0
        self.chromium_cpu_s = sum(self._chromium.values())
        ours = sum(self._ours.values()) / window
        self.others_cores = max(0.0, busy_cores(self._machine, psutil.cpu_times(), window) - ours)


def busy_cores(before, after, window_s: float) -> float:
    """Cores the whole machine kept busy between two psutil.cpu_times() readings."""
    idle = (after.idle - before.idle) + (getattr(after, "iowait", 0) - getattr(before, "iowait", 0))
    return max(0.0, len(os.sched_getaffinity(0)) - idle / window_s) if window_s else 0.0


async def wait_quiet(max_wait_s: float, threshold: float = QUIET_CORES) -> float:
    """Wait (up to max_wait_s) for other processes to leave the CPU; returns the busy cores last seen."""
    import psutil

    start = time.monotonic()
    said = -1.0
    while True:
        before, t0 = psutil.cpu_times(), time.perf_counter()
        await asyncio.sleep(2.0)
        load = busy_cores(before, psutil.cpu_times(), time.perf_counter() - t0)
        waited = time.monotonic() - start
        if load <= threshold or waited >= max_wait_s:
            return load
        if waited - said >= 30:
            console.print(f"  [yellow]other processes use {load:.1f} cores; waiting for a quiet machine "
                          f"({waited:.0f}/{max_wait_s:.0f} s)[/]")
            said = waited


def load_sketches(quick: bool) -> list[tuple[str, str]]:
    paths = sorted(SKETCH_DIR.glob("recipe_*.js"))
    if not paths:
        raise SystemExit(f"no sketches in {SKETCH_DIR}")
    return [(p.stem, p.read_text()) for p in (paths[:3] if quick else paths)]


# The baselines' own capture (the recipe had no harness): a p5 addon registered after p5.brush, so its
# hooks run after p5.brush's (whose postdraw paints). It seeds p5's random() and noise() as brushwork's
# realms do, so the paintings can be compared, and captures right after the first frame (or after setup
# when the sketch has no draw, or shortly after an error that stops p5), reading one pixel first so
# that the GL work is finished. `window.__bwResult()` answers JSON {"result": {"dataUrl": ...}}.
CAPTURE_JS = """(function () {
  "use strict";
  const params = { seed: Number(document.currentScript.dataset.seed || 0) >>> 0 };
  let finished = false;
  let resolveDone;
  const done = new Promise((resolve) => { resolveDone = resolve; });
  let inst = null;
  const capture = (p, stage) => {
    if (finished) return;
    finished = true;
    const result = { stage: stage, dataUrl: null };
    try {
      if (p) p.noLoop();
      const renderer = p ? p._renderer : null;
      const gl = renderer ? renderer.GL : null;
      if (gl) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      if (renderer && renderer.canvas) result.dataUrl = renderer.canvas.toDataURL("image/png");
    } catch (e) { result.error = String(e); }
    resolveDone(result);
  };
  p5.registerAddon((p5, fn, lifecycles) => {
    lifecycles.presetup = function () {
      inst = this;
      this.randomSeed(params.seed);
      this.noiseSeed(params.seed);
    };
    lifecycles.postsetup = function () {
      const p = this;
      if (typeof window.draw !== "function") setTimeout(() => capture(p, "setup"), 0);
    };
    lifecycles.postdraw = function () {
      const p = this;
      setTimeout(() => capture(p, "draw"), 0);
    };
  });
  const onFailure = () => setTimeout(() => capture(inst, "error"), 50);
  window.addEventListener("error", onFailure);
  window.addEventListener("unhandledrejection", onFailure);
  window.__bwResult = () => done.then((result) => JSON.stringify({ result: result }));
})();
"""


def baseline_html(code: str, seed: int) -> str:
    """The page a baseline inlines: Math.random seeded (brushwork's seed.js, which does only that), p5,
    p5.brush, the baselines' own capture script (CAPTURE_JS), the sketch."""
    from brushwork.render.assets import Libraries, harness_file

    libs = Libraries.locate()

    def script(text: str | bytes, attrs: str = "") -> str:
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        return f"<script{attrs}>" + text.replace("</script", "<\\/script") + "</script>"

    return "\n".join([
        '<!doctype html>\n<html><head><meta charset="utf-8"><title>baseline</title></head>',
        '<body style="margin:0;background:#fff">',
        script(harness_file("seed.js"), f' data-seed="{seed}" data-size="{SIZE}"'),
        script(libs.p5), script(libs.brush), script(CAPTURE_JS, f' data-seed="{seed}"'),
        script(code),
        "</body></html>",
    ])


async def baseline_one(browser, name: str, html: str, timeout_s: float) -> Render:
    t0 = time.perf_counter()
    page = await browser.new_page()

    async def paint() -> bytes | None:
        await page.set_content(html, wait_until="domcontentloaded")
        raw = json.loads(await page.evaluate("window.__bwResult()"))
        url = raw["result"].get("dataUrl")
        return base64.b64decode(url.split(",", 1)[1]) if url else None

    try:
        png = await asyncio.wait_for(paint(), timeout_s)
        wall = time.perf_counter() - t0
        render = Render(name, png is not None, wall, png, "" if png else "no capture")
    except TimeoutError:
        render = Render(name, False, time.perf_counter() - t0, detail=f"timeout after {timeout_s:g}s")
    except Exception as e:  # noqa: BLE001 - report any page failure as a failed render
        render = Render(name, False, time.perf_counter() - t0, detail=f"{type(e).__name__}: {e}".splitlines()[0])
    try:
        await asyncio.wait_for(page.close(), 30)
    except Exception as e:  # noqa: BLE001
        render.detail += f"; page.close failed ({type(e).__name__})"
    return render


async def run_baseline(mode: str, label: str, flags: tuple[str, ...], sketches, seed: int,
                       binary: str, timeout_s: float) -> ModeRun:
    from playwright.async_api import async_playwright

    run = ModeRun(mode, label)
    htmls = [(name, baseline_html(code, seed)) for name, code in sketches]
    with Sampler() as rss:
        async with async_playwright() as pw:
            t0 = time.perf_counter()
            browser = await pw.chromium.launch(executable_path=binary, args=list(flags), headless=True)
            run.startup_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            for name, html in htmls:
                if not browser.is_connected():  # a dead browser would fail every later sketch
                    browser = await pw.chromium.launch(executable_path=binary, args=list(flags), headless=True)
                render = await baseline_one(browser, name, html, timeout_s)
                run.renders.append(render)
                status = "ok" if render.ok else render.detail
                console.print(f"  [dim]{mode}[/] {name}: {render.wall_s:6.1f}s  {status}")
            run.elapsed_s = time.perf_counter() - t0
            await browser.close()
    run.peak_rss, run.chromium_cpu_s, run.others_cores = rss.peak, rss.chromium_cpu_s, rss.others_cores
    return run


async def run_brushwork(sketches, seed: int, binary: str, workers: int | None = None) -> ModeRun:
    from brushwork.render import RenderConfig, Renderer

    config = RenderConfig(use_cache=False, chromium=binary, **({"workers": workers} if workers else {}))
    mode = "b" if workers is None else f"b{workers}"
    run = ModeRun(mode, f"brushwork Renderer, {config.workers} worker{'s' if config.workers > 1 else ''}")
    with Sampler() as rss:
        t0 = time.perf_counter()
        async with Renderer(config) as r:
            run.startup_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            results = await asyncio.gather(*(r.render(code, seed=seed) for _, code in sketches))
            run.elapsed_s = time.perf_counter() - t0
    run.peak_rss, run.chromium_cpu_s, run.others_cores = rss.peak, rss.chromium_cpu_s, rss.others_cores
    for (name, _), res in zip(sketches, results, strict=True):
        ok = res.ok and res.png is not None
        run.renders.append(Render(name, ok, res.timings.wall_s, res.png, res.detail, res.timings.overhead))
        errors = "; ".join(e.message for e in res.js_errors)
        console.print(f"  [dim]{mode}[/] {name}: {res.timings.wall_s:6.1f}s  {res.status} "
                      f"paint {res.paint_fraction or 0:.2f} {errors}")
    return run


async def measure_restart(code: str, binary: str) -> dict:
    """A render that never finishes: how long until the browser is replaced and painting again."""
    from brushwork.render import RenderConfig, Renderer

    async with Renderer(RenderConfig(timeout_s=5, cpu_budget_s=4, use_cache=False, workers=1, chromium=binary)) as r:
        t0 = time.perf_counter()
        hung = await r.render(HANG, seed=1)
        hung_s = time.perf_counter() - t0
        after = []
        for _ in range(2):  # the first render on a fresh browser also compiles p5.brush's shaders
            t0 = time.perf_counter()
            res = await r.render(code, seed=1)
            after.append((res.status, time.perf_counter() - t0, res.paint_fraction))
        return {"hung_status": hung.status, "hung_call_s": hung_s, "restarts": list(r.restarts), "after": after}


def measure_ocr(run: ModeRun) -> dict:
    """The run-time gate's OCR (`text_in_image`) on brushwork's paintings: seconds per painting."""
    from brushwork.gate.ocr import read_text

    pngs = [r.png for r in run.renders if r.png]
    if not pngs:
        return {"skipped": "no paintings"}
    read_text(pngs[0])  # load the models once, as a long-lived scorer does
    times = []
    for png in pngs:
        t0 = time.perf_counter()
        read_text(png)
        times.append(1000 * (time.perf_counter() - t0))
    return {"median_ms": statistics.median(times), "max_ms": max(times), "n": len(times)}


def measure_gate(sketches) -> dict:
    from brushwork.gate import Gate

    check = Gate().check
    replies = [f"```javascript\n{code}```" for _, code in sketches]
    t0 = time.perf_counter()
    first = check(replies[0])   # the first includes loading the parser
    first_ms = 1000 * (time.perf_counter() - t0)
    per_sketch, reports = [], []
    for reply in replies:
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            report = check(reply)
            times.append(1000 * (time.perf_counter() - t0))
        per_sketch.append(statistics.median(times))
        reports.append(report)
    return {"first_ms": first_ms, "median_ms": statistics.median(per_sketch), "max_ms": max(per_sketch),
            "passed": sum(1 for r in reports if r.passed), "total": len(replies),
            "violations": sorted({i for r in reports for i in r.ids}), "first_passed": first.passed}


def pixel_diffs(b: ModeRun, baselines: list[ModeRun]) -> list[list[str]]:
    from brushwork.render.image import mean_abs_diff, to_rgb

    b_by_name = {r.name: r for r in b.renders}
    rows = []
    for render in b.renders:
        row = [render.name]
        for run in baselines:
            other = next((r for r in run.renders if r.name == render.name), None)
            if other is None:
                row.append("not run")
            elif not (other.ok and b_by_name[render.name].ok):
                row.append("failed")
            else:
                diff = mean_abs_diff(to_rgb(other.png), to_rgb(render.png))
                row.append(f"{diff:.3f} {'✓' if diff <= TARGETS['diff'] else '✗'}")
        rows.append(row)
    return rows


def max_diff(rows: list[list[str]], column: int) -> float | None:
    values = [float(r[column].split()[0]) for r in rows if r[column][:1].isdigit()]
    return max(values) if values else None


def ratio(b: ModeRun, a: ModeRun, a2: ModeRun | None) -> tuple[float | None, str]:
    """b's throughput over a's; when a rendered only a subset, bridge through a2 on that subset."""
    if not a.ok or not b.per_minute:
        return None, "no successful renders"
    if len(a.renders) == len(b.renders) or a2 is None:
        return b.per_minute / a.per_minute, "same sketches"
    names = {r.name for r in a.ok}
    a2_subset = sum(r.wall_s for r in a2.ok if r.name in names)
    a_subset = sum(r.wall_s for r in a.ok)
    if not a2_subset or not a2.per_minute:
        return None, "no a2 renders to bridge the subset"
    return (b.per_minute / a2.per_minute) * (a_subset / a2_subset), f"a1 on {len(names)} sketches, bridged via a2"


def fmt(value, spec: str = ".2f", suffix: str = "") -> str:
    return "—" if value is None else f"{value:{spec}}{suffix}"


def tables(runs: list[ModeRun], diffs: list[list[str]], extras: dict | None) -> list[tuple[str, list, list]]:
    by_mode = {r.mode: r for r in runs}
    b, a1, a2 = by_mode["b"], by_mode.get("a1"), by_mode.get("a2")
    out = [("Throughput", ["mode", "how", "ok / run", "startup s", "elapsed s", "renders/min",
                           "median latency s", "wall/in-page", "peak chromium RSS MiB",
                           "chromium CPU s / render", "other load (cores) before / during", "attempts"],
            [[r.mode, r.label, f"{len(r.ok)}/{len(r.renders)}", fmt(r.startup_s, ".1f"), fmt(r.elapsed_s, ".1f"),
              fmt(r.per_minute, ".2f"), fmt(r.median_latency, ".2f"), fmt(r.median_overhead, ".3f"),
              f"{r.peak_rss / 2**20:.0f}", fmt(r.chromium_cpu_s / len(r.ok) if r.ok else None, ".1f"),
              f"{r.load_before:.2f} / {r.others_cores:.2f}", str(r.attempts)] for r in runs])]
    targets = []
    for other, key in ((a1, "vs_a1"), (a2, "vs_a2")):
        if other is not None:
            value, note = ratio(b, other, a2 if other is a1 else None)
            verdict = "—" if value is None else ("met" if value >= TARGETS[key] else "missed")
            targets.append([f"throughput b/{other.mode}", fmt(value, ".2f", "×"), f"≥ {TARGETS[key]:g}", verdict, note])
    if (b1 := by_mode.get("b1")) is not None and b1.per_minute:
        targets.append(["throughput b/b1 (what the 2nd worker adds)", fmt(b.per_minute / b1.per_minute, ".2f", "×"),
                        "—", "—", "same sketches"])
    ov = b.median_overhead
    targets.append(["b wall/in-page (median)", fmt(ov, ".3f"), f"≤ {TARGETS['overhead']}",
                    "—" if ov is None else ("met" if ov <= TARGETS["overhead"] else "missed"), ""])
    for i, run in enumerate(r for r in (a1, a2) if r is not None):
        worst = max_diff(diffs, i + 1)
        targets.append([f"max mean |Δ| {run.mode} vs b", fmt(worst, ".3f"), f"≤ {TARGETS['diff']}",
                        "—" if worst is None else ("met" if worst <= TARGETS["diff"] else "missed"),
                        "0–255 scale, RGB over white"])
    out.append(("Targets", ["measure", "value", "target", "verdict", "note"], targets))
    out.append(("Mean |Δ| per sketch against b (0–255)", ["sketch"] + [r.mode for r in (a1, a2) if r], diffs))
    if extras is not None:
        out.append(("Recovery and gate", ["measure", "value"], extra_rows(extras)))
    return out


def extra_rows(extras: dict) -> list[list[str]]:
    rs, gate = extras["restart"], extras["gate"]
    rows = [["hung sketch (draw: while(true){}), timeout 5 s, CPU budget 4 s", (f"status {rs['hung_status']}, "
             f"call returned after {rs['hung_call_s']:.2f} s")],
            ["browser replacement (renderer.restarts)", ", ".join(f"{s:.2f} s" for s in rs["restarts"]) or "none"],
            *[[f"{label} render on the replacement ({rs['sketch']})",
               f"status {status} in {secs:.2f} s, paint {fmt(paint, '.2f')}"]
              for label, (status, secs, paint) in zip(("first", "second"), rs["after"], strict=True)]]
    rows += [["static gate check(reply), median over sketches", (f"{gate['median_ms']:.2f} ms "
              f"(max {gate['max_ms']:.2f} ms, first call {gate['first_ms']:.1f} ms)")],
             ["sketches passing the static gate", (f"{gate['passed']}/{gate['total']} "
              f"{'(violations: ' + ', '.join(gate['violations']) + ')' if gate['violations'] else ''}")]]
    ocr = extras.get("ocr", {"skipped": "not measured"})
    rows.append(["OCR (text_in_image) per painting, median over brushwork's paintings",
                 f"skipped: {ocr['skipped']}" if "skipped" in ocr
                 else f"{ocr['median_ms']:.0f} ms (max {ocr['max_ms']:.0f} ms, {ocr['n']} paintings; goal ≤ 250 ms)"])
    return rows


def write_results(path: Path, section: str, start: str = START, end: str = END) -> None:
    replace_section(start, end, section, path)


def machine_header(args, binary: str, n: int, runs: list[ModeRun]) -> str:
    from brushwork.render.assets import Libraries
    from brushwork.render.browser import chromium_version

    libs = Libraries.locate()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"## Run of {now}{' (quick)' if args.quick else ''}\n\n"
            f"- machine: nproc {len(os.sched_getaffinity(0))}, {os.uname().machine}, "
            f"{_mem_gib():.0f} GiB RAM; {chromium_version(binary)} at `{binary}`\n"
            f"- p5 {libs.p5_version}, p5.brush {libs.brush_version}; {n} sketches "
            f"(`benchmarks/sketches/recipe_*.js`), seed {args.seed}, {SIZE}×{SIZE}\n"
            f"- a1/a2 render one sketch after another (as the recipe did), per-sketch timeout "
            f"{args.timeout:g} s; b renders all at once. renders/min = ok renders / elapsed (browser "
            f"start-up excluded); latency = page created → capture decoded (b: its `timings.wall_s`)"
            + contamination(runs))


def contamination(runs: list[ModeRun]) -> str:
    busy = [f"{r.mode} {r.others_cores:.2f}" for r in runs if r.others_cores > QUIET_CORES]
    if not busy:
        return f"\n- the machine was otherwise quiet during every mode (other load ≤ {QUIET_CORES} cores)"
    return ("\n- **other processes loaded the machine during: " + ", ".join(busy)
            + " cores** (2-core machine): those modes' times are inflated")


def _mem_gib() -> float:
    import psutil

    return psutil.virtual_memory().total / 2**30


# --- --against REV: this checkout's renderer against the one at REV, ABBA, one run ---------------


def _git(*argv: str, check: bool = True) -> str:
    import subprocess

    out = subprocess.run(["git", "-C", str(HERE.parent), *argv], capture_output=True, text=True, check=False)
    if check and out.returncode:
        raise SystemExit(f"git {' '.join(argv)} failed: {out.stderr.strip()[:300]}")
    return out.stdout.strip()


def tree_digest(folder: Path) -> str:
    """sha256 (12 hex digits) over the relative paths and bytes of every file under `folder`."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def run_block(side: str, src: Path, sketch_file: Path, cache: Path, args, binary: str,
              node_modules: Path, n_renders: int) -> dict:
    """One block: a fresh worker process rendering every sketch (warm-up, then the timed passes)."""
    import subprocess

    cache.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(src), "BRUSHWORK_NODE_MODULES": str(node_modules),
           "BRUSHWORK_CACHE": str(cache)}
    cmd = [sys.executable, str(WORKER), "--src", str(src), "--sketches", str(sketch_file), "--seed", str(args.seed),
           "--passes", str(args.against_passes), "--cache-dir", str(cache / "renders"), "--chromium", binary]
    if args.save_png:
        cmd += ["--png-dir", str(Path(args.save_png) / f"block{cache.name.removeprefix('cache-')}-{side}")]
    deadline = 120 + 2 * 60 * n_renders  # the renderer's own 60 s timeout, twice (a retry), per render
    block = {"side": side, "renders": [], "warmups": [], "warmed": None, "start": None}
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    with Sampler() as sampler:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killer = threading.Timer(deadline, proc.kill)
        killer.start()
        try:
            for line in proc.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "start":
                    block["start"] = event
                elif event.get("event") == "warmup":
                    block["warmups"].append(event)
                elif event.get("event") == "warmed":
                    block["warmed"] = event
                elif event.get("event") == "render":
                    block["renders"].append(event)
                    console.print(f"  [dim]{side}[/] {event['sketch']}: {event['wall_s']:6.2f}s  {event['status']} "
                                  f"paint {event['paint_fraction'] or 0:.3f} {(event['sha256'] or '')[:10]}")
            stderr = proc.stderr.read()
            rc = proc.wait()
        finally:
            killer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    block.update(elapsed_s=time.perf_counter() - t0, others_cores=sampler.others_cores, loadavg_before=load_before,
                 loadavg_after=os.getloadavg()[0], rc=rc)
    if rc or block["start"] is None:
        raise RuntimeError(f"{side} worker failed (rc {rc}): {stderr.strip()[-600:]}")
    return block


def median_ratio_interval(a: dict[str, list[float]], b: dict[str, list[float]], resamples: int = 4000,
                          seed: int = 0) -> tuple[float, float]:
    """95 % percentile bootstrap of median(B) / median(A), resampling each sketch's renders within its side."""
    import numpy as np

    rng = np.random.default_rng(seed)

    def medians(side: dict[str, list[float]]) -> np.ndarray:
        draws = [np.asarray(v)[rng.integers(0, len(v), size=(resamples, len(v)))] for v in side.values() if v]
        return np.median(np.concatenate(draws, axis=1), axis=1)

    lo, hi = np.quantile(medians(b) / medians(a), [0.025, 0.975])
    return float(lo), float(hi)


def summarise_against(blocks: list[dict], names: list[str]) -> dict:
    def walls(side: str, key: str = "wall_s") -> dict[str, list[float]]:
        return {n: [r[key] for blk in blocks if blk["side"] == side for r in blk["renders"]
                    if r["sketch"] == n and r["status"] == "ok" and r[key]] for n in names}

    def hashes(side: str) -> dict[str, set]:
        return {n: {r["sha256"] for blk in blocks if blk["side"] == side for r in blk["renders"] if r["sketch"] == n}
                for n in names}

    renders = {s: [r for blk in blocks if blk["side"] == s for r in blk["renders"]] for s in "AB"}
    a, b = walls("A"), walls("B")
    flat = {s: [w for v in d.values() for w in v] for s, d in (("A", a), ("B", b))}
    in_page = {s: [w for v in walls(s, "in_page_s").values() for w in v] for s in "AB"}
    med = {s: statistics.median(v) if v else None for s, v in flat.items()}
    out = {"med": med, "in_page": {s: statistics.median(v) if v else None for s, v in in_page.items()},
           "n": {s: len(v) for s, v in flat.items()}, "total": {s: len(v) for s, v in renders.items()},
           "not_ok": {s: sorted({f"{r['sketch']}: {r['status']} {r['detail']}".strip()
                                 for r in v if r["status"] != "ok"}) for s, v in renders.items()},
           "cache_hits": sum(1 for v in renders.values() for r in v if r["cache_hit"]),
           "per_sketch": [], "ratio": None, "interval": None}
    if med["A"] and med["B"]:
        out["ratio"] = med["B"] / med["A"]
        out["interval"] = median_ratio_interval(a, b)
    ha, hb = hashes("A"), hashes("B")
    for n in names:
        ma = statistics.median(a[n]) if a[n] else None
        mb = statistics.median(b[n]) if b[n] else None
        same = "yes" if len(ha[n]) == 1 and ha[n] == hb[n] else f"no (A {len(ha[n])}, B {len(hb[n])} distinct)"
        out["per_sketch"].append((n, ma, mb, mb / ma if ma and mb else None, len(a[n]), len(b[n]), same))
    per = [row[3] for row in out["per_sketch"] if row[3]]
    out["per_sketch_median"] = statistics.median(per) if per else None
    out["png_same"] = sum(1 for row in out["per_sketch"] if row[6] == "yes")
    return out


def against_tables(blocks: list[dict], s: dict) -> list[tuple[str, list, list]]:
    goal = TARGETS["realm"]
    ratio = s["ratio"]
    b_ok = not s["not_ok"]["B"] and s["total"]["B"] > 0
    lo_hi = f" [{s['interval'][0]:.3f}, {s['interval'][1]:.3f}]" if s["interval"] else ""
    summary = [
        ["median render wall_s, A (single realm)", fmt(s["med"]["A"], ".3f", " s"), "", "",
         f"{s['n']['A']} ok renders of {s['total']['A']}"],
        ["median render wall_s, B (sketch realm)", fmt(s["med"]["B"], ".3f", " s"), "", "",
         f"{s['n']['B']} ok renders of {s['total']['B']}"],
        ["B / A, median render wall", fmt(ratio, ".3f", "×") + lo_hi, f"≤ {goal:.2f}",
         "—" if ratio is None else ("met" if ratio <= goal else "missed"),
         "95 % bootstrap, renders resampled within sketch and side"],
        ["B / A, median of per-sketch ratios", fmt(s["per_sketch_median"], ".3f", "×"), "", "", ""],
        ["median in_page_s, A / B", f"{fmt(s['in_page']['A'], '.3f')} / {fmt(s['in_page']['B'], '.3f')} s", "", "",
         "navigation start → encoded capture"],
        ["every B render status ok", "yes" if b_ok else "no: " + "; ".join(s["not_ok"]["B"])[:300], "yes",
         "met" if b_ok else "missed", ""],
        ["every A render status ok", "yes" if not s["not_ok"]["A"] else "no: " + "; ".join(s["not_ok"]["A"])[:300],
         "", "", ""],
        ["cache hits", str(s["cache_hits"]), "0", "met" if not s["cache_hits"] else "missed", "cache off, fresh dirs"],
        ["sketches whose PNG is one and the same in every A and B render", f"{s['png_same']}/{len(s['per_sketch'])}",
         "", "", "sha256 of the PNG"],
    ]
    per = [[n, fmt(ma, ".3f"), fmt(mb, ".3f"), fmt(r, ".3f", "×"), f"{na} / {nb}", same]
           for n, ma, mb, r, na, nb, same in s["per_sketch"]]
    order = []
    for i, blk in enumerate(blocks):
        ok = [r["wall_s"] for r in blk["renders"] if r["status"] == "ok"]
        order.append([str(i + 1), blk["side"], f"{len(ok)}/{len(blk['renders'])}", fmt(statistics.median(ok) if ok
                      else None, ".3f"), fmt(blk["start"]["startup_s"], ".1f"), fmt(blk["elapsed_s"], ".1f"),
                      f"{blk['others_cores']:.2f}", f"{blk['loadavg_before']:.2f} → {blk['loadavg_after']:.2f}"])
    return [("Summary", ["measure", "value", "target", "verdict", "note"], summary),
            ("Per sketch (median wall_s)", ["sketch", "A s", "B s", "B/A", "ok renders A / B", "same PNG"], per),
            ("Blocks in run order", ["#", "side", "ok", "median wall_s", "renderer start s", "block s",
                                     "other load (cores)", "loadavg 1 min"], order)]


def against_revision(against: str) -> tuple[str, dict]:
    """The commit `against` names, and what a results header says of both sides (`digest` is
    filled in by `abba_blocks`)."""
    rev = _git("rev-parse", "--verify", f"{against}^{{commit}}")
    return rev, {"rev_line": _git("log", "-1", "--format=%h %s", rev), "head": _git("rev-parse", "--short", "HEAD"),
                 "dirty": bool(_git("status", "--porcelain", "--", "src")), "digest": None}


async def abba_blocks(args, sketches, rev: str, order: str, binary, node_modules, n_renders: int, about: dict,
                      on_block=None) -> list[dict]:
    """Blocks of `order` ("ABBA"...), each a fresh `_render_worker.py` process: A the src of `rev`
    (a temporary `git worktree`), B this checkout's src copied once now. `about["digest"]` gets
    B's digest; `on_block(blk)` sees each block as it ends."""
    import shutil
    import tempfile

    blocks = []
    with tempfile.TemporaryDirectory(prefix="bw-against-") as tmp:
        tree = Path(tmp) / "tree"
        try:
            _git("worktree", "add", "--detach", str(tree), rev)
            sketch_file = Path(tmp) / "sketches.json"
            sketch_file.write_text(json.dumps(sketches))
            # B: a copy of this checkout's src taken now, so edits made to the tree while the run goes on
            # (the checkout may be someone's work in progress) cannot change B between its blocks.
            snapshot = Path(tmp) / "current" / "src"
            shutil.copytree(HERE.parent / "src", snapshot, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
            about["digest"] = tree_digest(snapshot / "brushwork")
            src = {"A": tree / "src", "B": snapshot}
            for i, side in enumerate(order):
                load = await wait_quiet(args.wait_quiet)
                console.print(f"[bold]block {i + 1}/{len(order)}: {side}[/] (other load before: {load:.2f} cores)")
                blk = run_block(side, src[side], sketch_file, Path(tmp) / f"cache-{i + 1}", args, binary,
                                node_modules, n_renders)
                if on_block is not None:
                    on_block(blk)
                blocks.append(blk)
        finally:
            _git("worktree", "remove", "--force", str(tree), check=False)
            _git("worktree", "prune", check=False)
    return blocks


async def against(args) -> None:
    """This checkout's renderer (B) against the one at args.against (A), ABBA, in one run."""
    from brushwork.render.assets import find_node_modules
    from brushwork.render.browser import chromium_version, find_chromium

    binary = find_chromium(args.chromium)
    sketches = load_sketches(args.quick)
    names = [n for n, _ in sketches]
    rev, about = against_revision(args.against)
    rev_line, head, dirty = about["rev_line"], about["head"], about["dirty"]
    node_modules = find_node_modules()
    order = "ABBA" * args.against_rounds
    n_renders = len(sketches) * (1 + args.against_passes)
    loadavg_start = os.getloadavg()
    console.print(f"[bold]--against {args.against}[/] ({rev_line}): {len(sketches)} sketches, "
                  f"blocks {' '.join(order)}, {args.against_passes} timed pass(es) each; "
                  f"loadavg {loadavg_start[0]:.2f}")
    blocks = await abba_blocks(args, sketches, rev, order, binary, node_modules, n_renders, about)
    loadavg_end = os.getloadavg()
    starts = {blk["side"]: blk["start"] for blk in blocks}
    summary = summarise_against(blocks, names)
    out = against_tables(blocks, summary)
    print_tables(console, out)
    if args.write if args.write is not None else not args.quick:
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        busy = max(blk["others_cores"] for blk in blocks)
        header = (
            f"## {REALM_TITLE}, run of {now}{' (quick)' if args.quick else ''}\n\n"
            f"- A: the single-realm renderer at `{rev_line}` (a temporary `git worktree`); B: the sketch realm, "
            f"this checkout (HEAD {head}{' + uncommitted changes under src/' if dirty else ''}; src copied once at "
            f"the start, src/brushwork digest {about['digest']}). Each block is a "
            f"fresh process (`benchmarks/_render_worker.py`) with its side's src on PYTHONPATH, one "
            f"`SyncRenderer` worker, cache off (fresh `BRUSHWORK_CACHE`), an untimed warm-up render of every "
            f"sketch, then {args.against_passes} timed pass(es); blocks {' '.join(order)}, one after another\n"
            f"- machine: nproc {len(os.sched_getaffinity(0))}, {os.uname().machine}; {chromium_version(binary)}; "
            f"p5 {starts['A']['p5']} / {starts['B']['p5']}, p5.brush {starts['A']['brush']} / {starts['B']['brush']} "
            f"(A / B), {starts['B']['brush_shader']} shader; {len(sketches)} sketches "
            f"(`benchmarks/sketches/recipe_*.js`), seed {args.seed}, {SIZE}×{SIZE}; wall_s = `timings.wall_s`\n"
            f"- load average (1, 5, 15 min) {', '.join(f'{x:.2f}' for x in loadavg_start)} before, "
            f"{', '.join(f'{x:.2f}' for x in loadavg_end)} after; other processes used up to {busy:.2f} cores "
            "during a block" + (" (**a loaded machine: times are inflated and noisier; ABBA spreads the drift "
                                "over both sides**)" if busy > QUIET_CORES else " (quiet)"))
        write_results(Path(args.results), markdown(out, REALM_START, REALM_END, header), REALM_START, REALM_END)
        console.print(f"wrote {args.results}")


async def main(args) -> None:
    if args.against:
        await against(args)
        return
    if not args.shader_only:
        await render_modes(args)
    if not args.skip_shader:
        await shader_builds(args)


async def shader_builds(args) -> None:
    """p5.brush's own build against the patched ones (shader.py): CPU per render, fidelity, noise."""
    import shader

    from brushwork.render.browser import chromium_version, find_chromium

    await wait_quiet(args.wait_quiet)
    pool, painter = (2, 1) if args.quick else (args.shader_pool, args.shader_painter)
    passes = await shader.run(args.seed, pool, painter, console)
    print_tables(console, shader.tables(passes))
    if args.write if args.write is not None else not args.quick:
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        n = len(passes[0].pngs) + len(passes[0].failed)
        others = max(p.others_cores for p in passes)
        header = (f"## p5.brush blend-shader builds, run of {now}\n\n"
                  f"- machine: nproc {len(os.sched_getaffinity(0))}, {os.uname().machine}; "
                  f"{chromium_version(find_chromium(args.chromium))}; {n} sketches (8 recipe, "
                  f"{pool} pool sources, {painter} painter seeds), seed {args.seed}, {SIZE}×{SIZE}, default "
                  "workers, cache off; passes interleaved: upstream A, deterministic A, fast, upstream B, "
                  "deterministic B\n"
                  f"- other processes used up to {others:.2f} cores during a pass"
                  + (" (**a loaded machine: wall times and renders/min are inflated; CPU-s per render is the "
                     "measure to read**)" if others > QUIET_CORES else " (quiet)"))
        write_results(Path(args.results), shader.section(passes, header), shader.START, shader.END)
        console.print(f"wrote {args.results}")


async def render_modes(args) -> None:
    from brushwork.render.browser import CHROMIUM_FLAGS, find_chromium

    binary = find_chromium(args.chromium)
    sketches = load_sketches(args.quick)
    limit = len(sketches) if args.recipe_limit is None else min(args.recipe_limit, len(sketches))
    console.print(f"[bold]{len(sketches)} sketches[/], Chromium {binary}, a1 on {limit}")
    plan = [("b", lambda: run_brushwork(sketches, args.seed, binary))]
    if args.b1:
        plan.append(("b1", lambda: run_brushwork(sketches, args.seed, binary, workers=1)))
    plan.append(("a2", lambda: run_baseline("a2", "page per sketch, brushwork flags", tuple(CHROMIUM_FLAGS),
                                            sketches, args.seed, binary, args.timeout)))
    if limit:
        plan.append(("a1", lambda: run_baseline("a1", "page per sketch, recipe flags", RECIPE_FLAGS + QUIET_FLAGS,
                                                sketches[:limit], args.seed, binary, args.timeout)))
    runs = []
    for mode, start in plan:
        # a1 takes minutes: one attempt. The others are cheap: retry a run that other
        # processes disturbed and keep the least disturbed attempt.
        attempts = []
        for _ in range(1 if mode == "a1" else 1 + args.retries):
            load = await wait_quiet(args.wait_quiet)
            console.print(f"[bold]{mode}[/] (other load before: {load:.2f} cores)")
            run = await start()
            run.load_before = load
            attempts.append(run)
            if run.others_cores <= QUIET_CORES:
                break
            console.print(f"  [yellow]{mode} disturbed: other processes used {run.others_cores:.2f} cores[/]")
        best = min(attempts, key=lambda r: r.others_cores)
        best.attempts = len(attempts)
        runs.append(best)
    runs.sort(key=lambda r: ["a1", "a2", "b1", "b"].index(r.mode))
    b = next(r for r in runs if r.mode == "b")
    extras = None
    if not args.skip_extras:
        console.print("[bold]extras[/] browser replacement, static gate")
        await wait_quiet(args.wait_quiet)
        cheapest = min(b.ok or b.renders, key=lambda r: r.wall_s).name
        restart = await measure_restart(dict(sketches)[cheapest], binary)
        extras = {"restart": {**restart, "sketch": cheapest}, "gate": measure_gate(sketches), "ocr": measure_ocr(b)}
    if args.save_png:
        save_pngs(Path(args.save_png), runs)
    blocks = tables(runs, pixel_diffs(b, [r for r in runs if r.mode in ("a1", "a2")]), extras)
    print_tables(console, blocks)
    if args.write if args.write is not None else not args.quick:
        header = machine_header(args, binary, len(sketches), runs)
        write_results(Path(args.results), markdown(blocks, START, END, header))
        console.print(f"wrote {args.results}")


def save_pngs(folder: Path, runs: list[ModeRun]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for run in runs:
        for r in run.ok:
            (folder / f"{r.name}.{run.mode}.png").write_bytes(r.png)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="3 sketches, a1 on 1, writes nothing unless --write")
    p.add_argument("--recipe-limit", type=int, default=None,
                   help="render only the first N sketches with a1 (the slow recipe flags); 0 skips a1")
    p.add_argument("--timeout", type=float, default=150.0, help="per-sketch timeout for a1/a2, seconds")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--chromium", help="Chromium binary for every mode (default: brushwork's choice)")
    p.add_argument("--b1", action=argparse.BooleanOptionalAction, default=True,
                   help="also run brushwork with one worker, to show what the second worker adds")
    p.add_argument("--wait-quiet", type=float, default=120.0, metavar="S",
                   help="before each mode wait up to S seconds for other processes to leave the CPU")
    p.add_argument("--retries", type=int, default=2,
                   help="rerun a cheap mode (not a1) up to N times when other processes disturbed it")
    p.add_argument("--skip-extras", action="store_true", help="skip the browser-replacement and gate measures")
    p.add_argument("--results", default=str(HERE / "RESULTS.md"), help="markdown file whose section is replaced")
    p.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                   help="write the results section (default: yes, except with --quick)")
    p.add_argument("--save-png", metavar="DIR", help="also save every painting as DIR/<sketch>.<mode>.png")
    p.add_argument("--shader-only", action="store_true",
                   help="only compare p5.brush's builds (upstream, fast, deterministic): benchmarks/shader.py")
    p.add_argument("--skip-shader", action="store_true", help="skip the p5.brush build comparison")
    p.add_argument("--shader-pool", type=int, default=32, help="example-pool sources in the build comparison")
    p.add_argument("--shader-painter", type=int, default=8, help="painter seeds in the build comparison")
    p.add_argument("--against", metavar="REV", default=None,
                   help=f"run only the ABBA render-time measure of this checkout against the renderer at git REV "
                        f"({REALM_BASELINE}: the last single-realm renderer) and write its RESULTS.md section")
    p.add_argument("--against-passes", type=int, default=2,
                   help="--against: timed passes over the sketches in each block (after one untimed warm-up pass)")
    p.add_argument("--against-rounds", type=int, default=1,
                   help="--against: repeats of the A B B A order")
    args = p.parse_args(argv)
    if args.quick and args.recipe_limit is None:
        args.recipe_limit = 1
    if args.quick and args.against_passes == 2:
        args.against_passes = 1
    return args


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
