"""How well a pool covers each task domain: the table (`coverage`) and what a task domain lacks
(`coverage_problems`).

The judge draws its references from the task's domain (`brushwork.score.references`); a domain
with too few rated training paintings borrows references from other domains, which judges a
landscape on drawing it was never asked for. A domain serves its tasks alone with `MIN_PER_SIDE`
loved and `MIN_PER_SIDE` other (okay or nope) training paintings: one more than the default mix
draws of a tier (love:2, okay:2), so one task's references still vary with the seed.
`brushwork pool report` shows the table; `brushwork serve` and `brushwork train` refuse or warn
at start about the domains they will ask for.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brushwork.pool.folder import Pool

MIN_PER_SIDE = 3
TIER_ORDER = ("love", "okay", "nope")


@dataclass(frozen=True)
class Coverage:
    """What the pool's training split holds of one domain, per tier."""

    domain: str
    tiers: dict[str, int]
    eval: dict[str, int]

    @property
    def loved(self) -> int:
        return self.tiers.get("love", 0)

    @property
    def others(self) -> int:
        return sum(n for t, n in self.tiers.items() if t != "love")

    def serves(self, minimum: int = MIN_PER_SIDE) -> bool:
        return self.loved >= minimum and self.others >= minimum

    def describe(self) -> str:
        held = ", ".join(f"{n} {t}" for t, n in self.tiers.items() if n) or "no paintings"
        return f"{held} in its training split"


def coverage(pool: Pool) -> dict[str, Coverage]:
    """Per domain ("" for paintings without one): training and evaluation counts per tier."""
    table: dict[str, Coverage] = {}
    for domain in sorted({i.domain for i in pool.items}):
        counts = {split: Counter(i.tier for i in pool.split(split) if i.domain == domain)
                  for split in ("train", "eval")}
        tiers = sorted(set(counts["train"]) | set(counts["eval"]), key=_tier_rank)
        table[domain] = Coverage(domain, {t: counts["train"][t] for t in tiers},
                                 {t: counts["eval"][t] for t in tiers})
    return table


def _tier_rank(tier: str) -> tuple[int, str]:
    return (TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER), tier)


def coverage_problems(pool: Pool, domains, minimum: int = MIN_PER_SIDE) -> list[str]:
    """One message per task domain the pool cannot serve from its own paintings: what it has
    and what to do."""
    table = coverage(pool)
    problems = []
    for domain in domains:
        cov = table.get(domain) or Coverage(domain, {}, {})
        if cov.serves(minimum):
            continue
        problems.append(
            f"the pool ({pool.root}) cannot judge {domain!r} tasks on their own domain: it has {cov.describe()}, "
            f"and the judge needs at least {minimum} loved and {minimum} other (okay or nope) {domain!r} "
            f"training paintings, or it borrows references from other domains. Rate more {domain} paintings into "
            f"the pool (`brushwork pool rate`), or restrict the tasks' domains (brushwork train --domains "
            f"{','.join(d for d in domains if d != domain) or 'DOMAIN'}; a server's clients: reset(domain=...))")
    return problems
