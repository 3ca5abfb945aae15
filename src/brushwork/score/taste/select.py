"""Which procedure a person's pool gets, chosen on that pool alone, and how well it does there.

The candidates (`_candidates`) span the feature kinds (classical image statistics, the ViT
embedding, both), the embedding's principal components (`DIMS_GRID`: from a few to as many as
the training paintings allow) and the L2 regularisation (`L2_GRID`: from a head that follows
every rating to one that barely moves off the mean). `select` scores every candidate by a
stratified 3-fold cross-validation on the training paintings (`INNER_REPEATS` shuffles): the
mean, over tier pairs, of the pairwise accuracy on held-out paintings, so a pool with many
love/nope pairs does not choose for love vs nope alone. The best candidate wins (ties: the
simpler, listed first: classical before both before embedding, fewer components, more L2). Its scores for every
candidate are the inner-CV curve that `taste fit` prints.

The local-agreement cap (brushwork.score.taste.agreement) stays out of the choice: it is fitted on
the chosen head as a guard. On the bundled pool the top candidates' inner scores lie within 0.003
of each other; the cap moved them by up to 0.015 and so switched the choice between near-equals
(to an embedding head at l2 10 that paid the honest good examples an aesthetic median of 0.70
instead of 0.996). Every other bound is part of what each candidate is scored as.

`cross_validate` is the nested estimate: the choice is made again inside each outer fold, on
that fold's training paintings only, so the figure says what the whole procedure does on
unseen paintings (the choice included).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from brushwork.core import embedding
from brushwork.pool import TIERS
from brushwork.score.taste.head import BOUNDS, Bounds, Procedure, _fit_head, _tier_pairs

KINDS = ("classical", "embedding", "both")
CHOICES = ("auto",) + KINDS
L2_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
DIMS_GRID = (8, 16, 32, 64)       # principal components of the embedding tried (at most paintings - 1)
INNER_FOLDS = 3
INNER_REPEATS = 1                 # shuffles of the inner folds averaged by the choice


def one_blas_thread(fn):
    """Run `fn` with one BLAS thread: a head's matrices are tens of paintings wide, and BLAS threads
    on them only contend (the choice on the bundled pool: 15.2 CPU-s with numpy's threads on two
    cores, 1.0 CPU-s with one)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)
    return run


def _candidates(kind: str, l2: float | None) -> list[Procedure]:
    l2s = (l2,) if l2 is not None else L2_GRID
    kinds = (["classical", "both", "embedding"] if embedding.available() else ["classical"]) \
        if kind == "auto" else [kind]
    return [Procedure(k, 0 if k == "classical" else d, r) for k in kinds
            for d in ((0,) if k == "classical" else DIMS_GRID) for r in sorted(l2s, reverse=True)]


def _folds(tiers_of: list[str], order: tuple[str, ...], folds: int, rng) -> np.ndarray:
    """Stratified: each fold gets its share of every tier."""
    fold_of = np.zeros(len(tiers_of), dtype=int)
    for tier in order:
        idx = [i for i, t in enumerate(tiers_of) if t == tier]
        rng.shuffle(idx)
        for k, i in enumerate(idx):
            fold_of[i] = k % folds
    return fold_of


def _splits(tiers_of, order, folds: int, repeats: int, seed: int):
    """(train, test) index arrays of `repeats` shuffles of stratified folds, each training set
    holding two tiers."""
    rng = np.random.default_rng(seed)
    for _ in range(repeats):
        fold_of = _folds(tiers_of, order, folds, rng)
        for f in range(folds):
            train, test = np.where(fold_of != f)[0], np.where(fold_of == f)[0]
            if len({tiers_of[i] for i in train}) >= 2 and len(test):
                yield train, test


def _pick(values, idx):
    return None if values is None else [values[i] for i in idx]


def _rank(procedure, c, e, tiers_of, order, train, test, domains_of, bounds: Bounds) -> dict[str, list[int]]:
    """Fit on `train`, rank `test`'s cross-tier pairs: hits per tier pair."""
    head = _fit_head(procedure, c[train], None if e is None else e[train], [tiers_of[i] for i in train], order,
                     domains_of=_pick(domains_of, train), bounds=bounds)
    u = head.utilities(c[test], None if e is None else e[test], _pick(domains_of, test))
    hits: dict[str, list[int]] = {}
    for a, b in _tier_pairs([tiers_of[i] for i in test], order):
        hits.setdefault(f"{tiers_of[test[a]]}>{tiers_of[test[b]]}", []).append(int(u[a] > u[b]))
    return hits


def balanced(hits: dict[str, list[int]]) -> float:
    """The mean over tier pairs of each pair's accuracy (0.5 with no pairs)."""
    return float(np.mean([np.mean(v) for v in hits.values()])) if hits else 0.5


@dataclass(frozen=True)
class Selection:
    """The chosen procedure and every candidate's inner-CV score (its curve)."""

    chosen: Procedure
    curve: tuple[tuple[Procedure, float], ...]

    def to_dict(self) -> dict:
        return {"chosen": self.chosen.label, "curve": [{"procedure": p.label, "kind": p.kind, "dims": p.dims,
                                                        "l2": p.l2, "score": round(s, 4)} for p, s in self.curve]}


def select(procedures: list[Procedure], c, e, tiers_of, order=TIERS, seed: int = 0, domains_of=None,
           bounds: Bounds = BOUNDS) -> Selection:
    """Every candidate scored by inner cross-validation on these paintings (with `bounds`, less the
    local-agreement cap); the best chosen."""
    if len(procedures) == 1:
        return Selection(procedures[0], ((procedures[0], float("nan")),))
    bounds = dataclasses.replace(bounds, agreement=False)
    pooled = [dict() for _ in procedures]
    for train, test in _splits(tiers_of, order, INNER_FOLDS, INNER_REPEATS, seed):
        for n, p in enumerate(procedures):
            for pair, h in _rank(p, c, e, tiers_of, order, train, test, domains_of, bounds).items():
                pooled[n].setdefault(pair, []).extend(h)
    scores = [balanced(h) for h in pooled]
    best = int(np.argmax(scores))     # the first of equals
    return Selection(procedures[best], tuple(zip(procedures, scores)))


def choose(procedures: list[Procedure], c, e, tiers_of, order=TIERS, seed: int = 0, domains_of=None,
           bounds: Bounds = BOUNDS) -> Procedure:
    """The procedure `select` chooses."""
    return select(procedures, c, e, tiers_of, order, seed, domains_of, bounds).chosen


def cross_validate(procedures: list[Procedure], c, e, tiers_of, order=TIERS, folds: int = 5, seed: int = 0,
                   repeats: int = 3, domains_of=None, bounds: Bounds = BOUNDS) -> dict:
    """Nested cross-validation: pairwise accuracy on held-out paintings per tier pair, the
    choice among `procedures` made on the other folds only."""
    hits: dict[str, list[int]] = {}
    chosen: dict[str, int] = {}
    for train, test in _splits(tiers_of, order, folds, repeats, seed):
        sub = [tiers_of[i] for i in train]
        sub_domains = None if domains_of is None else [domains_of[i] for i in train]
        e_train = None if e is None else e[train]
        procedure = choose(procedures, c[train], e_train, sub, order, seed, sub_domains, bounds)
        chosen[procedure.name] = chosen.get(procedure.name, 0) + 1
        for pair, h in _rank(procedure, c, e, tiers_of, order, train, test, domains_of, bounds).items():
            hits.setdefault(pair, []).extend(h)
    return {"pairwise_accuracy": {k: round(float(np.mean(v)), 4) for k, v in sorted(hits.items())},
            "pairs": {k: len(v) for k, v in sorted(hits.items())}, "folds": folds, "repeats": repeats,
            "chosen_in_folds": chosen}
