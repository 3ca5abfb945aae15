"""Where the rated paintings are, and what the taste model may say about a painting outside them.

A linear preference head extrapolates: a painting with "more of" a feature than anything in
the pool (flat clip-art is all hard edge and saturated colour) gets a utility far above the
love tier, though no rater ever saw anything like it. The support bounds that.

Distance: a painting's mean Euclidean distance to its `k` nearest rated training paintings,
in standardised coordinates: the classical features of the medium, whatever features the head
reads (`_Head.support_raw`: flat clip-art lies near the pool in the embedding's components yet far
outside its edges and colours, and beside tens of components those distances would be diluted).
Scale: the same distance for each training painting to its `k` nearest *other* paintings
(leave-one-out), whose `EDGE_QUANTILE` is the support's edge, i.e. how far from its neighbours
a rated painting the pool itself holds lies. Weight: 1 up to the edge, then a smooth Gaussian
fall, `exp(-((r - 1) / WIDTH)²)` at `r = distance / edge`, to 0 far outside. Bound: above the
bottom tier's mean utility (the floor) the utility is shrunk toward it, `floor + weight · (u -
floor)`; at or below the floor it is kept (an off-support painting is never paid more for being off support).

The same bound, a second time, for the top tier (`Support.fit(..., floor=...)`): distances in
the structure features (brushwork.core.features.STRUCTURE: linework) to the top tier's
training paintings only, scaled by those paintings' own leave-one-out distances, and the
floor the next tier down's mean utility as the bounded model pays it (set by the model's fit).
A painting is paid above the middle tier only as far as it draws like the paintings the person
loved: round washes lie among loved washes in the medium, but draw no stem, stamen or vein, so
they stop at the middle tier. One-sided (`one_sided`): a painting that draws more than every
loved painting is measured as if it drew as much as the most drawn one (more drawing is not
what the bound is about).

Fitted with the head on the same training paintings, so nested cross-validation measures the
bounded model honestly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

K = 3                 # nearest rated paintings a distance is the mean over
EDGE_QUANTILE = 0.9   # of the pool's leave-one-out distances: support 1 up to there
WIDTH = 0.35          # how fast the weight falls past the edge, in edges (r = 1.7: 0.02)


@dataclass
class Support:
    """The rated training paintings in standardised coordinates, the edge and the floor."""

    mean: np.ndarray       # standardisation of the raw coordinates
    std: np.ndarray
    points: np.ndarray     # training paintings, standardised, one row each
    edge: float            # distance at which support starts to fall (pool's own LOO k-NN quantile)
    floor: float           # mean utility of the bottom tier
    k: int = K
    one_sided: bool = False   # coordinates above every training painting's count as at the top

    @classmethod
    def fit(cls, raw: np.ndarray, utilities: np.ndarray, bottom: np.ndarray, k: int = K,
            floor: float | None = None, one_sided: bool = False) -> Support:
        """`raw`: the training paintings' coordinates; `utilities`: the head's on them; `bottom`:
        which are in the bottom tier (the floor is their mean utility, unless `floor` is given)."""
        mean, std = raw.mean(0), raw.std(0) + 1e-6
        points = (raw - mean) / std
        k = max(1, min(k, len(points) - 1))
        d = pairwise(points, points)
        np.fill_diagonal(d, np.inf)
        loo = np.sort(d, axis=1)[:, :k].mean(1)
        edge = float(np.quantile(loo, EDGE_QUANTILE)) if len(points) > 1 else 1.0
        if floor is None:
            floor = float(utilities[bottom].mean()) if bottom.any() else float(utilities.min())
        return cls(mean, std, points, max(edge, 1e-9), floor, k, one_sided)

    def nearest(self, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per row of `raw`: indices of its `k` nearest training paintings and their mean distance."""
        z = (raw - self.mean) / self.std
        if self.one_sided:
            z = np.minimum(z, self.points.max(0))
        d = pairwise(z, self.points)
        order = np.argsort(d, axis=1)[:, :self.k]
        return order, np.take_along_axis(d, order, 1).mean(1)

    def weight_of(self, raw: np.ndarray) -> np.ndarray:
        """Per row of `raw`: its weight, by its distance to its nearest training paintings."""
        return self.weight(self.nearest(raw)[1])

    def weight(self, distance: np.ndarray) -> np.ndarray:
        """1 inside the support (distance up to the edge), falling smoothly to 0 outside."""
        r = np.maximum(distance / self.edge - 1.0, 0.0)
        return np.exp(-(r / WIDTH) ** 2)

    def bound(self, utilities: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """Utilities above the floor shrunk toward it by `weight`; those at or below kept."""
        return np.where(utilities > self.floor, self.floor + weight * (utilities - self.floor), utilities)

    def to_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "std": self.std.tolist(), "points": self.points.tolist(),
                "edge": self.edge, "floor": self.floor, "k": self.k, "one_sided": self.one_sided}

    @classmethod
    def from_dict(cls, d: dict) -> Support:
        return cls(np.array(d["mean"]), np.array(d["std"]), np.array(d["points"]), float(d["edge"]),
                   float(d["floor"]), int(d["k"]), bool(d.get("one_sided", False)))


def pairwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distances, row by row of differences (no matrix product, whose last bits depend on
    the arrays' memory layout: a saved and reloaded model answers the same to the bit)."""
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
