"""Training benchmark: the documented tiny CPU run, timed and summarised.

Runs `brushwork train --config tiny-cpu` (tiny model build, supervised warm-up,
gate check, 20 GRPO steps against the real environment) into a fresh folder and reports the
wall time (limit 20 min on 2 cores), the gate pass rate after warm-up (target > 50 %), the
mean reward, gate pass rate and judge/aesthetic terms of the first and last 5 GRPO steps
(the baseline is the run's own start), and the mean GRPO step time. Renders are cached by
content, so a second run on the same machine reproduces the rewards much faster: pass
`--cold` to point the render cache at an empty folder for an honest first-run time.
Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/train.py --cold          # ~11 min on 2 cores
    .venv/bin/python benchmarks/train.py --summarise out/tiny-cpu --no-write

`--multi-turn` runs the bundled tiny-cpu-multiturn config instead (warm-up on revision
trajectories, then multi-turn GRPO through environment_factory) and reports the tool-call
rate after the warm-up (goal >= 90 %), per-step revision figures, the share of a step spent
in the environment (gate, render, score), then evaluates the warmed-up base and base + adapter
with `brushwork eval --revisions 1` on held-out prompts: the revision gain (final - first, 95 %
bootstrap interval) before and after GRPO, and the fix rate.

    .venv/bin/python benchmarks/train.py --multi-turn --cold
    .venv/bin/python benchmarks/train.py --multi-turn --summarise out/bench-train-multiturn

`--twice` runs the tiny CPU run two times, each from its own empty render cache, and compares
their per-step rewards (rewards that reproduce: the renders are byte-identical with the default
deterministic p5.brush build; `BRUSHWORK_BRUSH_SHADER=upstream` shows upstream's noise).

    .venv/bin/python benchmarks/train.py --twice        # ~2 x 11 min on 2 cores
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
MT_START, MT_END = "<!-- train-multiturn:start -->", "<!-- train-multiturn:end -->"
TW_START, TW_END = "<!-- train-twice:start -->", "<!-- train-twice:end -->"


def run(out: Path, cold: bool, config: str = "tiny-cpu.yaml") -> float:
    env = dict(os.environ)
    if cold:
        env["BRUSHWORK_CACHE"] = tempfile.mkdtemp(prefix="brushwork-cold-cache-")
    command = [sys.executable, "-m", "brushwork.cli", "train", "--config", config,
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
        f"Run of {when}: `brushwork train --config tiny-cpu` on this machine.", "",
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


def evaluate(out: Path, adapter: bool, prompts: int, samples: int) -> dict:
    """`brushwork eval --revisions 1` of the warmed-up base (and adapter) on held-out prompts."""
    dest = out / ("eval-after" if adapter else "eval-before")
    command = [sys.executable, "-m", "brushwork.cli", "eval", "--model", str(out / "base"), "--revisions", "1",
               "--prompts", str(prompts), "--samples", str(samples), "--domain", "hibiscus", "--out", str(dest),
               *(["--adapter", str(out)] if adapter else [])]
    if not (dest / "eval.json").exists():
        subprocess.run(command, check=True, cwd=ROOT)
    data = json.loads((dest / "eval.json").read_text())
    return {**data["revisions"], "tool_calls": data["info"].get("tool-call rate")}


def summarise_multi_turn(out: Path, wall_s: float | None, evals: tuple[dict, dict] | None) -> dict:
    warm = json.loads((out / "warmup.json").read_text())
    steps = [r for r in map(json.loads, (out / "metrics.jsonl").read_text().splitlines()) if "reward" in r]

    def mean(key, part=steps):
        values = [r[key] for r in part if r.get(key) is not None]
        return sum(values) / len(values) if values else float("nan")

    return {"wall_min": wall_s / 60 if wall_s else None, "warmup_min": warm["seconds"] / 60,
            "tool_call_rate": warm["tool_call_rate"], "warmup_pass": warm["gate_pass_rate"], "checked": warm["checked"],
            "kinds": warm.get("kinds"), "steps": len(steps), "step_s": mean("step_time"),
            "env_share": mean("brushwork/env_seconds") / mean("step_time"),
            "reward_first": mean("reward", steps[:3]), "reward_last": mean("reward", steps[-3:]),
            "train_tool_calls": mean("brushwork/tool_call_rate"), "train_gain": mean("brushwork/revision_gain"),
            "train_fix": mean("brushwork/fix_rate"), "evals": evals}


def _gain(e: dict) -> str:
    interval = f" [{e['gain_interval'][0]:+.3f}, {e['gain_interval'][1]:+.3f}]" if e.get("gain_interval") else ""
    return f"{e['gain']:+.3f}{interval} (n={e['gain_n']})"


def _share(value) -> str:
    return "–" if value is None else f"{value:.0%}"


def section_multi_turn(s: dict, cold: bool) -> str:
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    wall = f"{s['wall_min']:.1f} min ({'empty' if cold else 'warm'} render cache)" if s["wall_min"] else "not timed"
    lines = [MT_START, "## Training: the tiny multi-turn CPU run (benchmarks/train.py --multi-turn)", "",
             f"Run of {when}: `brushwork train --config tiny-cpu-multiturn` on this machine "
             "(2 cores shared with other jobs: times are upper bounds).", "",
             "| | measured | goal |", "| --- | --- | --- |",
             f"| whole run (build, warm-up on {sum((s['kinds'] or {}).values())} conversations, check, "
             f"{s['steps']} GRPO steps) | {wall} | <= 20 min |",
             f"| warm-up conversations by kind | {s['kinds']} | |",
             f"| warm-up | {s['warmup_min']:.1f} min | |",
             f"| tool-call rate after warm-up ({s['checked']} unseen prompts) | {s['tool_call_rate']:.0%} | >= 90 % |",
             f"| gate pass rate of those first sketches | {s['warmup_pass']:.0%} | |",
             f"| GRPO step, mean | {s['step_s']:.1f} s | |",
             f"| share of a step in the environment (gate, render, score) | {s['env_share']:.0%} | |",
             f"| tool-call rate during GRPO | {s['train_tool_calls']:.0%} | |",
             f"| mean reward, first 3 -> last 3 steps | {s['reward_first']:.3f} -> {s['reward_last']:.3f} | rises |",
             f"| revision gain / fix rate during GRPO (mean over steps) | {s['train_gain']:+.3f} / "
             f"{s['train_fix']:.0%} | |"]
    if s["evals"]:
        before, after = s["evals"]
        lines += [f"| held-out revision gain, before GRPO (base) | {_gain(before)} | |",
                  f"| held-out revision gain, after GRPO (base + adapter) | {_gain(after)} | > 0, interval "
                  "excluding 0 |",
                  f"| held-out fix rate, before -> after | {_share(before['fix_rate'])} (n={before['fix_n']}) -> "
                  f"{_share(after['fix_rate'])} (n={after['fix_n']}) | |",
                  f"| held-out worse rate (revisions that lowered the total), before -> after | "
                  f"{_share(before['worse_rate'])} -> {_share(after['worse_rate'])} | |",
                  f"| held-out tool-call rate, before -> after | {before['tool_calls']} -> {after['tool_calls']} | |"]
    return "\n".join([*lines, MT_END])


def main_multi_turn(args) -> None:
    out = args.summarise or (args.out if args.out != ROOT / "out" / "bench-train" else
                             ROOT / "out" / "bench-train-multiturn")
    wall = None
    if not args.summarise:
        if out.exists():
            raise SystemExit(f"{out} exists: remove it or pass --out")
        wall = run(out, args.cold, "tiny-cpu-multiturn.yaml")
    evals = None if args.no_eval else (evaluate(out, False, args.prompts, args.samples),
                                       evaluate(out, True, args.prompts, args.samples))
    block = section_multi_turn(summarise_multi_turn(out, wall, evals), args.cold)
    print(block)
    if not args.no_write:
        replace_section(MT_START, MT_END, block)


def step_rewards(out: Path) -> list[float | None]:
    return [r.get("reward") for r in map(json.loads, (out / "metrics.jsonl").read_text().splitlines())
            if "reward" in r]


def main_twice(args) -> None:
    """The tiny CPU run twice from empty render caches: are the per-step rewards identical?"""
    outs = [args.out.with_name(f"{args.out.name}-twice-{n}") for n in (1, 2)]
    walls = []
    for out in outs:
        if out.exists():
            raise SystemExit(f"{out} exists: remove it or pass another --out")
        walls.append(run(out, cold=True))
    a, b = (step_rewards(out) for out in outs)
    same = sum(x == y for x, y in zip(a, b))
    worst = max((abs(x - y) for x, y in zip(a, b) if x is not None and y is not None), default=float("nan"))
    shader = os.environ.get("BRUSHWORK_BRUSH_SHADER") or "deterministic (default)"
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = "\n".join([
        TW_START, "## Rewards that reproduce: the tiny CPU run twice (benchmarks/train.py --twice)", "",
        f"Run of {when}: `brushwork train --config tiny-cpu` twice on this machine, each from its "
        f"own empty render cache; p5.brush blend shader: {shader}.", "",
        "| measure | value |", "|---|---|",
        f"| GRPO steps compared | {min(len(a), len(b))} |",
        f"| steps with identical mean reward | **{same} / {min(len(a), len(b))}** |",
        f"| largest per-step difference | {worst:.6f} |",
        f"| wall time, run 1 / run 2 | {walls[0] / 60:.1f} / {walls[1] / 60:.1f} min |",
        f"| per-step rewards, run 1 | {', '.join(f'{x:.4f}' for x in a if x is not None)} |",
        f"| per-step rewards, run 2 | {', '.join(f'{x:.4f}' for x in b if x is not None)} |",
        TW_END])
    print(block)
    if not args.no_write:
        replace_section(TW_START, TW_END, block)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench-train")
    ap.add_argument("--cold", action="store_true", help="empty render cache: an honest first-run time")
    ap.add_argument("--summarise", type=Path, help="summarise an existing run folder instead of training")
    ap.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    ap.add_argument("--multi-turn", action="store_true",
                    help="the tiny multi-turn run (the bundled tiny-cpu-multiturn config)")
    ap.add_argument("--no-eval", action="store_true", help="multi-turn: skip the held-out evaluations")
    ap.add_argument("--prompts", type=int, default=8, help="multi-turn: held-out prompts per evaluation")
    ap.add_argument("--samples", type=int, default=4, help="multi-turn: episodes per held-out prompt")
    ap.add_argument("--twice", action="store_true",
                    help="the tiny CPU run twice from empty render caches: do the per-step rewards reproduce?")
    args = ap.parse_args()
    if args.twice:
        main_twice(args)
        return
    if args.multi_turn:
        main_multi_turn(args)
        return
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
