"""Copy detection: a painting that nearly duplicates a pool painting must not win by it.

A policy warmed up on pool sources (or one that finds a reference's sketch) could reproduce
the references the judge compares against and win every comparison. Every painting that passed
the gate is compared with every pool painting, in every split, by the perceptual difference
hash the strict split uses (`pool.split.dhash`), on a 16 x 16 grid: within `copy_distance` bits
of 256 it is a copy. Measured on the example pool: distinct paintings sit at least 8 bits apart
(the coarser 8 x 8 hash put three near-empty `nope` paintings 4 bits apart); the same sketch at
another seed, or a copy darkened and rescaled, mostly within 0-4.
The ScoreCard names it (`copy_of`: pool id and distance) and, unless `judge_copies` is set, the
judge term is 0 without asking the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from brushwork.errors import ConfigError
from brushwork.pool import Pool
from brushwork.pool.split import dhash, hamming

HASH_SIZE = 16            # a 256-bit hash
DEFAULT_DISTANCE = 6      # bits of 256


@dataclass(frozen=True)
class Copy:
    id: str          # the pool painting it nearly duplicates
    distance: int    # perceptual-hash bits that differ (0: the same picture)


class CopyDetector:
    def __init__(self, pool: Pool, distance: int = DEFAULT_DISTANCE):
        if not 0 <= distance <= HASH_SIZE ** 2:
            raise ConfigError(f"copy_distance must be between 0 and {HASH_SIZE ** 2} bits (or -1: off), got {distance}")
        self.distance = distance
        self.hashes = {item.id: dhash(item.image_bytes(), HASH_SIZE) for item in pool.items}

    def match(self, png: bytes) -> Copy | None:
        """The nearest pool painting within the distance, or None."""
        h = dhash(png, HASH_SIZE)
        nearest = min(((hamming(h, other), pid) for pid, other in self.hashes.items()), default=None)
        if nearest is None or nearest[0] > self.distance:
            return None
        return Copy(nearest[1], nearest[0])
