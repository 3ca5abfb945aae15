"""The pipeline: reply -> gate -> render -> the reward's terms, in one object built from
`ScoringOptions`. The environment, the trainer's reward, evaluation, the CLI and the demo all
call it, and get the gate report, the render and the `ScoreCard` together (`Painting`).

The pipeline owns one event loop, run on one background thread, and every client that lives
on it: the renderer, and each client the reward's terms hold (the judge's and the HPSv3
service's, a term of one's own), opened in `start` and closed in `close`, with any it adopts
(`own`). Its API is async (`arun`, `arun_many`, `agate`, `ascore`), one implementation; `run`,
`run_many`, `gate` and `score` are the same methods blocking (`blocking`: submitted to the
loop and waited for, from any thread, so calls from many threads still run concurrently up to
the render backend's capacity). `run_many` is the one way to score a batch.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace

from brushwork.errors import ConfigError
from brushwork.gate import Gated
from brushwork.render import RenderBackend, RenderResult, SyncRenderer
from brushwork.score.card import ScoreCard
from brushwork.score.options import ScoringOptions
from brushwork.score.reward import Weights, preset_weights
from brushwork.score.scorer import Scorer


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


def blocking(method: Callable[..., Coroutine]) -> Callable:
    """The blocking form of a pipeline's async method: the same signature and docs, its
    coroutine run on the pipeline's loop (`Pipeline.submit`) and waited for."""
    @functools.wraps(method)
    def call(self: Pipeline, *args, **kwargs):
        return self.submit(method(self, *args, **kwargs))
    call.__name__ = call.__qualname__ = method.__name__.removeprefix("a")
    return call


class Pipeline:
    def __init__(self, options: ScoringOptions | None = None, backend: RenderBackend | None = None,
                 progress=None):
        """`backend`: where paintings are made (default: the local Chromium pool). `progress`: a
        callable returning a rich `Progress`, for the bar shown while a pool folder's paintings
        are rendered the first time (None: no bar)."""
        from brushwork.pool.snapshot import load_pool_with_progress

        self.options = (options or ScoringOptions()).scoring()
        self.renderer = SyncRenderer(self.options.render_config(), backend, lazy=True)   # the pipeline's loop
        try:
            self.reward = self.options.reward_config()
            self.pool = load_pool_with_progress(self.options.pool, progress, self.renderer, self.options.snapshot)
            self.scorer = Scorer(self.renderer.renderer, self.pool, self.options, reward=self.reward)
            self.clients: list = self.scorer.clients()   # opened in start, closed in close (and those owned)
            self.start()
        except BaseException:
            self.renderer.close()
            raise

    def start(self) -> None:
        """Check the render backend's setup and open every client of the reward's terms on the
        pipeline's loop. The browsers start when the first sketch reaches the renderer (a reply
        with no sketch never starts one), or at `warm()`."""
        self.renderer.renderer.preflight()
        self.submit(_start_all(self.clients))

    def warm(self) -> None:
        """Start the render backend now (a server that wants its first reply fast)."""
        self.submit(self.renderer.renderer.start())

    def submit(self, coro: Coroutine, timeout: float | None = None):
        """Run a coroutine on the pipeline's event loop and wait for its result (any thread)."""
        return self.renderer.run(coro, timeout)

    def own(self, client):
        """Adopt a client built outside the pipeline (evaluation's judge: anything with an async
        `aclose`, and `start` when it opens ahead of its first call): it opens on the pipeline's
        loop now and closes with the pipeline. Returns it."""
        if client not in self.clients:
            self.submit(_start_all([client]))
            self.clients.append(client)
        return client

    async def arun(self, reply: str, seed: int = 0, group_seed: int | None = None, subject: str | None = None,
                   preset: str | None = None, render_all: bool = False, domain: str | None = None) -> Painting:
        """Gate, render and score one reply (`domain`: the task's, where the judge's references come from)."""
        return await self.ascore(await self.agate(reply, seed, render_all, prefetch=True), seed, group_seed,
                                 subject, preset, domain)

    async def arun_many(self, replies: Sequence[str], seeds: int | Sequence[int] = 0,
                        group_seeds: int | Sequence[int | None] | None = None,
                        subjects: str | Sequence[str | None] | None = None, preset: str | None = None,
                        on_done: Callable[[int, Painting], None] | None = None,
                        render_all: bool = False,
                        domains: str | Sequence[str | None] | None = None) -> list[Painting]:
        """`arun` on every reply concurrently, in order. `seeds`, `group_seeds`, `subjects` and
        `domains` are one value for all or one per reply; `on_done(index, painting)` as each finishes."""
        n = len(replies)
        seeds, group_seeds, subjects, domains = (
            _per_reply(v, n, name) for v, name in
            ((seeds, "seeds"), (group_seeds, "group_seeds"), (subjects, "subjects"), (domains, "domains")))

        async def one(i: int) -> Painting:
            painting = await self.arun(replies[i], seeds[i], group_seeds[i], subjects[i], preset, render_all,
                                       domains[i])
            if on_done is not None:
                on_done(i, painting)
            return painting
        return list(await asyncio.gather(*(one(i) for i in range(n))))

    async def agate(self, reply: str, seed: int = 0, render_all: bool = False, prefetch: bool = False) -> Painting:
        """Gate and render only (a revision the model will see, a warm-up check); no judge call.
        `render_all` renders replies the static gate refused, too (the demo's gallery); `prefetch`
        starts the scorer's local work on the painting beside the gate (when it will be scored).
        The scorer's gate (`scorer.gate`) judges; this is the pipeline's façade on it."""
        gated = await self.scorer.gate.run(reply, self.scorer.renderer, seed=seed, render_all=render_all,
                                           beside=self.scorer.prefetch if prefetch else None)
        return Painting(gated)

    async def ascore(self, painting: Painting, seed: int = 0, group_seed: int | None = None,
                     subject: str | None = None, preset: str | None = None, domain: str | None = None) -> Painting:
        """Score a gated painting; `preset` weighs the total differently from the pipeline's own
        reward (only terms the pipeline computes)."""
        own = self.weights_for(preset) is None     # checks the preset against the terms computed here
        card = await self.scorer.score_gated(painting.gated, seed=seed, group_seed=group_seed, subject=subject,
                                             preset=None if own else preset, domain=domain or "")
        return replace(painting, card=card)

    run = blocking(arun)
    run_many = blocking(arun_many)   # `on_done` runs on the pipeline's loop
    gate = blocking(agate)
    score = blocking(ascore)

    def weights_for(self, preset: str | None) -> Weights | None:
        """A preset's weights, or None for the pipeline's own. A preset may only weigh terms this
        pipeline computes (an hps-only pipeline runs no judge)."""
        if preset is None or preset == self.reward.preset:
            return None
        weights, served = preset_weights(preset), self.reward.weights
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
        """Close every client (the terms' and those adopted with `own`), then the renderer and
        the loop. Idempotent."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        try:
            self.submit(_aclose_all(self.clients), timeout=30)
        finally:
            self.renderer.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _per_reply(value, n: int, name: str) -> list:
    """One value for every reply, or a sequence of exactly `n`."""
    if value is None or isinstance(value, (int, str)):
        return [value] * n
    values = list(value)
    if len(values) != n:
        raise ConfigError(f"{name}: {len(values)} values for {n} replies; give one per reply or a single value")
    return values


async def _start_all(clients: list) -> None:
    await asyncio.gather(*(c.start() for c in clients if hasattr(c, "start")))


async def _aclose_all(clients: list) -> None:
    await asyncio.gather(*(c.aclose() for c in clients), return_exceptions=True)
