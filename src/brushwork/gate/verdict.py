"""The gate's verdict as data: `Violation` (rule id, severity, message, line), `GateReport` (violations
and notes), and `Gated` (a reply's sketch, report and render together)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from brushwork.render.result import RenderResult
from brushwork.sketch import Sketch

# A `warning` is never a violation: it is a note (GateReport.notes) about code that does not run.
Severity = Literal["cheat", "broken", "infra", "warning"]


@dataclass(frozen=True)
class Violation:
    id: str
    severity: Severity
    message: str
    line: int | None = None

    def to_dict(self) -> dict:
        return {"id": self.id, "severity": self.severity, "message": self.message, "line": self.line}


@dataclass(frozen=True)
class GateReport:
    """Every violation found; `passed` only when there are none. Never raised, always returned.
    `notes` (severity `warning`) name code that would break a rule but never runs in a render (an
    event handler's body); they are shown, and they do not fail the report."""

    violations: tuple[Violation, ...]
    sketch_found: bool = True
    rendered: bool = False
    notes: tuple[Violation, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.violations

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v.id for v in self.violations))

    @property
    def infra_failure(self) -> bool:
        """An infrastructure failure leaves no honest verdict: the reward must be None."""
        return any(v.severity == "infra" for v in self.violations)

    @property
    def cheated(self) -> bool:
        return any(v.severity == "cheat" for v in self.violations)

    def to_dict(self) -> dict:
        return {"passed": self.passed, "violations": [v.to_dict() for v in self.violations],
                "notes": [n.to_dict() for n in self.notes]}


@dataclass(frozen=True)
class Gated:
    """One reply after the gate: its sketch, verdict and render (None when not rendered)."""

    sketch: Sketch | None
    report: GateReport
    render: RenderResult | None
