"""The taste model: a Bradley–Terry preference head over image features, fit on a pool.

Every cross-tier pair of the pool's training items (love > okay > nope, in the configured
tier order) and every recorded pairwise preference becomes a comparison; the head learns a
utility ``s(x) = w · [z, z²]`` on standardised features z and their squares (the squares
let "too much" and "too little" both lose: an empty page and an overworked one), with L2
regularisation chosen by an inner cross-validation, fit by Newton's method. Then:

- as a judge: P(candidate beats reference) = sigmoid(s_c - s_r), a calibrated probability;
- as an aesthetic: sigmoid(s - mean s of the middle tier), the probability of beating a
  typical middle-tier painting, in [0, 1].
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from brushwork.core.features import FEATURES, features
from brushwork.errors import ConfigError
from brushwork.pool import TIERS, Pool

VERSION = 2
L2_GRID = (10.0, 30.0, 100.0, 300.0)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class FeatureCache:
    """Features by image content hash, so a reference painting is measured once."""

    def __init__(self):
        self._by_hash: dict[str, np.ndarray] = {}

    def __call__(self, png: bytes) -> np.ndarray:
        key = hashlib.sha256(png).hexdigest()
        if key not in self._by_hash:
            self._by_hash[key] = features(png)
        return self._by_hash[key]


@dataclass
class TasteModel:
    weights: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    pivot: float                       # mean utility of the middle tier
    tiers: tuple[str, ...] = TIERS
    snapshot: str = ""                 # the pool snapshot it was fit on
    report: dict = field(default_factory=dict)
    feature_names: tuple[str, ...] = FEATURES
    _cache: FeatureCache = field(default_factory=FeatureCache, repr=False, compare=False)

    def utility(self, png: bytes) -> float:
        return float(expand((self._cache(png) - self.mean) / self.std) @ self.weights)

    def aesthetic(self, png: bytes) -> float:
        return float(_sigmoid(self.utility(png) - self.pivot))

    def prefer(self, first: bytes, second: bytes) -> float:
        """P(first is preferred over second)."""
        return float(_sigmoid(self.utility(first) - self.utility(second)))

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({
            "version": VERSION, "kind": "brushwork-taste", "snapshot": self.snapshot, "tiers": list(self.tiers),
            "features": list(self.feature_names), "weights": self.weights.tolist(), "mean": self.mean.tolist(),
            "std": self.std.tolist(), "pivot": self.pivot, "report": self.report,
        }, indent=1))
        return path

    @classmethod
    def load(cls, path: Path | str) -> TasteModel:
        try:
            d = json.loads(Path(path).read_text())
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read taste model {path}: {e}; fit one with `brushwork taste fit`") from e
        if d.get("kind") != "brushwork-taste" or d.get("version") != VERSION:
            raise ConfigError(f"{path} is not a brushwork taste model (version {VERSION}); refit it")
        if tuple(d["features"]) != FEATURES:
            raise ConfigError(f"{path} was fit on other features; refit it with `brushwork taste fit`")
        return cls(np.array(d["weights"]), np.array(d["mean"]), np.array(d["std"]), d["pivot"],
                   tuple(d["tiers"]), d["snapshot"], d.get("report", {}))


def expand(z: np.ndarray) -> np.ndarray:
    """Standardised features and their squares."""
    return np.concatenate([z, z ** 2], axis=-1)


def _tier_pairs(tiers_of: list[str], order: tuple[str, ...]) -> list[tuple[int, int]]:
    rank = {t: i for i, t in enumerate(order)}
    pairs = []
    for i, j in itertools.permutations(range(len(tiers_of)), 2):
        if tiers_of[i] in rank and tiers_of[j] in rank and rank[tiers_of[i]] < rank[tiers_of[j]]:
            pairs.append((i, j))
    return pairs


def _fit_weights(x: np.ndarray, pairs: list[tuple[int, int]], l2: float) -> np.ndarray:
    d = x[[i for i, _ in pairs]] - x[[j for _, j in pairs]]
    w = np.zeros(x.shape[1])
    for _ in range(25):
        p = _sigmoid(d @ w)
        grad = -(d * (1 - p)[:, None]).sum(0) + l2 * w
        hess = (d * (p * (1 - p))[:, None]).T @ d + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def fit_arrays(x: np.ndarray, tiers_of: list[str], order: tuple[str, ...] = TIERS, l2: float = 100.0,
               prefs: list[tuple[int, int]] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    mean, std = x.mean(0), x.std(0) + 1e-6
    z = expand((x - mean) / std)
    pairs = _tier_pairs(tiers_of, order) + list(prefs)
    if not pairs:
        raise ConfigError("the pool has no two tiers to compare: rate paintings into at least two tiers")
    w = _fit_weights(z, pairs, l2)
    middle = order[len(order) // 2]
    utilities = z @ w
    mids = [u for u, t in zip(utilities, tiers_of) if t == middle]
    pivot = float(np.mean(mids)) if mids else float(np.median(utilities))
    return w, mean, std, pivot


def choose_l2(x: np.ndarray, tiers_of: list[str], order: tuple[str, ...] = TIERS, seed: int = 0) -> float:
    """The regularisation with the best pairwise accuracy in an inner 3-fold cross-validation."""
    def accuracy(l2):
        r = cross_validate(x, tiers_of, order, l2, folds=3, seed=seed, repeats=1)
        hits = sum(r["pairwise_accuracy"][k] * r["pairs"][k] for k in r["pairs"])
        return hits / max(sum(r["pairs"].values()), 1)
    return max(L2_GRID, key=accuracy)


def fit(pool: Pool, l2: float | None = None, order: tuple[str, ...] = TIERS, folds: int = 5, seed: int = 0,
        cache: FeatureCache | None = None) -> TasteModel:
    """Fit on the pool's training split and attach a cross-validated report. With `l2` None,
    the regularisation is chosen by an inner cross-validation (inside each outer fold too)."""
    cache = cache or FeatureCache()
    items = [i for i in pool.split("train") if i.tier in order]
    x = np.stack([cache(i.image_bytes()) for i in items])
    tiers_of = [i.tier for i in items]
    chosen = l2 if l2 is not None else choose_l2(x, tiers_of, order, seed)
    index = {item.id: n for n, item in enumerate(items)}
    prefs = [(index[a], index[b]) for a, b in pool.preferences if a in index and b in index]
    w, mean, std, pivot = fit_arrays(x, tiers_of, order, chosen, prefs)
    report = cross_validate(x, tiers_of, order, l2, folds, seed)
    report["items"] = {t: tiers_of.count(t) for t in order}
    report["l2"] = chosen
    report["preferences"] = len(prefs)
    model = TasteModel(w, mean, std, pivot, order, pool.snapshot, report)
    model._cache = cache
    return model


def cross_validate(x: np.ndarray, tiers_of: list[str], order: tuple[str, ...] = TIERS, l2: float | None = 100.0,
                   folds: int = 5, seed: int = 0, repeats: int = 3) -> dict:
    """Pairwise accuracy on held-out paintings, per tier pair: for each fold, fit on the
    other folds (choosing l2 there when it is None) and judge every cross-tier pair of the
    unseen paintings."""
    rng = np.random.default_rng(seed)
    hits: dict[str, list[int]] = {}
    n = len(tiers_of)
    for _ in range(repeats):
        fold_of = np.empty(n, dtype=int)
        for tier in order:  # stratified: each fold gets its share of every tier
            idx = [i for i, t in enumerate(tiers_of) if t == tier]
            rng.shuffle(idx)
            for k, i in enumerate(idx):
                fold_of[i] = k % folds
        for f in range(folds):
            train = np.where(fold_of != f)[0]
            test = np.where(fold_of == f)[0]
            if len({tiers_of[i] for i in train}) < 2:
                continue
            train_tiers = [tiers_of[i] for i in train]
            fold_l2 = l2 if l2 is not None else choose_l2(x[train], train_tiers, order, seed)
            w, mean, std, _ = fit_arrays(x[train], train_tiers, order, fold_l2)
            u = expand((x[test] - mean) / std) @ w
            for a, b in _tier_pairs([tiers_of[i] for i in test], order):
                name = f"{tiers_of[test[a]]}>{tiers_of[test[b]]}"
                hits.setdefault(name, []).append(int(u[a] > u[b]))
    return {"pairwise_accuracy": {k: round(float(np.mean(v)), 4) for k, v in sorted(hits.items())},
            "pairs": {k: len(v) for k, v in sorted(hits.items())}, "folds": folds, "repeats": repeats}


def load_or_fit(pool: Pool, path: Path | str | None = None) -> TasteModel:
    """The taste model for `pool`: from `path` when given, else fit once per pool snapshot and cached."""
    if path is not None:
        return TasteModel.load(path)
    from brushwork.paths import cache_root

    cached = cache_root() / "taste" / f"{pool.snapshot}.json"
    if cached.exists():
        try:
            return TasteModel.load(cached)
        except ConfigError:
            pass
    model = fit(pool)
    model.save(cached)
    return model
