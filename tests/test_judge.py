"""The pairwise judge protocol and the `openai` backend against a real local HTTP server."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from servers import COLOURS, FakeVLMJudge, openai_judge_app, serve

from brushwork.core.chat import image_part
from brushwork.errors import ConfigError, JudgeUnavailable
from brushwork.score.backends import OpenAIJudge, Retry
from brushwork.score.card import ScoreCard
from brushwork.score.judge import (
    ANSWER_SCHEMA,
    RESPONSE_FORMAT,
    JudgePrompt,
    PairwiseJudge,
    Reading,
    available_prompts,
    parse_answer,
)
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


def schema_answer(**changes) -> str:
    answer = {"winner": "A", "a_matches_request": True, "b_matches_request": False, "reason": "softer"}
    answer.update(changes)
    return json.dumps({k: v for k, v in answer.items() if v is not DROP})


DROP = object()


@pytest.mark.parametrize("text,winner", [
    (schema_answer(), "first"),
    (schema_answer(winner="B"), "second"),
    ('  {"reason": "x", "b_matches_request": true, "a_matches_request": true, "winner": "B"}\n', "second"),
    # outside the schema: each is asked again, then counts as unread
    (schema_answer(winner="tie"), None), (schema_answer(winner="first"), None), (schema_answer(winner="a"), None),
    (schema_answer(a_matches_request="yes"), None), (schema_answer(b_matches_request=DROP), None),
    (schema_answer(reason=DROP), None), (schema_answer(reason="x" * 301), None), (schema_answer(extra=1), None),
    ("```json\n" + schema_answer() + "\n```", None), ("Sure! " + schema_answer(), None),
    (schema_answer()[:-12], None), ('{"reason": "softer", "winner": "first"}', None),
    ("first", None), ("", None), ("[1, 2]", None), ("null", None),
])
def test_parse_answer_reads_only_the_schema(text, winner):
    reading = parse_answer(text)
    assert (reading.winner if reading else None) == winner


def test_parse_answer_reads_adherence_and_the_reason():
    assert parse_answer(schema_answer()) == Reading("first", True, False, "softer")
    assert parse_answer(schema_answer(winner="B", a_matches_request=False, b_matches_request=True,
                                      reason="only B is peach")) == Reading("second", False, True, "only B is peach")


def test_the_schema_puts_the_verdict_first_and_allows_no_tie():
    assert list(ANSWER_SCHEMA["properties"])[0] == "winner"
    assert ANSWER_SCHEMA["properties"]["winner"]["enum"] == ["A", "B"]
    assert set(ANSWER_SCHEMA["required"]) == set(ANSWER_SCHEMA["properties"])
    assert ANSWER_SCHEMA["additionalProperties"] is False


def test_bundled_prompts_ask_for_adherence_then_the_medium():
    assert {"watercolour", "landscape"} <= set(available_prompts())
    p = JudgePrompt.load("watercolour")
    assert "bleed" in p.system and "colour asked for" in p.system and "no tie" in p.system
    for name in available_prompts():   # the verdict before the reason, the request in the question
        user = JudgePrompt.load(name).user_text("a peach hibiscus")
        assert "a peach hibiscus" in user and user.index('"winner"') < user.index('"reason"'), name
        assert '"tie"' not in user and "a_matches_request" in user, name


def judge_for(url, tmp_path=None, **kw):
    retry = kw.pop("retry", Retry(attempts=3, backoff_s=0.01, timeout_s=5))
    backend = OpenAIJudge(url + "/v1", "fake-vlm", api_key="sk-secret-123", retry=retry)
    cache = VerdictCache(tmp_path / "verdicts.sqlite") if tmp_path else None
    return PairwiseJudge(backend, cache=cache, **kw)


async def test_both_orders_are_asked_within_the_schema_and_scored(tmp_path):
    vlm = FakeVLMJudge("good")
    with serve(openai_judge_app(vlm)) as url:
        result = await judge_for(url, tmp_path).judge(CANDIDATE, REFS, "a hibiscus")
        assert len(vlm.requests) == 4  # 2 references x 2 orders
        assert vlm.last_auth == "Bearer sk-secret-123"
        body = vlm.requests[0]
        assert body["temperature"] == 0 and body["model"] == "fake-vlm"
        assert body["response_format"] == {"type": "json_schema", "json_schema": {
            "name": "pairwise_verdict", "schema": ANSWER_SCHEMA, "strict": True}}
        assert body["chat_template_kwargs"] == {"enable_thinking": False} and body["max_tokens"] >= 512
        parts = body["messages"][1]["content"]
        assert [p["type"] for p in parts] == ["text", "image_url", "text", "image_url", "text"]
        assert [parts[0]["text"], parts[2]["text"]] == ["Image A:", "Image B:"]
        assert "asked to show: a hibiscus." in parts[4]["text"]
        # more paint wins: beats the small reference in both orders, loses to the big one in both
        outcomes = {c.reference: c.outcome for c in result.comparisons}
        assert outcomes == {"small": 1.0, "big": 0.0} and result.score == 0.5
        c = result.comparisons[0]
        assert c.candidate_first.order == "candidate_first" and c.reference_first.order == "reference_first"
        assert c.candidate_first.reason.startswith("more paint") and c.candidate_matches is True
        # cached verdicts: asking again costs nothing
        again = await judge_for(url, tmp_path).judge(CANDIDATE, REFS, "a hibiscus")
        assert len(vlm.requests) == 4 and again.score == 0.5 and again.calls == 0
        assert again.comparisons == tuple(dataclasses.replace(c, candidate_first=dataclasses.replace(
            c.candidate_first, cached=True, seconds=0.0, tokens=0), reference_first=dataclasses.replace(
            c.reference_first, cached=True, seconds=0.0, tokens=0)) for c in result.comparisons)
        # the question names the subject, so a cached verdict answers that subject only
        await judge_for(url, tmp_path).judge(CANDIDATE, REFS, "A  Hibiscus")
        assert len(vlm.requests) == 4
        await judge_for(url, tmp_path).judge(CANDIDATE, REFS, "a peach hibiscus")
        assert len(vlm.requests) == 8
        # and a new version of the question (prompt or schema) is asked anew
        newer = JudgePrompt("watercolour-next", *(lambda p: (p.system, p.user))(JudgePrompt.load()))
        await judge_for(url, tmp_path, prompt=newer).judge(CANDIDATE, REFS, "a hibiscus")
        assert len(vlm.requests) == 12


def test_a_request_without_the_schema_is_refused_by_the_server():
    """The local server enforces response_format, as the judge's tests rely on."""
    from brushwork.core.chat import ChatClient

    async def ask(**kw):
        chat = ChatClient(url + "/v1", "fake-vlm", retry=Retry(1, 0.01, 5), error_cls=JudgeUnavailable)
        try:
            return await chat.complete([{"role": "system", "content": "s"}, {"role": "user", "content": [
                {"type": "text", "text": "Image A:"}, image_part(CANDIDATE),
                {"type": "text", "text": "Image B:"}, image_part(REFS[0].png), {"type": "text", "text": "?"}]}], **kw)
        finally:
            await chat.aclose()

    with serve(openai_judge_app(FakeVLMJudge("good"))) as url:
        with pytest.raises(JudgeUnavailable, match="HTTP 400.*JSON schema"):
            asyncio.run(ask())
        with pytest.raises(JudgeUnavailable, match="HTTP 400"):
            asyncio.run(ask(response_format={"type": "json_object"}))
        answer = asyncio.run(ask(response_format=RESPONSE_FORMAT))
    reading = parse_answer(answer.text)
    assert reading.winner == "first" and reading.first_matches and reading.reason.startswith("more paint")


PEACH, BLUE = COLOURS["peach"], COLOURS["blue"]


async def test_adherence_is_weighed_first_and_rides_the_verdicts_onto_the_card():
    """The attack: more paint, in the wrong colour. The stand-in reads the question's colour
    (the request reaches it) and says each painting's adherence; the verdicts carry it, and the
    ScoreCard keeps it through JSON. Its legal twin, the same painting in the colour asked
    for, wins."""
    refs = (Ref("peach", "love", painting(10, PEACH)),)
    with serve(openai_judge_app(FakeVLMJudge("good"))) as url:
        wrong = await judge_for(url).judge(painting(24, BLUE), refs, "a peach hibiscus")
        right = await judge_for(url).judge(painting(24, PEACH), refs, "a peach hibiscus")
    (w,), (r,) = wrong.comparisons, right.comparisons
    assert w.outcome == 0.0 and w.candidate_matches is False and right.score == 1.0 and r.candidate_matches is True
    assert (w.candidate_first.first_matches, w.candidate_first.second_matches) == (False, True)
    assert (w.reference_first.first_matches, w.reference_first.second_matches) == (True, False)
    assert w.candidate_first.reason == "only one is what was asked"
    card = ScoreCard(True, 0.5, {"judge": wrong.score}, {"judge": 0.6}, None, comparisons=wrong.comparisons)
    back = ScoreCard.from_dict(json.loads(json.dumps(card.to_dict())))
    assert back.comparisons == wrong.comparisons and back.comparisons[0].candidate_matches is False
    twin = ScoreCard(True, 0.9, {"judge": right.score}, {"judge": 0.6}, None, comparisons=right.comparisons)
    assert (back.adherence, twin.adherence, card.to_dict()["adherence"]) == (0.0, 1.0, 0.0)
    assert ScoreCard(True, 0.5, {"judge": None}, {"judge": 0.6}, None).adherence is None
    from brushwork.cli.score import _judged
    assert "not what was asked (0%" in _judged(back) and "what was asked in 100%" in _judged(twin)


async def test_an_answer_outside_the_schema_is_asked_again(tmp_path):
    vlm = FakeVLMJudge("off_schema", fail_first=1)
    with serve(openai_judge_app(vlm)) as url:
        result = await judge_for(url, tmp_path, concurrency=1).judge(CANDIDATE, REFS[:1], "a hibiscus")
    assert len(vlm.requests) == 3 and result.score == 1.0   # one order needed a second try
    assert sum(v.tokens for c in result.comparisons for v in (c.candidate_first, c.reference_first)) == 3 * 120


async def test_answers_always_outside_the_schema_are_none_never_cached(tmp_path):
    vlm = FakeVLMJudge("malformed")
    with serve(openai_judge_app(vlm)) as url:
        result = await judge_for(url, tmp_path, attempts=3).judge(CANDIDATE, REFS)
        assert len(vlm.requests) == 2 * 2 * 3    # 2 references x 2 orders x 3 attempts
        assert result.score is None and "outside the schema" in result.error
        assert all(c.outcome is None for c in result.comparisons)
        verdict = result.comparisons[0].candidate_first
        assert verdict.winner is None and "3 times" in verdict.reason and "nicer, honestly" in verdict.reason
        await judge_for(url, tmp_path, attempts=1).judge(CANDIDATE, REFS)
        assert len(vlm.requests) == 12 + 4        # nothing was cached
    with pytest.raises(ConfigError, match="attempts must be >= 1"):
        judge_for("http://127.0.0.1:9", attempts=0)


async def test_position_bias_becomes_a_tie():
    with serve(openai_judge_app(FakeVLMJudge("biased"))) as url:
        result = await judge_for(url).judge(CANDIDATE, REFS)
    assert [c.outcome for c in result.comparisons] == [0.5, 0.5]


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
