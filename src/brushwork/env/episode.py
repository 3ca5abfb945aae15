"""Episodes: one task, one or more paintings, one reward. No server, no OpenEnv: the
environment's sessions run these, and a trainer may run them in-process (`EpisodeRunner`).

Single-turn (`revisions=0`): the first painting is scored and ends the episode. Multi-turn
(`revisions=k`): up to k+1 paintings; every one before the last is gated and rendered only,
and the model sees its render and a critique (never the score); the episode ends after the
k-th revision or when the model says it is done. The reward is the final painting's total, or
the best total of the episode (`reward_mode="best"`, which scores every painting). An
infrastructure failure gives reward None with a reason, never 0.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from brushwork.env.critique import critique
from brushwork.env.tasks import Task, make_task
from brushwork.errors import ConfigError, EpisodeError
from brushwork.gate import Gated, Violation
from brushwork.score.card import ScoreCard
from brushwork.score.reward import preset_weights

if TYPE_CHECKING:
    from brushwork.score.pipeline import Painting, Pipeline

RewardMode = Literal["final", "best"]
MAX_REVISIONS = 8


@dataclass(frozen=True)
class EpisodeConfig:
    revisions: int = field(default=0, metadata={"help": "revisions after the first painting (0: single-turn)"})
    reward_mode: RewardMode = field(default="final", metadata={"help": "final: the last painting's total; "
                                                                        "best: the best total of the episode"})
    preset: str | None = field(default=None, metadata={"help": "reward weights (default: the server's)"})
    group_seed: int | None = field(default=None, metadata={"help": "seed of the reference draw shared by a "
                                                                    "GRPO group (default: the episode seed)"})

    def __post_init__(self):
        if not isinstance(self.revisions, int) or not 0 <= self.revisions <= MAX_REVISIONS:
            raise ConfigError(f"revisions must be an integer from 0 to {MAX_REVISIONS}, got {self.revisions!r}")
        if self.reward_mode not in ("final", "best"):
            raise ConfigError(f"reward_mode must be 'final' or 'best', got {self.reward_mode!r}")
        if self.preset is not None:
            preset_weights(self.preset)


@dataclass(frozen=True)
class Attempt:
    """One painting of an episode: its gate verdict, render and (once scored) ScoreCard."""

    revision: int
    painting: Painting

    @property
    def gated(self) -> Gated:
        return self.painting.gated

    @property
    def total(self) -> float | None:
        return self.painting.total


@dataclass(frozen=True)
class Turn:
    """What one step produced: the painting just submitted (or kept, on "done"). `reward`,
    `card` (the rewarded painting's) and `reward_revision` (which painting that is) are set
    only when `done`."""

    revision: int
    revisions_left: int
    done: bool
    gated: Gated
    critique: str
    reward: float | None = None
    card: ScoreCard | None = None
    infra: str | None = None
    png: bytes | None = None
    reward_revision: int | None = None

    @property
    def violations(self) -> tuple[Violation, ...]:
        return self.gated.report.violations

    @property
    def notes(self) -> tuple[Violation, ...]:
        """The gate's notes (severity warning): code that would break a rule but never runs."""
        return self.gated.report.notes

    @property
    def terms(self) -> dict | None:
        """The rewarded card's terms and the reward as "total" (None until done)."""
        return None if self.card is None else {**self.card.terms, "total": self.reward}


class Episode:
    """One task and its paintings. Not thread-safe: one caller (session) at a time."""

    def __init__(self, pipeline: Pipeline, task: Task, config: EpisodeConfig, episode_id: str):
        self.pipeline = pipeline
        self.task = task
        self.config = config
        self.episode_id = episode_id
        self.attempts: list[Attempt] = []
        self.done = False
        self.final: Turn | None = None
        pipeline.weights_for(config.preset)  # a preset this pipeline cannot compute fails here, not at the end

    @property
    def group_seed(self) -> int:
        return self.task.seed if self.config.group_seed is None else self.config.group_seed

    @property
    def revisions_left(self) -> int:
        return self.config.revisions + 1 - len(self.attempts)

    def submit(self, response: str, done: bool = False) -> Turn:
        """Gate and render one painting; score it when the episode ends (or always in best mode)."""
        if self.done:
            raise EpisodeError("this episode is over: call reset() to start a new one")
        if done and self.attempts and not (response or "").strip():
            return self._finish()   # "done" without a new sketch keeps the previous painting
        attempt = Attempt(len(self.attempts), self.pipeline.gate(response, seed=self.task.seed))
        gated = attempt.gated
        last = done or len(self.attempts) + 1 > self.config.revisions
        if last or self.config.reward_mode == "best":
            attempt = self._scored(attempt)
        self.attempts.append(attempt)
        if last:
            return self._finish()
        return Turn(attempt.revision, self.revisions_left, False, gated,
                    critique(gated, attempt.revision, self.revisions_left, _copy(attempt)), png=_png(gated))

    def scored_attempts(self) -> list[Attempt]:
        """Every painting of the episode with its ScoreCard: earlier ones are scored now (for
        per-turn figures and films; the reward does not change)."""
        for i, attempt in enumerate(self.attempts):
            if attempt.painting.card is None:
                self.attempts[i] = self._scored(attempt)
        return list(self.attempts)

    def _scored(self, attempt: Attempt) -> Attempt:
        painting = self.pipeline.score(attempt.painting, seed=self.task.seed, group_seed=self.group_seed,
                                       subject=self.task.subject, preset=self.config.preset, domain=self.task.domain)
        return Attempt(attempt.revision, painting)

    def _finish(self) -> Turn:
        last = self.attempts[-1]
        if last.painting.card is None:
            last = self.attempts[-1] = self._scored(last)
        chosen = last
        if self.config.reward_mode == "best":
            numeric = [a for a in self.attempts if a.total is not None]
            chosen = max(numeric, key=lambda a: (a.total, a.revision)) if numeric else last
        card = chosen.painting.card
        reward = chosen.total
        infra = None
        if reward is None:
            infra = card.infra or "no honest score (an infrastructure failure)"
        self.done = True
        self.final = Turn(last.revision, 0, True, last.gated, critique(last.gated, last.revision, 0, _copy(last)),
                          reward=reward, card=card, infra=infra, png=_png(last.gated),
                          reward_revision=chosen.revision)
        return self.final


def _copy(attempt: Attempt):
    """The pool painting a scored attempt copies (None until it is scored)."""
    return attempt.painting.card.copy_of if attempt.painting.card is not None else None


def _png(gated: Gated) -> bytes | None:
    return gated.render.png if gated.render is not None else None


class EpisodeRunner:
    """Starts episodes on one shared pipeline (one warm renderer for every episode).

    The server's sessions each hold one episode at a time; a trainer's in-process
    environment can do the same without a server::

        runner = EpisodeRunner(Pipeline(ScoringOptions()))
        episode = runner.start(seed=3, subject="a coral hibiscus", revisions=2)
        turn = episode.submit(reply)        # turn.png, turn.critique; turn.reward when turn.done
    """

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline

    @property
    def allowed_methods(self) -> tuple[str, ...]:
        return tuple(self.pipeline.scorer.gate.config.allowed_methods)

    def start(self, seed: int | None = None, episode_id: str | None = None, subject: str | None = None,
              domain: str | None = None, references: int | None = None, revisions: int = 0,
              preset: str | None = None, reward_mode: RewardMode = "final") -> Episode:
        """A new episode; `references` is the reference-draw seed (default: `seed`)."""
        if references is not None and (isinstance(references, bool) or not isinstance(references, int)):
            raise ConfigError("references must be an integer: the seed of the reference draw shared by every "
                              "rollout of a GRPO group (explicit reference ids are not supported)")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
        config = EpisodeConfig(revisions, reward_mode, preset, references)
        task = make_task(seed, subject, domain, self.allowed_methods)
        return Episode(self.pipeline, task, config, episode_id or uuid.uuid4().hex)
