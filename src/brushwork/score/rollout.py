"""`Rollout`: one scored painting and what it answered — the record the film, the trainer's best
painting, multi-turn figures and evaluation share.

A rollout is a reply to one prompt, scored: its `ScoreCard`, its painting (PNG bytes, None when
nothing rendered) and its context — the task's subject and seed, its GRPO group (the reference
draw its group shares), the training step, and for a multi-turn episode which painting it is
(`turn`) and whether the episode ended on it (`final`). `reward` is what the policy was paid for
it: the card's total, or on an episode's final painting the episode's reward.

Whatever needs more wraps it: a film frame adds where its files are (`brushwork.train.film`), an
evaluation sample its comparisons against the evaluation references (`brushwork.eval.metrics`).
`gallery_card` shows a rollout on a gallery page (the demo's and the evaluation report's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brushwork.report.gallery import Card
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


def gallery_card(rollout: Rollout, name: str, image: str | None, *, code: str | None = None,
                 compared: Sequence[str] = (), context: Sequence[str] = ()) -> Card:
    """`rollout` as a gallery card: its gate verdict, violations (and the reason an infrastructure
    failure left no total) and facts — total, judge, aesthetic, length, then the caller's
    `compared` facts (the evaluation's win against its references), the paint fraction, the
    caller's `context` (the evaluation's pairing, the demo's render time) and each term's note.
    `image` is the painting's address on the page; `code` what the sketch panel shows (default: the
    whole reply)."""
    c = rollout.card
    facts = (f"total {_fmt(c.total)}", f"judge {_fmt(c.judge)}", f"aesthetic {_fmt(c.aesthetic)}",
             f"length {_fmt(c.length)}", *compared, f"paint {_fmt(c.paint_fraction, '.0%')}", *context,
             *(f"{term}: {note}" for term, note in c.term_notes.items()))
    return Card(name=name, passed=c.passed, infra=c.total is None, image=image,
                violations=tuple((v.id, v.message) for v in c.violations) + ((("infra", c.infra),) if c.infra else ()),
                facts=facts, code=rollout.reply if code is None else code)


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "–" if x is None else format(x, spec)
