"""The scorer: reply -> gate -> render -> the reward's terms -> `ScoreCard`.

A reply that fails the gate costs no judge or aesthetic call. The configured terms (`Weights.terms`)
with a weight run concurrently; the judge draws its references from the pool's training split only,
by a configurable tier mix, seeded by the group seed so every rollout of one GRPO group faces
the same references.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict

from brushwork.errors import ConfigError
from brushwork.gate import Gate, Gated
from brushwork.pool import Pool
from brushwork.render import Renderer
from brushwork.score.build import Wiring
from brushwork.score.card import Cost, ScoreCard, ScoreTimings
from brushwork.score.copies import CopyDetector
from brushwork.score.options import ScoringOptions
from brushwork.score.references import infer_domain
from brushwork.score.reward import RewardConfig, Weights, preset_weights, total
from brushwork.score.terms import Canvas, Term, Value


class Scorer:
    def __init__(self, renderer: Renderer, pool: Pool | None, options: ScoringOptions | None = None,
                 backends: dict | None = None, reward: RewardConfig | None = None):
        """Builds every term the reward weighs from `options` (default: `ScoringOptions()`),
        which also give the gate (`self.gate`), the judge's reference mix and its default subject;
        `reward` (default: `options.reward_config()`) spares a caller that has read it a second read;
        `backends` gives some ready-made, by term name (tests, benchmarks:
        `{"judge": PairwiseJudge(...), "aesthetic": TasteAesthetic(...)}`)."""
        self.renderer = renderer
        self.pool = pool
        self.options = options or ScoringOptions()
        self.reward = reward or self.options.reward_config()
        self.gate = Gate(self.options.gate_config())
        self.wiring = Wiring(self.options, self.reward, pool, self.options.mix, dict(backends or {}))
        self.terms: dict[str, Term] = self.wiring.terms()
        self._taste = self.wiring.taste
        image, source = self.options.copy_image_similarity, self.options.copy_source_similarity
        shapes, outline = self.options.copy_shape_coverage, self.options.copy_outline_similarity
        on = pool is not None and (image > 0 or source > 0 or shapes > 0 or outline > 0)
        self.copies = CopyDetector(pool, image, source, shapes, outline) if on else None

    async def score(self, reply: str, seed: int = 0, group_seed: int | None = None,
                    subject: str | None = None) -> ScoreCard:
        t0 = time.perf_counter()
        gated = await self.gate.run(reply, self.renderer, seed=seed, beside=self.prefetch)   # to be scored
        return await self.score_gated(gated, seed, group_seed, subject, t0)

    async def prefetch(self, render) -> None:
        """The terms' local work on a painting that will be scored (a taste model's embedding),
        in a thread: `Gate.run` runs it beside the run-time gate's OCR."""
        if render.ok and render.png:
            await asyncio.to_thread(self._prefetch, render.png)

    def _prefetch(self, png: bytes) -> None:
        for term in self.terms.values():
            try:
                term.prefetch(png)
            except Exception:  # noqa: BLE001 - only a head start: the term itself reports any failure
                pass

    async def score_gated(self, gated: Gated, seed: int = 0, group_seed: int | None = None,
                          subject: str | None = None, t0: float | None = None,
                          preset: str | None = None, domain: str = "") -> ScoreCard:
        """Score a reply that has already been through `self.gate`. `preset` (default: the
        reward's weights) may only weigh terms the scorer has built (`Pipeline.weights_for`)."""
        t0 = time.perf_counter() if t0 is None else t0
        w = preset_weights(preset) if preset else self.reward.weights
        preset = preset or self.reward.preset
        render = gated.render
        render_s = render.timings.wall_s if render is not None else 0.0   # a cache hit's own lookup
        cached = bool(render is not None and render.cache_hit)
        base = dict(weights=dict(w), preset=preset, violations=gated.report.violations,
                    notes=gated.report.notes, seed=seed,
                    group_seed=group_seed, paint_fraction=render.paint_fraction if render else None,
                    brush_methods=dict(render.brush_calls) if render else {},
                    filled_shapes=render.paint_calls if render else 0)
        if not gated.report.passed:
            infra = gated.report.infra_failure
            reason = "; ".join(v.message for v in gated.report.violations if v.severity == "infra") or None
            return ScoreCard(passed=False, total=None if infra else 0.0, terms={"gate": None if infra else 0.0},
                             infra=reason, timings=_timings(t0, render_s, {}, 0.0, cached), **base)
        copy = self.copies.match(render.png, gated.sketch.code, render.display_list) if self.copies else None
        subject = subject or self.options.subject
        if not domain and self.pool is not None:   # every term sees the same domain (`score.references`)
            domain = infer_domain(self.pool, subject)
        canvas = Canvas(gated.sketch.code, render.png, render, seed, group_seed, subject, copy, domain)
        values = await self._values(w, canvas)
        seconds = {name: s for name, (_, s) in values.items()}
        got = {name: v for name, (v, _) in values.items()}
        infra = "; ".join(f"{name}: {v.error}" for name, v in got.items() if w[name] > 0 and v.value is None) or None
        judged = got.get("judge", Value(None))
        remote_s = max((seconds[name] for name, v in got.items() if v.remote), default=0.0)
        cost = Cost(calls={n: v.calls for n, v in got.items() if v.calls},
                    cached={n: v.cached for n, v in got.items() if v.cached},
                    tokens={n: v.tokens for n, v in got.items() if v.tokens})
        terms = {name: v.value for name, v in got.items()}
        taste = await asyncio.to_thread(self._assess, render.png, canvas.domain)
        return ScoreCard(passed=True, total=total(w, True, terms), terms=terms, infra=infra,
                         references=judged.references, comparisons=judged.comparisons, cost=cost,
                         copy_of=copy, taste=taste, term_notes={n: v.note for n, v in got.items() if v.note},
                         **base,
                         timings=_timings(t0, render_s, seconds, remote_s, cached))

    def clients(self) -> list:
        """Everything the terms hold that opens a connection: the backends the wiring built or was
        given (judge, HPSv3: each has `aclose`, and `start` when it opens ahead of the first
        call) and the terms themselves (a term of one's own opens its client in `Term.start`).
        Whoever owns the scorer opens and closes them on the loop that uses them (`Pipeline`)."""
        return [*self.terms.values(), *(b for b in self.wiring.backends if hasattr(b, "aclose"))]

    def _assess(self, png: bytes, domain: str = "") -> dict | None:
        """The taste model's support and uncertainty for the card (as a painting of the task's
        domain), when a term used the model (its features are cached by then: a few dot products)."""
        return None if self._taste is None else asdict(self._taste.assess(png, domain))

    async def _values(self, weights: Weights, canvas: Canvas) -> dict[str, tuple[Value, float]]:
        """Every term the weights need (and the free ones), concurrently: name -> (value, seconds)."""
        wanted = [name for name in weights if weights[name] > 0 or (name in self.terms and self.terms[name].always)]
        missing = [name for name in wanted if name not in self.terms]
        if missing:
            raise ConfigError(f"these weights need the {', '.join(missing)} term(s), which this scorer did not build "
                              f"(its reward weighs them 0)")
        results = await asyncio.gather(*(_timed(self.terms[name], canvas) for name in wanted))
        return dict(zip(wanted, results))


async def _timed(term: Term, canvas: Canvas) -> tuple[Value, float]:
    t = time.perf_counter()
    value = await term(canvas)
    return value, time.perf_counter() - t


def _timings(t0: float, render_s: float, terms: dict[str, float], remote_s: float,
             cached: bool = False) -> ScoreTimings:
    elapsed = time.perf_counter() - t0
    return ScoreTimings(render_s=render_s, terms=terms, overhead_s=max(0.0, elapsed - render_s - remote_s),
                        total_s=elapsed, cached=cached)
