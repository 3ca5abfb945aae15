"""The shape side of copy detection: does a painting lay out a pool painting's shapes?

A painting's shapes are read from its trusted display list (`copy_display.shapes`): each filled
shape's centroid, size, direction, elongation, compactness and fill colour.

A painting copies a pool painting when one similarity transform (any angle, uniform scale,
mirrored or not, shifted) carries many of its shapes onto the pool painting's shapes, each onto
one of like size, elongation, compactness and direction (`_Fit`), some of them to the pixel
(`EXACT`: same place, size, elongation and direction) or kept (`KEPT`: the same fill colour, near
the same place, size and elongation: a re-rolled sketch moves its random shapes a little and keeps
their colours). Hypotheses come from single pairs of elongated shapes (their centroids, directions
and sizes fix the transform; both ends of the axis and both mirrors are tried) and from pairs of
near shapes laid on pairs of like pool shapes (two centroids fix it; round shapes and the small
pieces of a splice seed here, the transforms most voted for kept), ranked by matched plus exactly
matched mass among those that could make a piece, and refined by least-squares fits on their
exact matches (on the loose ones while there are too few). Order, colour and the shapes left out
change nothing: what counts is the share of the painting's mass (sum of shape sizes) that pool
paintings explain.

The bundled pool's sketches are templates of one another (ten petals round a centre, stamens at
fixed angles), so a loose fit of a shared motif is no evidence, and even siblings match up to 4
shapes to the pixel. A piece needs `MIN_SHAPES` matches, `MIN_EXACT` of them exact and of
`MIN_KINDS` kinds (a regular flower's petals turn onto one another, so five of them fit any flower
like it), and a copy `MIN_LAYOUT` matches in all.

A splice is pieces of up to `PIECES` pool paintings, one piece each under its own transform,
chosen greedily from each pool painting's best fits, most exactly matched mass first; a shape an
earlier piece matched only loosely may be claimed exactly by a later one. A painting is a copy
when its pieces cover `copy_shape_coverage` of its mass: one circle, one flower or the pool's
shapes scattered are far below it, because the evidence is a consistent layout of many shapes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from brushwork.score.copy_display import Shapes, shapes

MIN_SHAPES = 5          # matched shapes one piece needs
MIN_KINDS = 3           # of its exact matches, unlike one another (a regular flower's petals are one kind)
LIKE = (0.15, 0.1)      # shapes of one kind: |log| of the size ratio and minor/major difference under these
MIN_LAYOUT = 10         # matched shapes in all: the evidence is a layout of many
MIN_EXACT = 4           # of them, matched to the pixel
EXACT = (0.02, 2.0, 0.04)   # an exact match: centroid within this share of the size plus px, size and minor/major
                            # within this |log| ratio and difference, direction within twice it (radians)
KEPT = (0.1, 4.0, 0.12)     # a kept match (its fill colour too): the same three tolerances, looser
TINT = 3.0                  # fill colour difference (0-255, any channel) within which a colour is kept
PIECES = 3              # pool paintings a splice may draw from
POSITION = (0.3, 12.0)  # centroid tolerance: this share of the pool shape's size plus px (of 600)
SIZE_TOL = 0.3          # |log| of the size ratio under the transform
FORM_TOL = 0.15         # elongation and compactness differences
ANGLE_TOL = 0.35        # radians between directions, for shapes both elongated
ELONGATED = 0.3         # 1 - minor/major above which a shape has a direction
SEEDS, PARTNERS = 40, 4  # largest elongated shapes tried as seeds; the likest pool shapes each is paired with
NEIGHBOURS = 3          # nearest shapes each shape is paired with, for seeds from pairs of shapes
VOTES = 6               # transforms (the most voted for by pairs) tried per pool painting
BINS = (math.radians(12), 0.12, 24.0)   # a vote's bin: radians of turn, log of scale, px of shift


@dataclass(frozen=True)
class Piece:
    """Part of a painting explained by one pool painting under one similarity transform."""

    id: str
    coverage: float       # share of the candidate's mass this piece explains
    matched: int          # shapes matched
    exact: int            # of them, matched to the pixel
    scale: float          # candidate size / pool size
    angle: float          # degrees the pool painting was turned by
    mirrored: bool
    recoloured: float     # mean fill colour difference of the matched shapes, 0-255 per channel


@dataclass(frozen=True)
class ShapeMatch:
    pieces: tuple[Piece, ...]
    coverage: float       # share of the candidate's mass its pieces explain, 0..1




class ShapeIndex:
    """The pool paintings' shapes, by id; a painting with fewer than `MIN_SHAPES` is not indexed."""

    def __init__(self, lists: dict[str, str]):
        self.refs = {pid: s for pid, s in ((pid, shapes(dl)) for pid, dl in lists.items()) if len(s) >= MIN_SHAPES}

    def nearest(self, display_list: str, exclude: frozenset[str] = frozenset()) -> ShapeMatch | None:
        """The pool paintings (up to `PIECES`) whose shapes, each set under its own transform, explain
        most of this painting's mass; None when it has too few shapes to say."""
        cand = shapes(display_list)
        if len(cand) < MIN_SHAPES or not self.refs:
            return None
        options = [(pid, fit) for pid, ref in self.refs.items() if pid not in exclude for fit in _fits(cand, ref)]
        return _pieces(cand, options)


@dataclass(frozen=True)
class _Fit:
    mirrored: bool
    angle: float          # radians the (mirrored) candidate is turned by onto the pool painting
    scale: float          # pool size / candidate size
    shift: np.ndarray
    match: np.ndarray     # (n,) the pool shape each candidate shape lands on, -1 for none
    exact: np.ndarray     # (n,) which matches land to the pixel
    recoloured: float = 0.0   # mean fill colour difference over the matches, 0-255 per channel


def _placed(cand: Shapes, mirrored, angle, scale, shift):
    """Candidate centres, directions and sizes under transforms (arrays of H hypotheses)."""
    flip = np.where(np.asarray(mirrored)[:, None], -1.0, 1.0)
    x, y = cand.centre[:, 0] * flip, cand.centre[:, 1] + 0 * flip
    cos, sin = np.cos(angle)[:, None], np.sin(angle)[:, None]
    s = np.asarray(scale)[:, None]
    centres = np.stack([s * (cos * x - sin * y), s * (sin * x + cos * y)], -1) + np.asarray(shift)[:, None, :]
    directions = (np.where(flip < 0, np.pi - cand.angle, cand.angle) + angle[:, None]) % np.pi
    return centres, directions, s * cand.size


def _land(cand: Shapes, ref: Shapes, mirrored, angle, scale, shift) -> np.ndarray:
    """(H, n): the pool shape each candidate shape lands on under each transform, -1 for none."""
    centres, directions, sizes = _placed(cand, mirrored, angle, scale, shift)
    far = np.linalg.norm(centres[:, :, None] - ref.centre[None, None], axis=-1) / (
        POSITION[0] * ref.size + POSITION[1])
    turn = np.abs(directions[:, :, None] - ref.angle[None, None]) % np.pi
    pointed = (1 - cand.ratio[:, None] > ELONGATED) & (1 - ref.ratio[None] > ELONGATED)
    ok = (far < 1) & (np.abs(np.log(sizes[:, :, None] / ref.size[None, None])) < SIZE_TOL)
    ok &= _alike(cand, ref)[None] & (~pointed[None] | (np.minimum(turn, np.pi - turn) < ANGLE_TOL))
    far = np.where(ok, far, np.inf)
    return np.where(np.isfinite(far.min(-1)), far.argmin(-1), -1)


def _alike(cand: Shapes, ref: Shapes) -> np.ndarray:
    return ((np.abs(cand.ratio[:, None] - ref.ratio[None]) < FORM_TOL)
            & (np.abs(cand.compact[:, None] - ref.compact[None]) < FORM_TOL))


def _seeds(cand: Shapes, ref: Shapes):
    """Transforms from single pairs of like elongated shapes: both ends of the axis, both mirrors."""
    alike = _alike(cand, ref) & (1 - ref.ratio[None] > ELONGATED)
    unlike = np.abs(cand.ratio[:, None] - ref.ratio[None]) + np.abs(cand.compact[:, None] - ref.compact[None])
    mine = [i for i in np.argsort(-cand.size) if 1 - cand.ratio[i] > ELONGATED][:SEEDS]
    rows = []
    for i in mine:
        for j in np.flatnonzero(alike[i])[np.argsort(unlike[i][alike[i]])][:PARTNERS]:
            for mirrored in (False, True):
                x, y = cand.centre[i] * ((-1, 1) if mirrored else (1, 1))
                own = math.pi - cand.angle[i] if mirrored else cand.angle[i]
                for flip in (0.0, math.pi):
                    a, s = ref.angle[j] - own + flip, ref.size[j] / cand.size[i]
                    shift = ref.centre[j] - s * np.array([math.cos(a) * x - math.sin(a) * y,
                                                          math.sin(a) * x + math.cos(a) * y])
                    rows.append((mirrored, a, s, shift))
    return rows + _pair_seeds(cand, ref)


def _pair_seeds(cand: Shapes, ref: Shapes) -> list:
    """Transforms from pairs of near candidate shapes laid on pairs of like pool shapes (their two
    centroids fix a similarity, mirrored or not), where both sizes and the distance scale alike;
    the `VOTES` most voted for. Round shapes (no direction) and pieces of a splice seed here."""
    n, m = len(cand), len(ref)
    if n < 2 or m < 2:
        return []
    gap = np.linalg.norm(cand.centre[:, None] - cand.centre[None], axis=-1) + np.eye(n) * 1e9
    near = np.argsort(gap, 1)[:, :NEIGHBOURS]
    i, k = np.repeat(np.arange(n), near.shape[1]), near.reshape(-1)
    keep = gap[i, k] > 2.0
    i, k = i[keep], k[keep]
    j, el = (g.reshape(-1) for g in np.meshgrid(np.arange(m), np.arange(m), indexing="ij"))
    j, el = j[j != el], el[j != el]
    alike = _alike(cand, ref)
    s1 = np.log(ref.size[j][None] / cand.size[i][:, None])
    s2 = np.log(ref.size[el][None] / cand.size[k][:, None])
    sd = np.log(np.linalg.norm(ref.centre[j] - ref.centre[el], axis=-1)[None] / gap[i, k][:, None] + 1e-12)
    ok = alike[i][:, j] & alike[k][:, el] & (np.abs(s1 - s2) < SIZE_TOL / 2) & (np.abs(sd - s1) < SIZE_TOL / 2)
    p, q = np.nonzero(ok)
    if not len(p):
        return []
    votes = []
    for mirrored in (False, True):
        flip = np.array([-1.0 if mirrored else 1.0, 1.0])
        a0, a1 = cand.centre[i[p]] * flip, cand.centre[k[p]] * flip
        b0, b1 = ref.centre[j[q]], ref.centre[el[q]]
        da, db = a1 - a0, b1 - b0
        angle = np.arctan2(db[:, 1], db[:, 0]) - np.arctan2(da[:, 1], da[:, 0])
        scale = np.linalg.norm(db, axis=1) / np.linalg.norm(da, axis=1)
        cos, sin = np.cos(angle), np.sin(angle)
        shift = b0 - scale[:, None] * np.stack([cos * a0[:, 0] - sin * a0[:, 1], sin * a0[:, 0] + cos * a0[:, 1]], 1)
        votes += [(mirrored, a, s, t) for a, s, t in zip(angle, scale, shift)]
    return _most_voted(votes)


def _most_voted(votes: list) -> list:
    """The transform of each of the `VOTES` fullest bins, from the first vote in it."""
    turn, size, px = BINS
    bins: dict[tuple, list] = {}
    for row in votes:
        mirrored, a, s, t = row
        key = (mirrored, round((a % (2 * math.pi)) / turn) % round(2 * math.pi / turn), round(math.log(s) / size),
               round(t[0] / px), round(t[1] / px))
        bins.setdefault(key, []).append(row)
    return [rows[0] for rows in sorted(bins.values(), key=len, reverse=True)[:VOTES] if len(rows) >= 2]


def _fits(cand: Shapes, ref: Shapes, keep: int = 3) -> list[_Fit]:
    """The `keep` best distinct transforms of the candidate onto a pool painting, each refined."""
    rows = _seeds(cand, ref)
    if not rows:
        return []
    mirrored, angle, scale, shift = (np.array(c) for c in zip(*rows))
    land = _land(cand, ref, mirrored, angle, scale, shift)
    exact = _exact(cand, ref, mirrored, angle, scale, shift, land)
    score = (((land >= 0) + exact) * cand.size).sum(1)
    # a fit that could be a piece first: two giant shapes landing by chance outweigh a piece of small ones
    able = ((land >= 0).sum(1) >= MIN_SHAPES) & (exact.sum(1) >= MIN_EXACT)
    fits, seen = [], set()
    for h in np.lexsort((-score, ~able)):
        fit = _refine(cand, ref, _Fit(bool(mirrored[h]), float(angle[h]), float(scale[h]), shift[h], land[h], exact[h]))
        key = (fit.mirrored, round(fit.angle % (2 * math.pi), 1), round(math.log(fit.scale), 1))
        if key in seen:
            continue
        seen.add(key)
        hit = fit.match >= 0
        tint = np.abs(cand.colour[hit] - ref.colour[fit.match[hit]]).mean() if hit.any() else 0.0
        fits.append(replace(fit, recoloured=float(tint)))
        if len(fits) == keep:
            break
    return fits


def _score(cand: Shapes, fit: _Fit) -> float:
    return float((((fit.match >= 0) + fit.exact) * cand.size).sum())


def _refine(cand: Shapes, ref: Shapes, fit: _Fit) -> _Fit:
    """Least-squares refits (mirror kept) on the exact matches, or the loose ones while there are
    too few exact, kept while they explain more."""
    for _ in range(3):
        hit = fit.exact if fit.exact.sum() >= 3 else fit.match >= 0
        better = _refit(cand, ref, fit, hit)
        if better is None or _score(cand, better) <= _score(cand, fit):
            break
        fit = better
    return fit


def _refit(cand: Shapes, ref: Shapes, fit: _Fit, hit: np.ndarray) -> _Fit | None:
    """The similarity carrying the `hit` centres onto their matches' (weighted by size), re-landed."""
    if hit.sum() < 2:
        return None
    a = cand.centre[hit] * ((-1, 1) if fit.mirrored else (1, 1))
    b, w = ref.centre[fit.match[hit]], cand.size[hit]
    am, bm = (a * w[:, None]).sum(0) / w.sum(), (b * w[:, None]).sum(0) / w.sum()
    ac, bc = a - am, b - bm
    dot, crs = (w * (ac * bc).sum(1)).sum(), (w * (ac[:, 0] * bc[:, 1] - ac[:, 1] * bc[:, 0])).sum()
    angle = math.atan2(crs, dot)
    scale = math.hypot(dot, crs) / max((w * (ac ** 2).sum(1)).sum(), 1e-9)
    if scale < 1e-3:
        return None
    shift = bm - scale * np.array([math.cos(angle) * am[0] - math.sin(angle) * am[1],
                                   math.sin(angle) * am[0] + math.cos(angle) * am[1]])
    args = np.array([fit.mirrored]), np.array([angle]), np.array([scale]), shift[None]
    land = _land(cand, ref, *args)
    return _Fit(fit.mirrored, angle, scale, shift, land[0], _exact(cand, ref, *args, land)[0])


def _exact(cand: Shapes, ref: Shapes, mirrored, angle, scale, shift, land) -> np.ndarray:
    """(H, n): which matches land to the pixel under each transform (same place, size, form and
    direction), or are kept: the same fill colour, near the same place, size and form (a re-rolled
    sketch moves its random shapes a little and keeps their colours; siblings of one template differ
    in colour)."""
    centres, directions, sizes = _placed(cand, mirrored, angle, scale, shift)
    j = np.maximum(land, 0)
    off = np.linalg.norm(centres - ref.centre[j], axis=-1)
    grown, form = np.abs(np.log(sizes / ref.size[j])), np.abs(cand.ratio - ref.ratio[j])
    turn = np.abs(directions - ref.angle[j]) % np.pi
    share, px, tol = EXACT
    exact = ((off < share * ref.size[j] + px) & (grown < tol) & (form < tol)
             & ((1 - cand.ratio <= ELONGATED) | (np.minimum(turn, np.pi - turn) < 2 * tol)))
    share, px, tol = KEPT
    kept = ((np.abs(cand.colour - ref.colour[j]).max(-1) <= TINT) & (off < share * ref.size[j] + px)
            & (grown < tol) & (form < tol))
    return (land >= 0) & (exact | kept)


def _pieces(cand: Shapes, options: list[tuple[str, _Fit]]) -> ShapeMatch | None:
    """Greedily, up to `PIECES` fits that each explain `MIN_SHAPES` more shapes, `MIN_EXACT` of them
    exactly, most exactly matched mass first. A shape an earlier piece matched only loosely may be
    matched exactly by a later one (a generic petal lands near many)."""
    loose, exact, pieces, total = np.zeros(len(cand), bool), np.zeros(len(cand), bool), [], cand.size.sum()
    for _ in range(PIECES):
        best, gain = None, 0.0
        for pid, fit in options:
            if any(piece.id == pid for piece in pieces):
                continue     # one pool painting lays out one piece: a template's motif twice is no splice
            new = (fit.match >= 0) & ~exact
            if (len(set(fit.match[new])) >= MIN_SHAPES and len(set(fit.match[new & fit.exact])) >= MIN_EXACT
                    and cand.size[new & fit.exact].sum() > gain and _kinds(cand, new & fit.exact) >= MIN_KINDS):
                best, gain = (pid, fit, new), cand.size[new & fit.exact].sum()
        if best is None:
            break
        pid, fit, new = best
        pieces.append(_piece(cand, pid, fit, cand.size[new & ~loose].sum() / total))
        loose |= new
        exact |= new & fit.exact
    if not pieces or len(set(np.flatnonzero(loose))) < MIN_LAYOUT:
        return None
    return ShapeMatch(tuple(pieces), float(cand.size[loose].sum() / total))


def _kinds(cand: Shapes, chosen: np.ndarray) -> int:
    """How many kinds the chosen shapes are of: a shape is of an earlier one's kind when like it in
    size and form (a motif of one repeated shape turns onto itself, so it fits anything like it)."""
    kinds: list[int] = []
    for i in np.flatnonzero(chosen):
        if not any(abs(math.log(cand.size[i] / cand.size[k])) < LIKE[0] and abs(cand.ratio[i] - cand.ratio[k]) < LIKE[1]
                   for k in kinds):
            kinds.append(i)
    return len(kinds)


def _piece(cand: Shapes, pid: str, fit: _Fit, coverage: float) -> Piece:
    """What was done to the pool painting to give this part of the candidate."""
    turned = (-math.degrees(fit.angle) + 180) % 360 - 180
    return Piece(pid, round(coverage, 4), int((fit.match >= 0).sum()), int(fit.exact.sum()), round(1 / fit.scale, 3),
                 round(turned, 1),
                 fit.mirrored, round(fit.recoloured, 1))
