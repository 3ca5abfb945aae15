"""The taste model's preference head and its bounds: what one fit of one procedure is.

A procedure (`Procedure`) names the features (classical, embedding or both), how many principal
components of the embedding and how much L2. `_fit_head` fits it on training paintings: every
cross-tier pair (love > okay > nope, in the configured tier order) and every recorded pairwise
preference becomes a comparison; the head learns a utility ``s(x) = w · [z, z_c²]`` on
standardised features z (the classical ones with their squares, so "too much" and "too little"
both lose), with L2 regularisation, fit by Newton's method (Bradley–Terry).

Then the bounds (`Bounds` says which are fitted; benchmarks/taste_bounds.py measures what each
costs on held-out ratings and buys against the attack families):

- support (brushwork.score.taste.support): a painting unlike anything rated is shrunk toward the
  bottom tier's mean utility, so the head cannot pay more for "more of" a feature than anything
  in the pool holds;
- structure: a painting is paid above the middle tier only as far as it draws like the top
  tier's paintings (the structure features: linework), so a subject-less wash in a loved medium
  stops at the middle tier. Fitted per domain with at least `MIN_DOMAIN_LOVED` loved training
  paintings, pooled for any other domain;
- the middle-tier floor (`paid_floor`): the structure bound's floor is the middle tier's mean
  as the bounded model pays it (`_paid_mean`), not its unbounded mean, so a painting held at the
  floor is paid what a typical middle-tier painting is, not more;
- local agreement (brushwork.score.taste.agreement): a painting is paid no more than the median
  of its nearest rated paintings (in the coordinates the head reads) plus the pool's own margin,
  so a shape whose neighbours were rated okay and nope is not paid like loved work.

Every bound is fitted with the head on the same training paintings, so cross-validation
measures the bounded model.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from brushwork.core.features import FEATURES, MEDIUM, STRUCTURE
from brushwork.errors import ConfigError
from brushwork.score.taste.agreement import Agreement
from brushwork.score.taste.support import Support

BOOTSTRAPS = 8                    # heads refit on resampled paintings: the assessment's uncertainty
MIN_DOMAIN_LOVED = 3              # loved training paintings a domain needs for a structure bound of its own


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class Bounds:
    """Which bounds a fit adds to the head (all by default: the deployed model)."""

    support: bool = True       # shrink toward the bottom tier off the rated paintings
    structure: bool = True     # paid above the middle tier only as far as it draws like the top tier
    paid_floor: bool = True    # the structure floor: the middle tier as the bounded model pays it
    agreement: bool = True     # paid no more than its nearest rated paintings' median, plus a margin

    @property
    def name(self) -> str:
        off = [n for n in ("support", "structure", "paid_floor", "agreement") if not getattr(self, n)]
        return "all bounds" if not off else "without " + ", ".join(off)


BOUNDS = Bounds()


@dataclass(frozen=True)
class Procedure:
    """What is fit: which features, how many embedding components, how much regularisation."""

    kind: str = "classical"
    dims: int = 0
    l2: float = 100.0

    @property
    def name(self) -> str:
        return self.kind if self.kind == "classical" else f"{self.kind} ({self.dims} components)"

    @property
    def label(self) -> str:
        return f"{self.name}, l2 {self.l2:g}"



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
    agreement: Agreement | None = None   # the cap by the nearest rated paintings, in the head's coordinates

    def raw(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        parts = [_columns(c, MEDIUM)] if self.procedure.kind != "embedding" else []
        if self.procedure.kind != "classical":
            parts.append((e - self.pca_mean) @ self.pca_components.T)
        return np.concatenate(parts, axis=-1)

    @staticmethod
    def support_raw(c: np.ndarray, e: np.ndarray | None = None) -> np.ndarray:
        """Where the support measures distances: the classical features of the medium, whatever the
        head reads. Flat clip-art lies far outside the pool's edges and colours but near it in the
        embedding's components; beside 32-64 of those, the classical distances would be diluted
        and clip-art paid as an honest painting (benchmarks/RESULTS.md, "Taste bounds")."""
        return _columns(c, MEDIUM)

    @staticmethod
    def structure_raw(c: np.ndarray) -> np.ndarray:
        """Where the top tier's support measures distances: the structure features."""
        return _columns(c, STRUCTURE)

    def standardised(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        """The coordinates the head reads: its features, standardised (before the squares)."""
        return (self.raw(c, e) - self.mean) / self.std

    def design(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        return _design(self.standardised(c, e), self.squared)

    def linear(self, c: np.ndarray, e: np.ndarray | None) -> np.ndarray:
        """The head's own utilities, unbounded (they extrapolate off the support)."""
        return self.design(c, e) @ self.weights

    def utilities(self, c: np.ndarray, e: np.ndarray | None, domains=None) -> np.ndarray:
        """The utilities the model answers with: bounded by the support, by the top tier's
        structure in each row's domain (`domains`: one per row, or one for all; None or "": the
        pooled bound) and by the local agreement, each when fitted."""
        u = self.linear(c, e)
        if self.support is not None:
            u = self.support.bound(u, self.support.weight_of(self.support_raw(c, e)))
        if self.structure is not None:
            rows = [domains] * len(u) if domains is None or isinstance(domains, str) else list(domains)
            raw = self.structure_raw(c)
            for bound in {id(s): s for s in map(self.structure_for, rows)}.values():
                mask = np.array([self.structure_for(d) is bound for d in rows])
                u[mask] = bound.bound(u[mask], bound.weight_of(raw[mask]))
        if self.agreement is not None:
            u = self.agreement.bound(u, self.standardised(c, e))
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
    """Newton's method on the L2-regularised Bradley–Terry loss of `pairs` (better, worse).

    The loss sees a pair only through the difference of two paintings' utilities, so gradient and
    Hessian are gathered per painting (n rows) rather than per pair (n² rows): the same numbers,
    a fit in milliseconds on a laptop for every candidate of the inner search."""
    n = len(x)
    i, j = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    w = np.zeros(x.shape[1])
    for _ in range(25):
        s = x @ w
        p = _sigmoid(s[i] - s[j])
        r, q = 1 - p, p * (1 - p)
        g = np.bincount(i, r, n) - np.bincount(j, r, n)
        m = (np.bincount(i * n + i, q, n * n) + np.bincount(j * n + j, q, n * n)
             - np.bincount(i * n + j, q, n * n) - np.bincount(j * n + i, q, n * n)).reshape(n, n)
        step = np.linalg.solve(x.T @ m @ x + l2 * np.eye(len(w)), -x.T @ g + l2 * w)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def _fit_head(procedure: Procedure, c: np.ndarray, e: np.ndarray | None, tiers_of: list[str],
              order: tuple[str, ...], prefs: list[tuple[int, int]] = (), domains_of=None,
              bounds: Bounds = BOUNDS) -> _Head:
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
    if bounds.support:
        head.support = Support.fit(head.support_raw(c, e), x @ head.weights, bottom)
    top = np.array([bool(rated) and t == rated[0] for t in tiers_of])
    below = np.array([len(rated) > 1 and t == rated[1] for t in tiers_of])
    if bounds.structure and top.sum() >= 2 and below.any():
        _fit_structure(head, c, e, top, below, domains_of, bounds.paid_floor)
    if bounds.agreement:
        head.agreement = Agreement.fit(head.standardised(c, e), head.utilities(c, e, domains_of))
    return head


def _fit_structure(head: _Head, c, e, top: np.ndarray, below: np.ndarray, domains_of, paid_floor: bool) -> None:
    """Paid above the next tier down only as far as it draws like the top tier: the pooled and the
    per-domain structure bounds, their floor the next tier's mean as the bounded model pays it
    (`paid_floor`) or unbounded."""
    u = head.utilities(c, e)
    head.structure = Support.fit(head.structure_raw(c[top]), u[top], np.zeros(int(top.sum()), bool),
                                 floor=float(u[below].mean()), one_sided=True)
    head.structures = _domain_structures(head, c, u, top, domains_of)
    if not paid_floor:
        return
    rows = [None] * len(below) if domains_of is None else list(domains_of)
    raw = head.structure_raw(c)
    weight = np.array([head.structure_for(rows[i]).weight_of(raw[i:i + 1])[0] for i in np.where(below)[0]])
    floor = _paid_mean(weight, u[below], head.structure.floor)
    for bound in (head.structure, *head.structures.values()):
        bound.floor = floor


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
