"""The reward formula (SPEC §1) and its presets.

    gate failure -> 0
    otherwise    -> w_gate + w_length * L + w_judge * J + w_aes * A

A term whose weight is 0 is not computed (None). A term that should have run but could not
(judge or scorer unreachable after retries, a render timeout or crash that a fresh browser did
not repeat) leaves no honest total: None. The sketch's own failures (a repeated timeout or
crash, a page over the CPU budget) fail the gate: 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from brushwork.errors import ConfigError

# The reward's terms, declared once: `Weights` has one field per term, `ScoreCard` one value per
# term, and logging, observations and reports iterate over this tuple.
TERMS = ("gate", "length", "judge", "aesthetic")


@dataclass(frozen=True)
class Weights:
    gate: float = field(default=0.05, metadata={"help": "paid to every sketch that passes the gate"})
    length: float = field(default=0.05, metadata={"help": "weight of the length ramp (a small nudge)"})
    judge: float = field(default=0.60, metadata={"help": "weight of the pairwise judge's win rate"})
    aesthetic: float = field(default=0.30, metadata={"help": "weight of the aesthetic score"})

    def __post_init__(self):
        for name, value in asdict(self).items():
            if not 0 <= value <= 1:
                raise ConfigError(f"weight {name} must be in [0, 1], got {value}")
        if sum(asdict(self).values()) > 1 + 1e-9:
            raise ConfigError(f"weights sum to {sum(asdict(self).values()):.3f}; keep them at most 1")


PRESETS: dict[str, Weights] = {
    "judge-led": Weights(0.05, 0.05, 0.60, 0.30),
    "hps-led": Weights(0.05, 0.05, 0.30, 0.60),
    "hps-only": Weights(0.05, 0.05, 0.0, 0.90),
}
DEFAULT_PRESET = "judge-led"


@dataclass(frozen=True)
class LengthRamp:
    """Tokens of code on the syntax tree (`brushwork.score.length`: no comments, whitespace,
    dead code or bulk literal data); 0 below `low` or above `high`, 1 from `full` on, linear
    between."""

    low: int = field(default=150, metadata={"help": "tokens of code on the syntax tree below which the term is 0"})
    full: int = field(default=3000, metadata={"help": "tokens of code on the syntax tree from which the term is 1"})
    high: int = field(default=6000, metadata={"help": "tokens of code on the syntax tree above which the term "
                                                      "is 0 again"})

    def __post_init__(self):
        if not 0 <= self.low < self.full <= self.high:
            raise ConfigError(f"length ramp needs 0 <= low < full <= high, got {self.low}/{self.full}/{self.high}")

    def __call__(self, code: str) -> float:
        from brushwork.score.length import count_tokens  # parses: imported where used, like the gate

        return self.of_tokens(count_tokens(code))

    def of_tokens(self, tokens: int) -> float:
        if tokens < self.low or tokens > self.high:
            return 0.0
        if tokens >= self.full:
            return 1.0
        return (tokens - self.low) / (self.full - self.low)


@dataclass(frozen=True)
class RewardConfig:
    weights: Weights = field(default_factory=lambda: PRESETS[DEFAULT_PRESET])
    length: LengthRamp = field(default_factory=LengthRamp)
    preset: str | None = DEFAULT_PRESET

    @classmethod
    def from_preset(cls, name: str, length: LengthRamp | None = None) -> RewardConfig:
        if name not in PRESETS:
            raise ConfigError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)} or give weights in YAML")
        return cls(PRESETS[name], length or LengthRamp(), name)

    @classmethod
    def from_yaml(cls, path: Path | str) -> RewardConfig:
        """YAML with either `preset: judge-led` or `weights: {gate, length, judge, aesthetic}`,
        and optionally `length: {low, full, high}`."""
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as e:
            raise ConfigError(f"cannot read reward config {path}: {e}") from e
        length = LengthRamp(**data.get("length", {}))
        if "weights" in data:
            return cls(Weights(**data["weights"]), length, None)
        return cls.from_preset(data.get("preset", DEFAULT_PRESET), length)


def total(weights: Weights, passed: bool, length: float | None, judge: float | None,
          aesthetic: float | None) -> float | None:
    """The weighted reward; None when a weighted term is missing (no honest score)."""
    if not passed:
        return 0.0
    value = weights.gate
    for weight, term in ((weights.length, length), (weights.judge, judge), (weights.aesthetic, aesthetic)):
        if weight == 0:
            continue
        if term is None:
            return None
        value += weight * term
    return value
