"""A synchronous face on the async `Renderer`, for scripts and synchronous callers.

`SyncRenderer` runs the renderer's event loop on a private thread so that ordinary code
can call ``render()`` (or ``render_many()``, which still renders concurrently).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable

from brushwork.render.backend import RenderBackend
from brushwork.render.config import RenderConfig
from brushwork.render.renderer import Renderer
from brushwork.render.result import RenderResult


class SyncRenderer:
    def __init__(self, config: RenderConfig | None = None, backend: RenderBackend | None = None,
                 lazy: bool = False, **overrides):
        """`lazy`: start the backend when the first sketch reaches it, not now."""
        self._renderer = Renderer(config, backend, **overrides)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="brushwork-render", daemon=True)
        self._thread.start()
        try:
            if not lazy:
                self._call(self._renderer.start())
        except BaseException:
            self.close()
            raise

    @property
    def renderer(self) -> Renderer:
        return self._renderer

    def _call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def run(self, coro, timeout: float | None = None):
        """Run a coroutine on the renderer's event loop (any async work that renders, such as
        scoring) and wait for its result; callable from any thread."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def status(self) -> dict:
        return self._renderer.status()

    def render(self, code: str, seed: int = 0, size: int | None = None,
               use_cache: bool | None = None) -> RenderResult:
        return self._call(self._renderer.render(code, seed, size, use_cache))

    def render_many(self, codes: Iterable[str], seed: int = 0, size: int | None = None,
                    use_cache: bool | None = None, on_done=None) -> list[RenderResult]:
        """Render concurrently; `on_done(index, result)` is called as each finishes."""
        async def run_all():
            async def one(i, code):
                result = await self._renderer.render(code, seed, size, use_cache)
                if on_done is not None:
                    on_done(i, result)
                return result
            return await asyncio.gather(*(one(i, c) for i, c in enumerate(codes)))
        return self._call(run_all())

    def close(self) -> None:
        if self._loop.is_running():
            with_timeout = asyncio.run_coroutine_threadsafe(self._renderer.close(), self._loop)
            try:
                with_timeout.result(timeout=30)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> SyncRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def render_sketches(codes: Iterable[str], seed: int = 0, **config) -> list[RenderResult]:
    """One-shot helper: start a renderer, render every sketch, close it."""
    with SyncRenderer(RenderConfig(**config)) as r:
        return r.render_many(list(codes), seed)
