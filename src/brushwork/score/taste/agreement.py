"""The local-agreement cap: a painting is paid no more than its nearest rated paintings agree it is worth.

The support (brushwork.score.taste.support) asks how far a painting lies from the rated ones in
the classical features; it does not ask what those neighbours were rated. A head that reads
tens of embedding components spreads the tiers far apart, so a flat clip-art shape that the
support calls near the pool (its nearest paintings a nope and two okays) can land above the
middle tier and be paid like good work (taste v9: aesthetic 0.84, benchmarks/RESULTS.md,
"Reward attacks").

The cap: in the coordinates the head reads (its standardised features, embedding components
included), take a painting's `k` nearest rated training paintings and their bounded utilities;
the painting is paid at most their median plus a margin. The median needs a majority of the
neighbours to agree: one loved painting among nopes and okays does not lift the cap. The margin
is the pool's own: each training painting's utility above the median of its `k` nearest *other*
paintings (leave-one-out), at `MARGIN_QUANTILE`, so a rated painting the pool itself holds is
seldom held by it. At or below the cap a utility is kept.

Fitted with the head on the same training paintings, so nested cross-validation measures the
capped model honestly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from brushwork.score.taste.support import pairwise

K = 3                   # nearest rated paintings whose median utility caps a painting's
MARGIN_QUANTILE = 0.9   # of the pool's own leave-one-out excess over that median


@dataclass
class Agreement:
    """The rated training paintings in the head's standardised coordinates, their utilities, the margin."""

    points: np.ndarray      # one row per training painting
    utilities: np.ndarray   # their bounded utilities (support and structure applied)
    margin: float
    k: int = K

    @classmethod
    def fit(cls, points: np.ndarray, utilities: np.ndarray, k: int = K) -> Agreement:
        k = max(1, min(k, len(points) - 1))
        if len(points) < 2:
            return cls(points, utilities, 0.0, 1)
        d = pairwise(points, points)
        np.fill_diagonal(d, np.inf)
        excess = utilities - np.median(utilities[np.argsort(d, axis=1)[:, :k]], axis=1)
        return cls(points, utilities, max(float(np.quantile(excess, MARGIN_QUANTILE)), 0.0), k)

    def cap(self, z: np.ndarray) -> np.ndarray:
        """Per row of `z` (standardised as the head reads it): the most it may be paid."""
        order = np.argsort(pairwise(z, self.points), axis=1)[:, :self.k]
        return np.median(self.utilities[order], axis=1) + self.margin

    def bound(self, utilities: np.ndarray, z: np.ndarray) -> np.ndarray:
        return np.minimum(utilities, self.cap(z))

    def to_dict(self) -> dict:
        return {"points": self.points.tolist(), "utilities": self.utilities.tolist(), "margin": self.margin,
                "k": self.k}

    @classmethod
    def from_dict(cls, d: dict) -> Agreement:
        return cls(np.array(d["points"]), np.array(d["utilities"]), float(d["margin"]), int(d["k"]))
