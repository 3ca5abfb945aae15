"""Which pool paintings a painting is judged against: `pick_references`, the one picker.

The reward's judge (training split) and evaluation (evaluation split) both draw here. For a task
of domain D and subject S, each tier of the mix is filled from the pool's paintings of that tier
in the split, in this order of preference:

1. paintings of domain D whose subject is S (articles and case aside: "a peach hibiscus" is the
   pool's "peach hibiscus");
2. the other paintings of domain D;
3. paintings of other domains, only when D has too few, and the `References` say why (`reason`).

Within each group the draw is seeded by (pool snapshot, seed), so the same task, seed and pool
give the same references everywhere. A painting of another domain is a poor yardstick (a
landscape judged against hibiscus is judged on drawing it was never asked for), so
`brushwork.pool.coverage` says how many training paintings each domain has and how many a domain
needs before its tasks are served from it alone; `brushwork serve` and `brushwork train` check it
at start.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brushwork.errors import ConfigError

if TYPE_CHECKING:
    from brushwork.pool import Pool, PoolItem

DEFAULT_MIX = (("love", 2), ("okay", 2))
_ARTICLES = ("a ", "an ", "the ")


@dataclass(frozen=True)
class References:
    """The drawn paintings, the domain they were drawn for, and why any came from elsewhere."""

    items: tuple[PoolItem, ...]
    domain: str = ""
    reason: str = ""          # empty when every reference is of the task's domain (or none was asked)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def same_subject(a: str, b: str) -> bool:
    """"a peach hibiscus" and "Peach hibiscus" name the same subject."""
    return bool(a) and _plain(a) == _plain(b)


def _plain(subject: str) -> str:
    text = " ".join(subject.lower().split())
    for article in _ARTICLES:
        if text.startswith(article):
            return text[len(article):]
    return text


def infer_domain(pool: Pool, subject: str) -> str:
    """The domain of the pool's paintings of `subject`, or the pool domain the subject names
    ("a coral hibiscus" -> hibiscus); "" when neither says (a caller that knows the task's
    domain passes it instead)."""
    if not subject:
        return ""
    named = Counter(i.domain for i in pool.items if i.domain and same_subject(i.subject, subject))
    if named:
        return named.most_common(1)[0][0]
    words = set(_plain(subject).split())
    return next((d for d in sorted({i.domain for i in pool.items if i.domain}) if d in words), "")


def pick_references(pool: Pool, mix=DEFAULT_MIX, seed: int | str = 0, domain: str = "", subject: str = "",
                    split: str = "train", partial: bool = False) -> References:
    """`mix` ((tier, count), ...) paintings of the `split`, the task's domain and subject first
    (the module docstring). A tier the whole split holds too few of is a ConfigError, unless
    `partial` (evaluation: all of a tier when it has fewer)."""
    domain = domain or infer_domain(pool, subject)
    tiers = pool.by_tier(split)
    rng = random.Random(f"{pool.snapshot}:{seed}")
    drawn: list[PoolItem] = []
    short: list[str] = []
    for tier, count in mix:
        available = sorted(tiers.get(tier, []), key=lambda i: i.id)
        if len(available) < count and not partial:
            raise ConfigError(f"the pool's {split} split has {len(available)} {tier!r} paintings; the reference "
                              f"mix needs {count}: rate more paintings {tier!r} or lower the mix (--reference-mix)")
        groups = _groups(available, domain, subject)
        picked = _draw(groups, min(count, len(available)), rng)
        if domain and (own := sum(i.domain == domain for i in picked)) < len(picked):
            short.append(f"{own} of {len(picked)} {tier!r}")
        drawn.extend(picked)
    if any(item.split != split for item in drawn):   # by construction impossible; the contract's guard
        raise ConfigError(f"refusing to use a painting outside the {split!r} split as a reference")
    reason = ""
    if short:
        reason = (f"the pool's {split} split has too few {domain!r} paintings ({', '.join(short)} references "
                  f"are of that domain); the rest come from other domains")
    return References(tuple(drawn), domain, reason)


def _groups(items: list[PoolItem], domain: str, subject: str) -> list[list[PoolItem]]:
    """The tier's paintings in order of preference: same domain and subject, same domain, the rest."""
    if not domain:
        return [items]
    mine = [i for i in items if i.domain == domain]
    named = [i for i in mine if same_subject(i.subject, subject)]
    return [named, [i for i in mine if i not in named], [i for i in items if i.domain != domain]]


def _draw(groups: list[list[PoolItem]], count: int, rng: random.Random) -> list[PoolItem]:
    picked: list[PoolItem] = []
    for group in groups:
        take = min(count - len(picked), len(group))
        picked.extend(rng.sample(group, take))
    return picked
