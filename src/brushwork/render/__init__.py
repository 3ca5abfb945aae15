"""Render: sketch + seed + size -> PNG and what the page did (`RenderResult`).

`Renderer` is what callers hold: a `RenderBackend` (where paintings are made; the local
Chromium pool by default) with the content-addressed cache in front. `SyncRenderer` is the
same from synchronous code. Nothing outside this package touches Chromium.
"""

from brushwork.render.backend import RenderBackend
from brushwork.render.config import RenderConfig
from brushwork.render.renderer import Renderer
from brushwork.render.result import RenderResult
from brushwork.render.sync import SyncRenderer, render_sketches

__all__ = ["RenderBackend", "RenderConfig", "RenderResult", "Renderer", "SyncRenderer", "render_sketches"]
