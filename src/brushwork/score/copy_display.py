"""A render's display list read into the filled shapes it paints: what copy detection compares.

The paint realm replays only validated, allowed calls, so a render's display list
(`RenderResult.display_list`) is trusted data: what was painted, shape by shape. It is read
(`polygons`) into the filled shapes it draws (`brush.endShape`, `polygon`, `rect`, `circle`), in
canvas pixels, through p5's transform stack (translate, rotate, scale, push, pop, resetMatrix;
reset before draw, as p5 does), each with its fill colour. A shape is summed up (`shapes`) by what
survives a similarity transform: its centroid, size (the root of its area), major-axis direction,
elongation (minor over major axis, from its second moments) and compactness. The shape side
(`copy_shapes`) compares those summaries; the outline side (`copy_outline`) draws the polygons again.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

SIZE = 600              # canvas px: a display list's coordinates are centred on it (WEBGL)
_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * np.pi, 32, endpoint=False)),
                    np.sin(np.linspace(0, 2 * np.pi, 32, endpoint=False))], 1)


@dataclass(frozen=True)
class Shapes:
    """A painting's filled shapes, in layer order (arrays of one row per shape)."""

    centre: np.ndarray    # (n, 2) canvas px
    size: np.ndarray      # (n,) root of the area, px
    angle: np.ndarray     # (n,) major-axis direction, radians mod pi
    ratio: np.ndarray     # (n,) minor / major axis, 1 for round
    compact: np.ndarray   # (n,) 4 pi area / perimeter^2
    colour: np.ndarray    # (n, 3) fill colour, 0-255

    def __len__(self) -> int:
        return len(self.size)


def colour(value) -> tuple[float, float, float] | None:
    """A p5 colour argument as recorded (`#rgb`, `#rrggbb`, `rgb(a)(...)`, a grey number)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (float(value),) * 3
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if text.startswith("#") and len(text) in (4, 7, 9):
        digits = text[1:4] if len(text) == 4 else text[1:7]
        step = 1 if len(text) == 4 else 2
        try:
            return tuple(int(digits[k:k + step] * (3 - step), 16) for k in range(0, 3 * step, step))
        except ValueError:
            return None
    if text.startswith("rgb"):
        parts = text[text.find("(") + 1:text.rfind(")")].replace(",", " ").split()
        try:
            return tuple(float(p) for p in parts[:3]) if len(parts) >= 3 else None
        except ValueError:
            return None
    return None


class _Pen:
    """Follows the display list: transform stack, fill colour, the shape being built."""

    def __init__(self, size: int):
        self.half, self.matrix, self.stack, self.degrees = size / 2, np.eye(3), [], False
        self.fill, self.vertices, self.polys = (128.0, 128.0, 128.0), [], []

    def run(self, ops) -> None:
        for op in ops if isinstance(ops, list) else []:
            if isinstance(op, list) and op and isinstance(op[0], str):
                try:
                    self.op(op[0], [a for a in op[1:]])
                except (TypeError, ValueError, IndexError):
                    continue     # an argument of a kind p5 would ignore or reject: paints nothing here either

    def op(self, name: str, a: list) -> None:
        if name == "translate":
            self._apply(np.array([[1, 0, float(a[0])], [0, 1, float(a[1]) if len(a) > 1 else 0.0], [0, 0, 1]]))
        elif name == "rotate":
            t = math.radians(float(a[0])) if self.degrees else float(a[0])
            self._apply(np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]]))
        elif name == "scale":
            sx = float(a[0])
            self._apply(np.diag([sx, float(a[1]) if len(a) > 1 else sx, 1.0]))
        elif name == "push":
            self.stack.append(self.matrix.copy())
        elif name == "pop" and self.stack:
            self.matrix = self.stack.pop()
        elif name == "resetMatrix":
            self.matrix = np.eye(3)
        elif name == "angleMode":
            self.degrees = str(a[0]).lower().startswith("deg")
        elif name == "brush.fill":
            self.fill = colour(a[0]) if len(a) < 3 else tuple(float(v) for v in a[:3])
        elif name == "brush.beginShape":
            self.vertices = []
        elif name == "brush.vertex":
            self.vertices.append((float(a[0]), float(a[1])))
        elif name == "brush.endShape":
            self._add(self.vertices)
            self.vertices = []
        elif name == "brush.polygon":
            self._add([(float(p[0]), float(p[1])) for p in a[0]])
        elif name == "brush.rect":
            x, y, w, h = (float(v) for v in a[:4])
            if len(a) > 4 and str(a[4]).lower() == "center":
                x, y = x - w / 2, y - h / 2
            self._add([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
        elif name == "brush.circle":
            self._add(list(map(tuple, _CIRCLE * float(a[2]) + (float(a[0]), float(a[1])))))

    def _apply(self, m: np.ndarray) -> None:
        self.matrix = self.matrix @ m

    def _add(self, points) -> None:
        if len(points) >= 3:
            p = np.asarray(points, float) @ self.matrix[:2, :2].T + self.matrix[:2, 2] + self.half
            if np.isfinite(p).all():
                self.polys.append((p, self.fill or (128.0, 128.0, 128.0)))


def polygons(display_list: str, size: int = SIZE) -> list[tuple[np.ndarray, tuple]]:
    """The filled shapes a display list paints, in order: (points in canvas px, fill colour)."""
    try:
        data = json.loads(display_list) if display_list else {}
    except ValueError:
        data = {}
    pen = _Pen(size)
    for stage in ("setup", "draw"):
        pen.matrix, pen.stack = np.eye(3), []   # p5 starts setup and each draw from no transform
        pen.run(data.get(stage) if isinstance(data, dict) else None)
    return pen.polys


def shapes(display_list: str, size: int = SIZE) -> Shapes:
    """The shapes of a display list (`RenderResult.display_list`, or a pool's stored one), described."""
    rows = [(*row, fill) for row, fill in ((_describe(p), fill) for p, fill in polygons(display_list, size))
            if row is not None]
    if not rows:
        return Shapes(np.zeros((0, 2)), *(np.zeros(0) for _ in range(4)), np.zeros((0, 3)))
    cols = list(zip(*rows))
    return Shapes(*(np.array(c, float) for c in cols))


def _describe(p: np.ndarray):
    """Centroid, size, direction, minor/major ratio and compactness of a polygon; None if it has no area."""
    mean = p.mean(0)
    x, y = (p - mean).T
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if abs(area) < 1.0:
        return None
    cx, cy = ((x + xn) * cross).sum() / (6 * area), ((y + yn) * cross).sum() / (6 * area)
    mu20 = ((x * x + x * xn + xn * xn) * cross).sum() / (12 * area) - cx * cx
    mu02 = ((y * y + y * yn + yn * yn) * cross).sum() / (12 * area) - cy * cy
    mu11 = ((x * yn + 2 * x * y + 2 * xn * yn + xn * y) * cross).sum() / (24 * area) - cx * cy
    spread = math.hypot(mu20 - mu02, 2 * mu11)
    major, minor = (mu20 + mu02 + spread) / 2, max((mu20 + mu02 - spread) / 2, 0.0)
    perimeter = np.hypot(xn - x, yn - y).sum()
    return ((mean[0] + cx, mean[1] + cy), math.sqrt(abs(area)), 0.5 * math.atan2(2 * mu11, mu20 - mu02) % math.pi,
            math.sqrt(minor / major) if major > 0 else 1.0, min(1.0, 4 * math.pi * abs(area) / perimeter ** 2))
