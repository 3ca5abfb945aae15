"""Judge consistency (the recipe's open question): the same pairs, twice, in both orders.

- repeat agreement: the same ordered question answered the same way twice;
- order consistency: the verdict survives swapping the images;
- position-bias rate: how often the first-shown image wins in BOTH orders (the order, not
  the painting, decided); first-wins rate: share of decisive answers naming the first image;
- tie rate; agreement with tiers: on cross-tier pairs, the order-averaged verdict agrees
  with the pool's rating.

`human_audit` measures agreement with people instead, on held-out paintings only.
"""

from __future__ import annotations

import asyncio
import itertools
import random

import numpy as np

from brushwork.core.stats import painting_interval
from brushwork.errors import ConfigError
from brushwork.pool import TIERS, Pool
from brushwork.score.judge import PairwiseJudge


def _pairs(pool: Pool, n: int, seed: int):
    items = sorted(pool.items, key=lambda i: i.id)
    candidates = list(itertools.combinations(items, 2))
    rng = random.Random(seed)
    rng.shuffle(candidates)
    return candidates[:n]


async def audit(judge: PairwiseJudge, pool: Pool, n_pairs: int = 24, seed: int = 0, repeats: int = 2,
                subject: str = "a loose watercolour flower") -> dict:
    backend, prompt = judge.backend, judge.prompt
    pairs = _pairs(pool, n_pairs, seed)

    async def ask(first, second):   # through the judge's schema and its retries, never its cache
        return (await judge.ask(first.image_bytes(), second.image_bytes(), subject)).winner

    jobs = [(p, r, o) for p in range(len(pairs)) for r in range(repeats) for o in ("ab", "ba")]
    answers = await asyncio.gather(*(ask(*(pairs[p] if o == "ab" else pairs[p][::-1])) for p, r, o in jobs))
    got = {(p, r, o): a for (p, r, o), a in zip(jobs, answers)}
    parsed = [a for a in answers if a is not None]

    def a_view(winner, order):  # the verdict from the first painting of the pair's point of view
        if winner in (None, "tie"):
            return winner
        return "a" if (winner == "first") == (order == "ab") else "b"

    same_repeat = [got[p, 0, o] == got[p, r, o] for p, r, o in got if r > 0 and got[p, 0, o] is not None
                   and got[p, r, o] is not None]
    consistent, first_both, both_parsed = [], 0, 0
    for p in range(len(pairs)):
        for r in range(repeats):
            ab, ba = got[p, r, "ab"], got[p, r, "ba"]
            if ab is None or ba is None:
                continue
            both_parsed += 1
            consistent.append(a_view(ab, "ab") == a_view(ba, "ba"))
            first_both += ab == "first" and ba == "first"
    rank = {t: i for i, t in enumerate(TIERS)}
    agree = []
    for p, (a, b) in enumerate(pairs):
        if a.tier == b.tier or a.tier not in rank or b.tier not in rank:
            continue
        score = [1.0 if a_view(got[p, r, o], o) == "a" else 0.5 if got[p, r, o] == "tie" else 0.0
                 for r in range(repeats) for o in ("ab", "ba") if got[p, r, o] is not None]
        if score:
            agree.append((sum(score) / len(score) > 0.5) == (rank[a.tier] < rank[b.tier]))
    decisive = [a for a in parsed if a != "tie"]
    rate = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    return {
        "judge": backend.model_id, "prompt": prompt.version, "pairs": len(pairs), "asked": len(answers),
        "parsed_rate": len(parsed) / len(answers) if answers else float("nan"),
        "repeat_agreement": rate(same_repeat), "order_consistency": rate(consistent),
        "position_bias_rate": first_both / both_parsed if both_parsed else float("nan"),
        "first_wins_rate": rate([a == "first" for a in decisive]),
        "tie_rate": rate([a == "tie" for a in parsed]), "agreement_with_tiers": rate(agree),
    }


# -- agreement with people, on held-out paintings only -------------------------------------------
HELD_OUT = "eval"
ARTIFACTSBENCH_AGREEMENT = 0.9095
ANCHOR = ("ArtifactsBench (Zhang et al., 2025) reports 90.95 % pairwise agreement of its VLM judge with human "
          "experts: a reference line from another task and judge, not a like-for-like target")
HELD_OUT_NOTE = ("held-out (eval) paintings only: the taste judge is fit on the training split, so agreement "
                 "measured on training paintings would be inflated")


def _summary(held: list, pairs: list[tuple], scores: list[float | None], resamples: int, seed: int) -> dict:
    """Agreement over the pairs with a score, and its 95 % interval by resampling the held-out
    paintings within their tiers (core.stats.painting_interval), since pairs share paintings;
    every summary draws the same resamples of `held`."""
    kept = [((a, b), s) for (a, b), s in zip(pairs, scores) if s is not None]
    if not kept:
        return {"pairs": 0, "paintings": 0, "agreement": None, "ci95_paintings": None}
    index = {item.id: n for n, item in enumerate(held)}
    values = [s for _, s in kept]
    interval = painting_interval([(index[a.id], index[b.id]) for (a, b), _ in kept], values,
                                 [item.tier for item in held], resamples, seed)
    return {"pairs": len(kept), "paintings": len({i.id for (a, b), _ in kept for i in (a, b)}),
            "agreement": float(np.mean(values)), "ci95_paintings": list(interval)}


async def human_audit(judge: PairwiseJudge, pool: Pool, n_pairs: int = 200, seed: int = 0, resamples: int = 2000,
                      subject: str = "a loose watercolour flower") -> dict:
    """Agreement of the judge with people on held-out paintings (the pool's eval split).

    Every pair is asked in both orders and scored order-averaged, like the reward does: the
    people's preferred painting scores 1 per order it wins, 0.5 per tie, 0 per loss, and the
    pair's agreement is the mean of the two (a judge that always names the first image scores
    0.5; a pair with an unreadable answer is left out and counted as unparsed). Measured on
    (1) every recorded pairwise preference whose two paintings are both held out and (2) up
    to `n_pairs` cross-tier pairs of held-out paintings (seeded sample), per tier pair and
    overall, each with a seeded 95 % interval that resamples paintings (within their tiers), not
    pairs: the pairs share paintings, so a bootstrap over pairs would be too narrow."""
    held = sorted(pool.split(HELD_OUT), key=lambda i: i.id)
    if not held:
        raise ConfigError(f"the pool has no held-out ({HELD_OUT}) paintings to measure the judge on: "
                          "split it first (brushwork pool split <store>)")
    by_id = {i.id: i for i in held}
    rank = {t: n for n, t in enumerate(TIERS)}
    rated = [i for i in held if i.tier in rank]
    cross = [(a, b) if rank[a.tier] < rank[b.tier] else (b, a)
             for a, b in itertools.combinations(rated, 2) if a.tier != b.tier]
    if not cross:
        raise ConfigError(f"the pool's {len(held)} held-out paintings span fewer than two tiers: no cross-tier "
                          f"pairs to measure agreement with tiers on; re-split it (brushwork pool split <store>)")
    random.Random(seed).shuffle(cross)
    sampled = cross[:n_pairs]
    people = [(by_id[won], by_id[lost]) for won, lost in pool.preferences if won in by_id and lost in by_id]

    backend, prompt = judge.backend, judge.prompt
    memo: dict[tuple[str, str], asyncio.Task] = {}

    async def ask(first, second):   # through the judge's schema and its retries, never its cache
        shared = first.subject if first.subject and first.subject == second.subject else subject
        return (await judge.ask(first.image_bytes(), second.image_bytes(), shared)).winner

    def asked(first, second):   # each ordered question once, however many pairs need it
        key = (first.id, second.id)
        if key not in memo:
            memo[key] = asyncio.ensure_future(ask(first, second))
        return memo[key]

    async def outcome(better, worse) -> float | None:
        ab, ba = await asyncio.gather(asked(better, worse), asked(worse, better))
        if ab is None or ba is None:
            return None
        won = {"first": 1.0, "tie": 0.5, "second": 0.0}
        return (won[ab] + (1.0 - won[ba])) / 2

    tier_outcomes, people_outcomes = await asyncio.gather(
        asyncio.gather(*(outcome(a, b) for a, b in sampled)), asyncio.gather(*(outcome(*p) for p in people)))
    answers = [t.result() for t in memo.values()]
    tiers: dict[str, dict] = {}
    for i, better in enumerate(TIERS):
        for worse in TIERS[i + 1:]:
            chosen = [n for n, (a, b) in enumerate(sampled) if (a.tier, b.tier) == (better, worse)]
            tiers[f"{better}>{worse}"] = _summary(held, [sampled[n] for n in chosen],
                                                  [tier_outcomes[n] for n in chosen], resamples, seed)
    tiers["overall"] = _summary(held, sampled, tier_outcomes, resamples, seed)
    return {
        "judge": backend.model_id, "prompt": prompt.version, "split": HELD_OUT, "held_out_items": len(held),
        "note": HELD_OUT_NOTE, "asked": len(answers),
        "parsed_rate": sum(a is not None for a in answers) / len(answers) if answers else float("nan"),
        "human_preferences": {"recorded": len(pool.preferences), "held_out": len(people),
                              "unparsed": sum(o is None for o in people_outcomes),
                              **_summary(held, people, people_outcomes, resamples, seed)},
        "cross_tier_pairs": len(cross), "sampled_pairs": len(sampled),
        "unparsed_pairs": sum(o is None for o in tier_outcomes), "tiers": tiers,
        "anchor": {"name": "ArtifactsBench", "pairwise_agreement": ARTIFACTSBENCH_AGREEMENT, "note": ANCHOR},
        "seed": seed, "resamples": resamples,
    }
