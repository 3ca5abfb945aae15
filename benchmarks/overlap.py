"""Overlap benchmark: GRPO step time on the tiny CPU run, scoring serial vs overlapped with generation.

The tiny-cpu config's warm-up model is built once into a cache folder (`brushwork train
--max_steps 1`, which saves OUTPUT_DIR/base) and reused, so the run times GRPO steps, not the
warm-up. Then one `brushwork train --config tiny-cpu` run on that model (in this process, one
model load, one warm renderer) whose steps alternate ABBA: serial, overlapped, overlapped,
serial, ... (the overlapping trainer with its streamer switched off on the serial steps), so a
drift in the machine's load weighs on both arms alike and both score the same policy's
paintings. Its first step (browsers starting) is dropped. Reports each arm's mean step time,
the ratio overlapped / serial with a 95 % bootstrap interval over the steps, the load average
around the run, and writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/overlap.py                      # 2 ABBA blocks (1 + 8 steps)
    .venv/bin/python benchmarks/overlap.py --blocks 4 --sft_samples 128 --sft_epochs 3
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


ARMS = (False, True, True, False)      # serial, overlapped, overlapped, serial: step k runs ARMS[(k - 1) % 4]
PHASES: dict[int, dict[str, float]] = {}   # GRPO step (1-based) -> seconds generating, seconds the reward call waited


def alternating(factory):
    """`overlap.overlapping` whose trainers score serially on the serial steps of the ABBA pattern."""
    def make(base):
        overlapped = factory(base)

        class Alternating(overlapped):
            def _generate_single_turn(self, *args, **kwargs):
                t0, step = time.perf_counter(), self.state.global_step + 1   # global_step counts the steps done
                try:
                    if ARMS[(step - 1) % 4]:
                        return super()._generate_single_turn(*args, **kwargs)
                    return base._generate_single_turn(self, *args, **kwargs)
                finally:
                    PHASES.setdefault(step, {})["generate"] = time.perf_counter() - t0
        return Alternating
    return make


def counting_early_starts() -> dict[int, int]:
    """Completions started early, by GRPO step (1-based), counted as the reward hears them."""
    from brushwork.train.rewards import BrushworkReward

    counts: dict[int, int] = {}
    start = BrushworkReward.start_early

    def counted(self, index, prompt, reply, row, step):
        counts[step + 1] = counts.get(step + 1, 0) + 1
        print(f"step {step + 1}: completion {index} started at its end-of-sequence", flush=True)
        return start(self, index, prompt, reply, row, step)

    BrushworkReward.start_early = counted
    return counts


def timing_reward_calls() -> None:
    """Record how long each reward call waits for its scores (TRL calls it after the whole batch
    generated: serial, that is every render; overlapped, only what the early starts left)."""
    from brushwork.train.rewards import BrushworkReward

    call = BrushworkReward.__call__

    async def timed(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return await call(self, *args, **kwargs)
        finally:
            step = int(getattr(kwargs.get("trainer_state"), "global_step", 0) or 0) + 1
            PHASES.setdefault(step, {})["reward"] = time.perf_counter() - t0

    BrushworkReward.__call__ = timed


def step_times(out: Path) -> list[tuple[int, float]]:
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    return [(r["step"], r["step_time"]) for r in rows if "step_time" in r]


def ratio_interval(serial: list[float], overlapped: list[float], resamples: int = 4000) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    a, b = np.asarray(serial), np.asarray(overlapped)
    draws = [b[rng.integers(0, b.size, b.size)].mean() / a[rng.integers(0, a.size, a.size)].mean()
             for _ in range(resamples)]
    lo, hi = np.quantile(draws, [0.025, 0.975])
    return float(lo), float(hi)


def run(args, out: Path, steps: int) -> tuple[dict[int, int], int]:
    """The ABBA run in this process: (early starts by step, completions a step)."""
    base = warm_model(args.cache, args.sft_samples, args.sft_epochs)
    from brushwork.train import overlap
    from brushwork.train.config import parse
    from brushwork.train.run import train as train_in_process

    overlap.overlapping = alternating(overlap.overlapping)   # run.py looks it up when it builds the trainer
    early = counting_early_starts()
    timing_reward_calls()
    brush, grpo, model = parse([*COMMON, "--output_dir", str(out), "--tiny", "false", "--model_name_or_path",
                                str(base), "--sft_samples", "0", "--max_steps", str(steps), "--warmup_steps", "0"])
    (out / "metrics.jsonl").unlink(missing_ok=True)
    train_in_process(brush, grpo, model)
    return early, grpo.generation_batch_size


PHASE_LABELS = (("mean time generating", "generate"), ("mean time the reward call waited", "reward"))
PHASE_KEYS = tuple(key for _, key in PHASE_LABELS)


def seconds(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "not timed"


def phase_row(label: str, key: str, runs) -> list[str]:
    """One phase's mean per arm (the steps this process timed; none when only summarising)."""
    means = []
    for arm in (False, True):
        values = [PHASES[step][key] for step, a, _ in runs if a is arm and key in PHASES.get(step, {})]
        means.append(float(np.mean(values)) if values else None)
    ratio = f"{means[1] / means[0]:.2f}" if None not in means and means[0] else ""
    return [label, *(seconds(m) + (" s" if m is not None else "") for m in means), ratio]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=2, help="ABBA blocks of 4 steps (after a first, dropped step)")
    ap.add_argument("--cache", type=Path, default=ROOT / "out" / "bench-overlap")
    ap.add_argument("--sft_samples", type=int, help="a shorter warm-up than the config's (said in the results)")
    ap.add_argument("--sft_epochs", type=float)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--summarise", action="store_true",
                    help="only read the run's metrics.jsonl (a run stopped early: the steps it finished)")
    args = ap.parse_args()

    out, steps = args.cache / "run", 1 + 4 * args.blocks
    loads, t0, early, batch = [os.getloadavg()[0]], time.perf_counter(), {}, None
    kept = out / "phases.json"                     # what the run counted, kept beside its metrics
    if not args.summarise:
        early, batch = run(args, out, steps)
        wall, loads = time.perf_counter() - t0, [*loads, os.getloadavg()[0]]
        kept.write_text(json.dumps({"early": early, "batch": batch, "phases": PHASES, "wall": wall, "loads": loads}))
    elif kept.exists():
        data = json.loads(kept.read_text())
        early, batch, wall, loads = ({int(k): v for k, v in data["early"].items()}, data["batch"], data["wall"],
                                     data["loads"])
        PHASES.update({int(k): v for k, v in data["phases"].items()})
    else:
        wall, loads = 0.0, [*loads, os.getloadavg()[0]]
    measured = step_times(out)[1:]                             # the first step starts the browsers
    times = {arm: [t for step, t in measured if ARMS[(step - 1) % 4] is arm] for arm in (False, True)}
    runs = [(step, ARMS[(step - 1) % 4], t) for step, t in measured]
    serial, overlapped = (float(np.mean(times[k])) for k in (False, True))
    lo, hi = ratio_interval(times[False], times[True])
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    warmup = (f"sft_samples {args.sft_samples or 'as configured'}, sft_epochs {args.sft_epochs or 'as configured'}")
    blocks = [
        ("Step time, serial vs overlapped", ["", "serial", "overlapped", "overlapped / serial (95 % interval)"],
         [[f"mean GRPO step ({len(times[False])} + {len(times[True])} steps)", f"{serial:.1f} s",
           f"{overlapped:.1f} s", f"{overlapped / serial:.2f} [{lo:.2f}, {hi:.2f}]"],
          *[phase_row(label, key, runs) for label, key in PHASE_LABELS]]),
        ("Steps, in order", ["step", "overlap", "step time (s)", "generating (s)", "reward call waited (s)",
                             "completions started at their end-of-sequence"],
         [[str(step), str(arm).lower(), f"{t:.1f}", *(seconds(PHASES.get(step, {}).get(k)) for k in PHASE_KEYS),
           f"{early.get(step, 0)} of {batch}" if batch else "not counted"] for step, arm, t in runs]),
    ]
    header = (f"## Overlap: scoring while the batch generates (benchmarks/overlap.py)\n\nRun of {when}: tiny-cpu, "
              f"one run of {len(measured) + 1} GRPO steps alternating ABBA (the first step dropped) on "
              f"the cached warm-up model ({warmup}){f', {wall / 60:.1f} min' if batch else ''}; "
              f"load average (1 min) {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores, shared with "
              "other work. Done when overlapped < serial.")
    from rich.console import Console

    print_tables(Console(), blocks)
    if not args.no_write:
        replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
