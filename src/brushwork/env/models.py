"""The environment's wire types (pydantic, unknown fields rejected): `PaintAction` in,
`PaintObservation` out, `PaintState` on request. Shared by the server and the client.

A step's observation about a painting carries its gate verdict (violations and notes), render
and critique. The
reward and its terms (and the full score card, `score`, read back as a `ScoreCard` by `card`)
appear only on the observation that ends the episode: a model revising its painting never sees
its score or the references.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import Field, TypeAdapter, ValidationError, model_validator

from brushwork.env.upstream import Action, Observation, State
from brushwork.errors import ActionError
from brushwork.score.card import ScoreCard

# Part of the error a reclaimed session answers with; the client reconnects when it sees it.
SESSION_RECLAIMED = "session reclaimed"


class PaintAction(Action):
    response: str = Field(..., description="the model's whole reply: prose and one p5.js sketch "
                                           "(fenced ```js or bare) that paints with p5.brush")
    done: bool = Field(default=False, description="multi-turn: this is the final painting (with an empty "
                                                  "response: keep the previous painting) and the episode ends")

    @model_validator(mode="before")
    @classmethod
    def _check_shape(cls, data: Any) -> Any:
        """A wrong action is one error naming each missing, unknown or mistyped field and the
        expected shape (pydantic's own would say only "Invalid message" over the WebSocket)."""
        return check_action_shape(cls, data)


def check_action_shape(cls: type[Action], data: Any) -> Any:
    """`data` unchanged if it fits `cls`'s fields, else `ActionError` saying what to fix."""
    if isinstance(data, cls):
        return data
    fields = cls.model_fields
    shape = "{" + ", ".join(f'"{name}": {_type_name(f.annotation)}' + ("" if f.is_required() else " (optional)")
                            for name, f in sorted(fields.items(), key=lambda kv: not kv[1].is_required())) + "}"
    if not isinstance(data, dict):
        raise ActionError(f"an action is an object {shape}, got {type(data).__name__}")
    problems = []
    for name, f in fields.items():
        if name not in data:
            if f.is_required():
                problems.append(f'the action needs "{name}" (a {_type_name(f.annotation)}: {f.description})')
            continue
        try:
            _adapter(f.annotation).validate_python(data[name])
        except ValidationError:
            problems.append(f'"{name}" must be a {_type_name(f.annotation)}, got {type(data[name]).__name__}')
    unknown = [str(k) for k in data if k not in fields]
    if unknown:
        problems.append(f"unknown field{'s' if len(unknown) > 1 else ''} " + ", ".join(f'"{k}"' for k in unknown))
    if problems:
        raise ActionError("; ".join(problems) + f"; an action is {shape}")
    return data


@functools.cache
def _adapter(annotation: Any) -> TypeAdapter:
    return TypeAdapter(annotation)


def _type_name(annotation: Any) -> str:
    return {str: "string", bool: "boolean"}.get(annotation, "object")


class PaintObservation(Observation):
    # the task (every observation repeats it, so a reconnected client loses nothing)
    episode_id: str = Field(default="", description="the episode this observation belongs to")
    subject: str = Field(default="", description="what the task asks to paint")
    domain: str = Field(default="", description="the task's domain (hibiscus, flowers, landscape, leaves)")
    system_prompt: str = Field(default="", description="the task's system prompt")
    prompt: str = Field(default="", description="the task's user prompt")
    seed: int = Field(default=0, description="the episode seed (task, render seed, default reference draw)")
    # the painting this observation is about (none at reset)
    revision: int = Field(default=-1, description="index of the painting (0 = first); -1 at reset")
    revisions_left: int = Field(default=0, description="paintings the model may still submit")
    passed: bool | None = Field(default=None, description="whether the painting passed the gate")
    violations: list[dict[str, Any]] = Field(default_factory=list,
                                             description="gate violations: id, severity, message, line")
    notes: list[dict[str, Any]] = Field(default_factory=list,
                                        description="gate notes (severity warning): code that would break a rule "
                                                    "but never runs, an event handler's body: id, severity, "
                                                    "message, line")
    critique: str = Field(default="", description="what the gate and the page saw; never the score")
    paint_fraction: float | None = Field(default=None, description="share of the canvas that is painted")
    js_errors: list[str] = Field(default_factory=list, description="errors the sketch threw while painting")
    image_png_b64: str | None = Field(default=None, description="the render as base64 PNG (every revision "
                                                                "step; the final one with return_image)")
    # the outcome (only when done)
    terms: dict[str, float | None] | None = Field(default=None, description="gate, length, judge, aesthetic, "
                                                                            "total of the rewarded painting")
    score: dict[str, Any] | None = Field(default=None, description="the rewarded painting's full ScoreCard")
    reward_revision: int | None = Field(default=None, description="which painting the reward is for")
    infra: str | None = Field(default=None, description="why the reward is None (an infrastructure failure)")

    @property
    def card(self) -> ScoreCard | None:
        """The rewarded painting's `ScoreCard`, read back from `score` (None before the end)."""
        return ScoreCard.from_dict(self.score) if self.score else None


class PaintState(State):
    subject: str = ""
    domain: str = ""
    seed: int = 0
    group_seed: int = 0
    revisions: int = 0
    reward_mode: str = "final"
    preset: str | None = None
    paintings: int = Field(default=0, description="paintings submitted so far")
    done: bool = False
    reward: float | None = Field(default=None, description="set when the episode is over")
