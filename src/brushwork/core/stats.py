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
