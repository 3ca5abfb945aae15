"""Landscapes (hills, lake, sea, mountains, dunes) and abstracts."""

from __future__ import annotations

import random
from math import cos, sin

from brushwork.painter.data import library
from brushwork.painter.sketch import _js, _Sketch, _tint, _tints


def _landscape(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    scene = library()["scenes"][p["palette"]]
    s.const("SKY", _tints(scene["sky"], p, rng))
    s.const("RANGE", _tints(scene["ranges"], p, rng))
    s.const("WATER", _tint(scene["water"], p["jitter"], rng))
    s.const("SUN", _tint(scene["sun"], p["jitter"], rng))
    s.const("ACCENT", _tint(scene["accent"], p["jitter"], rng))
    s.consts.append(f"const BLEED = {p['bleed']}, TEXTURE = {p['texture']};")
    s.use("wash", "blob")
    horizon = (350 if p["composition"] == "low horizon" else 270) + rng.randint(-15, 15)
    sun_x = rng.randint(150, 450)
    sun_y = horizon - (rng.randint(20, 50) if kind in ("lake", "dunes") else rng.randint(110, 170))
    s.step("the sky: two wet washes bleeding into each other, and a pale sun",
           "wash(SKY[0], 150, 0.5, TEXTURE, 0.7);",
           f"blob({rng.randint(240, 360)}, {horizon // 2 - 10}, 300, {horizon // 2}, 0.4, 1);",
           "wash(SKY[1], 120, 0.5, TEXTURE, 0.7);", f"blob({rng.randint(250, 400)}, {horizon - 70}, 230, 70, 0.5, 2);",
           "wash(SUN, 240, 0.3, 0.4, 0.5);",
           f"brush.circle({sun_x}, {sun_y}, {round(rng.uniform(28, 46) * p['scale'])});", fills=3)
    _SCENE_PARTS[kind](s, p, rng, horizon, sun_x)


def _ranges(s: _Sketch, helper: str, tops: list[int], amps: list[int], first: int = 0, curv: float = 0.8) -> None:
    rows = [[y, round(a), (tops[i + 1] - y + 70) if i + 1 < len(tops) else 620 - y] for i, (y, a) in
            enumerate(zip(tops, amps))]
    s.use(helper)
    call = "peaks(y, amp, depth, 10 * i)" if helper == "peaks" else f"hills(y, amp, depth, 10 * i, {curv})"
    colour = f"RANGE[i + {first}]" if first else "RANGE[i]"
    s.step("ranges from far to near: paler and cooler away, deeper close by: [top, height, depth]",
           f"const ranges = {_js(rows)};", "ranges.forEach(([y, amp, depth], i) => {",
           f"  wash({colour}, 170 + 15 * i, BLEED * (1 - 0.15 * i), TEXTURE, 0.7);", f"  {call};", "});",
           fills=len(rows))


def _hills_scene(s: _Sketch, p: dict, rng: random.Random, horizon: int, sun_x: int) -> None:
    gap = (600 - horizon) / 4.3
    tops = [round(horizon - 20 + i * gap) for i in range(4)]
    _ranges(s, "hills", tops, [v * p["scale"] for v in (150, 120, 95, 70)])
    x0 = rng.choice((90, 330))
    s.step("a line of soft trees on the near ridge, and a band of mist between the ranges",
           "for (let k = 0; k < 6; k++) {", "  wash(k % 2 ? ACCENT : RANGE[3], 190, 0.25, TEXTURE, 0.6);",
           f"  blob({x0} + k * 34 + random(-8, 8), {tops[3] - 20} - noise(k * 0.4) * 30, random(12, 18), "
           "random(22, 32), 0.4, k * 5);", "}",
           f'wash("{_tint("#f4efe8", p["jitter"], rng)}", 200, 0.45, 0.6, 0.7);',
           f"blob({rng.randint(200, 400)}, {round(tops[1] + gap / 2)}, 200, 22, 0.5, 11);", fills=7)


def _lake_scene(s: _Sketch, p: dict, rng: random.Random, horizon: int, sun_x: int) -> None:
    _ranges(s, "hills", [horizon - 25, horizon - 5], [80 * p["scale"], 45 * p["scale"]], first=1)
    s.use("poly")
    s.step("still water to the bottom of the page, holding the sky and a path of light",
           "wash(WATER, 130, BLEED, TEXTURE, 0.7);", f"poly([[-20, {horizon + 40}], [620, {horizon + 40}], "
           "[620, 620], [-20, 620]], 0.3);", "wash(SKY[0], 150, 0.45, TEXTURE, 0.7);",
           f"blob({sun_x}, {horizon + 110}, 170, 40, 0.5, 7);", "wash(SUN, 220, 0.2, 0.4, 0.5);",
           "for (let k = 0; k < 4; k++) {",
           f"  blob({sun_x} + random(-15, 15), {horizon + 60} + k * 28, 45 - 8 * k, 4, 0.3, 20 + k);", "}",
           fills=6)
    s.step("a dark shore in front, with a few reeds", "wash(ACCENT, 200, 0.3, TEXTURE, 0.6);",
           f"blob({rng.choice((90, 510))}, 585, 170, 40, 0.5, 9);", fills=1)


def _sea_scene(s: _Sketch, p: dict, rng: random.Random, horizon: int, sun_x: int) -> None:
    s.use("poly")
    bands = [[horizon + round(i * (600 - horizon) * 0.16), round(14 + 6 * i)] for i in range(4)]
    s.step("the sea in bands, deepening towards the shore: [y, half-height]", f"const bands = {_js(bands)};",
           "wash(RANGE[0], 170, BLEED, TEXTURE, 0.7);",
           f"poly([[-20, {horizon}], [620, {horizon}], [620, {bands[3][0] + 40}], [-20, {bands[3][0] + 40}]], 0.2);",
           "bands.forEach(([y, h], i) => {", "  wash(RANGE[i], 160 + 15 * i, BLEED * 0.8, TEXTURE, 0.7);",
           "  blob(300 + random(-40, 40), y + 30, 330, h, 0.5, 3 + i);", "});", fills=5)
    sand = bands[3][0] + 60
    s.use("hills")
    s.step("a wet sand shore, and two rocks", "wash(WATER, 200, BLEED, TEXTURE, 0.7);",
           f"hills({sand}, 40, {620 - sand}, 8, 1);", "wash(ACCENT, 210, 0.2, TEXTURE, 0.6);",
           f"blob({rng.randint(80, 200)}, {sand + 40}, 46, 26, 0.5, 12);",
           f"blob({rng.randint(400, 520)}, {sand + 70}, 30, 18, 0.5, 13);", fills=3)


def _mountain_scene(s: _Sketch, p: dict, rng: random.Random, horizon: int, sun_x: int) -> None:
    _ranges(s, "peaks", [horizon - 10, horizon + 20], [190 * p["scale"], 120 * p["scale"]])
    s.use("poly", "spike")
    s.step("a lake below the mountains, with their pale reflection", "wash(WATER, 160, BLEED, TEXTURE, 0.7);",
           f"poly([[-20, {horizon + 70}], [620, {horizon + 70}], [620, 620], [-20, 620]], 0.2);",
           "wash(RANGE[0], 100, 0.45, TEXTURE, 0.7);", f"blob(300, {horizon + 130}, 260, 40, 0.5, 4);", fills=3)
    s.step("a dark band of forest on the far shore, pines standing out of it",
           "wash(RANGE[3], 200, 0.3, TEXTURE, 0.6);", f"blob(300, {horizon + 75}, 330, 16, 0.4, 6);",
           "wash(ACCENT, 220, 0.15, 0.4, 0.5);", "for (let k = 0; k < 6; k++) {",
           f"  const x = {rng.choice((40, 330))} + k * 40 + random(-10, 10);",
           f"  spike(x, {horizon + 90}, -HALF_PI, random(70, 120), 13);",
           "}", fills=7)


def _dune_scene(s: _Sketch, p: dict, rng: random.Random, horizon: int, sun_x: int) -> None:
    gap = (600 - horizon) / 4
    tops = [round(horizon - 10 + i * gap) for i in range(4)]
    _ranges(s, "hills", tops, [v * p["scale"] for v in (60, 80, 90, 70)], curv=1)
    s.step("shadowed faces glazed over the dunes", "wash(ACCENT, 120, 0.4, TEXTURE, 0.7);",
           f"blob({rng.randint(120, 240)}, {tops[2] + 20}, 120, 26, 0.5, 14);",
           f"blob({rng.randint(360, 480)}, {tops[3] + 30}, 140, 30, 0.5, 15);", fills=2)


_SCENE_PARTS = {"hills": _hills_scene, "lake": _lake_scene, "sea": _sea_scene, "mountains": _mountain_scene,
                "dunes": _dune_scene}


# -- abstracts -----------------------------------------------------------------------------------
def _abstract(s: _Sketch, kind: str, p: dict, rng: random.Random) -> None:
    s.const("INK", _tints(library()["fields"][p["palette"]], p, rng))
    s.consts.append(f"const BLEED = {p['bleed']}, TEXTURE = {p['texture']};")
    s.use("wash")
    passes = min(p["layers"], 2)
    if kind == "bands":
        tilt = 0.0 if p["composition"] == "stacked" else rng.choice((-0.07, 0.07))
        n = rng.choice((3, 3, 4))
        rows = [[300 + rng.randint(-15, 15), round(110 + i * 380 / (n - 1)), round(rng.uniform(170, 220) * p["scale"]),
                 round(330 / n / 2 + rng.randint(-8, 8))] for i in range(n)]
        s.use("slab")
        s.step("soft slabs of colour stacked like a colour field, each glazed again: [x, y, half-width, half-height]",
               f"const slabs = {_js(rows)};", "slabs.forEach(([x, y, w, h], i) => {",
               f"  for (let pass = 0; pass < {passes}; pass++) {{",
               "    wash(INK[(i + 2 * pass) % INK.length], 180 - 50 * pass, BLEED, TEXTURE, 0.8);",
               f"    slab(x, y, w * (1 - 0.12 * pass), h * (1 - 0.25 * pass), {tilt}, 10 * i + pass);", "  }", "});",
               fills=n * passes)
        return
    n = rng.randint(6, 8)
    diagonal = p["composition"] == "diagonal"
    rows = []
    for i in range(n):
        t = (i + 0.5) / n
        x, y = ((120 + 360 * t, 120 + 360 * t) if diagonal else (300 + 150 * cos(i * 2.4), 300 + 150 * sin(i * 2.4)))
        r = rng.uniform(55, 110) * p["scale"]
        x, y = min(max(x + rng.uniform(-40, 40), r + 20), 580 - r), min(max(y + rng.uniform(-40, 40), r + 20), 580 - r)
        rows.append([round(x), round(y), round(r)])
    if kind == "circles":
        s.use("blob")
        s.step("a pale ground wash for the discs to sit in", "wash(INK[1], 90, 0.5, TEXTURE, 0.7);",
               f"blob({round(sum(r[0] for r in rows) / n)}, {round(sum(r[1] for r in rows) / n)}, 210, 180, 0.5, 2);",
               fills=1)
        s.step("translucent discs overlapping, so the colours mix where they meet: [x, y, radius]",
               f"const discs = {_js(rows)};", "discs.forEach(([x, y, r], i) => {",
               "  wash(INK[i % INK.length], 170, BLEED, TEXTURE, 0.7);", "  brush.circle(x, y, r);",
               *(["  wash(INK[(i + 2) % INK.length], 120, BLEED, TEXTURE, 0.6);",
                  "  brush.circle(x + 0.2 * r, y - 0.15 * r, 0.45 * r);"] if passes > 1 else []), "});",
               fills=n * passes)
        return
    s.use("blob")
    s.step("wobbly washes dropped side by side, so their wet edges bleed together: [x, y, radius]",
           f"const blooms = {_js(rows)};", "blooms.forEach(([x, y, r], i) => {",
           "  wash(INK[i % INK.length], 170, max(BLEED, 0.3), TEXTURE, 0.8);", "  blob(x, y, r, r * 0.85, 0.7, 7 * i);",
           "});", fills=n)
    s.step("drops of darker pigment falling into the wet paint", "wash(INK[2], 210, 0.3, TEXTURE, 0.5);",
           f"for (let k = 0; k < {4 * passes}; k++) {{",
           "  const [x, y, r] = random(blooms);",
           "  brush.circle(x + random(-0.5, 0.5) * r, y + random(-0.5, 0.5) * r, random(6, 14));", "}",
           fills=4 * passes)
