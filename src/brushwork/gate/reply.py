"""A reply through the gate. `check` is the one verdict: the static rules on the sketch's syntax
tree and, given a `RenderResult`, the run-time rules. `gate_reply` is the one gate-then-render
path: the static verdict, a real render when it passed, then the run-time rules."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from brushwork.gate import static_rules as S
from brushwork.gate.config import GateConfig
from brushwork.gate.rules import RULES, RULES_BY_ID
from brushwork.gate.syntax import line as line_of
from brushwork.gate.verdict import Gated, GateReport, Violation
from brushwork.render import Renderer, RenderResult
from brushwork.sketch import Sketch, extract_sketch

_DEFAULT: GateConfig | None = None


def check(reply: str | Sketch, config: GateConfig | None = None, render: RenderResult | None = None) -> GateReport:
    """Gate a whole model reply (fenced or raw code) or an extracted `Sketch`; with `render`,
    the run-time rules too. Never raises for anything in the reply."""
    cfg = _config(config)
    sketch, report = _static(reply, cfg)
    return _runtime(report, render, cfg) if sketch is not None and render is not None else report


async def gate_reply(reply: str, renderer: Renderer | None = None, config: GateConfig | None = None, *,
                     seed: int = 0, size: int | None = None, render_all: bool = False,
                     use_cache: bool | None = None,
                     on_render: Callable[[RenderResult], None] | None = None) -> Gated:
    """Static gate, then (given a `renderer`) render when it passed, or always with `render_all`,
    then the run-time rules. Without a renderer, the static verdict with render None. `on_render`
    sees the render before the run-time rules read it (the scorer starts the work its terms will
    need there, beside the OCR)."""
    cfg = _config(config)
    sketch, report = _static(reply, cfg)
    if renderer is None or sketch is None or not (report.passed or render_all):
        return Gated(sketch, report, None)
    render = await renderer.render(sketch.code, seed=seed, size=size or cfg.canvas_size, use_cache=use_cache)
    if on_render is not None:
        on_render(render)
    # The run-time rules read the painting (OCR, ~0.15 s): off the event loop, so renders and
    # judge calls of other replies keep going.
    return Gated(sketch, await asyncio.to_thread(_runtime, report, render, cfg), render)


def _static(reply: str | Sketch, cfg: GateConfig) -> tuple[Sketch | None, GateReport]:
    from brushwork.gate.syntax import parse

    if isinstance(reply, str) and len(reply) > cfg.max_reply_chars:
        rule = RULES_BY_ID["too_long"]
        message = (f"the reply is {len(reply):,} characters; a reply over {cfg.max_reply_chars:,} (4 x the "
                   f"sketch limit of {cfg.max_chars:,}) is not read: send one sketch and little prose")
        return None, GateReport((Violation(rule.id, rule.severity, message),))
    sketch = reply if isinstance(reply, Sketch) else extract_sketch(reply if isinstance(reply, str) else "")
    if sketch is None:
        rule = RULES_BY_ID["no_sketch"]
        return None, GateReport((Violation(rule.id, rule.severity, "no p5.js sketch found in the reply"),),
                                sketch_found=False)
    facts = parse(sketch.code)
    idle = S.idle_handlers(facts)
    found: list[Violation] = []
    notes: list[Violation] = []
    offset = sketch.start_line - 1  # report lines of the reply, not of the extracted code
    for rule in RULES:
        if rule.static is None:
            continue
        for message, where in rule.static(facts, sketch.code, cfg):
            at = where if where is None or isinstance(where, int) else line_of(where)
            at = None if at is None else at + offset
            handler = _handler_of(where, idle) if rule.id in S.HANDLER_NOTES else None
            if handler is None:
                found.append(Violation(rule.id, rule.severity, message, at))
            else:
                notes.append(Violation(rule.id, "warning", S.handler_note(rule.id, where, handler), at))
    return sketch, GateReport(_dedupe(found), notes=_dedupe(notes))


def _handler_of(where, idle: dict) -> str | None:
    """The idle event handler whose body holds `where` (a syntax node), if any."""
    if where is None or isinstance(where, int):
        return None
    for name, body in idle.items():
        if body.start_byte <= where.start_byte and where.end_byte <= body.end_byte:
            return name
    return None


def _runtime(report: GateReport, render: RenderResult, cfg: GateConfig | None = None) -> GateReport:
    """`report` with the run-time rules' verdicts on `render` added. Tests that judge a render by
    the run-time rules alone pass an empty report, so the static rules stay out of their way."""
    cfg = _config(cfg)
    found = list(report.violations)
    for rule in RULES:
        if rule.runtime is None:
            continue
        for message, line, *severity in rule.runtime(render, cfg):
            found.append(Violation(rule.id, severity[0] if severity else rule.severity, message, line))
    return GateReport(_dedupe(found), sketch_found=report.sketch_found, rendered=True, notes=report.notes)


def _config(config: GateConfig | None) -> GateConfig:
    global _DEFAULT
    if config is not None:
        return config
    if _DEFAULT is None:
        _DEFAULT = GateConfig()
    return _DEFAULT


def _dedupe(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(dict.fromkeys(violations))
