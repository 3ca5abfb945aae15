"""How well the taste model generalises, measured where its design never looked.

The taste model's own report (`fit`'s nested cross-validation) draws its folds at random
from one pool, the pool its features were shaped on. This module measures the same
procedure (the choice of features, components and regularisation made by inner CV on the
training paintings only) three harder ways:

- nested: the product's nested CV on a pool, the same folds as `fit`'s report;
- domain: leave one subject domain out (PoolItem.domain): fit on every other domain, rank
  the held-out one. Does taste learnt on hibiscus carry over to landscapes and leaves?
  Domains with fewer than MIN_DOMAIN paintings are held out together, as "other";
- transfer: fit on all of one pool, rank all of another (another rater, another generator).

Every figure is a pairwise accuracy per tier pair (love>okay: how often a love painting's
utility beats an okay one's), each with a 95 % interval that resamples paintings within their
tiers (core.stats.painting_interval): the pairs share paintings, so a bootstrap over pairs
would be too narrow. Every measure names the procedure each of its fits chose.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from brushwork.core import embedding
from brushwork.core.stats import painting_interval
from brushwork.errors import ConfigError
from brushwork.pool import TIERS, Pool
from brushwork.score.taste.head import BOUNDS, Bounds, Procedure, _fit_head, _tier_pairs
from brushwork.score.taste.model import FeatureCache
from brushwork.score.taste.select import CHOICES, _candidates, _splits, choose, one_blas_thread

MIN_DOMAIN = 6          # paintings a domain needs to be held out on its own
CURVE_SIZES = (10, 15, 20, 30, 40, 60, 80)   # ratings the learning curve fits on (and all a fold holds)
OTHER = "other"
SPLITS = ("all", "train")


@dataclass(frozen=True)
class Rated:
    """A pool's rated paintings as arrays: what every measure fits on and ranks."""

    name: str
    ids: tuple[str, ...]
    tiers: tuple[str, ...]
    domains: tuple[str, ...]
    classical: np.ndarray
    embedding: np.ndarray | None
    prefs: tuple[tuple[int, int], ...] = ()

    def __len__(self) -> int:
        return len(self.ids)

    def e(self, idx) -> np.ndarray | None:
        return None if self.embedding is None else self.embedding[idx]

    def counts(self) -> dict:
        return {"paintings": len(self), "tiers": dict(Counter(self.tiers)), "domains": dict(Counter(self.domains))}


def rated(pool: Pool, name: str, cache: FeatureCache, embeddings: bool, split: str = "all") -> Rated:
    """The pool's paintings rated into one of the tiers (`split`: all of them, or the training
    split only, as `fit` uses), measured once through `cache`."""
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}: choose one of {', '.join(SPLITS)}")
    items = [i for i in pool.items if i.tier in TIERS and (split == "all" or i.split == "train")]
    if len({i.tier for i in items}) < 2:
        raise ConfigError(f"pool {name} has fewer than two tiers of rated paintings: nothing to evaluate")
    index = {item.id: n for n, item in enumerate(items)}
    return Rated(name, tuple(i.id for i in items), tuple(i.tier for i in items),
                 tuple(i.domain or i.subject or OTHER for i in items),
                 np.stack([cache.classical(i.image_bytes()) for i in items]),
                 np.stack([cache.embedding(i.image_bytes()) for i in items]) if embeddings else None,
                 tuple((index[a], index[b]) for a, b in pool.preferences if a in index and b in index))


@dataclass(frozen=True)
class Figure:
    """Pairwise accuracy on one tier pair (or overall), with its painting-level interval."""

    pairs: int
    accuracy: float
    ci95_paintings: tuple[float, float]

    def to_dict(self) -> dict:
        return {"pairs": self.pairs, "accuracy": round(self.accuracy, 4),
                "ci95_paintings": [round(x, 4) for x in self.ci95_paintings]}


@dataclass(frozen=True)
class Measure:
    """One way of holding paintings out: what was fit on, what was ranked, how well."""

    kind: str                      # nested | domain | transfer | curve
    name: str
    trained_on: str
    tested_on: str
    figures: dict[str, Figure]     # tier pairs, then "overall"
    chosen: dict[str, int] = field(default_factory=dict)   # procedure -> fits that chose it
    ratings: int | None = None     # curve: the ratings each fit had

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "trained_on": self.trained_on, "tested_on": self.tested_on,
                "ratings": self.ratings, "figures": {k: f.to_dict() for k, f in self.figures.items()},
                "chosen": self.chosen}


@dataclass(frozen=True)
class Evaluation:
    features: str
    split: str
    pools: dict[str, dict]
    measures: tuple[Measure, ...]
    settings: dict

    def to_dict(self) -> dict:
        return {"features": self.features, "split": self.split, "pools": self.pools, "settings": self.settings,
                "measures": [m.to_dict() for m in self.measures]}


def _figures(records: list[tuple[int, int, int]], tiers: tuple[str, ...], resamples: int, seed: int) -> dict:
    """Accuracy per tier pair and overall over (better, worse, hit) records of one pool's paintings."""
    groups: dict[str, list] = {}
    for rec in records:
        groups.setdefault(f"{tiers[rec[0]]}>{tiers[rec[1]]}", []).append(rec)
    order = [f"{a}>{b}" for n, a in enumerate(TIERS) for b in TIERS[n + 1:]]
    groups = {k: groups[k] for k in order if k in groups}
    if records:
        groups["overall"] = records
    return {k: Figure(len(recs), float(np.mean([h for _, _, h in recs])),
                      painting_interval([(i, j) for i, j, _ in recs], [h for _, _, h in recs], tiers, resamples, seed))
            for k, recs in groups.items()}


def _fit_and_rank(source: Rated, train, target: Rated, test, procedures, seed: int, chosen: Counter,
                  bounds: Bounds = BOUNDS) -> list:
    """Choose a procedure on source[train] (inner CV), fit it there, rank target[test]'s
    cross-tier pairs (each painting in its own domain, as the judge compares): (better, worse,
    hit) in target's indices."""
    train, test = np.asarray(train), np.asarray(test)
    tiers = [source.tiers[i] for i in train]
    domains = [source.domains[i] for i in train]
    procedure = choose(procedures, source.classical[train], source.e(train), tiers, TIERS, seed, domains, bounds)
    chosen[procedure.label] += 1
    local = {int(g): n for n, g in enumerate(train)}
    prefs = [(local[a], local[b]) for a, b in source.prefs if a in local and b in local]
    head = _fit_head(procedure, source.classical[train], source.e(train), tiers, TIERS, prefs, domains, bounds)
    u = head.utilities(target.classical[test], target.e(test), [target.domains[i] for i in test])
    return [(int(test[a]), int(test[b]), int(u[a] > u[b]))
            for a, b in _tier_pairs([target.tiers[i] for i in test], TIERS)]


def nested(data: Rated, procedures, folds: int = 5, repeats: int = 3, seed: int = 0, resamples: int = 2000,
           bounds: Bounds = BOUNDS) -> Measure:
    """The product's nested CV (`fit`'s folds and inner choice), with painting-level intervals."""
    records, chosen = [], Counter()
    for train, test in _splits(list(data.tiers), TIERS, folds, repeats, seed):
        records += _fit_and_rank(data, train, data, test, procedures, seed, chosen, bounds)
    return Measure("nested", f"nested {folds}-fold CV x {repeats}", data.name, data.name,
                   _figures(records, data.tiers, resamples, seed), dict(chosen))


def _subsample(train: np.ndarray, tiers: tuple[str, ...], n: int, rng) -> np.ndarray:
    """`n` of the `train` paintings, each tier in its share (at least one of each tier there)."""
    by_tier = {t: [int(i) for i in train if tiers[i] == t] for t in TIERS}
    by_tier = {t: idx for t, idx in by_tier.items() if idx}
    take = {t: max(1, round(n * len(idx) / len(train))) for t, idx in by_tier.items()}
    while sum(take.values()) > n:     # rounding up the small tiers overshot: trim the largest
        take[max(take, key=take.get)] -= 1
    return np.array(sorted(i for t, idx in by_tier.items() for i in rng.choice(idx, take[t], replace=False)))


def learning_curve(data: Rated, procedures, folds: int = 5, repeats: int = 1, seed: int = 0,
                   resamples: int = 2000, bounds: Bounds = BOUNDS, sizes=CURVE_SIZES) -> list[Measure]:
    """Held-out accuracy after n ratings: in each outer fold of the nested CV, the procedure
    (inner choice included) is fitted on n of the fold's training paintings drawn within their
    tiers, and ranks the fold's held-out paintings, for n in `sizes` up to all the fold holds.
    Where the curve still climbs at all, more ratings would help."""
    splits = list(_splits(list(data.tiers), TIERS, folds, repeats, seed))
    full = min(len(train) for train, _ in splits)
    points = sorted({n for n in sizes if n < full} | {full})
    rng = np.random.default_rng(seed)
    records: dict[int, list] = {n: [] for n in points}
    chosen: dict[int, Counter] = {n: Counter() for n in points}
    for train, test in splits:
        for n in points:
            sub = train if n >= len(train) else _subsample(train, data.tiers, n, rng)
            records[n] += _fit_and_rank(data, sub, data, test, procedures, seed, chosen[n], bounds)
    return [Measure("curve", f"after {n} ratings" + (" (all)" if n == full else ""),
                    f"{data.name} ({n} ratings)", data.name, _figures(records[n], data.tiers, resamples, seed),
                    dict(chosen[n]), ratings=n) for n in points]


def domain_groups(domains: tuple[str, ...]) -> tuple[str, ...]:
    """Each painting's held-out group: its domain, or OTHER for domains under MIN_DOMAIN paintings."""
    sizes = Counter(domains)
    return tuple(d if sizes[d] >= MIN_DOMAIN else OTHER for d in domains)


def leave_domain_out(data: Rated, procedures, seed: int = 0, resamples: int = 2000,
                     bounds: Bounds = BOUNDS) -> list[Measure]:
    """One measure per held-out domain group with two tiers to rank, then all of them pooled
    (each pair still ranked by the model that never saw its domain)."""
    groups = domain_groups(data.domains)
    measures, pooled, chosen_all = [], [], Counter()
    for group in sorted(set(groups), key=lambda g: (g == OTHER, g)):
        test = [i for i, g in enumerate(groups) if g == group]
        train = [i for i, g in enumerate(groups) if g != group]
        if len({data.tiers[i] for i in train}) < 2 or len({data.tiers[i] for i in test}) < 2:
            continue
        chosen = Counter()
        records = _fit_and_rank(data, train, data, test, procedures, seed, chosen, bounds)
        chosen_all.update(chosen)
        pooled += records
        rest = ", ".join(sorted(set(groups) - {group}))
        measures.append(Measure("domain", f"held out: {group}", f"{data.name} ({rest})", f"{data.name} ({group})",
                                _figures(records, data.tiers, resamples, seed), dict(chosen)))
    if len(measures) > 1:
        measures.append(Measure("domain", "held out: every domain in turn", data.name, data.name,
                                _figures(pooled, data.tiers, resamples, seed), dict(chosen_all)))
    return measures


def transfer(source: Rated, target: Rated, procedures, seed: int = 0, resamples: int = 2000,
             bounds: Bounds = BOUNDS) -> Measure:
    """Fit on all of `source` (its own inner choice, as `fit` does), rank all of `target`."""
    chosen = Counter()
    records = _fit_and_rank(source, range(len(source)), target, np.arange(len(target)), procedures, seed, chosen,
                            bounds)
    return Measure("transfer", f"{source.name} -> {target.name}", source.name, target.name,
                   _figures(records, target.tiers, resamples, seed), dict(chosen))


def procedures_for(features: str, l2: float | None = None, dims: int | None = None) -> list[Procedure]:
    """The candidates `fit` would choose among, optionally pinned to one l2 or one dims."""
    if features not in CHOICES:
        raise ConfigError(f"unknown taste features {features!r}: choose one of {', '.join(CHOICES)}")
    if features in ("embedding", "both") and not embedding.available():
        raise ConfigError(f"taste features {features!r} need image embeddings: {embedding.INSTALL_HINT}")
    procedures = [p for p in _candidates(features, l2) if dims is None or p.kind == "classical" or p.dims == dims]
    if not procedures:
        raise ConfigError(f"no candidate procedure with {dims} embedding components for features {features!r}")
    return procedures


@one_blas_thread
def evaluate(pools: dict[str, Pool], features: str = "auto", split: str = "all", l2: float | None = None,
             dims: int | None = None, folds: int = 5, repeats: int = 3, seed: int = 0, resamples: int = 2000,
             cache: FeatureCache | None = None, curve: bool = True, bounds: Bounds = BOUNDS) -> Evaluation:
    """Nested CV, the learning curve (with `curve`) and leave-one-domain-out on each pool;
    transfer both ways between every two. `bounds`: which of the head's bounds every fit adds."""
    procedures = procedures_for(features, l2, dims)
    cache = cache or FeatureCache()
    embeddings = any(p.kind != "classical" for p in procedures)
    data = [rated(pool, name, cache, embeddings, split) for name, pool in pools.items()]
    measures: list[Measure] = []
    for d in data:
        measures.append(nested(d, procedures, folds, repeats, seed, resamples, bounds))
        measures += learning_curve(d, procedures, folds, 1, seed, resamples, bounds) if curve else []
        measures += leave_domain_out(d, procedures, seed, resamples, bounds)
    for a in data:
        measures += [transfer(a, b, procedures, seed, resamples, bounds) for b in data if b is not a]
    settings = {"folds": folds, "repeats": repeats, "seed": seed, "resamples": resamples, "l2": l2, "dims": dims,
                "min_domain": MIN_DOMAIN, "candidates": len(procedures), "bounds": bounds.name,
                "per_image_ms": cache.per_image_ms()}
    return Evaluation(features, split, {d.name: d.counts() for d in data}, tuple(measures), settings)
