"""The pipeline's one event loop: evaluation judges every run on it (a second judging pass used
to crash with "Event loop is closed"), its clients close with it, a batch is one call, a reply
with no sketch never starts a browser, and `shared_pipeline` keys by value.

The judge is the real local OpenAI-compatible server (tests/servers.py); films are written by
hand with their paintings, so nothing here renders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from servers import FakeVLMJudge, openai_judge_app, serve
from test_eval import card, png, write_pool
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.render import RenderResult
from brushwork.render.result import Timings
from brushwork.score.options import ScoringOptions


@pytest.fixture(scope="module")
def pool_dir(tmp_path_factory):
    return write_pool(tmp_path_factory.mktemp("pool") / "pool")


@pytest.fixture(scope="module")
def vlm():
    judge = FakeVLMJudge()
    with serve(openai_judge_app(judge)) as url:
        judge.url = url + "/v1"
        yield judge


def _film(folder: Path, colours: list[str]) -> Path:
    from brushwork.score.rollout import Rollout
    from brushwork.train.film import Film

    film = Film(folder / "film")
    for index, colour in enumerate(colours):
        c = card(total=0.5)
        film.record(Rollout("Paint a peach hibiscus", c, reply="```js\n// a sketch\n```",
                            png=png(colour, dot=(200, 40, 40)), subject="peach hibiscus", seed=3, group=11, step=1),
                    index)
    return folder


def test_eval_judges_with_openai_and_compare_on_one_loop(pool_dir, vlm, tmp_path):
    """`brushwork eval --judge openai --compare`: two judging passes on one judge client."""
    a, b = _film(tmp_path / "run-a", ["white", "gray"]), _film(tmp_path / "run-b", ["black"])
    before = len(vlm.requests)
    res = CliRunner().invoke(app, ["eval", "--film", str(a), "--compare", str(b), "--pool", str(pool_dir),
                                   "--out", str(tmp_path / "out"), "--judge", "openai", "--judge-url", vlm.url,
                                   "--judge-model", "fake-vlm", "--preset", "judge-led"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    data = json.loads((tmp_path / "out" / "eval.json").read_text())
    assert [c["kind"] for c in data["compare"]] == ["film"]
    # every painting met the 4 evaluation references in both orders, asked of the real server
    # (both runs: the second pass is the one that used to find its client's loop closed)
    asked = len(vlm.requests) - before
    assert asked >= 2 * 4 * 2 and asked % 2 == 0
    assert "Event loop is closed" not in res.output


def test_pipeline_closes_its_judge_client_and_keeps_one_loop(pool_dir, vlm):
    from brushwork.score.build import build_eval_judge
    from brushwork.score.pipeline import Pipeline

    options = ScoringOptions(pool=pool_dir, judge="openai", judge_url=vlm.url, judge_model="fake-vlm",
                             preset="judge-led", workers=1)
    pipeline = Pipeline(options)
    own = pipeline.scorer.terms["judge"].judge.backend
    extra = pipeline.own(build_eval_judge(pipeline.pool, options))
    try:
        assert own._chat._client is not None and extra.backend._chat._client is not None   # opened in start
        assert pipeline.renderer.status()["started"] is False    # no browser until a sketch is rendered
        for _ in range(2):   # two passes on the pipeline's loop: the client stays usable
            result = pipeline.submit(extra.judge(png("white", dot=(0, 0, 0)), pipeline.pool.items[:1], "a flower"))
            assert result.score is not None and result.error is None
    finally:
        pipeline.close()
    assert own._chat._client is None and extra.backend._chat._client is None
    pipeline.close()   # idempotent


CLIENT_TERM = '''
"""A reward term of the user's own that holds an HTTP client of its own."""

import asyncio

import httpx

from brushwork.score.terms import Term, Value


class ServiceTerm(Term):
    name = "service"
    help = "weight of what a service of one's own says"

    def __init__(self, setup):
        self.client = self.loop = None

    async def start(self):
        self.client, self.loop = httpx.AsyncClient(), asyncio.get_running_loop()

    async def __call__(self, canvas):
        return Value(1.0)

    async def aclose(self):
        await self.client.aclose()
'''


def test_a_client_a_term_of_ones_own_holds_opens_and_closes_with_the_pipeline(pool_dir, tmp_path, monkeypatch):
    """Not only the built-in judge's and aesthetic's clients: whatever a term holds is opened on
    the pipeline's loop at start and closed with the pipeline."""
    import inspect

    from brushwork.score.pipeline import Pipeline

    (tmp_path / "service_term.py").write_text(CLIENT_TERM)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "reward.yaml").write_text("weights: {gate: 0.5, length: 0.4, judge: 0, aesthetic: 0, "
                                          "service_term:ServiceTerm: 0.1}\n")
    pipeline = Pipeline(ScoringOptions(pool=pool_dir, reward_file=tmp_path / "reward.yaml", workers=1))
    term = pipeline.scorer.terms["service"]
    try:
        assert term.client is not None and not term.client.is_closed
        assert term.loop is pipeline.submit(_running_loop())          # the pipeline's own loop
    finally:
        pipeline.close()
    assert term.client.is_closed
    # the blocking methods are the async ones, waited for: one signature, one docstring
    for blocking, method in ((Pipeline.run, Pipeline.arun), (Pipeline.run_many, Pipeline.arun_many),
                             (Pipeline.gate, Pipeline.agate), (Pipeline.score, Pipeline.ascore)):
        assert inspect.signature(blocking) == inspect.signature(method) and blocking.__doc__ == method.__doc__
        assert not inspect.iscoroutinefunction(blocking) and blocking.__name__ == method.__name__[1:]


async def _running_loop():
    import asyncio

    return asyncio.get_running_loop()


def test_no_sketch_replies_never_start_a_browser_and_batch_in_order(pool_dir):
    from brushwork.score.pipeline import Pipeline

    replies = ["", "\x00\x01\x02 binary", "just prose, no code block at all"]
    with Pipeline(ScoringOptions(pool=pool_dir, preset="hps-only", aesthetic="taste", workers=1)) as pipeline:
        done: list[int] = []
        paintings = pipeline.run_many(replies, seeds=[1, 2, 3], on_done=lambda i, p: done.append(i))
        assert pipeline.renderer.status()["started"] is False
        assert sorted(done) == [0, 1, 2]
        assert [p.card.seed for p in paintings] == [1, 2, 3]
        assert all(not p.card.passed and p.card.violations[0].id == "no_sketch" for p in paintings)
        with pytest.raises(Exception, match="seeds: 2 values for 3 replies"):
            pipeline.run_many(replies, seeds=[1, 2])


def test_a_cache_hit_reports_its_own_timings(tmp_path):
    """The second render of a sketch comes from the cache: marked so, with the lookup's time."""
    import asyncio

    from brushwork.render import RenderConfig, Renderer

    class Slow:
        """A render backend that takes 0.3 s a painting (a real one: the `RenderBackend` seam)."""

        versions = "slow-1"

        async def start(self):
            self.started = True

        def status(self):
            return {}

        async def aclose(self):
            pass

        async def render(self, code, seed=0, size=None):
            await asyncio.sleep(0.3)
            return RenderResult(status="ok", seed=seed, size=size or 64, png=png("white"), timings=Timings(wall_s=0.3))

    async def twice():
        async with Renderer(RenderConfig(cache_dir=tmp_path), backend=Slow()) as r:
            return await r.render("brush.circle(1, 1, 1)"), await r.render("brush.circle(1, 1, 1)")
    first, second = asyncio.run(twice())
    assert not first.cache_hit and first.timings.wall_s == 0.3
    assert second.cache_hit and second.timings.wall_s < 0.3


def test_shared_pipeline_is_keyed_by_value(pool_dir, monkeypatch):
    from brushwork.train import rewards

    monkeypatch.setattr(rewards, "_SHARED", {})
    a = rewards.shared_pipeline(ScoringOptions(pool=pool_dir, preset="hps-only", aesthetic="taste", workers=1))
    b = rewards.shared_pipeline(ScoringOptions(pool=pool_dir, preset="hps-only", aesthetic="taste", workers=1))
    c = rewards.shared_pipeline(ScoringOptions(pool=pool_dir, preset="hps-only", aesthetic="taste", workers=2))
    try:
        assert a is b and a is not c and len(rewards._SHARED) == 2
    finally:
        rewards.close_shared()              # the end of a run closes every one
    assert a._closed and c._closed and not rewards._SHARED


def test_a_missing_browser_fails_at_start_though_browsers_start_lazily(pool_dir, monkeypatch):
    from brushwork.errors import SetupError
    from brushwork.score.pipeline import Pipeline

    monkeypatch.setenv("BRUSHWORK_CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(SetupError, match="BRUSHWORK_CHROMIUM"):
        Pipeline(ScoringOptions(pool=pool_dir, preset="hps-only", aesthetic="taste", workers=1))
