"""The render-backend seam: any `RenderBackend` plugs into `Renderer` (the content-addressed
cache in front of it) and into the pipeline; nothing outside `brushwork.render` needs to
know where paintings are made. The backends here are real: a view that counts what reaches
the session's Chromium pool, and a counting wrapper around a fresh Chromium pool."""

from __future__ import annotations

import subprocess
import sys

import pytest

from brushwork.errors import ConfigError
from brushwork.render import RenderBackend, RenderConfig, Renderer, RenderResult
from brushwork.render.chromium import ChromiumBackend

pytestmark = pytest.mark.chromium

CODE = """function setup() { createCanvas(600, 600, WEBGL); noLoop(); }
function draw() { background(250); brush.noStroke(); brush.fill("#c0567a", 160); brush.circle(0, 0, 180); }
"""


class CountingBackend:
    """Passes every render to another backend and remembers what reached it. `owns` says
    whether it starts and closes that backend (a view over a pool someone else runs does not)."""

    def __init__(self, inner, owns: bool = True, tag: str = ""):
        self.inner, self.owns, self.tag = inner, owns, tag
        self.calls: list[tuple[str, int, int | None]] = []

    @property
    def versions(self) -> str:
        return self.inner.versions + self.tag

    async def start(self) -> None:
        if self.owns:
            await self.inner.start()

    async def render(self, code: str, seed: int = 0, size: int | None = None) -> RenderResult:
        self.calls.append((code, seed, size))
        return await self.inner.render(code, seed, size)

    def status(self) -> dict:
        return {**self.inner.status(), "calls": len(self.calls)}

    async def aclose(self) -> None:
        if self.owns:
            await self.inner.aclose()


def test_both_backends_meet_the_protocol():
    assert isinstance(ChromiumBackend(RenderConfig(workers=1)), RenderBackend)
    assert isinstance(CountingBackend(ChromiumBackend(RenderConfig(workers=1))), RenderBackend)


def test_an_object_that_is_not_a_backend_is_refused_with_what_it_lacks():
    class Painter:
        async def render(self, code):
            return None

    with pytest.raises(ConfigError, match=r"not a RenderBackend.*versions, start\(\), render"):
        Renderer(RenderConfig(workers=1), backend=Painter())


def test_the_cache_stands_in_front_of_any_backend(renderer, tmp_path):
    view = CountingBackend(renderer.renderer.backend, owns=False)
    front = Renderer(RenderConfig(workers=1, cache_dir=tmp_path), backend=view)

    async def paint():
        await front.start()
        return [await front.render(CODE, seed=3), await front.render(CODE, seed=3), await front.render(CODE, seed=4),
                await front.render(CODE, seed=3, use_cache=False)]

    first, again, other_seed, uncached = renderer.run(paint())
    assert [c[1] for c in view.calls] == [3, 4, 3]          # the repeat came from the cache
    assert first.ok and not first.cache_hit and again.cache_hit and again.png == first.png
    assert not other_seed.cache_hit and not uncached.cache_hit
    assert front.status()["backend"] == "CountingBackend" and front.status()["calls"] == 3


def test_the_cache_key_names_the_backend_versions(renderer, tmp_path):
    """A backend whose libraries, harness or browser differ never reads another's paintings."""
    a = CountingBackend(renderer.renderer.backend, owns=False)
    b = CountingBackend(renderer.renderer.backend, owns=False, tag="|another-chromium")

    async def paint(backend):
        front = Renderer(RenderConfig(workers=1, cache_dir=tmp_path), backend=backend)
        await front.start()
        return await front.render(CODE, seed=9)

    assert not renderer.run(paint(a)).cache_hit
    assert renderer.run(paint(a)).cache_hit
    assert not renderer.run(paint(b)).cache_hit
    assert len(a.calls) == 1 and len(b.calls) == 1


@pytest.mark.slow
def test_the_pipeline_paints_through_a_given_backend(example_pool):  # the pool renders come from the cache
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    backend = CountingBackend(ChromiumBackend(RenderConfig(workers=1, timeout_s=30)))
    reply = f"```javascript\n{CODE}```"
    with Pipeline(ScoringOptions(workers=1, preset="hps-only", render_cache=False), backend=backend) as pipeline:
        painting = pipeline.run(reply, seed=5, group_seed=1)
        assert painting.report.passed and painting.png is not None and painting.card.total > 0
        assert (CODE, 5, 600) in backend.calls
        assert pipeline.status()["backend"] == "CountingBackend"
    assert not backend.inner.status()["alive"]           # closed with the pipeline


def test_importing_the_renderer_loads_no_gate_score_or_pool():
    probe = ("import sys, brushwork.render; "
             "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('brushwork.') and m.count('.')}))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "gate" not in loaded and "score" not in loaded and "pool" not in loaded, loaded
    assert "render" in loaded
