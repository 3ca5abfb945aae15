"""Active rating: ask the rater about the painting (or pair) the taste model is least sure of.

`ActiveChooser(store)` is the `choose_next` hook of `brushwork pool serve --active`. For each
rater it refits a cheap taste head on that rater's own judgements so far (classical features,
fixed L2: the Bradley–Terry head of brushwork.score.taste.model) at most every `refit_every`
judgements, in a background thread, so the page never waits on a fit; until a fit is ready it
keeps choosing from the previous one (or by the cold-start rule).

- tier mode: each unrated painting's tier is predicted by an ordinal logistic model on the
  head's utility (cut points between adjacent tiers); the chooser asks about the painting with
  the highest entropy of that prediction, less `spread` per rating its subject already has, so
  the questions spread over subjects;
- pair mode: among pairs of paintings of different subjects that the rater has not compared,
  the one whose P(a beats b) is nearest 0.5, less-compared paintings first;
- cold start (ratings in fewer than two tiers, or no comparison to fit on): round-robin over the
  subjects, the least-rated subject first.
"""

from __future__ import annotations

import logging
import math
import random
import threading
from collections import Counter
from dataclasses import dataclass

import numpy as np

from brushwork.pool.choice import Choice
from brushwork.pool.store import PoolStore
from brushwork.score.taste.head import Bounds, Procedure, _fit_head, _Head
from brushwork.score.taste.model import FeatureCache

log = logging.getLogger(__name__)

PROCEDURE = Procedure("classical", 0, 100.0)
# The local-agreement cap guards a reward against shapes paid above their neighbours; here it would only
# flatten the utilities whose ordering the chooser reads.
BOUNDS = Bounds(agreement=False)
SCALES = np.geomspace(0.25, 8.0, 16)     # ordinal slopes tried on the head's utility
NEIGHBOURS = 6                          # pair mode: partners looked at on each side in utility order


def _sigmoid(x):
    """The logistic function, clipped so that confident cut points do not overflow exp."""
    return 1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0)))


@dataclass(frozen=True)
class TasteFit:
    """A head fit on one rater's judgements, with cut points between the tiers it has seen."""

    head: _Head
    tiers: tuple[str, ...]           # tiers the ordinal part predicts (those rated), best first
    centre: float
    scale: float
    cuts: np.ndarray                 # decreasing: P(tier index <= k) = sigmoid(scale * u - cuts[k])
    judgements: int

    def utilities(self, c: np.ndarray) -> np.ndarray:
        return self.head.utilities(c, None) - self.centre

    def tier_probabilities(self, c: np.ndarray) -> np.ndarray:
        """(n, len(tiers)) predicted tier probabilities; empty columns when fewer than two tiers."""
        return _ordinal(self.scale * self.utilities(c), self.cuts)


def _ordinal(y: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    at_least = _sigmoid(y[:, None] - cuts[None, :])            # P(tier index <= k)
    padded = np.concatenate([np.zeros((len(y), 1)), at_least, np.ones((len(y), 1))], axis=1)
    return np.clip(np.diff(padded, axis=1), 1e-9, 1.0)


def _fit_cuts(u: np.ndarray, ranks: np.ndarray, levels: int) -> tuple[float, np.ndarray]:
    """Slope and cut points of an ordinal logistic model of `ranks` on `u` (0 = best): each cut by
    a 1-D Newton fit with a weak prior, the slope chosen on a grid by penalised likelihood."""
    best = (math.inf, 1.0, np.zeros(levels - 1))
    for a in SCALES:
        y = a * u
        cuts = np.array([_cut(y, ranks <= k) for k in range(levels - 1)])
        cuts = np.minimum.accumulate(cuts)               # keep them ordered
        p = _ordinal(y, cuts)[np.arange(len(y)), ranks]
        loss = -np.log(p).sum() + 0.5 * math.log(a) ** 2 + 0.05 * (cuts ** 2).sum()
        if loss < best[0]:
            best = (loss, float(a), cuts)
    return best[1], best[2]


def _cut(y: np.ndarray, better: np.ndarray, prior: float = 0.1) -> float:
    t = 0.0
    for _ in range(30):
        p = _sigmoid(y - t)
        grad = (better - p).sum() + prior * t
        hess = (p * (1 - p)).sum() + prior
        t -= grad / hess
    return float(t)


def fit_taste(c: np.ndarray, tiers_of: list[str], order: tuple[str, ...],
              prefs: list[tuple[int, int]] = (), judgements: int = 0) -> TasteFit | None:
    """The cheap head on rows `c` (tier '' where a painting is only compared), or None when the
    judgements give nothing to compare yet."""
    rated = [t for t in order if t in tiers_of]
    if len(rated) < 2 and not prefs:
        return None
    head = _fit_head(PROCEDURE, c, None, tiers_of, order, list(prefs), bounds=BOUNDS)
    u = head.utilities(c, None)
    idx = [i for i, t in enumerate(tiers_of) if t in rated]
    centre = float(np.mean(u[idx])) if idx else float(np.mean(u))
    if len(rated) < 2:
        return TasteFit(head, (), centre, 1.0, np.zeros(0), judgements)
    ranks = np.array([rated.index(tiers_of[i]) for i in idx])
    scale, cuts = _fit_cuts(u[idx] - centre, ranks, len(rated))
    return TasteFit(head, tuple(rated), centre, scale, cuts, judgements)


def entropy(p: np.ndarray) -> np.ndarray:
    return -(p * np.log(p)).sum(axis=-1)


def unsure(tiers: tuple[str, ...], p: np.ndarray) -> str:
    return "the model is unsure: " + " / ".join(f"{t} {v:.2f}" for t, v in zip(tiers, p))


class ActiveChooser:
    """The `choose_next` hook for the rating page over `store` (see the module docstring).

    `background=False` refits in the caller's thread when a refit is due (the benchmark's
    simulated rater, where determinism matters more than latency)."""

    def __init__(self, store: PoolStore, refit_every: int = 3, spread: float = 0.1, coverage: float = 0.05,
                 background: bool = True, cache: FeatureCache | None = None):
        self.store, self.refit_every, self.spread, self.coverage = store, refit_every, spread, coverage
        self.background = background
        self._cache = cache or FeatureCache()
        self._features: dict[str, np.ndarray] = {}
        self._fits: dict[str, TasteFit | None] = {}
        self._fitted_at: dict[str, int] = {}
        self._wanted: set[str] = set()
        self._busy = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._work, name="active-chooser", daemon=True) if background else None
        if self._thread:
            self._thread.start()

    # -- the hook --------------------------------------------------------------------------------
    def __call__(self, rater: str, mode: str, after: str | None, skip: int) -> Choice | None:
        return self.next_pair(rater, skip) if mode == "pair" else self.next_item(rater, after)

    def next_item(self, rater: str, after: str | None = None) -> Choice | None:
        """The unrated painting to ask `rater` about (not `after`, the one shown now, unless it is
        the last); None once every painting is rated."""
        fit = self.current_fit(rater)
        rated = {r.item for r in self.store.ratings(rater=rater)}
        everything = self.store.items()
        items = [i for i in everything if i.id not in rated]
        if not items:
            return None
        if len(items) > 1:
            items = [i for i in items if i.id != after]
        counts = Counter(i.subject for i in everything if i.id in rated)
        known = [i for i in items if i.id in self._features]
        if fit is None or not fit.tiers or not known:
            return _cold_item(items, counts, random.Random(f"{rater}\n{len(rated)}"))
        probs = fit.tier_probabilities(np.stack([self._features[i.id] for i in known]))
        k = int(np.argmax(self.item_scores(probs, [counts[i.subject] for i in known])))
        return Choice((known[k].id,), unsure(fit.tiers, probs[k]))

    def next_pair(self, rater: str, skip: int = 0) -> Choice | None:
        """Two paintings of different subjects to compare; None when fewer than two paintings."""
        fit = self.current_fit(rater)
        items = self.store.items()
        if len(items) < 2:
            return None
        seen = [(p.a, p.b) for p in self.store.preferences() if p.rater == rater]
        counts = Counter(x for pair in seen for x in pair)
        paired = {frozenset(pair) for pair in seen}
        rng = random.Random(f"{rater}\n{len(seen)}\n{skip}")
        known = [i for i in items if i.id in self._features]
        pairs = _close_pairs(fit, known, counts, paired, self._features, self.coverage) if fit and len(known) > 1 \
            else []
        if not pairs:
            return _cold_pair(items, counts, paired, rng)
        p, a, b = pairs[skip % len(pairs)]
        if rng.random() < 0.5:
            a, b, p = b, a, 1 - p
        return Choice((a, b), f"the model is unsure which you prefer: P(left is better) {p:.2f}")

    def item_scores(self, probs: np.ndarray, subject_counts: list[int]) -> np.ndarray:
        """How much asking about each painting is worth: its tier entropy, less `spread` per rating
        its subject already has."""
        return entropy(probs) - self.spread * np.asarray(subject_counts, dtype=float)

    # -- fits ------------------------------------------------------------------------------------
    def judgements(self, rater: str) -> int:
        one = lambda q: self.store.db.execute(q, (rater,)).fetchone()[0]  # noqa: E731
        return one("SELECT COUNT(*) FROM ratings WHERE rater=?") + one("SELECT COUNT(*) FROM preferences WHERE rater=?")

    def current_fit(self, rater: str) -> TasteFit | None:
        """The latest fit for `rater`; asks for a refit when enough has changed since (in the
        background, or here when `background` is off)."""
        with self._cond:
            fit, at = self._fits.get(rater), self._fitted_at.get(rater)
        n = self.judgements(rater)
        due = at is None or (n != at and (fit is None or abs(n - at) >= self.refit_every))
        if due and not self.background:
            return self.refit(rater)
        if due:
            with self._cond:
                self._wanted.add(rater)
                self._cond.notify_all()
        return fit

    def refit(self, rater: str) -> TasteFit | None:
        """Fit `rater`'s head now on their latest rating per painting and their preferences."""
        n = self.judgements(rater)
        latest = {r.item: r.tier for r in self.store.ratings(rater=rater)}
        prefs = [(p.a, p.b) if p.winner == "a" else (p.b, p.a)
                 for p in self.store.preferences() if p.rater == rater and p.winner != "tie"]
        ids = sorted(set(latest) | {x for pair in prefs for x in pair})
        self._measure(self.store.items())
        fit = None
        if ids:
            index = {i: k for k, i in enumerate(ids)}
            fit = fit_taste(np.stack([self._features[i] for i in ids]), [latest.get(i, "") for i in ids],
                            self.store.tiers, [(index[a], index[b]) for a, b in prefs], n)
        with self._cond:
            self._fits[rater], self._fitted_at[rater] = fit, n
        return fit

    def _measure(self, items) -> None:
        for item in items:
            if item.id not in self._features:
                self._features[item.id] = self._cache.classical(self.store.image_bytes(item))

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._wanted and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                rater = self._wanted.pop()
                self._busy = True
            try:
                self.refit(rater)
            except Exception:   # a failed fit leaves the last one in use; the page keeps working
                log.exception("active rating: refitting %s's taste head failed", rater)
                with self._cond:
                    self._fitted_at[rater] = self.judgements(rater)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def settle(self, timeout: float = 60.0) -> bool:
        """Wait until no refit is pending or running (tests); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._wanted and not self._busy, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread:
            self._thread.join(timeout=10)


def _cold_item(items, counts: Counter, rng: random.Random) -> Choice:
    """An unrated painting of a subject with the fewest of the rater's ratings, drawn by `rng`
    (seeded by rater and rating count: a reload asks the same, and the store's order, which may
    follow quality, does not decide)."""
    low = min(counts[i.subject] for i in items)
    item = rng.choice([i for i in items if counts[i.subject] == low])
    return Choice((item.id,), f"cold start (no ratings in two tiers yet): spreading over subjects, "
                              f"{item.subject or 'untitled'!r} has {counts[item.subject]} of your ratings")


def _cold_pair(items, counts: Counter, paired: set, rng: random.Random) -> Choice:
    """The least-compared painting against the least-compared one of another subject it has not met."""
    low = min(counts[i.id] for i in items)
    first = rng.choice([i for i in items if counts[i.id] == low])
    others = [i for i in items if i.id != first.id and frozenset((first.id, i.id)) not in paired] or \
        [i for i in items if i.id != first.id]
    others = [i for i in others if i.subject != first.subject] or others
    low = min(counts[i.id] for i in others)
    second = rng.choice([i for i in others if counts[i.id] == low])
    a, b = (first, second) if rng.random() < 0.5 else (second, first)
    return Choice((a.id, b.id), "cold start (nothing to fit on yet): spreading over subjects, the least-compared "
                                "paintings first")


def _close_pairs(fit: TasteFit, items, counts: Counter, paired: set, features: dict, coverage: float):
    """(P(a beats b), a, b) for paintings near in utility, of different subjects, not yet compared,
    best question first: |P - 0.5| plus `coverage` per comparison either painting already has."""
    u = fit.utilities(np.stack([features[i.id] for i in items]))
    order = np.argsort(u)
    found: dict[frozenset, tuple[float, float, str, str]] = {}
    for pos, k in enumerate(order):
        for other in order[pos + 1:pos + 1 + NEIGHBOURS]:
            a, b = items[k], items[other]
            key = frozenset((a.id, b.id))
            if a.subject == b.subject or key in paired or key in found:
                continue
            p = float(_sigmoid(u[k] - u[other]))
            found[key] = (abs(p - 0.5) + coverage * (counts[a.id] + counts[b.id]), p, a.id, b.id)
    return [(p, a, b) for _, p, a, b in sorted(found.values())]
