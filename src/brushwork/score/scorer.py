"""The scorer: reply -> gate -> render -> judge + aesthetic -> `ScoreCard`.

A reply that fails the gate costs no judge or aesthetic call. References are drawn from
the pool's training split only, by a configurable tier mix, seeded by the group seed so
every rollout of one GRPO group faces the same references.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import asdict, dataclass, field

from brushwork.errors import ConfigError
from brushwork.gate import GateConfig
from brushwork.gate.reply import Gated, gate_reply
from brushwork.pool import Pool, PoolItem
from brushwork.render import Renderer
from brushwork.score.backends import ScorerUnavailable
from brushwork.score.card import Cost, ScoreCard, ScoreTimings
from brushwork.score.judge import PairwiseJudge
from brushwork.score.reward import PRESETS, RewardConfig, total

DEFAULT_MIX = (("love", 2), ("okay", 2))


def draw_references(pool: Pool, mix=DEFAULT_MIX, seed: int = 0) -> tuple[PoolItem, ...]:
    """Reproducible from (pool snapshot, mix, seed); never an evaluation item."""
    tiers = pool.by_tier("train")
    rng = random.Random(f"{pool.snapshot}:{seed}")
    drawn: list[PoolItem] = []
    for tier, count in mix:
        available = sorted(tiers.get(tier, []), key=lambda i: i.id)
        if len(available) < count:
            raise ConfigError(f"the pool's training split has {len(available)} {tier!r} paintings; "
                              f"the reference mix needs {count}")
        drawn.extend(rng.sample(available, count))
    for item in drawn:
        if item.split != "train":  # by construction impossible; kept as the contract's guard
            raise ConfigError(f"refusing to use evaluation item {item.id} as a reference")
    return tuple(drawn)


@dataclass
class ScorerConfig:
    reward: RewardConfig = field(default_factory=RewardConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    reference_mix: tuple[tuple[str, int], ...] = field(default=DEFAULT_MIX,
                                                       metadata={"help": "(tier, count) pairs per draw"})
    subject: str = field(default="a loose watercolour flower", metadata={"help": "what the judge is told"})


class Scorer:
    def __init__(self, renderer: Renderer, pool: Pool | None, judge: PairwiseJudge | None, aesthetic,
                 config: ScorerConfig | None = None):
        self.renderer = renderer
        self.pool = pool
        self.judge = judge
        self.aesthetic = aesthetic
        self.config = config or ScorerConfig()
        w = self.config.reward.weights
        if w.judge > 0 and (judge is None or pool is None):
            raise ConfigError("the judge term has weight > 0: give a pool and a judge backend, "
                              "or use --preset hps-only")
        if w.aesthetic > 0 and aesthetic is None:
            raise ConfigError("the aesthetic term has weight > 0: give an aesthetic backend")

    async def score(self, reply: str, seed: int = 0, group_seed: int | None = None,
                    subject: str | None = None) -> ScoreCard:
        t0 = time.perf_counter()
        gated = await gate_reply(reply, self.renderer, self.config.gate, seed=seed)
        return await self.score_gated(gated, seed, group_seed, subject, t0)

    async def score_gated(self, gated: Gated, seed: int = 0, group_seed: int | None = None,
                          subject: str | None = None, t0: float | None = None,
                          preset: str | None = None) -> ScoreCard:
        """Score a reply that has already been through `gate_reply`. `preset` (default: the
        reward's weights) may only weigh terms the scorer has backends for (`Pipeline.weights_for`)."""
        t0 = time.perf_counter() if t0 is None else t0
        cfg = self.config
        w = PRESETS[preset] if preset else cfg.reward.weights
        preset = preset or cfg.reward.preset
        render = gated.render
        render_s = render.timings.wall_s if render is not None and not render.cache_hit else 0.0
        base = dict(weights=asdict(w), preset=preset, violations=gated.report.violations, seed=seed,
                    group_seed=group_seed, paint_fraction=render.paint_fraction if render else None,
                    brush_methods=dict(render.brush_calls) if render else {},
                    filled_shapes=render.paint_calls if render else 0)
        if not gated.report.passed:
            infra = gated.report.infra_failure
            reason = "; ".join(v.message for v in gated.report.violations if v.severity == "infra") or None
            return ScoreCard(passed=False, total=None if infra else 0.0, gate=None if infra else 0.0, length=None,
                             judge=None, aesthetic=None, infra=reason,
                             timings=_timings(t0, render_s, 0, 0), **base)
        length = cfg.reward.length(gated.sketch.code) if w.length > 0 else None
        refs = draw_references(self.pool, cfg.reference_mix, seed if group_seed is None else group_seed) \
            if w.judge > 0 else ()
        judge_task = self._judge(render.png, refs, subject or cfg.subject) if w.judge > 0 else _skipped(2)
        aes_task = self._aesthetic(render.png) if w.aesthetic > 0 else _skipped(3)
        (judge_result, judge_s), (aes, aes_s, aes_err) = await asyncio.gather(judge_task, aes_task)
        judge_score = judge_result.score if judge_result else None
        infra = None
        if w.judge > 0 and judge_score is None:
            infra = f"judge: {judge_result.error}"
        if w.aesthetic > 0 and aes is None:
            infra = (infra + "; " if infra else "") + f"aesthetic: {aes_err}"
        comparisons = judge_result.comparisons if judge_result else ()
        verdicts = [v for c in comparisons for v in (c.candidate_first, c.reference_first)]
        cost = Cost(judge_calls=sum(not v.cached for v in verdicts), judge_cached=sum(v.cached for v in verdicts),
                    judge_tokens=sum(v.tokens for v in verdicts), aesthetic_calls=int(w.aesthetic > 0))
        return ScoreCard(passed=True, total=total(w, True, length, judge_score, aes), gate=1.0, length=length,
                         judge=judge_score, aesthetic=aes, infra=infra, references=tuple((r.id, r.tier) for r in refs),
                         comparisons=comparisons, cost=cost, **base,
                         timings=_timings(t0, render_s, judge_s, aes_s, self._remote_s(judge_s, aes_s)))

    def _remote_s(self, judge_s: float, aes_s: float) -> float:
        """Time spent waiting on remote services (they run concurrently)."""
        judge_remote = judge_s if getattr(self.judge and self.judge.backend, "remote", False) else 0.0
        aes_remote = aes_s if getattr(self.aesthetic, "remote", False) else 0.0
        return max(judge_remote, aes_remote)

    async def _judge(self, png: bytes, refs, subject: str):
        t = time.perf_counter()
        result = await self.judge.judge(png, refs, subject)
        return result, time.perf_counter() - t

    async def _aesthetic(self, png: bytes):
        t = time.perf_counter()
        try:
            return await self.aesthetic.score(png), time.perf_counter() - t, None
        except ScorerUnavailable as e:
            return None, time.perf_counter() - t, str(e)


async def _skipped(width: int):
    return (None, 0.0, None)[:width]


def _timings(t0: float, render_s: float, judge_s: float, aes_s: float, remote_s: float = 0.0) -> ScoreTimings:
    elapsed = time.perf_counter() - t0
    remote = remote_s
    return ScoreTimings(render_s=render_s, judge_s=judge_s, aesthetic_s=aes_s,
                        overhead_s=max(0.0, elapsed - render_s - remote), total_s=elapsed)
