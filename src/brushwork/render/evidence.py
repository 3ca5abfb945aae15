"""The page's run-time evidence, as the gate reads it.

The harness sends each fact over the evidence channel the moment it happens (see
harness/seed.js and `browser.PageEvents`); this module turns those messages, and what
Playwright saw, into the flags, errors, blocked requests and brush-method names of a
`RenderResult`. Nothing here trusts the page's own end-of-render record: the page object
only supplies the PNG, counts and timings.

Messages are dicts ``{"k": kind, "a", "b", "c", "d"}``:

- ``flag``: a = flag id, b = detail (p5_drawing, text_drawing, raw_drawing, unlisted_call,
  canvas_size, not_webgl, canvas_replaced, painted_then_cleared, dom_tampering…);
- ``error``: a = message, b = line; ``blocked``: a = URL, b = CSP directive;
- ``dom``: a = what was added; ``brush``: a = a brush method the sketch called;
- ``capture``: a = stage, b = "same" / "other" canvas, c = canvases on the page, d = "WxH".
"""

from __future__ import annotations

from dataclasses import dataclass

from brushwork.render.browser import PageEvents
from brushwork.render.result import BlockedRequest, JsError, RuntimeFlag


@dataclass(frozen=True)
class Evidence:
    flags: tuple[RuntimeFlag, ...]
    errors: tuple[JsError, ...]
    blocked: tuple[BlockedRequest, ...]
    brush_methods: tuple[str, ...]


def _text(value, limit: int = 500) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _line(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _capture_flags(capture: dict | None, size: int, captured: bool) -> list[RuntimeFlag]:
    """Judged only when there is a PNG: without one the render is blank anyway."""
    if not captured:
        return []
    if capture is None:
        return [RuntimeFlag("canvas_replaced", "the harness reported no capture")]
    flags = []
    count = capture.get("c")
    if capture.get("b") != "same" or count != 1:
        flags.append(RuntimeFlag("canvas_replaced", f"{count} canvases at capture"
                                 + ("" if capture.get("b") == "same" else ", not the one the sketch created")))
    shape = _text(capture.get("d"))
    if shape != f"{size}x{size}":
        flags.append(RuntimeFlag("canvas_size", f"captured {shape}, expected {size}x{size}"))
    return flags


def read_evidence(events: PageEvents, size: int, captured: bool) -> Evidence:
    """Flags, errors, blocked requests and brush names from one job's messages and Playwright's view.
    `captured`: the page handed back a PNG."""
    flags: list[RuntimeFlag] = []
    errors: list[JsError] = []
    blocked: list[BlockedRequest] = []
    brush: list[str] = []
    capture = None
    for msg in events.evidence:
        kind = msg.get("k")
        if kind == "flag" and _text(msg.get("a"), 40):
            flags.append(RuntimeFlag(_text(msg.get("a"), 40), _text(msg.get("b"))))
        elif kind == "dom":
            flags.append(RuntimeFlag("dom_tampering", _text(msg.get("a"))))
        elif kind == "error":
            errors.append(JsError(_text(msg.get("a"), 2000) or "error", _line(msg.get("b"))))
        elif kind == "blocked":
            blocked.append(BlockedRequest(_text(msg.get("a"), 2000), _text(msg.get("b"), 200)))
        elif kind == "brush" and _text(msg.get("a"), 60) and msg.get("a") not in brush:
            brush.append(msg["a"])
        elif kind == "capture" and capture is None:
            capture = msg
    flags += _capture_flags(capture, size, captured)
    flags += [RuntimeFlag("dom_tampering", f"opened a {what}") for what in events.frames]
    flags += [RuntimeFlag("navigation", url) for url in events.navigations]
    seen = {e.message for e in errors}
    # Playwright sees the same errors as the harness, worded a little differently.
    errors += [JsError(m) for m in events.page_errors if not any(m in s or s in m for s in seen)]
    blocked += [BlockedRequest(url, why) for url, why in events.failed_requests]
    return Evidence(tuple(dict.fromkeys(flags)), tuple(errors), tuple(blocked), tuple(brush))
