"""Assembling a sketch: constants, helpers, the draw body, and colour helpers."""

from __future__ import annotations

import colorsys
import random
from dataclasses import dataclass, field
from math import cos, sin

from brushwork.painter.data import library


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
