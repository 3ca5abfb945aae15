"""`Rollout`: one scored painting and what it answered — the record the film, the trainer's best
painting, multi-turn figures and evaluation share.

A rollout is a reply to one prompt, scored: its `ScoreCard`, its painting (PNG bytes, None when
nothing rendered) and its context — the task's subject and seed, its GRPO group (the reference
draw its group shares), the training step, and for a multi-turn episode which painting it is
(`turn`) and whether the episode ended on it (`final`). `reward` is what the policy was paid for
it: the card's total, or on an episode's final painting the episode's reward.

Whatever needs more wraps it: a film frame adds where its files are (`brushwork.train.film`), an
evaluation sample its comparisons against the evaluation references (`brushwork.eval.metrics`).
"""

from __future__ import annotations

from dataclasses import dataclass

from brushwork.score.card import ScoreCard


@dataclass(frozen=True)
class Rollout:
    prompt: str                      # the user's request
    card: ScoreCard
    reply: str = ""                  # the model's whole reply
    png: bytes | None = None
    subject: str | None = None
    seed: int | None = None          # the task's (render) seed
    group: int | None = None         # the group seed; default: the card's
    step: int = 0
    turn: int = 0                    # multi-turn: 0 for the first painting, k after k revisions
    final: bool = True               # multi-turn: the painting the episode ended with
    reward: float | None = ...       # type: ignore[assignment]  # default: the card's total

    def __post_init__(self):
        if self.reward is ...:
            object.__setattr__(self, "reward", self.card.total)
        if self.group is None:
            object.__setattr__(self, "group", self.card.group_seed if self.card.group_seed is not None else 0)


class Wraps:
    """A record around a `Rollout` (its `rollout` field) whose fields read through it:
    `frame.card` is `frame.rollout.card`."""

    def __getattr__(self, name: str):
        rollout = self.__dict__.get("rollout")
        if rollout is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(rollout, name)
