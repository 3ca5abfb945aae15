"""The reward formula and its presets (the one place the default weights are written).

    gate failure -> 0
    otherwise    -> w_gate + w_length * L + w_judge * J + w_aes * A + ...   (the sum over the
                                                      configured terms; the gate term is 1 on a pass)

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
from brushwork.score.terms import BUILTIN, Term, resolve_term

# Each preset's weight per built-in term, and per term of its own by import path (0 in the other presets).
PRESET_WEIGHTS: dict[str, dict[str, float]] = {
    "judge-led": {"gate": 0.05, "length": 0.05, "judge": 0.60, "aesthetic": 0.30},
    "hps-led": {"gate": 0.05, "length": 0.05, "judge": 0.30, "aesthetic": 0.60},
    "hps-only": {"gate": 0.05, "length": 0.05, "judge": 0.0, "aesthetic": 0.90},
    # the recipe's judge-led, paying a group's near-duplicates and off-colour paintings less
    "recipe-diverse": {"gate": 0.05, "length": 0.05, "judge": 0.50, "aesthetic": 0.25,
                       "brushwork.score.diversity:DiversityTerm": 0.10,
                       "brushwork.score.adherence:AdherenceTerm": 0.05},
}
DEFAULT_PRESET = "judge-led"


class Weights(Mapping[str, float]):
    """The configured reward terms, one weight each in [0, 1], summing to at most 1. Keys name
    a term: a built-in by its short name (`terms.BUILTIN`), one of the user's own by import path
    ("package.module:Class", read by `terms.resolve_term`). Every built-in is configured; one not
    named takes its weight in the default preset. Reads as a mapping by the terms' names
    (`dict(weights)`), or by attribute (`weights.judge`); `terms` maps each name to its class."""

    __slots__ = ("_values", "_specs", "_terms")

    def __init__(self, **weights: float):
        terms: dict[str, type[Term]] = dict(BUILTIN)
        specs = {name: name for name in BUILTIN}
        values = dict(PRESET_WEIGHTS[DEFAULT_PRESET])
        for spec, weight in weights.items():
            cls = resolve_term(spec)
            if cls.name in values and specs[cls.name] != spec:
                raise ConfigError(f"reward term {cls.name!r} is named twice ({specs[cls.name]} and {spec})")
            terms[cls.name], specs[cls.name], values[cls.name] = cls, spec, weight
        for name, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ConfigError(f"weight {specs[name]} must be a number in [0, 1], got {value!r}")
        values = {name: float(value) for name, value in values.items()}
        if sum(values.values()) > 1 + 1e-9:
            raise ConfigError(f"weights sum to {sum(values.values()):.3f}; keep them at most 1")
        for slot, value in (("_values", values), ("_specs", specs), ("_terms", terms)):
            object.__setattr__(self, slot, value)

    @property
    def terms(self) -> dict[str, type[Term]]:
        """Term name -> its class, built-ins first."""
        return dict(self._terms)

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
        # by the names the terms were configured with: a user's term unpickles by import path
        return _weights, ({self._specs[name]: value for name, value in self._values.items()},)


def _weights(values: dict) -> Weights:
    return Weights(**values)


PRESETS: dict[str, Weights] = {name: Weights(**weights) for name, weights in PRESET_WEIGHTS.items()}


def preset_weights(name: str) -> Weights:
    """A preset's weights: the one place a preset's name is checked."""
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)} or give weights in YAML")
    return PRESETS[name]


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
        return cls(preset_weights(name), length or LengthRamp(), name)

    @classmethod
    def from_yaml(cls, path: Path | str) -> RewardConfig:
        """YAML with either `preset: judge-led` or `weights: {term: weight, ...}` (a built-in
        term by name, one of your own as `package.module:Class`), and optionally
        `length: {low, full, high}`."""
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as e:
            raise ConfigError(f"cannot read reward config {path}: {e}") from e
        length = LengthRamp(**data.get("length", {}))
        if "weights" in data:
            if not isinstance(data["weights"], dict):
                raise ConfigError(f"reward config {path}: weights must be a mapping {{term: weight, ...}}")
            return cls(Weights(**{str(k): v for k, v in data["weights"].items()}), length, None)
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
