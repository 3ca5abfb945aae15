"""The reward formula (SPEC §1) and its presets.

    gate failure -> 0
    otherwise    -> w_gate + w_length * L + w_judge * J + w_aes * A   (the sum over `terms.TERMS`;
                                                                      the gate term is 1 on a pass)

A term whose weight is 0 is not computed (None). A term that should have run but could not
(judge or scorer unreachable after retries, a render timeout or crash that a fresh browser did
not repeat) leaves no honest total: None. The sketch's own failures (a repeated timeout or
crash, a page over the CPU budget) fail the gate: 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from brushwork.errors import ConfigError
from brushwork.score.terms import NAMES, TERMS


class Weights(Mapping[str, float]):
    """One weight per reward term (`terms.TERMS`), each in [0, 1], summing to at most 1. A term
    not named takes its weight in the default preset (0 for a term no preset uses); reads as a
    mapping (`dict(weights)`) or by attribute (`weights.judge`)."""

    __slots__ = ("_values",)

    def __init__(self, **weights: float):
        unknown = sorted(set(weights) - set(NAMES))
        if unknown:
            raise ConfigError(f"unknown reward term(s) {', '.join(unknown)}; the terms are {', '.join(NAMES)}")
        values = {t.name: float(weights.get(t.name, t.weight)) for t in TERMS}
        for name, value in values.items():
            if not 0 <= value <= 1:
                raise ConfigError(f"weight {name} must be in [0, 1], got {value}")
        if sum(values.values()) > 1 + 1e-9:
            raise ConfigError(f"weights sum to {sum(values.values()):.3f}; keep them at most 1")
        object.__setattr__(self, "_values", values)

    def __getitem__(self, name: str) -> float:
        return self._values[name]

    def __getattr__(self, name: str) -> float:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        raise AttributeError("Weights are immutable")

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __eq__(self, other) -> bool:
        return isinstance(other, Mapping) and dict(self) == dict(other)

    def __repr__(self) -> str:
        return f"Weights({', '.join(f'{k}={v:g}' for k, v in self._values.items())})"

    def __reduce__(self):
        return _weights, (dict(self._values),)


def _weights(values: dict) -> Weights:
    return Weights(**values)


PRESETS: dict[str, Weights] = {
    "judge-led": Weights(gate=0.05, length=0.05, judge=0.60, aesthetic=0.30),
    "hps-led": Weights(gate=0.05, length=0.05, judge=0.30, aesthetic=0.60),
    "hps-only": Weights(gate=0.05, length=0.05, judge=0.0, aesthetic=0.90),
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
        """YAML with either `preset: judge-led` or `weights: {term: weight, ...}` (`terms.NAMES`),
        and optionally `length: {low, full, high}`."""
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as e:
            raise ConfigError(f"cannot read reward config {path}: {e}") from e
        length = LengthRamp(**data.get("length", {}))
        if "weights" in data:
            return cls(Weights(**data["weights"]), length, None)
        return cls.from_preset(data.get("preset", DEFAULT_PRESET), length)


def total(weights: Weights, passed: bool, values: Mapping[str, float | None]) -> float | None:
    """The weighted reward; None when a weighted term is missing (no honest score)."""
    if not passed:
        return 0.0
    value = 0.0
    for name, weight in weights.items():
        if weight == 0:
            continue
        if values.get(name) is None:
            return None
        value += weight * values[name]
    return value
