"""Colour adherence offline: the colour a task asked for against the colour its painting shows.

The colour asked is the first colour word of the task's subject ("a yellow hibiscus" -> yellow,
"a white hibiscus with a red eye" -> white; "a fern frond" asks none). The colour seen is read
from the paint, not the paper: the painting's paper is its most common colour, its paint every
pixel that differs from it, weighted by how much; foliage hues (green, `FOLIAGE`) are support,
not the subject, unless green is what was asked. A hue is asked and seen in CIE LCh (perceptual:
equal steps look alike): the term is the share of the remaining paint within `HUE_NEAR` degrees
of the asked hue and of some chroma, ramped so that `FULL` of it pays 1. White and cream are
asked by lightness and chroma, not hue: pale paint of low chroma (and paint lighter than its
paper) is theirs. A subject that names no colour pays 1 (nothing to miss). The card's note says
what was asked and what the paint shows (its dominant named colour and the share that matched).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from brushwork.core.features import _lab
from brushwork.core.images import thumbnail_rgb
from brushwork.score.terms import Canvas, Term, Value

SIZE = 128          # thumbnail side the paint is read at
PAINT_DE = 6.0      # CIE ΔE from the paper from which a pixel is paint
CHROMA = 12.0       # chroma from which paint has a hue
HUE_NEAR = 15.0     # degrees of hue within which paint is the asked colour (ramping to 0 at twice it)
FULL = 0.5          # share of the subject's paint in the asked colour that pays 1
FULL_PALE = 0.2     # the same for white and cream: pale paint on pale paper is mostly seen at its edges
PALE_CHROMA = 6.0   # chroma up to which light paint is white
FOLIAGE = (100.0, 200.0)   # hue range (degrees) of leaves and stems: support, not the subject

# Named colours by their CIE LCh hue in degrees (None: achromatic, asked by lightness).
HUES: dict[str, float | None] = {
    "red": 35.0, "crimson": 25.0, "scarlet": 40.0, "coral": 45.0, "peach": 55.0, "apricot": 60.0,
    "orange": 60.0, "yellow": 90.0, "golden": 80.0, "green": 135.0, "blue": 260.0, "purple": 310.0,
    "violet": 300.0, "lilac": 310.0, "magenta": 340.0, "pink": 355.0, "rose": 5.0,
    "white": None, "cream": None, "ivory": None,
}
SEEN_NAMES = ("red", "coral", "peach", "yellow", "green", "blue", "purple", "magenta", "pink", "white")


@dataclass(frozen=True)
class Seen:
    """What the paint shows: the share of it in the asked colour and its dominant named colour."""

    share: float | None          # None: no paint to read
    dominant: str


def asked_colour(subject: str) -> str | None:
    """The first colour word of a subject, or None when it names none."""
    for word in re.findall(r"[a-z]+", subject.lower()):
        if word in HUES:
            return word
    return None


def _paint(png: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Lab pixels of the paint, their weights, the paper's Lab)."""
    lab = _lab(thumbnail_rgb(png, SIZE)).reshape(-1, 3)
    quant = np.round(lab / 3).astype(np.int64)
    packed = quant[:, 0] * 1_000_000 + (quant[:, 1] + 200) * 1000 + quant[:, 2] + 200
    values, counts = np.unique(packed, return_counts=True)
    paper = lab[packed == values[np.argmax(counts)]].mean(axis=0)
    dev = np.linalg.norm(lab - paper, axis=1)
    weight = np.clip((dev - PAINT_DE) / PAINT_DE, 0.0, 1.0)
    keep = weight > 0
    return lab[keep], weight[keep], paper


def _hue(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.degrees(np.arctan2(lab[:, 2], lab[:, 1])) % 360, np.hypot(lab[:, 1], lab[:, 2])


def _near(hue: np.ndarray, target: float) -> np.ndarray:
    gap = np.abs((hue - target + 180) % 360 - 180)
    return np.clip(2 - gap / HUE_NEAR, 0.0, 1.0)


def _pale(lab: np.ndarray, chroma: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """White paint: light and of low chroma, or lighter than its paper."""
    return ((lab[:, 0] >= 60) & (chroma <= PALE_CHROMA)) | (lab[:, 0] > paper[0] + 2)


def seen(png: bytes, colour: str) -> Seen:
    """The share of the subject's paint (foliage aside, unless `colour` is green) in `colour`."""
    lab, weight, paper = _paint(png)
    hue, chroma = _hue(lab)
    if colour != "green":
        support = (chroma >= CHROMA) & (hue >= FOLIAGE[0]) & (hue <= FOLIAGE[1])
        lab, weight, hue, chroma = lab[~support], weight[~support], hue[~support], chroma[~support]
    if weight.sum() < 1e-6:
        return Seen(None, "bare paper")
    pale = _pale(lab, chroma, paper)

    def share_of(name: str) -> float:
        target = HUES[name]
        match = pale if target is None else (chroma >= CHROMA) * _near(hue, target)
        return float((weight * match).sum() / weight.sum())

    shares = {name: share_of(name) for name in SEEN_NAMES}
    share = share_of(colour)
    # white is judged on its own, smaller, share (`FULL_PALE`): compare each name on its scale
    return Seen(share, max(shares, key=lambda n: shares[n] / (FULL_PALE if HUES[n] is None else FULL)))


def adherence(png: bytes, subject: str) -> tuple[float, str]:
    """The term's value and the card's note for a painting of `subject`."""
    colour = asked_colour(subject)
    if colour is None:
        return 1.0, "no colour asked"
    got = seen(png, colour)
    if got.share is None:
        return 0.0, f"asked {colour}, seen bare paper"
    full = FULL_PALE if HUES[colour] is None else FULL
    return min(1.0, got.share / full), f"asked {colour}, seen mostly {got.dominant} ({got.share:.0%} {colour})"


class AdherenceTerm(Term):
    """Whether the painting shows the colour its task asked for, read offline from the paint."""

    name = "adherence"
    help = "weight of colour adherence: the paint's share in the colour the task asked for"

    def __init__(self, setup):
        pass

    async def __call__(self, canvas: Canvas) -> Value:
        value, note = adherence(canvas.png, canvas.subject)
        return Value(value, note=note)
