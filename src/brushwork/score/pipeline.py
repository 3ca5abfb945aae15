"""The pipeline: reply -> gate -> render -> the reward's terms, in one object built from
`ScoringOptions`. The environment, the trainer's reward, evaluation, the CLI and the demo all
call it, and get the gate report, the render and the `ScoreCard` together (`Painting`).

One warm renderer (its event loop on a private thread, see `SyncRenderer`), the pool and the
scorers are shared; every method may be called from any thread, and calls run concurrently
up to the render backend's capacity.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from brushwork.errors import ConfigError
from brushwork.gate import GateConfig
from brushwork.gate.reply import Gated
from brushwork.render import RenderBackend, RenderResult, SyncRenderer
from brushwork.score.card import ScoreCard
from brushwork.score.options import ScoringOptions
from brushwork.score.reward import PRESETS, Weights
from brushwork.score.scorer import Scorer, ScorerConfig


@dataclass(frozen=True)
class Painting:
    """One reply through the pipeline: its sketch, gate report and render, and its ScoreCard
    once scored (None when it was only gated and rendered)."""

    gated: Gated
    card: ScoreCard | None = None

    @property
    def report(self):
        return self.gated.report

    @property
    def render(self) -> RenderResult | None:
        return self.gated.render

    @property
    def sketch(self):
        return self.gated.sketch

    @property
    def png(self) -> bytes | None:
        return self.gated.render.png if self.gated.render is not None else None

    @property
    def total(self) -> float | None:
        return self.card.total if self.card is not None else None


class Pipeline:
    def __init__(self, options: ScoringOptions | None = None, backend: RenderBackend | None = None,
                 gate: GateConfig | None = None, progress=None):
        """`backend`: where paintings are made (default: the local Chromium pool). `progress`: a
        callable returning a rich `Progress`, for the bar shown while a pool folder's paintings
        are rendered the first time (None: no bar)."""
        from brushwork.pool.snapshot import load_pool_with_progress

        self.options = (options or ScoringOptions()).scoring()
        self.renderer = SyncRenderer(self.options.render_config(), backend)
        try:
            self.reward = self.options.reward_config()
            self.pool = load_pool_with_progress(self.options.pool, progress, self.renderer, self.options.snapshot)
            self.scorer = Scorer(self.renderer.renderer, self.pool,
                                 ScorerConfig(reward=self.reward, gate=gate or GateConfig()), self.options)
        except BaseException:
            self.renderer.close()
            raise

    @property
    def gate_config(self) -> GateConfig:
        return self.scorer.config.gate

    def run(self, reply: str, seed: int = 0, group_seed: int | None = None, subject: str | None = None,
            preset: str | None = None, render_all: bool = False) -> Painting:
        """Gate, render and score one reply."""
        return self.score(self.gate(reply, seed, render_all, prefetch=True), seed, group_seed, subject, preset)

    def gate(self, reply: str, seed: int = 0, render_all: bool = False, prefetch: bool = False) -> Painting:
        """Gate and render only (a revision the model will see, a warm-up check); no judge call.
        `render_all` renders replies the static gate refused, too (the demo's gallery); `prefetch`
        starts the scorer's local work on the painting beside the gate (when it will be scored)."""
        return Painting(self.renderer.run(self.scorer.gate(reply, seed, render_all, prefetch)))

    def score(self, painting: Painting, seed: int = 0, group_seed: int | None = None, subject: str | None = None,
              preset: str | None = None) -> Painting:
        """Score a gated painting; `preset` weighs the total differently from the pipeline's own
        reward (only terms the pipeline computes)."""
        own = self.weights_for(preset) is None     # checks the preset against the terms computed here
        card = self.renderer.run(self.scorer.score_gated(painting.gated, seed=seed, group_seed=group_seed,
                                                         subject=subject, preset=None if own else preset))
        return replace(painting, card=card)

    def weights_for(self, preset: str | None) -> Weights | None:
        """A preset's weights, or None for the pipeline's own. A preset may only weigh terms this
        pipeline computes (an hps-only pipeline runs no judge)."""
        if preset is None or preset == self.reward.preset:
            return None
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        weights, served = PRESETS[preset], self.reward.weights
        missing = [t for t, w in weights.items() if w > 0 and served[t] == 0]
        if missing:
            raise ConfigError(f"preset {preset!r} weights {', '.join(missing)}, which this pipeline does not compute "
                              f"(it scores with {self.reward.preset or 'custom weights'}); start it with "
                              f"--preset {preset}")
        return weights

    def status(self) -> dict:
        """The render backend's state (workers, busy, restarts, versions) for /health and logs."""
        return self.renderer.status()

    def close(self) -> None:
        self.renderer.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
