"""The picture side of copy detection: is a painting a pool painting moved, turned or recoloured?

Each painting is reduced to edge maps of its content: the colour distance of every pixel
from the paper (the modal colour), so blank paper is 0 and an empty painting has no edges;
its gradient magnitude at a few sizes, lightly blurred. Brightness, contrast and hue shifts
move the paper and the paint together and hardly move the edges; the maps are compared by
normalised cross-correlation, so their scale drops out.

A candidate is undone by the 8 turns and mirrors of the square and by a set of scales, and
correlated with a pool painting over every translation at once (FFT). The correlation is
normalised by the pool map's energy inside the window the candidate covers (a summed-area
table), so a crop (the candidate shows only part of the pool painting, enlarged) still
reaches ~1; windows that cover less than `MIN_OVERLAP` of either picture do not count. The search
(`Level`, `Hits`, `scaled_side`, `TURN_KEYS`) is shared with the outline side (`copy_outline`).

A painting shrunk onto paper gains edges where its paint met the canvas border (a hill band
painted edge to edge now ends inside the picture), which its pool map lacks. So each pool
painting is indexed twice, as it is and framed: laid on 5 % more paper all round, the same
edges drawn where its paint meets the border.

A painting shrunk onto a backdrop of another colour is measured from its own paper, the
backdrop and its seam blank (`copy_backdrop`).

Three passes, each on what the one before kept (`Search`): a coarse pass (16 px, 3 scales,
every turn) ranks every pool map and its turns; the fine pass (48 px, 7 scales from 0.75
to 1.33) runs on both maps of the 10 nearest paintings at their 4 best turns; the confirm
pass (96 px) runs on the best of those alone, at its turn and 5 scales around its scale. The similarity is the
confirm pass's: at 96 px two paintings that merely share a layout fall well below a copy.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image

from brushwork.core.images import PAPER
from brushwork.score import copy_backdrop

MIN_OVERLAP = 0.5          # of each picture's area, for a translation to count
_WORK = 144                # the painting is reduced to this before the paper is found
_EMPTY = 1e-6              # edge energy below which a painting has no content to compare
_FLOOR = 1e-6              # window energy, as a share of the map's, below which a window has no content
SHIFTED = 20.0             # canvas px (of 600) of shift that reads as shifted rather than rounding
RECOLOURED = 24.0          # mean paint colour difference (0-255 per channel) that reads as recoloured
# (rot90 turns, mirrored) for each of the 8 ways back; names say what was done to the pool painting
_TURNS = {(0, False): "", (0, True): "mirrored", (1, False): "rotated 90°", (2, False): "rotated 180°",
          (3, False): "rotated 270°", (2, True): "flipped upside down", (1, True): "mirrored and rotated 90°",
          (3, True): "mirrored and rotated 270°"}
TURN_KEYS = list(_TURNS)


@dataclass(frozen=True)
class Search:
    """How the picture search looks: the map size and scales of each pass and what each pass keeps.

    The defaults are the detector's; the threshold `copy_image_similarity` was set on them."""

    size: int = 48                                             # fine edge map, px (1 px = 12.5 px of 600)
    scales: tuple[float, ...] = (0.75, 0.83, 0.91, 1.0, 1.1, 1.21, 1.33)   # candidate size / pool size
    coarse: int = 16                                           # coarse edge map, px
    coarse_scales: tuple[float, ...] = (0.8, 1.0, 1.25)
    shortlist: int = 10                                        # pool paintings the fine pass runs on (near-alike
                                                               # landscapes crowd a shorter list)
    turns: int = 4                                             # of their turns the fine pass tries (8: all)
    confirm: int = 96                                          # confirm edge map, px; 0: no confirm pass
    confirm_steps: tuple[float, ...] = (0.94, 0.97, 1.0, 1.03, 1.06)   # times the fine pass's scale
    margin: float = 0.05       # paper laid round each pool painting's second, framed map, per side; 0: none
    backdrops: bool = True     # a painting laid on a backdrop of another colour is measured from its paper


@dataclass(frozen=True)
class Picture:
    """A painting as the detector compares it: an edge map for each pass and its mean paint colour."""

    coarse: np.ndarray
    fine: np.ndarray
    confirm: np.ndarray | None   # None when the search has no confirm pass
    paint: np.ndarray            # ink-weighted mean RGB of the paint, 0-255


@dataclass(frozen=True)
class ImageMatch:
    id: str
    similarity: float        # normalised cross-correlation of the edge maps, 0..1
    transform: str           # e.g. "mirrored, scaled 0.83, shifted 25 px, recoloured"; "" for none


def picture(png: bytes, search: Search, margin: float = 0.0) -> Picture:
    """The edge maps of a PNG's content (paper subtracted), at each pass's size, and its mean paint colour;
    with a `margin` (a share of the side), of the painting laid on that much more paper all round."""
    with Image.open(io.BytesIO(png)) as im:
        small = im.convert("RGBA").resize((_WORK, _WORK), Image.Resampling.BOX)
    # laid on white after the reduction, not before: the same picture for a 25th of the work
    rgb = np.asarray(Image.alpha_composite(Image.new("RGBA", small.size, PAPER), small).convert("RGB"),
                     dtype=np.float32)
    flat = rgb.reshape(-1, 3)
    grain = copy_backdrop.grain(rgb)
    paper, outside = copy_backdrop.paper(rgb, grain, search.backdrops)
    ink = copy_backdrop.ink(rgb, paper, outside)
    if grain >= copy_backdrop.GRAINY:
        ink = np.maximum(ink - 2 * grain, 0)     # the paper's noise back to blank; the paint's steps stay
    ink /= 441.7
    weight = ink.reshape(-1)
    paint = (flat * weight[:, None]).sum(axis=0) / weight.sum() if weight.sum() > 0 else paper
    if margin:
        ink = np.pad(ink, round(_WORK * margin))
    confirm = _edges(ink, search.confirm) if search.confirm else None
    return Picture(_edges(ink, search.coarse), _edges(ink, search.size), confirm, paint)


def _edges(ink: np.ndarray, size: int) -> np.ndarray:
    small = np.asarray(Image.fromarray(ink).resize((size, size), Image.Resampling.BOX), dtype=np.float32)
    gy, gx = np.gradient(small)
    m = np.pad(np.hypot(gx, gy), 1, mode="edge")
    m = (m[:-2] + 2 * m[1:-1] + m[2:]) / 4
    return (m[:, :-2] + 2 * m[:, 1:-1] + m[:, 2:]) / 4


def scaled_side(size: int, scale: float) -> int:
    """The side a candidate map is resized to so that it is at the pool's scale again."""
    return max(4, round(size / scale))


def _fast(n: int) -> int:
    """The smallest FFT length >= n with no prime factor above 5 (232 = 8 x 29 takes twice 240's time)."""
    while True:
        m = n
        for p in (2, 3, 5):
            while m % p == 0:
                m //= p
        if m == 1:
            return n
        n += 1


def _turn(m: np.ndarray, t: int) -> np.ndarray:
    k, flip = TURN_KEYS[t]
    turned = np.rot90(m, k)
    return turned[:, ::-1] if flip else turned


def _resize(m: np.ndarray, n: int) -> np.ndarray:
    if m.shape[0] == n:
        return m
    return np.asarray(Image.fromarray(m).resize((n, n), Image.Resampling.BILINEAR), dtype=np.float32)


@dataclass(frozen=True)
class Hits:
    """The best shift of each (pool row, turn) pair searched: arrays shaped like the turns asked for."""

    value: np.ndarray
    scale: np.ndarray        # index into the scales searched
    lag_y: np.ndarray
    lag_x: np.ndarray


class Level:
    """The correlation search at one map size over a fixed stack of pool maps, for candidate
    sides up to `largest` px (FFTs of size + largest: no wrap-around, every lag is a real one)."""

    def __init__(self, maps: np.ndarray, largest: int):
        self.size = maps.shape[1]
        self.fft = _fast(self.size + largest)
        self.pool = np.fft.rfft2(maps, (self.fft, self.fft))
        squares = np.zeros((len(maps), self.size + 1, self.size + 1))
        squares[:, 1:, 1:] = (maps.astype(np.float64) ** 2).cumsum(axis=1).cumsum(axis=2)
        self.squares = squares                       # summed-area table of the squared maps
        self.floor = _FLOOR * squares[:, -1, -1]
        lag = np.arange(self.fft)
        self.lag = np.where(lag > self.fft // 2, lag - self.fft, lag)
        self._weights: dict[int, np.ndarray] = {}

    def weights(self, n: int) -> np.ndarray:
        """1 / (pool energy under an n x n window) at every lag, 0 where the window overlaps too little."""
        if n not in self._weights:
            lo, hi = np.clip(self.lag, 0, self.size), np.clip(self.lag + n, 0, self.size)
            s = self.squares
            energy = (s[:, hi][:, :, hi] - s[:, lo][:, :, hi] - s[:, hi][:, :, lo] + s[:, lo][:, :, lo])
            cover = hi - lo
            both = np.outer(cover, cover)
            valid = (both >= MIN_OVERLAP * self.size ** 2) & (both >= MIN_OVERLAP * n * n)
            energy = np.maximum(energy, self.floor[:, None, None])
            self._weights[n] = (valid / np.sqrt(energy)).astype(np.float32)
        return self._weights[n]

    def search(self, candidate: np.ndarray, rows: np.ndarray, turns: np.ndarray,
               scales: tuple[float, ...]) -> Hits:
        """For each row and each of its turns (`turns`: rows x k turn indices): the best NCC over
        `scales` and every shift."""
        shape = (self.fft, self.fft)
        used, where = np.unique(turns, return_inverse=True)
        where = where.reshape(turns.shape)
        value = np.full(turns.shape, -np.inf, dtype=np.float32)
        best = [np.zeros(turns.shape, dtype=int) for _ in range(3)]
        for si, scale in enumerate(scales):
            n = scaled_side(self.size, scale)
            small = _resize(candidate, n)
            variants = np.stack([_turn(small, int(t)) for t in used])
            norms = np.linalg.norm(variants.reshape(len(used), -1), axis=1)
            spectra = np.conj(np.fft.rfft2(variants, shape))
            cc = np.fft.irfft2(self.pool[rows][:, None] * spectra[where], shape)
            ncc = (cc * self.weights(n)[rows][:, None]).reshape(*turns.shape, -1)
            top = np.argmax(ncc, axis=-1)
            got = np.take_along_axis(ncc, top[..., None], axis=-1)[..., 0] / norms[where]
            better = got > value
            value = np.where(better, got, value)
            y, x = np.unravel_index(top, shape)
            for field, new in zip(best, (si, self.lag[y], self.lag[x])):
                field[better] = np.broadcast_to(new, turns.shape)[better]
        return Hits(value, *best)


class ImageIndex:
    """The pool's paintings, ready to be searched for the one a painting reproduces.

    Each painting is indexed twice: as it is, and framed (laid on `Search.margin` more paper
    all round). A painting shrunk onto paper gains edges where its paint meets the canvas
    border; its framed map has them too, where the plain one has none."""

    def __init__(self, ids: list[str], pngs: list[bytes], search: Search = Search()):
        self.ids, self.how = ids, search
        self.pictures = [picture(png, search) for png in pngs]
        if search.margin:
            self.pictures += [picture(png, search, search.margin) for png in pngs]
        self.coarse = self.fine = None
        if ids:
            coarse, fine = np.stack([p.coarse for p in self.pictures]), np.stack([p.fine for p in self.pictures])
            self.coarse = Level(coarse, scaled_side(search.coarse, min(search.coarse_scales)))
            self.fine = Level(fine, scaled_side(search.size, min(search.scales)))

    def nearest(self, png: bytes) -> ImageMatch | None:
        """The pool painting whose edges this painting's edges match best, however moved."""
        if not self.ids:
            return None
        how, n = self.how, len(self.ids)
        cand = picture(png, how)
        if np.linalg.norm(cand.fine) < _EMPTY:
            return None                      # bare paper: nothing to copy
        every = np.arange(len(self.pictures))
        coarse = self.coarse.search(cand.coarse, every, np.tile(np.arange(8), (len(every), 1)),
                                    how.coarse_scales).value
        # the paintings whose plain or framed map comes nearest, each with both its maps
        paintings = np.argsort(-coarse.max(axis=1).reshape(-1, n).max(axis=0), kind="stable")[:how.shortlist]
        rows = (paintings[None] + n * np.arange(len(self.pictures) // n)[:, None]).reshape(-1)
        turns = np.argsort(-coarse[rows], axis=1, kind="stable")[:, :how.turns]
        fine = self.fine.search(cand.fine, rows, turns, how.scales)
        r, k = np.unravel_index(int(np.argmax(fine.value)), turns.shape)
        row, turn, scale = int(rows[r]), int(turns[r, k]), how.scales[fine.scale[r, k]]
        value, size, dy, dx = float(fine.value[r, k]), how.size, int(fine.lag_y[r, k]), int(fine.lag_x[r, k])
        if how.confirm:
            scales = tuple(scale * step for step in how.confirm_steps)
            level = Level(self.pictures[row].confirm[None], scaled_side(how.confirm, min(scales)))
            hit = level.search(cand.confirm, np.zeros(1, dtype=int), np.array([[turn]]), scales)
            value, scale, size = float(hit.value[0, 0]), scales[hit.scale[0, 0]], how.confirm
            dy, dx = int(hit.lag_y[0, 0]), int(hit.lag_x[0, 0])
        transform = self._transform(cand, row, turn, scale, scaled_side(size, scale), size, dy, dx)
        return ImageMatch(self.ids[row % n], min(1.0, max(0.0, value)), transform)

    def _transform(self, cand: Picture, row: int, turn: int, scale: float, side: int, size: int,
                   dy: int, dx: int) -> str:
        parts = [_TURNS[TURN_KEYS[turn]]]
        # a framed map holds the painting at 1 / (1 + 2 margin) of its side, centred
        real = scale / (1 + 2 * self.how.margin) if row >= len(self.ids) else scale
        if abs(real - 1) > 0.02:
            parts.append(f"scaled {round(real, 2):g}")
        # a scaling about the centre puts the candidate's box at lag (size - side) / 2
        centred = (size - side) / 2
        shift = np.hypot(dy - centred, dx - centred) * 600 / size
        if shift >= SHIFTED:
            parts.append(f"shifted {round(shift)} px")
        if np.abs(cand.paint - self.pictures[row].paint).mean() > RECOLOURED:
            parts.append("recoloured")
        return ", ".join(p for p in parts if p)
