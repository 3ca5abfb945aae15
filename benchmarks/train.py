"""Training benchmark: the documented tiny CPU run, timed and summarised.

Runs `brushwork train --config configs/tiny-cpu.yaml` (tiny model build, supervised warm-up,
gate check, 20 GRPO steps against the real environment) into a fresh folder and reports the
wall time (limit 20 min on 2 cores), the gate pass rate after warm-up (target > 50 %), the
mean reward, gate pass rate and judge/aesthetic terms of the first and last 5 GRPO steps
(the baseline is the run's own start), and the mean GRPO step time. Renders are cached by
content, so a second run on the same machine reproduces the rewards much faster: pass
`--cold` to point the render cache at an empty folder for an honest first-run time.
Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/train.py --cold          # ~11 min on 2 cores
    .venv/bin/python benchmarks/train.py --summarise out/tiny-cpu --no-write
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import replace_section

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- train:start -->", "<!-- train:end -->"


def run(out: Path, cold: bool) -> float:
    env = dict(os.environ)
    if cold:
        env["BRUSHWORK_CACHE"] = tempfile.mkdtemp(prefix="brushwork-cold-cache-")
    command = [sys.executable, "-m", "brushwork.cli", "train", "--config", str(ROOT / "configs" / "tiny-cpu.yaml"),
               "--output_dir", str(out), "--report_to", "none"]
    t0 = time.perf_counter()
    subprocess.run(command, check=True, env=env, cwd=ROOT)
    return time.perf_counter() - t0


def summarise(out: Path, wall_s: float | None) -> dict:
    warm = json.loads((out / "warmup.json").read_text())
    steps = [r for r in map(json.loads, (out / "metrics.jsonl").read_text().splitlines()) if "reward" in r]

    def mean(key, part):
        values = [r[key] for r in part if r.get(key) is not None]
        return sum(values) / len(values) if values else float("nan")

    first, last = steps[:5], steps[-5:]
    return {"wall_min": wall_s / 60 if wall_s else None, "warmup_min": warm["seconds"] / 60,
            "warmup_pass": warm["gate_pass_rate"], "checked": warm["checked"], "steps": len(steps),
            "step_s": mean("step_time", steps),
            **{f"{name}_{k}": mean(key, part) for name, key in (("reward", "reward"),
                                                               ("pass", "brushwork/gate_pass_rate"),
                                                               ("judge", "brushwork/judge"),
                                                               ("aesthetic", "brushwork/aesthetic"))
               for k, part in (("first", first), ("last", last))}}


def section(s: dict, cold: bool) -> str:
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    wall = f"{s['wall_min']:.1f} min ({'empty' if cold else 'warm'} render cache)" if s["wall_min"] else "not timed"
    return "\n".join([
        START, "## Training: the tiny CPU run (benchmarks/train.py)", "",
        f"Run of {when}: `brushwork train --config configs/tiny-cpu.yaml` on this machine.", "",
        "| | measured | target |", "| --- | --- | --- |",
        f"| whole run (build, warm-up, gate check, {s['steps']} GRPO steps) | {wall} | < 20 min |",
        f"| warm-up | {s['warmup_min']:.1f} min | |",
        f"| gate pass rate after warm-up ({s['checked']} unseen prompts) | {s['warmup_pass']:.0%} | > 50 % |",
        f"| GRPO step, mean | {s['step_s']:.1f} s | |",
        f"| mean reward, first 5 -> last 5 steps | {s['reward_first']:.3f} -> {s['reward_last']:.3f} "
        f"({s['reward_last'] / s['reward_first']:.2f}x) | rises |",
        f"| gate pass rate, first 5 -> last 5 | {s['pass_first']:.1%} -> {s['pass_last']:.1%} | |",
        f"| judge, first 5 -> last 5 | {s['judge_first']:.3f} -> {s['judge_last']:.3f} | |",
        f"| aesthetic, first 5 -> last 5 | {s['aesthetic_first']:.3f} -> {s['aesthetic_last']:.3f} | |",
        END])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench-train")
    ap.add_argument("--cold", action="store_true", help="empty render cache: an honest first-run time")
    ap.add_argument("--summarise", type=Path, help="summarise an existing run folder instead of training")
    ap.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = ap.parse_args()
    if args.summarise:
        folder, wall = args.summarise, None
    else:
        if args.out.exists():
            raise SystemExit(f"{args.out} exists: remove it or pass --out")
        folder, wall = args.out, run(args.out, args.cold)
    block = section(summarise(folder, wall), args.cold)
    print(block)
    if not args.no_write:
        replace_section(START, END, block)


if __name__ == "__main__":
    main()
