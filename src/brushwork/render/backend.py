"""`RenderBackend`: where paintings are made. The seam for a new renderer (a Ray pool, a GPU
or remote machine): implement these five members in one module, and `Renderer(config,
backend=...)` puts the content-addressed cache in front of it.

A backend renders one sketch per call, concurrently up to its capacity, and never raises for
anything the sketch does: a hostile or broken sketch comes back as a `RenderResult` with a
status (`timeout`, `crashed`, `too_slow`, ...). It raises `RenderError` only for its own
failures (not started, closed). `versions` names everything that can change a painting (the
libraries, the harness, the browser and its flags): the cache key includes it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from brushwork.render.result import RenderResult


@runtime_checkable
class RenderBackend(Protocol):
    @property
    def versions(self) -> str:
        """Everything that can change a painting; valid after `start()`."""
        ...

    async def start(self) -> None:
        """Get ready to render (start browsers, connect to a cluster)."""
        ...

    async def render(self, code: str, seed: int = 0, size: int | None = None) -> RenderResult:
        """One sketch -> one `RenderResult`; `size` None means the backend's configured size."""
        ...

    def status(self) -> dict:
        """Plain data for /health and logs: workers, how many are busy, restarts, settings."""
        ...

    async def aclose(self) -> None:
        """Release everything (browsers, processes, connections); safe to call twice."""
        ...
