"""The reward's terms: the `Term` contract, the built-in terms, and how a term is named.

A term is a `Term` subclass: its name, the help its weight shows, how it builds what it needs
from the scoring options (`Setup`: the options, the pool, and the judge and aesthetic backends,
which `score.build.Wiring` builds), and how it values a painting (`Canvas` -> `Value`). This
module is the contract: it imports nothing of the scorer's wiring above it. The
built-in terms (`BUILTIN`) go by their short names; **a term of your own lives in your own
module** and a reward YAML names it by import path, like a render backend:

    weights: {gate: 0.05, length: 0.05, judge: 0.5, aesthetic: 0.3, my_terms:SaturationTerm: 0.1}

`resolve_term` turns such a name into its class. The reward's `Weights` are the configured terms:
the scorer computes each weighted one, `ScoreCard.terms` holds one value per configured term (the
class's `name`), and logs and reports list them built-ins first (`term_names`). The default
weights live in one place, the presets (`score.reward.PRESETS`).

A term that should have a value but cannot (an unreachable judge or scorer) returns
`Value(None, error=...)`: the ScoreCard's total is then None (no honest score), never 0.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from brushwork.core.imports import import_spec, is_spec
from brushwork.errors import ConfigError
from brushwork.score.references import pick_references

if TYPE_CHECKING:
    from brushwork.pool import Pool
    from brushwork.render import RenderResult
    from brushwork.score.copies import Copy
    from brushwork.score.judge import PairwiseJudge

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Canvas:
    """What a term may look at: a sketch that passed the gate, and its painting."""

    code: str
    png: bytes
    render: RenderResult
    seed: int = 0
    group_seed: int | None = None    # shared by every rollout of one GRPO group
    subject: str = ""
    copy_of: Copy | None = None      # the pool painting it reproduces (`score.copies`)
    domain: str = ""                 # the task's domain ("": inferred from the subject, `score.references`)


@dataclass(frozen=True)
class Value:
    """A term's value in [0, 1], or None with the reason (an outage, not the sketch's fault)."""

    value: float | None
    error: str | None = None
    remote: bool = False             # its time was spent waiting on a service
    calls: int = 0                   # questions sent to a service (cache misses)
    cached: int = 0                  # questions answered from a cache
    tokens: int = 0
    references: tuple[tuple[str, str], ...] = ()   # (pool id, tier) it compared against
    comparisons: tuple = ()                          # the judge's `Comparison`s
    note: str = ""                                   # what the card shows beside the value (asked vs seen)


class Setup(Protocol):
    """What a term is built from. `score.build.Wiring` is the one the scorer builds from the
    scoring options; it owns the backends and the offline taste model, so a term asks it for
    them and never builds one itself."""

    options: Any                     # the `ScoringOptions` (typed loosely: options sit above terms)
    reward: Any                      # the `RewardConfig`
    pool: Pool | None
    reference_mix: tuple[tuple[str, int], ...]

    def judge(self) -> PairwiseJudge:
        """The pairwise judge the options name (or the one given ready-made)."""

    def aesthetic(self):
        """The aesthetic scorer the options name (or the one given ready-made)."""


class Term:
    """One reward term. Subclasses set the class attributes and implement `__call__`."""

    name: ClassVar[str]
    help: ClassVar[str]
    always: ClassVar[bool] = False   # computed even at weight 0 (it costs nothing)

    def __init__(self, setup: Setup):
        """Build what the term needs; raise ConfigError naming the option to fix."""

    @property
    def backend(self) -> str | None:
        """Who answers (a model or service name, for /health and logs); None when computed here."""
        return None

    async def __call__(self, canvas: Canvas) -> Value:
        raise NotImplementedError

    def prefetch(self, png: bytes) -> None:
        """Optional: local work this term will need on `png`, started in a thread while the
        run-time gate reads the painting (a taste model's embedding). Must only fill caches."""

    async def start(self) -> None:
        """Optional: open a client this term holds of its own (the judge and aesthetic backends
        `Setup` gives are opened by their owner), on the loop that will call the term."""

    async def aclose(self) -> None:
        """Optional: close what `start` opened."""


class GateTerm(Term):
    name = "gate"
    help = "paid to every sketch that passes the gate"
    always = True

    async def __call__(self, canvas: Canvas) -> Value:
        return Value(1.0)


class LengthTerm(Term):
    name = "length"
    help = "weight of the length ramp (a small nudge)"

    def __init__(self, setup: Setup):
        self.ramp = setup.reward.length

    async def __call__(self, canvas: Canvas) -> Value:
        return Value(self.ramp(canvas.code))


class JudgeTerm(Term):
    name = "judge"
    help = "weight of the pairwise judge's win rate"

    def __init__(self, setup: Setup):
        if setup.pool is None:
            raise ConfigError("the judge term has weight > 0: give a pool and a judge backend, "
                              "or use --preset hps-only")
        self.pool, self.mix = setup.pool, setup.reference_mix
        self.judge_copies = setup.options.judge_copies
        self.judge = setup.judge()
        self.fallbacks: dict[str, str] = {}   # domain -> why its references borrow from other domains

    @property
    def backend(self) -> str:
        return self.judge.backend.model_id

    def prefetch(self, png: bytes) -> None:
        _prefetch(self.judge.backend, png)

    async def __call__(self, canvas: Canvas) -> Value:
        if canvas.copy_of is not None and not self.judge_copies:
            return Value(0.0)        # a copy of a pool painting wins nothing (and costs no question)
        seed = canvas.seed if canvas.group_seed is None else canvas.group_seed
        refs = pick_references(self.pool, self.mix, seed, canvas.domain, canvas.subject)
        if refs.reason and self.fallbacks.get(refs.domain) != refs.reason:
            self.fallbacks[refs.domain] = refs.reason
            log.warning("judge references for %r tasks: %s", refs.domain, refs.reason)
        result = await self.judge.judge(canvas.png, refs, canvas.subject)
        verdicts = [v for c in result.comparisons for v in (c.candidate_first, c.reference_first)]
        return Value(result.score, None if result.score is not None else result.error,
                     remote=getattr(self.judge.backend, "remote", False),
                     calls=sum(not v.cached for v in verdicts), cached=sum(v.cached for v in verdicts),
                     tokens=sum(v.tokens for v in verdicts), references=tuple((r.id, r.tier) for r in refs),
                     comparisons=result.comparisons)


class AestheticTerm(Term):
    name = "aesthetic"
    help = "weight of the aesthetic score"

    def __init__(self, setup: Setup):
        self.scorer = setup.aesthetic()

    @property
    def backend(self) -> str:
        return type(self.scorer).__name__

    def prefetch(self, png: bytes) -> None:
        _prefetch(self.scorer, png)

    async def __call__(self, canvas: Canvas) -> Value:
        from brushwork.score.backends import ScorerUnavailable

        remote = getattr(self.scorer, "remote", False)
        try:
            value = await self.scorer.score(canvas.png, subject=canvas.subject, domain=canvas.domain)
            return Value(value, remote=remote, calls=1)
        except ScorerUnavailable as e:
            return Value(None, str(e), remote=remote, calls=1)


BUILTIN: dict[str, type[Term]] = {t.name: t for t in (GateTerm, LengthTerm, JudgeTerm, AestheticTerm)}


def resolve_term(spec: str) -> type[Term]:
    """The term class `spec` names: a built-in by its short name, or "package.module:Class" (a
    `Term` subclass of the user's own, imported now); a ConfigError says what to write."""
    if spec in BUILTIN:
        return BUILTIN[spec]
    if not is_spec(spec):
        raise ConfigError(f"unknown reward term {spec!r}: the built-in terms are {', '.join(BUILTIN)}; "
                          "name a term of your own as package.module:Class")
    cls = import_spec(spec, "reward term", "package.module:Class")
    if not (isinstance(cls, type) and issubclass(cls, Term)) or not isinstance(getattr(cls, "name", None), str):
        raise ConfigError(f"reward term {spec!r} is not a Term subclass with a name "
                          "(subclass brushwork.score.terms.Term and set name = \"...\")")
    if cls.name in BUILTIN:
        raise ConfigError(f"reward term {spec!r} is named {cls.name!r}, like a built-in term; "
                          "give it a name of its own")
    return cls


def term_names(*term_dicts) -> tuple[str, ...]:
    """The term names in these mappings (cards' terms, weights), built-ins first, then the
    others in the order first seen: the order logs and reports list terms in."""
    seen = dict.fromkeys(BUILTIN)
    for terms in term_dicts:
        seen.update(dict.fromkeys(terms))
    return tuple(seen)


def _prefetch(backend, png: bytes) -> None:
    """A backend that computes locally may offer `prefetch(png)` (the taste model does)."""
    if hasattr(backend, "prefetch"):
        backend.prefetch(png)
