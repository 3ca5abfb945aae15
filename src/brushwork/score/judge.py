"""The public recipe's pairwise judge protocol, independent of who answers.

The candidate meets each drawn reference twice, once in each order; an answer is
``{"reason": ..., "winner": "first" | "second" | "tie"}`` (the reason first, so the judge
reasons before it decides; the last verdict in a reply wins); a comparison counts only when
both orders parsed; each order scores the candidate 1 / 0.5 / 0 and the comparison is the
mean of the two (so a verdict that flips with the order is a tie); the judge term is the
mean over counted comparisons. Verdicts are cached by (image hashes, order, judge model,
prompt version). Backends (`brushwork.score.backends`) only answer one ordered question.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal, Protocol

import yaml

from brushwork.errors import ConfigError, JudgeUnavailable
from brushwork.score.verdicts import VerdictCache

Winner = Literal["first", "second", "tie"]
_WINNERS = {"first": "first", "1": "first", "image 1": "first", "a": "first", "left": "first",
            "second": "second", "2": "second", "image 2": "second", "b": "second", "right": "second",
            "tie": "tie", "draw": "tie", "equal": "tie", "neither": "tie"}


@dataclass(frozen=True)
class JudgePrompt:
    version: str
    system: str
    user: str

    def user_text(self, subject: str) -> str:
        return self.user.format(subject=subject or "a flower")

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
class Answer:
    """One backend answer to one ordered question."""

    text: str
    seconds: float = 0.0
    tokens: int = 0
    probability: float | None = None   # P(first wins), when the backend knows it


class JudgeBackend(Protocol):
    model_id: str

    async def ask(self, first_png: bytes, second_png: bytes, prompt: JudgePrompt, subject: str) -> Answer: ...


_DECODER = json.JSONDecoder()
_WINNER_FIELD = re.compile(r'"winner"\s*:\s*"([^"\n]*)"', flags=re.IGNORECASE)
_REASON_FIELD = re.compile(r'"reason"\s*:\s*"(.*?)"\s*,\s*"winner"', flags=re.IGNORECASE | re.DOTALL)


def _objects(text: str):
    """Every top-level JSON object in `text` (prose, code fences and all around them), in order."""
    pos = 0
    while (start := text.find("{", pos)) != -1:
        try:
            data, end = _DECODER.raw_decode(text, start)
        except ValueError:
            pos = start + 1
            continue
        if isinstance(data, dict):
            yield data
        pos = end


def parse_answer(text: str) -> tuple[Winner | None, str]:
    """(winner, reason) from a judge's reply; winner None when it cannot be read.

    The prompt asks for ``{"reason": ..., "winner": ...}``: the verdict comes after the
    reasoning, so the last object with a "winner" decides (a judge that changes its mind
    ends with its final answer). When no object parses (say, a quote left unescaped in the
    reason), the last ``"winner": "..."`` field in the text decides. No verdict: None."""
    text = text[-20_000:]
    verdicts = [d for d in _objects(text) if "winner" in d]
    if verdicts:
        data = verdicts[-1]
        return _WINNERS.get(str(data["winner"]).strip().lower()), str(data.get("reason", ""))[:300]
    fields = _WINNER_FIELD.findall(text)
    if not fields:
        return None, ""
    reasons = _REASON_FIELD.findall(text)
    return _WINNERS.get(fields[-1].strip().lower()), (reasons[-1] if reasons else "")[:300]


@dataclass(frozen=True)
class Verdict:
    order: Literal["candidate_first", "reference_first"]
    winner: Winner | None
    reason: str
    probability: float | None = None
    cached: bool = False
    seconds: float = 0.0
    tokens: int = 0

    @property
    def candidate_score(self) -> float | None:
        if self.winner is None:
            return None
        if self.winner == "tie":
            return 0.5
        mine = "first" if self.order == "candidate_first" else "second"
        return 1.0 if self.winner == mine else 0.0


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
    """Runs the protocol with one backend: both orders, caching, a concurrency limit."""

    def __init__(self, backend: JudgeBackend, prompt: JudgePrompt | None = None,
                 cache: VerdictCache | None = None, concurrency: int = 8):
        self.backend = backend
        self.prompt = prompt or JudgePrompt.load()
        self.cache = cache
        self._limit = asyncio.Semaphore(concurrency)

    async def _verdict(self, first: bytes, second: bytes, order, subject: str) -> Verdict:
        key = (image_hash(first), image_hash(second), self.backend.model_id, self.prompt.version)
        if self.cache is not None and (hit := self.cache.get(*key)) is not None:
            return Verdict(order, hit["winner"], hit["reason"], hit.get("probability"), cached=True)
        async with self._limit:
            t0 = time.perf_counter()
            answer = await self.backend.ask(first, second, self.prompt, subject)
        winner, reason = parse_answer(answer.text)
        verdict = Verdict(order, winner, reason, answer.probability, seconds=time.perf_counter() - t0,
                          tokens=answer.tokens)
        if self.cache is not None and winner is not None:
            self.cache.put(*key, {"winner": winner, "reason": reason, "probability": answer.probability})
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
            return JudgeResult(None, tuple(comparisons), error="no comparison parsed in both orders")
        return JudgeResult(sum(outcomes) / len(outcomes), tuple(comparisons))
