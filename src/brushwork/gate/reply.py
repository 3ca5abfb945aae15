"""`Gate`: the gate bound to its configuration, the one way a reply goes through it.

`Gate.check` is the verdict: the static rules on the sketch's syntax tree and, given a
`RenderResult`, the run-time rules. `Gate.run` is the gate-then-render path: the static
verdict, a real render (at the configuration's canvas size) when it passed, then the run-time
rules. The pipeline, pool generation, the CLI and the tests each build a `Gate` from the
configuration they were given, so what a command's options say is what its gate applies."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from brushwork.gate import static_rules as S
from brushwork.gate.config import GateConfig
from brushwork.gate.rules import RULES, RULES_BY_ID
from brushwork.gate.syntax import line as line_of
from brushwork.gate.verdict import Gated, GateReport, Violation
from brushwork.render import Renderer, RenderResult
from brushwork.sketch import Sketch, extract_sketch


class Gate:
    """The rules of `gate/rules.py` applied with one `GateConfig` (default: the recipe's). Never
    raises for anything in a reply: a refusal is a `GateReport`."""

    def __init__(self, config: GateConfig | None = None):
        self.config = config or GateConfig()

    def __repr__(self) -> str:
        return f"Gate({self.config!r})"

    def check(self, reply: str | Sketch, render: RenderResult | None = None) -> GateReport:
        """Gate a whole model reply (fenced or raw code) or an extracted `Sketch`; with `render`
        (the sketch's render), the run-time rules too."""
        sketch, report = self._static(reply)
        return self._runtime(report, render) if sketch is not None and render is not None else report

    async def run(self, reply: str, renderer: Renderer | None = None, *, seed: int = 0, render_all: bool = False,
                  beside: Callable[[RenderResult], Awaitable[None]] | None = None) -> Gated:
        """The static verdict, then (given a `renderer`) a render when it passed, or always with
        `render_all`, then the run-time rules. Without a renderer: the static verdict, render
        None. `beside(render)` runs concurrently with the run-time rules (the scorer starts the
        work its terms will need on the painting there, beside the OCR)."""
        sketch, report = self._static(reply)
        if renderer is None or sketch is None or not (report.passed or render_all):
            return Gated(sketch, report, None)
        render = await renderer.render(sketch.code, seed=seed, size=self.config.canvas_size)
        # The run-time rules read the painting (OCR, ~0.15 s): off the event loop, so renders and
        # judge calls of other replies keep going.
        runtime = asyncio.to_thread(self._runtime, report, render)
        report = await runtime if beside is None else (await asyncio.gather(runtime, beside(render)))[0]
        return Gated(sketch, report, render)

    def _static(self, reply: str | Sketch) -> tuple[Sketch | None, GateReport]:
        from brushwork.gate.syntax import parse

        cfg = self.config
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

    def _runtime(self, report: GateReport, render: RenderResult) -> GateReport:
        """`report` with the run-time rules' verdicts on `render` added. Tests that judge a render
        by the run-time rules alone pass an empty report, so the static rules stay out of their way."""
        found = list(report.violations)
        for rule in RULES:
            if rule.runtime is None:
                continue
            for message, line, *severity in rule.runtime(render, self.config):
                found.append(Violation(rule.id, severity[0] if severity else rule.severity, message, line))
        return GateReport(_dedupe(found), sketch_found=report.sketch_found, rendered=True, notes=report.notes)


def _handler_of(where, idle: dict) -> str | None:
    """The idle event handler whose body holds `where` (a syntax node), if any."""
    if where is None or isinstance(where, int):
        return None
    for name, body in idle.items():
        if body.start_byte <= where.start_byte and where.end_byte <= body.end_byte:
            return name
    return None


def _dedupe(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(dict.fromkeys(violations))
