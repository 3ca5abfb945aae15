"""Small statistics shared by the layers that report figures with intervals."""

from __future__ import annotations

import numpy as np

from brushwork.errors import ConfigError


def bootstrap_interval(values, resamples: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean: `resamples` draws of len(values) values with
    replacement (numpy's default_rng(seed)), and the (1 - level)/2 and (1 + level)/2 quantiles
    of their means."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        raise ConfigError("a bootstrap interval needs at least one value")
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def _painting_counts(strata, resamples: int, seed: int) -> np.ndarray:
    """How often each painting is drawn in each resample: within every stratum (a tier), as many
    draws with replacement as the stratum has paintings, so each resample keeps the tier counts."""
    labels = np.asarray([str(s) for s in strata])
    counts = np.zeros((resamples, labels.size), dtype=np.int64)
    rng = np.random.default_rng(seed)
    rows = np.arange(resamples)
    for label in sorted(set(labels.tolist())):
        members = np.flatnonzero(labels == label)
        draws = members[rng.integers(0, members.size, size=(resamples, members.size))]
        np.add.at(counts, (np.repeat(rows, members.size), draws.ravel()), 1)
    return counts


def painting_interval(pairs, values, strata, resamples: int = 2000, seed: int = 0,
                      level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of a mean over pairs of paintings, resampling paintings.

    Pairs share paintings (a love painting meets every okay one), so their outcomes are not
    independent and resampling pairs gives too narrow an interval. Each resample draws the
    paintings with replacement within each stratum (`strata[i]`, e.g. the tier of painting i;
    numpy's default_rng(seed)); a pair (i, j) then counts as often as i and j were drawn
    together (count_i * count_j), and the resample's figure is the weighted mean of `values`.
    Resamples in which no pair survives are left out. The same seed and strata give the same
    draws, so intervals of different pair subsets (tier pairs) come from the same resamples."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    values = np.asarray(values, dtype=float)
    if values.size == 0 or len(pairs) != values.size:
        raise ConfigError(f"a painting-level interval needs one value per pair ({len(pairs)} pairs, "
                          f"{values.size} values, at least one)")
    counts = _painting_counts(strata, resamples, seed)
    weights = counts[:, pairs[:, 0]] * counts[:, pairs[:, 1]]
    total = weights.sum(axis=1)
    means = (weights[total > 0] @ values) / total[total > 0]
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)
