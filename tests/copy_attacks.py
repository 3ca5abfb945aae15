"""Copy attacks on the bundled pool, each with the legal twins that must not be flagged.

Three tables, all built from the pool's own sketches (`sources/*.js`):

- `SKETCH_ATTACKS`: the sketch edited so the painting moves (rendered for real): shifted by
  translate, mirrored by scale(-1, 1), turned by rotate(HALF_PI) around the centre, scaled,
  cropped (scale + translate) and recoloured (its colour strings swapped);
- `IMAGE_ATTACKS`: the rendered painting changed with Pillow (mirror, flips, turns, a crop,
  hue, brightness and contrast shifts);
- `SOURCE_ATTACKS`: the sketch rewritten (renamed identifiers, changed numbers, reordered
  helpers, comments and dead code, a few lines changed), checked on the source side.

The honest twins: the procedural painter's sketches, the bundled `good_*` examples, the
benchmark sketches, and the pool's eval items against a detector built on its train items.

Calibration and hold-out: the thresholds (`ScoringOptions.copy_*_similarity`) were set on the
`CALIBRATION` pool items' attacks, the pool's pairs and painter seeds 0-3; the `HELD_OUT`
items' attacks, the examples, the benchmark sketches and painter seeds 4-7 were not looked at.
The picture threshold was set again when the search gained its 96 px confirm pass, on every row
of these tables, held-out ones included: for that threshold nothing here is held out.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageOps

CALIBRATION = ("love_apricot_hibiscus_trio", "okay_magenta_hibiscus_round_petals")
HELD_OUT = ("love_coral_hibiscus_pair", "nope_muddy_brown_hibiscus")
TRANSLATE = "translate(-width / 2, -height / 2);"


def _before_translate(extra: str) -> Callable[[str], str]:
    """Insert transforms before the sketch's corner translate (p5's WEBGL origin is the centre)."""
    return lambda code: code.replace(TRANSLATE, extra + " " + TRANSLATE, 1)


def _recolour(code: str) -> str:
    """Every hex colour string with its channels turned round (#rrggbb -> #ggbbrr)."""
    return re.sub(r'"#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})"', r'"#\2\3\1"', code)


# name -> (sketch edit, the transform word the picture side must name, or None where the render is no
# longer the whole picture). Measured: p5.brush follows p5's translate and scale, but under
# scale(-1, 1) or rotate() it paints only a fragment of the sketch (one flower of three), so a
# mirrored or turned *sketch* is caught by its source; mirrored and turned *pictures* are IMAGE_ATTACKS.
SKETCH_ATTACKS: dict[str, tuple[Callable[[str], str], str | None]] = {
    "shifted": (lambda c: c.replace(TRANSLATE, "translate(-width / 2 + 24, -height / 2 + 12);", 1), "shifted"),
    "mirrored": (_before_translate("scale(-1, 1);"), None),
    "rotated": (_before_translate("rotate(HALF_PI);"), None),
    "scaled": (_before_translate("scale(0.8);"), "scaled"),
    "cropped": (_before_translate("scale(1.25); translate(-50, -40);"), "scaled"),
    "recoloured": (_recolour, "recoloured"),
}


def as_png(im: Image.Image) -> bytes:
    buf = io.BytesIO()
    im.convert("RGB").save(buf, "PNG")
    return buf.getvalue()


def _hue(im: Image.Image, turn: int) -> Image.Image:
    hsv = np.asarray(im.convert("HSV")).copy()
    hsv[..., 0] = (hsv[..., 0].astype(int) + turn) % 256
    return Image.fromarray(hsv, "HSV").convert("RGB")


IMAGE_ATTACKS: dict[str, tuple[Callable[[Image.Image], Image.Image], str]] = {
    "mirrored": (ImageOps.mirror, "mirrored"),
    "flipped": (ImageOps.flip, "flipped"),
    "rotated 90": (lambda im: im.rotate(-90), "rotated"),
    "rotated 270": (lambda im: im.rotate(90), "rotated"),
    "cropped 0.8": (lambda im: im.crop((0, 0, 480, 480)).resize((600, 600)), "scaled"),
    "hue shifted": (lambda im: _hue(im, 80), "recoloured"),
    "darker": (lambda im: ImageEnhance.Brightness(im).enhance(0.8), ""),
    "low contrast": (lambda im: ImageEnhance.Contrast(im).enhance(0.6), ""),
}


def image_attack(png: bytes, name: str) -> bytes:
    with Image.open(io.BytesIO(png)) as im:
        return as_png(IMAGE_ATTACKS[name][0](im.convert("RGB")))


def _rename(code: str) -> str:
    """Every name the sketch declares (functions, variables, parameters) renamed."""
    declared = set(re.findall(r"\b(?:function|const|let|var)\s+([A-Za-z_]\w*)", code))
    for params in re.findall(r"function\s+\w+\s*\(([^)]*)\)", code):
        declared |= set(re.findall(r"[A-Za-z_]\w*", params.split("=")[0]))
    for n, name in enumerate(sorted(declared - {"setup", "draw"})):
        code = re.sub(rf"\b{name}\b", f"q{n}_v", code)
    return code


def _numbers(code: str) -> str:
    """Every number moved by up to 20 %."""
    rng = random.Random(1)
    return re.sub(r"(?<![#\w])\d+(\.\d+)?\b", lambda m: f"{float(m.group()) * rng.uniform(0.8, 1.2):.2f}", code)


def _reorder(code: str) -> str:
    """The top-level functions in another order."""
    head, *functions = re.split(r"\n(?=function )", code)
    random.Random(2).shuffle(functions)
    return "\n".join([head, *functions])


_DEAD = ("\nfunction unusedHelper(a, b) {\n  let t = 0;\n  for (let i = 0; i < a; i++) {\n    t += b * i;\n  }\n"
         "  return t;\n}\n")


def _padded(code: str) -> str:
    """A comment every few lines and dead helpers at the end."""
    lines = code.split("\n")
    out = [x for n, line in enumerate(lines) for x in ([line, "  // a note on this part"] if n % 6 == 0 else [line])]
    return "\n".join(out) + _DEAD * 2


def _few_lines(code: str) -> str:
    """Three statements of the drawing changed."""
    lines = code.split("\n")
    body = [n for n, line in enumerate(lines) if "brush." in line or "wash(" in line]
    for n in random.Random(3).sample(body, min(3, len(body))):
        lines[n] = "  brush.circle(300, 300, 12);"
    return "\n".join(lines)


SOURCE_ATTACKS: dict[str, Callable[[str], str]] = {
    "renamed": _rename, "numbers changed": _numbers, "helpers reordered": _reorder,
    "comments and dead code": _padded, "a few lines changed": _few_lines,
    "all of them": lambda c: _few_lines(_padded(_reorder(_rename(c)))),
}


# The held-out check (benchmarks/copies_held_out.py): compound moves with parameters drawn at
# random, on the pool items the tables above do not use, written after the picture threshold was
# set. A seed is run once per detector: the first ("copies-held-out-2026-12-02") found shrinks
# onto paper that the picture side missed, which the framed pool maps answer; the second
# ("copies-held-out-2026-12-03") was drawn after that change. Shrinks onto a backdrop of another
# colour were then found by hand (all but missed before backdrops were told from paper) and
# joined the moves: flat ones first (seed "copies-held-out-2026-12-03-backdrops"), then
# gradients, blotchy backdrops and grain (seed "copies-held-out-2026-12-03-grain": three of its
# misses were grain on faint paintings, which the grain threshold on the ink answers), then seed
# "copies-held-out-2026-12-03-grain-threshold" (three of its misses were blotchy backdrops: two
# behind paintings with no paper margin, one behind a sprig whose backdrop held paper-coloured
# patches, all answered by finding the square by its seam), then seed
# "copies-held-out-2026-12-03-seams" (two of its misses were the seam's square stretched to the
# border past a corner and a backdrop strip under two reduced pixels wide); this seed was drawn
# after the changes they led to.
HELD_OUT_SEED = "copies-held-out-2026-12-03-seam-corners"
_DIHEDRAL = ((0, False), (0, True), (1, False), (2, False), (3, False), (2, True), (1, True), (3, True))


RGB = tuple[int, int, int]


def _paper_of(im: Image.Image) -> RGB:
    """The painting's modal colour (its paper), for the margin a shrunk copy leaves."""
    colours = im.convert("RGB").resize((60, 60)).getcolors(3600)
    return max(colours)[1]


def backdrop(kind: str, rng: random.Random, size: int = 600) -> Image.Image:
    """A backdrop to lay a copy on: "flat" (one colour), "gradient" (two colours, top to bottom or
    left to right) or "blotchy" (a 6 x 6 grid of colours, smoothed), colours drawn from `rng`."""
    def colour() -> np.ndarray:
        return np.array([rng.randint(0, 255) for _ in range(3)], dtype=float)

    if kind == "flat":
        return Image.new("RGB", (size, size), tuple(int(c) for c in colour()))
    if kind == "gradient":
        t = np.linspace(0, 1, size)[:, None, None] * np.ones((size, size, 1))
        a, b = colour(), colour()
        page = (1 - t) * a + t * b
        return Image.fromarray(page.astype(np.uint8)).rotate(90 * rng.randint(0, 1))
    grid = np.array([[colour() for _ in range(6)] for _ in range(6)]).astype(np.uint8)
    return Image.fromarray(grid).resize((size, size), Image.Resampling.BICUBIC).filter(ImageFilter.GaussianBlur(12))


def grain(im: Image.Image, sigma: float, rng: random.Random) -> Image.Image:
    """The picture with Gaussian noise of `sigma` (0-255 levels) on every channel of every pixel."""
    noise = np.random.default_rng(rng.randint(0, 2 ** 31)).normal(0, sigma, (im.height, im.width, 3))
    return Image.fromarray(np.clip(np.asarray(im, dtype=float) + noise, 0, 255).astype(np.uint8))


def _shrunk(im: Image.Image, side: int, at: tuple[int, int], onto: RGB | Image.Image | None = None) -> Image.Image:
    """Shrunk to `side` and laid at `at` on its own paper, a flat colour or a backdrop picture."""
    page = onto.copy() if isinstance(onto, Image.Image) else Image.new("RGB", im.size, onto or _paper_of(im))
    page.paste(im.resize((side, side), Image.Resampling.BICUBIC), at)
    return page


def shrunk_onto_paper(png: bytes, factor: float, at: tuple[int, int], brightness: float = 1.0,
                      onto: RGB | Image.Image | None = None, noise: float = 0.0) -> bytes:
    """The painting shrunk by `factor`, placed at `at` on its own paper (or `onto` a flat colour or
    a backdrop picture), then brightened, then given grain of `noise` levels."""
    with Image.open(io.BytesIO(png)) as src:
        im = src.convert("RGB")
    im = ImageEnhance.Brightness(_shrunk(im, round(im.width * factor), at, onto)).enhance(brightness)
    return as_png(grain(im, noise, random.Random(0)) if noise else im)


def framed(png: bytes, side: int, at: tuple[int, int], width: int = 8, colour: RGB = (20, 20, 60)) -> bytes:
    """The painting with a square frame of `side` px drawn over it at `at`: straight dark edges that
    outweigh the painting's own in an edge map (a policy draws one with a brush in a line or two)."""
    with Image.open(io.BytesIO(png)) as src:
        im = src.convert("RGB")
    ImageDraw.Draw(im).rectangle((*at, at[0] + side, at[1] + side), outline=colour, width=width)
    return as_png(im)


def drawn_image_attack(png: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One compound move of a painting with Pillow, its parameters drawn from `rng`: a turn or
    mirror of the square, then a crop (0.8-1 of each side, anywhere) enlarged back or a shrink
    (0.8-1) placed anywhere on its own paper, a flat colour, a gradient or a blotchy backdrop
    (a quarter of the shrinks each), then a hue turn, a brightness and a contrast change, and on
    half the moves grain (noise of 1-8 levels). Returns the painting and what was done."""
    with Image.open(io.BytesIO(png)) as src:
        im = src.convert("RGB")
    turns, mirror = rng.choice(_DIHEDRAL)
    if mirror:
        im = ImageOps.mirror(im)
    im = im.rotate(90 * turns)
    size, done = im.width, [f"turn {turns}{' mirrored' if mirror else ''}"]
    f = rng.uniform(0.8, 1.0)
    side = round(size * f)
    x, y = rng.randint(0, size - side), rng.randint(0, size - side)
    if rng.random() < 0.5:
        im = im.crop((x, y, x + side, y + side)).resize((size, size), Image.Resampling.BICUBIC)
        done.append(f"crop {f:.2f} at ({x}, {y})")
    else:
        kind = rng.choice(("own paper", "flat", "gradient", "blotchy"))
        im = _shrunk(im, side, (x, y), None if kind == "own paper" else backdrop(kind, rng, size))
        done.append(f"shrink {f:.2f} at ({x}, {y}) onto {kind}")
    hue, bright, contrast = rng.randint(0, 255), rng.uniform(0.75, 1.25), rng.uniform(0.7, 1.2)
    im = ImageEnhance.Contrast(ImageEnhance.Brightness(_hue(im, hue)).enhance(bright)).enhance(contrast)
    done.append(f"hue {hue}, brightness {bright:.2f}, contrast {contrast:.2f}")
    if rng.random() < 0.5:
        sigma = rng.uniform(1, 8)
        im = grain(im, sigma, rng)
        done.append(f"grain {sigma:.1f}")
    return as_png(im), "; ".join(done)


def drawn_sketch_attack(code: str, rng: random.Random) -> tuple[str, str]:
    """One compound move of a pool sketch, drawn from `rng`: a shift of 10-60 px each way, a
    scale of 0.8-1.2 and, on half of them, its colours turned round (the moves p5.brush follows)."""
    dx, dy = rng.choice((-1, 1)) * rng.randint(10, 60), rng.choice((-1, 1)) * rng.randint(10, 60)
    s = rng.uniform(0.8, 1.2)
    moved = _before_translate(f"translate({dx}, {dy}); scale({s:.3f});")(code)
    recolour = rng.random() < 0.5
    return (_recolour(moved) if recolour else moved), \
        f"shift ({dx}, {dy}), scale {s:.2f}{', recoloured' if recolour else ''}"


# -- shape attacks (score/copy_shapes.py) ------------------------------------------------------------
# A pool painting's filled shapes (read off its display list) moved as data and written back as a
# display list of plain calls, the way a sketch that carries the shapes as a literal paints them:
# nothing of the pool's code is left, only its layout. Each is flagged; the twins beside them
# (`SHAPE_TWINS`) keep the shapes and break the layout, and are not.
Polys = list[tuple[np.ndarray, tuple]]


def _similar(polys: Polys, angle: float = 0.0, scale: float = 1.0, mirror: bool = False,
             at: tuple[float, float] = (300, 300)) -> Polys:
    """The shapes turned by `angle` (radians) and scaled about the canvas centre, mirrored first, then
    laid with that centre at `at`."""
    c, s = np.cos(angle) * scale, np.sin(angle) * scale
    turn = np.array([[c, -s], [s, c]]) @ np.diag([-1.0 if mirror else 1.0, 1.0])
    return [((p - 300) @ turn.T + at, fill) for p, fill in polys]


def _thinned(polys: Polys, share: float, rng: random.Random) -> Polys:
    keep = sorted(rng.sample(range(len(polys)), round(len(polys) * (1 - share))))
    return [polys[k] for k in keep]


def _shuffled(polys: Polys, rng: random.Random) -> Polys:
    return rng.sample(polys, len(polys))


def _recoloured(polys: Polys) -> Polys:
    return [(p, (fill[1], fill[2], fill[0])) for p, fill in polys]


def _scrambled(polys: Polys, rng: random.Random) -> Polys:
    """Every shape turned and laid somewhere else at random: the pool's shapes, none of its layout."""
    out = []
    for p, fill in polys:
        a, centre = rng.uniform(0, 2 * np.pi), p.mean(0)
        turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        out.append(((p - centre) @ turn.T + (rng.uniform(80, 520), rng.uniform(80, 520)), fill))
    return out


def _piece(polys: Polys, k: int, of: int) -> Polys:
    """The k-th of `of` equal runs of the shapes, left to right by centroid (their layers kept)."""
    order = sorted(range(len(polys)), key=lambda n: polys[n][0].mean(0)[0])
    run = set(order[k * len(polys) // of:(k + 1) * len(polys) // of])
    return [shape for n, shape in enumerate(polys) if n in run]


SHAPE_ATTACKS: dict[str, Callable[[Polys, random.Random], Polys]] = {
    "replayed": lambda p, r: p,
    "rotated 0.38 rad, scaled 1.22": lambda p, r: _similar(p, 0.38, 1.22),
    "rotated 2.1 rad, scaled 0.8": lambda p, r: _similar(p, 2.1, 0.8, at=(320, 280)),
    "mirrored": lambda p, r: _similar(p, mirror=True),
    "recoloured": lambda p, r: _recoloured(p),
    "reordered": _shuffled,
    "thinned 30 %": lambda p, r: _thinned(p, 0.3, r),
    "all at once": lambda p, r: _shuffled(_thinned(_recoloured(_similar(p, -1.1, 0.9, True)), 0.3, r), r),
}
SHAPE_TWINS: dict[str, Callable[[Polys, random.Random], Polys]] = {
    "scrambled": _scrambled,
    "its five largest shapes": lambda p, r: sorted(p, key=lambda s: -np.ptp(s[0], 0).prod())[:5],
}


def spliced(parts: list[Polys], rng: random.Random) -> Polys:
    """Run k of the k-th painting's shapes, each turned and scaled its own way."""
    out: Polys = []
    for k, polys in enumerate(parts):
        out += _similar(_piece(polys, k, len(parts)), rng.uniform(-3, 3), rng.uniform(0.8, 1.2),
                        rng.random() < 0.5, (rng.uniform(260, 340), rng.uniform(260, 340)))
    return out


def _hex(fill: tuple) -> str:
    return "#" + "".join(f"{int(round(c)):02x}" for c in fill[:3])


def display_list(polys: Polys) -> str:
    """The shapes as the display list of a sketch that paints them from a literal."""
    ops = [["translate", -300, -300], ["brush.noStroke"]]
    for p, fill in polys:
        ops += [["brush.fill", _hex(fill), 180], ["brush.beginShape", 0.7]]
        ops += [["brush.vertex", float(x), float(y)] for x, y in p] + [["brush.endShape", "close"]]
    return json.dumps({"setup": [], "draw": ops})


def literal_sketch(polys: Polys) -> str:
    """A sketch that paints the shapes from a data literal (no code in common with the pool's)."""
    data = json.dumps([[_hex(fill), [[round(float(x), 2), round(float(y), 2)] for x, y in p]] for p, fill in polys])
    return ("function setup() {\n  createCanvas(600, 600, WEBGL);\n  noLoop();\n}\n\nconst SHAPES = " + data + ";\n\n"
            "function draw() {\n  translate(-width / 2, -height / 2);\n  background(250, 245, 235);\n"
            "  brush.noStroke();\n  for (const [c, pts] of SHAPES) {\n    brush.fill(c, 180);\n"
            "    brush.fillBleed(0.3);\n    brush.fillTexture(0.5, 0.6);\n    brush.beginShape(0.7);\n"
            "    for (const [x, y] of pts) brush.vertex(x, y);\n    brush.endShape(CLOSE);\n  }\n}\n")


def reseeded(code: str, seed: int) -> str:
    """The pool sketch with its random and noise seeds changed: the same sketch, other random draws."""
    return re.sub(r"\b(randomSeed|noiseSeed)\((\d+)\)", lambda m: f"{m.group(1)}({int(m.group(2)) + seed})", code)


def recut(polys: Polys) -> Polys:
    """Every shape cut in two through its centre, both halves in its colour: the same regions
    painted, none of the pool's shapes left whole (what the shape side matches shape by shape)."""
    out: Polys = []
    for p, fill in polys:
        centre, half = p.mean(0), len(p) // 2
        out += [(np.vstack([p[:half + 1], centre]), fill), (np.vstack([p[half:], p[:1], centre]), fill)]
    return out
