"""Overlap benchmark: GRPO step time on the tiny CPU run, scoring serial vs overlapped with generation.

The tiny-cpu config's warm-up model is built once into a cache folder (`brushwork train
--max_steps 1`, which saves OUTPUT_DIR/base) and reused, so the run times GRPO steps, not the
warm-up. Then one `brushwork train --config tiny-cpu` run on that model (in this process, one
model load, one warm renderer) whose steps alternate ABBA: serial, overlapped, overlapped,
serial, ... (the overlapping trainer with its streamer switched off on the serial steps), so a
drift in the machine's load weighs on both arms alike and both score the same policy's
paintings. Its first step (browsers starting) is dropped. Reports each arm's mean step time,
the ratio overlapped / serial with a 95 % bootstrap interval over whole ABBA blocks, the load average
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
COMMON = ["--config", "tiny-cpu", "--report_to", "none", "--save_strategy", "no", "--film", "false",
          "--render_cache", "false"]   # the same seed replays the same replies: a cached render would time nothing


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


ARMS = (False, True, True, False)      # serial, overlapped, overlapped, serial
SWAPPED = [False]                      # the crossed run: every step's arm the other way round


def is_overlapped(step: int, swapped: bool | None = None) -> bool:
    """The arm of GRPO step `step` (1-based): step 1, dropped, is serial; blocks of ABBA from step 2
    (BAAB in the crossed run)."""
    return step > 1 and ARMS[(step - 2) % 4] != (SWAPPED[0] if swapped is None else swapped)


PHASES: dict[int, dict[str, float]] = {}   # GRPO step (1-based) -> seconds generating, seconds the reward call waited


def alternating(factory):
    """`overlap.overlapping` whose trainers score serially on the serial steps of the ABBA pattern."""
    def make(base):
        overlapped = factory(base)

        class Alternating(overlapped):
            def _generate_single_turn(self, *args, **kwargs):
                t0, step = time.perf_counter(), self.state.global_step + 1   # global_step counts the steps done
                try:
                    if is_overlapped(step):
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


def counting_claims() -> None:
    """Note each early start the reward call used (its completion and draw unchanged) in CLAIMS."""
    from brushwork.train.rewards import BrushworkReward

    claim = BrushworkReward._claim

    def counted(self, index, job):
        with self._lock:
            early = self._early.get(index)
        CLAIMS.append(early is not None and early[0] == job)
        return claim(self, index, job)

    BrushworkReward._claim = counted


CLAIMS: list[bool] = []


def timing_reward_calls() -> None:
    """Record how long each reward call waits for its scores (TRL calls it after the whole batch
    generated: serial, that is every render; overlapped, only what the early starts left)."""
    from brushwork.train.rewards import BrushworkReward

    call = BrushworkReward.__call__

    async def timed(self, *args, **kwargs):
        t0, claimed = time.perf_counter(), len(CLAIMS)
        try:
            return await call(self, *args, **kwargs)
        finally:
            step = int(getattr(kwargs.get("trainer_state"), "global_step", 0) or 0) + 1
            PHASES.setdefault(step, {}).update(reward=time.perf_counter() - t0, used=sum(CLAIMS[claimed:]))

    BrushworkReward.__call__ = timed


def step_metrics(out: Path) -> list[dict]:
    """The run's logged steps (those with a step time), from its metrics.jsonl."""
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    return [r for r in rows if "step_time" in r]


def step_times(out: Path) -> list[tuple[int, float]]:
    return [(r["step"], r["step_time"]) for r in step_metrics(out)]


def step_rows(out: Path) -> dict[int, dict]:
    """Each step's time, mean reward paid (`paid`) and phases (generate, reward) as the run in `out` kept them."""
    if not (out / "phases.json").exists():
        return {}
    phases = json.loads((out / "phases.json").read_text())["phases"]
    return {r["step"]: {"t": r["step_time"], "paid": r.get("reward"), **phases.get(str(r["step"]), {})}
            for r in step_metrics(out) if r["step"] > 1}


def crossed(cache: Path) -> tuple[list, int, bool] | None:
    """The ABBA run and its crossed BAAB twin, step by step: both replay the same completions (the
    overlap never changes a reward, and the seed is the same), so each step's paintings are timed
    both ways. Rows: (label, serial mean, overlapped mean, ratio, interval) for the step and its
    phases; the number of steps paired; whether every paired step's reward was the same."""
    a, b = step_rows(cache / "run"), step_rows(cache / "run-swapped")
    steps = sorted(set(a) & set(b))
    if not steps:
        return None
    same = all(a[k]["paid"] == b[k]["paid"] for k in steps)
    rng, table = np.random.default_rng(0), []
    for label, key in (("mean GRPO step", "t"), *PHASE_LABELS):
        if not all(key in a[k] and key in b[k] for k in steps):
            continue
        pairs = np.array([(a[k][key], b[k][key]) if not is_overlapped(k, False) else (b[k][key], a[k][key])
                          for k in steps])           # (serial, overlapped) of the same step
        draws = [(lambda d: d[:, 1].sum() / d[:, 0].sum())(pairs[rng.integers(0, len(pairs), len(pairs))])
                 for _ in range(4000)]
        lo, hi = np.quantile(draws, [0.025, 0.975])
        table.append([label, f"{pairs[:, 0].mean():.2f} s", f"{pairs[:, 1].mean():.2f} s",
                      f"{pairs[:, 1].sum() / pairs[:, 0].sum():.2f} [{lo:.2f}, {hi:.2f}]"])
    return table, len(steps), same


def ratio_interval(runs: list[tuple[int, bool, float]], resamples: int = 4000) -> tuple[float, float]:
    """95 % bootstrap interval of overlapped / serial mean step time, resampling whole ABBA blocks
    (each holds two steps of each arm, so a drift in the machine's load stays inside a block)."""
    blocks: dict[int, list[list[float]]] = {}
    for step, arm, t in runs:
        blocks.setdefault((step - 2) // 4, [[], []])[arm].append(t)
    sums = np.array([[sum(a), sum(b)] for a, b in blocks.values() if a and b])
    rng = np.random.default_rng(0)
    draws = [(lambda s: s[1] / s[0])(sums[rng.integers(0, len(sums), len(sums))].sum(axis=0))
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
    counting_claims()
    timing_reward_calls()
    brush, grpo, model = parse([*COMMON, "--output_dir", str(out), "--tiny", "false", "--model_name_or_path",
                                str(base), "--sft_samples", "0", "--max_steps", str(steps), "--warmup_steps", "0",
                                *args.train_args.split()])
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
    ap.add_argument("--train-args", default="", help="forwarded to `brushwork train` (stated in the results)")
    ap.add_argument("--swap", action="store_true", help="the crossed run (BAAB, into CACHE/run-swapped)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--summarise", action="store_true",
                    help="only read the run's metrics.jsonl (a run stopped early: the steps it finished)")
    args = ap.parse_args()

    SWAPPED[0] = args.swap
    out, steps = args.cache / ("run-swapped" if args.swap else "run"), 1 + 4 * args.blocks
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
    times = {arm: [t for step, t in measured if is_overlapped(step) is arm] for arm in (False, True)}
    runs = [(step, is_overlapped(step), t) for step, t in measured]
    serial, overlapped = (float(np.mean(times[k])) for k in (False, True))
    lo, hi = ratio_interval(runs)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    warmup = (f"sft_samples {args.sft_samples or 'as configured'}, sft_epochs {args.sft_epochs or 'as configured'}"
              + (f"; training with `{args.train_args}`" if args.train_args else ""))
    blocks = [
        ("Step time, serial vs overlapped", ["", "serial", "overlapped", "overlapped / serial (95 % interval)"],
         [[f"mean GRPO step ({len(times[False])} + {len(times[True])} steps)", f"{serial:.1f} s",
           f"{overlapped:.1f} s", f"{overlapped / serial:.2f} [{lo:.2f}, {hi:.2f}]"],
          *[phase_row(label, key, runs) for label, key in PHASE_LABELS]]),
        ("Steps, in order", ["step", "overlap", "step time (s)", "generating (s)", "reward call waited (s)",
                             "completions started at their end-of-sequence", "early scores the reward used"],
         [[str(step), str(arm).lower(), f"{t:.1f}", *(seconds(PHASES.get(step, {}).get(k)) for k in PHASE_KEYS),
           f"{early.get(step, 0)} of {batch}" if batch else "not counted",
           str(PHASES.get(step, {}).get("used", "not counted"))] for step, arm, t in runs]),
    ]
    both = crossed(args.cache)
    if both is not None:
        table, paired, same = both
        blocks.insert(0, (f"Each step timed both ways: the ABBA run and its BAAB twin ({paired} steps paired; "
                          f"{'the same' if same else 'NOT the same'} reward at every step)",
                          ["", "serial", "overlapped", "overlapped / serial (95 % interval over steps)"], table))
    header = (f"## Overlap: scoring while the batch generates (benchmarks/overlap.py)\n\nRun of {when}: tiny-cpu, "
              f"one run of {len(measured) + 1} GRPO steps alternating ABBA (the first step dropped) on "
              f"the cached warm-up model ({warmup}){f', {wall / 60:.1f} min' if batch else ''}; "
              f"load average (1 min) {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores, shared with "
              "other work. Done when overlapped < serial. The run alternates arms, so its two arms score "
              "different steps' paintings; `--swap` runs the crossed twin (BAAB) of the same run, which "
              "replays the same completions, and the first table pairs every step with itself.")
    from rich.console import Console

    print_tables(Console(), blocks)
    if not args.no_write:
        replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
