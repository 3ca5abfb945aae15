"""Cost of the picture side of copy detection: this code against the code before its confirm pass,
and the outline side (`copy_outline`) beside them.

`ImageIndex.nearest` of `brushwork.score.copy_image` as it is now, against the same module as
it was at `BASELINE` (read from this repository's git history: every turn at 48 px in float64,
window energies by FFT, no confirm pass), on the bundled example pool: both indexes hold its 47
paintings, and each is asked for the paintings the copy tests use (every pool painting, and every
image attack of tests/copy_attacks.py on the calibration and held-out items). The two run
interleaved, painting by painting, so a change in the machine's load falls on both; wall and CPU
time per painting (CPU time is the steadier figure on a loaded machine). Both must name the same
pool painting for every attack. `OutlineIndex.nearest` runs in the same loop on the pool paintings'
display lists (the attacks here are images, which have none).

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/copy_cost.py
"""

from __future__ import annotations

import datetime
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
START, END = "<!-- copy-cost:start -->", "<!-- copy-cost:end -->"
BASELINE = "fa5509214bdca8250783e48341678c279f045f82"   # the last commit before the confirm pass
MODULE = "src/brushwork/score/copy_image.py"


def baseline_module():
    """copy_image.py as it was at BASELINE, imported under another name."""
    try:
        code = subprocess.run(["git", "-C", str(HERE.parent), "show", f"{BASELINE}:{MODULE}"], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"copy_cost needs this repository's git history to read the baseline ({BASELINE[:12]}): {e}")
    path = Path(tempfile.mkdtemp()) / "copy_image_baseline.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location("copy_image_baseline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # its dataclasses look their module up while they are made
    spec.loader.exec_module(module)
    return module


def queries(pool) -> list[tuple[str, str, bytes]]:
    """(what, the pool painting it comes from, PNG): each pool painting, then each image attack."""
    from copy_attacks import CALIBRATION, HELD_OUT, IMAGE_ATTACKS, image_attack

    items = {i.id: i for i in pool.items}
    out = [("pool painting", pid, item.image_bytes()) for pid, item in items.items()]
    for pid in (*CALIBRATION, *HELD_OUT):
        out += [(f"attack: {name}", pid, image_attack(items[pid].image_bytes(), name)) for name in IMAGE_ATTACKS]
    return out


def timed(index, png: bytes):
    wall, cpu = time.perf_counter(), time.process_time()
    match = index.nearest(png)
    return match, 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def summary(title: str, ms: list[float]) -> list[str]:
    ms = sorted(ms)
    return [title, f"{statistics.median(ms):.1f}", f"{ms[int(0.9 * len(ms))]:.1f}"]


def run(console: Console) -> list:
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.score.copy_image import ImageIndex
    from brushwork.score.copy_outline import OutlineIndex

    pool = load_pool(example_pool_dir())
    ids, pngs = [i.id for i in pool.items], [i.image_bytes() for i in pool.items]
    indexes = {"now": ImageIndex(ids, pngs), "baseline": baseline_module().ImageIndex(ids, pngs)}
    lists = {i.id: i.display_list() for i in pool.items}
    outlines, outline_wall, outline_cpu = OutlineIndex(lists), [], []
    wall = {name: [] for name in indexes}
    cpu = {name: [] for name in indexes}
    wrong = {name: 0 for name in indexes}
    todo = queries(pool)
    for n, (what, pid, png) in enumerate(todo):
        for name in (("now", "baseline") if n % 2 else ("baseline", "now")):
            match, w, c = timed(indexes[name], png)
            wall[name].append(w)
            cpu[name].append(c)
            wrong[name] += what.startswith("attack") and match.id != pid
        if not what.startswith("attack"):
            wall_t, cpu_t = time.perf_counter(), time.process_time()
            outlines.nearest(lists[pid])
            outline_wall.append(1000 * (time.perf_counter() - wall_t))
            outline_cpu.append(1000 * (time.process_time() - cpu_t))
    rows = []
    for name in indexes:
        rows.append([*summary(f"ImageIndex.nearest, {name}", wall[name]), *summary("", cpu[name])[1:],
                     str(len(todo)), str(wrong[name])])
    rows.append([*summary("OutlineIndex.nearest, pool paintings", outline_wall),
                 *summary("", outline_cpu)[1:], str(len(outline_cpu)), "-"])
    median = statistics.median
    ratio = [[f"baseline / now, median {what}", f"{median(ms['baseline']) / median(ms['now']):.2f}"]
             for what, ms in (("wall", wall), ("CPU", cpu))]
    blocks = [("Per painting (ms)", ["what", "wall median", "wall p90", "CPU median", "CPU p90", "paintings",
                                     "attacks matched to another painting"], rows),
              ("Ratio", ["measure", "value"], ratio)]
    print_tables(console, blocks)
    return blocks


def main() -> None:
    console = Console()
    blocks = run(console)
    header = (f"## Copy detection cost (`benchmarks/copy_cost.py`), run of "
              f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC\n\n"
              f"`ImageIndex.nearest` now against the same module at {BASELINE[:10]} (before the 96 px confirm "
              "pass), interleaved on the same paintings: the pool paintings and the image attacks of "
              "tests/copy_attacks.py; `OutlineIndex.nearest` in the same loop on the pool paintings' display lists.")
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
