"""What a pool holds and how far to trust it: counts, rater agreement, diversity and warnings.

`build_report(store)` reads a `PoolStore` once and returns a frozen `PoolReport`;
`print_report` shows it in the terminal and `brushwork.pool.report_html.write_html` writes one self-contained page
(thumbnails inline, charts as SVG). The pool IS the judge's reward function, so the
warnings name what would bend that reward: a narrow quality range, too few references,
a task domain with too few rated training paintings to judge its tasks on their own domain
(`brushwork.pool.coverage`, the table `by_domain`), one generator or subject owning a tier,
raters who disagree.

Agreement uses each rater's latest rating per painting. Tiers are ordered best first, so
besides nominal statistics there are ordinal ones (quadratic-weighted kappa, ordinal alpha).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from brushwork.core.features import FEATURES, features
from brushwork.errors import ConfigError
from brushwork.pool.agreement import cohen_kappa, krippendorff_alpha
from brushwork.pool.coverage import MIN_PER_SIDE
from brushwork.pool.store import SPLITS, PoolStore

if TYPE_CHECKING:
    from rich.console import Console

PALETTE = ("chroma_mean", "chroma_std", "chroma_high", "hue_concentration", "hue_entropy", "palette_size",
           "palette_entropy")
COMPOSITION = ("centroid_offset", "spread", "centre_share", "bbox_area")
MIN_ITEMS_FOR_SHARE = 3     # below this a tier's generator/subject shares say nothing


@dataclass(frozen=True)
class ReportSettings:
    reference_mix: tuple[tuple[str, int], ...] = field(
        default=(("love", 2), ("okay", 2)), metadata={"help": "references the judge draws per comparison, per tier"})
    min_per_tier_factor: int = field(default=3, metadata={"help": "warn when a tier holds fewer than this × its draw"})
    max_share: float = field(default=0.6, metadata={"help": "warn when one generator/subject holds more of a tier"})
    min_agreement: float = field(default=0.4, metadata={"help": "warn when rater agreement (kappa/alpha) is lower"})

    def __post_init__(self):
        if self.min_per_tier_factor < 1:
            raise ConfigError(f"min_per_tier_factor must be at least 1, got {self.min_per_tier_factor}")
        if not 0 < self.max_share < 1:
            raise ConfigError(f"max_share is a fraction between 0 and 1 (e.g. 0.6), got {self.max_share}")
        if any(k < 0 for _, k in self.reference_mix):
            raise ConfigError(f"reference_mix counts must be >= 0, got {self.reference_mix}")


@dataclass(frozen=True)
class Breakdown:
    """Paintings with one value of an attribute (a generator, subject or split), per tier."""
    name: str
    per_tier: tuple[int, ...]
    unrated: int

    @property
    def total(self) -> int:
        return sum(self.per_tier) + self.unrated


@dataclass(frozen=True)
class Diversity:
    """Mean pairwise distance of standardized features within a tier (per feature, so ~1.41
    means as varied as independent draws from the whole pool); None under two paintings."""
    palette: float | None = None
    composition: float | None = None
    overall: float | None = None
    coverage_spread: float | None = None    # standard deviation of painted fraction


@dataclass(frozen=True)
class TierSummary:
    tier: str
    items: tuple[str, ...]                       # item ids, consensus tier
    train: int
    eval: int
    generators: tuple[tuple[str, int], ...]      # among training items, most first ("" = unknown)
    subjects: tuple[tuple[str, int], ...]
    diversity: Diversity


@dataclass(frozen=True)
class RaterSummary:
    rater: str
    rated: int
    per_tier: tuple[int, ...]                    # latest rating per painting


@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    shared: int
    kappa: float | None
    kappa_quadratic: float | None


@dataclass(frozen=True)
class Agreement:
    raters: tuple[str, ...] = ()                 # raters with a painting someone else rated too
    units: int = 0                               # paintings with two or more raters
    pairs: tuple[PairAgreement, ...] = ()
    alpha_nominal: float | None = None
    alpha_ordinal: float | None = None

    @property
    def headline(self) -> tuple[str, float | None]:
        """Cohen's kappa for two raters, Krippendorff's ordinal alpha for more."""
        if len(self.raters) == 2 and self.pairs:
            return "Cohen's kappa", self.pairs[0].kappa
        return "Krippendorff's alpha (ordinal)", self.alpha_ordinal


@dataclass(frozen=True)
class PreferenceAgreement:
    recorded: int = 0
    compared: int = 0            # A-or-B verdicts on two rated paintings in different tiers
    agreeing: int = 0            # ... where the winner sits in the better tier
    ties: int = 0                # 'tie' verdicts on paintings in different tiers (not compared)

    @property
    def share(self) -> float | None:
        return self.agreeing / self.compared if self.compared else None


@dataclass(frozen=True)
class PoolWarning:
    code: str
    message: str


@dataclass(frozen=True)
class PoolReport:
    root: str
    tiers: tuple[str, ...]
    n_items: int
    tier_summaries: tuple[TierSummary, ...]
    unrated: tuple[str, ...]
    raters: tuple[RaterSummary, ...]
    by_generator: tuple[Breakdown, ...]
    by_subject: tuple[Breakdown, ...]
    by_split: tuple[Breakdown, ...]
    by_domain: tuple[Breakdown, ...]      # the training split only: what the judge can draw per task domain
    agreement: Agreement
    preferences: PreferenceAgreement
    settings: ReportSettings
    warnings: tuple[PoolWarning, ...] = ()

    def tier(self, name: str) -> TierSummary:
        for t in self.tier_summaries:
            if t.tier == name:
                return t
        raise ConfigError(f"no tier {name!r} in this pool; its tiers are {', '.join(self.tiers)}")


def build_report(store: PoolStore, reference_mix=None, min_per_tier_factor: int = 3, max_share: float = 0.6,
                 min_agreement: float = 0.4) -> PoolReport:
    """Read the whole store once. `reference_mix` is the judge's draw per tier; None means 2 from
    each of the two best tiers (the recipe's 2 love + 2 okay), whatever the pool's tiers are called."""
    tiers = store.tiers
    mix = ((tiers[0], 2), (tiers[1], 2)) if reference_mix is None else reference_mix
    settings = ReportSettings(tuple((str(t), int(k)) for t, k in mix), min_per_tier_factor, max_share, min_agreement)
    unknown = [t for t, _ in settings.reference_mix if t not in tiers]
    if unknown:
        raise ConfigError(f"reference_mix names tiers {unknown} that this pool lacks; its tiers are {', '.join(tiers)}")
    items = store.items()
    consensus = {it.id: store.tier_of(it.id) for it in items}
    latest: dict[tuple[str, str], str] = {(r.item, r.rater): r.tier for r in store.ratings()}
    report = PoolReport(
        root=str(store.root), tiers=tiers, n_items=len(items),
        tier_summaries=_tier_summaries(store, items, consensus),
        unrated=tuple(it.id for it in items if consensus[it.id] is None),
        raters=_raters(latest, tiers),
        by_generator=_breakdown(items, consensus, tiers, lambda it: it.generator),
        by_subject=_breakdown(items, consensus, tiers, lambda it: it.subject),
        by_split=_breakdown(items, consensus, tiers, lambda it: it.split, always=SPLITS),
        by_domain=_breakdown([it for it in items if it.split == "train"], consensus, tiers, domain_of),
        agreement=_agreement(latest, tiers), preferences=_preferences(store, consensus, tiers), settings=settings)
    return replace(report, warnings=tuple(w for warn in WARNINGS for w in warn(report)))


def domain_of(item) -> str:
    """The task domain a store painting is a reference for (recorded in its provenance)."""
    return str(item.provenance.get("domain", ""))


def _tier_summaries(store, items, consensus) -> tuple[TierSummary, ...]:
    rated = [it for it in items if consensus[it.id]]
    vectors = np.array([features(store.image_bytes(it)) for it in rated]).reshape(len(rated), len(FEATURES))
    # standardize on the whole pool so tiers are comparable with each other
    z = (vectors - vectors.mean(0)) / np.where(vectors.std(0) > 1e-9, vectors.std(0), 1.0) if len(rated) else vectors
    out = []
    for tier in store.tiers:
        rows = [n for n, it in enumerate(rated) if consensus[it.id] == tier]
        members = [rated[n] for n in rows]
        train = [it for it in members if it.split == "train"]
        out.append(TierSummary(
            tier, tuple(it.id for it in members), len(train), len(members) - len(train),
            tuple(Counter(it.generator for it in train).most_common()),
            tuple(Counter(it.subject for it in train).most_common()),
            _diversity(z[rows], vectors[rows, FEATURES.index("coverage")])))
    return tuple(out)


def _diversity(z: np.ndarray, coverage: np.ndarray) -> Diversity:
    if len(z) < 2:
        return Diversity()
    columns = lambda names: z[:, [FEATURES.index(n) for n in names]]  # noqa: E731
    return Diversity(_mean_distance(columns(PALETTE)), _mean_distance(columns(COMPOSITION)), _mean_distance(z),
                     float(coverage.std()))


def _mean_distance(x: np.ndarray) -> float:
    """Mean pairwise Euclidean distance, divided by sqrt(dimensions)."""
    sq = (x ** 2).sum(1)
    d = np.sqrt(np.clip(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0, None))
    return float(d[np.triu_indices(len(x), 1)].mean() / np.sqrt(x.shape[1]))


def _raters(latest: dict[tuple[str, str], str], tiers) -> tuple[RaterSummary, ...]:
    by_rater: dict[str, Counter] = {}
    for (_, rater), tier in latest.items():
        by_rater.setdefault(rater, Counter())[tier] += 1
    return tuple(RaterSummary(r, sum(c.values()), tuple(c[t] for t in tiers)) for r, c in sorted(by_rater.items()))


def _breakdown(items, consensus, tiers, key, always=()) -> tuple[Breakdown, ...]:
    rows: dict[str, list[int]] = {name: [0] * (len(tiers) + 1) for name in always}
    for it in items:
        tier = consensus[it.id]
        rows.setdefault(key(it), [0] * (len(tiers) + 1))[tiers.index(tier) if tier else -1] += 1
    out = [Breakdown(name, tuple(r[:-1]), r[-1]) for name, r in rows.items()]
    return tuple(out if always else sorted(out, key=lambda b: (-b.total, b.name)))


def _agreement(latest: dict[tuple[str, str], str], tiers) -> Agreement:
    by_item: dict[str, dict[str, int]] = {}
    for (item, rater), tier in latest.items():
        by_item.setdefault(item, {})[rater] = tiers.index(tier)
    units = [votes for votes in by_item.values() if len(votes) >= 2]
    raters = sorted({r for votes in units for r in votes})
    if not units:
        return Agreement()
    data = np.full((len(raters), len(units)), np.nan)
    for u, votes in enumerate(units):
        for r, value in votes.items():
            data[raters.index(r), u] = value
    pairs = []
    for a, b in combinations(raters, 2):
        shared = [(v[a], v[b]) for v in units if a in v and b in v]
        if shared:
            table = np.zeros((len(tiers), len(tiers)))
            np.add.at(table, tuple(np.array(shared).T), 1)
            pairs.append(PairAgreement(a, b, len(shared), cohen_kappa(table), cohen_kappa(table, "quadratic")))
    return Agreement(tuple(raters), len(units), tuple(pairs), krippendorff_alpha(data, len(tiers), "nominal"),
                     krippendorff_alpha(data, len(tiers), "ordinal"))


def _preferences(store, consensus, tiers) -> PreferenceAgreement:
    recorded = compared = agreeing = ties = 0
    for p in store.preferences():
        recorded += 1
        ta, tb = consensus.get(p.a), consensus.get(p.b)
        if ta is None or tb is None or ta == tb:
            continue
        if p.winner == "tie":
            ties += 1
            continue
        compared += 1
        winner, loser = (ta, tb) if p.winner == "a" else (tb, ta)
        agreeing += tiers.index(winner) < tiers.index(loser)
    return PreferenceAgreement(recorded, compared, agreeing, ties)


# -- warnings: each warn_* reads the report and returns what to fix -----------------------------
def warn_quality_range(r: PoolReport) -> list[PoolWarning]:
    present = [t.tier for t in r.tier_summaries if t.train]
    lowest = r.tiers[-1]
    if len(present) >= 2 and lowest in present:
        return []
    what = ("no training painting is rated" if not present else f"only tier '{present[0]}' has training paintings"
            if len(present) == 1 else f"the lowest tier '{lowest}' is empty")
    return [PoolWarning("no-quality-range", f"The pool spans no quality range ({what}): rate weak paintings "
                        f"'{lowest}' too; a uniformly good pool gave every early rollout zero judge reward in the "
                        "public recipe.")]


def warn_references(r: PoolReport) -> list[PoolWarning]:
    out, factor = [], r.settings.min_per_tier_factor
    for tier, k in r.settings.reference_mix:
        have = r.tier(tier).train
        if k and have < factor * k:
            out.append(PoolWarning("few-references", f"Tier '{tier}' has {have} training paintings, fewer than "
                                   f"{factor} × the {k} drawn per judgement: groups keep meeting the same references; "
                                   f"rate at least {factor * k - have} more '{tier}' paintings."))
    return out


def warn_domains(r: PoolReport) -> list[PoolWarning]:
    top = r.tiers[0]
    out = []
    for b in r.by_domain:     # paintings with no domain are drawn for any task: nothing to cover
        loved, others = b.per_tier[0], sum(b.per_tier[1:])
        if not b.name or (loved >= MIN_PER_SIDE and others >= MIN_PER_SIDE):
            continue
        out.append(PoolWarning("thin-domain", f"Domain '{b.name}' has {loved} '{top}' and {others} other rated "
                               f"training paintings, fewer than {MIN_PER_SIDE} of each: the judge borrows references "
                               f"from other domains for its tasks. Rate more {b.name} paintings, or restrict the "
                               "tasks' domains (brushwork train --domains)."))
    return out


def warn_dominance(r: PoolReport) -> list[PoolWarning]:
    found: dict[tuple[str, str], list[str]] = {}
    for t in r.tier_summaries:
        if t.train < MIN_ITEMS_FOR_SHARE:
            continue
        for attr, counts in (("generator", t.generators), ("subject", t.subjects)):
            name, n = next(((v, c) for v, c in counts if v), ("", 0))
            if n / t.train > r.settings.max_share:
                found.setdefault((attr, name), []).append(f"{n / t.train:.0%} of '{t.tier}'")
    advice = {"generator": "the judge's references then reward that generator's look; add paintings from others",
              "subject": "the judge's references then reward that subject, not the medium; add other subjects"}
    return [PoolWarning("tier-dominated", f"{attr.capitalize()} '{name}' makes up {', '.join(where)} "
                        f"(over {r.settings.max_share:.0%}): {advice[attr]}.") for (attr, name), where in found.items()]


def warn_agreement(r: PoolReport) -> list[PoolWarning]:
    name, value = r.agreement.headline
    if value is None or value >= r.settings.min_agreement:
        return []
    return [PoolWarning("low-agreement", f"Raters agree poorly ({name} {value:.2f} on {r.agreement.units} shared "
                        f"paintings, below {r.settings.min_agreement:.2f}): agree on what each tier means, then "
                        "re-rate the disputed paintings.")]


def warn_unrated(r: PoolReport) -> list[PoolWarning]:
    n = len(r.unrated)
    return [PoolWarning("unrated", f"{n} painting{'s have' if n > 1 else ' has'} no rating: unrated paintings "
                        "belong to no tier and are never drawn as references; rate them or remove them.")] if n else []


def warn_eval_split(r: PoolReport) -> list[PoolWarning]:
    evals = next(b.total for b in r.by_split if b.name == "eval")
    return [PoolWarning("eval-empty", "The eval split is empty: move about 10-20 % of the rated paintings to "
                        "'eval' so evaluation never scores against its own training references.")] \
        if r.n_items and not evals else []


WARNINGS = (warn_quality_range, warn_references, warn_domains, warn_dominance, warn_agreement, warn_unrated,
            warn_eval_split)


# -- terminal ------------------------------------------------------------------------------------
def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _num(x: float | None, fmt: str = ".2f") -> str:
    return "—" if x is None else format(x, fmt)


def print_report(report: PoolReport, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    r, rated = report, report.n_items - len(report.unrated)
    console.print(f"[bold]Pool {escape(r.root)}[/]: {r.n_items} paintings, {rated} rated, {len(r.raters)} raters, "
                  f"tiers {' > '.join(r.tiers)}")
    t = Table(title="Tiers (consensus)", title_justify="left")
    for col in ("tier", "paintings", "train", "eval", "palette div.", "composition div.", "overall div.",
                "coverage sd"):
        t.add_column(col, justify="left" if col == "tier" else "right")
    for s in r.tier_summaries:
        d = s.diversity
        t.add_row(escape(s.tier), str(len(s.items)), str(s.train), str(s.eval), _num(d.palette), _num(d.composition),
                  _num(d.overall), _num(d.coverage_spread))
    console.print(t)
    t = Table(title="Raters (latest rating per painting)", title_justify="left")
    for col in ("rater", "rated", *r.tiers):
        t.add_column(col, justify="left" if col == "rater" else "right")
    for s in r.raters:
        t.add_row(escape(s.rater), str(s.rated), *map(str, s.per_tier))
    console.print(t)
    for title, rows in (("Generators", r.by_generator), ("Subjects", r.by_subject), ("Splits", r.by_split),
                        ("Domains (training split)", r.by_domain)):
        t = Table(title=title, title_justify="left")
        first = title.split()[0][:-1].lower()
        for col in (first, *r.tiers, "unrated", "total"):
            t.add_column(col, justify="right" if col != first else "left")
        for b in rows:
            t.add_row(escape(b.name) or "(unknown)", *map(str, b.per_tier), str(b.unrated), str(b.total))
        console.print(t)
    _print_agreement(report, console)
    for w in r.warnings:
        console.print(Text(f"! {w.message}", style="yellow"))
    if not r.warnings:
        console.print("[green]No warnings.[/]")


def _print_agreement(r: PoolReport, console: Console) -> None:
    from rich.markup import escape

    a, p = r.agreement, r.preferences
    if not a.units:
        console.print("Agreement: no painting has ratings from two raters yet.")
    for pair in a.pairs:
        console.print(f"Agreement {escape(pair.a)} × {escape(pair.b)} on {_count(pair.shared, 'painting')}: "
                      f"Cohen's kappa {_num(pair.kappa)}, quadratic-weighted {_num(pair.kappa_quadratic)}")
    if a.units:
        console.print(f"Krippendorff's alpha over {a.units} paintings, {len(a.raters)} raters: ordinal "
                      f"{_num(a.alpha_ordinal)}, nominal {_num(a.alpha_nominal)}")
    if p.recorded:
        console.print(f"Preferences: {p.recorded} recorded; of {p.compared} across tiers, {p.agreeing} side with "
                      f"the tiers ({_num(p.share, '.0%')}); {p.ties} ties across tiers")
