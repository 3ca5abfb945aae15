"""Multi-turn training: an `environment_factory` class for TRL's GRPOTrainer.

TRL makes one instance per rollout. `reset(**row)` starts an episode from a dataset row and
returns the instructions TRL appends to the row's user message; the public method
`submit_sketch` (typed, Google-style docstring) becomes the model's tool: it renders the
sketch and returns the painting as an image content block (for a vision-language policy:
`images = True`) plus a critique (never the score or the references). When the episode ends,
the reward is kept on the instance; `ToolEnvReward` hands those rewards to TRL through the
`environments` keyword, logs per-turn figures (tool-call rate, first and final gate pass
rates, revision gain, fix rate) and films every painting of every rollout.

A rollout that never called the tool is scored on its text answer, as a single-turn reply
would be: a policy that has not learned the tool still learns from its paintings.
"""

from __future__ import annotations

import io
import threading
import time

from brushwork.score.options import ScoringOptions
from brushwork.train.rewards import shared_pipeline


def instructions(revisions: int) -> str:
    """What `reset` appends to the task's user message."""
    return (f"\n\nSubmit your sketch with the submit_sketch tool. You will see the painting and a critique, and may "
            f"revise {revisions} time(s); answer without a tool call to keep your last painting.")


def tool_schema() -> dict:
    """The JSON schema of `BrushworkToolEnv.submit_sketch`, as TRL renders it into the prompt."""
    from transformers.utils import get_json_schema

    return get_json_schema(BrushworkToolEnv().submit_sketch)


def tool_call(sketch: str) -> dict:
    function = {"name": "submit_sketch", "arguments": {"sketch": sketch}}
    return {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": function}]}


def tool_result(critique: str) -> dict:
    return {"role": "tool", "name": "submit_sketch", "content": critique}


class EnvClock:
    """Wall seconds spent in the environment (gate, render, score) since the last `take`."""

    def __init__(self):
        self._lock = threading.Lock()
        self._seconds = 0.0

    def add(self, seconds: float) -> None:
        with self._lock:
            self._seconds += seconds

    def take(self) -> float:
        with self._lock:
            seconds, self._seconds = self._seconds, 0.0
        return seconds


CLOCK = EnvClock()


class BrushworkToolEnv:
    """One multi-turn painting episode per rollout, on a process-wide warm renderer."""

    revisions: int = 2
    config: ScoringOptions | None = None
    images: bool = False     # True for a vision-language policy: the painting as an image block
    pipeline = None          # a Pipeline to use instead of the process-wide one (evaluation)

    def __init__(self):
        self.episode = None
        self.row: dict = {}
        self.reward: float | None = None
        self.terms: dict | None = None
        self.finished = False
        self.calls = 0

    @property
    def replies(self) -> list[str]:
        """What each painting was submitted as: the episode's attempts, in order."""
        return [attempt.reply for attempt in self.episode.attempts] if self.episode is not None else []

    def reset(self, **row) -> str:
        from brushwork.env.episode import EpisodeRunner

        runner = EpisodeRunner(self.pipeline or shared_pipeline(self.config))
        seed = row.get("seed")
        self.episode = runner.start(seed=int(seed) if seed is not None else None, subject=row.get("subject"),
                                    domain=row.get("domain"), revisions=int(row.get("revisions", self.revisions)),
                                    references=row.get("references"))
        self.row = row
        self.reward, self.terms, self.finished, self.calls = None, None, False, 0
        return instructions(self.episode.config.revisions)

    def submit_sketch(self, sketch: str):   # no return annotation: the tool's schema stays short
        """Render a p5.js sketch that paints with p5.brush and see the painting and a critique.

        Args:
            sketch: the complete p5.js sketch (setup and draw).
        """
        if self.episode is None:
            return [{"type": "text", "text": "call reset() first"}]
        if self.finished:
            return [{"type": "text", "text": "The episode is over; the last painting was scored."}]
        self.calls += 1
        t0 = time.perf_counter()
        turn = self.episode.submit(sketch)
        CLOCK.add(time.perf_counter() - t0)
        blocks: list[dict] = []
        if turn.png is not None and self.images:
            from PIL import Image

            blocks.append({"type": "image", "image": Image.open(io.BytesIO(turn.png)).convert("RGB")})
        blocks.append({"type": "text", "text": turn.critique})
        if turn.done:
            self.finished = True
            self.reward, self.terms = turn.reward, turn.terms
        return blocks if self.images else turn.critique


def finish_episode(env: BrushworkToolEnv, answer: str) -> None:
    """End `env`'s episode after the conversation: keep the last painting, or score the text
    answer when the tool was never called. (A function, not a method: every public method of
    an environment becomes a tool.)"""
    if env.episode is None or env.finished:
        return
    t0 = time.perf_counter()
    turn = env.episode.submit("" if env.episode.attempts else answer, done=True)
    CLOCK.add(time.perf_counter() - t0)
    env.finished, env.reward, env.terms = True, turn.reward, turn.terms


class ToolEnvReward:
    """The reward of each rollout's `BrushworkToolEnv` (None when it failed on our side)."""

    __name__ = "brushwork_episode"

    def __init__(self, film: str | None = None):
        self.film = film
        self.best = None

    def __call__(self, prompts, completions, completion_ids=None, environments=None, **kwargs):
        from brushwork.train.episodes import episode_stats, record_episodes
        from brushwork.train.rewards import completion_text

        envs = environments or []
        for env, completion in zip(envs, completions):
            finish_episode(env, completion_text(completion))
        rewards = [env.reward if env.finished else None for env in envs]
        step = int(getattr(kwargs.get("trainer_state"), "global_step", 0) or 0) + 1
        log_metric = kwargs.get("log_metric")
        if envs:
            stats, best = episode_stats(envs, step, prompts)
            if best is not None and (self.best is None or best.reward > self.best.reward):
                self.best = best
            if log_metric is not None:
                for key, value in stats.items():
                    log_metric(key, value)
                log_metric("brushwork/env_seconds", CLOCK.take())
            if self.film:
                record_episodes(self.film, step, prompts, envs)
        return rewards

    def take_best(self):
        """The best final painting that passed since the last call (for the tracker)."""
        best, self.best = self.best, None
        return best


def prefetch(trainer, prompt_ids, completion_ids) -> None:
    """Render every sketch submitted in `completion_ids` at once, on every task seed of the
    batch (one per GRPO group), so that TRL's tool calls, which run one after another, find
    their renders in the cache."""
    import asyncio

    from transformers import ProcessorMixin
    from trl.chat_template_utils import parse_response

    envs = [e for e in (trainer.environments or []) if getattr(e, "episode", None) is not None]
    if not envs:
        return
    seeds = sorted({e.episode.task.seed for e in envs})
    processing = trainer.processing_class    # a VLM's processor holds the tokenizer (TRL reads it so too)
    tokenizer = processing.tokenizer if isinstance(processing, ProcessorMixin) else processing
    sketches = []
    for i, ids in enumerate(completion_ids):
        prefix = prompt_ids[i] if len(prompt_ids) == len(completion_ids) else None
        message = parse_response(tokenizer, list(ids), prefix=prefix, tools=trainer.tools) if ids else {}
        for call in message.get("tool_calls") or ():
            sketch = (call.get("function") or {}).get("arguments", {}).get("sketch")
            if isinstance(sketch, str) and sketch.strip():
                sketches.append(sketch)
    pipeline = shared_pipeline(type(envs[0]).config)
    jobs = [(s, seed) for s in dict.fromkeys(sketches) for seed in seeds]
    t0 = time.perf_counter()

    async def gate_all():   # on the pipeline's loop, concurrently up to the renderer's capacity
        await asyncio.gather(*(pipeline.agate(sketch, seed) for sketch, seed in jobs))
    pipeline.submit(gate_all())
    CLOCK.add(time.perf_counter() - t0)


def trainer_class():
    """GRPOTrainer whose tool calls render in parallel (`prefetch` after every generation)."""
    from trl import GRPOTrainer

    class BrushworkGRPOTrainer(GRPOTrainer):
        def _generate_single_turn(self, prompt_ids, *args, **kwargs):
            out = super()._generate_single_turn(prompt_ids, *args, **kwargs)
            try:
                prefetch(self, prompt_ids, out[0])
            except Exception as e:   # a prefetch is an optimisation: the tool call renders anyway
                import warnings

                warnings.warn(f"brushwork: render prefetch failed ({type(e).__name__}: {e})", stacklevel=2)
            return out

    return BrushworkGRPOTrainer
