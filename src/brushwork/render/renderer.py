"""`Renderer`: what callers hold. A `RenderBackend` (by default the local Chromium pool) with
the content-addressed cache in front: identical code + seed + size + backend versions is
painted once. Use as ``async with Renderer(RenderConfig(...)) as r: await r.render(code)``.
"""

from __future__ import annotations

import asyncio

from brushwork.errors import ConfigError
from brushwork.render.backend import RenderBackend
from brushwork.render.cache import RenderCache, cache_key, default_cache_dir
from brushwork.render.config import RenderConfig, backend_class
from brushwork.render.result import RenderResult


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

    async def start(self) -> None:
        await self.backend.start()
        self._started = True

    def status(self) -> dict:
        return {**self.backend.status(), "backend": type(self.backend).__name__, "cache": self._cache is not None}

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
        key = cache_key(code, seed, size, self.backend.versions) if cache is not None and self._started else None
        if key is not None and (hit := await asyncio.to_thread(cache.get, key)) is not None \
                and not hit.infra_failure:  # older caches kept infrastructure failures
            return hit
        result = await self.backend.render(code, seed, size)
        if key is not None and not result.infra_failure:
            await asyncio.to_thread(cache.put, key, result)
        return result
