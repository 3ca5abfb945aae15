"""The local Chromium render backend: sketch + seed + size -> `RenderResult`, in long-lived sandboxed browsers.

A pool of long-lived Chromium workers (default one per core), each opening a fresh page for
every sketch: the paint realm, which opens a fresh sandboxed frame for the sketch (the sketch
realm) and replays the display list that frame sends with the real p5.brush (harness/realm.js,
harness/replay.js). Libraries come from a cacheable 127.0.0.1 server.

Faults. A render that runs past its deadline kills its whole browser, which is replaced
before the next job; a crashed page is replaced the same way. A job during which another
process of the browser died (the GPU process, watched through /proc: `render.processes`) is
stopped and its browser replaced, and so is one whose capture `disagrees` with its replay
(calls that paint, a blank canvas): a lost WebGL context paints nothing. Any of these may be
our fault, so the sketch is rendered once more on a fresh browser: a success is the result;
a timeout or crash that repeats is the sketch's (`repeated`), a capture that disagrees twice
is a replay that repeats (the sketch's blank canvas), and anything else is ``untrusted``
(ours). A render whose page spends more than the CPU budget (CPU seconds of the page's
renderer process, polled from /proc) is stopped before the deadline and comes back
``too_slow``, the sketch's fault.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from dataclasses import replace

from brushwork.errors import RenderError
from brushwork.render import image
from brushwork.render.assets import AssetServer, Libraries
from brushwork.render.browser import CHROMIUM_FLAGS, BrowserWorker, chromium_version, find_chromium, user_agent
from brushwork.render.config import RenderConfig
from brushwork.render.cpu import RendererCpu
from brushwork.render.evidence import read_evidence
from brushwork.render.processes import BrowserProcesses, described
from brushwork.render.result import RenderResult, RuntimeFlag, Timings

CPU_POLL_S = 0.2


class _Navigated(Exception):
    pass


def _navigated(destination: str, seed: int, size: int, wall: float, queued: float) -> RenderResult:
    """The sketch navigated its frame away: that is the sketch's doing (a `navigation` flag), not ours."""
    return RenderResult("ok", seed, size, flags=(RuntimeFlag("navigation", destination),),
                        timings=Timings(wall, queue_s=queued), detail="the sketch navigated its frame away")


class _ProcessDied(Exception):
    def __init__(self, kinds: list[str]):
        super().__init__(described(kinds))


class _TooSlow(Exception):
    def __init__(self, cpu_s: float):
        super().__init__(f"{cpu_s:.1f} CPU-s")
        self.cpu_s = cpu_s


class ChromiumBackend:
    """The default `RenderBackend`: a pool of warm Chromium workers on this machine. No cache
    (see `Renderer`); use it through ``async with Renderer(config) as r``."""

    def __init__(self, config: RenderConfig | None = None):
        self.config = config or RenderConfig()
        self._pw_cm = None
        self._pw = None
        self._server: AssetServer | None = None
        self._idle: asyncio.Queue[BrowserWorker] | None = None
        self._workers: list[BrowserWorker] = []
        self._binary = ""
        self._versions = ""
        self.restarts: list[float] = []  # seconds each browser replacement took

    @property
    def versions(self) -> str:
        """Everything that can change a painting: libraries, harness, browser, flags."""
        return self._versions

    def preflight(self) -> None:
        """What `start` needs and can miss, checked without starting anything (a SetupError
        saying what to install)."""
        find_chromium(self.config.chromium)
        Libraries.locate()

    async def start(self) -> None:
        """Launch every browser and connect to it. Playwright's driver (a Node process) is the
        slowest part, so the browsers launch while it starts; no page is opened until a job
        comes. The first job on a browser compiles p5.brush's shaders itself: start plus a first
        painting costs less than with a warm-up page before it (benchmarks/render_start.py)."""
        from playwright.async_api import async_playwright

        self._binary = find_chromium(self.config.chromium)
        libraries = Libraries.locate()
        self._server = AssetServer(libraries, self.config.brush_shader)
        self._server.start()
        self._pw_cm = async_playwright()
        driver = asyncio.ensure_future(self._pw_cm.start())
        try:
            version = await asyncio.to_thread(chromium_version, self._binary)
            flags = (*CHROMIUM_FLAGS, user_agent(version))
            # The shader mode by name; the digest covers the served bytes (the patch's included).
            self._versions = "|".join([self._server.version, f"brush-shader-{self.config.brush_shader}",
                                       self._server.harness_digest, version, " ".join(flags)])
            self._workers = [BrowserWorker(self._binary, flags, origin=self._server.origin, nice=self.config.nice)
                             for _ in range(self.config.workers)]
            await _all(w.launch() for w in self._workers)
            self._pw = await driver
            await _all(w.connect(self._pw) for w in self._workers)
        except BaseException:
            await asyncio.wait({driver})  # started or failed: either way aclose() can end it
            await self.aclose()
            raise
        self._idle = asyncio.Queue()
        for w in self._workers:
            self._idle.put_nowait(w)

    def status(self) -> dict:
        """Workers, how many are alive and busy, restarts, and the settings that matter."""
        idle = self._idle.qsize() if self._idle is not None else 0
        return {"workers": len(self._workers), "alive": sum(bool(w.alive) for w in self._workers),
                "busy": max(0, len(self._workers) - idle), "restarts": len(self.restarts),
                "timeout_s": self.config.timeout_s, "cpu_budget_s": self.config.cpu_budget_s,
                "versions": self._versions}

    async def aclose(self) -> None:
        for w in self._workers:
            await w.close()
        self._workers = []
        if self._pw_cm is not None:
            with contextlib.suppress(Exception):
                await self._pw_cm.__aexit__(None, None, None)
            self._pw_cm = self._pw = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    async def render(self, code: str, seed: int = 0, size: int | None = None) -> RenderResult:
        """Render one sketch. Never raises for anything the sketch does."""
        if self._idle is None or self._server is None:
            raise RenderError("the Chromium backend is not started: use `async with Renderer() as r:` "
                              "or await start()")
        size = size or self.config.size
        t_queue = time.perf_counter()
        worker = await self._idle.get()
        queued = time.perf_counter() - t_queue
        try:
            result = await self._render_on(worker, code, seed, size, queued)
            if _fault(result) is not None:  # maybe ours: once more, on a fresh browser
                if result.disagrees:  # the other faults have replaced the browser already
                    await self._replace(worker)
                result = _after_retry(result, await self._render_on(worker, code, seed, size, 0.0))
        finally:
            self._idle.put_nowait(worker)
        return result

    async def _render_on(self, worker: BrowserWorker, code: str, seed: int, size: int,
                         queued: float) -> RenderResult:
        processes = BrowserProcesses(worker.proc.pid) if worker.alive else None
        if processes is None or processes.gpu_crashes:  # dead, or its GPU process died between jobs
            await self._replace(worker)
            processes = BrowserProcesses(worker.proc.pid)
        token = self._server.add_job(code, seed, size)
        t0 = time.perf_counter()
        try:
            raw, cpu = await self._watched(worker, self._server.page_url(token), processes)
        except TimeoutError:
            await self._replace(worker)
            return RenderResult("timeout", seed, size, timings=Timings(time.perf_counter() - t0, queue_s=queued),
                                detail=f"no frame within {self.config.timeout_s:g}s; browser restarted")
        except _Navigated as e:
            return _navigated(str(e), seed, size, time.perf_counter() - t0, queued)
        except _ProcessDied as e:
            await self._replace(worker)
            return RenderResult("untrusted", seed, size, timings=Timings(time.perf_counter() - t0, queue_s=queued),
                                detail=f"{e} died during the render, so its canvas cannot be trusted; browser "
                                       "restarted (not the sketch's doing: no sketch code runs there)")
        except _TooSlow as e:
            wall = time.perf_counter() - t0
            await self._replace(worker)
            return RenderResult("too_slow", seed, size, timings=Timings(wall, queue_s=queued, cpu_s=e.cpu_s),
                                detail=f"the page spent {e.cpu_s:.1f} CPU-s in {wall:.1f}s, over the budget of "
                                       f"{self.config.cpu_budget_s:g}; stopped, browser restarted")
        except Exception as e:  # noqa: BLE001 - Playwright raises plain Error for many causes
            return await self._after_exception(worker, e, seed, size, t0, queued)
        finally:
            self._server.drop_job(token)
        wall = time.perf_counter() - t0
        result = await asyncio.to_thread(self._finish, worker, raw, seed, size, wall, queued)
        return replace(result, timings=replace(result.timings, cpu_s=cpu))

    async def _watched(self, worker: BrowserWorker, url: str, processes: BrowserProcesses) -> tuple[dict, float]:
        """Run one job under the deadline (TimeoutError) and the CPU budget (`_TooSlow`),
        watching the browser's own `processes` (`_ProcessDied`); returns the harness's answer and
        the CPU seconds the page's renderer spent."""
        meter = RendererCpu(worker.proc.pid)
        run = asyncio.ensure_future(worker.run(url))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.timeout_s
        try:
            while not run.done():
                left = deadline - loop.time()
                if left <= 0:
                    raise TimeoutError
                await asyncio.wait({run}, timeout=min(CPU_POLL_S, left))
                if gone := processes.gone():
                    raise _ProcessDied(gone)
                if not run.done() and (cpu := meter.seconds()) > self.config.cpu_budget_s:
                    raise _TooSlow(cpu)
                if not run.done() and worker.events.navigations:  # the sketch's frame left: nothing will answer
                    raise _Navigated(worker.events.navigations[0])
            if gone := processes.gone():  # after the answer too: a lost canvas still answers
                raise _ProcessDied(gone)
            return run.result(), meter.seconds()
        finally:
            if not run.done():
                run.cancel()
                await asyncio.wait({run})

    async def _after_exception(self, worker, error, seed, size, t0, queued) -> RenderResult:
        wall = time.perf_counter() - t0
        navigations = list(worker.events.navigations)
        if worker.alive and "context was destroyed" in str(error):
            navigations = navigations or ["(unknown destination)"]
        if worker.alive and navigations:   # the navigation landed before the watcher saw it
            return _navigated(navigations[0], seed, size, wall, queued)
        await self._replace(worker)
        return RenderResult("crashed", seed, size, timings=Timings(wall, queue_s=queued),
                            detail=f"browser failed mid-render ({type(error).__name__}: "
                                   f"{str(error).splitlines()[0] if str(error) else ''}); restarted")

    async def _replace(self, worker: BrowserWorker) -> None:
        t0 = time.perf_counter()
        await worker.close()
        await worker.start(self._pw)
        self.restarts.append(time.perf_counter() - t0)

    def _finish(self, worker: BrowserWorker, raw: dict, seed: int, size: int, wall: float,
                queued: float) -> RenderResult:
        """The PNG, what was replayed and what the sketch realm reported, from the paint realm's
        answer (`render.evidence`), beside what Playwright saw."""
        res, ev = raw.get("result"), raw.get("events")
        if not isinstance(res, dict) or not isinstance(ev, dict):  # no answer from the paint realm
            worker.events.crashed = True  # so the next render replaces the browser first
            return RenderResult("crashed", seed, size, timings=Timings(wall, queue_s=queued),
                                detail="the page gave no answer; browser restarted")
        data_url = res.get("dataUrl")
        png = base64.b64decode(data_url.split(",", 1)[1]) if isinstance(data_url, str) and "," in data_url else None
        fraction = None
        if png is not None:
            fraction = image.paint_fraction(image.to_rgb(png), self.config.paint_tolerance)
        evidence = read_evidence(ev, worker.events)
        flags = evidence.flags
        shape = f"{_int(res.get('width'))}x{_int(res.get('height'))}"
        if png is not None and shape != f"{size}x{size}":
            flags += (RuntimeFlag("canvas_size", f"captured {shape}, expected {size}x{size}"),)
        t = ev.get("timings") or {}
        in_page = (_number(t.get("encoded")) or 0) / 1000 or None
        timings = Timings(
            wall_s=wall, queue_s=queued, in_page_s=in_page,
            load_s=_span(t, "start", "setup"), paint_s=_span(t, "setup", "flushed"),
            encode_s=_span(t, "flushed", "encoded"),
        )
        return RenderResult(
            "ok", seed, size, png=png, width=_int(res.get("width")), height=_int(res.get("height")),
            paint_fraction=fraction, js_errors=evidence.errors, blocked_requests=evidence.blocked,
            flags=flags, brush_calls=evidence.brush_calls, paint_calls=_int(ev.get("paintCalls")),
            cleared_after_paint=_int(ev.get("clearedAfterPaint")), frame_count=_int(res.get("frameCount")),
            timings=timings, display_list=_compact(ev.get("displayList")),
        )


async def _all(steps) -> None:
    """Run `steps` together; once all have ended, raise the first failure (none is left running)."""
    outcomes = await asyncio.gather(*steps, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome


def _fault(r: RenderResult) -> str | None:
    """What may have been our fault in one attempt: "stopped" (a timeout or a crashed page),
    "died" (another browser process died), "blank" (the capture disagrees with the replay)."""
    if r.status in ("timeout", "crashed"):
        return "stopped"
    if r.status == "untrusted":
        return "died"
    return "blank" if r.disagrees else None


def _after_retry(first: RenderResult, retry: RenderResult) -> RenderResult:
    """The result of two attempts, the second on a fresh browser. A success is the result; a
    timeout or crash that repeats is the sketch's, and so is a blank capture that repeats (a
    deterministic replay painted nothing visible); anything else leaves no capture to trust."""
    first_fault, fault = _fault(first), _fault(retry)
    what = (f"a blank capture although the replay made {first.paint_calls} painting calls"
            if first_fault == "blank" else f"{first.status} ({first.detail})")
    earlier = f"first attempt: {what}"
    if fault is None:
        return replace(retry, attempts=2, detail=f"{retry.detail}; {earlier}" if retry.detail else earlier)
    if fault == first_fault == "stopped":
        return replace(retry, attempts=2, repeated=True,
                       detail=f"{retry.detail}; {earlier}: it failed on a fresh browser too, so it is the sketch's")
    if fault == first_fault == "blank":
        return replace(retry, attempts=2, repeated=True,
                       detail=f"the replay made {retry.paint_calls} painting calls and no pixel differs from the "
                              "background, on a fresh browser too: they paint nothing visible (white on white paper, "
                              "off the canvas); paint with visible colours inside the canvas")
    if fault == "stopped":  # after a fault of another kind: a one-off, ours
        return replace(retry, attempts=2, detail=f"{retry.detail}; {earlier}")
    why = retry.detail if fault == "died" else \
        f"the replay made {retry.paint_calls} painting calls and the capture is blank"
    return replace(retry, status="untrusted", png=None, paint_fraction=None, attempts=2,
                   detail=f"{why}; {earlier}; no capture to trust, so this render is not the sketch's verdict "
                          "(rendered once more it may succeed; if it keeps happening, look for the OOM killer "
                          "in the kernel log)")


def _compact(value) -> str:
    import json

    return json.dumps(value, separators=(",", ":")) if isinstance(value, dict) else ""


def _number(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _int(v) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def _span(t: dict, a: str, b: str) -> float | None:
    start = _number(t.get(a))
    end = _number(t.get(b))
    if start is None or end is None:
        return None
    return (end - start) / 1000
