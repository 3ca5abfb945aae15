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
    extra_p5_values: tuple[str, ...] = field(
        default=(), metadata={"help": "p5 functions returning plain values to add to the sketch language"})
    extra_p5_statements: tuple[str, ...] = field(
        default=(), metadata={"help": "p5 functions called for their effect to add to the sketch language "
                                      "(their result may not be used)"})
    ocr: bool = field(default=True, metadata={"help": "read the painting for text (text_in_image); off only for "
                                                      "experiments"})
    ocr_min_confidence: float = field(default=0.65, metadata={"help": "OCR lines read with less confidence are "
                                                                      "ignored (calibrated: benchmarks/ocr.py)"})
    ocr_min_chars: int = field(default=2, metadata={"help": "letters and digits in one confidently read line that "
                                                            "make a painting text (calibrated: benchmarks/ocr.py)"})

    def __post_init__(self):
        from brushwork.gate.vocabulary import BRUSH_METHODS

        unknown = sorted(set(self.allowed_methods) - BRUSH_METHODS)
        if unknown:
            raise ConfigError(f"allowed_methods has names p5.brush 2.2.2 does not have: {', '.join(unknown)}")
        _check_extra_functions(self.extra_p5_values + self.extra_p5_statements)
        if not 0 <= self.min_paint_fraction < 1:
            raise ConfigError(f"min_paint_fraction must be in [0, 1), got {self.min_paint_fraction}")
        if not 0 < self.ocr_min_confidence <= 1:
            raise ConfigError(f"ocr_min_confidence must be in (0, 1], got {self.ocr_min_confidence}; "
                              "set ocr: false to stop reading paintings instead")
        if self.ocr_min_chars < 1:
            raise ConfigError(f"ocr_min_chars must be at least 1, got {self.ocr_min_chars}; "
                              "set ocr: false to stop reading paintings instead")


def _check_extra_functions(names: tuple[str, ...]) -> None:
    from brushwork.gate import vocabulary as V
    from brushwork.gate.language import p5_names

    unknown = sorted(set(names) - set(p5_names()["functions"]))
    if unknown:
        raise ConfigError(f"extra p5 functions that p5 {p5_names()['p5']} does not have: {', '.join(unknown)}")
    drawing = sorted(set(names) & (V.P5_PRIMITIVES | V.P5_TEXT | V.P5_RAW | V.CANVAS_CHANGERS | V.EXTERNAL_NAMES))
    if drawing:
        raise ConfigError(f"{', '.join(drawing)} draw, write, load or reach pixels without p5.brush; "
                          "they cannot join the sketch language")


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
