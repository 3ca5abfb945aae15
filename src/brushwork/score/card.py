"""`ScoreCard`: everything one scored reply earned, and why.

Every term is a number or None (did not run, or could not run); `total` is None when an
infrastructure failure leaves no honest score, so a trainer can drop the sample instead of
punishing the policy for our outage.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from brushwork.gate.verdict import Violation
from brushwork.score.judge import Comparison
from brushwork.score.reward import TERMS


@dataclass(frozen=True)
class ScoreTimings:
    render_s: float = 0.0
    judge_s: float = 0.0
    aesthetic_s: float = 0.0
    overhead_s: float = 0.0   # everything outside rendering and remote calls
    total_s: float = 0.0


@dataclass(frozen=True)
class Cost:
    judge_calls: int = 0       # questions actually sent (cache misses)
    judge_cached: int = 0
    judge_tokens: int = 0
    aesthetic_calls: int = 0


@dataclass(frozen=True)
class ScoreCard:
    passed: bool
    total: float | None
    gate: float | None
    length: float | None
    judge: float | None
    aesthetic: float | None
    weights: dict
    preset: str | None
    violations: tuple[Violation, ...] = ()
    infra: str | None = None                 # why the total is None
    paint_fraction: float | None = None
    filled_shapes: int = 0
    brush_methods: dict = field(default_factory=dict)
    references: tuple[tuple[str, str], ...] = ()   # (id, tier)
    comparisons: tuple[Comparison, ...] = ()
    timings: ScoreTimings = field(default_factory=ScoreTimings)
    cost: Cost = field(default_factory=Cost)
    seed: int = 0
    group_seed: int | None = None

    @property
    def terms(self) -> dict[str, float | None]:
        """Every reward term's value (`reward.TERMS`), None where it did not or could not run."""
        return {t: getattr(self, t) for t in TERMS}

    @property
    def cheated(self) -> bool:
        return any(v.severity == "cheat" for v in self.violations)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cheated"] = self.cheated
        for c, comp in zip(d["comparisons"], self.comparisons):
            c["outcome"] = comp.outcome
        return d

    def same_as(self, other: ScoreCard) -> bool:
        """Equal in everything but timings (what "the same reply scores the same" means)."""
        a, b = self.to_dict(), other.to_dict()
        for d in (a, b):
            d.pop("timings")
            d["cost"] = None
            for c in d["comparisons"]:
                for v in ("candidate_first", "reference_first"):
                    c[v].update(cached=None, seconds=None, tokens=None)
        return a == b
