"""A thread-safe, synchronous scoring service: one warm renderer + scorer shared by many
callers (environment sessions, TRL reward functions, scripts).

The renderer's event loop runs on a private thread (see `SyncRenderer`); `score()` and
`gate_and_render()` may be called from any thread and run concurrently up to the
renderer's worker count.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.gate.live import Gated, gate_reply
from brushwork.render import RenderConfig, SyncRenderer
from brushwork.score.build import BackendOptions, build_backends, reward_config
from brushwork.score.card import ScoreCard
from brushwork.score.scorer import Scorer, ScorerConfig


@dataclass
class ServiceConfig:
    pool: Path | None = field(default=None, metadata={"help": "pool store or folder (default: the example pool)"})
    snapshot: str | None = field(default=None, metadata={"help": "pool store snapshot"})
    preset: str = field(default="judge-led", metadata={"help": "judge-led, hps-led or hps-only"})
    reward_file: Path | None = field(default=None, metadata={"help": "reward YAML (overrides preset)"})
    backends: BackendOptions = field(default_factory=BackendOptions)
    render: RenderConfig = field(default_factory=RenderConfig)


class ScoringService:
    def __init__(self, config: ServiceConfig | None = None):
        from brushwork.pool import example_pool_dir
        from brushwork.pool.snapshot import open_pool

        self.config = config or ServiceConfig()
        self.renderer = SyncRenderer(self.config.render)
        try:
            self.reward = reward_config(self.config.preset, self.config.reward_file)
            self.pool = open_pool(self.config.pool or example_pool_dir(), self.config.snapshot,
                                  renderer=self.renderer)
            judge, aesthetic = build_backends(self.pool, self.config.backends, self.reward)
            self.scorer = Scorer(self.renderer.renderer, self.pool, judge, aesthetic, ScorerConfig(reward=self.reward))
        except BaseException:
            self.renderer.close()
            raise

    def _run(self, coro, timeout: float | None = None):
        return asyncio.run_coroutine_threadsafe(coro, self.renderer._loop).result(timeout)

    def score(self, reply: str, seed: int = 0, group_seed: int | None = None, subject: str | None = None) -> ScoreCard:
        return self._run(self.scorer.score(reply, seed=seed, group_seed=group_seed, subject=subject))

    def gate_and_render(self, reply: str, seed: int = 0) -> Gated:
        return self._run(gate_reply(reply, self.renderer.renderer, self.scorer.config.gate, seed=seed))

    def score_gated(self, gated: Gated, seed: int = 0, group_seed: int | None = None,
                    subject: str | None = None) -> ScoreCard:
        return self._run(self.scorer.score_gated(gated, seed=seed, group_seed=group_seed, subject=subject))

    def close(self) -> None:
        self.renderer.close()

    def __enter__(self) -> ScoringService:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
