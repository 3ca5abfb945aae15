"""A policy's multi-turn episodes outside TRL: the loop `brushwork eval --revisions K` and the
multi-turn warm-up check run, with the same tool, chat template and response parser as GRPO.

Each conversation is the task's prompt plus `BrushworkToolEnv.reset`'s instructions; every
turn samples one assistant message for every open conversation at once, runs its
`submit_sketch` calls on that conversation's environment and appends the tool's answer (the
critique; for a vision-language policy the painting too). A conversation closes when the
model answers without a tool call or its last painting was submitted; the environment then
keeps the last painting (or scores the text answer when the tool was never called).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Played:
    """One finished episode: its row, environment (episode, replies, reward) and messages."""

    row: dict
    env: object
    messages: list[dict] = field(default_factory=list)


def opening(row: dict, suffix: str) -> list[dict]:
    """The row's prompt with `suffix` appended to its last user message (as TRL does)."""
    last = row["prompt"][-1]
    return [*row["prompt"][:-1], {**last, "content": last["content"] + suffix}]


def play(model, tokenizer, rows: list[dict], samples: int, revisions: int, pipeline=None,
         sampling: dict | None = None, on_turn: Callable[[int, int], None] | None = None) -> list[Played]:
    """`samples` episodes per row with up to `revisions` revisions each (rows in order)."""
    from brushwork.train.policy import sample_messages
    from brushwork.train.rewards import completion_text
    from brushwork.train.tool_env import BrushworkToolEnv, finish_episode, tool_schema

    env_cls = type("EvalToolEnv", (BrushworkToolEnv,), {"pipeline": pipeline, "revisions": revisions})
    played = []
    for row in rows:
        for _ in range(samples):
            env = env_cls()
            suffix = env.reset(**{**row, "revisions": revisions})
            played.append(Played(row, env, opening(row, suffix)))
    sampling = dict(sampling or {})
    seed = int(sampling.pop("seed", 0))
    tools = [tool_schema()]
    open_ = list(range(len(played)))
    turn = 0
    while open_ and turn <= revisions + 2:   # a model calling unknown tools must stop too
        replies = sample_messages(model, tokenizer, [played[i].messages for i in open_], tools,
                                  seed=seed * 1_000_003 + turn, **sampling)
        still = []
        for i, message in zip(open_, replies):
            episode = played[i]
            calls = message.get("tool_calls") or []
            episode.messages.append({"role": "assistant", "content": message.get("content") or "",
                                     **({"tool_calls": calls} if calls else {})})
            if not calls:
                continue
            for call in calls:
                episode.messages.append({"role": "tool", "name": _name(call), "content": _run(episode.env, call)})
            if not episode.env.finished:
                still.append(i)
        open_ = still
        turn += 1
        if on_turn is not None:
            on_turn(turn, len(open_))
    for episode in played:
        finish_episode(episode.env, completion_text(episode.messages))
    return played


def _name(call: dict) -> str:
    return str((call.get("function") or {}).get("name", ""))


def _run(env, call: dict):
    function = call.get("function") or {}
    arguments = function.get("arguments") or {}
    if function.get("name") != "submit_sketch" or not isinstance(arguments, dict) or "sketch" not in arguments:
        return str({"error": f"Tool {function.get('name')!r} not found or called without a sketch."})
    return env.submit_sketch(str(arguments["sketch"]))
