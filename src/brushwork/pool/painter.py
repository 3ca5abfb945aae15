"""The procedural painter: an offline, deterministic author of valid p5.brush sketches.

`paint(seed, subject)` writes a tidy sketch (a few commented helpers, 60-150 lines) that
paints only with the gate's ten brush methods on the recipe's skeleton. What varies
(palette, paper, layers, bleed, texture, petals, composition, scale, colour jitter) is drawn
from the seed and may be overridden by name. Tests and the demo use it, `brushwork pool
generate --procedural` fills pools with it, and its sketches serve as warm-up (SFT) answers
for small models, so the code it writes must read like a good answer.

Palettes, papers and the JavaScript helpers are data (`prompts/procedural.yaml`); this
module lays out each kind of subject and assembles the sketch.
"""

from __future__ import annotations

import colorsys
import random
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from math import atan2, cos, hypot, pi, sin

from brushwork.errors import ConfigError

MAX_FILLS = 35   # each watercolour fill costs a spectral shader pass over its bounding box


@dataclass(frozen=True)
class Painting:
    """One procedural painting: the sketch and everything that made it."""

    code: str
    subject: str
    domain: str
    params: dict = field(default_factory=dict)


# subject -> (domain, kind, palettes that suit it). A kind is one layout routine below.
_CATALOGUE: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "peach hibiscus": ("hibiscus", "hibiscus", ("peach", "apricot")),
    "white hibiscus with a red eye": ("hibiscus", "hibiscus", ("white",)),
    "magenta hibiscus": ("hibiscus", "hibiscus", ("magenta",)),
    "yellow hibiscus": ("hibiscus", "hibiscus", ("yellow",)),
    "coral hibiscus": ("hibiscus", "hibiscus", ("coral", "peach")),
    "pink hibiscus": ("hibiscus", "hibiscus", ("pink",)),
    "red hibiscus": ("hibiscus", "hibiscus", ("red",)),
    "lilac hibiscus": ("hibiscus", "hibiscus", ("lilac",)),
    "red poppies": ("flowers", "poppy", ("red", "orange")),
    "pink tulips": ("flowers", "tulip", ("pink", "magenta", "coral")),
    "white daisies": ("flowers", "daisy", ("white",)),
    "pink lotus": ("flowers", "lotus", ("pink", "blush")),
    "purple anemones": ("flowers", "anemone", ("violet", "lilac")),
    "cherry blossom": ("flowers", "blossom", ("blush", "pink")),
    "eucalyptus sprig": ("leaves", "eucalyptus", ("silver", "blue-green")),
    "fern frond": ("leaves", "fern", ("spring", "sage", "deep")),
    "olive branch": ("leaves", "olive", ("olive", "sage")),
    "ginkgo leaves": ("leaves", "ginkgo", ("gold", "spring")),
    "autumn leaves": ("leaves", "autumn", ("autumn", "rust")),
    "tropical leaves": ("leaves", "tropical", ("deep", "spring", "blue-green")),
    "misty hills": ("landscape", "hills", ("dawn", "morning")),
    "lake at dusk": ("landscape", "lake", ("dusk", "violet dusk")),
    "seascape": ("landscape", "sea", ("sea", "grey sea")),
    "mountain lake": ("landscape", "mountains", ("alpine", "autumn alpine")),
    "desert dunes": ("landscape", "dunes", ("sand", "rose sand")),
    "abstract colour field": ("abstract", "bands", ()),
    "abstract circles": ("abstract", "circles", ()),
    "abstract wet-in-wet blooms": ("abstract", "blooms", ()),
}
DOMAINS = ("hibiscus", "flowers", "leaves", "landscape", "abstract")
SUBJECTS: dict[str, tuple[str, ...]] = {d: tuple(s for s, v in _CATALOGUE.items() if v[0] == d) for d in DOMAINS}
_DOMAIN_WEIGHTS = (0.4, 0.2, 0.15, 0.15, 0.1)   # unseeded picks favour the recipe's hibiscus
# Words of a free-form subject that name a kind: "a white hibiscus at noon" -> hibiscus.
_KEYWORDS = {"hibiscus": "hibiscus", "popp": "poppy", "tulip": "tulip", "dais": "daisy", "lotus": "lotus",
             "anemone": "anemone", "blossom": "blossom", "cherry": "blossom", "eucalyptus": "eucalyptus",
             "fern": "fern", "olive": "olive", "ginkgo": "ginkgo", "autumn": "autumn", "maple": "autumn",
             "tropical": "tropical", "monstera": "tropical", "palm": "tropical", "hill": "hills", "lake": "lake",
             "sea": "sea", "ocean": "sea", "coast": "sea", "mountain": "mountains", "dune": "dunes",
             "desert": "dunes", "colour field": "bands", "color field": "bands", "circle": "circles",
             "abstract": "blooms"}
# The table each domain's `palette` names an entry of (in procedural.yaml).
_PALETTE_TABLE = {"hibiscus": "flowers", "flowers": "flowers", "leaves": "leaves", "landscape": "scenes",
                  "abstract": "fields"}
_TINTED_PAPERS = ("blue-grey", "sage", "warm grey")   # white paint shows only on tinted paper
_LIGHT_PAPERS = ("warm white", "cream", "cool white", "blush")
PETAL_SHAPES = ("fan", "round", "pointed")

# Radial flowers: (petal count range, petal shapes, compositions, petal width / length).
_RADIAL = {
    "hibiscus": ((5, 5), ("fan", "fan", "round"), ("centred", "off-centre", "diagonal", "several"), 0.9),
    "poppy": ((4, 5), ("round", "fan"), ("several", "diagonal", "off-centre"), 1.05),
    "anemone": ((5, 6), ("round",), ("centred", "off-centre", "several"), 0.85),
    "daisy": ((8, 11), ("pointed",), ("pair", "off-centre", "centred"), 0.28),
    "blossom": ((5, 5), ("round", "fan"), ("rising", "falling"), 0.95),
}
_PHRASES = {"several": "three blooms of different sizes", "diagonal": "two blooms on a diagonal",
            "pair": "a pair", "bunch": "a bunch", "single": "a single stem", "from left": "from the lower left",
            "from right": "from the lower right", "cluster": "a loose cluster"}
_COMPOSITIONS = {
    "tulip": ("bunch", "pair", "single"), "lotus": ("centred", "off-centre", "pair"),
    "eucalyptus": ("diagonal", "arc", "upright"), "fern": ("diagonal", "arc", "upright"),
    "olive": ("diagonal", "arc"), "ginkgo": ("diagonal", "arc", "upright"),
    "autumn": ("scattered", "falling"), "tropical": ("from left", "from right", "from below"),
    "bands": ("stacked", "tilted"), "circles": ("cluster", "diagonal"), "blooms": ("cluster", "diagonal"),
    **{k: ("low horizon", "high horizon") for k in ("hills", "lake", "sea", "mountains", "dunes")},
    **{k: v[2] for k, v in _RADIAL.items()},
}


@cache
def library() -> dict:
    """The paint box: papers, palettes, header sentences and JavaScript helpers."""
    import yaml

    text = resources.files("brushwork.pool").joinpath("prompts/procedural.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def palettes_for(domain: str) -> tuple[str, ...]:
    return tuple(library()[_PALETTE_TABLE[domain]])


# -- the public entry point ------------------------------------------------------------------
def paint(seed: int, subject: str | None = None, **overrides) -> Painting:
    """A deterministic painting of `subject` (drawn from `seed` when None). `overrides` replace
    drawn parameters by name: palette, paper, layers, bleed, texture, composition, scale, …"""
    rng = random.Random(f"brushwork-painter:{seed}:{subject or ''}")
    if subject is None:
        subject = rng.choice(SUBJECTS[rng.choices(DOMAINS, weights=_DOMAIN_WEIGHTS)[0]])
    domain, kind, palettes = _lookup(subject)
    params = _draw_params(rng, kind, palettes or palettes_for(domain))
    unknown = sorted(set(overrides) - set(params))
    if unknown:
        raise ConfigError(f"unknown painter parameter(s) {', '.join(unknown)} for {subject!r}; "
                          f"known: {', '.join(sorted(params))}")
    params.update(overrides)
    _validate(params, domain, kind)
    # Details (tints, positions) have their own stream: an override changes only what it names.
    detail = random.Random(f"brushwork-painter-detail:{seed}:{subject}")
    about = library()["about"][kind].format(subject=subject, Subject=subject[:1].upper() + subject[1:],
                                            composition=_PHRASES.get(params["composition"], params["composition"]))
    sketch = _Sketch(about)
    _LAYOUTS[kind](sketch, kind, params, detail)
    return Painting(sketch.assemble(params, seed), subject, domain, params)


def _lookup(subject: str) -> tuple[str, str, tuple[str, ...]]:
    if subject in _CATALOGUE:
        return _CATALOGUE[subject]
    text = subject.lower()
    for word, kind in _KEYWORDS.items():
        if word in text:
            domain, _, palettes = next(v for v in _CATALOGUE.values() if v[1] == kind)
            named = tuple(p for p in palettes_for(domain) if p in text)   # "a white hibiscus"
            return domain, kind, named or palettes
    raise ConfigError(f"the procedural painter has no layout for {subject!r}; try one of: {', '.join(_CATALOGUE)}")


def _draw_params(rng: random.Random, kind: str, palettes: tuple[str, ...]) -> dict:
    palette = rng.choice(palettes)
    params = {
        "palette": palette,
        "paper": rng.choice(_TINTED_PAPERS if palette == "white" else _LIGHT_PAPERS),
        "layers": 3 if palette == "white" else rng.choice((1, 2, 2, 3, 3)),
        "bleed": round(rng.triangular(0.05, 0.5, 0.38), 2),
        "texture": round(rng.uniform(0.25, 0.7), 2),
        "composition": rng.choice(_COMPOSITIONS[kind]),
        "scale": round(rng.uniform(0.88, 1.12), 2),
        "jitter": round(rng.uniform(0.0, 0.04), 3),
    }
    if kind in _RADIAL:
        (lo, hi), shapes, _, _ = _RADIAL[kind]
        params |= {"petals": rng.randint(lo, hi), "petal_shape": rng.choice(shapes), "backdrop": rng.random() < 0.4}
    if kind == "lotus":
        params["petals"] = rng.randint(5, 7)
    if kind in _RADIAL or kind in ("tulip", "lotus"):
        params["foliage"] = rng.choice(tuple(library()["foliage"]))
    return params


def _validate(params: dict, domain: str, kind: str) -> None:
    lib = library()
    rules = {
        "palette": (lambda v: v in palettes_for(domain), f"one of {', '.join(palettes_for(domain))}"),
        "paper": (lambda v: v in lib["papers"], f"one of {', '.join(lib['papers'])}"),
        "layers": (lambda v: v in (1, 2, 3), "1, 2 or 3"),
        "bleed": (lambda v: 0.05 <= v <= 0.5, "between 0.05 and 0.5"),
        "texture": (lambda v: 0 <= v <= 1, "between 0 and 1"),
        "scale": (lambda v: 0.5 <= v <= 1.3, "between 0.5 and 1.3"),
        "jitter": (lambda v: 0 <= v <= 0.2, "between 0 and 0.2"),
        "composition": (lambda v: v in _COMPOSITIONS[kind], f"one of {', '.join(_COMPOSITIONS[kind])}"),
        "petals": (lambda v: isinstance(v, int) and 3 <= v <= 14, "a whole number from 3 to 14"),
        "petal_shape": (lambda v: v in PETAL_SHAPES, f"one of {', '.join(PETAL_SHAPES)}"),
        "foliage": (lambda v: v in lib["foliage"], f"one of {', '.join(lib['foliage'])}"),
        "backdrop": (lambda v: isinstance(v, bool), "true or false"),
    }
    for name, value in params.items():
        ok, expected = rules[name]
        if not ok(value):
            raise ConfigError(f"painter parameter {name}={value!r} must be {expected}")


# -- sketch assembly -------------------------------------------------------------------------
@dataclass
class _Sketch:
    """A sketch under construction: header sentence, constants, helpers, draw body, fill count."""

    about: str
    consts: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    fills: int = 0

    def use(self, *names: str) -> None:
        for name in names:
            self.use(*library()["requires"].get(name, ()))
            if name not in self.helpers:
                self.helpers.append(name)

    def const(self, name: str, value) -> None:
        self.consts.append(f"const {name} = {_js(value)};")

    def step(self, comment: str, *lines: str, fills: int = 0) -> None:
        self.body += ["", f"  // {comment}", *(f"  {line}" for line in lines)]
        self.fills += fills

    def assemble(self, params: dict, seed: int) -> str:
        r, g, b = library()["papers"][params["paper"]]
        layers = params["layers"]
        head = [f"// {line}" for line in _wrap(self.about, 90)]
        head.append(f"// Palette {params['palette']} on {params['paper']} paper; {layers} wash "
                    f"layer{'s' if layers > 1 else ''}, bleed {params['bleed']}, texture {params['texture']}.")
        draw = ["function draw() {", "  translate(-width / 2, -height / 2);", f"  background({r}, {g}, {b});",
                f"  randomSeed({seed % 10000});", f"  noiseSeed({seed % 10000});", "  brush.noStroke();",
                *self.body, "}"]
        helpers = [library()["helpers"][name].strip("\n") for name in self.helpers]
        parts = ["\n".join(head), "\n".join(self.consts), library()["setup"].strip("\n"), *helpers, "\n".join(draw)]
        return "\n\n".join(p for p in parts if p) + "\n"


def _js(value) -> str:
    """A Python value as a JavaScript literal: numbers trimmed, strings double-quoted."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(round(value)) if abs(value - round(value)) < 1e-9 else f"{value:.2f}".rstrip("0")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_js(v) for v in value) + "]"
    return str(value)


def _wrap(text: str, width: int) -> list[str]:
    lines = [""]
    for word in text.split():
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".strip()
    return lines


def _tint(hex_colour: str, amount: float, rng: random.Random) -> str:
    """A colour nudged in hue, lightness and saturation, so no two paintings share exact paint."""
    h, lightness, s = colorsys.rgb_to_hls(*(int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)))
    h = (h + rng.uniform(-amount, amount) * 0.5) % 1
    lightness = min(1.0, max(0.0, lightness + rng.uniform(-amount, amount)))
    s = min(1.0, max(0.0, s + rng.uniform(-amount, amount) * 1.5))
    return "#" + "".join(f"{round(c * 255):02x}" for c in colorsys.hls_to_rgb(h, lightness, s))


def _tints(colours, p: dict, rng: random.Random) -> list[str]:
    return [_tint(c, p["jitter"], rng) for c in colours]


def _inside(x: float, y: float, a: float, reach: float, margin: float = 25) -> bool:
    tx, ty = x + reach * cos(a), y + reach * sin(a)
    return margin <= tx <= 600 - margin and margin <= ty <= 600 - margin


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


_LAYOUTS = {**{k: _radial for k in _RADIAL}, "tulip": _tulips, "lotus": _lotus,
            **{k: _sprig for k in _SPRIG}, "autumn": _leaf_list, "tropical": _leaf_list,
            **{k: _landscape for k in _SCENE_PARTS}, "bands": _abstract, "circles": _abstract, "blooms": _abstract}
