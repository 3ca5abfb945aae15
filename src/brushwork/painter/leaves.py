"""Leaf studies: sprigs and scattered leaves."""

from __future__ import annotations

import random
from math import cos, hypot, pi, sin

from brushwork.painter.data import library
from brushwork.painter.sketch import _inside, _js, _Sketch, _tint, _tints

_SPRIG = {  # nodes, biggest leaf, stem width, helper, the JS that paints one leaf of a pair
    "eucalyptus": (7, 44, 3, "blob", "blob(x - side * size * 0.8 * sin(along), y + side * size * 0.8 * cos(along), "
                                     "size, size * 0.9, 0.35, k * 3 + side);"),
    "fern": (8, 95, 4, "leaf", "leaf(x, y, along + side * 1.1, size, size * 0.19);"),
    "olive": (7, 100, 3, "leaf", "leaf(x, y, along + side * 0.55, size, size * 0.17);"),
    "ginkgo": (6, 62, 3, "petal_fan", "petal(x, y, along + side * 0.9, size, size * 1.3, k * 5 + side);"),
}
_SPRIG_ACCENT = {
    "eucalyptus": ("darker shadows where the leaves overlap", "wash(ACCENT, 110, 0.4, 0.6, 0.6);",
                   "for (let k = 2; k < stem.length - 1; k += 2) {",
                   "  blob(stem[k][0] + 12, stem[k][1] + 8, 20, 16, 0.5, k * 5);", "}"),
    "olive": ("a few dark olives hanging from the twig", "wash(ACCENT, 220, 0.2, 0.4, 0.4);",
              "for (let k = 2; k < stem.length - 1; k += 2) brush.circle(stem[k][0] + 14, stem[k][1] + 16, 11);"),
}


def _leaf_paint(s: _Sketch, p: dict, rng: random.Random) -> None:
    colours = library()["leaves"][p["palette"]]
    s.const("LEAF", _tints(colours["leaf"], p, rng))
    s.const("STEM", _tint(colours["stem"], p["jitter"], rng))
    s.const("ACCENT", _tint(colours["accent"], p["jitter"], rng))
    s.consts.append(f"const BLEED = {p['bleed']}, TEXTURE = {p['texture']};")


def _sprig(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    _leaf_paint(s, p, rng)
    nodes, big, stem_w, helper, leaf_js = _SPRIG[kind]
    (x0, y0), (x1, y1), bow = {"diagonal": ((110, 490), (490, 110), 80), "arc": ((150, 540), (470, 120), 150),
                               "upright": ((300, 565), (300, 60), 70)}[p["composition"]]
    if rng.random() < 0.5:
        x0, x1 = 600 - x0, 600 - x1
    length = hypot(x1 - x0, y1 - y0)
    sign = rng.choice((-1, 1))
    bx, by = round(sign * (y1 - y0) / length * bow), round(-sign * (x1 - x0) / length * bow)
    s.use("wash", "spike", helper)
    s.step(f"the stem: a gentle curve through {nodes + 1} points", "const stem = [];",
           f"for (let k = 0; k <= {nodes}; k++) {{", f"  const t = k / {nodes};",
           f"  stem.push([lerp({x0}, {x1}, t) + {bx} * sin(PI * t), lerp({y0}, {y1}, t) + {by} * sin(PI * t)]);",
           "}", "wash(STEM, 190, 0.1, 0.3, 0.4);",
           "for (let k = 0; k + 1 < stem.length; k++) {",
           "  const [x, y] = stem[k], [nx, ny] = stem[k + 1];",
           f"  spike(x, y, atan2(ny - y, nx - x), dist(x, y, nx, ny) * 1.15, {stem_w} * (1 - k / stem.length) + 1.5);",
           "}", fills=nodes)
    size = round(big * p["scale"])
    passes = min(p["layers"], 2)
    s.step("leaves in pairs, shrinking towards the tip" + ("; a second glaze deepens the larger ones"
                                                           if passes > 1 else ""),
           f"for (let pass = 0; pass < {passes}; pass++) {{",
           "  const last = pass === 0 ? stem.length - 1 : floor(stem.length / 2);",
           "  for (let k = 1; k <= last; k++) {",
           "    const [x, y] = stem[k], [px, py] = stem[k - 1];",
           "    const along = atan2(y - py, x - px);",
           f"    const size = map(k, 1, stem.length - 1, {size}, {round(size * 0.45)}) * (1 - 0.25 * pass);",
           "    for (const side of [-1, 1]) {",
           "      wash(LEAF[(k + side + 2 + pass) % LEAF.length], 190 - 40 * pass, BLEED, TEXTURE, 0.7);",
           f"      {leaf_js}", "    }", "  }", "}", fills=2 * nodes + (passes - 1) * 2 * ((nodes + 1) // 2))
    if kind in _SPRIG_ACCENT:
        s.step(*_SPRIG_ACCENT[kind], fills=(nodes - 1) // 2)


def _leaf_list(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    """Autumn leaves scattered or falling, or tropical leaves fanning from one base."""
    _leaf_paint(s, p, rng)
    s.use("wash", "leaf", "spike")
    if kind == "tropical":
        (bx, by), aim = {"from left": ((110, 540), -0.95), "from right": ((490, 540), -2.2),
                         "from below": ((300, 575), -pi / 2)}[p["composition"]]
        n = rng.randint(5, 7)
        leaves = []
        for i in range(n):
            a = aim + (i - (n - 1) / 2) * 1.7 / (n - 1) + rng.uniform(-0.08, 0.08)
            length = rng.uniform(200, 260) * p["scale"]
            while not _inside(bx, by, a, length, margin=15) and length > 120:
                length *= 0.9
            leaves.append([bx, by, round(a, 2), round(length), round(length * rng.uniform(0.2, 0.26))])
        comment = f"big leaves fanning out from ({bx}, {by})"
    else:
        leaves = _scatter(p, rng)
        comment = "each leaf from its stalk end"
    glaze = p["layers"] > 1
    s.step(f"{comment}: [x, y, angle, length, width]", f"const leaves = {_js(leaves)};",
           "leaves.forEach(([x, y, a, len, wid], i) => {",
           "  wash(LEAF[i % LEAF.length], 200, BLEED, TEXTURE, 0.7);", "  leaf(x, y, a, len, wid);",
           *(["  wash(LEAF[(i + 1) % LEAF.length], 140, BLEED * 0.7, TEXTURE, 0.6);",
              "  leaf(x + 0.2 * len * cos(a), y + 0.2 * len * sin(a), a, len * 0.65, wid * 0.5);"] if glaze else []),
           "  wash(ACCENT, 160, 0.1, 0.3, 0.4);", "  spike(x - 10 * cos(a), y - 10 * sin(a), a, len * 0.85, 2);",
           "});", fills=len(leaves) * (2 + glaze))


def _scatter(p: dict, rng: random.Random) -> list[list]:
    n = rng.randint(7, 10)
    leaves: list[list] = []
    centres: list[tuple[float, float]] = []
    for i in range(n):
        for _ in range(40):   # keep the leaves apart, so each shape reads
            if p["composition"] == "falling":
                t = (i + rng.uniform(0.2, 0.8)) / n
                x, y = 150 + 300 * t + rng.uniform(-90, 90), 90 + 420 * t + rng.uniform(-30, 30)
            else:
                x, y = rng.uniform(100, 500), rng.uniform(100, 500)
            if all(hypot(x - a, y - b) > 100 for a, b in centres):
                break
        centres.append((x, y))
        size, a = rng.uniform(75, 110) * p["scale"], rng.uniform(0, 2 * pi)
        leaves.append([round(x - size / 2 * cos(a)), round(y - size / 2 * sin(a)), round(a, 2), round(size),
                       round(size * 0.3)])
    return leaves


# -- landscapes ----------------------------------------------------------------------------------
