"""A sketch's own failures score 0; ours cost nothing (real Chromium).

- a hang or a busy loop is stopped at the CPU budget: ``too_slow``, broken, reward 0;
- a timeout or a crash is rendered once more on a fresh browser: when it repeats it is the
  sketch's (``repeated``, broken, reward 0), when it does not (the browser killed under a
  render once) the retry's painting is the result;
- a job during which a browser process died (the GPU process killed mid-render) or whose
  capture disagrees with its replay (a lost WebGL context) is rendered once more too, and is
  never scored ``blank_canvas`` nor cached: the retry's painting, or ``untrusted`` (None);
- a blank canvas on purpose (paint off the canvas, white on white) disagrees on the fresh
  browser too: the sketch's (0), beside its legal twins;
- an honest sketch passes with the default budget.

A hang costs the CPU budget (or two deadlines): these renderers use a budget of 1.5 CPU-s
and deadlines of a few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time

import pytest

from brushwork.gate import Gate
from brushwork.render import RenderConfig, Renderer, RenderResult, SyncRenderer
from brushwork.render.config import CPU_BUDGET_S
from brushwork.score.reward import PRESETS, total
from brushwork.sketch import extract_sketch

GATE = Gate()   # the recipe's configuration

pytestmark = pytest.mark.chromium


def painting(extra: str = "", setup: str = "function setup() { createCanvas(600, 600, WEBGL); noLoop(); }") -> str:
    return (f"{setup}\nfunction draw() {{\n  translate(-width / 2, -height / 2);\n  background(250, 246, 238);\n"
            f"  brush.noStroke();\n  brush.fill(\"#e8607a\", 190);\n  brush.circle(300, 300, 120);\n  {extra}\n}}\n")


def spin(iterations: float) -> str:
    """A busy loop counted in iterations (~1 ns each), so it burns CPU whatever the machine's load."""
    return f"let spun = 0;\n  for (let i = 0; i < {iterations:.0f}; i++) spun += i % 7;"


@pytest.fixture(scope="module")
def tight(tmp_path_factory):
    config = RenderConfig(workers=1, timeout_s=8, cpu_budget_s=1.5, use_cache=False,
                          cache_dir=tmp_path_factory.mktemp("tight"))
    with SyncRenderer(config) as r:
        yield r


FULL_MARKS = {"gate": 1.0, "length": 1.0, "judge": 1.0, "aesthetic": 1.0}


def verdict(reply_code: str, render):
    report = GATE.check(extract_sketch(reply_code), render=render)
    reward = None if report.infra_failure else total(PRESETS["judge-led"], report.passed, FULL_MARKS)
    return report, reward


def test_endless_loop_is_too_slow_and_scores_zero(tight):
    code = painting("while (true) {}")
    restarts = len(tight.renderer.restarts)
    r = tight.render(code)
    assert r.status == "too_slow" and r.attempts == 1 and r.timings.cpu_s > 1.5, r.detail
    assert r.timings.wall_s < tight.renderer.config.timeout_s  # stopped before the deadline
    assert len(tight.renderer.restarts) == restarts + 1       # and its browser replaced
    report, reward = verdict(code, r)
    assert [(v.id, v.severity) for v in report.violations] == [("too_slow", "broken")]
    assert not report.infra_failure and reward == 0.0
    assert tight.render(painting()).ok                         # the next sketch paints


def test_busy_loop_that_would_finish_is_too_slow_and_its_twin_passes(tight):
    slow = tight.render(painting(spin(2e10)))
    assert slow.status == "too_slow", slow.detail
    quick = tight.render(painting(spin(2e7)))
    assert quick.ok and quick.timings.cpu_s < 1.5
    assert GATE.check(painting(spin(2e7)), render=quick).passed


def test_a_sketch_too_slow_through_the_gate_gets_the_reward_zero(tight):
    reply = "```js\n" + painting("while (true) {}") + "```"
    gated = tight._call(GATE.run(reply, tight.renderer))  # the async gate, on the renderer's own loop
    assert gated.render.status == "too_slow" and "too_slow" in gated.report.ids
    assert not gated.report.infra_failure
    assert total(PRESETS["judge-led"], gated.report.passed, FULL_MARKS) == 0.0


def test_repeated_timeout_is_the_sketchs_fault(tight):
    """A hang that burns no CPU (an unresolved promise in setup) misses two deadlines."""
    never = "async function setup() {\n  createCanvas(600, 600, WEBGL);\n  await new Promise(() => {});\n}"
    code = painting(setup=never)
    r = tight.render(code)
    assert r.status == "timeout" and r.attempts == 2 and r.repeated and not r.infra_failure, r.detail
    report, reward = verdict(code, r)
    assert ("render_timeout", "broken") in [(v.id, v.severity) for v in report.violations]
    assert reward == 0.0
    assert RenderResult.from_dict(r.to_dict(), None) == r  # attempts and repeated survive the cache


@pytest.mark.slow
async def test_memory_bomb_is_broken_after_the_retry(tmp_path):
    """V8 stops the renderer near its 4 GB heap limit (a page crash, not this machine's)."""
    code = painting("const heap = [];\n  while (true) heap.push(new Array(1e7).fill(1.5));")
    async with Renderer(RenderConfig(workers=1, timeout_s=40, use_cache=False, cache_dir=tmp_path)) as r:
        result = await r.render(code)
        assert result.status in ("crashed", "too_slow"), result.detail
        if result.status == "crashed":
            assert result.attempts == 2 and result.repeated
        report, reward = verdict(code, result)
        assert {v.severity for v in report.violations} == {"broken"} and reward == 0.0
        assert (await r.render(painting())).ok


async def test_one_off_crash_is_forgiven_by_the_retry(tmp_path):
    code = painting(spin(1.5e9))  # ~1.5 CPU-s: long enough to be killed under, well inside the budget
    async with Renderer(RenderConfig(workers=1, timeout_s=30, cache_dir=tmp_path)) as r:
        task = asyncio.create_task(r.render(code))
        first = r.backend._workers[0].proc.pid
        for _ in range(200):  # kill the browser once the page is rendering
            await asyncio.sleep(0.05)
            if r.backend._workers[0].renders >= 1:  # this job's page is open
                break
        await asyncio.sleep(0.3)
        os.killpg(first, signal.SIGKILL)
        result = await task
        assert result.ok and result.attempts == 2 and not result.repeated, result.detail
        assert "first attempt: untrusted (the browser" in result.detail and r.backend._workers[0].proc.pid != first
        assert GATE.check(code, render=result).passed
        again = await r.render(code)  # a success after a retry is cached like any other
        assert again.cache_hit and again.ok


def test_honest_sketch_passes_with_the_default_budget(renderer):
    assert renderer.renderer.config.cpu_budget_s == CPU_BUDGET_S
    r = renderer.render(painting(), use_cache=False)
    assert r.ok and r.attempts == 1 and 0 < r.timings.cpu_s < CPU_BUDGET_S / 2


# ---------------------------------------------------------------------------------------------
# A browser process that dies mid-render (the GPU process: SwiftShader runs there) leaves the
# page answering with a blank canvas; the blank must never be scored as the sketch's, nor cached.
# ---------------------------------------------------------------------------------------------

def many_strokes(colour: str, n: int = 40) -> str:
    """An honest painting with enough brush calls that a kill lands while it is painted."""
    return painting(f"randomSeed(3);\n  for (let i = 0; i < {n}; i++) {{ brush.fill(\"{colour}\", 150); "
                    "brush.circle(random(600), random(600), 20 + random(40)); }")


def gpu_process(group: int) -> tuple[int, int] | None:
    """(pid, CPU ticks so far) of the GPU process of the browser leading `group`, from /proc
    (independently of the renderer's own watch)."""
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{entry}/stat", "rb").read().rsplit(b")", 1)[1].split()
            cmdline = open(f"/proc/{entry}/cmdline", "rb").read()
        except (OSError, IndexError):
            continue
        if stat[0] != b"Z" and int(stat[2]) == group and b"--type=gpu-process" in cmdline:
            return int(entry), int(stat[11]) + int(stat[12])
    return None


async def kill_gpu_in(worker, pages: set[int], painted_s: float = 0.4) -> list[int]:
    """SIGKILL the GPU process during each of the worker's page loads numbered `pages`, once it
    has spent `painted_s` CPU-s on that page: mid-replay (the page's main thread is busy
    replaying then, so it cannot be asked), whatever the machine's load (a retry's fresh browser
    may not have started its GPU process when the page begins: it is waited for). A 40-stroke
    painting costs the GPU process about 1 CPU-s, the page load and canvas 0.2."""
    killed = []
    for page in sorted(pages):
        while worker.renders < page:
            await asyncio.sleep(0.01)
        group, deadline = worker.proc.pid, time.monotonic() + 30
        # a browser started for a retry spawns its GPU process while the page loads: wait for it
        while (found := gpu_process(group)) is None and worker.renders == page and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        pid, start = found or (None, 0)
        while pid is not None and (now := gpu_process(group)) is not None and now[0] == pid \
                and now[1] - start < painted_s * os.sysconf("SC_CLK_TCK"):
            await asyncio.sleep(0.01)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    return killed


def cached(directory) -> list[dict]:
    return [json.loads(p.read_text()) for p in directory.glob("*/*.json")]


@pytest.mark.slow
async def test_gpu_process_killed_mid_render_never_scores_a_blank_canvas(tmp_path):
    """Measured before the GPU process was watched: 4 of 5 such renders came back blank, scored 0 and cached."""
    async with Renderer(RenderConfig(workers=1, timeout_s=90, cache_dir=tmp_path)) as r:
        worker = r.backend._workers[0]
        for colour in ("#e8607a", "#3d5a80", "#6f9a5a"):
            code = many_strokes(colour)
            killer = asyncio.create_task(kill_gpu_in(worker, {worker.renders + 1}))
            result = await r.render(code)
            assert await killer, "the GPU process was not found"
            assert result.ok and result.attempts == 2 and not result.repeated, result.detail
            assert "first attempt: untrusted (the GPU process died" in result.detail
            report, reward = verdict(code, result)
            assert report.passed and reward == 1.0, report.violations
        # only the three fresh-browser retries are cached, none blank
        assert sorted(round(e["paint_fraction"], 3) > 0.05 for e in cached(tmp_path)) == [True] * 3

        # killed on both attempts: no capture to trust, ours (None), not cached
        code = many_strokes("#d9604a")
        killer = asyncio.create_task(kill_gpu_in(worker, {worker.renders + 1, worker.renders + 2}))  # the retry's page
        result = await r.render(code)
        assert len(await killer) == 2
        assert result.status == "untrusted" and result.attempts == 2 and result.png is None, result.detail
        report, reward = verdict(code, result)
        assert ("render_untrusted", "infra") in [(v.id, v.severity) for v in report.violations]
        assert "blank_canvas" not in report.ids and report.infra_failure and reward is None
        assert len(cached(tmp_path)) == 3
        assert (await r.render(painting())).ok  # the browser that replaced it paints


def setup_painting(colour: str) -> str:
    """Painted in setup(): the page's only free moment is then between the replay and the capture."""
    return ("function setup() {\n  createCanvas(600, 600, WEBGL);\n  translate(-width / 2, -height / 2);\n"
            "  background(250, 246, 238);\n  brush.noStroke();\n  randomSeed(3);\n"
            f"  for (let i = 0; i < 10; i++) {{ brush.fill(\"{colour}\", 150); "
            "brush.circle(random(600), random(600), 20 + random(40)); }\n}\n")


LOSE_BEFORE_CAPTURE = """(() => {
  const encode = HTMLCanvasElement.prototype.toDataURL;
  HTMLCanvasElement.prototype.toDataURL = function (...args) {
    const gl = this.getContext("webgl2") || this.getContext("webgl");
    if (gl) gl.getExtension("WEBGL_lose_context").loseContext();
    return encode.apply(this, args);
  };
})();"""


async def test_a_capture_that_disagrees_with_its_replay_is_rendered_again(tmp_path):
    """Without the check this capture is blank and scored blank_canvas, 0 (measured 3 of 3).
    The context is lost in the first browser's pages just before the capture encodes the canvas,
    so no race with a fast render decides whether it landed; the retry's fresh browser is clean."""
    async with Renderer(RenderConfig(workers=1, timeout_s=60, cache_dir=tmp_path)) as r:
        await r.backend._workers[0].context.add_init_script(LOSE_BEFORE_CAPTURE)
        code = setup_painting("#3d5a80")
        result = await r.render(code)
        assert result.ok and result.attempts == 2 and result.paint_fraction > 0.05, result.detail
        assert "first attempt: a blank capture although the replay made 10 painting calls" in result.detail
        report, reward = verdict(code, result)
        assert report.passed and reward == 1.0
        assert [round(e["paint_fraction"], 2) for e in cached(tmp_path)] == [round(result.paint_fraction, 2)]


def paper(body: str) -> str:
    return ("function setup() { createCanvas(600, 600, WEBGL); noLoop(); }\nfunction draw() {\n"
            f"  translate(-width / 2, -height / 2);\n  background(255);\n  brush.noStroke();\n  {body}\n}}\n")


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    directory = tmp_path_factory.mktemp("twins")
    with SyncRenderer(RenderConfig(workers=1, timeout_s=60, cache_dir=directory)) as r:
        yield r, directory


# A sketch that wants None instead of its 0 for a blank canvas must make the capture disagree with
# the replay. Calls that paint nothing visible disagree the same way on a fresh browser: a replay
# that repeats, the sketch's (0); each costs a second render and is never cached.
BLANK_ON_PURPOSE = [
    # (case, code, violations, attempts, cached)
    ("off_the_canvas", paper('brush.fill("#e8607a", 190); brush.circle(-4000, -4000, 50);'),
     [("blank_canvas", "broken")], 2, False),
    ("white_on_white", paper('brush.fill("#ffffff", 255); brush.circle(300, 300, 120);'),
     [("blank_canvas", "broken")], 2, False),
    # a background() after painting: the replay explains the blank canvas, nothing to retry
    ("painted_then_cleared", painting("background(250, 246, 238);"),
     [("blank_canvas", "broken"), ("painted_then_cleared", "broken")], 1, True),
    # the legal twins: no painting call at all is still no_painting and blank_canvas, and cached
    ("no_painting", paper(""), [("no_painting", "broken"), ("blank_canvas", "broken")], 1, True),
    ("honest", painting(), [], 1, True),
]


@pytest.mark.parametrize("case,code,violations,attempts,stored", BLANK_ON_PURPOSE,
                         ids=[c[0] for c in BLANK_ON_PURPOSE])
def test_a_blank_canvas_on_purpose_stays_the_sketchs(twins, case, code, violations, attempts, stored):
    renderer, directory = twins
    before = len(cached(directory))
    result = renderer.render(code)
    assert result.ok and result.attempts == attempts and result.repeated == (attempts == 2), result.detail
    report, reward = verdict(code, result)
    assert sorted({(v.id, v.severity) for v in report.violations}) == sorted(violations)
    assert not report.infra_failure and reward == (1.0 if not violations else 0.0)
    assert len(cached(directory)) == before + stored


def attempt(kind: str) -> RenderResult:
    """One attempt's result: a painting, a blank capture of a replay that painted, or a failure."""
    if kind == "painted":
        return RenderResult("ok", 0, 600, png=b"png", paint_fraction=0.3, paint_calls=4)
    if kind == "blank":
        return RenderResult("ok", 0, 600, png=b"png", paint_fraction=0.0, paint_calls=4)
    return RenderResult(kind, 0, 600, detail=f"{kind} here")


# (first attempt, second attempt) -> (status, repeated, ours): the second attempt runs on a fresh browser
AFTER_RETRY = [
    ("timeout", "painted", "ok", False, False),
    ("untrusted", "painted", "ok", False, False),
    ("blank", "painted", "ok", False, False),
    ("timeout", "crashed", "crashed", True, False),     # a hang or crash that repeats: the sketch's
    ("blank", "blank", "ok", True, False),              # a replay that repeats: the sketch's blank canvas
    ("untrusted", "untrusted", "untrusted", False, True),  # a process died both times: ours
    ("untrusted", "blank", "untrusted", False, True),   # a blank the first attempt cannot confirm
    ("timeout", "blank", "untrusted", False, True),
    ("blank", "untrusted", "untrusted", False, True),
    ("blank", "timeout", "timeout", False, True),       # failures of two kinds: neither repeated
    ("untrusted", "crashed", "crashed", False, True),
]


@pytest.mark.parametrize("first,second,status,repeated,ours", AFTER_RETRY)
def test_two_attempts_give_one_verdict(first, second, status, repeated, ours):
    from brushwork.render.chromium import _after_retry

    result = _after_retry(attempt(first), attempt(second))
    assert (result.status, result.repeated, result.infra_failure, result.attempts) == (status, repeated, ours, 2)
    assert result.trusted == (second == "painted")
    if status == "untrusted":
        assert result.png is None and "no capture to trust" in result.detail
    assert RenderResult.from_dict(result.to_dict(), result.png) == result


@pytest.mark.parametrize("kind", ["painted", "blank", "untrusted", "timeout", "too_slow"])
def test_only_a_trusted_capture_is_cached(tmp_path, kind):
    from brushwork.render.cache import RenderCache

    cache, result = RenderCache(tmp_path), attempt(kind)
    cache.put("ab" * 32, result)
    assert (cache.get("ab" * 32) is not None) == (kind == "painted") == result.trusted
    (tmp_path / "cd").mkdir()  # an entry another build stored is served only when it is trusted
    (tmp_path / "cd" / f"{'cd' * 32}.json").write_text(result.to_json())
    if result.png is not None:
        (tmp_path / "cd" / f"{'cd' * 32}.png").write_bytes(result.png)
    assert (cache.get("cd" * 32) is not None) == result.trusted


async def test_a_gpu_process_lost_between_jobs_is_replaced_before_the_next(tmp_path):
    """Measured without the check: the third job after three such losses hung to its deadline."""
    async with Renderer(RenderConfig(workers=1, timeout_s=60, use_cache=False, cache_dir=tmp_path)) as r:
        worker = r.backend._workers[0]
        for seed in range(3):
            pid, _ = gpu_process(worker.proc.pid)
            os.kill(pid, signal.SIGKILL)
            while (now := gpu_process(worker.proc.pid)) is None or now[0] == pid:  # Chromium starts another
                await asyncio.sleep(0.05)
            restarts = len(r.restarts)
            result = await r.render(painting(), seed=seed)
            assert result.ok and result.attempts == 1 and result.paint_fraction > 0.05, result.detail
            assert len(r.restarts) == restarts + 1  # a fresh browser before the job, not a retry after it
