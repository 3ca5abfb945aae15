"""Multi-turn training: an `environment_factory` class for TRL's GRPOTrainer.

TRL makes one instance per rollout. `reset(**row)` starts an episode from a dataset row and
returns the task text; the public method `submit_sketch` (typed, Google-style docstring)
becomes the model's tool: it renders the sketch and returns the painting as an image
content block plus a critique (never the score or the references). When the episode ends,
the reward is kept on the instance; `ToolEnvReward` hands those rewards to TRL through the
`environments` keyword.
"""

from __future__ import annotations

import io

from brushwork.score.options import ScoringOptions
from brushwork.train.rewards import shared_pipeline


class BrushworkToolEnv:
    """One multi-turn painting episode per rollout, on a process-wide warm renderer."""

    revisions: int = 2
    config: ScoringOptions | None = None

    def __init__(self):
        self.episode = None
        self.reward: float | None = None
        self.terms: dict | None = None
        self.finished = False

    def reset(self, **row) -> str:
        from brushwork.env.episode import EpisodeRunner

        runner = EpisodeRunner(shared_pipeline(self.config))
        seed = row.get("seed")
        self.episode = runner.start(seed=int(seed) if seed is not None else None, subject=row.get("subject"),
                                    domain=row.get("domain"), revisions=int(row.get("revisions", self.revisions)),
                                    references=row.get("references"))
        self.reward, self.terms, self.finished = None, None, False
        task = self.episode.task
        return (f"{task.user}\n\nSubmit each version with the submit_sketch tool; you may revise "
                f"{self.episode.config.revisions} time(s) after seeing your painting.")

    def submit_sketch(self, sketch: str) -> list[dict]:
        """Render a p5.js sketch that paints with p5.brush and see the painting.

        Args:
            sketch: the complete p5.js sketch (setup and draw), as plain code or in a ```js block.

        Returns:
            The rendered painting and a critique of what the checks saw.
        """
        if self.episode is None:
            return [{"type": "text", "text": "call reset() first"}]
        if self.finished:
            return [{"type": "text", "text": "The episode is over; the last painting was scored."}]
        turn = self.episode.submit(sketch)
        blocks: list[dict] = []
        if turn.png is not None:
            from PIL import Image

            blocks.append({"type": "image", "image": Image.open(io.BytesIO(turn.png)).convert("RGB")})
        blocks.append({"type": "text", "text": turn.critique})
        if turn.done:
            self.finished = True
            self.reward, self.terms = turn.reward, turn.terms
        return blocks


class ToolEnvReward:
    """The reward of each rollout's `BrushworkToolEnv` (None when it never finished or failed)."""

    __name__ = "brushwork_episode"

    def __call__(self, prompts, completions, completion_ids=None, environments=None, **kwargs):
        envs = environments or []
        rewards = []
        for env in envs:
            if env.episode is not None and not env.finished and env.episode.attempts:
                turn = env.episode.submit("", done=True)   # out of turns: score the last painting
                env.finished, env.reward, env.terms = True, turn.reward, turn.terms
            rewards.append(env.reward if env.finished else None)
        log_metric = kwargs.get("log_metric")
        if log_metric is not None and envs:
            log_metric("brushwork/episodes_finished", sum(e.finished for e in envs) / len(envs))
        return rewards
