"""The run-time rules: checks over what a render showed (`RenderResult`).

The painting is the paint realm's replay of the calls the sketch made in its own realm, so
these rules are not what keeps other paint off the canvas (nothing else can reach it).
They judge the calls (a brush method outside the allow-list, p5's own drawing or text
reached for by name, an argument that is not data), the result (blank, erased, text
legible in the image), the budgets (deadline, CPU), and a message that was not a display
list; and they tell infrastructure failures (None reward) from the sketch's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from brushwork.gate.config import GateConfig
from brushwork.gate.verdict import Severity
from brushwork.render.result import RenderResult

# (message, line) or (message, line, severity) when a finding overrides its rule's severity.
Finding = tuple[str, int | None] | tuple[str, int | None, Severity]


def render_timeout(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if r.status == "timeout":
        yield f"render did not finish: {r.detail}", None, _repeated(r)


def render_crashed(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if r.status == "crashed":
        yield f"the browser failed: {r.detail}", None, _repeated(r)


def render_untrusted(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if r.status == "untrusted":
        yield f"no capture to trust: {r.detail}", None


def _repeated(r: RenderResult) -> Severity:
    """A failure that a fresh browser repeated is the sketch's; a one-off is ours."""
    return "broken" if r.repeated else "infra"


def too_slow(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if r.status == "too_slow":
        yield f"stopped: {r.detail}", None


def js_error(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    for e in r.js_errors[:5]:
        yield f"the sketch threw: {e.message[:200]}{_hint(e.message)}", e.line


def _hint(message: str) -> str:
    """What to do about the errors an honest sketch meets most, in p5's own words."""
    match = re.search(r"Cannot redefine property: (\w+)", message)
    if match:
        return (f" (a top-level `{match.group(1)}` clashes with p5's global of that name, so p5 cannot start: "
                "rename it)")
    return ""


def blank_canvas(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if r.ok and r.png is not None and (r.paint_fraction or 0.0) < cfg.min_paint_fraction:
        yield (f"only {100 * (r.paint_fraction or 0):.2f}% of pixels differ from the background "
               f"(needs {100 * cfg.min_paint_fraction:.1f}%)"), None
    elif r.ok and r.png is None and not any(f.id == "navigation" for f in r.flags):
        yield "nothing was captured from the canvas", None


def blocked_request(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    for b in r.blocked_requests[:5]:
        yield f"blocked an attempt to load {b.url or '(inline)'} ({b.reason})", None


def runtime_brush_method(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    allowed = set(cfg.allowed_methods)
    for name in sorted(r.brush_calls):
        if name not in allowed:
            yield f"brush.{name} was called at run time ({r.brush_calls[name]}x) but is not allowed", None


def text_in_image(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if not (cfg.ocr and r.ok and r.png):
        return
    from brushwork.gate.ocr import read_text, text_verdict

    verdict = text_verdict(read_text(r.png), cfg)
    if verdict is not None:
        yield verdict, None


def _flags(flag_id: str):
    def check(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
        for f in r.flags:
            if f.id == flag_id:
                yield f.detail, None
    check.__name__ = flag_id
    return check


navigation = _flags("navigation")
canvas_replaced = _flags("canvas_replaced")
dom_tampering = _flags("dom_tampering")
painted_then_cleared = _flags("painted_then_cleared")
runtime_canvas_size = _flags("canvas_size")
runtime_not_webgl = _flags("not_webgl")
runtime_p5_drawing = _flags("p5_drawing")
runtime_raw_drawing = _flags("raw_drawing")
runtime_text_drawing = _flags("text_drawing")


runtime_unlisted_call = _flags("unlisted_call")
runtime_external_access = _flags("external_access")
runtime_harness_tampering = _flags("harness_tampering")
runtime_too_long = _flags("too_long")
unsupported_argument = _flags("unsupported_argument")


def runtime_no_painting(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    """Counted by the replay: allowed painting calls that reached the canvas."""
    if r.ok and r.png is not None and r.paint_calls == 0 and not r.js_errors:
        yield "no p5.brush painting call was made (brush.circle, brush.endShape, …)", None
