"""The picture side of copy detection: is a painting a pool painting moved, turned or recoloured?

Each painting is reduced to an edge map of its content: the colour distance of every pixel
from the paper (the modal colour), so blank paper is 0 and an empty painting has no edges;
its gradient magnitude at `SIZE` x `SIZE`, lightly blurred. Brightness, contrast and hue shifts
move the paper and the paint together and hardly move the edges; the map is compared by
normalised cross-correlation, so its scale drops out.

A candidate is undone by each of the 8 turns and mirrors of the square and each of `SCALES`,
and correlated with a pool painting over every translation at once (FFT). The correlation is
normalised by the pool map's energy inside the window the candidate covers, so a crop (the
candidate shows only part of the pool painting, enlarged) still reaches ~1; windows that cover
less than `MIN_OVERLAP` of either picture do not count. A coarse pass (`COARSE` px) ranks every
pool painting; the full search runs on the `SHORTLIST` nearest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from brushwork.core.images import on_white

SIZE = 48                  # fine edge map, px (1 px = 12.5 px of a 600 px canvas)
COARSE = 16                # coarse edge map for the shortlist, px
SHORTLIST = 3              # pool paintings the fine search runs on
SCALES = (0.75, 0.83, 0.91, 1.0, 1.1, 1.21, 1.33)   # candidate size / pool size
COARSE_SCALES = (0.8, 1.0, 1.25)
MIN_OVERLAP = 0.5          # of each picture's area, for a translation to count
_WORK = 144                # the painting is reduced to this before the paper is found
_EMPTY = 1e-6              # edge energy below which a painting has no content to compare
RECOLOURED = 24.0          # mean paint colour difference (0-255 per channel) that reads as recoloured
# (rot90 turns, mirrored) for each of the 8 ways back; names say what was done to the pool painting
_TURNS = {(0, False): "", (0, True): "mirrored", (1, False): "rotated 90°", (2, False): "rotated 180°",
          (3, False): "rotated 270°", (2, True): "flipped upside down", (1, True): "mirrored and rotated 90°",
          (3, True): "mirrored and rotated 270°"}


@dataclass(frozen=True)
class Picture:
    """A painting as the detector compares it: edge maps and its mean paint colour."""

    fine: np.ndarray
    coarse: np.ndarray
    paint: np.ndarray        # ink-weighted mean RGB of the paint, 0-255


@dataclass(frozen=True)
class ImageMatch:
    id: str
    similarity: float        # normalised cross-correlation of the edge maps, 0..1
    transform: str           # e.g. "mirrored, scaled 0.83, shifted 25 px, recoloured"; "" for none


def picture(png: bytes) -> Picture:
    """The edge maps of a PNG's content (paper subtracted) and its mean paint colour."""
    rgb = np.asarray(on_white(png).resize((_WORK, _WORK), Image.Resampling.BOX), dtype=np.float32)
    flat = rgb.reshape(-1, 3)
    q = np.rint(flat).astype(np.int32)
    packed = (q[:, 0] << 16) | (q[:, 1] << 8) | q[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    mode = int(values[np.argmax(counts)])
    paper = np.array([(mode >> 16) & 255, (mode >> 8) & 255, mode & 255], dtype=np.float32)
    ink = np.sqrt(((rgb - paper) ** 2).sum(axis=2)) / 441.7
    weight = ink.reshape(-1)
    paint = (flat * weight[:, None]).sum(axis=0) / weight.sum() if weight.sum() > 0 else paper
    return Picture(_edges(ink, SIZE), _edges(ink, COARSE), paint)


def _edges(ink: np.ndarray, size: int) -> np.ndarray:
    small = np.asarray(Image.fromarray(ink).resize((size, size), Image.Resampling.BOX), dtype=np.float64)
    gy, gx = np.gradient(small)
    m = np.pad(np.hypot(gx, gy), 1, mode="edge")
    m = (m[:-2] + 2 * m[1:-1] + m[2:]) / 4
    return (m[:, :-2] + 2 * m[:, 1:-1] + m[:, 2:]) / 4


class _Level:
    """The correlation search at one map size, over a fixed set of pool maps."""

    def __init__(self, maps: np.ndarray, scales: tuple[float, ...]):
        self.size, self.scales = maps.shape[1], scales
        self.sides = [max(4, round(self.size / s)) for s in scales]
        self.fft = self.size + max(self.sides)   # no wrap-around: every lag is a real one
        shape = (self.fft, self.fft)
        self.pool = np.fft.rfft2(maps, shape)
        squares = np.fft.rfft2(maps ** 2, shape)
        self.energy, self.valid = [], []
        lag = np.arange(self.fft)
        self.lag = np.where(lag > self.fft // 2, lag - self.fft, lag)
        for n in self.sides:
            window = np.conj(np.fft.rfft2(np.ones((n, n)), shape))
            self.energy.append(np.sqrt(np.maximum(np.fft.irfft2(squares * window, shape), 1e-12)))
            cover = np.clip(np.minimum(self.size, self.lag + n) - np.maximum(0, self.lag), 0, None)
            both = np.outer(cover, cover)
            self.valid.append((both >= MIN_OVERLAP * self.size ** 2) & (both >= MIN_OVERLAP * n * n))

    def search(self, candidate: np.ndarray, rows: np.ndarray) -> list[tuple[float, int, int, int, int]]:
        """For each pool row: (best NCC, turn index, scale index, lag y, lag x)."""
        shape = (self.fft, self.fft)
        best = [(0.0, 0, 0, 0, 0)] * len(rows)
        turns = [np.rot90(candidate, k)[:, ::-1] if flip else np.rot90(candidate, k) for k, flip in _TURNS]
        for si, n in enumerate(self.sides):
            variants = np.stack([_resize(t, n) for t in turns])
            norms = np.linalg.norm(variants.reshape(len(turns), -1), axis=1)
            spectra = np.conj(np.fft.rfft2(variants, shape))
            cc = np.fft.irfft2(self.pool[rows][:, None] * spectra[None], shape)
            ncc = cc / (norms[None, :, None, None] * self.energy[si][rows][:, None]) * self.valid[si]
            flat = ncc.reshape(len(rows), -1)
            top = np.argmax(flat, axis=1)
            for r in np.flatnonzero(flat[np.arange(len(rows)), top] > [b[0] for b in best]):
                ti, y, x = np.unravel_index(int(top[r]), ncc.shape[1:])
                best[r] = (float(flat[r, top[r]]), int(ti), si, int(self.lag[y]), int(self.lag[x]))
        return best


def _resize(m: np.ndarray, n: int) -> np.ndarray:
    if m.shape[0] == n:
        return np.ascontiguousarray(m)
    return np.asarray(Image.fromarray(m.astype(np.float32)).resize((n, n), Image.Resampling.BILINEAR),
                      dtype=np.float64)


class ImageIndex:
    """The pool's paintings, ready to be searched for the one a painting reproduces."""

    def __init__(self, ids: list[str], pngs: list[bytes]):
        self.ids = ids
        self.pictures = [picture(png) for png in pngs]
        self.fine = _Level(np.stack([p.fine for p in self.pictures]), SCALES) if ids else None
        self.coarse = _Level(np.stack([p.coarse for p in self.pictures]), COARSE_SCALES) if ids else None

    def nearest(self, png: bytes) -> ImageMatch | None:
        """The pool painting whose edges this painting's edges match best, however moved."""
        if not self.ids:
            return None
        cand = picture(png)
        if np.linalg.norm(cand.fine) < _EMPTY:
            return None                      # bare paper: nothing to copy
        coarse = self.coarse.search(cand.coarse, np.arange(len(self.ids)))
        rows = np.argsort([-c[0] for c in coarse])[:SHORTLIST]
        fine = self.fine.search(cand.fine, rows)
        k = int(np.argmax([f[0] for f in fine]))
        value, ti, si, dy, dx = fine[k]
        row = int(rows[k])
        return ImageMatch(self.ids[row], min(1.0, max(0.0, value)), self._transform(cand, row, ti, si, dy, dx))

    def _transform(self, cand: Picture, row: int, ti: int, si: int, dy: int, dx: int) -> str:
        parts = [list(_TURNS.values())[ti]]
        if SCALES[si] != 1.0:
            parts.append(f"scaled {SCALES[si]:g}")
        # a scaling about the centre puts the candidate's box at lag (SIZE - side) / 2
        centred = (SIZE - self.fine.sides[si]) / 2
        dy, dx = dy - centred, dx - centred
        if max(abs(dy), abs(dx)) >= 2:
            parts.append(f"shifted {round(np.hypot(dy, dx) * 600 / SIZE)} px")
        if np.abs(cand.paint - self.pictures[row].paint).mean() > RECOLOURED:
            parts.append("recoloured")
        return ", ".join(p for p in parts if p)
