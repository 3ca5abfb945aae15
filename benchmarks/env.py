"""Environment benchmark: many concurrent clients against one real `brushwork serve`.

Starts the server as a subprocess on 127.0.0.1 (one browser per core, `--max-sessions` = the
number of clients), then runs `--clients` threads, each with its own `BrushworkEnv` client,
for `--steps` steps each. Episodes have one revision (two steps: a render with a critique,
then the scored final painting). Replies are procedural paintings of the episode's subject,
except a `--hostile` share: gate cheats and endless loops (which cost the CPU budget and a
browser restart).

Reports throughput, step latency (p50 / p99, client side), errors (must be 0, and never
CAPACITY_REACHED), how hostile replies were answered (reward 0: endless loops are stopped
at the CPU budget as too_slow), renderer utilisation (render seconds / (browsers x wall time), from /health)
and whether every session was released. Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/env.py                # 16 clients x 4 steps, ~3-6 min on 2 cores
    .venv/bin/python benchmarks/env.py --steps 2 --no-write
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from results import replace_section
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
START, END = "<!-- env-benchmark:start -->", "<!-- env-benchmark:end -->"

_SKETCH = """function setup() {{
  createCanvas(600, 600, WEBGL);
  noLoop();
}}
function draw() {{
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  brush.fill("#e8607a", 190);
  brush.circle(300, 300, 120);
  {extra}
}}"""
# kind -> (code spliced into draw(), the gate rule that must answer it)
HOSTILE = {
    "endless loop": ("while (true) {}", "too_slow"),
    "text": ('text("10/10", 20, 20);', "text_on_canvas"),
    "fetch": ('fetch("https://example.com/score?v=1");', "external_access"),
    "bare rect": ("rect(0, 0, 600, 600);", "bare_primitive"),
}


def hostile_reply(kind: str) -> str:
    return f"Here is the painting:\n\n```js\n{_SKETCH.format(extra=HOSTILE[kind][0])}\n```\n"


def plan(clients: int, steps: int, share: float, seed: int) -> list[list[str]]:
    """Which reply each (client, step) sends: exactly round(share x total) hostile ones, their
    kinds cycled (endless loops first) so that every run has some of each."""
    total = clients * steps
    count = round(share * total)
    kinds = [list(HOSTILE)[i % len(HOSTILE)] for i in range(count)]
    slots = random.Random(seed).sample(range(total), count)
    flat = ["honest"] * total
    for slot, kind in zip(slots, kinds):
        flat[slot] = kind
    return [flat[c * steps:(c + 1) * steps] for c in range(clients)]


@dataclass
class Step:
    client: int
    kind: str            # honest | one of HOSTILE
    seconds: float
    done: bool
    reward: float | None
    infra: str | None
    rules: tuple[str, ...]

    @property
    def answered(self) -> bool:
        """A hostile reply got its rule, and reward 0 when it ended the episode."""
        rule = HOSTILE[self.kind][1]
        return rule in self.rules and (not self.done or self.reward == 0.0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, args: list[str], log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "brushwork.cli", "serve", "--port", str(port), "--log-level", "warning", *args]
    with log.open("w") as f:
        proc = subprocess.Popen(command, stdout=f, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("server did not become ready in 600 s")


def run_client(index: int, url: str, kinds: list[str], seed: int, out: list, errors: list) -> None:
    from brushwork.env import BrushworkEnv, PaintAction
    from brushwork.env.demo import policy_reply

    rng = random.Random(f"{seed}:{index}")
    try:
        with BrushworkEnv(url).sync() as env:
            result, episode = None, 0
            for kind in kinds:
                if result is None or result.done:
                    episode += 1
                    result = env.reset(seed=seed * 100_000 + index * 1000 + episode, revisions=1)
                    subject = result.observation.subject
                reply = hostile_reply(kind) if kind != "honest" else policy_reply(subject, rng.randrange(10**6))
                t0 = time.perf_counter()
                result = env.step(PaintAction(response=reply))
                o = result.observation
                out.append(Step(index, kind, time.perf_counter() - t0, result.done, result.reward, o.infra,
                                tuple(v["id"] for v in o.violations)))
    except Exception as e:  # noqa: BLE001 - every error is counted and shown
        errors.append(f"client {index}: {type(e).__name__}: {e}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(args, console: Console) -> dict:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    workers = args.workers or os.cpu_count() or 1
    log = Path(tempfile.mkdtemp(prefix="brushwork-env-bench-")) / "server.log"
    server_args = ["--workers", str(workers), "--max-sessions", str(args.clients),
                   "--render-timeout", str(args.render_timeout), "--session-timeout", "600"]
    t0 = time.perf_counter()
    with console.status("starting brushwork serve (browsers, pool, taste model)"):
        proc = start_server(port, server_args, log)
    startup = time.perf_counter() - t0
    try:
        before = httpx.get(f"{url}/health", timeout=10).json()
        load_before = os.getloadavg()[0]
        steps: list[Step] = []
        errors: list[str] = []
        kinds = plan(args.clients, args.steps, args.hostile, args.seed)
        threads = [threading.Thread(target=run_client, args=(i, url, kinds[i], args.seed, steps, errors))
                   for i in range(args.clients)]
        with console.status(f"{args.clients} clients x {args.steps} steps"):
            t1 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t1
        load_after = os.getloadavg()[0]
        after = httpx.get(f"{url}/health", timeout=10).json()
        deadline = time.monotonic() + 30
        while after["sessions"]["active"] and time.monotonic() < deadline:
            time.sleep(0.5)
            after = httpx.get(f"{url}/health", timeout=10).json()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    result = summarize(args, steps, errors, wall, startup, before, after, workers)
    result["load"] = (load_before, load_after)
    return result


def summarize(args, steps: list[Step], errors: list[str], wall: float, startup: float, before: dict, after: dict,
              workers: int) -> dict:
    latencies = [s.seconds for s in steps]
    honest = [s for s in steps if s.kind == "honest"]
    hostile = [s for s in steps if s.kind != "honest"]
    loops = [s for s in hostile if s.kind == "endless loop"]
    cheats = [s for s in hostile if s.kind != "endless loop"]
    busy = after["work"]["render_busy_s"] - before["work"]["render_busy_s"]
    finals = [s for s in honest if s.done]
    return {
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(), "workers": workers, "seed": args.seed, "clients": args.clients,
        "steps_each": args.steps,
        "render_timeout": args.render_timeout, "startup_s": startup, "wall_s": wall, "steps": len(steps),
        "throughput": 60 * len(steps) / wall if wall else 0.0,
        "p50": percentile(latencies, 0.5) if latencies else None,
        "p99": percentile(latencies, 0.99) if latencies else None,
        "p50_honest": percentile([s.seconds for s in honest], 0.5) if honest else None,
        "errors": errors, "capacity": sum("CAPACITY_REACHED" in e for e in errors),
        "hostile": len(hostile), "loops": len(loops),
        "loops_zero": sum(s.answered for s in loops), "cheats_zero": sum(s.answered for s in cheats),
        "cheats": len(cheats),
        "honest_final": len(finals), "honest_scored": sum(s.reward is not None for s in finals),
        "utilisation": busy / (workers * wall) if wall else 0.0,
        "render_per_step": busy / max(1, len(honest) + len(loops)),
        "restarts": after["renderer"]["restarts"] - before["renderer"]["restarts"],
        "infra": after["work"]["infra_failures"] - before["work"]["infra_failures"],
        "sessions_left": after["sessions"]["active"], "pool": after["pool"]["snapshot"],
        "preset": after["reward"]["preset"],
    }


def report(r: dict) -> str:
    fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
    rows = [
        ("throughput", f"{r['throughput']:.1f} steps/min ({r['steps']} steps in {r['wall_s']:.0f} s)", "—"),
        ("step latency p50 / p99 (client side)", f"{fmt(r['p50'])} s / {fmt(r['p99'])} s", "—"),
        ("step latency p50, honest replies", f"{fmt(r['p50_honest'])} s", "—"),
        ("errors (exceptions in clients)", str(len(r["errors"])), "0"),
        ("CAPACITY_REACHED within the limit", str(r["capacity"]), "0"),
        ("hostile cheats answered by their rule (reward 0 when final)", f"{r['cheats_zero']}/{r['cheats']}", "all"),
        ("endless loops answered by too_slow (reward 0 when final)", f"{r['loops_zero']}/{r['loops']}", "all"),
        ("honest final paintings scored (not None)", f"{r['honest_scored']}/{r['honest_final']}", "all"),
        ("renderer utilisation (render s / (browsers x wall))", f"{100 * r['utilisation']:.0f}%", "—"),
        ("render time per painted step (server side; the rest of a step's latency is queueing)",
         f"{r['render_per_step']:.2f} s", "—"),
        ("browser restarts / infrastructure failures", f"{r['restarts']} / {r['infra']}", "= endless loops / 0"),
        ("sessions still open after the clients closed", str(r["sessions_left"]), "0"),
    ]
    lines = [
        "## Environment server (benchmarks/env.py)", "",
        f"Run {r['when']} on {r['cores']} cores: `brushwork serve` with {r['workers']} browsers, "
        f"`--max-sessions {r['clients']}`, render deadline {r['render_timeout']:g} s; pool {r['pool']}, "
        f"{r['preset']}, offline scorers, seed {r['seed']} (fresh renders). "
        f"{r['clients']} concurrent clients (one `BrushworkEnv` each) x "
        f"{r['steps_each']} steps; episodes of one revision; replies are procedural paintings of the episode's "
        f"subject, {r['hostile']} of {r['steps']} hostile ({r['loops']} endless loops). Server start-up "
        f"{r['startup_s']:.0f} s (not measured below). 1-minute load average before / after the run: "
        f"{r['load'][0]:.1f} / {r['load'][1]:.1f} (other processes share the cores). Latencies are reported, "
        "never asserted in tests.", "",
        "| measure | result | target |", "| --- | --- | --- |",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
    ]
    if r["errors"]:
        lines += ["", "Errors:", *[f"- {e}" for e in r["errors"][:10]]]
    return "\n".join(lines)


def write_section(text: str) -> None:
    replace_section(START, END, f"{START}\n{text}\n{END}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--steps", type=int, default=4, help="steps per client")
    parser.add_argument("--hostile", type=float, default=0.10, help="share of hostile replies")
    parser.add_argument("--workers", type=int, default=0, help="browsers (default: one per core)")
    parser.add_argument("--render-timeout", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=None,
                        help="episode and reply seeds (default: new each run, so the render cache never answers)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = int(time.time()) % 100_000
    console = Console()
    result = run(args, console)
    text = report(result)
    table = Table("measure", "result", "target", title="environment benchmark")
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| measure") and not line.startswith("| ---"):
            table.add_row(*[c.strip() for c in line.strip("|").split(" | ")])
    console.print(table)
    for e in result["errors"][:10]:
        console.print(f"[red]{e}[/]")
    if not args.no_write:
        write_section(text)
        console.print(f"wrote {HERE / 'RESULTS.md'}")
    if result["errors"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
