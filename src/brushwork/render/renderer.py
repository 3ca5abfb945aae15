"""The warm, sandboxed, concurrent renderer: sketch + seed + size -> `RenderResult`.

A pool of long-lived Chromium workers (default one per core), each with one page that is
reloaded for every sketch (a fresh JavaScript realm: global-mode sketches leak globals and
p5.brush keeps module state). Libraries come from a cacheable 127.0.0.1 server. A render
that runs past its deadline kills its whole browser, which is replaced before the next
job; a crashed browser is replaced the same way. Both come back as infrastructure
failures (`status` ``timeout`` / ``crashed``), never as a painting's fault.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.errors import ConfigError, RenderError
from brushwork.render import image
from brushwork.render.assets import AssetServer, Libraries
from brushwork.render.browser import CHROMIUM_FLAGS, BrowserWorker, chromium_version, find_chromium
from brushwork.render.cache import RenderCache, cache_key, default_cache_dir
from brushwork.render.result import BlockedRequest, JsError, RenderResult, RuntimeFlag, Timings

WARM_UP = """function setup() {{ createCanvas({size}, {size}, WEBGL); noLoop(); }}
function draw() {{ background(255); brush.noStroke(); brush.fill("#88aacc", 120); brush.circle(20, 20, 8); }}
"""


@dataclass
class RenderConfig:
    workers: int = field(default_factory=lambda: len(os.sched_getaffinity(0)) or 1,
                         metadata={"help": "browsers rendering in parallel (one per core is best)"})
    size: int = field(default=600, metadata={"help": "canvas side in pixels a sketch must create"})
    timeout_s: float = field(default=60.0, metadata={"help": "deadline for one render; past it the browser restarts"})
    use_cache: bool = field(default=True, metadata={"help": "reuse renders of identical code+seed+size"})
    cache_dir: Path | None = field(default=None, metadata={"help": "render cache folder (default ~/.cache/brushwork)"})
    chromium: str | None = field(default=None, metadata={"help": "Chromium binary (default: Debian's)"})
    paint_tolerance: int = field(default=4, metadata={"help": "channel difference that counts as paint"})

    def __post_init__(self):
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, got {self.workers}")
        if not 16 <= self.size <= 4096:
            raise ConfigError(f"size must be between 16 and 4096 pixels, got {self.size}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be positive, got {self.timeout_s}")


class Renderer:
    """Async renderer. Use as ``async with Renderer(RenderConfig(...)) as r: await r.render(code)``."""

    def __init__(self, config: RenderConfig | None = None, **overrides):
        self.config = config or RenderConfig(**overrides)
        if config is not None and overrides:
            raise ConfigError("pass either a RenderConfig or keyword overrides, not both")
        self._pw_cm = None
        self._pw = None
        self._server: AssetServer | None = None
        self._idle: asyncio.Queue[BrowserWorker] | None = None
        self._workers: list[BrowserWorker] = []
        self._binary = ""
        self._versions = ""
        self._cache = RenderCache(self.config.cache_dir or default_cache_dir()) if self.config.use_cache else None
        self.restarts: list[float] = []  # seconds each browser replacement took

    async def __aenter__(self) -> Renderer:
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def versions(self) -> str:
        """Everything that can change a painting: libraries, harness, browser, flags."""
        return self._versions

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        self._binary = find_chromium(self.config.chromium)
        libraries = Libraries.locate()
        self._server = AssetServer(libraries)
        self._server.start()
        self._versions = "|".join([self._server.version, self._server.harness_digest,
                                   chromium_version(self._binary), " ".join(CHROMIUM_FLAGS)])
        self._pw_cm = async_playwright()
        self._pw = await self._pw_cm.start()
        self._idle = asyncio.Queue()
        self._workers = [BrowserWorker(self._pw, self._binary, origin=self._server.origin)
                         for _ in range(self.config.workers)]
        try:
            await asyncio.gather(*(self._start_warm(w) for w in self._workers))
        except BaseException:
            await self.close()
            raise
        for w in self._workers:
            self._idle.put_nowait(w)

    def status(self) -> dict:
        """Workers, how many are alive and busy, restarts, and the settings that matter."""
        idle = self._idle.qsize() if self._idle is not None else 0
        return {"workers": len(self._workers), "alive": sum(bool(w.alive) for w in self._workers),
                "busy": max(0, len(self._workers) - idle), "restarts": len(self.restarts),
                "timeout_s": self.config.timeout_s, "cache": self.config.use_cache, "versions": self._versions}

    async def close(self) -> None:
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

    async def render(self, code: str, seed: int = 0, size: int | None = None,
                     use_cache: bool | None = None) -> RenderResult:
        """Render one sketch. Never raises for anything the sketch does."""
        if self._idle is None or self._server is None:
            raise RenderError("Renderer is not started: use `async with Renderer() as r:` or await start()")
        size = size or self.config.size
        seed = int(seed) & 0xFFFFFFFF
        cache = self._cache if (use_cache if use_cache is not None else self.config.use_cache) else None
        key = cache_key(code, seed, size, self._versions)
        if cache is not None and (hit := await asyncio.to_thread(cache.get, key)) is not None:
            return hit
        t_queue = time.perf_counter()
        worker = await self._idle.get()
        queued = time.perf_counter() - t_queue
        try:
            result = await self._render_on(worker, code, seed, size, queued)
        finally:
            self._idle.put_nowait(worker)
        if cache is not None:
            await asyncio.to_thread(cache.put, key, result)
        return result

    async def _render_on(self, worker: BrowserWorker, code: str, seed: int, size: int,
                         queued: float) -> RenderResult:
        if not worker.alive:
            await self._replace(worker)
        token = self._server.add_job(code, seed, size)
        t0 = time.perf_counter()
        try:
            raw = await asyncio.wait_for(worker.run(self._server.page_url(token)),
                                         self.config.timeout_s)
        except TimeoutError:
            await self._replace(worker)
            return RenderResult("timeout", seed, size, timings=Timings(time.perf_counter() - t0, queue_s=queued),
                                detail=f"no frame within {self.config.timeout_s:g}s; browser restarted")
        except Exception as e:  # noqa: BLE001 - Playwright raises plain Error for many causes
            return await self._after_exception(worker, e, seed, size, t0, queued)
        finally:
            self._server.drop_job(token)
        wall = time.perf_counter() - t0
        return await asyncio.to_thread(self._finish, worker, raw, seed, size, wall, queued)

    async def _after_exception(self, worker, error, seed, size, t0, queued) -> RenderResult:
        wall = time.perf_counter() - t0
        navigations = list(worker.events.navigations)
        if worker.alive and "context was destroyed" in str(error):
            navigations = navigations or ["(unknown destination)"]
        if worker.alive and navigations:
            # The sketch navigated its own page away: that is the sketch's doing, not ours.
            return RenderResult("ok", seed, size, flags=(RuntimeFlag("navigation", navigations[0]),),
                                timings=Timings(wall, queue_s=queued), detail=str(error).splitlines()[0])
        await self._replace(worker)
        return RenderResult("crashed", seed, size, timings=Timings(wall, queue_s=queued),
                            detail=f"browser failed mid-render ({type(error).__name__}: "
                                   f"{str(error).splitlines()[0] if str(error) else ''}); restarted")

    async def _replace(self, worker: BrowserWorker) -> None:
        t0 = time.perf_counter()
        await worker.close()
        await self._start_warm(worker)
        self.restarts.append(time.perf_counter() - t0)

    async def _start_warm(self, worker: BrowserWorker) -> None:
        """Start a browser and paint one tiny fill, so p5.brush's shaders are compiled before
        the first real job (a cold first render is ~1.5 s slower and may miss a deadline)."""
        await worker.start()
        token = self._server.add_job(WARM_UP.format(size=self.config.size), 0, self.config.size)
        try:
            await asyncio.wait_for(worker.run(self._server.page_url(token)), self.config.timeout_s)
        except Exception:  # noqa: BLE001 - a failed warm-up only means a cold first render
            pass
        finally:
            self._server.drop_job(token)

    def _finish(self, worker: BrowserWorker, raw: dict, seed: int, size: int, wall: float,
                queued: float) -> RenderResult:
        res, ev = raw["result"], raw["events"]
        png = base64.b64decode(res["dataUrl"].split(",", 1)[1]) if res.get("dataUrl") else None
        fraction = None
        if png is not None:
            fraction = image.paint_fraction(image.to_rgb(png), self.config.paint_tolerance)
        flags = [RuntimeFlag(f["id"], f["detail"]) for f in ev["runtime"]]
        flags += [RuntimeFlag("dom_tampering", d) for d in ev["dom"]]
        if ev["clearedAfterPaint"]:
            flags.append(RuntimeFlag("painted_then_cleared", f"background()/clear() after painting "
                                                              f"({ev['clearedAfterPaint']}x)"))
        if png is not None and (res["width"], res["height"]) != (size, size):
            flags.append(RuntimeFlag("canvas_size", f"captured {res['width']}x{res['height']}, expected {size}x{size}"))
        if png is not None and (res["canvasCount"] != 1 or not res["sameCanvas"]):
            flags.append(RuntimeFlag("canvas_replaced", f"{res['canvasCount']} canvases at capture"))
        flags += [RuntimeFlag("navigation", url) for url in worker.events.navigations]
        errors = [JsError(e["message"], e.get("line")) for e in ev["errors"]]
        seen = {e.message for e in errors}
        # Playwright sees the same errors as the harness, worded a little differently.
        errors += [JsError(m) for m in worker.events.page_errors if not any(m in s or s in m for s in seen)]
        blocked = [BlockedRequest(b["url"], b["directive"]) for b in ev["blocked"]]
        blocked += [BlockedRequest(url, why) for url, why in worker.events.failed_requests]
        t = ev["timings"]
        in_page = (t.get("encoded") or 0) / 1000 or None
        timings = Timings(
            wall_s=wall, queue_s=queued, in_page_s=in_page,
            load_s=_span(t, "start", "setup"), paint_s=_span(t, "setup", "flushed"),
            encode_s=_span(t, "flushed", "encoded"),
        )
        return RenderResult(
            "ok", seed, size, png=png, width=res["width"], height=res["height"], paint_fraction=fraction,
            js_errors=tuple(errors), blocked_requests=tuple(blocked), flags=tuple(flags),
            brush_calls=dict(ev["calls"]), paint_calls=ev["paintCalls"], cleared_after_paint=ev["clearedAfterPaint"],
            frame_count=res["frameCount"] or 0, timings=timings,
        )


def _span(t: dict, a: str, b: str) -> float | None:
    start = t.get(a)
    end = t.get(b)
    if start is None or end is None:
        return None
    return (end - start) / 1000
