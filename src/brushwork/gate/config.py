"""`GateConfig`: what the gate accepts (the p5.brush methods, canvas, length, paint, OCR thresholds)."""

from __future__ import annotations

from dataclasses import dataclass, field

from brushwork.errors import ConfigError

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
    ocr: bool = field(default=True, metadata={"help": "read the painting for text (text_in_image); off only for "
                                                      "experiments"})
    ocr_min_confidence: float = field(default=0.65, metadata={"help": "OCR lines read with less confidence are "
                                                                      "ignored (calibrated: benchmarks/ocr.py)"})
    ocr_min_chars: int = field(default=2, metadata={"help": "telling characters (letters, digits and signs other "
                                                            "than the stroke glyphs 1 l I | ! ... that parallel "
                                                            "stems and grass read as) in one confidently read "
                                                            "line that make a painting text (calibrated: "
                                                            "benchmarks/ocr.py)"})
    ocr_mixed_confidence: float = field(default=0.8, metadata={"help": "confidence at which a line with a single "
                                                                       "telling character among ocr_min_chars letters "
                                                                       "and digits (11/10, HI, 10) is text too; "
                                                                       "below ocr_min_confidence, that one applies "
                                                                       "(calibrated: benchmarks/ocr.py)"})

    def __post_init__(self):
        from brushwork.core.vocabulary import BRUSH_METHODS

        unknown = sorted(set(self.allowed_methods) - BRUSH_METHODS)
        if unknown:
            raise ConfigError(f"allowed_methods has names p5.brush 2.2.2 does not have: {', '.join(unknown)}")
        if not 0 <= self.min_paint_fraction < 1:
            raise ConfigError(f"min_paint_fraction must be in [0, 1), got {self.min_paint_fraction}")
        if not 0 < self.ocr_min_confidence <= 1:
            raise ConfigError(f"ocr_min_confidence must be in (0, 1], got {self.ocr_min_confidence}; "
                              "set ocr: false to stop reading paintings instead")
        if self.ocr_min_chars < 1:
            raise ConfigError(f"ocr_min_chars must be at least 1, got {self.ocr_min_chars}; "
                              "set ocr: false to stop reading paintings instead")
        if not 0 < self.ocr_mixed_confidence <= 1:
            raise ConfigError(f"ocr_mixed_confidence must be in (0, 1], got {self.ocr_mixed_confidence}; "
                              "set ocr: false to stop reading paintings instead")
