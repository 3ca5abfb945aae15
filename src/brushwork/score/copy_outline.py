"""The picture side at any angle: does a painting's outline drawing lay a pool painting's out again?

The render's display list is trusted data (the paint realm replays only validated calls), so
its filled shapes (`copy_display.polygons`) can be drawn again without the watercolour: each
shape filled flat with a label for its fill colour (colours within `TINT` share one), in layer
order, and the map kept is where the label changes between neighbours: the boundaries between
painted regions. It does not depend on texture noise or on the random draws of the brush, nor
on which colours were used (a recolouring keeps distinct colours distinct), nor on how a region
was cut into shapes (two halves of one colour leave no seam); a painting replayed from a data
literal draws the same map to the pixel.

The maps are compared as the picture side compares its edge maps (`copy_image.Level`:
normalised cross-correlation over every translation and a set of scales, windows that cover
less than half of either picture not counting). Angles are searched by drawing the candidate's
shapes turned (exactly, as geometry) by `Outline.angles` within a quarter turn, each searched
with the 8 turns and mirrors of the square: a coarse pass ranks every pool painting, a fine pass
turns the best `shortlist` by a few degrees either way, and the best is confirmed at `confirm`
px, where paintings that only share a layout fall apart.

What it cannot see: a painting whose every shape is drawn anew at random (a re-roll of a sketch
of random leaves moves them all), and pools of images alone (no display lists).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from brushwork.score.copy_display import SIZE, polygons
from brushwork.score.copy_image import TURN_KEYS, Level, scaled_side

TINT = 3.0            # fill colour difference (0-255, any channel) within which two shapes share a region
MIN_SHAPES = 3        # shapes a painting needs for its outline to be compared


@dataclass(frozen=True)
class Outline:
    """How the outline search looks; the threshold `copy_outline_similarity` was set on these."""

    coarse: int = 16                                   # coarse map, px
    coarse_scales: tuple[float, ...] = (0.8, 1.0, 1.25)
    angles: tuple[float, ...] = (0, 15, 30, 45, 60, 75)   # degrees, each with the square's 8 turns and mirrors
    shortlist: int = 4                                 # pool paintings the fine pass runs on
    size: int = 48                                     # fine map, px
    nudges: tuple[float, ...] = (-5, 0, 5)             # degrees about the coarse angle in the fine pass
    scales: tuple[float, ...] = (0.75, 0.83, 0.91, 1.0, 1.1, 1.21, 1.33)
    confirm: int = 96                                  # confirm map, px
    confirm_nudges: tuple[float, ...] = (-2, 0, 2)
    confirm_steps: tuple[float, ...] = (0.94, 0.97, 1.0, 1.03, 1.06)


@dataclass(frozen=True)
class OutlineMatch:
    id: str
    similarity: float     # normalised cross-correlation of the region-edge maps, 0..1
    transform: str        # what was done to the pool painting, e.g. "rotated 22°, scaled 1.22"


Shapes = list[tuple[np.ndarray, int]]    # (points in canvas px, colour label), in layer order


def labelled(display_list: str) -> Shapes:
    """The display list's filled shapes, each with a label for its fill colour."""
    colours: list[np.ndarray] = []
    out = []
    for points, fill in polygons(display_list):
        f = np.asarray(fill[:3], float)
        label = next((k + 1 for k, c in enumerate(colours) if np.abs(c - f).max() <= TINT), 0)
        if not label:
            colours.append(f)
            label = len(colours)
        out.append((points, label))
    return out


def turned(shapes: Shapes, degrees: float) -> Shapes:
    """The shapes turned about the canvas centre (clockwise on screen for positive degrees)."""
    a = math.radians(degrees)
    m = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return [((p - SIZE / 2) @ m.T + SIZE / 2, label) for p, label in shapes]


def edge_map(shapes: Shapes, size: int) -> np.ndarray:
    """Where the colour label changes between neighbours, drawn at twice `size` and reduced to it,
    lightly blurred (a boundary a pixel off still overlaps)."""
    work = 2 * size
    im = Image.new("I", (work, work), 0)
    draw = ImageDraw.Draw(im)
    for p, label in shapes:
        draw.polygon([tuple(q) for q in p * (work / SIZE)], fill=label)
    a = np.asarray(im)
    e = np.zeros(a.shape, np.float32)
    e[:, :-1] += a[:, 1:] != a[:, :-1]
    e[:-1] += a[1:] != a[:-1]
    small = np.asarray(Image.fromarray(np.minimum(e, 1)).resize((size, size), Image.Resampling.BOX), np.float32)
    m = np.pad(small, 1, mode="edge")
    m = (m[:-2] + 2 * m[1:-1] + m[2:]) / 4
    return (m[:, :-2] + 2 * m[:, 1:-1] + m[:, 2:]) / 4


class OutlineIndex:
    """The pool paintings' region-edge maps, by id; a painting with fewer than `MIN_SHAPES` is left out."""

    def __init__(self, lists: dict[str, str], how: Outline = Outline()):
        shapes = {pid: labelled(dl) for pid, dl in lists.items()}
        self.ids = [pid for pid, s in shapes.items() if len(s) >= MIN_SHAPES]
        self.shapes, self.how = [shapes[pid] for pid in self.ids], how
        self.fine = [Level(edge_map(s, how.size)[None], scaled_side(how.size, min(how.scales))) for s in self.shapes]
        least = min(how.scales) * min(how.confirm_steps)      # the smallest scale a confirm pass searches
        self.sharp = [Level(edge_map(s, how.confirm)[None], scaled_side(how.confirm, least)) for s in self.shapes]
        self.coarse = None
        if self.ids:
            maps = np.stack([edge_map(s, how.coarse) for s in self.shapes])
            self.coarse = Level(maps, scaled_side(how.coarse, min(how.coarse_scales)))

    def nearest(self, display_list: str, exclude: frozenset[str] = frozenset()) -> OutlineMatch | None:
        """The pool painting whose outline this painting's outline matches best, at any angle;
        None when it has too few shapes or the pool has none."""
        cand, how, maps = labelled(display_list), self.how, {}
        rows = [k for k, pid in enumerate(self.ids) if pid not in exclude]
        if len(cand) < MIN_SHAPES or not rows:
            return None
        rows = np.array(rows)
        best, start = np.full(len(rows), -np.inf), [(0.0, 0)] * len(rows)
        for angle in how.angles:
            small = edge_map(turned(cand, angle), how.coarse)
            if not small.any():
                continue                     # turned off the canvas at this angle: nothing to compare
            value = self.coarse.search(small, rows, np.tile(np.arange(8), (len(rows), 1)), how.coarse_scales).value
            better = value.max(1) > best
            best = np.where(better, value.max(1), best)
            start = [(angle, int(t)) if b else s for b, t, s in zip(better, value.argmax(1), start)]
        found = (-np.inf, 0, 0.0, 0, 1.0)
        for r in np.argsort(-best, kind="stable")[:how.shortlist]:
            angle, turn = start[r]
            for nudge in how.nudges:
                value, scale = _search(cand, maps, self.fine[rows[r]], angle + nudge, turn, how.scales)
                if value > found[0]:
                    found = (value, int(rows[r]), angle + nudge, turn, scale)
        _, k, angle, turn, scale = found
        value, best_angle, best_scale = -np.inf, angle, scale
        for nudge in how.confirm_nudges:
            got, s = _search(cand, maps, self.sharp[k], angle + nudge, turn,
                             tuple(scale * step for step in how.confirm_steps))
            if got > value:
                value, best_angle, best_scale = got, angle + nudge, s
        return OutlineMatch(self.ids[k], min(1.0, max(0.0, value)), _transform(best_angle, turn, best_scale))



def _search(cand: Shapes, maps: dict, level: Level, angle: float, turn: int,
            scales: tuple[float, ...]) -> tuple[float, float]:
    """The best correlation of the candidate turned by `angle` then `turn` with one pool painting's
    map (`level`); `maps` keeps the candidate's maps by angle and size, for the next call."""
    key = (angle, level.size)
    if key not in maps:
        maps[key] = edge_map(turned(cand, angle), level.size)
    hit = level.search(maps[key], np.zeros(1, dtype=int), np.array([[turn]]), scales)
    value = float(hit.value[0, 0])
    return (value if math.isfinite(value) else -np.inf), scales[hit.scale[0, 0]]


def _transform(angle: float, turn: int, scale: float) -> str:
    """What was done to the pool painting: the turn that undoes the candidate's, its scale."""
    quarter, mirrored = TURN_KEYS[turn]
    # the candidate was turned by `angle` (clockwise), then by `quarter` quarter turns counter-clockwise
    back = (angle - 90 * quarter) % 360
    done = (-back if not mirrored else back) % 360
    done = (done + 180) % 360 - 180
    parts = ["mirrored" if mirrored else "", f"rotated {abs(done):.0f}°" if abs(done) >= 2 else "",
             f"scaled {scale:.2f}" if abs(scale - 1) >= 0.03 else ""]
    return ", ".join(p for p in parts if p)
