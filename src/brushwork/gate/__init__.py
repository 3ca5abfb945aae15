"""Gate: decide whether a reply is an honest p5.brush painting.

`check(reply, config, render=None)` runs every static rule on the syntax tree and, given a
`RenderResult`, every run-time rule; it returns a `GateReport` with all violations and
never raises for anything in the reply.
"""

from __future__ import annotations

from brushwork.gate.config import DEFAULT_ALLOWED, GateConfig
from brushwork.gate.rules import RULES, RULES_BY_ID, Rule
from brushwork.gate.verdict import GateReport, Violation
from brushwork.render.result import RenderResult
from brushwork.sketch import Sketch, extract_sketch

__all__ = [
    "DEFAULT_ALLOWED",
    "RULES",
    "RULES_BY_ID",
    "GateConfig",
    "GateReport",
    "Rule",
    "Violation",
    "check",
    "check_render",
    "check_sketch",
]

_DEFAULT = None


def _config(config: GateConfig | None) -> GateConfig:
    global _DEFAULT
    if config is not None:
        return config
    if _DEFAULT is None:
        _DEFAULT = GateConfig()
    return _DEFAULT


def check(reply: str, config: GateConfig | None = None, render: RenderResult | None = None) -> GateReport:
    """Gate a whole model reply (fenced or raw code)."""
    sketch = extract_sketch(reply if isinstance(reply, str) else "")
    if sketch is None:
        rule = RULES_BY_ID["no_sketch"]
        return GateReport((Violation(rule.id, rule.severity, "no p5.js sketch found in the reply"),),
                          sketch_found=False)
    return check_sketch(sketch, config, render)


def check_sketch(sketch: Sketch, config: GateConfig | None = None,
                 render: RenderResult | None = None) -> GateReport:
    from brushwork.gate.syntax import parse

    cfg = _config(config)
    facts = parse(sketch.code)
    found: list[Violation] = []
    offset = sketch.start_line - 1  # report lines of the reply, not of the extracted code
    for rule in RULES:
        if rule.static is None:
            continue
        for message, line in rule.static(facts, sketch.code, cfg):
            found.append(Violation(rule.id, rule.severity, message, None if line is None else line + offset))
    report = GateReport(_dedupe(found))
    return check_render(report, render, cfg) if render is not None else report


def check_render(report: GateReport, render: RenderResult, config: GateConfig | None = None) -> GateReport:
    """Add the run-time rules' verdicts on `render` to a static report."""
    cfg = _config(config)
    found = list(report.violations)
    for rule in RULES:
        if rule.runtime is None:
            continue
        for message, line, *severity in rule.runtime(render, cfg):
            found.append(Violation(rule.id, severity[0] if severity else rule.severity, message, line))
    return GateReport(_dedupe(found), sketch_found=report.sketch_found, rendered=True)


def _dedupe(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(dict.fromkeys(violations))
