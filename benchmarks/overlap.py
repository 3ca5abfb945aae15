"""Overlap benchmark: GRPO step time on the tiny CPU run, scoring serial vs overlapped with generation.

The tiny-cpu config's warm-up model is built once into a cache folder (`brushwork train
--max_steps 1`, which saves OUTPUT_DIR/base) and reused, so the runs time GRPO steps, not the
warm-up. Then runs of `brushwork train --config tiny-cpu --overlap false|true` on that model,
interleaved ABBA (serial, overlapped, overlapped, serial per block) so a drift in the machine's
load weighs on both arms alike. Each run has its own seed (the render cache would otherwise
serve the second arm the first arm's paintings); its first step (browsers starting) is dropped.
Reports each arm's mean step time, the ratio overlapped / serial with a 95 % bootstrap interval
over the steps, the load average around the runs, and writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/overlap.py                      # 1 ABBA block of 4-step runs
    .venv/bin/python benchmarks/overlap.py --blocks 2 --steps 6 --sft_samples 200 --sft_epochs 4
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from results import markdown, print_tables, replace_section

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- overlap:start -->", "<!-- overlap:end -->"
COMMON = ["--config", "tiny-cpu", "--report_to", "none", "--save_strategy", "no", "--film", "false"]


def train(out: Path, *args: str) -> None:
    command = [sys.executable, "-m", "brushwork.cli", "train", *COMMON, "--output_dir", str(out), *args]
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def warm_model(cache: Path, sft_samples: int | None, sft_epochs: float | None) -> Path:
    """The warmed-up tiny model, built once (the config's warm-up unless overridden)."""
    if not (cache / "base" / "config.json").exists():
        extra = [*(["--sft_samples", str(sft_samples)] if sft_samples else []),
                 *(["--sft_epochs", str(sft_epochs)] if sft_epochs else [])]
        train(cache, "--max_steps", "1", "--sft_check", "0", *extra)
    return cache / "base"


def step_times(out: Path) -> list[float]:
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    return [r["step_time"] for r in rows if "step_time" in r][1:]     # the first step starts the browsers


def ratio_interval(serial: list[float], overlapped: list[float], resamples: int = 4000) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    a, b = np.asarray(serial), np.asarray(overlapped)
    draws = [b[rng.integers(0, b.size, b.size)].mean() / a[rng.integers(0, a.size, a.size)].mean()
             for _ in range(resamples)]
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=1, help="ABBA blocks (4 runs each)")
    ap.add_argument("--steps", type=int, default=4, help="GRPO steps a run (the first is dropped)")
    ap.add_argument("--cache", type=Path, default=ROOT / "out" / "bench-overlap")
    ap.add_argument("--sft_samples", type=int, help="a shorter warm-up than the config's (said in the results)")
    ap.add_argument("--sft_epochs", type=float)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    base = warm_model(args.cache, args.sft_samples, args.sft_epochs)
    times: dict[bool, list[float]] = {False: [], True: []}
    runs, loads = [], [os.getloadavg()[0]]
    for block in range(args.blocks):
        for position, overlap in enumerate((False, True, True, False)):
            seed = 100 * block + position
            out = args.cache / f"run-{block}-{position}"
            t0 = time.perf_counter()
            train(out, "--tiny", "false", "--model_name_or_path", str(base), "--sft_samples", "0",
                  "--max_steps", str(args.steps), "--warmup_steps", "0", "--seed", str(seed),
                  "--overlap", str(overlap).lower())
            steps = step_times(out)
            times[overlap] += steps
            loads.append(os.getloadavg()[0])
            runs.append((block, position, overlap, seed, steps, time.perf_counter() - t0))
            print(f"block {block} run {position} overlap={overlap}: steps {[round(s, 1) for s in steps]} s, "
                  f"load {loads[-1]:.1f}", flush=True)

    serial, overlapped = (float(np.mean(times[k])) for k in (False, True))
    lo, hi = ratio_interval(times[False], times[True])
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    warmup = (f"sft_samples {args.sft_samples or 'as configured'}, sft_epochs {args.sft_epochs or 'as configured'}")
    blocks = [
        ("Step time, serial vs overlapped", ["", "serial", "overlapped", "overlapped / serial (95 % interval)"],
         [[f"mean GRPO step ({len(times[False])} + {len(times[True])} steps)", f"{serial:.1f} s",
           f"{overlapped:.1f} s", f"{overlapped / serial:.2f} [{lo:.2f}, {hi:.2f}]"]]),
        ("Runs, in order", ["block", "run", "overlap", "seed", "step times (s, first dropped)", "wall (s)"],
         [[str(b), str(p), str(o).lower(), str(s), ", ".join(f"{t:.1f}" for t in st), f"{w:.0f}"]
          for b, p, o, s, st, w in runs]),
    ]
    header = (f"## Overlap: scoring while the batch generates (benchmarks/overlap.py)\n\nRun of {when}: tiny-cpu, "
              f"{args.blocks} ABBA block(s) of {args.steps}-step runs on the cached warm-up model ({warmup}); "
              f"load average (1 min) {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores, shared with "
              "other work. Done when overlapped < serial.")
    from rich.console import Console

    print_tables(Console(), blocks)
    if not args.no_write:
        replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
