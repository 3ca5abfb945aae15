"""Render: sketch + seed + size -> PNG and what the page did (`RenderResult`)."""

from brushwork.render.renderer import RenderConfig, Renderer
from brushwork.render.result import RenderResult
from brushwork.render.sync import SyncRenderer, render_sketches

__all__ = ["RenderConfig", "RenderResult", "Renderer", "SyncRenderer", "render_sketches"]
