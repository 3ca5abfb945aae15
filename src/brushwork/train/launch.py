"""How one training run spreads over processes: who is who, how many rollouts a step
scores, and the one scorer every process of a node shares.

`brushwork train` runs as one process per GPU under `accelerate launch` (or alone). TRL
makes its generation batch `per_device_train_batch_size x num_processes x
steps_per_generation`, so the same file on 8 processes would score 8x the rollouts it
scores on one. `rollouts_per_step` states the number once; `plan_rollouts` derives the
gradient accumulation that keeps it whatever the process count, and says so when it cannot.

Scoring is one warm renderer pool per node, not one per process: the node's first process
(local rank 0) starts the environment server in a process of its own (`NodeScorer`, the same
app as `brushwork serve`, on a free local port) and every process of the node scores through it
over WebSocket.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

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
    """The environment server of one node (the app `brushwork serve` runs), in a process of its
    own on a free local port: one warm renderer pool, pool and scorers for every training process
    of the node. Its own interpreter, so its event loop and scoring never wait on a trainer's GIL
    (nor the trainer's generation on theirs); it and its browsers run `render_nice` below the
    process that starts it and die with it. `url` is its WebSocket address; its output goes to
    `log`; `close()` stops it (its browsers close with it) after writing its last health report
    (episodes, steps, sessions) to `report` when one is given."""

    def __init__(self, options, sessions: int, log, host: str = "127.0.0.1", report=None,
                 start_timeout_s: float = 300.0):
        import functools
        import json
        import subprocess
        import sys

        from brushwork.render.browser import child_setup

        self.report = report
        self.log = Path(log)
        sock = free_port(host)
        port = sock.getsockname()[1]
        values = {k: v for k, v in options.to_dict().items() if v is not None}
        # the server is lowered as a whole: its browsers run at its own priority
        settings = {**values, "host": host, "port": port, "max_sessions": sessions, "render_nice": 0}
        self.base = f"http://{host}:{port}"
        self.url = f"ws://{host}:{port}"
        command = [sys.executable, "-m", "brushwork.env.server.app", "--fd", str(sock.fileno()),
                   "--settings", "-", "--log-level", "warning"]
        with sock, self.log.open("wb") as out:
            self._proc = subprocess.Popen(  # noqa: S603 - this interpreter, brushwork's own module
                command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, pass_fds=(sock.fileno(),),
                preexec_fn=functools.partial(child_setup, values.get("render_nice", 0)))
            self._proc.stdin.write(json.dumps(settings).encode())
            self._proc.stdin.close()
        self._wait_started(start_timeout_s)

    def _wait_started(self, timeout_s: float) -> None:
        import time

        import httpx

        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if httpx.get(self.base + "/health", timeout=5, trust_env=False).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            code = self._proc.poll()
            if code is not None or time.monotonic() > deadline:
                self.close(report=False)
                how = f"exited with code {code}" if code is not None else f"did not answer within {timeout_s:g}s"
                raise SetupError(f"the node's scoring server did not start on {self.url} ({how}); its log "
                                 f"({self.log}) ends:\n{self.tail()}")
            time.sleep(0.2)

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def tail(self, lines: int = 15) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def health(self) -> dict:
        import httpx

        return httpx.get(self.base + "/health", timeout=30, trust_env=False).json()   # local: no proxy

    def close(self, report: bool = True) -> None:
        """Write the last health report (when asked and the server still answers), then stop the
        server: SIGTERM (it closes its browsers), and SIGKILL past a grace period."""
        import json
        import subprocess

        try:
            if report and self.report is not None and self._proc.poll() is None:
                Path(self.report).write_text(json.dumps(self.health(), indent=1, default=str), encoding="utf-8")
        finally:
            if self._proc.poll() is None:
                self._proc.terminate()
                try:
                    self._proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()


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
