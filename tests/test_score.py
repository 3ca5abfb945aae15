"""Scoring end to end: example pool, taste model, reference draws, Scorer and ScoreCard."""

from __future__ import annotations

import dataclasses
import json

import pytest
from replies import HIBISCUS, with_text
from servers import FakeVLMJudge, openai_judge_app, serve

from brushwork.errors import ConfigError
from brushwork.render import RenderConfig, Renderer
from brushwork.render.config import TIMEOUT_S
from brushwork.score import RewardConfig, Scorer, pick_references
from brushwork.score.backends import OpenAIJudge, Retry, TasteAesthetic, TasteJudge
from brushwork.score.card import ScoreCard
from brushwork.score.judge import PairwiseJudge
from brushwork.score.options import ScoringOptions
from brushwork.score.taste.model import TasteModel, fit

pytestmark = pytest.mark.chromium

HONEST, CHEAT = HIBISCUS, with_text(HIBISCUS, 'text("10/10", 20, 20)')


@pytest.fixture(scope="session")
def taste(example_pool):
    return fit(example_pool)


def test_example_pool_spans_a_quality_range(example_pool):
    tiers = example_pool.by_tier()
    assert len(example_pool.items) >= 40
    assert all(len(tiers.get(t, [])) >= 8 for t in ("love", "okay", "nope"))
    assert all(i.image.name.startswith(i.tier + "_") for i in example_pool.items)


def test_taste_model_separates_love_from_nope(taste, tmp_path):
    acc = taste.report["pairwise_accuracy"]
    assert acc["love>nope"] >= 0.9, taste.report
    assert {"love>okay", "okay>nope"} <= set(acc)
    path = taste.save(tmp_path / "taste.json")
    loaded = TasteModel.load(path)
    assert loaded.snapshot == taste.snapshot and len(json.loads(path.read_text())["weights"]) == len(taste.weights)


def test_taste_scores_rank_tiers(taste, example_pool):
    tiers = example_pool.by_tier()
    mean = {t: sum(taste.aesthetic(i.image_bytes()) for i in items) / len(items) for t, items in tiers.items()}
    assert mean["love"] > mean["okay"] > mean["nope"]
    a, b = tiers["love"][0].image_bytes(), tiers["nope"][0].image_bytes()
    assert taste.prefer(a, b) == pytest.approx(1 - taste.prefer(b, a))


def test_reference_draw_is_reproducible_and_train_only(example_pool):
    a = pick_references(example_pool, seed=7)
    assert [r.id for r in a] == [r.id for r in pick_references(example_pool, seed=7)]
    assert [r.tier for r in a] == ["love", "love", "okay", "okay"]
    draws = {tuple(r.id for r in pick_references(example_pool, seed=s)) for s in range(10)}
    assert len(draws) > 5
    # put half the pool in the evaluation split: it must never be drawn again
    items = tuple(dataclasses.replace(i, split="eval") if n % 2 else i for n, i in enumerate(example_pool.items))
    half = dataclasses.replace(example_pool, items=items)
    evals = {i.id for i in half.split("eval")}
    for s in range(20):
        assert not {r.id for r in pick_references(half, seed=s)} & evals
    with pytest.raises(ConfigError, match="needs 50"):
        pick_references(example_pool, mix=(("love", 50),))


def _scorer(renderer, pool, taste, judge=None, preset="judge-led"):
    judge = judge or PairwiseJudge(TasteJudge(taste))
    return Scorer(renderer, pool, ScoringOptions(preset=preset),
                  backends={"judge": judge, "aesthetic": TasteAesthetic(taste)})


async def test_scorecard_every_term(example_pool, taste, tmp_path):
    async with Renderer(RenderConfig(workers=2, cache_dir=tmp_path)) as r:
        scorer = _scorer(r, example_pool, taste)
        card = await scorer.score(HONEST, seed=1, group_seed=42)
        again = await scorer.score(HONEST, seed=1, group_seed=42)
        cheat = await scorer.score(CHEAT, seed=1, group_seed=42)
        other = await scorer.score(HONEST.replace("#ff7f50", "#e75480"), seed=1, group_seed=42)
        hps_only = await _scorer(r, example_pool, taste, preset="hps-only").score(HONEST, seed=1)
    assert card.passed and card.gate == 1.0 and card.infra is None
    assert card.length == pytest.approx(RewardConfig().length(HONEST.split("```js\n")[1].split("```")[0]))
    assert 0 <= card.judge <= 1 and 0 < card.aesthetic < 1
    w = card.weights
    assert card.total == pytest.approx(w["gate"] + w["length"] * card.length + w["judge"] * card.judge
                                       + w["aesthetic"] * card.aesthetic)
    assert len(card.comparisons) == 4 and sorted(t for _, t in card.references) == ["love", "love", "okay", "okay"]
    assert all(c.candidate_first.winner and c.reference_first.winner for c in card.comparisons)
    assert card.paint_fraction > 0.01 and card.brush_methods["endShape"] == 5 and card.filled_shapes == 6
    assert card.same_as(again)
    assert other.references == card.references  # one GRPO group, one set of references
    assert cheat.total == 0.0 and cheat.cheated and cheat.judge is None and cheat.comparisons == ()
    assert hps_only.judge is None and hps_only.comparisons == () and hps_only.total == pytest.approx(
        0.05 + 0.05 * hps_only.length + 0.9 * hps_only.aesthetic)
    # The taste model's own word on the painting: how close to what was rated, how sure.
    assert 0 < card.taste["support"] <= 1 and card.taste["uncertainty"] >= 0 and len(card.taste["nearest"]) == 3
    assert card.taste["nearest"][0] in {i.id for i in example_pool.split("train")}
    assert cheat.taste is None
    assert ScoreCard.from_dict(json.loads(json.dumps(card.to_dict()))).taste == json.loads(json.dumps(card.taste))
    json.dumps(card.to_dict())


async def test_gate_failure_costs_no_remote_call_and_outage_is_none(example_pool, taste, tmp_path):
    vlm = FakeVLMJudge("good")
    async with Renderer(RenderConfig(workers=1, cache_dir=tmp_path)) as r:
        with serve(openai_judge_app(vlm)) as url:
            remote = PairwiseJudge(OpenAIJudge(url + "/v1", "fake-vlm", retry=Retry(2, 0.01, 5)))
            scorer = _scorer(r, example_pool, taste, judge=remote)
            cheat = await scorer.score(CHEAT, seed=2)
            assert cheat.total == 0.0 and len(vlm.requests) == 0
            card = await scorer.score(HONEST, seed=2)
            assert len(vlm.requests) == 8 and card.cost.calls["judge"] == 8 and card.total is not None
        down = PairwiseJudge(OpenAIJudge("http://127.0.0.1:9/v1", "fake-vlm", retry=Retry(2, 0.01, 1)))
        outage = await _scorer(r, example_pool, taste, judge=down).score(HONEST, seed=3)
    assert outage.passed and outage.total is None and "unreachable" in outage.infra and outage.judge is None


@pytest.mark.slow
async def test_endless_loop_is_zero_not_none(example_pool, taste, tmp_path):
    """A hang is the sketch's own failure: stopped at the CPU budget, it scores 0 (only our
    failures, like the judge outage above, are None)."""
    hang = HONEST.replace("brush.circle(300, 300, 28);", "brush.circle(300, 300, 28); while (true) {}")
    # The product's wall deadline: at load 13 a 3 s deadline came before 1.5 CPU-s of spinning
    # (render_timeout), so the CPU budget, which the load does not move, is what stops it here.
    async with Renderer(RenderConfig(workers=1, timeout_s=TIMEOUT_S, cpu_budget_s=1.5, cache_dir=tmp_path)) as r:
        card = await _scorer(r, example_pool, taste).score(hang)
    assert card.total == 0.0 and not card.passed and card.infra is None
    assert [(v.id, v.severity) for v in card.violations] == [("too_slow", "broken")]
