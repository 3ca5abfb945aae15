"""The Ray render backend: warm Chromium render workers as Ray actors on a cluster.

Each actor (`_RenderWorker`) owns a local `ChromiumBackend` (one warm browser per requested
CPU, the same deadline, CPU budget, size and Chromium) on its own event loop, and answers
``render(code, seed, size)`` with the `RenderResult` (PNG bytes included) plus a little about
itself (process id, node, its browsers' process ids, renders served). The driver
(`RayBackend`) keeps the queue: a render goes to the least busy actor that has a free
browser, so a new actor (when the cluster has free CPUs while renders wait) takes work at
once, and a dead node loses only the renders it was painting, never the queued ones.

Faults. An actor or node that dies mid-render, or an actor that does not answer within
``3 * timeout_s + 30`` s, costs a retry on another live actor (dead actors are replaced);
after `MAX_ATTEMPTS` the result is ``crashed`` with the infrastructure reasons, which the
gate calls infra (reward None). Except: when the sketch's worker process died on every
attempt, each time a different actor on a node that stayed up and rendering only this
sketch (an actor renders one sketch per browser, and an actor renders one at a time with
the default one CPU), the sketch is what kills workers: the result is ``repeated``, the
sketch's fault (reward 0), as `ChromiumBackend` does for a browser that crashes twice.

Ray does not restart actors here (``max_restarts=0``, ``max_task_retries=0``): the driver
replaces a lost actor with a new one, placed wherever the cluster has room, so that it knows
which attempt ran on which worker. Actors close their browsers when asked (`aclose`), at exit
and when collected; Chromium is also started with a parent-death signal, so a killed actor
takes its browser with it.

Connection. `start()` joins the cluster (``ray.init``) unless this process already has; an
address where nothing answers is a `RenderError` at once, saying how to start a cluster. If
the head stops answering, actors keep painting (calls go to them directly) until the driver
has heard nothing from the head for `LOST_AFTER_S`; from then on renders raise `RenderError`
until it answers again (Ray itself ends a driver whose GCS stays away for 60 s).
``pip install 'brushwork[ray]'`` installs Ray.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from brushwork.errors import ConfigError, DependencyNotInstalled, RenderError
from brushwork.render.config import RenderConfig
from brushwork.render.result import RenderResult, Timings

MAX_ATTEMPTS = 3
START_TIMEOUT_S = 180.0      # for the first actor to come up at start()
CONNECT_TIMEOUT_S = 60.0     # for ray.init
PROBE_TIMEOUT_S = 15.0       # for a cluster question (nodes, resources) when something looks wrong
MONITOR_S = 2.0              # how often the driver looks at the cluster's free resources
MAX_START_FAILURES = 3       # consecutive actors that fail to start before replacements stop
# A head that answers no cluster question for this long is taken as gone: renders raise RenderError
# until it answers again. Ray itself ends a driver whose GCS stays away for
# gcs_rpc_server_reconnect_timeout_s (60 s by default), so this must be shorter.
LOST_AFTER_S = 30.0

log = logging.getLogger(__name__)


def _ray():
    try:
        import ray
    except ImportError as e:
        raise DependencyNotInstalled("ray", "ray") from e
    return ray


# -- the actor ---------------------------------------------------------------------------------
class _RenderWorker:
    """One warm `ChromiumBackend` in a Ray actor (an async actor: every method runs on the
    actor's event loop, the one the browsers were started on)."""

    def __init__(self, config: RenderConfig):
        self._config = config
        self._backend = None
        self._starting: asyncio.Task | None = None
        self._renders = 0
        atexit.register(self._kill_browsers)

    async def start(self) -> dict:
        from brushwork.render.chromium import ChromiumBackend

        if self._backend is None:
            if self._starting is None:
                backend = ChromiumBackend(self._config)
                self._starting = asyncio.ensure_future(backend.start())
                await self._starting
                self._backend = backend
            else:
                await self._starting
        return self._info()

    async def render(self, code: str, seed: int, size: int) -> tuple[RenderResult, dict]:
        await self.start()
        result = await self._backend.render(code, seed, size)
        self._renders += 1
        return result, self._info()

    async def info(self) -> dict:
        return self._info()

    async def close(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None:
            await backend.aclose()

    def _info(self) -> dict:
        import ray

        backend = self._backend
        context = ray.get_runtime_context()
        return {"pid": os.getpid(), "node": context.get_node_id(), "actor": context.get_actor_id(),
                "versions": backend.versions if backend else "", "renders": self._renders,
                "restarts": len(backend.restarts) if backend else 0,
                "chromium_pids": _browser_pids(backend)}

    def _kill_browsers(self) -> None:
        """Synchronous: at exit or collection, when no event loop may be left to close politely.
        (Ray's actor-class wrapper shares this `__del__` without our attributes: hence getattr.)"""
        backend = getattr(self, "_backend", None)
        for worker in getattr(backend, "_workers", []) if backend is not None else []:
            with contextlib.suppress(Exception):
                worker.kill()

    def __del__(self):
        self._kill_browsers()


def _browser_pids(backend) -> list[int]:
    return [w.proc.pid for w in getattr(backend, "_workers", []) if getattr(w, "proc", None) is not None]


_ACTOR_CLASS = None


def _actor_class():
    global _ACTOR_CLASS
    if _ACTOR_CLASS is None:
        _ACTOR_CLASS = _ray().remote(_RenderWorker)
    return _ACTOR_CLASS


# -- the driver --------------------------------------------------------------------------------
@dataclass
class _Actor:
    handle: Any
    id: str
    capacity: int
    node: str = ""
    pid: int | None = None
    chromium_pids: list[int] = field(default_factory=list)
    renders: int = 0          # renders the actor says it served
    inflight: int = 0
    dispatches: int = 0       # renders sent to it (to tell whether a render had the actor to itself)
    started_s: float = 0.0    # seconds from creation to warm


@dataclass(frozen=True)
class _Failure:
    """One attempt that produced no result. `kind`: ``died`` (the actor's worker process died
    on a node that stayed up), ``node`` (its node died), ``hung`` (no answer in time),
    ``error`` (the actor raised), ``unplaced`` (no live actor came)."""

    kind: str
    actor: str
    reason: str


class RayBackend:
    """A `RenderBackend` whose browsers are Ray actors. `address`: the cluster (default
    `config.ray_address`, else $RAY_ADDRESS, else ``auto``); `actors`: how many (default: the
    cluster's free CPUs / `cpus_per_actor`, growing while renders wait and CPUs are free);
    each actor asks for `cpus_per_actor` CPUs (one browser per whole CPU) and
    `memory_mb_per_actor` MB (defaults: `config.ray_cpus_per_worker`, `ray_memory_mb_per_worker`).
    `config.workers` is not used: the cluster's size decides."""

    def __init__(self, config: RenderConfig | None = None, address: str | None = None, actors: int | None = None,
                 cpus_per_actor: float | None = None, memory_mb_per_actor: int | None = None):
        self.config = config or RenderConfig(backend="ray")
        cpus_per_actor = cpus_per_actor or self.config.ray_cpus_per_worker
        memory_mb_per_actor = memory_mb_per_actor or self.config.ray_memory_mb_per_worker
        self.address = address or self.config.ray_address or os.environ.get("RAY_ADDRESS") or "auto"
        if actors is not None and actors < 1:
            raise ConfigError(f"actors must be >= 1, got {actors}")
        if cpus_per_actor <= 0 or memory_mb_per_actor <= 0:
            raise ConfigError("cpus_per_actor and memory_mb_per_actor must be positive")
        self._ray = _ray()
        self.requested_actors = actors
        self.cpus_per_actor = cpus_per_actor
        self.memory_mb_per_actor = memory_mb_per_actor
        self.browsers_per_actor = max(1, int(cpus_per_actor))
        self.call_timeout_s = self.config.timeout_s * 3 + 30
        self.max_attempts = MAX_ATTEMPTS
        self._worker_config = replace(self.config, workers=self.browsers_per_actor, use_cache=False, cache_dir=None,
                                      backend="local", ray_address=None)
        self._actors: dict[str, _Actor] = {}
        self._pending: dict[asyncio.Task, Any] = {}
        self._cond: asyncio.Condition | None = None
        self._monitor: asyncio.Task | None = None
        self._lost: asyncio.Future | None = None       # set to the reason when the cluster is gone
        self._unreachable_since: float | None = None
        self._versions = ""
        self._target = 0
        self._waiting = 0
        self._started = self._closed = False
        self._owns_ray = False
        self._start_failures = 0
        self._last_start_error = ""
        self._cluster: dict = {}
        self._probing = False
        self.deaths: list[str] = []        # why each actor was lost
        self.restarts: list[float] = []    # seconds each replacement actor took to come up warm
        self.gcs_address = ""              # the head this process is connected to, once started
        self.dispatched = 0                # renders sent to the cluster
        self.retried = 0                   # attempts that were retried elsewhere

    # -- RenderBackend --------------------------------------------------------------------------
    @property
    def versions(self) -> str:
        return self._versions

    async def start(self) -> None:
        if self._started:
            return
        if self._closed:
            raise RenderError("this Ray render backend was closed; make a new one")
        await self._connect()
        with contextlib.suppress(Exception):
            self.gcs_address = self._ray.get_runtime_context().gcs_address
        self._cond = asyncio.Condition()
        self._lost = asyncio.get_running_loop().create_future()
        await self._refresh_cluster()
        free = self._cluster.get("free_cpus", 0.0)
        self._target = self.requested_actors or max(1, int(free // self.cpus_per_actor))
        t0 = time.perf_counter()
        for _ in range(self._target):
            self._spawn(replacing=False)
        try:
            await self._wait_first_actors(t0)
        except BaseException:
            await self._kill_all()
            if self._owns_ray:
                with contextlib.suppress(Exception):
                    self._ray.shutdown()
                self._owns_ray = False
            raise
        self._started = True
        self._monitor = asyncio.ensure_future(self._watch())

    async def render(self, code: str, seed: int = 0, size: int | None = None) -> RenderResult:
        """Render one sketch on the cluster. Never raises for anything the sketch does; raises
        `RenderError` when the backend is not started or closed, or when the cluster is gone."""
        if not self._started or self._closed:
            raise RenderError("the Ray render backend is not started (or was closed): use "
                              "`async with Renderer(RenderConfig(backend='ray')) as r:` or await start()")
        size = size or self.config.size
        failures: list[_Failure] = []
        queued = 0.0
        t0 = time.perf_counter()
        while len(failures) < self.max_attempts:
            tq = time.perf_counter()
            actor = await self._acquire()
            queued += time.perf_counter() - tq
            if actor is None:
                failures.append(_Failure("unplaced", "", f"no live render worker on the cluster for "
                                                         f"{self.call_timeout_s:g}s ({self._resources_line()})"))
                break
            try:
                outcome = await self._call(actor, code, seed, size)
            finally:
                await self._release(actor)
            if isinstance(outcome, _Failure):
                failures.append(outcome)
                if len(failures) < self.max_attempts:
                    self.retried += 1
                continue
            result = outcome
            timings = replace(result.timings, queue_s=result.timings.queue_s + queued)
            if failures:
                earlier = "; ".join(f"attempt {i}: {f.reason}" for i, f in enumerate(failures, 1))
                return replace(result, attempts=result.attempts + len(failures), timings=timings,
                               detail=result.detail or f"rendered on another Ray worker after {earlier}")
            return replace(result, timings=timings)
        return self._give_up(failures, seed, size, time.perf_counter() - t0, queued)

    def status(self) -> dict:
        actors = list(self._actors.values())
        return {
            "backend": "ray", "address": self.address, "gcs_address": self.gcs_address,
            "workers": len(actors), "alive": len(actors), "busy": sum(a.inflight > 0 for a in actors),
            "pending": len(self._pending), "waiting": self._waiting, "target": self._target,
            "browsers_per_actor": self.browsers_per_actor, "cpus_per_actor": self.cpus_per_actor,
            "memory_mb_per_actor": self.memory_mb_per_actor,
            "actors": [{"id": a.id, "node": a.node, "pid": a.pid, "inflight": a.inflight, "renders": a.renders,
                        "chromium_pids": list(a.chromium_pids), "started_s": round(a.started_s, 2)} for a in actors],
            "renders": sum(a.renders for a in actors), "dispatched": self.dispatched, "retried": self.retried,
            "deaths": len(self.deaths), "last_deaths": self.deaths[-5:], "restarts": len(self.restarts),
            "start_error": self._last_start_error, "cluster": dict(self._cluster),
            "lost": self._lost.result() if self._lost is not None and self._lost.done() else "",
            "timeout_s": self.config.timeout_s, "cpu_budget_s": self.config.cpu_budget_s,
            "call_timeout_s": self.call_timeout_s, "versions": self._versions,
        }

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._started = False
        if self._monitor is not None:
            self._monitor.cancel()
            with contextlib.suppress(BaseException):
                await self._monitor
        if self._cond is not None:
            async with self._cond:
                self._cond.notify_all()
        await self._kill_all()
        if self._owns_ray:
            with contextlib.suppress(Exception):
                await _off_loop(self._ray.shutdown, PROBE_TIMEOUT_S)
            self._owns_ray = False

    # -- connecting and starting ----------------------------------------------------------------
    async def _connect(self) -> None:
        ray = self._ray
        if ray.is_initialized():
            return
        how = ("start one with `ray start --head` (then address auto), or pass --ray-address HOST:PORT / "
               "set RAY_ADDRESS to a running cluster's head (`ray status` there prints it)")
        # ray.init retries an address where nothing answers for ever: find and knock first.
        try:
            await _off_loop(self._knock, PROBE_TIMEOUT_S)
        except TimeoutError:
            pass
        except Exception as e:  # noqa: BLE001 - no cluster found, or nothing listens there
            raise RenderError(f"could not connect to the Ray cluster at {self.address!r} ({_first_line(e)}): "
                              f"{how}") from e
        try:
            await _off_loop(lambda: ray.init(address=self.address, ignore_reinit_error=True,
                                             logging_level=logging.WARNING, log_to_driver=False), CONNECT_TIMEOUT_S)
        except TimeoutError as e:
            raise RenderError(f"could not reach the Ray cluster at {self.address!r} within {CONNECT_TIMEOUT_S:g}s: "
                              f"{how}") from e
        except Exception as e:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError...
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise RenderError(f"could not connect to the Ray cluster at {self.address!r} ({first}): {how}") from e
        self._owns_ray = True

    def _knock(self) -> None:
        """Resolve the address as Ray would (``auto``: the cluster `ray start` left on this
        machine) and open a TCP connection to its GCS. Skipped for Ray Client (``ray://``)."""
        if self.address.startswith("ray://"):
            return
        try:
            from ray._private.services import canonicalize_bootstrap_address_or_die
        except ImportError:  # a Ray whose internals moved: ray.init alone decides
            return
        resolved = canonicalize_bootstrap_address_or_die(self.address)
        host, _, port = resolved.rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
        except OSError as e:
            raise RenderError(f"nothing answers at {resolved}: {e.strerror or e}") from e

    async def _wait_first_actors(self, t0: float) -> None:
        """Until every actor is warm; or, once one is, for at most twice as long as it took (the
        others may wait for CPUs the cluster does not have now)."""
        deadline = t0 + START_TIMEOUT_S
        first_at = None
        while self._pending:
            now = time.perf_counter()
            if self._actors and first_at is None:
                first_at = now
            limit = deadline if first_at is None else min(deadline, first_at + max(10.0, 2 * (first_at - t0)))
            if now >= limit:
                break
            if not self._actors and self._start_failures >= MAX_START_FAILURES:
                break
            await asyncio.wait(list(self._pending), timeout=min(1.0, limit - now),
                               return_when=asyncio.FIRST_COMPLETED)
        if not self._actors:
            why = self._last_start_error or (f"none came up within {START_TIMEOUT_S:g}s; each asks for "
                                             f"{self.cpus_per_actor:g} CPU and {self.memory_mb_per_actor} MB "
                                             f"({self._resources_line()})")
            raise RenderError(f"no Ray render worker started on the cluster at {self.address!r}: {why}")

    def _spawn(self, replacing: bool) -> None:
        if not self._ray.is_initialized():   # .remote() would start a new local Ray instance
            return
        handle = _actor_class().options(
            num_cpus=self.cpus_per_actor, memory=int(self.memory_mb_per_actor * 1024 * 1024),
            max_restarts=0, max_task_retries=0, scheduling_strategy="SPREAD",
        ).remote(self._worker_config)
        task = asyncio.ensure_future(self._bring_up(handle, replacing))
        self._pending[task] = handle

    async def _bring_up(self, handle, replacing: bool) -> None:
        t0 = time.perf_counter()
        task = asyncio.current_task()
        try:
            info = await _awaited(handle.start.remote())
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - the actor died or its browsers would not start
            self._start_failures += 1
            self._last_start_error = f"a render worker failed to start: {_first_line(e)}"
            self._kill(handle)
            if not self._closed and self._start_failures < MAX_START_FAILURES and replacing:
                self._spawn(replacing=True)
            return
        finally:
            self._pending.pop(task, None)
        if self._closed:
            self._kill(handle)
            return
        versions = "ray|" + info["versions"]
        if self._versions and versions != self._versions:
            self._start_failures += 1
            self._last_start_error = (f"the render worker on node {info['node'][:12]} paints with different "
                                      f"versions ({info['versions']!r}, the pool's: {self._versions[4:]!r}): install "
                                      "the same brushwork and Chromium on every node; it was stopped")
            self._kill(handle)
            return
        self._versions = versions
        self._start_failures = 0
        actor = _Actor(handle, info["actor"], self.browsers_per_actor, started_s=time.perf_counter() - t0)
        _note(actor, info)
        self._actors[actor.id] = actor
        if replacing:
            self.restarts.append(actor.started_s)
        if self._cond is not None:
            async with self._cond:
                self._cond.notify_all()

    # -- routing ----------------------------------------------------------------------------------
    async def _acquire(self) -> _Actor | None:
        """The least busy actor with a free browser (waiting for one to be free); None when no
        actor has been alive for `call_timeout_s`."""
        loop = asyncio.get_running_loop()
        async with self._cond:
            self._waiting += 1
            try:
                none_since = None
                while True:
                    if self._closed:
                        raise RenderError("the Ray render backend was closed while a render waited")
                    self._check_connected()
                    free = [a for a in self._actors.values() if a.inflight < a.capacity]
                    if free:
                        actor = min(free, key=lambda a: (a.inflight / a.capacity, a.renders))
                        actor.inflight += 1
                        actor.dispatches += 1
                        return actor
                    if self._actors:
                        none_since = None
                    else:
                        none_since = none_since or loop.time()
                        if not self._pending and self._start_failures < MAX_START_FAILURES:
                            self._spawn(replacing=True)
                        if loop.time() - none_since > self.call_timeout_s:
                            return None
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._cond.wait(), 1.0)
            finally:
                self._waiting -= 1

    async def _release(self, actor: _Actor) -> None:
        actor.inflight -= 1
        async with self._cond:
            self._cond.notify(1)

    async def _call(self, actor: _Actor, code: str, seed: int, size: int) -> RenderResult | _Failure:
        ray = self._ray
        exc = ray.exceptions
        self._check_connected()   # a disconnected driver's next .remote() would start a new local Ray
        self.dispatched += 1
        alone, dispatches = actor.inflight == 1, actor.dispatches
        ref = actor.handle.render.remote(code, seed, size)
        answer = _awaited(ref)
        await asyncio.wait({answer, self._lost}, timeout=self.call_timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if not answer.done():
            answer.cancel()
            with contextlib.suppress(Exception):
                ray.cancel(ref)
            self._check_connected()
            if not await self._cluster_reachable():
                self._mark_lost(f"no answer from a render worker within {self.call_timeout_s:g}s, and none from the "
                                "head either")
                self._check_connected()
            return await self._lose(actor, "hung", f"render worker {actor.id[:8]} gave no answer within "
                                                   f"{self.call_timeout_s:g}s; it was replaced")
        try:
            result, info = answer.result()
        except (exc.RayActorError, exc.WorkerCrashedError, getattr(exc, "NodeDiedError", exc.WorkerCrashedError)) as e:
            # unreachable (not dead) or its node gone: the infrastructure's doing
            node_died = isinstance(e, (getattr(exc, "NodeDiedError", ()), getattr(exc, "ActorUnavailableError", ()))) \
                or _says_node_died(e) or not await self._node_alive(actor.node)
            # Only a death while the actor rendered nothing but this sketch can be held against it.
            kind = "node" if node_died else "died" if alone and actor.dispatches == dispatches else "died_shared"
            what = f"node {actor.node[:12]} died" if node_died else "its worker process died"
            return await self._lose(actor, kind, f"render worker {actor.id[:8]} was lost mid-render ({what}: "
                                                 f"{type(e).__name__})")
        except exc.ObjectLostError as e:  # the answer was lost (its node went): ours, the actor may be fine
            return _Failure("error", actor.id, f"the render's answer was lost ({type(e).__name__})")
        except exc.RayTaskError as e:  # the actor raised: its browsers are broken; replace it
            return await self._lose(actor, "error", f"render worker {actor.id[:8]} failed: {_first_line(e)}")
        except exc.RaySystemError as e:
            if not await self._cluster_reachable():
                self._mark_lost(f"Ray failed the render ({_first_line(e)}) and the head does not answer")
                self._check_connected()
            return await self._lose(actor, "error", f"Ray failed the render: {_first_line(e)}")
        _note(actor, info)
        return result

    def _check_connected(self) -> None:
        """RenderError, with what to do, once the cluster is gone or this process left it."""
        if self._lost is not None and self._lost.done():
            reason = self._lost.result()
        elif not self._ray.is_initialized():
            reason = "this process is no longer connected to Ray (ray.shutdown() was called)"
        else:
            return
        raise RenderError(f"lost the Ray cluster at {self.address!r}: {reason}. Start the head again (`ray start "
                          "--head`) or check RAY_ADDRESS, then start a new renderer")

    def _mark_lost(self, reason: str) -> None:
        if self._lost is not None and not self._lost.done():
            log.error("lost the Ray cluster at %s: %s", self.address, reason)
            self._lost.set_result(reason)

    async def _lose(self, actor: _Actor, kind: str, reason: str) -> _Failure:
        """Forget a dead or broken actor, make sure it is gone, and start a replacement."""
        if self._actors.pop(actor.id, None) is not None:
            self.deaths.append(reason)
            self._kill(actor.handle)
            if not self._closed and self._start_failures < MAX_START_FAILURES:
                self._spawn(replacing=True)
        return _Failure(kind, actor.id, reason)

    def _give_up(self, failures: list[_Failure], seed: int, size: int, wall: float, queued: float) -> RenderResult:
        reasons = "; ".join(f"attempt {i}: {f.reason}" for i, f in enumerate(failures, 1))
        died = [f for f in failures if f.kind == "died"]
        sketch = len(failures) >= self.max_attempts and len(died) == len(failures) \
            and len({f.actor for f in died}) == len(died)
        timings = Timings(wall, queue_s=queued)
        if sketch:
            return RenderResult("crashed", seed, size, timings=timings, attempts=len(failures), repeated=True,
                                detail=f"the sketch's render worker process died on every attempt, each time a "
                                       f"different worker rendering only this sketch on a node that stayed up, "
                                       f"so it is the sketch's ({reasons})")
        return RenderResult("crashed", seed, size, timings=timings, attempts=len(failures),
                            detail=f"Ray infrastructure failure, not the sketch's: {reasons}")

    # -- the cluster --------------------------------------------------------------------------------
    async def _watch(self) -> None:
        """Every few seconds: the cluster's size and free resources (for status), and one more
        actor when renders wait, every actor is busy and the cluster has room for one."""
        while not self._closed:
            await asyncio.sleep(MONITOR_S)
            if not self._ray.is_initialized():
                self._mark_lost("this process is no longer connected to Ray (ray.shutdown() was called)")
            with contextlib.suppress(Exception):
                asked = time.monotonic()
                if await self._refresh_cluster() is False:
                    self._unreachable_since = self._unreachable_since or asked
                    if time.monotonic() - self._unreachable_since > LOST_AFTER_S:
                        self._mark_lost(f"the head has answered no question for {LOST_AFTER_S:g}s (Ray ends this "
                                        "process if its GCS stays away for gcs_rpc_server_reconnect_timeout_s, 60s "
                                        "by default)")
                    continue
                self._unreachable_since = None
                if self._lost.done() and self._ray.is_initialized():   # the head is back
                    log.warning("the Ray cluster at %s answers again; rendering resumes", self.address)
                    self._lost = asyncio.get_running_loop().create_future()
                if self.requested_actors is None and self._waiting > 0 and not self._pending \
                        and self._start_failures < MAX_START_FAILURES \
                        and all(a.inflight >= a.capacity for a in self._actors.values()) \
                        and self._cluster.get("free_cpus", 0) >= self.cpus_per_actor \
                        and self._cluster.get("free_memory_mb", float("inf")) >= self.memory_mb_per_actor:
                    self._target += 1
                    self._spawn(replacing=False)

    async def _refresh_cluster(self) -> bool | None:
        """False when the head did not answer (None: a probe is already under way)."""
        if self._probing:
            return None
        self._probing = True
        try:
            total, free, nodes = await _off_loop(self._resources, PROBE_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - a slow or gone head: status keeps the last answer
            return False
        finally:
            self._probing = False
        self._cluster = {"nodes": nodes, "cpus": total.get("CPU", 0.0), "free_cpus": free.get("CPU", 0.0),
                         "memory_mb": round(total.get("memory", 0.0) / 2**20),
                         "free_memory_mb": round(free.get("memory", 0.0) / 2**20)}
        return True

    def _resources(self) -> tuple[dict, dict, int]:
        ray = self._ray
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        return ray.cluster_resources(), ray.available_resources(), nodes

    def _resources_line(self) -> str:
        c = self._cluster
        if not c:
            return "cluster resources unknown"
        return f"{c['nodes']} nodes, {c['free_cpus']:g}/{c['cpus']:g} CPUs free"

    async def _node_alive(self, node: str) -> bool:
        try:
            nodes = await _off_loop(self._ray.nodes, PROBE_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - unknown counts as dead: never blame a sketch on a doubt
            return False
        return any(n.get("NodeID") == node and n.get("Alive") for n in nodes)

    async def _cluster_reachable(self) -> bool:
        try:
            await _off_loop(self._ray.nodes, PROBE_TIMEOUT_S)
        except Exception:  # noqa: BLE001
            return False
        return True

    def _kill(self, handle) -> None:
        if not self._ray.is_initialized():
            return
        with contextlib.suppress(Exception):
            self._ray.kill(handle, no_restart=True)

    async def _kill_all(self) -> None:
        """Ask every actor to close its browsers, then end it; pending actors are ended as well."""
        actors, self._actors = list(self._actors.values()), {}
        pending, self._pending = dict(self._pending), {}
        for task in pending:
            task.cancel()
        if actors and self._ray.is_initialized():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*(_awaited(a.handle.close.remote()) for a in actors),
                                                      return_exceptions=True), PROBE_TIMEOUT_S)
        handles = [a.handle for a in actors] + list(pending.values())
        with contextlib.suppress(Exception):
            await _off_loop(lambda: [self._kill(h) for h in handles], PROBE_TIMEOUT_S)
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


async def _off_loop(fn, timeout_s: float):
    """`fn()` on a daemon thread, awaited for at most `timeout_s` (TimeoutError). Not the loop's
    executor: a Ray call stuck on a gone head must not hold up the loop's shutdown either."""
    future: concurrent.futures.Future = concurrent.futures.Future()

    def run():
        try:
            future.set_result(fn())
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting side
            future.set_exception(e)

    threading.Thread(target=run, name="brushwork-ray-call", daemon=True).start()
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout_s)


def _awaited(ref) -> asyncio.Future:
    """An asyncio future for a Ray ObjectRef on the running loop."""
    return asyncio.wrap_future(ref.future())


def _note(actor: _Actor, info: dict) -> None:
    actor.pid = info.get("pid", actor.pid)
    actor.node = info.get("node", actor.node)
    actor.renders = info.get("renders", actor.renders)
    actor.chromium_pids = list(info.get("chromium_pids", actor.chromium_pids))


def _says_node_died(e: Exception) -> bool:
    text = str(e).lower()
    return bool(getattr(e, "preempted", False)) or "its node has died" in text or "node was preempted" in text


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0][:300]}" if text else type(e).__name__
