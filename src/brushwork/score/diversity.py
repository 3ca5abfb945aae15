"""Diversity within a GRPO group: how many of its group-mates each painting nearly duplicates,
and the term that pays a crowded composition less.

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
its paint elsewhere. Two paintings count as distinct by a ramp from 0 at `DUPLICATE` apart to 1
at `DISTINCT` (`value_of`; both set on rendered attacks and honest twins, tests/test_diversity.py,
benchmarks/RESULTS.md "Diversity"), and a member's value is the share of its group-mates it is
distinct from (`crowding`): a composition held by k of a group's n passed members pays each
1 - (k-1)/(n-1). Read as an expectation, a composition drawn with probability p earns about
1 - p, so the group's mean is the Gini-Simpson diversity of its compositions and GRPO's advantage
moves probability from a crowded composition to a rarer one at every group, not only where a
member happens to be alone (the nearest-group-mate rule it replaces paid a 5-3 split nothing).
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
DUPLICATE = 0.05   # distance at or below which two paintings are one composition (value_of 0)
DISTINCT = 0.09    # distance from which they are distinct (value_of 1)


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


def value_of(apart: float) -> float:
    """How distinct two paintings `apart` away count: 0 a duplicate (at or below DUPLICATE) .. 1
    distinct (from DISTINCT)."""
    return float(np.clip((apart - DUPLICATE) / (DISTINCT - DUPLICATE), 0.0, 1.0))


def crowding(apart: list[float]) -> float:
    """The term's value for a painting at these distances from its group-mates (and remembered
    paintings): the share of them it is distinct from; 1 alone."""
    return float(np.mean([value_of(d) for d in apart])) if apart else 1.0


class DiversityTerm(Term):
    """Declares the diversity term: its weight comes from the reward's weights like any term's,
    and `adjust_group` sets its value once the group is known (alone it is 1)."""

    name = "diversity"
    help = "weight of within-group diversity: a painting earns the share of its group-mates it does not duplicate"

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
    """One group's cards with the diversity term set: each passed painting's distances to its
    passed group-mates (and to the remembered best paintings of `key`), the term's value the
    share of them it is distinct from (`crowding`), the total recomputed. Cards that do not
    weigh the term, failed the gate (0 stays 0) or have no total (None: ignored, never a
    neighbour) come back unchanged."""
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
        out[i] = _with_diversity(cards[i], near)
    if memory is not None:
        best = max(members, key=lambda i: out[i].total)
        memory.keep(key, looks[best])
    return out


def _with_diversity(card, near: list[tuple[float, str]]):
    from brushwork.score.reward import total  # reward's presets import this module by name

    value = crowding([d for d, _ in near])
    terms = {**card.terms, "diversity": value}
    if near:
        apart, who = min(near)
        copies = sum(value_of(d) == 0.0 for d, _ in near)
        note = (f"distinct from {value:.0%} of {len(near)} (a duplicate of {copies}); nearest: {who}, "
                f"{apart:.2f} apart (0 the same, duplicate at {DUPLICATE}, distinct from {DISTINCT})")
    else:
        note = "no group-mate passed"
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
