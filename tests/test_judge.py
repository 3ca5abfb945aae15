"""The pairwise judge protocol and the `openai` backend against a real local HTTP server."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from servers import FakeVLMJudge, openai_judge_app, serve

from brushwork.errors import ConfigError
from brushwork.score.backends import OpenAIJudge, Retry
from brushwork.score.judge import JudgePrompt, PairwiseJudge, available_prompts, parse_answer
from brushwork.score.verdicts import VerdictCache


def painting(radius: int, colour=(200, 80, 60)) -> bytes:
    im = Image.new("RGB", (64, 64), (250, 246, 238))
    ImageDraw.Draw(im).ellipse((32 - radius, 32 - radius, 32 + radius, 32 + radius), fill=colour)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


@dataclass(frozen=True)
class Ref:
    id: str
    tier: str
    png: bytes

    def image_bytes(self) -> bytes:
        return self.png


REFS = (Ref("small", "okay", painting(6)), Ref("big", "love", painting(28)))
CANDIDATE = painting(16)


@pytest.mark.parametrize("text,winner", [
    ('{"reason": "softer", "winner": "first"}', "first"),
    ('{"winner": "first", "reason": "softer"}', "first"),
    ('```json\n{"reason": "x", "winner": "Second"}\n```', "second"),
    ('Sure! {"reason": "equal", "winner": "tie"} hope that helps', "tie"),
    ('{"winner": "image 1"}', "first"),
    ('{"winner": "the left one"}', None),
    # reasoning before the verdict: the last verdict wins
    ('Image 1 {has} softer edges. {"reason": "softer", "winner": "first"}', "first"),
    ('{"reason": "at first", "winner": "first"}\nOn reflection: {"reason": "muddy", "winner": "second"}', "second"),
    ('{"reason": "a {nested} brace", "detail": {"winner": "second"}, "winner": "first"}', "first"),
    # a quote left unescaped in the reason: the winner field still reads
    ('{"reason": "the "wet" edges", "winner": "second"}', "second"),
    ("first", None), ("", None), ('{"winner": ', None), ("[1, 2]", None), ('{"reason": "no verdict"}', None),
])
def test_parse_answer(text, winner):
    assert parse_answer(text)[0] == winner


def test_parse_answer_keeps_the_reason_of_the_last_verdict():
    assert parse_answer('{"reason": "a", "winner": "first"} {"reason": "b", "winner": "tie"}') == ("tie", "b")
    assert parse_answer('{"reason": "the "wet" edges", "winner": "second"}') == ("second", 'the "wet" edges')


def test_bundled_prompts_describe_the_medium():
    assert {"watercolour", "landscape"} <= set(available_prompts())
    p = JudgePrompt.load("watercolour")
    assert "bleed" in p.system and '"winner"' in p.user_text("a peach hibiscus")
    for name in available_prompts():   # the reason before the verdict, in every bundled prompt
        user = JudgePrompt.load(name).user_text("a hibiscus")
        assert user.rindex('"reason"') < user.rindex('"winner"'), name
    assert "peach hibiscus" in p.user_text("a peach hibiscus")


def judge_for(url, tmp_path=None, **kw):
    retry = kw.pop("retry", Retry(attempts=3, backoff_s=0.01, timeout_s=5))
    backend = OpenAIJudge(url + "/v1", "fake-vlm", api_key="sk-secret-123", retry=retry)
    cache = VerdictCache(tmp_path / "verdicts.sqlite") if tmp_path else None
    return PairwiseJudge(backend, cache=cache, **kw)


async def test_both_orders_are_asked_and_scored(tmp_path):
    vlm = FakeVLMJudge("good")
    with serve(openai_judge_app(vlm)) as url:
        result = await judge_for(url, tmp_path).judge(CANDIDATE, REFS, "a hibiscus")
        assert len(vlm.requests) == 4  # 2 references x 2 orders
        assert vlm.last_auth == "Bearer sk-secret-123"
        body = vlm.requests[0]
        assert body["temperature"] == 0 and body["model"] == "fake-vlm"
        assert [p["type"] for p in body["messages"][1]["content"]].count("image_url") == 2
        # more paint wins: beats the small reference in both orders, loses to the big one in both
        outcomes = {c.reference: c.outcome for c in result.comparisons}
        assert outcomes == {"small": 1.0, "big": 0.0} and result.score == 0.5
        c = result.comparisons[0]
        assert c.candidate_first.order == "candidate_first" and c.reference_first.order == "reference_first"
        assert c.candidate_first.reason.startswith("more paint")
        # cached verdicts: asking again costs nothing
        again = await judge_for(url, tmp_path).judge(CANDIDATE, REFS, "a hibiscus")
        assert len(vlm.requests) == 4 and again.score == 0.5 and again.calls == 0


async def test_position_bias_becomes_a_tie():
    with serve(openai_judge_app(FakeVLMJudge("biased"))) as url:
        result = await judge_for(url).judge(CANDIDATE, REFS)
    assert [c.outcome for c in result.comparisons] == [0.5, 0.5]


async def test_malformed_answers_never_count():
    with serve(openai_judge_app(FakeVLMJudge("malformed"))) as url:
        result = await judge_for(url).judge(CANDIDATE, REFS)
    assert result.score is None and "parsed" in result.error
    assert all(c.outcome is None for c in result.comparisons)


async def test_5xx_is_retried_then_succeeds():
    vlm = FakeVLMJudge("flaky", fail_first=2)
    with serve(openai_judge_app(vlm)) as url:
        result = await judge_for(url, concurrency=1).judge(CANDIDATE, REFS[:1])
    assert result.score == 1.0 and len(vlm.requests) == 4


async def test_timeouts_exhaust_retries_into_infra_failure():
    vlm = FakeVLMJudge("good", delay_s=1.0)
    with serve(openai_judge_app(vlm)) as url:
        judge = judge_for(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=0.2))
        result = await judge.judge(CANDIDATE, REFS[:1])
    assert result.score is None and "unreachable after 2 attempts" in result.error
    assert "sk-secret" not in result.error and "sk-secret" not in repr(judge.backend)


async def test_unreachable_and_refused_servers():
    result = await judge_for("http://127.0.0.1:9").judge(CANDIDATE, REFS[:1])
    assert result.score is None and "unreachable" in result.error
    with serve(openai_judge_app(FakeVLMJudge("refuse"))) as url:
        result = await judge_for(url).judge(CANDIDATE, REFS[:1])
    assert result.score is None and "HTTP 401" in result.error and "sk-secret" not in result.error


# -- which references: the task's domain, then its subject, then the tier ------------------------
def _pool(*rows):
    """A pool of (id, tier, domain, subject[, split]) rows; images are never read by the picker."""
    from brushwork.pool import Pool, PoolItem

    items = tuple(PoolItem(id=r[0], tier=r[1], image=Path(f"{r[0]}.png"), domain=r[2], subject=r[3],
                           split=r[4] if len(r) > 4 else "train") for r in rows)
    return Pool(Path("pool"), items, "snap")


HIBISCUS = [(f"{t}_hib_{n}", t, "hibiscus", "peach hibiscus") for t in ("love", "okay", "nope") for n in range(6)]
LANDSCAPE = [("love_lake", "love", "landscape", "a lake at dusk"), ("love_hills", "love", "landscape", "hills"),
             ("love_dunes", "love", "landscape", "desert dunes"), ("okay_bands", "okay", "landscape", "hills"),
             ("okay_sea", "okay", "landscape", "a calm seascape"), ("nope_sludge", "nope", "landscape", "landscape")]


def test_references_come_from_the_task_domain_and_subject_first():
    from brushwork.score.references import pick_references

    pool = _pool(*HIBISCUS, *LANDSCAPE)
    for seed in range(12):
        refs = pick_references(pool, seed=seed, domain="landscape", subject="A lake at dusk")
        assert [r.tier for r in refs] == ["love", "love", "okay", "okay"]
        assert {r.domain for r in refs} == {"landscape"} and refs.reason == ""
        assert "love_lake" in {r.id for r in refs}          # the same subject before the rest of the domain
    draws = {tuple(r.id for r in pick_references(pool, seed=s, domain="landscape")) for s in range(12)}
    assert len(draws) > 1                                   # still a seeded draw inside the domain
    assert {r.domain for r in pick_references(pool, seed=1, domain="hibiscus")} == {"hibiscus"}


def test_a_thin_domain_borrows_with_a_reason_and_a_known_subject_names_its_domain():
    from brushwork.score.references import infer_domain, pick_references

    pool = _pool(*HIBISCUS, *LANDSCAPE[:1], *LANDSCAPE[3:])
    refs = pick_references(pool, seed=3, domain="landscape")
    assert [r.domain for r in refs][:1] == ["landscape"] and sum(r.domain == "landscape" for r in refs) == 3
    assert "1 of 2 'love'" in refs.reason and "'landscape'" in refs.reason
    assert infer_domain(pool, "a coral hibiscus") == "hibiscus"          # names the pool's domain
    assert infer_domain(pool, "A lake at dusk") == "landscape"           # a pool painting's subject
    assert infer_domain(pool, "a purple anemone") == ""
    unknown = pick_references(pool, seed=3, subject="a purple anemone")  # no domain: the whole split, no reason
    assert unknown.domain == "" and unknown.reason == "" and len(unknown) == 4
    with pytest.raises(ConfigError, match="needs 8"):
        pick_references(pool, mix=(("love", 8),), domain="landscape")


def test_an_evaluation_painting_of_the_exact_subject_is_never_a_reference():
    """The attack: the held-out painting that best matches the task (same domain, same subject)
    sits in the group the picker prefers. It must never be drawn for the reward; its legal twin,
    the same painting in the training split, is drawn every time."""
    from brushwork.score.references import pick_references

    held = ("love_lake", "love", "landscape", "a lake at dusk", "eval")
    pool = _pool(*HIBISCUS, held, *LANDSCAPE[1:])
    for seed in range(20):
        assert "love_lake" not in {r.id for r in pick_references(pool, seed=seed, domain="landscape",
                                                                   subject="a lake at dusk")}
    twin = _pool(*HIBISCUS, held[:4], *LANDSCAPE[1:])
    for seed in range(20):
        assert "love_lake" in {r.id for r in pick_references(twin, seed=seed, domain="landscape",
                                                               subject="a lake at dusk")}
    evals = pick_references(pool, mix=(("love", 3),), seed="eval", domain="landscape", split="eval", partial=True)
    assert [r.id for r in evals] == ["love_lake"]           # evaluation draws from its own split, as many as it has
