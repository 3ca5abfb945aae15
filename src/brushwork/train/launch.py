"""How one training run spreads over processes: who is who, how many rollouts a step
scores, and the one scorer every process of a node shares.

`brushwork train` runs as one process per GPU under `accelerate launch` (or alone). TRL
makes its generation batch `per_device_train_batch_size x num_processes x
steps_per_generation`, so the same file on 8 processes would score 8x the rollouts it
scores on one. `rollouts_per_step` states the number once; `plan_rollouts` derives the
gradient accumulation that keeps it whatever the process count, and says so when it cannot.

Scoring is one warm renderer pool per node, not one per process: the node's first process
(local rank 0) serves the environment (`NodeScorer`, the same app as `brushwork serve`, on a
free local port) and every process of the node scores through it over WebSocket.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass

from brushwork.errors import ConfigError, SetupError


@dataclass(frozen=True)
class Layout:
    """Where this process sits: its global rank among `world` processes and its rank among
    the `local_world` processes of its node."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0
    local_world: int = 1

    @property
    def main(self) -> bool:
        return self.rank == 0

    @property
    def node_main(self) -> bool:
        return self.local_rank == 0


def layout() -> Layout:
    """This process's layout, from accelerate's state (one process when not launched)."""
    from accelerate import PartialState

    state = PartialState()
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE") or state.num_processes)   # torchrun sets it
    return Layout(state.process_index, state.num_processes, state.local_process_index, local_world)


@dataclass(frozen=True)
class RolloutPlan:
    """One optimizer step's rollouts: `rollouts` completions (`prompts` prompts x `num_generations`),
    `per_process` of them generated and scored on each of `processes` processes."""

    rollouts: int
    num_generations: int
    processes: int
    per_device_batch: int
    gradient_accumulation_steps: int

    @property
    def prompts(self) -> int:
        return self.rollouts // self.num_generations

    @property
    def per_process(self) -> int:
        return self.rollouts // self.processes

    def describe(self) -> str:
        return (f"{self.rollouts} rollouts a step ({self.prompts} prompt(s) x {self.num_generations} generations) = "
                f"{self.processes} process(es) x batch {self.per_device_batch} x "
                f"{self.gradient_accumulation_steps} accumulation step(s)")


def plan_rollouts(rollouts_per_step: int | None, num_generations: int, per_device_batch: int, processes: int,
                  gradient_accumulation_steps: int) -> RolloutPlan:
    """The plan that scores `rollouts_per_step` completions a step on `processes` processes (the
    gradient accumulation derived from it), or, without a stated number, TRL's own product."""
    if rollouts_per_step is None:
        rollouts = per_device_batch * processes * gradient_accumulation_steps
        return RolloutPlan(rollouts, num_generations, processes, per_device_batch, gradient_accumulation_steps)
    if rollouts_per_step % num_generations:
        raise ConfigError(f"rollouts_per_step {rollouts_per_step} is not a whole number of groups of "
                          f"num_generations {num_generations}: make it a multiple of {num_generations}")
    per_step = per_device_batch * processes
    if rollouts_per_step % per_step:
        raise ConfigError(f"rollouts_per_step {rollouts_per_step} cannot be split over {processes} process(es) x "
                          f"per_device_train_batch_size {per_device_batch} ({per_step} a micro-step): make it a "
                          f"multiple of {per_step}, or lower per_device_train_batch_size")
    return RolloutPlan(rollouts_per_step, num_generations, processes, per_device_batch, rollouts_per_step // per_step)


def free_port(host: str = "127.0.0.1") -> socket.socket:
    """A socket bound to a free port, handed to the server (so no other process takes the port
    between choosing it and listening on it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    return sock


class NodeScorer:
    """The environment server of one node, run in this process on a free local port: one warm
    renderer pool, pool and scorers for every training process of the node. `url` is its
    WebSocket address; `close()` stops it and its browsers, and writes its last health report
    (episodes, steps, sessions) to `report` when one is given."""

    def __init__(self, options, sessions: int, host: str = "127.0.0.1", report=None):
        import uvicorn

        from brushwork.env.server.app import build_app
        from brushwork.env.server.context import ServerContext
        from brushwork.env.settings import ServerSettings

        self.report = report          # where close() writes the server's last /health (what it scored)
        self._sock = free_port(host)
        port = self._sock.getsockname()[1]
        values = {k: v for k, v in options.to_dict().items() if v is not None}
        settings = ServerSettings(**{**values, "host": host, "port": port, "max_sessions": sessions})
        self.context = ServerContext(settings)
        config = uvicorn.Config(build_app(self.context), log_level="warning", timeout_graceful_shutdown=5)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        name="brushwork-node-scorer", daemon=True)
        self._thread.start()
        self.url = f"ws://{host}:{port}"
        self._wait_started()

    def _wait_started(self, timeout_s: float = 60.0) -> None:
        import time

        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.close()
                raise SetupError(f"the node's scoring server did not start on {self.url} within {timeout_s:g}s "
                                 "(its log above says why)")
            time.sleep(0.05)

    def health(self) -> dict:
        return self.context.health()

    def close(self) -> None:
        import json
        from pathlib import Path

        self._server.should_exit = True
        self._thread.join(timeout=30)
        self._sock.close()
        try:
            if self.report is not None:
                Path(self.report).write_text(json.dumps(self.health(), indent=1, default=str), encoding="utf-8")
        finally:
            self.context.close()


def node_scorer_url(where: Layout, start) -> tuple[str, object | None]:
    """(the URL of this node's scorer, the scorer when this process owns it): the node's first
    process calls `start()`, then every process learns its node's URL (one collective)."""
    from accelerate.utils import gather_object

    owned, failed = None, None
    if where.node_main:
        try:
            owned = start()
        except Exception as e:   # every process must reach the collective below, then all stop with it
            failed = e
    node = socket.gethostname()
    said = gather_object([(node, owned.url if owned is not None else None,
                           f"{type(failed).__name__}: {failed}" if failed else None)])
    if failed is not None:
        raise failed
    errors = [error for host, _, error in said if host == node and error]
    if errors:
        raise SetupError(f"the scoring server of node {node} did not start ({errors[0]}); the log of its local "
                         "rank 0 says why")
    return next(url for host, url, _ in said if host == node and url), owned
