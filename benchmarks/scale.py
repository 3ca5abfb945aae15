"""Scale benchmark: the Ray render path against the local Chromium pool on the same CPUs,
the cost of the Ray hop, and a projection of a GRPO step's render share on more nodes.

Measured in one run on this machine:
- local: `Renderer(RenderConfig(workers=N))`, cache off, every render at once;
- ray:   the same sketches through `Renderer(RenderConfig(backend="ray"))` on a real local Ray
         cluster of N one-CPU nodes (`ray.cluster_utils.Cluster`, all on 127.0.0.1), one warm
         Chromium actor per CPU.
Throughput is renders per minute (browser start-up excluded). The hop is the driver's wall time
of a render minus the actor's own wall time for it (serialisation, scheduling, the PNG coming
back), over renders made one at a time.

The projection is arithmetic on measured figures, stated as a projection: CPU-seconds per
render (this run), the recipe's step (8 rollouts; 15-18 min on one H200, 70-80 % of it
rendering, as its authors reported: so ~4.1 min of everything else) and render nodes of `--node-cpus` cores.

    .venv/bin/python benchmarks/scale.py            # ~3-5 min on 2 cores; writes RESULTS.md
    .venv/bin/python benchmarks/scale.py --quick    # 8 renders, writes nothing
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from results import replace_section
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
START, END = "<!-- scale-benchmark:start -->", "<!-- scale-benchmark:end -->"
RECIPE_STEP_S = 16.5 * 60          # the public recipe: a step of 8 rollouts took 15-18 min
RECIPE_RENDER_SHARE = 0.75         # of which 70-80 % was rendering
RECIPE_ROLLOUTS = 8
JUDGE_CALLS_PER_ROLLOUT = 8        # 4 references (2 love, 2 okay) x both orders
GOALS = {"ratio": 0.9, "share": 0.20}
console = Console(width=None if sys.stdout.isatty() else 180)


def sketches(quick: bool) -> list[tuple[str, str, int]]:
    """(name, code, seed): the recipe-style sketches, several seeds each."""
    files = sorted((HERE / "sketches").glob("recipe_*.js"))
    seeds = (1,) if quick else (1, 2, 3)
    return [(f"{f.stem}@{s}", f.read_text(), s) for s in seeds for f in files]


async def throughput(config, jobs) -> dict:
    from brushwork.render import Renderer

    async with Renderer(config) as r:
        await r.render(jobs[0][1], seed=99)      # every worker warm before the clock starts
        t0 = time.perf_counter()
        results = await asyncio.gather(*(r.render(code, seed=seed) for _, code, seed in jobs))
        elapsed = time.perf_counter() - t0
        one_by_one = []
        for _, code, seed in jobs[:8]:
            t = time.perf_counter()
            res = await r.render(code, seed=seed + 1000)
            one_by_one.append((time.perf_counter() - t, res.timings.wall_s, res.ok))
        status = r.status()
    ok = sum(res.ok for res in results)
    return {"ok": ok, "n": len(results), "elapsed_s": elapsed, "per_min": 60 * ok / elapsed,
            "pngs": [res.png for res in results], "seq": one_by_one, "status": status}


def start_cluster(nodes: int, tmp: str):
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"   # every node on 127.0.0.1
    os.environ["RAY_TMPDIR"] = tmp
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    return cluster


def projection(cpu_per_render: float, latency_s: float, efficiency: float, node_cpus: int) -> list[list[str]]:
    other_s = RECIPE_STEP_S * (1 - RECIPE_RENDER_SHARE)
    rows = []
    for nodes in (1, 4, 16, 64):
        per_min = 60 * nodes * node_cpus / cpu_per_render * efficiency
        # renders in flight at once: each keeps cpu_per_render / latency_s cores busy
        concurrent = max(1, int(nodes * node_cpus * efficiency * latency_s / cpu_per_render))
        for rollouts in (RECIPE_ROLLOUTS, 512):
            render_s = -(-rollouts // concurrent) * latency_s      # waves of one render latency
            other = other_s * rollouts / RECIPE_ROLLOUTS
            rows.append([str(nodes), str(rollouts), f"{per_min:,.0f}", f"{render_s:.1f}",
                         f"{render_s / (render_s + other):.1%}", f"{render_s / (render_s + other_s):.1%}",
                         str(rollouts * JUDGE_CALLS_PER_ROLLOUT)])
    return rows


def main(args) -> None:
    from brushwork.render import RenderConfig
    from brushwork.render.image import mean_abs_diff, to_rgb

    jobs = sketches(args.quick)
    console.print(f"[bold]{len(jobs)} renders[/], {args.nodes} CPUs for each path")
    local = asyncio.run(throughput(RenderConfig(workers=args.nodes, use_cache=False), jobs))
    console.print(f"local: {local['ok']}/{local['n']} in {local['elapsed_s']:.1f} s")
    with tempfile.TemporaryDirectory(prefix="bw-ray-") as tmp:
        cluster = start_cluster(args.nodes, tmp)
        try:
            ray_cfg = RenderConfig(workers=args.nodes, use_cache=False, backend="ray", ray_address=cluster.address)
            ray = asyncio.run(throughput(ray_cfg, jobs))
        finally:
            import ray as ray_mod

            ray_mod.shutdown()
            cluster.shutdown()
    console.print(f"ray:   {ray['ok']}/{ray['n']} in {ray['elapsed_s']:.1f} s")
    ratio = ray["per_min"] / local["per_min"]
    hops = [driver - actor for driver, actor, ok in ray["seq"] if ok]
    diffs = [mean_abs_diff(to_rgb(a), to_rgb(b)) for a, b in zip(local["pngs"], ray["pngs"]) if a and b]
    cpu_per_render = args.nodes * local["elapsed_s"] / max(1, local["ok"])   # saturated cores / renders
    latency = statistics.median(d for d, _, ok in local["seq"] if ok)
    measured = [
        ["renders/min, local pool", f"{local['per_min']:.1f}", "", f"{local['ok']}/{local['n']} ok"],
        ["renders/min, Ray path (same CPUs)", f"{ray['per_min']:.1f}", "", f"{ray['ok']}/{ray['n']} ok"],
        ["Ray / local throughput", f"{ratio:.2f}×", f"≥ {GOALS['ratio']}×",
         "met" if ratio >= GOALS["ratio"] else "missed"],
        ["Ray hop per render (driver wall − actor wall), median / max",
         f"{1000 * statistics.median(hops):.0f} / {1000 * max(hops):.0f} ms", "", f"{len(hops)} renders one at a time"],
        ["mean |Δ| Ray vs local painting (0–255), max over renders", f"{max(diffs):.4f}", "", "same sketch and seed"],
        ["CPU-seconds per render (cores × elapsed / renders, local)", f"{cpu_per_render:.2f}", "", ""],
        ["render latency, one at a time (median, local)", f"{latency:.2f} s", "", ""],
    ]
    proj = projection(cpu_per_render, latency, min(1.0, ratio), args.node_cpus)
    other_min = RECIPE_STEP_S * (1 - RECIPE_RENDER_SHARE) / 60
    blocks = [("Measured", ["measure", "value", "goal", "note"], measured),
              (f"Projection: a GRPO step on render nodes of {args.node_cpus} CPUs",
               ["render nodes", "rollouts / step", "renders/min", "render s / step",
                "render share (rest scales with rollouts)", f"render share (rest stays {other_min:.1f} min)",
                "judge calls / step"], proj)]
    for title, headers, rows in blocks:
        table = Table(*headers, title=title, title_justify="left")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    if not args.quick:
        write(blocks, args, len(jobs))


def write(blocks, args, n: int) -> None:
    import ray

    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [START, f"## Scale: the Ray render path (run of {now})", "",
             f"- machine: nproc {len(os.sched_getaffinity(0))}; Ray {ray.__version__}; {n} renders "
             f"(`benchmarks/sketches/recipe_*.js` × 3 seeds); both paths on {args.nodes} CPUs "
             f"(local: {args.nodes} browsers; Ray: {args.nodes} one-CPU nodes on 127.0.0.1, one actor each)",
             "- the projection is arithmetic, not a measurement: render capacity = nodes × CPUs / CPU-s per "
             "render × the measured Ray efficiency; a step's renders run in waves of one render latency; the "
             f"rest of a step is the recipe's ({RECIPE_STEP_S * (1 - RECIPE_RENDER_SHARE) / 60:.1f} min for "
             f"{RECIPE_ROLLOUTS} rollouts on one H200: generation, training, judge calls), either scaled with the "
             "rollouts (one GPU) or held fixed (generation scaled out with the rollouts): the truth for a real run "
             f"lies between. The recipe's render share was 70-80 %; goal ≤ {GOALS['share']:.0%}", ""]
    for title, headers, rows in blocks:
        lines += [f"### {title}", "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    lines.append(END)
    replace_section(START, END, "\n".join(lines))
    console.print("wrote benchmarks/RESULTS.md")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="8 renders, writes nothing")
    p.add_argument("--nodes", type=int, default=2, help="CPUs for each path (Ray: one-CPU nodes)")
    p.add_argument("--node-cpus", type=int, default=16, help="CPUs of one render node in the projection")
    return p.parse_args(argv)


if __name__ == "__main__":
    main(parse_args())
