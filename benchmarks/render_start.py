"""Renderer start-up: this checkout's renderer (B) against the one at a git revision (A), ABBA.

Each block is a fresh process (`_render_worker.py`: one `SyncRenderer` worker, cache off) with its
side's src on PYTHONPATH, REV's tree from a temporary `git worktree`, this checkout's src copied
once at the start. Per block: the renderer's start (wall seconds, and CPU-seconds of the whole
process tree: Python, Playwright's driver, Chromium), the time to the first painting (start plus
one render on the fresh browser), a short run (start plus one render of every sketch, what a short
`brushwork render` does), then `--passes` timed passes whose median render wall is compared; and
whether every PNG is one and the same on both sides. Before the blocks, where this checkout's
start goes: each of its steps alone, one after another, in a process of its own (`--steps N`
repeats; medians). Writes the section "Render: start-up (ABBA)".

    .venv/bin/python benchmarks/render_start.py --against REV   # 4 sketches, ABBA twice: ~6-12 min on 2 cores
    .venv/bin/python benchmarks/render_start.py --against REV --quick  # 2 sketches, ABBA once, writes nothing
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
from pathlib import Path

import render as bench
from results import markdown, print_tables

START, END = "<!-- render-start:start -->", "<!-- render-start:end -->"
TITLE = "Render: start-up (ABBA)"
WALL_GOAL = 1.10  # median render wall, B / A
console = bench.console


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _ratio(a: float | None, b: float | None) -> str:
    return bench.fmt(b / a, ".2f", "×") if a and b else "—"


STEPS = """
import asyncio, json, os, sys, time
sys.path.insert(0, sys.argv[1])
from _render_worker import tree_cpu_s
from brushwork.render.assets import AssetServer, Libraries
from brushwork.render.browser import CHROMIUM_FLAGS, BrowserWorker, chromium_version, find_chromium, user_agent
from brushwork.render.config import RenderConfig

async def main():
    out, binary = {}, find_chromium(sys.argv[2])
    def step(name, t0, c0):
        out[name] = (time.perf_counter() - t0, tree_cpu_s() - c0)
    t0, c0 = time.perf_counter(), tree_cpu_s()
    server = AssetServer(Libraries.locate(), RenderConfig().brush_shader)
    server.start()
    step("asset server (libraries, p5.brush build)", t0, c0)
    t0, c0 = time.perf_counter(), tree_cpu_s()
    version = chromium_version(binary)
    step("chromium --version", t0, c0)
    from playwright.async_api import async_playwright
    t0, c0 = time.perf_counter(), tree_cpu_s()
    pw = await async_playwright().start()
    step("Playwright driver start", t0, c0)
    worker = BrowserWorker(binary, (*CHROMIUM_FLAGS, user_agent(version)), origin=server.origin)
    t0, c0 = time.perf_counter(), tree_cpu_s()
    await worker.launch()
    step("Chromium launch (to its debugging port)", t0, c0)
    t0, c0 = time.perf_counter(), tree_cpu_s()
    await worker.connect(pw)
    step("connect over CDP", t0, c0)
    await worker.close()
    await pw.stop()
    server.stop()
    print(json.dumps(out))

asyncio.run(main())
"""


def start_steps(repeats: int, chromium: str | None) -> list[list[str]]:
    """Each step of this checkout's start alone, in a fresh process per repeat: medians of wall and CPU-s."""
    import subprocess

    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", STEPS, str(bench.HERE), chromium or ""], capture_output=True,
                             text=True, timeout=120, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return [[name, bench.fmt(_median(r[name][0] for r in runs), ".3f"), bench.fmt(_median(r[name][1] for r in runs),
             ".3f")] for name in runs[0]]


def per_block(blk: dict) -> dict:
    ok = [r["wall_s"] for r in blk["renders"] if r["status"] == "ok"]
    first = blk["warmups"][0] if blk["warmups"] else {}
    return {"side": blk["side"], "start_s": blk["start"]["startup_s"], "start_cpu_s": blk["start"].get("startup_cpu_s"),
            "first_s": first.get("first_s"), "first_cpu_s": first.get("first_cpu_s"),
            "first_wall_s": first.get("wall_s"),
            "short_s": (blk["warmed"] or {}).get("short_s"), "short_cpu_s": (blk["warmed"] or {}).get("short_cpu_s"),
            "median_wall_s": _median(ok),
            "others": blk["others_cores"], "load": (blk["loadavg_before"], blk["loadavg_after"])}


def tables(blocks: list[dict], names: list[str], steps: list[list[str]]) -> list[tuple[str, list, list]]:
    rows = [per_block(b) for b in blocks]
    side = {s: [r for r in rows if r["side"] == s] for s in "AB"}

    def med(s: str, key: str) -> float | None:
        return _median(r[key] for r in side[s])

    s = bench.summarise_against(blocks, names)   # timed passes: median wall, bootstrap, PNG identity
    hashes = {(r["sketch"], r["sha256"]) for b in blocks for r in b["renders"] + b["warmups"]}
    same = sum(1 for n in names if len({h for k, h in hashes if k == n}) == 1)
    not_ok = sorted({f"{b['side']} {r['sketch']}: {r['status']}" for b in blocks for r in b["renders"] + b["warmups"]
                     if r["status"] != "ok"})
    lo_hi = f" [{s['interval'][0]:.3f}, {s['interval'][1]:.3f}]" if s["interval"] else ""
    summary = []
    for label, key, note in (
            ("renderer start s", "start_s", "SyncRenderer(...) returns: Playwright, browser, connected"),
            ("renderer start CPU-s", "start_cpu_s", "Python + Playwright's driver + Chromium, from /proc"),
            ("start to first painting s", "first_s", "start plus one render on the fresh browser"),
            ("start to first painting CPU-s", "first_cpu_s", "the same, CPU-seconds of the process tree"),
            ("first render wall_s", "first_wall_s", "that render's own timings.wall_s"),
            (f"short run s (start + {len(names)} sketches once)", "short_s", "one render of each, one after another"),
            ("short run CPU-s", "short_cpu_s", "the same, CPU-seconds of the process tree")):
        a, b = med("A", key), med("B", key)
        summary.append([label, f"{bench.fmt(a, '.2f')} / {bench.fmt(b, '.2f')}", _ratio(a, b), "", "", note])
    ratio = s["ratio"]
    summary.append(["median render wall_s (timed passes)", f"{bench.fmt(s['med']['A'], '.3f')} / "
                    f"{bench.fmt(s['med']['B'], '.3f')}", bench.fmt(ratio, ".3f", "×") + lo_hi, f"≤ {WALL_GOAL:.2f}",
                    "—" if ratio is None else ("met" if ratio <= WALL_GOAL else "missed"),
                    f"{s['n']['A']} / {s['n']['B']} ok renders; 95 % bootstrap, resampled within sketch and side"])
    summary.append(["sketches with one and the same PNG in every A and B render", f"{same}/{len(names)}", "",
                    f"{len(names)}/{len(names)}", "met" if same == len(names) else "missed",
                    "sha256, warm-up renders too"])
    summary.append(["every render status ok", "yes" if not not_ok else "no: " + "; ".join(not_ok)[:300], "", "yes",
                    "met" if not not_ok else "missed", ""])
    order = [[str(i + 1), r["side"], bench.fmt(r["start_s"], ".2f"), bench.fmt(r["start_cpu_s"], ".2f"),
              f"{bench.fmt(r['first_s'], '.2f')} ({bench.fmt(r['first_cpu_s'], '.2f')})",
              f"{bench.fmt(r['short_s'], '.1f')} ({bench.fmt(r['short_cpu_s'], '.1f')})",
              bench.fmt(r["median_wall_s"], ".3f"),
              f"{r['others']:.2f}", f"{r['load'][0]:.2f} → {r['load'][1]:.2f}"] for i, r in enumerate(rows)]
    return [("Summary (medians over blocks)", ["measure", "A / B", "B / A", "target", "verdict", "note"], summary),
            ("Blocks in run order", ["#", "side", "start s", "start CPU-s", "first painting s (CPU-s)",
                                     "short run s (CPU-s)",
                                     "median wall_s", "other load (cores)", "loadavg 1 min"], order),
            ("Where B's start goes (each step alone, one after another; medians)", ["step", "wall s", "CPU-s"],
             steps)]


async def run(args) -> None:
    from brushwork.render.assets import find_node_modules
    from brushwork.render.browser import chromium_version, find_chromium

    binary = find_chromium(args.chromium)
    sketches = bench.load_sketches(False)[:args.sketches]
    names = [n for n, _ in sketches]
    rev, about = bench.against_revision(args.against)
    rev_line, head, dirty = about["rev_line"], about["head"], about["dirty"]
    order = "ABBA" * args.rounds
    loadavg_start = os.getloadavg()
    console.print(f"[bold]start-up against {rev_line[:60]}[/]: {len(sketches)} sketches, blocks {' '.join(order)}")
    steps = start_steps(args.steps, args.chromium)

    def said(blk):
        console.print(f"  start {blk['start']['startup_s']:.2f} s ({blk['start'].get('startup_cpu_s', 0):.2f} "
                      f"CPU-s), short run {(blk['warmed'] or {}).get('short_s', 0):.1f} s")

    blocks = await bench.abba_blocks(args, sketches, rev, order, binary, find_node_modules(),
                                     len(sketches) * (1 + args.against_passes), about, on_block=said)
    digest = about["digest"]
    out = tables(blocks, names, steps)
    print_tables(console, out)
    if args.write if args.write is not None else not args.quick:
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        busy = max(blk["others_cores"] for blk in blocks)
        header = (
            f"## {TITLE}, run of {now}\n\n"
            f"- A: `{rev_line}` (a temporary `git worktree`); B: this checkout (HEAD {head}"
            f"{' + uncommitted changes under src/' if dirty else ''}; src/brushwork digest {digest}). Each block a "
            f"fresh process (`benchmarks/_render_worker.py`), one worker, cache off: start, one render of every sketch "
            f"(the first on a fresh browser), then {args.against_passes} timed pass(es); blocks {' '.join(order)}\n"
            f"- machine: nproc {len(os.sched_getaffinity(0))}; {chromium_version(binary)}; {len(sketches)} sketches "
            f"({', '.join(names)}), seed {args.seed}, {bench.SIZE}×{bench.SIZE}\n"
            f"- load average (1, 5, 15 min) {', '.join(f'{x:.2f}' for x in loadavg_start)} before, "
            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} after; other processes used up to {busy:.2f} cores "
            "during a block" + (" (**a loaded machine: wall times are inflated and noisy; ABBA spreads the drift "
                                "over both sides, and CPU-seconds are steadier**)" if busy > bench.QUIET_CORES
                                else " (quiet)"))
        bench.write_results(Path(args.results), markdown(out, START, END, header), START, END)
        console.print(f"wrote {args.results}")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--against", metavar="REV", required=True, help="the git revision whose renderer is side A")
    p.add_argument("--sketches", type=int, default=4, help="how many recipe sketches (benchmarks/sketches)")
    p.add_argument("--passes", dest="against_passes", type=int, default=2, help="timed passes after the first")
    p.add_argument("--rounds", type=int, default=2, help="repeats of the A B B A order")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=3, help="repeats of the step-by-step start of this checkout")
    p.add_argument("--chromium", help="Chromium binary for both sides (default: brushwork's choice)")
    p.add_argument("--wait-quiet", type=float, default=20.0, metavar="S",
                   help="before each block wait up to S seconds for other processes to leave the CPU")
    p.add_argument("--quick", action="store_true", help="2 sketches, one pass, ABBA once; writes nothing")
    p.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                   help="write the results section (default: yes, except with --quick)")
    p.add_argument("--results", default=str(bench.HERE / "RESULTS.md"), help="markdown file whose section is replaced")
    args = p.parse_args(argv)
    args.save_png = None
    if args.quick:
        args.sketches, args.against_passes, args.rounds = 2, 1, 1
    return args


if __name__ == "__main__":
    import asyncio

    sys.exit(asyncio.run(run(parse_args())))
