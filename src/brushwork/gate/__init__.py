"""Gate: decide whether a reply is an honest p5.brush painting.

`Gate(config)` is the gate bound to a `GateConfig`. `gate.check(reply, render=None)` is the
verdict: every static rule on the syntax tree and, given a `RenderResult`, every run-time rule;
it returns a `GateReport` with all violations (and notes) and never raises for anything in the
reply. `await gate.run(reply, renderer, seed=...)` is the gate-then-render path: the static
verdict, a render when it passed, the run-time rules (`Gated`).
"""

from __future__ import annotations

from brushwork.gate.config import DEFAULT_ALLOWED, GateConfig
from brushwork.gate.reply import Gate
from brushwork.gate.rules import RULES, RULES_BY_ID, Rule
from brushwork.gate.verdict import Gated, GateReport, Violation

__all__ = [
    "DEFAULT_ALLOWED",
    "RULES",
    "RULES_BY_ID",
    "Gate",
    "GateConfig",
    "GateReport",
    "Gated",
    "Rule",
    "Violation",
]
