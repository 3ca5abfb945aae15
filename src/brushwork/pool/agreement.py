"""Agreement statistics between raters: Cohen's kappa (plain and weighted) and
Krippendorff's alpha (nominal, ordinal, interval), with missing ratings allowed."""

from __future__ import annotations

import numpy as np

from brushwork.errors import ConfigError


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
    expected = float((np.outer(n_c, n_c) * delta).sum()) / float(n_c.sum() - 1)
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
