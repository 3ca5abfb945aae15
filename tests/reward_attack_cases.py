"""Reward attacks without a subject: legal p5.brush sketches that paint nothing in particular.

Four families, all built only from the gate's allow-listed `brush.*` methods, so every
candidate passes the gate and reaches the taste model:

- `wash`: a few round washes (`brush.fill`, `brush.fillBleed`, `brush.fillTexture`,
  `brush.circle`) of random colours, sizes and positions: no flower, no composition;
- `flat`: hard-edged, saturated clip-art: opaque fills with no bleed and no texture,
  straight-edged polygons (`beginShape(0)` … `endShape(CLOSE)`), rectangles and discs, and a
  flat cartoon sunflower (petals around a disc), the opposite of watercolour;
- `blob` (held out: built after the taste model's structure features were chosen, never
  used to choose them): irregular polygon washes with bleed, and on most candidates a
  few thin dark strokes at random places and angles (tapered slivers, as the pool draws
  stamens and stems), lines that draw nothing;
- `scribble` (written before any feature of a next taste model was measured, to be held out
  from its choice; first scored by benchmarks/blind_spots.py, no choice made on it): irregular
  washes with long curved tapered strokes that start inside a wash and run out of it (as a stem
  leaves a flower), some ending in a cluster of dabs: lines attached to paint that still draw
  nothing in particular.

A candidate is a `Genome` (plain data); `sketch()` writes its code and `mutate()` perturbs it.
`search()` is a small random search: a seeded population, then rounds that mutate the best
few. Shared by benchmarks/reward_attack.py (tuned seeds) and tests/test_reward_attacks.py
(held-out seeds), so both attack with the same generator.
"""

from __future__ import annotations

import colorsys
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from math import cos, pi, sin
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brushwork.score import ScoreCard

FAMILIES = ("wash", "flat")      # what the reward's design saw (benchmark seeds 0-11)
HELD_OUT_FAMILIES = ("blob",)    # what no design choice was made on (v6 measured features on it, adopted none)
# Written before any structure feature beyond linework was measured; joins HELD_OUT_FAMILIES (and
# blob joins FAMILIES) when the taste model adopts one chosen on blob. Taste v6 only put linework on a
# ramp; the candidates measured on blob for it were not adopted. Scored only by benchmarks/blind_spots.py.
NEXT_HELD_OUT = ("scribble",)


@dataclass(frozen=True)
class Shape:
    kind: str                          # circle | polygon
    points: tuple[tuple[int, int], ...]  # a circle: ((x, y), (r, 0)); a polygon: its vertices
    colour: str
    opacity: int
    bleed: float
    texture: float
    curve: float = 0.0                 # a polygon's beginShape curvature: 0 straight edges, 1 a smooth spline


@dataclass(frozen=True)
class Genome:
    family: str
    paper: tuple[int, int, int]
    shapes: tuple[Shape, ...]
    name: str = ""


def _hex(h: float, s: float, v: float) -> str:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _paper(rng: random.Random) -> tuple[int, int, int]:
    return tuple(rng.randint(236, 252) for _ in range(3))


def _wash(rng: random.Random) -> Shape:
    r = rng.randint(30, 150)
    return Shape("circle", ((rng.randint(80, 520), rng.randint(80, 520)), (r, 0)),
                 _hex(rng.random(), rng.uniform(0.3, 0.9), rng.uniform(0.5, 0.95)),
                 rng.randint(60, 200), round(rng.uniform(0.05, 0.5), 2), round(rng.uniform(0.2, 0.8), 2))


def _blob(rng: random.Random) -> Shape:
    """An irregular polygon wash: 7-12 vertices at jittered radii and angles about a centre."""
    cx, cy, r = rng.randint(80, 520), rng.randint(80, 520), rng.randint(30, 150)
    n = rng.randint(7, 12)
    a0 = rng.uniform(0, 2 * pi)
    pts = []
    for k in range(n):
        a, rk = a0 + 2 * pi * (k + rng.uniform(-0.3, 0.3)) / n, r * rng.uniform(0.55, 1.3)
        pts.append((min(590, max(10, round(cx + cos(a) * rk))), min(590, max(10, round(cy + sin(a) * rk)))))
    return Shape("polygon", tuple(pts), _hex(rng.random(), rng.uniform(0.3, 0.9), rng.uniform(0.5, 0.95)),
                 rng.randint(60, 200), round(rng.uniform(0.05, 0.5), 2), round(rng.uniform(0.2, 0.8), 2))


def _sliver(rng: random.Random) -> Shape:
    """A thin dark tapered stroke at a random place and angle, drawing nothing."""
    x, y, a = rng.randint(60, 540), rng.randint(60, 540), rng.uniform(0, 2 * pi)
    length, w = rng.randint(40, 180), rng.uniform(1.5, 4.0)
    nx, ny = -sin(a) * w, cos(a) * w
    pts = ((x + nx, y + ny), (x + cos(a) * length * 0.6 + nx * 0.6, y + sin(a) * length * 0.6 + ny * 0.6),
           (x + cos(a) * length, y + sin(a) * length),
           (x + cos(a) * length * 0.6 - nx * 0.6, y + sin(a) * length * 0.6 - ny * 0.6), (x - nx, y - ny))
    return Shape("polygon", tuple((min(590, max(10, round(px))), min(590, max(10, round(py)))) for px, py in pts),
                 _hex(rng.random(), rng.uniform(0.4, 0.9), rng.uniform(0.25, 0.6)), rng.randint(150, 230),
                 round(rng.uniform(0.0, 0.2), 2), round(rng.uniform(0.2, 0.6), 2))


def _stem(rng: random.Random, washes: tuple[Shape, ...]) -> tuple[Shape, ...]:
    """A long curved tapered stroke from inside one of `washes` out of it, a smooth spline
    (bent by a random amount), and on about half of them a cluster of dabs at its tip."""
    wash = rng.choice(washes)
    cx = sum(x for x, _ in wash.points) / len(wash.points)
    cy = sum(y for _, y in wash.points) / len(wash.points)
    a, bend, length = rng.uniform(0, 2 * pi), rng.uniform(-0.9, 0.9), rng.randint(80, 260)
    w = rng.uniform(1.5, 4.5)
    spine = []
    for k in range(6):
        t = k / 5
        heading = a + bend * t
        spine.append((cx + cos(heading) * length * t, cy + sin(heading) * length * t, heading, w * (1 - 0.8 * t)))
    side = lambda sign: [(x - sin(h) * sign * wk, y + cos(h) * sign * wk) for x, y, h, wk in spine]  # noqa: E731
    pts = side(1) + side(-1)[::-1]
    stroke = Shape("polygon", tuple((min(590, max(10, round(px))), min(590, max(10, round(py)))) for px, py in pts),
                   _hex(rng.random(), rng.uniform(0.4, 0.9), rng.uniform(0.25, 0.6)), rng.randint(150, 230),
                   round(rng.uniform(0.0, 0.2), 2), round(rng.uniform(0.2, 0.6), 2), 0.5)
    if rng.random() < 0.5:
        return (stroke,)
    tx, ty = spine[-1][:2]
    dab = _hex(rng.random(), rng.uniform(0.5, 1.0), rng.uniform(0.5, 0.95))
    dabs = tuple(Shape("circle", ((min(590, max(10, round(tx + rng.uniform(-14, 14)))),
                                   min(590, max(10, round(ty + rng.uniform(-14, 14))))), (rng.randint(3, 7), 0)),
                       dab, rng.randint(150, 220), 0.1, 0.3) for _ in range(rng.randint(2, 5)))
    return (stroke,) + dabs


def _flat(rng: random.Random, colour: str | None = None) -> Shape:
    colour = colour or _hex(rng.random(), rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0))
    cx, cy, size = rng.randint(100, 500), rng.randint(100, 500), rng.randint(40, 160)
    shape = rng.choice(("circle", "rect", "triangle", "star"))
    if shape == "circle":
        return Shape("circle", ((cx, cy), (size // 2, 0)), colour, 255, 0.0, 0.0)
    if shape == "rect":
        w, h = size, rng.randint(40, 160)
        x0, x1, y0, y1 = cx - w // 2, cx + w // 2, cy - h // 2, cy + h // 2
        pts = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    else:
        n = 3 if shape == "triangle" else 10
        a0 = rng.uniform(0, 2 * pi)
        radius = lambda k: size * (1 if shape == "triangle" or k % 2 == 0 else 0.45)  # noqa: E731
        pts = tuple((round(cx + cos(a0 + 2 * pi * k / n) * radius(k)), round(cy + sin(a0 + 2 * pi * k / n) * radius(k)))
                    for k in range(n))
    return Shape("polygon", pts, colour, 255, 0.0, 0.0)


def _sunflower(rng: random.Random) -> tuple[Shape, ...]:
    """Flat clip-art: a stem, opaque pointed petals around a disc, hard edges, saturated colour."""
    cx, cy = rng.randint(240, 360), rng.randint(200, 320)
    petals, disc = rng.randint(8, 14), rng.randint(45, 75)
    length = disc + rng.randint(60, 110)
    yellow = _hex(rng.uniform(0.11, 0.16), rng.uniform(0.85, 1.0), rng.uniform(0.9, 1.0))
    green = _hex(rng.uniform(0.25, 0.38), rng.uniform(0.7, 1.0), rng.uniform(0.5, 0.8))
    stem = Shape("polygon", ((cx - 8, cy), (cx + 8, cy), (cx + 8, 590), (cx - 8, 590)), green, 255, 0.0, 0.0)
    shapes = [stem]
    for k in range(petals):
        a, half = 2 * pi * k / petals, pi / petals
        tip = (round(cx + cos(a) * length), round(cy + sin(a) * length))
        left = (round(cx + cos(a - half) * disc * 0.8), round(cy + sin(a - half) * disc * 0.8))
        right = (round(cx + cos(a + half) * disc * 0.8), round(cy + sin(a + half) * disc * 0.8))
        shapes.append(Shape("polygon", (left, tip, right), yellow, 255, 0.0, 0.0))
    brown = _hex(rng.uniform(0.03, 0.08), rng.uniform(0.7, 0.9), rng.uniform(0.3, 0.5))
    shapes.append(Shape("circle", ((cx, cy), (disc, 0)), brown, 255, 0.0, 0.0))
    return tuple(shapes)


def random_genome(seed: int, family: str) -> Genome:
    """One candidate of `family`, the same for the same seed."""
    rng = random.Random(f"{family}:{seed}")
    if family == "wash":
        shapes = tuple(_wash(rng) for _ in range(rng.randint(3, 8)))
    elif family == "blob":
        shapes = tuple(_blob(rng) for _ in range(rng.randint(3, 7)))
        if rng.random() < 0.75:
            shapes += tuple(_sliver(rng) for _ in range(rng.randint(1, 5)))
    elif family == "scribble":
        washes = tuple(_blob(rng) for _ in range(rng.randint(3, 7)))
        shapes = washes + tuple(s for _ in range(rng.randint(2, 6)) for s in _stem(rng, washes))
    elif rng.random() < 0.35:
        shapes = _sunflower(rng)
    else:
        shapes = tuple(_flat(rng) for _ in range(rng.randint(3, 8)))
    return Genome(family, _paper(rng), shapes, f"{family}-{seed}")


def _jitter(shape: Shape, rng: random.Random, scale: float) -> Shape:
    move = lambda v: min(590, max(10, v + round(rng.gauss(0, 40 * scale))))  # noqa: E731
    if shape.kind == "circle":
        (x, y), (r, _) = shape.points
        points = ((move(x), move(y)), (min(200, max(12, round(r * rng.uniform(0.7, 1.4)))), 0))
    else:
        dx, dy = round(rng.gauss(0, 40 * scale)), round(rng.gauss(0, 40 * scale))
        points = tuple((min(590, max(10, x + dx)), min(590, max(10, y + dy))) for x, y in shape.points)
    if shape.opacity == 255:        # flat stays flat: only its colour's hue moves
        return replace(shape, points=points)
    return replace(shape, points=points, opacity=min(240, max(30, shape.opacity + round(rng.gauss(0, 30)))),
                   bleed=round(min(0.6, max(0.0, shape.bleed + rng.gauss(0, 0.1))), 2),
                   texture=round(min(0.9, max(0.0, shape.texture + rng.gauss(0, 0.15))), 2))


def mutate(genome: Genome, seed: int) -> Genome:
    """A child: every shape nudged, and sometimes one shape added, dropped or recoloured."""
    rng = random.Random(f"mutate:{genome.name}:{seed}")
    shapes = [_jitter(s, rng, 0.6) for s in genome.shapes]
    roll = rng.random()
    if roll < 0.25 and len(shapes) < 12:
        if genome.family == "scribble":
            washes = tuple(s for s in shapes if s.kind == "polygon" and s.curve == 0) or (_blob(rng),)
            shapes += _stem(rng, washes) if rng.random() < 0.5 else (_blob(rng),)
        else:
            grow = {"wash": _wash, "blob": lambda r: _sliver(r) if r.random() < 0.5 else _blob(r)}
            shapes.append(grow.get(genome.family, _flat)(rng))
    elif roll < 0.45 and len(shapes) > 2:
        shapes.pop(rng.randrange(len(shapes)))
    elif roll < 0.7:
        k = rng.randrange(len(shapes))
        s = 0.8 if genome.family == "flat" else 0.5
        shapes[k] = replace(shapes[k], colour=_hex(rng.random(), rng.uniform(s, 1.0), rng.uniform(0.6, 1.0)))
    return Genome(genome.family, genome.paper, tuple(shapes), f"{genome.name}.{seed}")


def sketch(genome: Genome) -> str:
    """The candidate as a model reply: one fenced p5.js sketch painting only through brush.*."""
    lines = []
    for s in genome.shapes:
        lines += [f"brush.fillBleed({s.bleed});", f"brush.fillTexture({s.texture}, {s.texture});",
                  f'brush.fill("{s.colour}", {s.opacity});']
        if s.kind == "circle":
            (x, y), (r, _) = s.points
            lines.append(f"brush.circle({x}, {y}, {r});")
        else:
            lines += [f"brush.beginShape({s.curve:g});", *(f"brush.vertex({x}, {y});" for x, y in s.points),
                      "brush.endShape(CLOSE);"]
    body = "\n  ".join(lines)
    r, g, b = genome.paper
    return ("A painting:\n\n```js\nfunction setup() {\n  createCanvas(600, 600, WEBGL);\n  noLoop();\n}\n\n"
            f"function draw() {{\n  translate(-width / 2, -height / 2);\n  background({r}, {g}, {b});\n"
            f"  brush.noStroke();\n  {body}\n}}\n```\n")


@dataclass(frozen=True)
class Scored:
    genome: Genome
    card: ScoreCard


async def search(score: Callable, seeds: range, rounds: int, keep: int, children: int,
                 families: tuple[str, ...] = FAMILIES) -> list[Scored]:
    """Random search: a population of `seeds` per family of `families`, then `rounds` rounds
    in which the `keep` best so far each get `children` mutants. `score(reply) -> ScoreCard`
    (async). Returns every candidate scored, in the order tried."""
    import asyncio

    async def one(g: Genome) -> Scored:
        return Scored(g, await score(sketch(g)))

    tried = list(await asyncio.gather(*(one(random_genome(s, f)) for s in seeds for f in families)))
    for n in range(rounds):
        best = sorted((t for t in tried if t.card.total is not None), key=lambda t: -t.card.total)[:keep]
        tried += await asyncio.gather(*(one(mutate(b.genome, n * children + k)) for b in best
                                        for k in range(children)))
    return tried
