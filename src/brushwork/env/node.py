"""`brushwork node up`: the scoring services of one training node, started, watched and stopped
together from a node plan.

A plan (YAML: the shipped ones in `env/nodes/`, or a file of your own) names each service the
trainer scores through (the VLM judge, HPSv3, the environment server that renders and gates) with
the command that starts it, or the URL where it already runs, the GPUs and CPU cores it may use and
the health path that says it is ready; and the training command to run once they all answer.
`up` starts each service when the services it comes after are healthy (the judge and HPSv3 load
their weights side by side), each in its own process group with `CUDA_VISIBLE_DEVICES` set to its
GPUs and its output in a log file, waits for every health check, prints the split and the train
command, and then watches: a service that dies stops the node (its log's tail says why), and
Ctrl-C or SIGTERM stops every process it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import httpx
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from brushwork.errors import ConfigError, SetupError

PLANS = Path(__file__).parent / "nodes"
POLL_S = 0.5
STOP_GRACE_S = 15.0


class Service(BaseModel):
    """One service of the node: started from `command`, or already running at `url`."""

    model_config = ConfigDict(extra="forbid")

    about: str = ""
    command: str | None = Field(None, description="shell command; {port} and every {NAME_url} are filled in")
    url: str | None = Field(None, description="where it already runs (only its health is checked)")
    port: Annotated[int, Field(ge=1, le=65535)] | None = None
    health: str = Field("/health", description="path that answers 200 when the service is ready")
    gpus: list[Annotated[int, Field(ge=0)]] = Field(default_factory=list, description="GPU indices it may use")
    cpus: Annotated[int, Field(ge=0)] = Field(0, description="CPU cores it works with, filled in as {cpus} "
                                              "(0: one per core, as brushwork serve's --workers reads it)")
    after: list[str] = Field(default_factory=list, description="services that must be healthy before it starts")
    start_timeout_s: Annotated[float, Field(gt=0)] = Field(900.0, description="seconds to become healthy")
    env: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_way_to_reach_it(self):
        if (self.command is None) == (self.url is None):
            raise ValueError("give a service either command (node up starts it) or url (it runs elsewhere)")
        if self.command is not None and self.port is None:
            raise ValueError("a service node up starts needs a port")
        return self

    def base_url(self) -> str:
        return (self.url or f"http://127.0.0.1:{self.port}").rstrip("/")


class NodePlan(BaseModel):
    """The services of one node, their GPU/CPU split, and the train command that uses them."""

    model_config = ConfigDict(extra="forbid")

    name: str
    about: str = ""
    gpus: Annotated[int, Field(ge=0)] = Field(0, description="GPUs the node has")
    services: dict[str, Service]
    train: str = Field(description="the training command; every {NAME_url} is filled in")
    train_gpus: list[Annotated[int, Field(ge=0)]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self):
        names = set(self.services)
        for name, service in self.services.items():
            if unknown := set(service.after) - names:
                raise ValueError(f"service {name} comes after unknown service(s) {sorted(unknown)}")
            if bad := [g for g in service.gpus if g >= self.gpus]:
                raise ValueError(f"service {name} uses GPU(s) {bad} but the node has {self.gpus}")
        if bad := [g for g in self.train_gpus if g >= self.gpus]:
            raise ValueError(f"training uses GPU(s) {bad} but the node has {self.gpus}")
        ports = [s.port for s in self.services.values() if s.command is not None]
        if len(ports) != len(set(ports)):
            raise ValueError(f"two services share a port: {ports}")
        _start_order(self.services)         # refuses a cycle
        for name, service in self.services.items():
            if service.command is not None:
                self.command(name)          # every placeholder is one the plan fills
        return self

    def urls(self) -> dict[str, str]:
        return {f"{name}_url": service.base_url() for name, service in self.services.items()}

    def command(self, name: str) -> str:
        service = self.services[name]
        return _fill(service.command, f"services.{name}.command", port=service.port, cpus=service.cpus,
                     **self.urls())

    def train_command(self, **values: str) -> str:
        """The train command with the services' URLs (and `values`, e.g. where the accelerate
        configurations are) filled in, its GPUs named when the plan gives them."""
        command = _fill(self.train, "train", **self.urls(), **values)
        if self.train_gpus:
            command = f"CUDA_VISIBLE_DEVICES={','.join(map(str, self.train_gpus))} {command}"
        return command


def _fill(template: str, where: str, **values) -> str:
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError) as e:
        raise ConfigError(f"{where}: cannot fill {template!r} ({e}); it may name "
                          f"{', '.join('{' + k + '}' for k in values)}") from e


def _start_order(services: dict[str, Service]) -> list[str]:
    order, placed = [], set()
    while len(order) < len(services):
        ready = [n for n, s in services.items() if n not in placed and set(s.after) <= placed]
        if not ready:
            raise ConfigError(f"services wait for each other in a circle: {sorted(set(services) - placed)}")
        order += ready
        placed |= set(ready)
    return order


def plan_names() -> list[str]:
    return sorted(p.stem for p in PLANS.glob("*.yaml"))


def load_plan(spec: str | Path) -> NodePlan:
    """A shipped plan by name, or a YAML file; a mistake is one ConfigError naming the key."""
    path = Path(spec)
    if not path.is_file():
        path = PLANS / f"{spec}.yaml"
        if not path.is_file():
            raise ConfigError(f"no node plan {str(spec)!r}: give a YAML file or one of {', '.join(plan_names())}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"cannot read the node plan {path}: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a node plan is a mapping (name, services, train, ...)")
    try:
        return NodePlan.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(plan)"
        raise ConfigError(f"{path}: {key}: {first['msg']}") from None


WAITING = frozenset({"loading", "starting"})


def health(url: str, timeout_s: float = 3.0) -> tuple[str, str]:
    """('ready' | 'waiting' | 'error', detail): the health path answers 200, and where its JSON says
    a status, that status is neither still loading nor an error."""
    try:
        answer = httpx.get(url, timeout=timeout_s)
    except httpx.HTTPError as e:
        return "waiting", type(e).__name__
    if answer.status_code != 200:
        return "waiting", f"HTTP {answer.status_code}"
    try:
        said = answer.json()
    except ValueError:
        said = None
    status = said.get("status") if isinstance(said, dict) else None
    if status == "error":
        return "error", str(said.get("detail") or said)[:500]
    return ("waiting" if status in WAITING else "ready"), str(status or "")


class Node:
    """The running services of a plan: `up()` starts and waits, `watch()` blocks until one dies or
    a signal comes, `down()` stops every process it started (also on any failure in `up`)."""

    def __init__(self, plan: NodePlan, logs: Path, say: Callable[[str], None] = print):
        self.plan, self.logs, self.say = plan, Path(logs), say
        self.procs: dict[str, subprocess.Popen] = {}

    def __enter__(self) -> Node:
        return self

    def __exit__(self, *exc) -> None:
        self.down()

    def log_path(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def up(self) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        self._check_ports()
        pending = _start_order(self.plan.services)
        ready: set[str] = set()
        deadlines: dict[str, float] = {}
        try:
            while pending or len(ready) < len(self.plan.services):
                for name in [n for n in pending if set(self.plan.services[n].after) <= ready]:
                    pending.remove(name)
                    deadlines[name] = time.monotonic() + self.plan.services[name].start_timeout_s
                    self._start(name)
                for name in [n for n in deadlines if n not in ready]:
                    if self._ready(name, deadlines[name]):
                        ready.add(name)
                        self.say(f"{name}: ready at {self.plan.services[name].base_url()}")
                time.sleep(POLL_S)
        except BaseException:
            self.down()
            raise

    def _check_ports(self) -> None:
        import socket

        for name, service in self.plan.services.items():
            if service.command is None:
                continue
            with socket.socket() as s:
                # as servers bind (uvicorn, vLLM): a port whose old connections linger in TIME_WAIT is free
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    s.bind(("127.0.0.1", service.port))
                except OSError:
                    raise SetupError(f"{name}: port {service.port} is already in use (stop what holds it, or "
                                     f"change services.{name}.port in the plan)") from None

    def _start(self, name: str) -> None:
        service = self.plan.services[name]
        if service.command is None:
            self.say(f"{name}: checking {service.base_url()}{service.health}")
            return
        env = {**os.environ, **service.env}
        if service.gpus or self.plan.gpus:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, service.gpus))    # none: kept off every GPU
        gpus = f"GPU {','.join(map(str, service.gpus))}" if service.gpus else "no GPU"
        self.say(f"{name}: starting ({gpus}; log {self.log_path(name)})")
        with open(self.log_path(name), "ab") as log:
            self.procs[name] = subprocess.Popen(self.plan.command(name), shell=True, env=env, stdout=log,
                                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                start_new_session=True)

    def _ready(self, name: str, deadline: float) -> bool:
        service = self.plan.services[name]
        proc = self.procs.get(name)
        if proc is not None and proc.poll() is not None:
            raise SetupError(f"{name} exited with status {proc.returncode} before it was ready:\n"
                             f"{self.tail(name)}")
        state, detail = health(service.base_url() + service.health)
        if state == "error":
            raise SetupError(f"{name} reports an error at {service.base_url()}{service.health}: {detail}")
        if state == "ready":
            return True
        if time.monotonic() > deadline:
            where = f"; its log:\n{self.tail(name)}" if proc is not None else ""
            raise SetupError(f"{name} did not answer {service.base_url()}{service.health} within "
                             f"{service.start_timeout_s:g}s (raise services.{name}.start_timeout_s if it is "
                             f"still loading){where}")
        return False

    def tail(self, name: str, lines: int = 20) -> str:
        try:
            text = self.log_path(name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join("  | " + line for line in text.splitlines()[-lines:]) or "  | (empty log)"

    def watch(self) -> str:
        """Block until a service exits (its name) or SIGINT/SIGTERM arrives ('signal')."""
        stop = {"why": None}

        def on_signal(signum, _frame):
            stop["why"] = "signal"

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            while stop["why"] is None:
                for name, proc in self.procs.items():
                    if proc.poll() is not None:
                        return name
                time.sleep(POLL_S)
            return stop["why"]
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    def down(self) -> None:
        """SIGTERM to each service's process group, SIGKILL to what is left after the grace."""
        running = {n: p for n, p in self.procs.items() if p.poll() is None}
        for proc in running.values():
            _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for proc in running.values():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for proc in self.procs.values():
            _signal_group(proc, signal.SIGKILL)     # stragglers in the group (a server's workers)
            if proc.poll() is None:
                proc.wait()
        self.procs.clear()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
