"""Judge consistency (the recipe's open question): the same pairs, twice, in both orders.

- repeat agreement: the same ordered question answered the same way twice;
- order consistency: the verdict survives swapping the images;
- position-bias rate: how often the first-shown image wins in BOTH orders (the order, not
  the painting, decided); first-wins rate: share of decisive answers naming the first image;
- tie rate; agreement with tiers: on cross-tier pairs, the order-averaged verdict agrees
  with the pool's rating.
"""

from __future__ import annotations

import asyncio
import itertools
import random

from brushwork.pool import TIERS, Pool
from brushwork.score.judge import PairwiseJudge, parse_answer


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
    limit = asyncio.Semaphore(8)

    async def ask(first, second):
        async with limit:
            answer = await backend.ask(first.image_bytes(), second.image_bytes(), prompt, subject)
        return parse_answer(answer.text)[0]

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
