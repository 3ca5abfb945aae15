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
reaches ~1; windows that cover less than `MIN_OVERLAP` of either picture do not count.

A painting shrunk onto paper gains edges where its paint met the canvas border (a hill band
painted edge to edge now ends inside the picture), which its pool map lacks. So each pool
painting is indexed twice, as it is and framed: laid on 5 % more paper all round, the same
edges drawn where its paint meets the border.

A painting shrunk onto a backdrop of another colour would be measured from the backdrop: its
own paper would read as paint, the seam as an edge all round it. So a painting laid on a
backdrop is found (`_paper`) and measured from its own paper, the backdrop and its seam blank:
where its paper fills a square box with straight seams (any backdrop: flat, a gradient, a
texture), where the colour jumps all along the sides of a square (the seam alone: a painting
with no paper margin on any backdrop), or where a flat colour fills an edge row or column round
a box that shows another colour all along its inner sides (a flat backdrop, whether or not the
painting has a paper margin). All allow for grain, so noise on every pixel does not hide the
backdrop.

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

MIN_OVERLAP = 0.5          # of each picture's area, for a translation to count
_WORK = 144                # the painting is reduced to this before the paper is found
_LAID_ON = 0.9             # share of each inner side of the box round a picture on a backdrop
_FLAT = 3.0                # colour distance (0-255 per channel) within which a clean pixel is a flat colour
_GRAINY = 0.5              # grain (colour step between neighbours) above which a picture has no exact colours
_SQUARE = 0.7              # of the side, the least a painting laid on a backdrop that is not flat fills
_EMPTY = 1e-6              # edge energy below which a painting has no content to compare
_FLOOR = 1e-6              # window energy, as a share of the map's, below which a window has no content
SHIFTED = 20.0             # canvas px (of 600) of shift that reads as shifted rather than rounding
RECOLOURED = 24.0          # mean paint colour difference (0-255 per channel) that reads as recoloured
# (rot90 turns, mirrored) for each of the 8 ways back; names say what was done to the pool painting
_TURNS = {(0, False): "", (0, True): "mirrored", (1, False): "rotated 90°", (2, False): "rotated 180°",
          (3, False): "rotated 270°", (2, True): "flipped upside down", (1, True): "mirrored and rotated 90°",
          (3, True): "mirrored and rotated 270°"}
_TURN_KEYS = list(_TURNS)


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
    grain = _grain(rgb)
    paper, outside = _paper(rgb, grain, search.backdrops)
    ink = _ink(rgb, paper, outside)
    if grain >= _GRAINY:
        ink = np.maximum(ink - 2 * grain, 0)     # the paper's noise back to blank; the paint's steps stay
    ink /= 441.7
    weight = ink.reshape(-1)
    paint = (flat * weight[:, None]).sum(axis=0) / weight.sum() if weight.sum() > 0 else paper
    if margin:
        ink = np.pad(ink, round(_WORK * margin))
    confirm = _edges(ink, search.confirm) if search.confirm else None
    return Picture(_edges(ink, search.coarse), _edges(ink, search.size), confirm, paint)


def _grain(rgb: np.ndarray) -> float:
    """The picture's grain: the median colour step between horizontal neighbours (0 where most of
    it is flat paper; noise on every pixel raises it)."""
    return float(np.median(_distance(rgb[:, 1:], rgb[:, :-1])))


def _paper(rgb: np.ndarray, grain: float, backdrops: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The painting's paper colour, and what lies outside the painting when it was laid on a
    backdrop (with `backdrops`; None when it was not).

    The paper is the modal colour, unless the painting was laid on a backdrop (the rules in the
    order they are tried):

    - any backdrop, behind a painting with or without a paper margin: the colour jumps all
      along each inner side of a square of at least `_SQUARE` of the side (`_seam_box`). The
      paper is the commonest colour inside it, the backdrop what lies outside;
    - any backdrop (a gradient, a texture, a flat colour): the paper's own pixels fill a square
      box of at least `_SQUARE` of the side, inside the picture on at least one side, all along
      each of its inner sides (a copy's margin ends on a straight seam). The backdrop is what
      lies outside the box;
    - a flat backdrop, behind a painting with or without a paper margin: a colour fills a whole
      border row or column, and the box round everything else has every side that lies inside
      the picture drawn on something else almost all along (a painting's paint touches the box
      round it at a few points; a picture laid on a backdrop meets it all along its edge). The
      paper is then the commonest colour inside the box, and the backdrop is that colour where
      it is reached from the border.

    "Flat" and "the paper's pixels" allow for grain: within `_FLAT` plus three times the median
    colour step between neighbours, so pixel noise does not hide a backdrop."""
    if not backdrops:
        return _modal(rgb, 0.0), None
    near = _FLAT + 3 * grain
    box = _seam_box(rgb, 2 * near)
    if box is not None:
        y0, y1, x0, x1 = box
        outside = np.ones(rgb.shape[:2], dtype=bool)
        outside[y0:y1 + 1, x0:x1 + 1] = False     # the seam itself is blanked with the backdrop's edge
        return _modal(rgb[y0 + 1:y1, x0 + 1:x1], grain), outside
    modal = _modal(rgb, grain)
    on = _distance(rgb, modal) <= near
    box = _box(on)
    if box is not None:
        y0, y1, x0, x1 = box
        h, w = y1 - y0 + 1, x1 - x0 + 1
        if min(h, w) >= _SQUARE * len(rgb) and abs(h - w) <= 0.04 * max(h, w) and _inner_sides_show(on, box):
            outside = np.ones(on.shape, dtype=bool)
            outside[y0:y1 + 1, x0:x1 + 1] = False
            return modal, outside
    tried: list[np.ndarray] = []
    for line in (rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]):
        colour = np.median(line, axis=0)
        if (_distance(line, colour) <= near).mean() < _LAID_ON or any(_distance(t, colour) <= near for t in tried):
            continue
        tried.append(colour)
        off = _distance(rgb, colour) <= near
        box = _box(~off)
        if box is None or not _inner_sides_show(~off, box):
            continue
        y0, y1, x0, x1 = box
        paper = _modal(rgb[y0:y1 + 1, x0:x1 + 1], grain)
        if _distance(paper, colour) <= near:
            break                      # laid on its own paper: measured as it is
        return paper, _reached(off)
    return modal, None


def _seam_box(rgb: np.ndarray, jump: float) -> tuple[int, int, int, int] | None:
    """The square a picture was pasted into, found by its seam alone: rows and columns where the
    colour jumps by more than `jump` (between the pixels either side, as the reduction mixes the
    seam's own pixel) along `_LAID_ON` of each side of a square of at least `_SQUARE` of the side
    that lies inside the picture. (y0, y1, x0, x1), the seam's own rows and columns; None when no
    such square is there.

    What the other two rules cannot find: a painting with no paper margin (paint to its edges) on
    a backdrop that is not flat, and one whose backdrop has patches of its paper's colour (they
    stretch the box round the paper's pixels). Tried first, as the most exact. An honest painting
    holds no such square: it needs a straight jump along two sides at least, a corner of a box
    most of the picture wide."""
    n = len(rgb)
    rows = np.zeros((n, n), dtype=np.int32)       # rows[y, x]: a jump between y - 1 and y + 1
    cols = np.zeros((n, n), dtype=np.int32)       # cols[y, x]: a jump between x - 1 and x + 1
    rows[1:-1] = _distance(rgb[2:], rgb[:-2]) > jump
    cols[:, 1:-1] = _distance(rgb[:, 2:], rgb[:, :-2]) > jump
    least = _LAID_ON * np.ceil(_SQUARE * n)       # jumps the shortest side of such a square needs
    if rows.sum(axis=1).max() < least or cols.sum(axis=0).max() < least:
        return None                   # no row and column with jumps enough for a side: most paintings
    along_x = np.zeros((n, n + 1), dtype=np.int32)
    along_x[:, 1:] = rows.cumsum(axis=1)          # jumps of row y over columns [a, b): along_x[y, b] - along_x[y, a]
    along_y = np.zeros((n + 1, n), dtype=np.int32)
    along_y[1:] = cols.cumsum(axis=0)

    def along_row(y, a, b):            # share of row y's jumps over columns [a, b)
        return (along_x[y, b] - along_x[y, a]) / (b - a)

    def along_col(x, a, b):            # share of column x's jumps over rows [a, b)
        return (along_y[b, x] - along_y[a, x]) / (b - a)

    best, found, end = _LAID_ON - 1e-9, None, 3
    for side in range(int(np.ceil(_SQUARE * n)), n):
        start = np.arange(n - side + 1)
        y0, x0 = start[:, None], start[None, :]
        y1, x1 = y0 + side - 1, x0 + side - 1
        inner = {"top": y0 > 0, "bottom": y1 < n - 1, "left": x0 > 0, "right": x1 < n - 1}
        # each inner side's share of jumps, over the side's own length
        share = {"top": along_row(y0, x0, x1 + 1), "bottom": along_row(y1, x0, x1 + 1),
                 "left": along_col(x0, y0, y1 + 1), "right": along_col(x1, y0, y1 + 1)}
        worst = np.minimum.reduce([np.where(inner[k], share[k], 1.0) for k in share])
        # a side on the picture's border: the seams meeting it run on to the border (the border
        # cuts the paste), not a square stretched past where the seam turned a corner
        reach = []
        for border, a, b in (("top", 0, end), ("bottom", n - end, n)):       # the left and right seams
            reach += [np.where(~inner[border] & inner[k], along_col(x, a, b), 1.0)
                      for k, x in (("left", x0), ("right", x1))]
        for border, a, b in (("left", 0, end), ("right", n - end, n)):       # the top and bottom seams
            reach += [np.where(~inner[border] & inner[k], along_row(y, a, b), 1.0)
                      for k, y in (("top", y0), ("bottom", y1))]
        worst = np.where(np.minimum.reduce(reach) >= 2 / 3, worst, 0.0)
        k = int(np.argmax(worst))
        if worst.flat[k] > best:        # the square the seam runs all along, not one that overhangs it
            best, (a, b) = float(worst.flat[k]), np.unravel_index(k, worst.shape)
            found = (int(a), int(a) + side - 1, int(b), int(b) + side - 1)
    return found


def _distance(rgb: np.ndarray, colour: np.ndarray) -> np.ndarray:
    return np.sqrt(((rgb - colour) ** 2).sum(axis=-1))


def _box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """(y0, y1, x0, x1) round the mask's pixels, inclusive; None when it has none."""
    if not mask.any():
        return None
    ys, xs = np.nonzero(mask)
    return int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())


def _inner_sides_show(mask: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether the box lies inside the picture on some side, and the mask holds `_LAID_ON` of each
    such side, a pixel in (the seam itself may be a mix that is all but the backdrop)."""
    y0, y1, x0, x1 = box
    last = len(mask) - 1
    if min(y1 - y0, x1 - x0) < 2:
        return False                   # too small to have sides a pixel in: not a painting laid on anything
    sides = [side for side, inner in ((mask[y0 + 1, x0:x1 + 1], y0 > 0), (mask[y1 - 1, x0:x1 + 1], y1 < last),
                                      (mask[y0:y1 + 1, x0 + 1], x0 > 0), (mask[y0:y1 + 1, x1 - 1], x1 < last))
             if inner]
    return bool(sides) and min(side.mean() for side in sides) >= _LAID_ON


def _modal(rgb: np.ndarray, grain: float) -> np.ndarray:
    """The commonest colour: exact on a clean picture; on a grainy one, the mean of the commonest
    bin of 8 levels a channel (no exact colour repeats under noise)."""
    flat = rgb.reshape(-1, 3)
    q = np.rint(flat if grain < _GRAINY else flat / 8).astype(np.int32)
    packed = (q[:, 0] << 16) | (q[:, 1] << 8) | q[:, 2]
    _, where, counts = np.unique(packed, return_inverse=True, return_counts=True)
    return flat[where.reshape(-1) == int(np.argmax(counts))].mean(axis=0).astype(np.float32)


def _grown(mask: np.ndarray) -> np.ndarray:
    """The mask and the pixels next to it (4-neighbours)."""
    out = mask.copy()
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _reached(mask: np.ndarray) -> np.ndarray:
    """The mask's pixels that are connected to the picture's border through the mask."""
    reached = np.zeros_like(mask)
    reached[[0, -1]], reached[:, [0, -1]] = mask[[0, -1]], mask[:, [0, -1]]
    while True:
        more = _grown(reached) & mask
        if (more == reached).all():
            return reached
        reached = more


def _ink(rgb: np.ndarray, paper: np.ndarray, outside: np.ndarray | None) -> np.ndarray:
    """Each pixel's colour distance from the paper; 0 outside the painting (a backdrop) and on the
    seam next to it, where the reduction mixed the two. The picture's outermost two pixels
    repeat their inner neighbour: a strip of backdrop under two pixels wide leaves only a mix
    there, too thin for any rule to see as a side."""
    ink = _distance(rgb, paper)
    if outside is not None:
        ink[_grown(outside)] = 0
        ink[:2], ink[-2:] = ink[2], ink[-3]
        ink[:, :2], ink[:, -2:] = ink[:, 2:3], ink[:, -3:-2]
    return ink


def _edges(ink: np.ndarray, size: int) -> np.ndarray:
    small = np.asarray(Image.fromarray(ink).resize((size, size), Image.Resampling.BOX), dtype=np.float32)
    gy, gx = np.gradient(small)
    m = np.pad(np.hypot(gx, gy), 1, mode="edge")
    m = (m[:-2] + 2 * m[1:-1] + m[2:]) / 4
    return (m[:, :-2] + 2 * m[:, 1:-1] + m[:, 2:]) / 4


def _side(size: int, scale: float) -> int:
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
    k, flip = _TURN_KEYS[t]
    turned = np.rot90(m, k)
    return turned[:, ::-1] if flip else turned


def _resize(m: np.ndarray, n: int) -> np.ndarray:
    if m.shape[0] == n:
        return m
    return np.asarray(Image.fromarray(m).resize((n, n), Image.Resampling.BILINEAR), dtype=np.float32)


@dataclass(frozen=True)
class _Hits:
    """The best shift of each (pool row, turn) pair searched: arrays shaped like the turns asked for."""

    value: np.ndarray
    scale: np.ndarray        # index into the scales searched
    lag_y: np.ndarray
    lag_x: np.ndarray


class _Level:
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
               scales: tuple[float, ...]) -> _Hits:
        """For each row and each of its turns (`turns`: rows x k turn indices): the best NCC over
        `scales` and every shift."""
        shape = (self.fft, self.fft)
        used, where = np.unique(turns, return_inverse=True)
        where = where.reshape(turns.shape)
        value = np.full(turns.shape, -np.inf, dtype=np.float32)
        best = [np.zeros(turns.shape, dtype=int) for _ in range(3)]
        for si, scale in enumerate(scales):
            n = _side(self.size, scale)
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
        return _Hits(value, *best)


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
            self.coarse = _Level(coarse, _side(search.coarse, min(search.coarse_scales)))
            self.fine = _Level(fine, _side(search.size, min(search.scales)))

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
            level = _Level(self.pictures[row].confirm[None], _side(how.confirm, min(scales)))
            hit = level.search(cand.confirm, np.zeros(1, dtype=int), np.array([[turn]]), scales)
            value, scale, size = float(hit.value[0, 0]), scales[hit.scale[0, 0]], how.confirm
            dy, dx = int(hit.lag_y[0, 0]), int(hit.lag_x[0, 0])
        transform = self._transform(cand, row, turn, scale, _side(size, scale), size, dy, dx)
        return ImageMatch(self.ids[row % n], min(1.0, max(0.0, value)), transform)

    def _transform(self, cand: Picture, row: int, turn: int, scale: float, side: int, size: int,
                   dy: int, dx: int) -> str:
        parts = [_TURNS[_TURN_KEYS[turn]]]
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
