"""Bit-identical renders (the default `deterministic` p5.brush build): the same code, seed and size
give the same PNG bytes on either worker of a pool and after the browsers are restarted.

Upstream p5.brush reads dFdx/dFdy after an early return in its blend shader, so its renders
differ run to run in a few dozen pixels; brushwork.render.brush_patch moves them before it.
"""

from __future__ import annotations

import asyncio

import pytest
from sketch_sets import sketch_set

from brushwork.render import RenderConfig, Renderer

pytestmark = [pytest.mark.chromium, pytest.mark.slow]
SEED = 11


async def _render_pairs(sketches: list[tuple[str, str]]) -> tuple[list[tuple[bytes, bytes]], list[set[int]], str]:
    """Each sketch twice at once on a two-browser pool; the browsers (pids) that painted each pair."""
    async with Renderer(RenderConfig(workers=2, timeout_s=60, use_cache=False)) as r:
        backend = r.backend
        painted_by: list[int] = []
        render_on = backend._render_on

        async def recorded(worker, *args):
            painted_by.append(worker.proc.pid)
            return await render_on(worker, *args)

        backend._render_on = recorded
        pairs, pids = [], []
        for _, code in sketches:
            painted_by.clear()
            a, b = await asyncio.gather(r.render(code, SEED), r.render(code, SEED))
            assert a.status == b.status == "ok", (a.detail, b.detail)
            pairs.append((a.png, b.png))
            pids.append(set(painted_by))
        return pairs, pids, r.versions


async def _render_once(sketches: list[tuple[str, str]]) -> list[bytes]:
    async with Renderer(RenderConfig(workers=2, timeout_s=60, use_cache=False)) as r:
        results = await asyncio.gather(*(r.render(code, SEED) for _, code in sketches))
    assert all(x.status == "ok" for x in results), [x.detail for x in results if x.status != "ok"]
    return [x.png for x in results]


@pytest.mark.timeout(900)
def test_same_sketch_same_bytes_on_every_worker_and_after_a_restart(monkeypatch):
    monkeypatch.delenv("BRUSHWORK_BRUSH_SHADER", raising=False)
    sketches = sketch_set(pool=8, painter=4)
    assert len(sketches) >= 20
    pairs, pids, versions = asyncio.run(_render_pairs(sketches))
    assert "brush-shader-deterministic" in versions and "Chromium" in versions   # the cache key names both
    assert all(len(p) == 2 for p in pids), pids   # each pair really ran on the two different browsers
    differing = [name for (name, _), (a, b) in zip(sketches, pairs) if a != b]
    assert not differing, f"renders differ between workers: {differing}"
    after_restart = asyncio.run(_render_once(sketches))   # new browser processes, a fresh GPU process
    differing = [name for (name, _), (a, _), c in zip(sketches, pairs, after_restart) if a != c]
    assert not differing, f"renders differ after a browser restart: {differing}"
