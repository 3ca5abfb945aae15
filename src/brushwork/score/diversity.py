"""Diversity within a GRPO group: how near each painting's nearest group-mate is, and the term
that pays a near-duplicate less.

A group (the completions of one prompt at one training step) is known only where it is
collected, so diversity is a *group-level adjustment*: `DiversityTerm` is the term's
declaration (its name and weight in the reward's `Weights`; a painting scored alone has no
group-mate and is worth 1), and `adjust_group` rewrites the cards of one group once all of them
are scored (`brushwork.train.rewards.BrushworkReward`, in-process and remote alike).

Similarity is measured on what was painted, never on the sketch's text: each painting becomes a
blurred CIE Lab thumbnail with a paint weight per cell (how far the cell is from the paper), and
two paintings differ by the mean colour difference over the cells where either painted
(`distance`), the best of small shifts and the mirror image. Blurring, shifting and capping the
colour difference are what make noise useless: a duplicate whose coordinates move a few pixels,
whose colours move a few units, whose strokes are laid in another order or that adds a few tiny
strokes stays near its original, while a painting of the same subject laid out differently puts
its paint elsewhere. A member's value ramps from 0 at `DUPLICATE` (distance to its nearest
group-mate) to 1 at `DISTINCT`; both were set on rendered attacks and honest twins
(tests/test_diversity.py, benchmarks/RESULTS.md "Diversity").
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass

import numpy as np

from brushwork.core.features import _lab
from brushwork.core.images import thumbnail_rgb
from brushwork.score.terms import Canvas, Term, Value

GRID = 24          # thumbnail cells a side (a 600 px canvas: 25 px a cell)
BLUR = 1           # box blur radius in cells
SHIFT = 1          # cells a duplicate may be moved and still be compared in place
CAP = 40.0         # CIE ΔE at which two cells count as wholly different
TEXTURE = 10.0     # CIE ΔE two cells may differ by as texture (a wash's mottling): counted as the same
PAINT_DE = 4.0     # ΔE from the paper below which a cell is paper
DUPLICATE = 0.05   # distance to the nearest group-mate at or below which the term pays 0
DISTINCT = 0.09    # distance from which it pays 1


@dataclass(frozen=True)
class Look:
    """What a painting looks like to the diversity measure: blurred Lab cells and their paint
    weight (0 paper, 1 clearly painted)."""

    lab: np.ndarray      # GRID x GRID x 3
    paint: np.ndarray    # GRID x GRID in 0..1


def look(png: bytes) -> Look:
    """A painting's `Look`: its paper is its most common colour, its paint what differs from it."""
    lab = _lab(thumbnail_rgb(png, GRID * 4))
    quant = np.round(lab / 4).astype(np.int64)
    packed = (quant[..., 0] * 100_000 + (quant[..., 1] + 100) * 300 + quant[..., 2] + 100).ravel()
    values, counts = np.unique(packed, return_counts=True)
    paper = lab.reshape(-1, 3)[packed == values[np.argmax(counts)]].mean(axis=0)
    cells = lab.reshape(GRID, 4, GRID, 4, 3).mean(axis=(1, 3))
    cells = _blur(cells)
    paint = np.clip((np.linalg.norm(cells - paper, axis=-1) - PAINT_DE) / PAINT_DE, 0.0, 1.0)
    return Look(cells, paint)


def _blur(a: np.ndarray) -> np.ndarray:
    p = np.pad(a, ((BLUR, BLUR), (BLUR, BLUR), (0, 0)), mode="edge")
    n = 2 * BLUR + 1
    return sum(p[dy:dy + GRID, dx:dx + GRID] for dy in range(n) for dx in range(n)) / (n * n)


def distance(a: Look, b: Look) -> float:
    """How differently two paintings are laid out, in 0 (the same) .. 1: the capped colour
    difference averaged over the cells either painted, at the best shift of up to SHIFT cells,
    as it is or mirrored."""
    best = 1.0
    for lab, paint in ((b.lab, b.paint), (b.lab[:, ::-1], b.paint[:, ::-1])):
        for dy in range(-SHIFT, SHIFT + 1):
            for dx in range(-SHIFT, SHIFT + 1):
                best = min(best, _aligned(a, np.roll(lab, (dy, dx), (0, 1)), np.roll(paint, (dy, dx), (0, 1))))
    return best


def _aligned(a: Look, lab: np.ndarray, paint: np.ndarray) -> float:
    m = SHIFT   # np.roll wraps: the border cells compare opposite edges
    weight = np.maximum(a.paint, paint)[m:-m, m:-m]
    if weight.sum() < 1e-9:
        return 0.0                       # both bare paper: nothing tells them apart
    diff = np.clip((np.linalg.norm(a.lab - lab, axis=-1)[m:-m, m:-m] - TEXTURE) / (CAP - TEXTURE), 0.0, 1.0)
    return float((weight * diff).sum() / weight.sum())


def value_of(nearest: float | None) -> float:
    """The term's value for a painting whose nearest group-mate is `nearest` away (None: alone)."""
    if nearest is None:
        return 1.0
    return float(np.clip((nearest - DUPLICATE) / (DISTINCT - DUPLICATE), 0.0, 1.0))


class DiversityTerm(Term):
    """Declares the diversity term: its weight comes from the reward's weights like any term's,
    and `adjust_group` sets its value once the group is known (alone it is 1)."""

    name = "diversity"
    help = "weight of within-group diversity: a near-duplicate of a group-mate earns less of it"

    def __init__(self, setup):
        pass

    async def __call__(self, canvas: Canvas) -> Value:
        return Value(1.0, note="no group-mate scored beside it")


class Memory:
    """The looks of the best paintings of recent steps, per prompt (`size` each): a painting
    near one of them counts as near a group-mate, so a group cannot escape by all moving to
    last step's winner."""

    def __init__(self, size: int = 0):
        self.size = size
        self._kept: dict[str, deque[Look]] = {}

    def recall(self, key: str) -> list[Look]:
        return list(self._kept.get(key, ()))

    def keep(self, key: str, best: Look) -> None:
        if self.size > 0:
            self._kept.setdefault(key, deque(maxlen=self.size)).append(best)


def adjust_group(cards: list, pngs: list[bytes | None], memory: Memory | None = None, key: str = "") -> list:
    """One group's cards with the diversity term set: each passed painting's distance to its
    nearest passed group-mate (and to the remembered best paintings of `key`), the term's value
    from it, the total recomputed. Cards that do not weigh the term, failed the gate (0 stays 0)
    or have no total (None: ignored, never a neighbour) come back unchanged."""
    members = [i for i, (c, png) in enumerate(zip(cards, pngs))
               if c.passed and c.total is not None and png is not None and c.weights.get("diversity", 0) > 0]
    if not members:
        return list(cards)
    looks = {i: look(pngs[i]) for i in members}
    remembered = memory.recall(key) if memory else []
    out = list(cards)
    for i in members:
        near = [(distance(looks[i], looks[j]), f"group-mate {j}") for j in members if j != i]
        near += [(distance(looks[i], old), "a recent step's best") for old in remembered]
        nearest = min(near, default=None)
        out[i] = _with_diversity(cards[i], nearest)
    if memory is not None:
        best = max(members, key=lambda i: out[i].total)
        memory.keep(key, looks[best])
    return out


def _with_diversity(card, nearest: tuple[float, str] | None):
    from brushwork.score.reward import total  # reward's presets import this module by name

    value = value_of(nearest[0] if nearest else None)
    terms = {**card.terms, "diversity": value}
    note = (f"nearest: {nearest[1]}, {nearest[0]:.2f} apart (0 the same, "
            f"duplicate at {DUPLICATE}, distinct from {DISTINCT})") if nearest else "no group-mate passed"
    return dataclasses.replace(card, terms=terms, total=total(card.weights, True, terms),
                               term_notes={**card.term_notes, "diversity": note})


def pairwise(pngs: list[bytes]) -> list[float]:
    """Every pairwise distance among these paintings (evaluation's within-group diversity)."""
    looks = [look(p) for p in pngs]
    return [distance(looks[i], looks[j]) for i in range(len(looks)) for j in range(i + 1, len(looks))]


def compositions(pngs: list[bytes]) -> int:
    """How many distinct compositions these paintings hold: clusters whose members are within
    DUPLICATE of one another (single linkage, so a chain of near-duplicates is one)."""
    looks = [look(p) for p in pngs]
    parent = list(range(len(looks)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(looks)):
        for j in range(i + 1, len(looks)):
            if distance(looks[i], looks[j]) <= DUPLICATE:
                parent[root(i)] = root(j)
    return len({root(i) for i in range(len(looks))})
