"""What the gate accepts: `GateSettings`, the gate section of the configuration (its keys as a
user sets them), and `GateConfig`, what the gate's rules read (the p5.brush methods, canvas,
length, paint, OCR thresholds)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from brushwork.core.settings import SettingError, check, problem, setting

# The ten p5.brush methods the public recipe allowed. None takes a method name
# as a string, which removed invented brush names.
DEFAULT_ALLOWED = ("scaleBrushes", "noStroke", "fill", "noFill", "fillBleed", "fillTexture",
                   "beginShape", "vertex", "endShape", "circle")


def methods(names: str | tuple[str, ...] | None) -> tuple[str, ...]:
    """A comma-separated list (or tuple) of p5.brush methods, `brush.` prefixes dropped; None: the recipe's."""
    if names is None:
        return DEFAULT_ALLOWED
    items = names.split(",") if isinstance(names, str) else names
    return tuple(m.strip().removeprefix("brush.") for m in items if m.strip())


def _unknown_methods(names) -> str | None:
    from brushwork.core.vocabulary import BRUSH_METHODS

    unknown = sorted(set(methods(names)) - BRUSH_METHODS)
    return f"has names p5.brush 2.2.2 does not have: {', '.join(unknown)}" if unknown else None


OCR_OFF = "; or set ocr: false (--no-ocr) to stop reading paintings"


@dataclass(frozen=True)
class GateSettings:
    """The gate section. The canvas side is the render section's `size`."""

    allowed_methods: str | None = setting(None, "comma-separated p5.brush methods a sketch may call (default: the "
                                          "recipe's 10: " + ",".join(DEFAULT_ALLOWED) + ")",
                                          check=_unknown_methods, aliases=("--allow",))
    max_chars: int = setting(24_000, "longest sketch accepted (~6000 tokens)", min=1)
    min_paint_fraction: float = setting(0.005, "share of pixels that must differ from the background", min=0, below=1)
    ocr: bool = setting(True, "read the painting for text (text_in_image); off only for experiments")
    ocr_min_confidence: float = setting(0.65, "OCR lines read with less confidence are ignored (calibrated: "
                                        "benchmarks/ocr.py)", above=0, max=1)
    ocr_min_chars: int = setting(2, "telling characters (letters, digits and signs other than the stroke glyphs "
                                 "1 l I | ! ... that parallel stems and grass read as) in one confidently read line "
                                 "that make a painting text (calibrated: benchmarks/ocr.py)", min=1)
    ocr_mixed_confidence: float = setting(0.8, "confidence at which a line with a single telling character among "
                                          "ocr_min_chars letters and digits (11/10, HI, 10) is text too; below "
                                          "ocr_min_confidence, that one applies (calibrated: benchmarks/ocr.py)",
                                          above=0, max=1)

    def __post_init__(self):
        check(self)

    def gate_config(self, size: int) -> GateConfig:
        return GateConfig(allowed_methods=methods(self.allowed_methods), canvas_size=size, max_chars=self.max_chars,
                          min_paint_fraction=self.min_paint_fraction, ocr=self.ocr,
                          ocr_min_confidence=self.ocr_min_confidence, ocr_min_chars=self.ocr_min_chars,
                          ocr_mixed_confidence=self.ocr_mixed_confidence)


@dataclass(frozen=True)
class GateConfig:
    """What the rules read; built from `GateSettings` (whose declarations bound these values)."""

    allowed_methods: tuple[str, ...] = DEFAULT_ALLOWED
    canvas_size: int = 600
    max_chars: int = GateSettings.max_chars
    min_paint_fraction: float = GateSettings.min_paint_fraction
    ocr: bool = GateSettings.ocr
    ocr_min_confidence: float = GateSettings.ocr_min_confidence
    ocr_min_chars: int = GateSettings.ocr_min_chars
    ocr_mixed_confidence: float = GateSettings.ocr_mixed_confidence

    @property
    def max_reply_chars(self) -> int:
        """Longest reply read at all: longer ones are `too_long` before any parsing, so a reply's
        cost to the gate is bounded whatever it holds."""
        return 4 * self.max_chars

    def __post_init__(self):
        declared = {f.name: f for f in fields(GateSettings)}
        for name in ("max_chars", "min_paint_fraction", "ocr_min_confidence", "ocr_min_chars", "ocr_mixed_confidence"):
            if (p := problem(declared[name], getattr(self, name))) is not None:
                raise SettingError(name, p + (OCR_OFF if name.startswith("ocr") else ""))
        if (p := _unknown_methods(self.allowed_methods)) is not None:
            raise SettingError("allowed_methods", p)
