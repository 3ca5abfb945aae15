"""Gate results as data: `Violation` and `GateReport`, plus `GateConfig`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from brushwork.errors import ConfigError

Severity = Literal["cheat", "broken", "infra"]

# SPEC §1: the ten p5.brush methods the public recipe allowed. None takes a method name
# as a string, which removed invented brush names.
DEFAULT_ALLOWED = ("scaleBrushes", "noStroke", "fill", "noFill", "fillBleed", "fillTexture",
                   "beginShape", "vertex", "endShape", "circle")


@dataclass(frozen=True)
class GateConfig:
    allowed_methods: tuple[str, ...] = field(default=DEFAULT_ALLOWED,
                                             metadata={"help": "p5.brush methods a sketch may call"})
    canvas_size: int = field(default=600, metadata={"help": "createCanvas(size, size, WEBGL) is required"})
    max_chars: int = field(default=24_000, metadata={"help": "longest sketch accepted (~6000 tokens)"})
    min_paint_fraction: float = field(default=0.005,
                                      metadata={"help": "share of pixels that must differ from the background"})

    def __post_init__(self):
        from brushwork.gate.vocabulary import BRUSH_METHODS

        unknown = sorted(set(self.allowed_methods) - BRUSH_METHODS)
        if unknown:
            raise ConfigError(f"allowed_methods has names p5.brush 2.2.2 does not have: {', '.join(unknown)}")
        if not 0 <= self.min_paint_fraction < 1:
            raise ConfigError(f"min_paint_fraction must be in [0, 1), got {self.min_paint_fraction}")


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
    """Every violation found; `passed` only when there are none. Never raised, always returned."""

    violations: tuple[Violation, ...]
    sketch_found: bool = True
    rendered: bool = False

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
        return {"passed": self.passed, "violations": [v.to_dict() for v in self.violations]}
