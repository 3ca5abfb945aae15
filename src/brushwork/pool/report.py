"""What a pool holds and how far to trust it: counts, rater agreement, diversity and warnings.

`build_report(store)` reads a `PoolStore` once and returns a frozen `PoolReport`;
`print_report` shows it in the terminal and `write_html` writes one self-contained page
(thumbnails inline, charts as SVG). The pool IS the judge's reward function, so the
warnings name what would bend that reward: a narrow quality range, too few references,
one generator or subject owning a tier, raters who disagree.

Agreement uses each rater's latest rating per painting. Tiers are ordered best first, so
besides nominal statistics there are ordinal ones (quadratic-weighted kappa, ordinal alpha).
"""

from __future__ import annotations

import base64
import html
import io
from collections import Counter
from dataclasses import dataclass, field, replace
from importlib import resources
from itertools import combinations
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from brushwork.errors import ConfigError
from brushwork.pool.store import SPLITS, PoolStore
from brushwork.score.taste.features import FEATURES, features

if TYPE_CHECKING:
    from rich.console import Console

PALETTE = ("chroma_mean", "chroma_std", "chroma_high", "hue_concentration", "hue_entropy", "palette_size",
           "palette_entropy")
COMPOSITION = ("centroid_offset", "spread", "centre_share", "bbox_area")
MIN_ITEMS_FOR_SHARE = 3     # below this a tier's generator/subject shares say nothing


# -- agreement statistics ------------------------------------------------------------------
def cohen_kappa(table, weights: str = "none") -> float | None:
    """Cohen's kappa of a k×k table of counts (rows: rater A's category, columns: rater B's).

    `weights`: "none" (nominal, Cohen 1960), "linear" or "quadratic" (ordered categories,
    Cohen 1968). None when chance agreement is already perfect (both used one category)."""
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2 or t.sum() <= 0:
        raise ConfigError(f"cohen_kappa needs a square table of counts with k >= 2 and some counts, got {t.shape}")
    i, j = np.indices(t.shape)
    k = t.shape[0]
    disagreement = {"none": (i != j).astype(float), "linear": np.abs(i - j) / (k - 1),
                    "quadratic": ((i - j) / (k - 1)) ** 2}
    if weights not in disagreement:
        raise ConfigError(f"weights must be one of {', '.join(disagreement)}, got {weights!r}")
    w, p = disagreement[weights], t / t.sum()
    expected = float((w * np.outer(p.sum(1), p.sum(0))).sum())
    return None if expected <= 1e-12 else 1.0 - float((w * p).sum()) / expected


def krippendorff_alpha(data, n_values: int, level: str = "nominal") -> float | None:
    """Krippendorff's alpha of reliability data: one row per coder, one column per unit,
    category indices 0..n_values-1, NaN where a coder gave no value (Krippendorff 2011).

    `level`: "nominal", "ordinal" or "interval". None when no unit has two values or
    every value is the same (no expected disagreement)."""
    d = np.atleast_2d(np.asarray(data, dtype=float))
    counts = np.zeros((d.shape[1], n_values))
    for row in d:
        seen = ~np.isnan(row)
        np.add.at(counts, (np.nonzero(seen)[0], row[seen].astype(int)), 1)
    m = counts.sum(1)
    counts, m = counts[m >= 2], m[m >= 2]
    if not len(m):
        return None
    share = counts / (m - 1)[:, None]
    coincidences = share.T @ counts - np.diag(share.sum(0))
    n_c = coincidences.sum(1)
    delta = _delta(level, n_c)
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n_c.sum() - 1)
    return None if expected <= 1e-12 else 1.0 - float((coincidences * delta).sum()) / expected


def _delta(level: str, n_c: np.ndarray) -> np.ndarray:
    i, j = np.indices((len(n_c), len(n_c)))
    if level == "nominal":
        return (i != j).astype(float)
    if level == "interval":
        return (i - j).astype(float) ** 2
    if level == "ordinal":
        lo, hi, cum = np.minimum(i, j), np.maximum(i, j), np.cumsum(n_c)
        between = cum[hi] - cum[lo] + n_c[lo]
        return (between - (n_c[i] + n_c[j]) / 2) ** 2
    raise ConfigError(f"level must be nominal, ordinal or interval, got {level!r}")


# -- the report ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportSettings:
    reference_mix: tuple[tuple[str, int], ...] = field(
        default=(("love", 2), ("okay", 2)), metadata={"help": "references the judge draws per comparison, per tier"})
    min_per_tier_factor: int = field(default=3, metadata={"help": "warn when a tier holds fewer than this × its draw"})
    max_share: float = field(default=0.6, metadata={"help": "warn when one generator/subject exceeds this share of a tier"})
    min_agreement: float = field(default=0.4, metadata={"help": "warn when rater agreement (kappa/alpha) is below this"})

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
    agreement: Agreement
    preferences: PreferenceAgreement
    settings: ReportSettings
    warnings: tuple[PoolWarning, ...] = ()

    def tier(self, name: str) -> TierSummary:
        return next(t for t in self.tier_summaries if t.tier == name)


def build_report(store: PoolStore, reference_mix=(("love", 2), ("okay", 2)), min_per_tier_factor: int = 3,
                 max_share: float = 0.6, min_agreement: float = 0.4) -> PoolReport:
    settings = ReportSettings(tuple((str(t), int(k)) for t, k in reference_mix), min_per_tier_factor, max_share,
                              min_agreement)
    tiers = store.tiers
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
        agreement=_agreement(latest, tiers), preferences=_preferences(store, consensus, tiers), settings=settings)
    return replace(report, warnings=tuple(w for check in CHECKS for w in check(report)))


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


# -- warnings: each check reads the report and returns what to fix ------------------------------
def check_quality_range(r: PoolReport) -> list[PoolWarning]:
    present = [t.tier for t in r.tier_summaries if t.train]
    lowest = r.tiers[-1]
    if len(present) >= 2 and lowest in present:
        return []
    what = ("no training painting is rated" if not present else f"only tier '{present[0]}' has training paintings"
            if len(present) == 1 else f"the lowest tier '{lowest}' is empty")
    return [PoolWarning("no-quality-range", f"The pool spans no quality range ({what}): rate weak paintings "
                        f"'{lowest}' too; a uniformly good pool gave every early rollout zero judge reward in the "
                        "public recipe.")]


def check_references(r: PoolReport) -> list[PoolWarning]:
    out, factor = [], r.settings.min_per_tier_factor
    for tier, k in r.settings.reference_mix:
        have = r.tier(tier).train
        if k and have < factor * k:
            out.append(PoolWarning("few-references", f"Tier '{tier}' has {have} training paintings, fewer than "
                                   f"{factor} × the {k} drawn per judgement: groups keep meeting the same references; "
                                   f"rate at least {factor * k - have} more '{tier}' paintings."))
    return out


def check_dominance(r: PoolReport) -> list[PoolWarning]:
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


def check_agreement(r: PoolReport) -> list[PoolWarning]:
    name, value = r.agreement.headline
    if value is None or value >= r.settings.min_agreement:
        return []
    return [PoolWarning("low-agreement", f"Raters agree poorly ({name} {value:.2f} on {r.agreement.units} shared "
                        f"paintings, below {r.settings.min_agreement:.2f}): agree on what each tier means, then "
                        "re-rate the disputed paintings.")]


def check_unrated(r: PoolReport) -> list[PoolWarning]:
    n = len(r.unrated)
    return [PoolWarning("unrated", f"{n} painting{'s have' if n > 1 else ' has'} no rating: unrated paintings "
                        "belong to no tier and are never drawn as references; rate them or remove them.")] if n else []


def check_eval_split(r: PoolReport) -> list[PoolWarning]:
    evals = next(b.total for b in r.by_split if b.name == "eval")
    return [PoolWarning("eval-empty", "The eval split is empty: move about 10-20 % of the rated paintings to "
                        "'eval' so evaluation never scores against its own training references.")] \
        if r.n_items and not evals else []


CHECKS = (check_quality_range, check_references, check_dominance, check_agreement, check_unrated, check_eval_split)


# -- terminal ------------------------------------------------------------------------------------
def _num(x: float | None, fmt: str = ".2f") -> str:
    return "—" if x is None else format(x, fmt)


def print_report(report: PoolReport, console: Console) -> None:
    from rich.table import Table

    r, rated = report, report.n_items - len(report.unrated)
    console.print(f"[bold]Pool {r.root}[/]: {r.n_items} paintings, {rated} rated, {len(r.raters)} raters, "
                  f"tiers {' > '.join(r.tiers)}")
    t = Table(title="Tiers (consensus)", title_justify="left")
    for col in ("tier", "paintings", "train", "eval", "palette div.", "composition div.", "overall div.",
                "coverage sd"):
        t.add_column(col, justify="left" if col == "tier" else "right")
    for s in r.tier_summaries:
        d = s.diversity
        t.add_row(s.tier, str(len(s.items)), str(s.train), str(s.eval), _num(d.palette), _num(d.composition),
                  _num(d.overall), _num(d.coverage_spread))
    console.print(t)
    t = Table(title="Raters (latest rating per painting)", title_justify="left")
    for col in ("rater", "rated", *r.tiers):
        t.add_column(col, justify="left" if col == "rater" else "right")
    for s in r.raters:
        t.add_row(s.rater, str(s.rated), *map(str, s.per_tier))
    console.print(t)
    for title, rows in (("Generators", r.by_generator), ("Subjects", r.by_subject), ("Splits", r.by_split)):
        t = Table(title=title, title_justify="left")
        for col in (title[:-1].lower(), *r.tiers, "unrated", "total"):
            t.add_column(col, justify="right" if col != title[:-1].lower() else "left")
        for b in rows:
            t.add_row(b.name or "(unknown)", *map(str, b.per_tier), str(b.unrated), str(b.total))
        console.print(t)
    _print_agreement(report, console)
    for w in r.warnings:
        console.print(f"[yellow]! {w.message}[/]")
    if not r.warnings:
        console.print("[green]No warnings.[/]")


def _print_agreement(r: PoolReport, console: Console) -> None:
    a, p = r.agreement, r.preferences
    if not a.units:
        console.print("Agreement: no painting has ratings from two raters yet.")
    for pair in a.pairs:
        console.print(f"Agreement {pair.a} × {pair.b} on {pair.shared} paintings: Cohen's kappa "
                      f"{_num(pair.kappa)}, quadratic-weighted {_num(pair.kappa_quadratic)}")
    if a.units:
        console.print(f"Krippendorff's alpha over {a.units} paintings, {len(a.raters)} raters: ordinal "
                      f"{_num(a.alpha_ordinal)}, nominal {_num(a.alpha_nominal)}")
    if p.recorded:
        console.print(f"Preferences: {p.recorded} recorded; of {p.compared} across tiers, {p.agreeing} side with "
                      f"the tiers ({_num(p.share, '.0%')}); {p.ties} ties across tiers")


# -- HTML ----------------------------------------------------------------------------------------
TIER_COLOURS = ("#3f7f5a", "#d2a23a", "#b8574a", "#6d6aa8", "#4f8fb0", "#8a6d4f")
SERIES_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                  "#9c755f", "#bab0ac")


def _thumb(png: bytes, size: int = 96) -> str:
    with Image.open(io.BytesIO(png)) as im:
        im = im.convert("RGBA")
        im = Image.alpha_composite(Image.new("RGBA", im.size, "white"), im).convert("RGB")
        im.thumbnail((size, size))
        buf = io.BytesIO()
        im.save(buf, "JPEG", quality=82)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _table(headers, rows, cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _bars_svg(title: str, rows: list[tuple[str, list[int]]], series: list[str]) -> str:
    """Horizontal stacked bars: one bar per row (tier), one coloured segment per series."""
    label_w, bar_w, row_h, top = 90, 430, 26, 30
    peak = max([sum(v) for _, v in rows] + [1])
    parts = [f'<text x="0" y="18" class="t">{html.escape(title)}</text>']
    for n, (label, values) in enumerate(rows):
        y, x = top + n * (row_h + 8), label_w
        parts.append(f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{html.escape(label)}</text>')
        for s, v in enumerate(values):
            w = bar_w * v / peak
            if v:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h}" '
                             f'fill="{SERIES_COLOURS[s % len(SERIES_COLOURS)]}"><title>{html.escape(label)} · '
                             f'{html.escape(series[s])}: {v}</title></rect>')
                if w >= 22:
                    parts.append(f'<text x="{x + w / 2:.1f}" y="{y + 17}" text-anchor="middle" class="in">{v}</text>')
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 17}" class="tot">{sum(values)}</text>')
    y, x = top + len(rows) * (row_h + 8) + 8, label_w
    for s, name in enumerate(series):
        if x + 14 + 7.2 * len(name) > label_w + bar_w + 40:
            x, y = label_w, y + 20
        parts.append(f'<rect x="{x}" y="{y}" width="12" height="12" rx="2" '
                     f'fill="{SERIES_COLOURS[s % len(SERIES_COLOURS)]}"/><text x="{x + 17}" y="{y + 11}" '
                     f'class="lg">{html.escape(name)}</text>')
        x += 30 + 7.2 * len(name)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 50}" height="{y + 20}" '
            f'class="chart">{"".join(parts)}</svg>')


def _chart(r: PoolReport, title: str, breakdown: tuple[Breakdown, ...]) -> str:
    if not breakdown:
        return ""
    top = list(breakdown[:9])
    series = [b.name or "(unknown)" for b in top] + (["other"] if len(breakdown) > 9 else [])
    rest = breakdown[9:]
    rows = []
    for i, tier in enumerate([*r.tiers, "unrated"]):
        pick = (lambda b, i=i: b.per_tier[i]) if tier != "unrated" else (lambda b: b.unrated)
        rows.append((tier, [pick(b) for b in top] + ([sum(pick(b) for b in rest)] if rest else [])))
    if not r.unrated:
        rows.pop()
    return _bars_svg(title, rows, series)


def _grids(r: PoolReport, store: PoolStore) -> str:
    items = {it.id: it for it in store.items()}
    votes: dict[str, dict[str, str]] = {}
    for rating in store.ratings():
        votes.setdefault(rating.item, {})[rating.rater] = rating.tier
    groups = [(t.tier, t.items, TIER_COLOURS[n % len(TIER_COLOURS)]) for n, t in enumerate(r.tier_summaries)]
    out = []
    for name, ids, colour in groups + [("unrated", r.unrated, "#999")]:
        if not ids:
            continue
        figs = []
        for item_id in ids:
            it, vs = items[item_id], votes.get(item_id, {})
            split = len(set(vs.values())) > 1
            tip = " · ".join(x for x in (it.id, it.generator, it.subject, it.split, ", ".join(
                f"{k}: {v}" for k, v in vs.items())) if x)
            figs.append(f'<img src="{_thumb(store.image_bytes(it))}" title="{html.escape(tip)}" '
                        f'class="{"split" if split else ""}" alt="{html.escape(it.id)}">')
        out.append(f'<h3><span class="dot" style="background:{colour}"></span>{html.escape(name)} '
                   f'<small>{len(ids)} paintings</small></h3><div class="thumbs">{"".join(figs)}</div>')
    return "\n".join(out)


def _agreement_html(r: PoolReport) -> str:
    a, p = r.agreement, r.preferences
    if not a.units:
        text = "<p>No painting has ratings from two raters yet.</p>"
    else:
        text = _table(("rater A", "rater B", "shared", "Cohen's kappa", "weighted (quadratic)"),
                      [(x.a, x.b, x.shared, _num(x.kappa), _num(x.kappa_quadratic)) for x in a.pairs], "num") + \
            (f"<p>Krippendorff's alpha over {a.units} paintings rated by two or more of {len(a.raters)} raters: "
             f"<b>ordinal {_num(a.alpha_ordinal)}</b>, nominal {_num(a.alpha_nominal)}.</p>")
    if p.recorded:
        text += (f"<p>Pairwise preferences: {p.recorded} recorded; of {p.compared} between paintings in different "
                 f"tiers, {p.agreeing} pick the better tier (<b>{_num(p.share, '.0%')}</b>); {p.ties} ties.</p>")
    return text


def write_html(report: PoolReport, store: PoolStore, path: Path) -> Path:
    r, path = report, Path(path)
    name, value = r.agreement.headline
    stats = [("paintings", r.n_items), ("rated", r.n_items - len(r.unrated)), ("raters", len(r.raters)),
             (name, _num(value)), ("eval split", next(b.total for b in r.by_split if b.name == "eval"))]
    warnings = "".join(f"<li>{html.escape(w.message)}</li>" for w in r.warnings)
    tiers = _table(("tier", "paintings", "train", "eval", "palette div.", "composition div.", "overall div.",
                    "coverage sd"),
                   [(t.tier, len(t.items), t.train, t.eval, _num(t.diversity.palette), _num(t.diversity.composition),
                     _num(t.diversity.overall), _num(t.diversity.coverage_spread)) for t in r.tier_summaries], "num")
    breakdown = lambda title, rows: f"<div><h3>{title}</h3>" + _table(  # noqa: E731
        (title[:-1].lower(), *r.tiers, "unrated", "total"),
        [(b.name or "(unknown)", *b.per_tier, b.unrated, b.total) for b in rows], "num") + "</div>"
    page = Template(resources.files("brushwork.pool").joinpath("report.html").read_text(encoding="utf-8")).substitute(
        title=html.escape(f"Pool report · {Path(r.root).name}"),
        subtitle=html.escape(f"{r.root} · tiers {' > '.join(r.tiers)} · references drawn per judgement: "
                             + ", ".join(f"{k} {t}" for t, k in r.settings.reference_mix)),
        stats="".join(f'<div class="stat"><b>{html.escape(str(v))}</b><span>{html.escape(k)}</span></div>'
                      for k, v in stats),
        warnings=f'<ul class="warn">{warnings}</ul>' if warnings else '<p class="ok">No warnings.</p>',
        tiers=tiers,
        charts=_chart(r, "Paintings per tier, by generator", r.by_generator)
        + _chart(r, "Paintings per tier, by subject", r.by_subject),
        raters=_table(("rater", "rated", *r.tiers), [(s.rater, s.rated, *s.per_tier) for s in r.raters], "num"),
        agreement=_agreement_html(r),
        breakdowns=breakdown("Generators", r.by_generator) + breakdown("Subjects", r.by_subject)
        + breakdown("Splits", r.by_split),
        grids=_grids(r, store))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
