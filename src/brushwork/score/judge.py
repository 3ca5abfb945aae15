"""The public recipe's pairwise judge protocol, independent of who answers.

The candidate meets each drawn reference twice, once in each order. The question names what
the task asked for (its subject, colour included: "a peach hibiscus"), and a VLM's answer is
bound by a JSON schema (`ANSWER_SCHEMA`, sent as the request's ``response_format``) with the
verdict first and no tie: ``{"winner": "A" | "B", "a_matches_request": bool,
"b_matches_request": bool, "reason": "..."}``, image A being the one shown first. An answer
outside the schema is asked again (`PairwiseJudge.attempts` in all), then counts as unread: a
comparison counts only when both orders were read; each order scores the candidate 1 / 0 (0.5
for the offline judge's tie) and the comparison is the mean of the two (a verdict that flips with
the order is a tie); the judge term is the mean over counted comparisons. Verdicts are cached by
(image hashes, order, judge model, question: prompt version, schema version and subject).
Backends (`brushwork.score.backends`) only answer one ordered question.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal, Protocol

import yaml

from brushwork.errors import ConfigError, JudgeUnavailable
from brushwork.score.verdicts import VerdictCache

Winner = Literal["first", "second", "tie"]   # "tie": only the offline taste judge's band says it

SCHEMA_VERSION = "ab-adherence-1"   # part of every verdict's cache key: bump it with the schema
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {   # in the order a schema-bound decoder writes them: the verdict first
        "winner": {"type": "string", "enum": ["A", "B"]},
        "a_matches_request": {"type": "boolean"},
        "b_matches_request": {"type": "boolean"},
        "reason": {"type": "string", "maxLength": 300},
    },
    "required": ["winner", "a_matches_request", "b_matches_request", "reason"],
    "additionalProperties": False,
}
RESPONSE_FORMAT = {"type": "json_schema",
                   "json_schema": {"name": "pairwise_verdict", "schema": ANSWER_SCHEMA, "strict": True}}
_WINNERS = {"A": "first", "B": "second"}


@dataclass(frozen=True)
class JudgePrompt:
    version: str
    system: str
    user: str

    def user_text(self, subject: str) -> str:
        return self.user.format(subject=subject or "a flower")

    def question_key(self, subject: str) -> str:
        """What a cached verdict answered: this prompt's version, the answer schema's, the subject."""
        return f"{self.version}/{SCHEMA_VERSION}/{' '.join(subject.lower().split())}"

    @classmethod
    def load(cls, name_or_path: str = "watercolour") -> JudgePrompt:
        path = Path(name_or_path)
        if path.suffix in (".yaml", ".yml") and path.exists():
            text = path.read_text()
        else:
            try:
                text = resources.files("brushwork.score").joinpath("prompts", f"{name_or_path}.yaml").read_text()
            except FileNotFoundError as e:
                raise ConfigError(f"no judge prompt {name_or_path!r}: give a YAML file or one of "
                                  f"{', '.join(available_prompts())}") from e
        data = yaml.safe_load(text)
        return cls(version=data["version"], system=data["system"].strip(), user=data["user"].strip())


@cache
def available_prompts() -> tuple[str, ...]:
    folder = resources.files("brushwork.score").joinpath("prompts")
    return tuple(sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")))


@dataclass(frozen=True)
class Reading:
    """What one answer says: who won, whether each painting is what was asked, and why."""

    winner: Winner
    first_matches: bool | None = None
    second_matches: bool | None = None
    reason: str = ""


@dataclass(frozen=True)
class Answer:
    """One backend answer to one ordered question: the reply's text, or a `reading` given
    ready-made by a backend that decides without writing (the taste model)."""

    text: str = ""
    seconds: float = 0.0
    tokens: int = 0
    probability: float | None = None   # P(first wins), when the backend knows it
    reading: Reading | None = None


class JudgeBackend(Protocol):
    model_id: str

    async def ask(self, first_png: bytes, second_png: bytes, prompt: JudgePrompt, subject: str) -> Answer: ...


def _fits(data, schema: dict) -> bool:
    """`data` is an object `schema` allows (the parts of JSON Schema that `ANSWER_SCHEMA` uses)."""
    props = schema["properties"]
    if not isinstance(data, dict) or not set(schema["required"]) <= set(data) <= set(props):
        return False
    kinds = {"string": str, "boolean": bool}
    for key, value in data.items():
        rule = props[key]
        if not isinstance(value, kinds[rule["type"]]) or ("enum" in rule and value not in rule["enum"]):
            return False
        if isinstance(value, str) and len(value) > rule.get("maxLength", len(value)):
            return False
    return True


def parse_answer(text: str) -> Reading | None:
    """The reading of a schema-bound reply, or None when the reply is outside `ANSWER_SCHEMA`
    (prose, a code fence, a tie, a missing or extra field, a reply cut short)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not _fits(data, ANSWER_SCHEMA):
        return None
    return Reading(_WINNERS[data["winner"]], data["a_matches_request"], data["b_matches_request"], data["reason"])


@dataclass(frozen=True)
class Verdict:
    order: Literal["candidate_first", "reference_first"]
    winner: Winner | None
    reason: str
    probability: float | None = None
    cached: bool = False
    seconds: float = 0.0
    tokens: int = 0
    first_matches: bool | None = None    # the judge's word: the painting shown first is what was asked
    second_matches: bool | None = None

    @property
    def candidate_score(self) -> float | None:
        if self.winner is None:
            return None
        if self.winner == "tie":
            return 0.5
        mine = "first" if self.order == "candidate_first" else "second"
        return 1.0 if self.winner == mine else 0.0

    @property
    def candidate_matches(self) -> bool | None:
        """Whether the judge read the candidate as the subject and colour asked for."""
        return self.first_matches if self.order == "candidate_first" else self.second_matches


@dataclass(frozen=True)
class Comparison:
    reference: str
    tier: str
    candidate_first: Verdict
    reference_first: Verdict

    @property
    def outcome(self) -> float | None:
        a, b = self.candidate_first.candidate_score, self.reference_first.candidate_score
        if a is None or b is None:
            return None
        return (a + b) / 2

    @property
    def candidate_matches(self) -> bool | None:
        """The candidate's adherence when both orders say the same, else None."""
        a, b = self.candidate_first.candidate_matches, self.reference_first.candidate_matches
        return a if a == b else None


@dataclass(frozen=True)
class JudgeResult:
    score: float | None
    comparisons: tuple[Comparison, ...]
    error: str | None = None

    @property
    def calls(self) -> int:
        return sum(not v.cached for c in self.comparisons for v in (c.candidate_first, c.reference_first))


def image_hash(png: bytes) -> str:
    return hashlib.sha256(png).hexdigest()


class PairwiseJudge:
    """Runs the protocol with one backend: both orders, an answer outside the schema asked
    again (`attempts` in all), caching, a concurrency limit."""

    def __init__(self, backend: JudgeBackend, prompt: JudgePrompt | None = None,
                 cache: VerdictCache | None = None, concurrency: int = 8, attempts: int = 2):
        if attempts < 1:
            raise ConfigError(f"judge attempts must be >= 1 (asking at least once), got {attempts}")
        self.backend = backend
        self.prompt = prompt or JudgePrompt.load()
        self.cache = cache
        self.attempts = attempts
        self._limit = asyncio.Semaphore(concurrency)

    async def start(self) -> None:
        """Open the backend's connection (a remote judge's) on the loop that will ask it."""
        if hasattr(self.backend, "start"):
            await self.backend.start()

    async def aclose(self) -> None:
        if hasattr(self.backend, "aclose"):
            await self.backend.aclose()

    async def ask(self, first: bytes, second: bytes, subject: str = "",
                  order: Literal["candidate_first", "reference_first"] = "candidate_first") -> Verdict:
        """One ordered question, never cached: asked again while the answer is outside the
        schema; after `attempts` such answers the verdict's winner is None (nobody's fault
        but the judge's: the comparison does not count). `JudgeUnavailable` passes through."""
        t0, tokens, text = time.perf_counter(), 0, ""
        for _ in range(self.attempts):
            async with self._limit:
                answer = await self.backend.ask(first, second, self.prompt, subject)
            tokens, text = tokens + answer.tokens, answer.text
            reading = answer.reading or parse_answer(answer.text)
            if reading is not None:
                return Verdict(order, reading.winner, reading.reason, answer.probability,
                               seconds=time.perf_counter() - t0, tokens=tokens,
                               first_matches=reading.first_matches, second_matches=reading.second_matches)
        return Verdict(order, None, f"answer outside the schema {self.attempts} times; the last: {text[:200]!r}",
                       seconds=time.perf_counter() - t0, tokens=tokens)

    async def _verdict(self, first: bytes, second: bytes, order, subject: str) -> Verdict:
        key = (image_hash(first), image_hash(second), self.backend.model_id, self.prompt.question_key(subject))
        if self.cache is not None and (hit := self.cache.get(*key)) is not None:
            return Verdict(order, hit["winner"], hit["reason"], hit.get("probability"), cached=True,
                           first_matches=hit.get("first_matches"), second_matches=hit.get("second_matches"))
        verdict = await self.ask(first, second, subject, order)
        if self.cache is not None and verdict.winner is not None:
            self.cache.put(*key, {"winner": verdict.winner, "reason": verdict.reason,
                                  "probability": verdict.probability, "first_matches": verdict.first_matches,
                                  "second_matches": verdict.second_matches})
        return verdict

    async def compare(self, candidate: bytes, reference: bytes, ref_id: str, tier: str,
                      subject: str = "") -> Comparison:
        a, b = await asyncio.gather(self._verdict(candidate, reference, "candidate_first", subject),
                                    self._verdict(reference, candidate, "reference_first", subject))
        return Comparison(ref_id, tier, a, b)

    async def judge(self, candidate: bytes, references, subject: str = "") -> JudgeResult:
        """`references`: items with `.id`, `.tier`, `.image_bytes()` (pool items)."""
        try:
            comparisons = await asyncio.gather(*(self.compare(candidate, r.image_bytes(), r.id, r.tier, subject)
                                                 for r in references))
        except JudgeUnavailable as e:
            return JudgeResult(None, (), error=str(e))
        outcomes = [c.outcome for c in comparisons if c.outcome is not None]
        if not outcomes:
            return JudgeResult(None, tuple(comparisons), error="no comparison read in both orders (answers "
                               "outside the schema: see each verdict's reason)")
        return JudgeResult(sum(outcomes) / len(outcomes), tuple(comparisons))
