"""`ScoreCard`: everything one scored reply earned, and why.

Every term is a number or None (did not run, or could not run); `total` is None when an
infrastructure failure leaves no honest score, so a trainer can drop the sample instead of
punishing the policy for our outage.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from brushwork.errors import ConfigError
from brushwork.gate.verdict import Violation
from brushwork.score.copies import Copy
from brushwork.score.judge import Comparison, Verdict
from brushwork.score.terms import BUILTIN, term_names


@dataclass(frozen=True)
class ScoreTimings:
    render_s: float = 0.0      # this run's own: the cache lookup when `cached`
    terms: dict = field(default_factory=dict)   # seconds per computed term (they run concurrently)
    overhead_s: float = 0.0   # everything outside rendering and remote calls
    total_s: float = 0.0
    cached: bool = False       # the painting came from the render cache


@dataclass(frozen=True)
class Cost:
    """Questions each term sent to a service (cache misses), answered from a cache, and tokens."""

    calls: dict = field(default_factory=dict)
    cached: dict = field(default_factory=dict)
    tokens: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreCard:
    """`terms` holds every configured reward term's value (the built-ins and those `weights`
    names), None where it did not or could not run; each also reads as an attribute (`card.judge`)."""

    passed: bool
    total: float | None
    terms: dict
    weights: dict
    preset: str | None
    violations: tuple[Violation, ...] = ()
    notes: tuple[Violation, ...] = ()        # the gate's notes (severity warning): code that never runs
    infra: str | None = None                 # why the total is None
    copy_of: Copy | None = None              # the pool painting it reproduces (`score.copies`)
    paint_fraction: float | None = None
    filled_shapes: int = 0
    brush_methods: dict = field(default_factory=dict)
    references: tuple[tuple[str, str], ...] = ()   # (id, tier)
    comparisons: tuple[Comparison, ...] = ()
    timings: ScoreTimings = field(default_factory=ScoreTimings)
    cost: Cost = field(default_factory=Cost)
    seed: int = 0
    group_seed: int | None = None
    # What the offline taste model says of the painting and how far to trust it (`TasteModel.assess`):
    # support (1 among rated paintings, 0 far off), distance, uncertainty, nearest rated ids, utilities.
    taste: dict | None = None
    term_notes: dict = field(default_factory=dict)   # term name -> what it saw (`Value.note`)

    def __post_init__(self):
        unknown = set(self.terms) - set(BUILTIN) - set(self.weights)
        if unknown:
            raise ConfigError(f"unknown reward term(s) {', '.join(sorted(unknown))}: name a built-in term "
                              f"({', '.join(BUILTIN)}) or weigh your own as package.module:Class")
        object.__setattr__(self, "terms", {t: self.terms.get(t) for t in term_names(self.weights, self.terms)})

    def __getattr__(self, name: str):
        terms = self.__dict__.get("terms")
        if terms is not None and name in terms:
            return terms[name]
        raise AttributeError(name)

    @property
    def cheated(self) -> bool:
        return any(v.severity == "cheat" for v in self.violations)

    @property
    def adherence(self) -> float | None:
        """The share of comparisons in which the judge read the painting as the subject and
        colour asked for (both orders agreeing); None where no comparison said."""
        said = [c.candidate_matches for c in self.comparisons if c.candidate_matches is not None]
        return sum(said) / len(said) if said else None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cheated"] = self.cheated
        d["adherence"] = self.adherence
        for c, comp in zip(d["comparisons"], self.comparisons):
            c["outcome"] = comp.outcome
        return d

    @classmethod
    def from_dict(cls, data: dict) -> ScoreCard:
        """Read back `to_dict()` (a film's card file). Cards written before the terms table
        (each term a top-level key, `judge_s` timings, `judge_calls` costs) read too."""
        comparisons = tuple(Comparison(c["reference"], c["tier"], Verdict(**_known(Verdict, c["candidate_first"])),
                                       Verdict(**_known(Verdict, c["reference_first"])))
                            for c in data.get("comparisons") or ())
        terms = data.get("terms") or {t: data.get(t) for t in BUILTIN}
        timings = data.get("timings") or {}
        kept = ("render_s", "overhead_s", "total_s", "cached")
        timings = ScoreTimings(**{k: v for k, v in timings.items() if k in kept},
                               terms=timings.get("terms") or {t: timings[f"{t}_s"] for t in BUILTIN
                                                              if timings.get(f"{t}_s")})
        cost = data.get("cost") or {}
        cost = Cost(**{k: v for k, v in cost.items() if k in ("calls", "cached", "tokens") and isinstance(v, dict)})
        fields, weights = _known(cls, data), dict(data.get("weights") or {})
        fields.update(terms={t: v for t, v in terms.items() if t in BUILTIN or t in weights},
                      comparisons=comparisons,
                      violations=tuple(Violation(**_known(Violation, v)) for v in data.get("violations") or ()),
                      notes=tuple(Violation(**_known(Violation, n)) for n in data.get("notes") or ()),
                      references=tuple(tuple(r) for r in data.get("references") or ()), timings=timings, cost=cost,
                      copy_of=Copy.from_dict(data["copy_of"]) if data.get("copy_of") else None,
                      weights=weights, brush_methods=dict(data.get("brush_methods") or {}))
        return cls(**fields)

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


def _known(cls, data: dict) -> dict:
    return {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
