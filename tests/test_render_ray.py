"""The Ray render backend on a real two-node Ray cluster on this machine (`ray.cluster_utils.Cluster`,
every node, the GCS and the workers on 127.0.0.1), rendering with real Chromium and p5.brush.

The tests run in order on one cluster and one `RayBackend` (one actor per one-CPU node):
same paintings as the local backend; cache hits never reach the cluster; a third node gets an
actor while renders wait; a sketch that kills its worker on every attempt is the sketch's; a
node removed mid-batch loses no render; after `aclose` no browser or actor process is left.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from processes import in_groups

from brushwork.errors import DependencyNotInstalled, RenderError
from brushwork.render import RenderBackend, RenderConfig, Renderer
from brushwork.render.image import mean_abs_diff, to_rgb

CODE = """function setup() { createCanvas(600, 600, WEBGL); noLoop(); }
function draw() {
  background(250);
  brush.noStroke(); brush.fill("#c0567a", 160); brush.circle(-60, 0, 150);
  brush.fill("#3a7bd5", 120); brush.rect(0, -80, 160, 160);
}
"""
# A slow but honest page (about 1-2 s of JavaScript, under the CPU budget): long enough to be
# caught mid-render.
SLOW = """function setup() { createCanvas(600, 600, WEBGL); noLoop(); }
function draw() {
  let s = 0; for (let i = 0; i < 3e8; i++) { s += i % 7; }
  background(250); brush.noStroke(); brush.fill("#2f8f5b", 150); brush.circle(0, 0, 120 + (s % 3));
}
"""
CONFIG = RenderConfig(timeout_s=20, use_cache=False, backend="ray")
SEEN: dict[str, set[int]] = {"chromium": set(), "actors": set()}   # every process the actors reported


def _remember(backend) -> dict:
    status = backend.status()
    for a in status["actors"]:
        SEEN["chromium"].update(a["chromium_pids"])
        if a["pid"]:
            SEEN["actors"].add(a["pid"])
    return status


def _alive(pids: set[int]) -> set[int]:
    import psutil

    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


async def _until(predicate, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


@pytest.fixture(scope="module")
def cluster():
    """A two-node Ray cluster on 127.0.0.1 (head: 1 CPU, second node: 1 CPU) in a private temp
    folder (a stale `ray_current_cluster` file elsewhere would make Ray join a dead cluster)."""
    tmp = tempfile.mkdtemp(prefix="bwray-", dir="/tmp")   # short: Ray's socket paths have a length limit
    saved = {k: os.environ.get(k) for k in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_TMPDIR", "RAY_ADDRESS")}
    os.environ.update(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_TMPDIR=tmp)   # before Ray is imported
    os.environ.pop("RAY_ADDRESS", None)
    ray = pytest.importorskip("ray")
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    # Ray reads the variable when first imported; if another test imported it earlier, say the same here
    loopback_only, ray_constants.ENABLE_RAY_CLUSTER = ray_constants.ENABLE_RAY_CLUSTER, False

    store = 100 * 2**20
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": store})
    second = c.add_node(num_cpus=1, object_store_memory=store)
    c.wait_for_nodes()
    assert c.address.startswith("127.0.0.1:"), c.address                 # loopback only
    ray.init(address=c.address, logging_level=logging.WARNING, log_to_driver=False)
    try:
        yield c, second
    finally:
        ray.shutdown()
        c.shutdown()
        ray_constants.ENABLE_RAY_CLUSTER = loopback_only
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
async def backend(cluster):
    from brushwork.render.ray_pool import RayBackend

    b = RayBackend(CONFIG)
    await b.start()
    _remember(b)
    try:
        yield b
    finally:
        await b.aclose()


def test_a_missing_ray_says_which_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)   # `import ray` now raises ImportError
    from brushwork.render.ray_pool import RayBackend

    with pytest.raises(DependencyNotInstalled, match=r"brushwork\[ray\]"):
        RayBackend(CONFIG)
    with pytest.raises(DependencyNotInstalled):
        Renderer(CONFIG)


@pytest.mark.slow
def test_no_cluster_is_a_clear_error(tmp_path):
    if importlib.util.find_spec("ray") is None:     # not imported here: the cluster fixture sets Ray up first
        pytest.skip("ray is not installed")
    probe = ("import asyncio\n"
             "from brushwork.render import RenderConfig\n"
             "from brushwork.render.ray_pool import RayBackend\n"
             "from brushwork.errors import RenderError\n"
             "try:\n"
             "    asyncio.run(RayBackend(RenderConfig(backend='ray', ray_address='127.0.0.1:9')).start())\n"
             "except RenderError as e:\n"
             "    print('RenderError:', e)\n")
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_TMPDIR": str(tmp_path)}
    env.pop("RAY_ADDRESS", None)
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    # at once, not after Ray's endless reconnecting
    assert "RenderError: could not connect to the Ray cluster at '127.0.0.1:9'" in out.stdout, out.stdout + out.stderr
    assert "ray start --head" in out.stdout and "RAY_ADDRESS" in out.stdout


HEAD_LOSS = """
import os, signal, sys, time
from ray.cluster_utils import Cluster
from brushwork.errors import RenderError
from brushwork.render import RenderConfig, SyncRenderer, ray_pool
ray_pool.LOST_AFTER_S, ray_pool.PROBE_TIMEOUT_S = 4.0, 3.0     # 30 s and 15 s in earnest
c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 100 * 2**20})
r = SyncRenderer(RenderConfig(backend="ray", ray_address=c.address, use_cache=False, timeout_s=10))
print("first", r.render(sys.argv[1]).status, flush=True)
os.kill(c.head_node.all_processes["gcs_server"][0].process.pid, signal.SIGKILL)   # the head's GCS dies
t0 = time.monotonic()
while time.monotonic() - t0 < 45:
    try:
        r.render(sys.argv[1])
    except RenderError as e:
        print(f"RAISED after {time.monotonic() - t0:.0f}s: {e}", flush=True)
        break
    time.sleep(0.5)
r.close()
c.head_node.kill_all_processes(check_alive=False, allow_graceful=False, wait=True)
os._exit(0)
"""


@pytest.mark.chromium
@pytest.mark.slow
def test_a_lost_head_is_a_clear_error_not_a_hang():
    """Actors keep painting while the GCS is away (direct calls); once the head has answered
    nothing for a while, renders raise RenderError saying so (Ray itself ends a driver whose GCS
    stays away for 60 s). In a subprocess: Ray would end this one."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed")
    tmp = tempfile.mkdtemp(prefix="bwray-", dir="/tmp")
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_TMPDIR": tmp}
    env.pop("RAY_ADDRESS", None)
    try:
        out = subprocess.run([sys.executable, "-c", HEAD_LOSS, CODE], env=env, capture_output=True, text=True,
                             timeout=120)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert "first ok" in out.stdout, out.stdout + out.stderr[-3000:]
    assert "RAISED after" in out.stdout and "lost the Ray cluster at '127.0.0.1:" in out.stdout, out.stdout
    assert "`ray start --head`" in out.stdout


@pytest.mark.chromium
@pytest.mark.slow
async def test_same_paintings_as_the_local_backend(backend, renderer):
    assert isinstance(backend, RenderBackend)
    status = backend.status()
    assert status["workers"] == 2 and status["cluster"]["nodes"] == 2      # one actor per one-CPU node
    assert len({a["node"] for a in status["actors"]}) == 2
    assert backend.versions.startswith("ray|") and backend.versions[4:] == renderer.renderer.versions

    remote = await asyncio.gather(*(backend.render(CODE, seed=s) for s in (7, 8)))
    local = [await asyncio.to_thread(renderer.render, CODE, s, None, False) for s in (7, 8)]
    for r, h in zip(remote, local):
        assert r.ok and h.ok and r.png is not None and r.attempts == 1, r.detail
        assert (r.width, r.height, r.seed, r.flags, r.js_errors) == (h.width, h.height, h.seed, h.flags, h.js_errors)
        assert mean_abs_diff(to_rgb(r.png), to_rgb(h.png)) <= 0.05     # renders are not bit-exact upstream
    assert remote[0].png != remote[1].png                             # and the seed reached the page
    assert sum(a["renders"] for a in _remember(backend)["actors"]) == 2


@pytest.mark.chromium
@pytest.mark.slow
async def test_cache_hits_never_reach_the_cluster(backend, tmp_path):
    front = Renderer(RenderConfig(timeout_s=20, backend="ray", cache_dir=tmp_path), backend=backend)
    await front.start()                                     # the backend is already started: a no-op
    first = await front.render(CODE, seed=11)
    sent, served = backend.dispatched, backend.status()["renders"]
    again = await front.render(CODE, seed=11)
    assert first.ok and not first.cache_hit and again.cache_hit and again.png == first.png
    assert backend.dispatched == sent and backend.status()["renders"] == served
    assert front.status()["backend"] == "RayBackend"        # the Renderer is not closed: the module's backend lives on


@pytest.mark.chromium
@pytest.mark.slow
async def test_the_pool_grows_with_the_cluster(backend, cluster):
    """A third node joins; while renders wait and every actor is busy, a third actor starts there."""
    c, _ = cluster
    c.add_node(num_cpus=1, object_store_memory=100 * 2**20)   # Ray starts nodes from the main thread only
    batch = [asyncio.ensure_future(backend.render(SLOW, seed=40 + i)) for i in range(8)]
    await _until(lambda: _remember(backend)["workers"] == 3, 60, "a third actor")
    assert all(r.ok for r in await asyncio.gather(*batch))
    status = _remember(backend)
    assert status["cluster"]["nodes"] == 3 and status["target"] == 3
    assert len({a["node"] for a in status["actors"]}) == 3


@pytest.mark.chromium
@pytest.mark.slow
async def test_a_sketch_that_kills_its_worker_every_time_is_the_sketchs_fault(backend, cluster):
    """What stands in: JavaScript cannot kill a Python process, and no real sketch is known to
    kill its Ray worker (Chromium runs in its own processes). So the test kills the actor's
    process (SIGKILL, by the pid the actor reports) each time it is rendering this sketch, which
    is exactly what the driver sees when a sketch takes its worker down (an out-of-memory kill,
    say): the worker process dies mid-render on a node that stays up, on every attempt, on a
    different actor each time."""
    before = backend.status()["deaths"]
    task = asyncio.ensure_future(backend.render(SLOW, seed=3))
    killed: set[int] = set()
    while not task.done():
        for a in _remember(backend)["actors"]:
            if a["inflight"] and a["pid"] not in killed:
                await asyncio.sleep(0.3)                     # the page is loading or drawing
                killed.add(a["pid"])
                os.kill(a["pid"], signal.SIGKILL)
        await asyncio.sleep(0.05)
    result = task.result()
    assert len(killed) == 3
    assert result.status == "crashed" and result.repeated and not result.infra_failure, result.detail
    assert result.attempts == 3 and "it is the sketch's" in result.detail
    assert backend.status()["deaths"] == before + 3

    from brushwork.gate.runtime_rules import render_crashed

    assert [severity for _, _, severity in render_crashed(result, None)] == ["broken"]   # 0, not None

    # the dead actors were replaced: all are warm again, and an honest sketch renders
    await _until(lambda: backend.status()["workers"] == backend.status()["target"], 120, "the replacement actors")
    assert (await backend.render(CODE, seed=12)).ok


@pytest.mark.chromium
@pytest.mark.slow
async def test_a_node_removed_mid_batch_loses_no_render(backend, cluster):
    c, second = cluster
    deaths, workers = backend.status()["deaths"], backend.status()["workers"]
    batch = [asyncio.ensure_future(backend.render(SLOW if i % 2 else CODE, seed=20 + i)) for i in range(6)]
    await _until(lambda: _remember(backend)["busy"] == workers, 60, "every actor rendering")
    await asyncio.sleep(0.5)
    await asyncio.to_thread(c.remove_node, second)
    results = await asyncio.wait_for(asyncio.gather(*batch), 300)   # no exception, nothing lost
    assert len(results) == 6
    for r in results:
        assert r.ok or (r.status == "crashed" and r.infra_failure and r.detail), r
    assert sum(r.attempts > 1 for r in results) >= 1                 # the lost render was retried elsewhere
    status = _remember(backend)
    assert status["deaths"] == deaths + 1 and "died" in status["last_deaths"][-1]
    assert status["workers"] == workers - 1 and status["pending"] == 1  # the replacement waits for a CPU


@pytest.mark.chromium
@pytest.mark.slow
async def test_aclose_leaves_no_browser_or_actor_behind(backend, cluster):
    _remember(backend)
    assert SEEN["chromium"] and SEEN["actors"]
    await backend.aclose()
    await backend.aclose()                                            # twice is fine
    with pytest.raises(RenderError, match="not started"):
        await backend.render(CODE)
    await _until(lambda: not in_groups(SEEN["chromium"]), 20, "the actors' browsers to exit")
    await _until(lambda: not _alive(SEEN["actors"]), 30, "the actor processes to exit")
