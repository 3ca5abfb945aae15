"""A whole reply through the gate: the sketch extracted, the static rules, then (when they pass)
a real render and the run-time rules. The one gate-then-render path; `brushwork.score.pipeline` builds on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from brushwork.gate import GateConfig, GateReport, check_render, check_sketch
from brushwork.gate.rules import RULES_BY_ID
from brushwork.gate.verdict import Violation
from brushwork.render import Renderer, RenderResult
from brushwork.sketch import Sketch, extract_sketch


@dataclass(frozen=True)
class Gated:
    """One reply after the gate: its sketch, verdict and render (None when not rendered)."""

    sketch: Sketch | None
    report: GateReport
    render: RenderResult | None


def gate_static(reply: str, config: GateConfig | None = None) -> Gated:
    """The static rules only (no browser)."""
    sketch = extract_sketch(reply)
    if sketch is None:
        rule = RULES_BY_ID["no_sketch"]
        return Gated(None, GateReport((Violation(rule.id, rule.severity, "no p5.js sketch found in the reply"),),
                                      sketch_found=False), None)
    return Gated(sketch, check_sketch(sketch, config), None)


async def gate_reply(reply: str, renderer: Renderer, config: GateConfig | None = None, seed: int = 0,
                     size: int | None = None, render_all: bool = False, use_cache: bool | None = None,
                     on_render: Callable[[RenderResult], None] | None = None) -> Gated:
    """Static gate, then render when it passed (or always, with `render_all`), then run-time rules.
    `on_render` sees the render before the run-time rules read it (the scorer starts the work
    its terms will need there, beside the OCR)."""
    static = gate_static(reply, config)
    sketch, report = static.sketch, static.report
    if sketch is None or not (report.passed or render_all):
        return static
    size = size or (config or GateConfig()).canvas_size
    render = await renderer.render(sketch.code, seed=seed, size=size, use_cache=use_cache)
    if on_render is not None:
        on_render(render)
    # The run-time rules read the painting (OCR, ~0.15 s): off the event loop, so renders and
    # judge calls of other replies keep going.
    return Gated(sketch, await asyncio.to_thread(check_render, report, render, config), render)
