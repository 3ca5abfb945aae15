"""The strict train / eval split: evaluation paintings never serve as references.

Splits are disjoint by exact hash (the same image or the same sketch) and by near-duplicate
(a perceptual difference hash within a Hamming distance): near-duplicates are grouped and a
group always lands on one side. `find_leaks` names every pair that crosses the split.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image

from brushwork.errors import ConfigError
from brushwork.pool.store import Item, PoolStore

DEFAULT_THRESHOLD = 6  # bits of 64


def dhash(png: bytes, size: int = 8) -> int:
    """64-bit difference hash: robust to small changes in colour, noise and scale."""
    with Image.open(io.BytesIO(png)) as im:
        g = np.asarray(im.convert("L").resize((size + 1, size), Image.LANCZOS), dtype=np.int16)
    bits = (g[:, 1:] > g[:, :-1]).ravel()
    return int("".join("1" if b else "0" for b in bits), 2)


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


@dataclass(frozen=True)
class Leak:
    train: str
    eval: str
    reason: str

    def __str__(self) -> str:
        return f"train {self.train} ~ eval {self.eval}: {self.reason}"


def _hashes(store: PoolStore, items: list[Item]) -> dict[str, int]:
    return {it.id: dhash(store.image_bytes(it)) for it in items}


def _related(a: Item, b: Item, ha: int, hb: int, threshold: int) -> str | None:
    if a.image == b.image:
        return "identical image"
    if a.source and a.source == b.source:
        return "identical sketch"
    d = hamming(ha, hb)
    if d <= threshold:
        return f"near-duplicate images (perceptual hash distance {d} <= {threshold})"
    return None


def find_leaks(store: PoolStore, threshold: int = DEFAULT_THRESHOLD) -> list[Leak]:
    train, evals = store.items("train"), store.items("eval")
    hashes = _hashes(store, train + evals)
    leaks = []
    for e in evals:
        for t in train:
            reason = _related(t, e, hashes[t.id], hashes[e.id], threshold)
            if reason:
                leaks.append(Leak(t.id, e.id, reason))
    return leaks


def _groups(store: PoolStore, items: list[Item], threshold: int) -> list[list[Item]]:
    hashes = _hashes(store, items)
    parent = {it.id: it.id for it in items}

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if _related(a, b, hashes[a.id], hashes[b.id], threshold):
                parent[root(a.id)] = root(b.id)
    groups: dict[str, list[Item]] = {}
    for it in items:
        groups.setdefault(root(it.id), []).append(it)
    return sorted(groups.values(), key=lambda g: min(i.id for i in g))


def assign_split(store: PoolStore, eval_fraction: float = 0.2, seed: int = 0,
                 threshold: int = DEFAULT_THRESHOLD) -> dict[str, int]:
    """Re-split the store: about `eval_fraction` of each tier to eval, near-duplicate groups kept whole."""
    if not 0 <= eval_fraction < 1:
        raise ConfigError(f"eval_fraction must be in [0, 1), got {eval_fraction}: give the share of each tier "
                          "to move to eval, such as 0.2")
    rng = random.Random(seed)
    by_tier: dict[str, list[list[Item]]] = {}
    for group in _groups(store, store.items(), threshold):
        tier = store.tier_of(group[0].id) or "unrated"
        by_tier.setdefault(tier, []).append(group)
    counts = {"train": 0, "eval": 0}
    for _tier, groups in sorted(by_tier.items()):
        rng.shuffle(groups)
        total = sum(len(g) for g in groups)
        target, taken = round(eval_fraction * total), 0
        for group in groups:
            split = "eval" if taken + len(group) <= target and target > 0 else "train"
            taken += len(group) if split == "eval" else 0
            for it in group:
                store.set_split(it.id, split)
                counts[split] += 1
    return counts
