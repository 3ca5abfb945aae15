"""Episodes: one task, one or more paintings, one reward. No server, no OpenEnv: the
environment's sessions run these, and a trainer may run them in-process (`EpisodeRunner`).

Single-turn (`revisions=0`): the first painting is scored and ends the episode. Multi-turn
(`revisions=k`): up to k+1 paintings; every one before the last is gated and rendered only,
and the model sees its render and a critique (never the score); the episode ends after the
k-th revision or when the model says it is done. The reward is the final painting's total, or
the best total of the episode (`reward_mode="best"`, which scores every painting). An
infrastructure failure gives reward None with a reason, never 0.

A scored painting is a `Rollout` (`brushwork.score.rollout`), the record the film, the
evaluation and the environment's observation read: a `Turn` holds the rollout of the painting
it reports and, when the episode ends, the one the reward is paid for (`rewarded`).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from brushwork.env.critique import critique
from brushwork.env.tasks import Task, make_task
from brushwork.errors import ConfigError, EpisodeError
from brushwork.gate import Gated, Violation
from brushwork.score.card import ScoreCard
from brushwork.score.reward import preset_weights
from brushwork.score.rollout import Rollout

if TYPE_CHECKING:
    from brushwork.score.pipeline import Pipeline

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
    """One painting of an episode: the reply it was submitted as, its gate verdict and render
    (`gated`) and, once scored, its `Rollout`."""

    revision: int
    gated: Gated
    reply: str = ""
    rollout: Rollout | None = None

    @property
    def total(self) -> float | None:
        return self.rollout.card.total if self.rollout is not None else None


@dataclass(frozen=True)
class Turn:
    """What one step produced: the painting just submitted (or kept, on "done") — its gate
    verdict and render (`gated`), and its `rollout` once scored (always when done; every
    painting in best mode). When `done`, `rewarded` is the rollout the reward is paid for: this
    painting's, or in best mode an earlier, better one."""

    revision: int
    revisions_left: int
    done: bool
    gated: Gated
    critique: str
    rollout: Rollout | None = None
    rewarded: Rollout | None = None

    @property
    def reward(self) -> float | None:
        return self.rewarded.reward if self.rewarded is not None else None

    @property
    def card(self) -> ScoreCard | None:
        """The rewarded painting's card (None until done)."""
        return self.rewarded.card if self.rewarded is not None else None

    @property
    def reward_revision(self) -> int | None:
        return self.rewarded.turn if self.rewarded is not None else None

    @property
    def infra(self) -> str | None:
        """Why the reward is None (an infrastructure failure); None otherwise and until done."""
        if self.rewarded is None or self.reward is not None:
            return None
        return self.rewarded.card.infra or "no honest score (an infrastructure failure)"

    @property
    def png(self) -> bytes | None:
        return self.gated.render.png if self.gated.render is not None else None

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
        attempt = Attempt(len(self.attempts), self.pipeline.gate(response, seed=self.task.seed).gated, response or "")
        last = done or len(self.attempts) + 1 > self.config.revisions
        if last or self.config.reward_mode == "best":
            attempt = self._scored(attempt)
        self.attempts.append(attempt)
        if last:
            return self._finish()
        return Turn(attempt.revision, self.revisions_left, False, attempt.gated,
                    critique(attempt.gated, attempt.revision, self.revisions_left, _copy(attempt)),
                    rollout=attempt.rollout)

    def rollouts(self) -> list[Rollout]:
        """Every painting of the episode as a Rollout, in turn order: earlier ones are scored now
        (for per-turn figures and films; the reward does not change). The last is the final one,
        paid the episode's reward (None while the episode is unfinished); the others their own total."""
        for i, attempt in enumerate(self.attempts):
            if attempt.rollout is None:
                self.attempts[i] = self._scored(attempt)
        rollouts = [a.rollout for a in self.attempts]
        if rollouts and not self.done:
            rollouts[-1] = replace(rollouts[-1], final=True, reward=None)
        return rollouts

    def _scored(self, attempt: Attempt) -> Attempt:
        from brushwork.score.pipeline import Painting

        painting = self.pipeline.score(Painting(attempt.gated), seed=self.task.seed, group_seed=self.group_seed,
                                       subject=self.task.subject, preset=self.config.preset, domain=self.task.domain)
        rollout = Rollout(self.task.user, painting.card, reply=attempt.reply, png=painting.png,
                          subject=self.task.subject, seed=self.task.seed, group=self.group_seed,
                          turn=attempt.revision, final=False)
        return replace(attempt, rollout=rollout)

    def _finish(self) -> Turn:
        last = self.attempts[-1]
        if last.rollout is None:
            last = self.attempts[-1] = self._scored(last)
        chosen = last
        if self.config.reward_mode == "best":
            numeric = [a for a in self.attempts if a.total is not None]
            chosen = max(numeric, key=lambda a: (a.total, a.revision)) if numeric else last
        # the episode ends on its last painting, paid the chosen painting's total
        last = self.attempts[-1] = replace(last, rollout=replace(last.rollout, final=True, reward=chosen.total))
        rewarded = last.rollout if chosen.revision == last.revision else chosen.rollout
        self.done = True
        self.final = Turn(last.revision, 0, True, last.gated, critique(last.gated, last.revision, 0, _copy(last)),
                          rollout=last.rollout, rewarded=rewarded)
        return self.final


def _copy(attempt: Attempt):
    """The pool painting a scored attempt copies (None until it is scored)."""
    return attempt.rollout.card.copy_of if attempt.rollout is not None else None


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
