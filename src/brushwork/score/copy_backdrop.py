"""Backdrops for the picture side of copy detection: what lies outside a painting laid on another picture.

A painting shrunk onto a backdrop of another colour would be measured from the backdrop: its
own paper would read as paint, the seam as an edge all round it. So a painting laid on a
backdrop is found (`paper`) and measured from its own paper, the backdrop and its seam blank:
where its paper fills a square box with straight seams (any backdrop: flat, a gradient, a
texture), where the colour jumps all along the sides of a square (the seam alone: a painting
with no paper margin on any backdrop), or where a flat colour fills an edge row or column round
a box that shows another colour all along its inner sides (a flat backdrop, whether or not the
painting has a paper margin). All allow for grain, so noise on every pixel does not hide the
backdrop.

The picture side (`copy_image`) measures a painting's ink from the paper these functions find.
"""

from __future__ import annotations

import numpy as np

_LAID_ON = 0.9             # share of each inner side of the box round a picture on a backdrop
_FLAT = 3.0                # colour distance (0-255 per channel) within which a clean pixel is a flat colour
GRAINY = 0.5               # grain (colour step between neighbours) above which a picture has no exact colours
_SQUARE = 0.7              # of the side, the least a painting laid on a backdrop that is not flat fills


def grain(rgb: np.ndarray) -> float:
    """The picture's grain: the median colour step between horizontal neighbours (0 where most of
    it is flat paper; noise on every pixel raises it)."""
    return float(np.median(_distance(rgb[:, 1:], rgb[:, :-1])))


def paper(rgb: np.ndarray, grain: float, backdrops: bool) -> tuple[np.ndarray, np.ndarray | None]:
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
    q = np.rint(flat if grain < GRAINY else flat / 8).astype(np.int32)
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


def ink(rgb: np.ndarray, paper: np.ndarray, outside: np.ndarray | None) -> np.ndarray:
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
