"""What a render showed, as the gate reads it: the paint realm's answer and Playwright's view.

The paint realm (harness/replay.js) runs no sketch code, so its answer is trusted: what it
replayed (brush methods by name and count, paint calls, a background after painting), what
reached it through the harness's port, each checked as it came (findings by id, errors,
blocked requests, sent the moment they happened, before the sketch could take them back),
and its own findings (a message outside that port, a list the harness could not have sent,
one too long, a sketch that navigated its frame). Playwright adds what it saw from outside:
requests that left the asset server, navigations, frames the sketch made.
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
    brush_calls: dict[str, int]


def _text(value, limit: int = 500) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _line(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _pairs(value) -> list[tuple]:
    return [tuple(item) for item in value if isinstance(item, list) and len(item) == 2] \
        if isinstance(value, list) else []


def read_evidence(events: dict, page: PageEvents) -> Evidence:
    """Flags, errors, blocked requests and brush calls from the paint realm's `events` and
    what Playwright saw of the page."""
    flags = [RuntimeFlag(_text(a, 40), _text(b)) for a, b in _pairs(events.get("flags")) if _text(a, 40)]
    errors = [JsError(_text(m, 2000) or "error", _line(n)) for m, n in _pairs(events.get("errors"))]
    blocked = [BlockedRequest(_text(u, 2000), _text(d, 200)) for u, d in _pairs(events.get("blocked"))]
    calls = events.get("calls") if isinstance(events.get("calls"), dict) else {}
    brush_calls = {name[:60]: n for name, n in calls.items()
                   if isinstance(name, str) and isinstance(n, int) and not isinstance(n, bool) and n > 0}
    flags += [RuntimeFlag("dom_tampering", f"opened a {what}") for what in page.frames]
    flags += [RuntimeFlag("navigation", url) for url in page.navigations]
    blocked += [BlockedRequest(url, why) for url, why in page.failed_requests]
    return Evidence(tuple(dict.fromkeys(flags)), tuple(dict.fromkeys(errors)), tuple(dict.fromkeys(blocked)),
                    brush_calls)
