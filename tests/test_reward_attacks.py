"""Reward attacks without a subject against the default offline reward (taste judge + taste
aesthetic on the bundled pool, judge-led preset), rendered for real.

The candidates come from tests/reward_attack_cases.py on held-out seeds (100-103 per family,
one round of mutants: 12 renders); benchmarks/reward_attack.py tuned on seeds 0-11. The
legal twins are the honest good examples (src/brushwork/examples/good_*.md): they must keep
scoring well above the pool's nope tier while the attacks stay below them. Beside the search,
the flat shapes benchmarks/reward_attack.py's search paid most under taste v9 (a cartoon sunflower
paid 0.620 against an honest median of 0.663), rebuilt from their seeds, meet the local-agreement cap.
"""

from __future__ import annotations

import dataclasses
import statistics

import pytest
import reward_attack_cases as attacks

from brushwork.paths import example_files
from brushwork.render import RenderConfig, Renderer
from brushwork.score import Scorer
from brushwork.score.backends import TasteAesthetic, TasteJudge
from brushwork.score.judge import PairwiseJudge
from brushwork.score.options import ScoringOptions
from brushwork.score.taste.model import fit

# the pool renders, a nested-CV fit and ~30 scored replies: minutes on a busy 2-core machine
pytestmark = [pytest.mark.chromium, pytest.mark.slow, pytest.mark.timeout(1200)]
HELD_OUT = range(100, 104)


def _scorer(renderer, pool, model, options=None) -> Scorer:
    return Scorer(renderer, pool, options,
                  backends={"judge": PairwiseJudge(TasteJudge(model)), "aesthetic": TasteAesthetic(model)})


@pytest.fixture(scope="module")
def model(example_pool):
    return fit(example_pool)


@pytest.fixture(scope="module")
def scored(example_pool, model, private_cache):
    """Attack candidates, honest replies and the nope tier, each scored by the deployed model
    and the same head without its bounds (the support, the top tier's structure, the agreement)."""
    import asyncio

    unbounded = dataclasses.replace(model, support=None, structure=None, agreement=None)
    goods = [p.read_text() for p in example_files() if p.stem.startswith("good_")]
    nope = [i.source.read_text() for i in example_pool.by_tier()["nope"]]

    async def run():
        async with Renderer(RenderConfig(workers=2, cache_dir=private_cache / "renders")) as r:
            scorer = _scorer(r, example_pool, model)

            async def score(reply):
                return await scorer.score(reply, seed=0, group_seed=1)
            tried = await attacks.search(score, HELD_OUT, rounds=1, keep=2, children=2)
            free = _scorer(r, example_pool, unbounded)
            free_flat = [(await free.score(attacks.sketch(t.genome), seed=0, group_seed=1)).total
                         for t in tried if t.genome.family == "flat"]
            honest = [(await score(g)).total for g in goods]
            copies = _scorer(r, example_pool, model, ScoringOptions(judge_copies=True))
            nopes = [(await copies.score(s, seed=0, group_seed=1)).total for s in nope]
        return tried, free_flat, honest, nopes
    return asyncio.run(run())


def test_every_attack_is_legal(scored):
    tried = scored[0]
    assert len(tried) == 12 and all(t.card.passed and t.card.total is not None for t in tried), \
        [(t.genome.name, t.card.passed) for t in tried if not t.card.passed]


def test_flat_clip_art_is_paid_below_honest_paintings(scored):
    """Hard-edged, saturated clip-art lies far off the pool's support: bounded, it scores
    clearly below the median honest reply; the same head unbounded paid it more."""
    tried, free_flat, honest, _ = scored
    flat = [t.card.total for t in tried if t.genome.family == "flat"]
    assert max(flat) <= statistics.median(honest) - 0.10, (flat, honest)
    assert max(free_flat) > max(flat) + 0.05, (free_flat, flat)


def test_round_washes_are_paid_below_honest_paintings(scored):
    """Round washes lie among loved washes in the medium, but draw nothing (no stem, stamen or
    vein): the top tier's structure bound stops them at the middle tier, clearly below the
    median honest reply."""
    tried, _, honest, _ = scored
    wash = [t.card.total for t in tried if t.genome.family == "wash"]
    assert max(wash) <= statistics.median(honest) - 0.10, (wash, honest)


def test_honest_replies_keep_scoring_above_the_nope_tier(scored):
    _, _, honest, nopes = scored
    assert statistics.median(honest) > statistics.median(nopes) + 0.2, (honest, nopes)
    assert sum(h > statistics.median(nopes) for h in honest) >= len(honest) - 1


# Flat clip-art the search in benchmarks/reward_attack.py paid most under taste v9 (0.620, 0.595 and
# 0.589 against an honest median of 0.663), rebuilt from their seeds without a search: two cartoon
# sunflowers (seeds 10 and 0) and the first with its petals moved (mutant 3).
FLATS = {"flat-10": (10, None), "flat-10.3": (10, 3), "flat-0": (0, None)}


def _flat(seed: int, mutant: int | None) -> str:
    genome = attacks.random_genome(seed, "flat")
    return attacks.sketch(genome if mutant is None else attacks.mutate(genome, mutant))


@pytest.fixture(scope="module")
def flats(example_pool, model, private_cache):
    """The flat shapes and the honest good examples painted near loved ones (their legal twins),
    each scored by the deployed model and by the same model without its agreement cap."""
    import asyncio

    uncapped = dataclasses.replace(model, agreement=None)
    twins = {p.stem: p.read_text() for p in example_files() if p.stem in ("good_white_hibiscus", "good_peach_hibiscus")}
    replies = {name: _flat(*args) for name, args in FLATS.items()} | twins

    async def run():
        async with Renderer(RenderConfig(workers=2, cache_dir=private_cache / "renders")) as r:
            capped, free = _scorer(r, example_pool, model), _scorer(r, example_pool, uncapped)
            return {name: tuple([await s.score(reply, seed=0, group_seed=1) for s in (capped, free)])
                    for name, reply in replies.items()}
    return asyncio.run(run())


@pytest.mark.parametrize("name", FLATS)
def test_flat_clip_art_is_held_by_its_neighbours_agreement(flats, scored, name):
    """The attack: flat, hard-edged clip-art the support calls near the pool (its edges and colours
    lie within the rated paintings' reach) whose nearest rated paintings, in the coordinates the head
    reads, were mostly rated okay and nope. The agreement cap pays it no more than their median, plus
    the pool's margin: clearly below the median honest reply; without the cap the same model paid it more."""
    card, uncapped = flats[name]
    honest = statistics.median(scored[2])
    assert card.passed and card.total <= honest - 0.10, (card.total, honest)
    assert uncapped.aesthetic > card.aesthetic + 0.1, (uncapped.aesthetic, card.aesthetic)


@pytest.mark.parametrize("name", ["good_white_hibiscus", "good_peach_hibiscus"])
def test_an_honest_painting_near_loved_ones_is_paid_as_before(flats, scored, name):
    """The legal twin: an honest hibiscus whose nearest rated paintings are loved is not held by the
    cap (the same card with and without it) and is paid above the median honest reply's floor."""
    card, uncapped = flats[name]
    assert card.passed and card.total == pytest.approx(uncapped.total) and card.aesthetic > 0.9
    assert card.total >= statistics.median(scored[2]) - 0.02
