"""What an evaluation measures: `Sample` (one evaluated painting), `Metrics` (the summary of a
list of them) and the pure functions that compute it.

- gate pass rate, cheat rate and None rate (an infrastructure failure: total is None);
- the violation histogram: rule id -> number of samples that broke it (once per sample);
- the mean of every reward term over the samples where the term is not None, with its n;
- win rate against the pool's *evaluation* references: the mean comparison outcome
  (win 1, tie 0.5, loss 0, averaged over both orders as in the judge protocol) over every
  counted comparison of every judged painting, overall and per reference tier;
- diversity within a group (one prompt, or one prompt at one training step): the mean
  pairwise distance between its passed paintings, each reduced to a 32x32 RGB thumbnail on
  white paper; the distance is the root-mean-square pixel difference on the 0..1 scale, so
  identical paintings are 0 and black against white is 1; averaged over groups of two or more;
- distinct compositions within a group: how many of its passed paintings are not near-duplicates
  of one another (`brushwork.score.diversity.compositions`, the diversity term's own measure);
- colour adherence: the offline measure of the colour asked against the colour painted
  (`brushwork.score.adherence`), over passed paintings whatever the reward weighed;
- held-out pairings: `by_pairing` summarises the prompts whose subject or phrasing training
  never saw (`brushwork.env.tasks.HeldOut`) apart from the seen ones;
- judge consistency: the share of evaluation comparisons, with both orders parsed, in which
  the two orders gave the candidate the same score (a verdict that flips with the order is
  position bias, not taste).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from functools import cached_property

import numpy as np

from brushwork.score.judge import Comparison
from brushwork.score.rollout import Rollout, Wraps
from brushwork.score.terms import term_names

THUMB = 32


@dataclass(frozen=True)
class Sample(Wraps):
    """One evaluated painting: its `Rollout` (step 0 for a policy's replies; the group seed is
    shared by the rollouts of one prompt at one step) and its comparisons against the evaluation
    references (empty: not judged). The rollout's fields read through (`sample.card`, `sample.png`)."""

    rollout: Rollout
    eval_comparisons: tuple[Comparison, ...] = ()
    eval_error: str | None = None  # why the judge gave no verdict, when it could not
    episode: int | None = None     # multi-turn: which episode of the run (first and final share it)

    @property
    def key(self) -> str:
        return f"{self.step}:{self.group}"

    @cached_property
    def pairing(self) -> str:
        """"held-out" when training never saw this prompt's subject or phrasing, else "seen"."""
        from brushwork.env.tasks import pairing

        return pairing(self.rollout.subject or "", self.rollout.prompt)

    @cached_property
    def adherence(self) -> float | None:
        """The offline colour adherence of a passed painting (None: nothing passed to read, or
        its subject asks no colour)."""
        from brushwork.score.adherence import adherence, asked_colour

        r = self.rollout
        if not (r.card.passed and r.png and asked_colour(r.subject or "")):
            return None
        return adherence(r.png, r.subject)[0]

    @property
    def win(self) -> float | None:
        outcomes = [c.outcome for c in self.eval_comparisons if c.outcome is not None]
        return sum(outcomes) / len(outcomes) if outcomes else None


@dataclass(frozen=True)
class Stat:
    """A mean and how many values it averages (mean None when n is 0)."""

    mean: float | None
    n: int

    @classmethod
    def of(cls, values) -> Stat:
        values = [float(v) for v in values if v is not None]
        return cls(sum(values) / len(values) if values else None, len(values))


@dataclass(frozen=True)
class Metrics:
    samples: int
    groups: int
    pass_rate: float | None
    cheat_rate: float | None
    none_rate: float | None
    terms: dict[str, Stat] = field(default_factory=dict)
    violations: dict[str, int] = field(default_factory=dict)
    win_rate: Stat = Stat(None, 0)
    win_by_tier: dict[str, Stat] = field(default_factory=dict)
    diversity: Stat = Stat(None, 0)
    judge_consistency: Stat = Stat(None, 0)
    paint_fraction: Stat = Stat(None, 0)
    compositions: Stat = Stat(None, 0)     # distinct compositions per group of two or more
    adherence: Stat = Stat(None, 0)        # offline colour adherence of the passed paintings

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Metrics:
        """Read back `to_dict()` (an eval.json written earlier)."""
        stat = lambda d: Stat(d.get("mean"), int(d.get("n", 0))) if isinstance(d, dict) else Stat(None, 0)  # noqa: E731
        return cls(samples=int(data.get("samples", 0)), groups=int(data.get("groups", 0)),
                   pass_rate=data.get("pass_rate"), cheat_rate=data.get("cheat_rate"),
                   none_rate=data.get("none_rate"),
                   terms={k: stat(v) for k, v in data.get("terms", {}).items()},
                   violations={str(k): int(v) for k, v in data.get("violations", {}).items()},
                   win_rate=stat(data.get("win_rate")),
                   win_by_tier={k: stat(v) for k, v in data.get("win_by_tier", {}).items()},
                   diversity=stat(data.get("diversity")), judge_consistency=stat(data.get("judge_consistency")),
                   paint_fraction=stat(data.get("paint_fraction")), compositions=stat(data.get("compositions")),
                   adherence=stat(data.get("adherence")))


def _share(samples: list[Sample], predicate) -> float | None:
    return sum(bool(predicate(s)) for s in samples) / len(samples) if samples else None


def pass_rate(samples: list[Sample]) -> float | None:
    return _share(samples, lambda s: s.card.passed)


def cheat_rate(samples: list[Sample]) -> float | None:
    return _share(samples, lambda s: s.card.cheated)


def none_rate(samples: list[Sample]) -> float | None:
    return _share(samples, lambda s: s.card.total is None)


def violation_histogram(samples: list[Sample]) -> dict[str, int]:
    """Rule id -> samples that broke it, most frequent first."""
    counts: dict[str, int] = {}
    for s in samples:
        for rule in dict.fromkeys(v.id for v in s.card.violations):
            counts[rule] = counts.get(rule, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def term_stats(samples: list[Sample]) -> dict[str, Stat]:
    """Mean of each reward term over the samples where it is not None."""
    terms = (*term_names(*(s.card.terms for s in samples)), "total")
    return {term: Stat.of(getattr(s.card, term) for s in samples) for term in terms}


def win_rate(samples: list[Sample], tier: str | None = None) -> Stat:
    """Mean outcome of every counted comparison with an evaluation reference (of `tier`)."""
    return Stat.of(c.outcome for s in samples for c in s.eval_comparisons if tier is None or c.tier == tier)


def judge_consistency(samples: list[Sample]) -> Stat:
    """Share of comparisons, both orders parsed, whose two orders agree."""
    agreed = []
    for c in (c for s in samples for c in s.eval_comparisons):
        a, b = c.candidate_first.candidate_score, c.reference_first.candidate_score
        if a is not None and b is not None:
            agreed.append(a == b)
    return Stat.of(agreed)


def thumbnail(png: bytes, size: int = THUMB) -> np.ndarray:
    """A painting as a size x size x 3 array in 0..1, transparency composited over white."""
    from brushwork.core.images import thumbnail_rgb  # PIL only when a diversity is measured

    return thumbnail_rgb(png, size)


def painting_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Root-mean-square difference of two thumbnails, in 0..1."""
    return float(np.sqrt(np.mean((a - b) ** 2)))


def group_diversity(samples: list[Sample]) -> dict[str, float]:
    """Group key -> mean pairwise thumbnail distance of its passed paintings, for the groups
    that have two or more."""
    groups: dict[str, list[np.ndarray]] = {}
    for s in samples:
        if s.card.passed and s.png is not None:
            groups.setdefault(s.key, []).append(thumbnail(s.png))
    spread = {}
    for key, thumbs in groups.items():
        if len(thumbs) >= 2:
            pairs = list(itertools.combinations(thumbs, 2))
            spread[key] = sum(painting_distance(a, b) for a, b in pairs) / len(pairs)
    return spread


def diversity(samples: list[Sample]) -> Stat:
    """Mean pairwise thumbnail distance within each group of passed paintings, averaged over
    the groups that have two or more."""
    return Stat.of(group_diversity(samples).values())


def compositions(samples: list[Sample]) -> Stat:
    """Distinct compositions among each group's passed paintings, averaged over groups of two or more."""
    from brushwork.score.diversity import compositions as count

    groups: dict[str, list[bytes]] = {}
    for s in samples:
        if s.card.passed and s.png is not None:
            groups.setdefault(s.key, []).append(s.png)
    return Stat.of(count(pngs) for pngs in groups.values() if len(pngs) >= 2)


def by_pairing(samples: list[Sample]) -> dict[str, Metrics]:
    """"seen pairings" and "held-out pairings" summaries, when the samples hold both kinds."""
    seen = [s for s in samples if s.pairing == "seen"]
    held = [s for s in samples if s.pairing == "held-out"]
    return {"seen pairings": summarize(seen), "held-out pairings": summarize(held)} if seen and held else {}


def summarize(samples: list[Sample]) -> Metrics:
    samples = list(samples)
    tiers = sorted({c.tier for s in samples for c in s.eval_comparisons})
    return Metrics(samples=len(samples), groups=len({s.key for s in samples}), pass_rate=pass_rate(samples),
                   cheat_rate=cheat_rate(samples), none_rate=none_rate(samples), terms=term_stats(samples),
                   violations=violation_histogram(samples), win_rate=win_rate(samples),
                   win_by_tier={t: win_rate(samples, t) for t in tiers}, diversity=diversity(samples),
                   judge_consistency=judge_consistency(samples),
                   paint_fraction=Stat.of(s.card.paint_fraction for s in samples),
                   compositions=compositions(samples), adherence=Stat.of(s.adherence for s in samples))


def by_turn(first: list[Sample], final: list[Sample]) -> dict[str, Metrics]:
    """A multi-turn run's summaries: its first paintings and its final ones."""
    return {"first painting": summarize(first), "final painting": summarize(final)}


def episodes_of(samples: list[Sample]) -> list[list[Sample]]:
    """Multi-turn samples grouped by (step, episode), each episode's paintings in turn order."""
    groups: dict[tuple, list[Sample]] = {}
    for s in samples:
        groups.setdefault((s.step, s.episode), []).append(s)
    return [sorted(g, key=lambda s: s.turn) for g in groups.values()]


def revision_figures(samples: list[Sample], turns: int | None = None):
    """`RevisionFigures` (per-turn reward and gate pass rate, revision gain with a bootstrap
    interval, fix rate, worse rate) of multi-turn samples."""
    from brushwork.train.episodes import revision_figures as figures

    return figures([[s.rollout for s in e] for e in episodes_of(samples)], turns)


def by_step(samples: list[Sample]) -> dict[str, Metrics]:
    """`{"all": ...}`, plus `"step F"` and `"step L"` for the first and last steps of a film
    that has more than one, and the seen and held-out pairings apart when both are there."""
    steps = sorted({s.step for s in samples})
    if len(steps) < 2:
        return {"all": summarize(samples), **by_pairing(samples)}
    first, last = steps[0], steps[-1]
    return {f"step {first}": summarize([s for s in samples if s.step == first]),
            f"step {last}": summarize([s for s in samples if s.step == last]),
            "all": summarize(samples), **by_pairing(samples)}


def step_series(samples: list[Sample]) -> dict[str, list[tuple[int, float]]]:
    """Per-step gate pass rate, mean total, win rate, diversity within prompt and distinct
    compositions (the film's own curves)."""
    series: dict[str, list[tuple[int, float]]] = {"gate pass rate": [], "mean total": [], "win rate vs eval": [],
                                                   "diversity within prompt": [], "distinct compositions": []}
    for step in sorted({s.step for s in samples}):
        these = [s for s in samples if s.step == step]
        values = {"gate pass rate": pass_rate(these), "mean total": Stat.of(s.card.total for s in these).mean,
                  "win rate vs eval": win_rate(these).mean, "diversity within prompt": diversity(these).mean,
                  "distinct compositions": compositions(these).mean}
        for name, value in values.items():
            if value is not None:
                series[name].append((step, value))
    return {k: v for k, v in series.items() if v}


@dataclass(frozen=True)
class EvalRun:
    """One evaluated thing (a policy, a film, or an earlier eval.json) as the report sees it."""

    label: str
    kind: str                              # "model" | "film" | "eval.json"
    info: dict[str, str]                   # what was evaluated, how (shown in the report)
    summaries: dict[str, Metrics]          # "all", and per step for films; multi-turn: first and final painting
    samples: tuple[Sample, ...] = ()       # empty for an eval.json; multi-turn: the final paintings
    first_samples: tuple[Sample, ...] = ()  # multi-turn: each episode's first painting
    revisions: object | None = None        # multi-turn: `brushwork.train.episodes.RevisionFigures`

    @property
    def headline(self) -> Metrics:
        """The summary of what the policy finally answered ("all", or the final paintings)."""
        return self.summaries.get("all") or self.summaries.get("final painting") or next(iter(self.summaries.values()))

    @property
    def final_samples(self) -> list[Sample]:
        """The samples of the last step (all of them for a policy)."""
        if not self.samples:
            return []
        last = max(s.step for s in self.samples)
        return [s for s in self.samples if s.step == last]
