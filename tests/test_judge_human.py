"""`judge audit --human`: the judge's agreement with people, on held-out paintings only."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
from servers import FakeVLMJudge, openai_judge_app, serve
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.core.stats import bootstrap_interval
from brushwork.errors import ConfigError
from brushwork.pool.hf import import_hf
from brushwork.pool.snapshot import pool_from_store
from brushwork.pool.store import PoolStore
from brushwork.score.audit import ARTIFACTSBENCH_AGREEMENT, human_audit
from brushwork.score.backends import TasteJudge
from brushwork.score.judge import ANSWER_SCHEMA, Answer, JudgePrompt, PairwiseJudge

pytestmark = pytest.mark.chromium

TIER_PAIRS = ("love>okay", "love>nope", "okay>nope")


class ScriptedJudge:
    """A stand-in backend: image A always, or the better tier of the two (looked up by image)."""

    def __init__(self, mode: str, pool=None):
        self.mode, self.model_id = mode, f"scripted:{mode}"
        rank = {"love": 0, "okay": 1, "nope": 2}
        self.rank = {hashlib.sha256(i.image_bytes()).hexdigest(): rank[i.tier] for i in pool.items} if pool else {}
        self.asked: list[tuple[str, str]] = []

    async def ask(self, first_png, second_png, prompt, subject) -> Answer:
        a, b = hashlib.sha256(first_png).hexdigest(), hashlib.sha256(second_png).hexdigest()
        self.asked.append((a, b))
        if self.mode == "first":
            winner = "A"
        else:   # answers within the judge's schema: no tie
            better = self.rank[a] <= self.rank[b] if self.mode == "tiers" else self.rank[a] >= self.rank[b]
            winner = "A" if better else "B"
        return Answer(json.dumps({"winner": winner, "a_matches_request": True, "b_matches_request": True,
                                  "reason": self.mode}))


def check_summary(summary, pairs, paintings):
    assert summary["pairs"] == pairs and summary["paintings"] == paintings
    lo, hi = summary["ci95_paintings"]
    assert 0 <= lo <= summary["agreement"] <= hi <= 1


async def test_taste_judge_on_held_out_paintings(example_pool):
    from brushwork.score.taste.model import load_or_fit

    judge = PairwiseJudge(TasteJudge(load_or_fit(example_pool)))
    report = await human_audit(judge, example_pool)
    held = example_pool.split("eval")
    assert report["held_out_items"] == len(held) == 9 and report["split"] == "eval"
    assert report["cross_tier_pairs"] == report["sampled_pairs"] == 27 and report["unparsed_pairs"] == 0
    assert report["asked"] == 2 * 27 and report["parsed_rate"] == 1   # each pair in both orders, nothing else
    for name in TIER_PAIRS:
        check_summary(report["tiers"][name], 9, 6)       # 3 paintings of each tier held out
    check_summary(report["tiers"]["overall"], 27, 9)
    assert report["human_preferences"] == {"recorded": 0, "held_out": 0, "unparsed": 0, "pairs": 0, "paintings": 0,
                                           "agreement": None, "ci95_paintings": None}
    assert report["anchor"]["pairwise_agreement"] == ARTIFACTSBENCH_AGREEMENT == 0.9095
    assert "training split" in report["note"]
    # seeded: the same sample and the same intervals; a smaller sample is a subset of the cross-tier pairs
    assert await human_audit(judge, example_pool) == report
    small = await human_audit(judge, example_pool, n_pairs=10, seed=3)
    assert small["sampled_pairs"] == small["tiers"]["overall"]["pairs"] == 10 and small["asked"] == 20
    assert sum(small["tiers"][n]["pairs"] for n in TIER_PAIRS) == 10


async def test_a_judge_that_always_says_first_scores_a_half_and_one_that_knows_the_tiers_scores_one(example_pool):
    first = await human_audit(PairwiseJudge(ScriptedJudge("first")), example_pool)
    for name in (*TIER_PAIRS, "overall"):
        assert first["tiers"][name]["agreement"] == 0.5 and first["tiers"][name]["ci95_paintings"] == [0.5, 0.5]
    knows = await human_audit(PairwiseJudge(ScriptedJudge("tiers", example_pool)), example_pool)
    contrary = await human_audit(PairwiseJudge(ScriptedJudge("reversed", example_pool)), example_pool)
    for name in (*TIER_PAIRS, "overall"):
        assert knows["tiers"][name]["agreement"] == 1.0 and knows["tiers"][name]["ci95_paintings"] == [1.0, 1.0]
        assert contrary["tiers"][name]["agreement"] == 0.0


async def test_recorded_preferences_between_held_out_paintings_are_asked(example_pool, tmp_path):
    store = PoolStore.init(tmp_path / "store")
    import_hf(store, example_pool.root)
    evals = {store.tier_of(i.id): i.id for i in store.items("eval")}
    train = store.items("train")[0].id
    store.prefer(evals["okay"], evals["love"], "person", "a")    # the person disagrees with the tiers here
    store.prefer(evals["nope"], train, "person", "b")            # one painting was trained on: left out
    store.prefer(evals["nope"], evals["okay"], "person", "tie")  # no preference: not a pair
    pool = pool_from_store(store)
    assert len(pool.preferences) == 2
    backend = ScriptedJudge("tiers", pool)
    report = await human_audit(PairwiseJudge(backend), pool)
    people = report["human_preferences"]
    assert people["recorded"] == 2 and people["held_out"] == 1 and people["pairs"] == 1
    assert people["agreement"] == 0.0 and people["ci95_paintings"] == [0.0, 0.0]   # it sides with the tiers
    okay, love = (hashlib.sha256(store.image_bytes(evals[t])).hexdigest() for t in ("okay", "love"))
    assert {(okay, love), (love, okay)} <= set(backend.asked)             # both orders
    assert report["asked"] == len(backend.asked) == 2 * 27                # the pair was also a tier pair: asked once
    assert report["tiers"]["overall"]["agreement"] == 1.0
    first = await human_audit(PairwiseJudge(ScriptedJudge("first")), pool)
    assert first["human_preferences"]["agreement"] == 0.5


async def test_no_held_out_paintings_or_no_cross_tier_pairs_are_errors(example_pool):
    judge = PairwiseJudge(ScriptedJudge("first"))
    trained = dataclasses.replace(example_pool, items=tuple(dataclasses.replace(i, split="train")
                                                            for i in example_pool.items))
    with pytest.raises(ConfigError, match="no held-out"):
        await human_audit(judge, trained)
    one_tier = dataclasses.replace(example_pool, items=tuple(i for i in example_pool.items
                                                             if i.split == "train" or i.tier == "love"))
    with pytest.raises(ConfigError, match="cross-tier"):
        await human_audit(judge, one_tier)


async def test_intervals_resample_paintings_so_they_are_wider_than_a_bootstrap_over_pairs(example_pool):
    """Nine held-out paintings make 27 pairs; the pairs are not 27 independent draws. A judge
    that is right about one love painting and wrong about the others: the painting-level
    interval is wider than the pair bootstrap's (which treats the 27 pairs as independent)."""
    held = {i.id: i for i in example_pool.split("eval")}
    lucky = sorted(i for i in held if held[i].tier == "love")[0]
    lucky_png = hashlib.sha256(held[lucky].image_bytes()).hexdigest()

    class OneGoodPainting(ScriptedJudge):
        async def ask(self, first_png, second_png, prompt, subject):
            a, b = hashlib.sha256(first_png).hexdigest(), hashlib.sha256(second_png).hexdigest()
            self.mode = "tiers" if lucky_png in (a, b) else "reversed"
            return await ScriptedJudge.ask(self, first_png, second_png, prompt, subject)

    report = await human_audit(PairwiseJudge(OneGoodPainting("tiers", example_pool)), example_pool)
    summary = report["tiers"]["love>okay"]
    assert summary["agreement"] == pytest.approx(1 / 3)    # 3 of its 9 pairs involve the one painting
    lo, hi = summary["ci95_paintings"]
    pair_lo, pair_hi = bootstrap_interval([1.0] * 3 + [0.0] * 6)
    assert lo <= summary["agreement"] <= hi and hi - lo > pair_hi - pair_lo
    assert await human_audit(PairwiseJudge(OneGoodPainting("tiers", example_pool)), example_pool) == report


def test_cli_judge_audit_human(example_pool, tmp_path):
    res = CliRunner().invoke(app, ["judge", "audit", "--human"])
    assert res.exit_code == 0, res.output
    assert "90.95" in res.output and "held-out" in res.output and "27 of 27" in res.output
    assert "love > nope" in res.output and "training split" in res.output
    js = CliRunner().invoke(app, ["judge", "audit", "--human", "--pairs", "12", "--json"])
    assert js.exit_code == 0, js.output
    report = json.loads(js.stdout)
    assert report["sampled_pairs"] == 12 and report["tiers"]["overall"]["pairs"] == 12
    assert report["anchor"]["pairwise_agreement"] == 0.9095
    # a store with no held-out paintings: a clear error, exit code 2 (the judge is never asked)
    store = PoolStore.init(tmp_path / "store")
    import_hf(store, example_pool.root)
    for item in store.items("eval"):
        store.set_split(item.id, "train")
    bad = CliRunner().invoke(app, ["judge", "audit", "--human", "--pool", str(store.root), "--judge", "openai",
                                   "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"])
    assert bad.exit_code == 2 and "no held-out" in bad.output


def test_cli_judge_audit_human_asks_a_vlm_within_the_schema(example_pool):
    """`judge audit --human` against the local OpenAI-compatible server (which refuses a request
    without the JSON schema): every held-out pair asked in both orders, every answer read."""
    vlm = FakeVLMJudge("good")
    with serve(openai_judge_app(vlm)) as url:
        res = CliRunner().invoke(app, ["judge", "audit", "--human", "--json", "--judge", "openai",
                                       "--judge-url", url + "/v1", "--judge-model", "fake-vlm"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["judge"] == "openai:fake-vlm" and report["prompt"] == JudgePrompt.load().version
    assert report["asked"] == len(vlm.requests) == 2 * 27 and report["parsed_rate"] == 1
    assert report["unparsed_pairs"] == 0 and report["tiers"]["overall"]["pairs"] == 27
    assert all(body["response_format"]["json_schema"]["schema"] == ANSWER_SCHEMA for body in vlm.requests)
    malformed = FakeVLMJudge("malformed")
    with serve(openai_judge_app(malformed)) as url:
        res = CliRunner().invoke(app, ["judge", "audit", "--human", "--json", "--judge", "openai",
                                       "--judge-url", url + "/v1", "--judge-model", "fake-vlm"])
    report = json.loads(res.stdout)
    assert report["parsed_rate"] == 0 and report["unparsed_pairs"] == 27
    assert len(malformed.requests) == 2 * 27 * 2      # each question asked again once, then unread
