"""`Rollout`: one scored painting and what it answered — the record the film, the trainer's best
painting, multi-turn figures and evaluation share.

A rollout is a reply to one prompt, scored: its `ScoreCard`, its painting (PNG bytes, None when
nothing rendered) and its context — the task's subject and seed, its GRPO group (the reference
draw its group shares), the training step, and for a multi-turn episode which painting it is
(`turn`) and whether the episode ended on it (`final`). `reward` is what the policy was paid for
it: the card's total, or on an episode's final painting the episode's reward.

Whatever needs more wraps it (`Wraps`: each rollout field reads through, `frame.card`): a film
frame adds where its files are (`brushwork.train.film`), an evaluation sample its comparisons
against the evaluation references (`brushwork.eval.metrics`).
`gallery_card` shows a rollout on a gallery page (the demo's and the evaluation report's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from brushwork.report.gallery import Card
from brushwork.score.card import ScoreCard

T = TypeVar("T")


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


class ReadThrough(Generic[T]):
    """A field of a `Wraps` record that reads the wrapped rollout's field of the same name. A
    name `Rollout` has no field for fails when the class is defined (an AttributeError, which
    Python before 3.12 wraps in a RuntimeError)."""

    def __set_name__(self, owner: type, name: str) -> None:
        if name not in Rollout.__dataclass_fields__:
            raise AttributeError(f"{owner.__name__}.{name} reads through to a rollout, but Rollout has no field "
                                 f"{name!r}: name one of {', '.join(Rollout.__dataclass_fields__)}")
        self.name = name

    def __get__(self, record, owner: type | None = None) -> T:
        if record is None:
            return self  # type: ignore[return-value]  # the class attribute itself
        return getattr(record.rollout, self.name)


class Wraps:
    """A record around a `Rollout` (its `rollout` field) whose fields read through it:
    `frame.card` is `frame.rollout.card`. One `ReadThrough` per Rollout field, checked below, so
    readers and type checkers see each, and a name that is no field is an AttributeError."""

    rollout: Rollout
    prompt: ReadThrough[str] = ReadThrough()
    card: ReadThrough[ScoreCard] = ReadThrough()
    reply: ReadThrough[str] = ReadThrough()
    png: ReadThrough[bytes | None] = ReadThrough()
    subject: ReadThrough[str | None] = ReadThrough()
    seed: ReadThrough[int | None] = ReadThrough()
    group: ReadThrough[int] = ReadThrough()
    step: ReadThrough[int] = ReadThrough()
    turn: ReadThrough[int] = ReadThrough()
    final: ReadThrough[bool] = ReadThrough()
    reward: ReadThrough[float | None] = ReadThrough()


# A field added to Rollout without its ReadThrough fails here, at import, not in a reader's hands.
_unread = [name for name in Rollout.__dataclass_fields__ if not isinstance(vars(Wraps).get(name), ReadThrough)]
if _unread:
    raise AttributeError(f"Wraps reads no Rollout field {', '.join(_unread)}: add `{_unread[0]}: "
                         f"ReadThrough[<its type>] = ReadThrough()` to Wraps in brushwork/score/rollout.py")


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
