"""The run-time rules: checks over what the page did while it painted (`RenderResult`)."""

from __future__ import annotations

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


def _repeated(r: RenderResult) -> Severity:
    """A failure that a fresh browser repeated is the sketch's; a one-off is ours."""
    return "broken" if r.repeated else "infra"


def too_slow(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    if r.status == "too_slow":
        yield f"stopped: {r.detail}", None


def js_error(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    for e in r.js_errors[:5]:
        yield f"the sketch threw: {e.message[:200]}", e.line


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


def runtime_unlisted_call(r: RenderResult, cfg: GateConfig) -> Iterator[Finding]:
    """p5 functions outside the language the sketch's code called, except those the config adds
    (`GateConfig.extra_p5_*`): the page knows only the default table; the verdict is made here."""
    extra = set(cfg.extra_p5_values) | set(cfg.extra_p5_statements)
    for f in r.flags:
        if f.id == "unlisted_call" and f.detail.split("()", 1)[0] not in extra:
            yield f.detail, None
runtime_harness_tampering = _flags("harness_tampering")
