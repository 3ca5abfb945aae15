"""Cheap, classical image statistics of a painting: colour, coverage, edges and edge
softness, texture, composition, linework. Computed on a 160-pixel thumbnail in a few milliseconds.

Most describe the medium (soft bleeds, translucent layers, dissolving edges) rather than
the subject, which is what the taste model learns to weigh. `STRUCTURE` names the ones that
describe drawing instead: `linework` is the share of pixels on a thin dark line (a stem, a
stamen, a vein, an outline), darker than the paint on both sides of it, which round washes
and flat fills lack whatever their colours (an edge between two regions is a step, not a line).
A pixel counts by how much darker it is, on a ramp, so the feature moves continuously with
the paint instead of jumping when a few edge pixels cross a threshold.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from brushwork.core.images import thumbnail_rgb

THUMB = 160

FEATURES = (
    "coverage", "bbox_area", "centroid_offset", "spread", "symmetry_lr", "symmetry_tb", "centre_share",
    "l_mean", "l_std", "l_contrast", "chroma_mean", "chroma_std", "chroma_high", "mud",
    "hue_concentration", "hue_entropy", "palette_size", "palette_entropy",
    "translucent_share", "opaque_share", "depth_entropy",
    "grad_mean", "grad_strong", "softness", "boundary_hardness", "laplacian", "local_std",
    "paper_lightness", "paper_chroma", "linework",
)
STRUCTURE = ("linework",)   # what the painting draws rather than how the paint lies
MEDIUM = tuple(f for f in FEATURES if f not in STRUCTURE)
LINE_REACH = 2              # thumbnail pixels either side of a line at which the paint is compared
LINE_RAMP = (2.0, 5.0)      # CIE L* darker than the paint on both sides: a pixel counts 0 below, 1 above


def thumbnail(png: bytes) -> np.ndarray:
    """The painting on white, THUMB x THUMB, bilinear, as float64 RGB in 0..1."""
    return thumbnail_rgb(png, THUMB, Image.Resampling.BILINEAR)


def _lab(rgb: np.ndarray) -> np.ndarray:
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / max(counts.sum(), 1e-12)
    return float(-(p * np.log(p)).sum())


def _filter3(img: np.ndarray, k: np.ndarray) -> np.ndarray:
    p = np.pad(img, 1, mode="edge")
    out = np.zeros_like(img)
    for dy in range(3):
        for dx in range(3):
            if k[dy, dx]:
                out += k[dy, dx] * p[dy:dy + img.shape[0], dx:dx + img.shape[1]]
    return out


def _box(img: np.ndarray, r: int) -> np.ndarray:
    c = np.cumsum(np.cumsum(np.pad(img, ((r + 1, r), (r + 1, r)), mode="edge"), 0), 1)
    n = 2 * r + 1
    return (c[n:, n:] - c[:-n, n:] - c[n:, :-n] + c[:-n, :-n]) / (n * n)


def _linework(L: np.ndarray) -> float:
    """Share of pixels on a thin dark line: darker than the paint LINE_REACH pixels away on both
    sides (along a row, a column or a diagonal), where those two sides differ from each other by
    less than half that depth (a thin line, not the step between two regions). Each pixel counts
    by a ramp over LINE_RAMP rather than past one threshold, so an edge pixel whose depth moves a
    level (another shader build) moves the share a little instead of flipping in or out."""
    d = LINE_REACH
    depth = np.zeros_like(L)
    for dy, dx in ((0, d), (d, 0), (d, d), (d, -d)):
        a, b = np.roll(L, (dy, dx), (0, 1)), np.roll(L, (-dy, -dx), (0, 1))
        dip = np.minimum(a, b) - L
        depth = np.maximum(depth, np.where(np.abs(a - b) < 0.5 * dip, dip, 0.0))
    inner = depth[d:-d, d:-d]   # np.roll wraps around: the border compares opposite edges
    lo, hi = LINE_RAMP
    return float(np.clip((inner - lo) / (hi - lo), 0.0, 1.0).sum() / L.size)


def features(png: bytes) -> np.ndarray:
    """The feature vector of one painting, in the order of `FEATURES`."""
    rgb = thumbnail(png)
    lab = _lab(rgb)
    L, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    quant = (rgb * 15).round().astype(np.int32)
    packed = quant[..., 0] * 256 + quant[..., 1] * 16 + quant[..., 2]
    values, counts = np.unique(packed, return_counts=True)
    paper = lab[packed == values[np.argmax(counts)]].mean(axis=0)
    dev = np.sqrt(((lab - paper) ** 2).sum(-1))
    mask = dev > 3.0
    cov = float(mask.mean())
    w = np.clip(dev - 3.0, 0, None)
    wsum = w.sum() + 1e-9
    ys, xs = np.mgrid[0:THUMB, 0:THUMB] / (THUMB - 1) - 0.5
    cy, cx = float((w * ys).sum() / wsum), float((w * xs).sum() / wsum)
    spread = float(np.sqrt((w * ((ys - cy) ** 2 + (xs - cx) ** 2)).sum() / wsum))
    if mask.any():
        rows, cols = np.where(mask.any(1))[0], np.where(mask.any(0))[0]
        bbox = (rows[-1] - rows[0] + 1) * (cols[-1] - cols[0] + 1) / THUMB ** 2
    else:
        bbox = 0.0
    sym_lr = float(np.corrcoef(w.ravel(), w[:, ::-1].ravel())[0, 1]) if w.std() > 0 else 0.0
    sym_tb = float(np.corrcoef(w.ravel(), w[::-1, :].ravel())[0, 1]) if w.std() > 0 else 0.0
    third = THUMB // 3
    centre_share = float(w[third:2 * third, third:2 * third].sum() / wsum)

    chroma = np.sqrt(a ** 2 + b ** 2)
    pl, pc = (L[mask], chroma[mask]) if mask.any() else (L.ravel(), chroma.ravel())
    pa, pb, pdev = (a[mask], b[mask], dev[mask]) if mask.any() else (a.ravel(), b.ravel(), dev.ravel())
    hue = np.arctan2(pb, pa)
    hw = np.clip(pc - 5, 0, None)
    hue_conc = float(np.hypot((hw * np.cos(hue)).sum(), (hw * np.sin(hue)).sum()) / (hw.sum() + 1e-9))
    hue_hist = np.histogram(hue, bins=12, range=(-np.pi, np.pi), weights=hw)[0]
    pq = packed[mask] if mask.any() else packed.ravel()
    _, pcounts = np.unique(pq, return_counts=True)
    palette_size = float((pcounts > 0.005 * pq.size).sum())
    mud = float(((pc < 12) & (pl > 25) & (pl < 70)).mean())

    sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=float)
    gx, gy = _filter3(L, sobel_x), _filter3(L, sobel_x.T)
    grad = np.hypot(gx, gy) / 8.0
    strong, weak = grad > 6.0, (grad > 0.8) & (grad <= 6.0)
    eroded = mask & np.roll(mask, 1, 0) & np.roll(mask, -1, 0) & np.roll(mask, 1, 1) & np.roll(mask, -1, 1)
    boundary = mask & ~eroded
    lap = _filter3(L, np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=float))
    local_std = np.sqrt(np.clip(_box(L ** 2, 2) - _box(L, 2) ** 2, 0, None))

    return np.array([
        cov, bbox, float(np.hypot(cy, cx)), spread, sym_lr, sym_tb, centre_share,
        float(pl.mean()) / 100, float(pl.std()) / 100, float(np.percentile(L, 97) - np.percentile(L, 3)) / 100,
        float(pc.mean()) / 100, float(pc.std()) / 100, float((pc > 60).mean()), mud,
        hue_conc, _entropy(hue_hist), palette_size / 50, _entropy(pcounts),
        float(((pdev > 3) & (pdev < 30)).mean()), float((pdev > 60).mean()),
        _entropy(np.histogram(pdev, bins=10, range=(0, 100))[0]),
        float(grad.mean()), float(strong.mean()), float(weak.sum() / (weak.sum() + strong.sum() + 1e-9)),
        float(grad[boundary].mean()) if boundary.any() else 0.0, float(np.abs(lap[mask]).mean()) if mask.any()
        else 0.0, float(local_std[mask].mean()) if mask.any() else 0.0,
        float(paper[0]) / 100, float(np.hypot(paper[1], paper[2])) / 100, 100 * _linework(L),
    ])
