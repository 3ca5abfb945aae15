"""Flower layouts: radial blooms (hibiscus, poppy, anemone...), tulips, lotus, branches."""

from __future__ import annotations

import random
from math import atan2, cos, hypot, pi, sin

from brushwork.painter.data import _RADIAL, MAX_FILLS, library
from brushwork.painter.sketch import _inside, _js, _Sketch, _tint, _tints


def _flower_paint(s: _Sketch, p: dict, rng: random.Random) -> dict:
    colours = library()["flowers"][p["palette"]]
    s.const("PETAL", _tints(colours["petal"], p, rng))
    s.const("OPACITY", colours["opacity"])
    s.const("LEAF", _tints(library()["foliage"][p["foliage"]], p, rng))
    return colours


# -- radial flowers: hibiscus, poppy, anemone, daisy, cherry blossom ------------------------
def _radial(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    colours = _flower_paint(s, p, rng)
    s.const("EYE", _tints(colours["eye"], p, rng))
    s.const("POLLEN", _tint(colours["pollen"], p["jitter"], rng))
    if kind == "hibiscus":
        s.const("STAMEN", _tint(colours["stamen"], p["jitter"], rng))
    s.consts.append(f"const PETALS = {p['petals']}, WIDTH = {_RADIAL[kind][3]};")
    s.consts.append(f"const BLEED = {p['bleed']}, TEXTURE = {p['texture']};")
    s.use("wash", f"petal_{p['petal_shape']}", f"centre_{kind}", "flower")
    flowers = _radial_layout(kind, p, rng)
    if kind == "blossom":
        _branch(s, flowers, p, rng)
    elif kind in ("poppy", "daisy"):
        _meadow(s, p, rng)
    else:
        if p["backdrop"]:
            _backdrop(s, flowers[0], p, rng)
        _leaves_behind(s, flowers, rng)
    _fit_layers(flowers, p, kind, s.fills)
    rows = [[x, y, size, round(turn, 2), layers] for x, y, size, turn, layers in flowers]
    s.body[:0] = ["", "  // where the flowers go, biggest first: [x, y, size, turn, layers]",
                  f"  const flowers = {_js(rows)};"]
    s.step("the flowers last, each in translucent layers",
           "for (const [x, y, size, turn, layers] of flowers) flower(x, y, size, turn, layers);")


def _radial_layout(kind: str, p: dict, rng: random.Random) -> list[list]:
    base = {"hibiscus": 170, "poppy": 95, "anemone": 150, "daisy": 105, "blossom": 70}[kind] * p["scale"]
    layouts = {
        "centred": [(300, 300, 1.0)],
        "off-centre": [(rng.choice((235, 365)), rng.choice((250, 350)), 0.95)],
        "diagonal": [(215, 225, 0.85), (420, 410, 0.55)],
        "several": [(245, 235, 0.8), (410, 300, 0.62), (255, 440, 0.5)],
        "rising": [(170, 390, 1.0), (330, 250, 0.9), (470, 160, 0.75)],
        "falling": [(190, 190, 1.0), (340, 300, 0.9), (450, 420, 0.75)],
    }
    if kind in ("poppy", "daisy"):   # heads on stems at different heights
        layouts |= {"several": [(190, 290, 1.0), (350, 210, 1.15), (470, 370, 0.8)],
                    "diagonal": [(220, 230, 1.2), (420, 350, 0.9)], "off-centre": [(250, 250, 1.3)],
                    "pair": [(220, 230, 1.25), (410, 330, 1.0)], "centred": [(300, 260, 1.4)]}
    mirror = rng.random() < 0.5
    return [[round(600 - x if mirror else x) + rng.randint(-12, 12), y + rng.randint(-12, 12), round(base * k),
             rng.uniform(0, 2 * pi), p["layers"]] for x, y, k in layouts[p["composition"]]]


def _centre_fills(kind: str, size: float) -> int:
    return {"hibiscus": 7 if size >= 120 else 2, "anemone": 8 if size >= 100 else 1}.get(kind, 2)


def _fit_layers(flowers: list[list], p: dict, kind: str, fixed: int) -> None:
    """Drop wash layers from the smallest flowers until the painting fits MAX_FILLS."""
    def total():
        return fixed + sum(p["petals"] * f[4] + _centre_fills(kind, f[2]) for f in flowers)
    for f in sorted(flowers, key=lambda f: f[2]) * 3:
        if total() <= MAX_FILLS:
            return
        f[4] = max(1, f[4] - 1)


def _leaves_behind(s: _Sketch, flowers: list[list], rng: random.Random) -> None:
    """Leaves go first and point into open space: washes mix, so a leaf under a petal shows."""
    x0, y0, size = flowers[0][:3]
    if len(flowers) > 1:   # between the blooms, across the line that joins them
        x1, y1 = flowers[1][:2]
        out, spread = atan2(y1 - y0, x1 - x0) + pi / 2, (0.0, pi)
    else:
        out = atan2(y0 - 300, x0 - 300) if hypot(x0 - 300, y0 - 300) > 30 else rng.uniform(0, 2 * pi)
        spread = (-0.9, 0.9, pi)
    leaves = []
    for k, da in enumerate(spread):
        a = out + da + rng.uniform(-0.25, 0.25)
        length = size * rng.uniform(0.8, 0.95)
        while not _inside(x0, y0, a, size * 0.55 + length) and length > size * 0.4:
            length *= 0.85
        leaves.append([round(x0 + size * 0.55 * cos(a)), round(y0 + size * 0.55 * sin(a)), round(a % (2 * pi), 2),
                       round(length), round(size * (0.28 - 0.05 * k))])
    s.use("leaf")
    s.step("leaves first, tucked outside the petals: [x, y, angle, length, width]",
           f"const leaves = {_js(leaves)};",
           "leaves.forEach(([x, y, a, len, wid], i) => {",
           "  wash(LEAF[i % LEAF.length], 185, 0.3, TEXTURE, 0.6);",
           "  leaf(x, y, a, len, wid);",
           "});", fills=len(leaves))


def _backdrop(s: _Sketch, main: list, p: dict, rng: random.Random) -> None:
    x, y, size = main[:3]
    bx = 600 - x + rng.randint(-40, 40) if abs(x - 300) > 30 else x + rng.choice((-1, 1)) * 90
    colour = _tint(rng.choice(library()["backdrops"]), p["jitter"], rng)
    s.use("blob")
    s.step("a loose bloom of cool colour behind, for the petals to glow against",
           f'wash("{colour}", 120, 0.5, 0.6, 0.7);',
           f"blob({bx}, {y + rng.randint(-60, 20)}, {round(size)}, {round(size * 0.8)}, 0.5, 3);", fills=1)


def _meadow(s: _Sketch, p: dict, rng: random.Random) -> None:
    sky, meadow = _tints(rng.choice(library()["meadows"]), p, rng)
    s.use("blob", "spike", "leaf")
    s.step("a pale sky and a loose meadow wash", f'wash("{sky}", 120, 0.5, 0.6, 0.7);',
           f"blob({rng.randint(250, 350)}, 120, 260, 90, 0.6, 1);",
           f'wash("{meadow}", 150, 0.5, 0.6, 0.7);', f"blob({rng.randint(250, 350)}, 540, 290, 80, 0.6, 2);",
           fills=2)
    s.step("stems converging a little towards the ground, two blades at their feet",
           "wash(LEAF[2], 190, 0.15, 0.4, 0.5);",
           "for (const [x, y, size] of flowers) {",
           "  const bx = lerp(x, 300, 0.4);",
           "  spike(x, y + 0.3 * size, atan2(580 - y, bx - x), dist(x, y, bx, 580), 4);",
           "}",
           "wash(LEAF[0], 170, 0.3, TEXTURE, 0.6);",
           f"leaf({rng.randint(230, 280)}, 575, -1.95, 120, 20);",
           f"leaf({rng.randint(330, 380)}, 580, -1.25, 110, 18);", fills=5)


def _branch(s: _Sketch, flowers: list[list], p: dict, rng: random.Random) -> None:
    xs = [40, 150, 260, 360, 460, 560]
    ys = [500, 410, 330, 260, 180, 130] if p["composition"] == "rising" else [90, 170, 260, 330, 420, 470]
    if (flowers[0][0] > 300) != (xs[0] > 300):   # a mirrored layout: the branch enters from the right
        xs = [600 - x for x in xs]
    pts = [[x + rng.randint(-15, 15), y + rng.randint(-20, 20)] for x, y in zip(xs, ys)]
    s.use("spike")
    s.step("the branch: crooked tapering strokes, thick at the base",
           f"const branch = {_js(pts)};",
           f'wash("{_tint(rng.choice(("#5a3a32", "#4a3a3a", "#6a4a3a")), p["jitter"], rng)}", 210, 0.15, 0.4, 0.5);',
           "for (let k = 0; k + 1 < branch.length; k++) {",
           "  const [x0, y0] = branch[k], [x1, y1] = branch[k + 1];",
           "  spike(x0, y0, atan2(y1 - y0, x1 - x0), dist(x0, y0, x1, y1) * 1.15, 11 - 1.5 * k);",
           "}",
           "// a few buds on the twigs",
           "wash(PETAL[1], 200, 0.2, TEXTURE, 0.5);",
           "for (let k = 1; k < branch.length; k += 2) {",
           "  brush.circle(branch[k][0] + random(-18, 18), branch[k][1] - random(10, 24), random(6, 10));",
           "}", fills=len(pts) + 2)


# -- tulips and lotus --------------------------------------------------------------------------
def _tulips(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    _flower_paint(s, p, rng)
    n = {"single": 1, "pair": 2, "bunch": rng.choice((3, 4, 5))}[p["composition"]]
    size = round((120 if n == 1 else 108 - 4 * n) * p["scale"])
    s.consts.append(f"const BLEED = {p['bleed']}, TEXTURE = {p['texture']}, SCALE = {round(size / 95, 2)};")
    s.use("wash", "blob", "spike", "leaf", "tulip")
    heads = []
    for i in range(n):
        off = i - (n - 1) / 2
        heads.append([round(300 + off * 85) + rng.randint(-10, 10), round(220 + abs(off) * 45) + rng.randint(-25, 25),
                      round(size * rng.uniform(0.9, 1.05)), round(off * 0.18 + rng.uniform(-0.1, 0.1), 2)])
    s.step("a soft shadow under the bunch", f'wash("{_tint(rng.choice(library()["backdrops"]), p["jitter"], rng)}", '
           "130, 0.5, 0.6, 0.7);", "blob(300, 545, 190, 38, 0.5, 4);", fills=1)
    s.step("stems from one point at the base to every head: [x, y, size, tilt]",
           f"const heads = {_js(heads)};", "wash(LEAF[2], 200, 0.15, 0.4, 0.5);",
           "for (const [x, y] of heads) spike(x, y + 20, atan2(535 - y, 300 - x), dist(x, y, 300, 535), 5);",
           fills=n)
    blades = [[-1.95, 240], [-1.15, 220], [-2.55, 190]][: 2 + (n > 1)]
    s.step("long blades fanning out from the base: [angle, length]", f"const blades = {_js(blades)};",
           "blades.forEach(([a, len], i) => {", "  wash(LEAF[i % LEAF.length], 180, 0.3, TEXTURE, 0.6);",
           "  leaf(300, 535, a, len * SCALE, 30 * SCALE);", "});", fills=len(blades))
    s.step("the cups last, each a back petal and two front petals",
           f"for (const [x, y, size, tilt] of heads) tulip(x, y, size, tilt, {p['layers']});", fills=3 * n)


def _lotus(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    _flower_paint(s, p, rng)
    s.consts.append(f"const PETALS = {p['petals']}, BLEED = {p['bleed']}, TEXTURE = {p['texture']};")
    s.use("wash", "blob", "lotus")
    layout = {"centred": [(300, 400, 1.0)], "off-centre": [(rng.choice((240, 360)), 400, 1.0)],
              "pair": [(230, 390, 0.9), (420, 450, 0.6)]}[p["composition"]]
    blooms = [[x + rng.randint(-10, 10), y + rng.randint(-10, 10), round(185 * k * p["scale"]), p["layers"]]
              for x, y, k in layout]
    x0, y0 = blooms[0][:2]
    s.step("still water, then flat lily pads on it",
           f'wash("{_tint(rng.choice(("#a8c8d8", "#9fb8c8", "#b4cdd4")), p["jitter"], rng)}", 140, 0.5, 0.6, 0.7);',
           "blob(300, 440, 290, 110, 0.4, 1);", "wash(LEAF[0], 190, 0.3, TEXTURE, 0.6);",
           f"blob({x0 - 130}, {y0 + 40}, 90, 26, 0.4, 5);", "wash(LEAF[1], 170, 0.3, TEXTURE, 0.6);",
           f"blob({x0 + 140}, {y0 + 70}, 80, 22, 0.4, 6);", fills=3)

    def fills(b):
        return sum(max(1, p["petals"] - 2 * layer) for layer in range(b[3]))
    for b in sorted(blooms, key=lambda b: b[2]) * 3:
        if s.fills + sum(fills(b) for b in blooms) <= MAX_FILLS:
            break
        b[3] = max(1, b[3] - 1)
    s.step("the blooms: fans of pointed petals, paler behind, deeper in front: [x, y, size, layers]",
           f"const blooms = {_js(blooms)};", "for (const [x, y, size, layers] of blooms) lotus(x, y, size, layers);")


# -- leaves: sprigs, scattered leaves, a fan of big leaves -----------------------------------
