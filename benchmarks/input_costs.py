"""What a hostile reply's size costs the gate: CPU seconds of `check()` (static rules, no render).

Replies of 8,000 to 64,000 bare code fences (the extraction used to pair fences in quadratic
time), a reasoning section that never closes, a reply just under the length cap, and a long
honest reply (the honest corpus's paintings in one sketch, near `max_chars`). Each is timed
with `time.process_time` (the gate's own CPU, steadier than wall time on a shared machine),
best of three; the same replies (once each) through `extract_sketch` as it was at `BASELINE` (read from
this repository's git history) show what the bounded path replaced. Both verdicts are listed.

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/input_costs.py
"""

from __future__ import annotations

import datetime
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import markdown, print_tables, replace_section
from rich.console import Console

from brushwork.gate import Gate, GateConfig
from brushwork.sketch import extract_sketch

HERE = Path(__file__).resolve().parent
START, END = "<!-- input-costs:start -->", "<!-- input-costs:end -->"
BASELINE = "3fee68b26c87d5dbce99948061c73ef5f5899bfd"   # the last commit with quadratic fence pairing
MODULE = "src/brushwork/sketch.py"
REPEATS = 3


def baseline_extract():
    """`extract_sketch` as it was at BASELINE, imported under another name."""
    source = subprocess.run(["git", "show", f"{BASELINE}:{MODULE}"], cwd=HERE.parent, check=True,
                            capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("sketch_baseline", f.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module.extract_sketch


def honest_long(limit: int) -> str:
    """One honest sketch that paints many washes, just under `limit` characters of code."""
    wash = ('  brush.fill("#{:02x}6f{:02x}", 170);\n  brush.circle({}, {}, {});\n')
    lines, i = [], 0
    head = ("A meadow of many soft washes.\n\n```js\nfunction setup() {\n  createCanvas(600, 600, WEBGL);\n"
            "  noLoop();\n}\n\nfunction draw() {\n  translate(-width / 2, -height / 2);\n"
            '  background("#fbf6ee");\n  brush.noStroke();\n  brush.fillBleed(0.3);\n')
    while len(head) + sum(map(len, lines)) < limit - 200:
        lines.append(wash.format((37 * i) % 256, (91 * i) % 256, 40 + (53 * i) % 520, 40 + (29 * i) % 520,
                                 10 + i % 40))
        i += 1
    return head + "".join(lines) + "}\n```\n\nEnjoy the meadow."


def replies(cfg: GateConfig) -> list[tuple[str, str]]:
    fences = [(f"{n:,} bare fences", "```\n" * n) for n in (8_000, 16_000, 32_000, 64_000)]
    under = cfg.max_reply_chars // 4
    return fences + [
        (f"{under:,} fences, just under the cap", "```\n" * under),
        ("64,000 unclosed `<think>` tags", "<think>" * 64_000),
        ("64,000 `` ```js `` openings, never closed", "```js\n" * 64_000),
        ("long honest reply", honest_long(cfg.max_chars)),
    ]


def cpu(fn, arg, repeats: int = REPEATS) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.process_time()
        out = fn(arg)
        best = min(best, time.process_time() - t0)
    return best, out


def run(console: Console) -> list:
    cfg = GateConfig()
    gate = Gate(cfg)
    old = baseline_extract()
    rows = []
    for name, reply in replies(cfg):
        now_s, report = cpu(gate.check, reply)
        extract_s, _ = cpu(extract_sketch, reply)   # past the cap check() never extracts: this is the bound
        old_s, sketch = cpu(old, reply, repeats=1)   # up to 20 s each at 64,000 fences
        verdict = "pass" if report.passed else ", ".join(report.ids)
        rows.append([name, f"{len(reply):,}", f"{now_s:.3f}", verdict, f"{extract_s:.3f}", f"{old_s:.3f}",
                     "no sketch" if sketch is None else f"{len(sketch.code):,} chars of code"])
        console.print(f"{name}: {now_s:.3f} s now, {old_s:.3f} s extraction at baseline")
    blocks = [("CPU seconds per reply (best of 3)",
               ["reply", "characters", "check() CPU s", "verdict", "extract_sketch CPU s",
                f"extract_sketch at {BASELINE[:10]} CPU s (once)",
                "what that extracted"], rows)]
    print_tables(console, blocks)
    return blocks


def main() -> None:
    console = Console()
    blocks = run(console)
    header = (f"## Input costs (`benchmarks/input_costs.py`), run of "
              f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC\n\n"
              "CPU seconds (`time.process_time`) of the static gate, `check(reply)`, on hostile and long replies; "
              f"a reply over `GateConfig.max_reply_chars` (4 x `max_chars` = {4 * GateConfig().max_chars:,}) is "
              "`too_long` unread. Beside it, the extraction alone, now (one pass over the fences) and as it was "
              "before fences were paired in one pass and the cap came first.")
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    sys.exit(main())
