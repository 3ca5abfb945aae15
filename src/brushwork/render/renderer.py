"""`Renderer`: what callers hold. A `RenderBackend` (by default the local Chromium pool) with
the content-addressed cache in front: identical code + seed + size + backend versions is
painted once. Use as ``async with Renderer(RenderConfig(...)) as r: await r.render(code)``.

The backend starts when the first sketch reaches it (or on `start()`): a caller that only
gates replies with no sketch never starts a browser. Only a trusted capture is cached (never
a failure, a capture that disagrees with its replay, or one from a job during which a browser
process died). A cache hit is marked `cache_hit` and carries its own timings (the lookup),
never those of the render that filled the cache.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from brushwork.errors import ConfigError
from brushwork.render.backend import RenderBackend
from brushwork.render.cache import RenderCache, cache_key, default_cache_dir
from brushwork.render.config import RenderConfig, backend_class
from brushwork.render.result import RenderResult, Timings


class Renderer:
    def __init__(self, config: RenderConfig | None = None, backend: RenderBackend | None = None, **overrides):
        if config is not None and overrides:
            raise ConfigError("pass either a RenderConfig or keyword overrides, not both")
        self.config = config or RenderConfig(**overrides)
        if backend is None:
            backend = backend_class(self.config.backend)(self.config)
        if not isinstance(backend, RenderBackend):
            raise ConfigError(f"{type(backend).__name__} is not a RenderBackend: it needs versions, start(), "
                              "render(code, seed, size), status() and aclose() (see brushwork.render.backend)")
        self.backend = backend
        self._cache = RenderCache(self.config.cache_dir or default_cache_dir()) if self.config.use_cache else None
        self._started = False
        self._starting: asyncio.Lock | None = None

    async def __aenter__(self) -> Renderer:
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def versions(self) -> str:
        return self.backend.versions

    @property
    def restarts(self) -> list[float]:
        """Seconds each browser replacement took (backends that replace browsers keep this)."""
        return getattr(self.backend, "restarts", [])

    @property
    def started(self) -> bool:
        return self._started

    def preflight(self) -> None:
        """Check what the backend will need to start (a backend may offer `preflight()`), so a
        missing browser fails now, not at the first painting; starts nothing."""
        check = getattr(self.backend, "preflight", None)
        if check is not None:
            check()

    async def start(self) -> None:
        """Start the backend now (idempotent; `render` calls it on first use)."""
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if not self._started:
                await self.backend.start()
                self._started = True

    def status(self) -> dict:
        return {**self.backend.status(), "backend": type(self.backend).__name__, "cache": self._cache is not None,
                "started": self._started}

    async def close(self) -> None:
        self._started = False
        await self.backend.aclose()

    async def render(self, code: str, seed: int = 0, size: int | None = None,
                     use_cache: bool | None = None) -> RenderResult:
        """Render one sketch (from the cache when it was painted before). Never raises for
        anything the sketch does."""
        size = size or self.config.size
        seed = int(seed) & 0xFFFFFFFF
        cache = self._cache if (use_cache if use_cache is not None else self.config.use_cache) else None
        await self.start()   # the cache key needs the backend's versions, known once it started
        t0 = time.perf_counter()
        key = cache_key(code, seed, size, self.backend.versions) if cache is not None else None
        if key is not None and (hit := await asyncio.to_thread(cache.get, key)) is not None:
            return replace(hit, cache_hit=True, timings=Timings(wall_s=time.perf_counter() - t0))
        result = await self.backend.render(code, seed, size)
        if key is not None:  # the cache keeps only a trusted capture (`RenderResult.trusted`)
            await asyncio.to_thread(cache.put, key, result)
        return result
