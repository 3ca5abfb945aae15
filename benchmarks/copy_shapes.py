"""Shape-side copy benchmark (score/copy_shapes.py): every loved pool painting attacked, the honest sets.

On the bundled example pool with the default `copy_shape_coverage`:

- every love painting's shapes moved as data (`tests/copy_attacks.py` SHAPE_ATTACKS: replayed from a
  literal, turned 0.38 and 2.1 rad, scaled 1.22 and 0.8, mirrored, recoloured, reordered, thinned by
  30 %, all at once) and their legal twins (SHAPE_TWINS: the shapes scattered, the five largest alone);
- every love sketch re-rolled (its randomSeed and noiseSeed moved by 1 and 2, rendered for real);
- splices: runs of the shapes of 2 or 3 love paintings, each turned, scaled and maybe mirrored its own
  way (12 drawn from seed 5, looked at while the detector was changed; 30 from seed 77, drawn once the
  changes were made);
- honest sets: each pool painting against the other 46, the procedural painter's seeds 0-7, the bundled
  good_* examples and the benchmark sketches (rendered): the highest coverage and the false flags;
- CPU ms per painting of `ShapeIndex.nearest` against the whole pool, now and as it was at `BASELINE`
  (read from this repository's git history), the two timed call by call on the same paintings.

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/copy_shapes.py
"""

from __future__ import annotations

import datetime
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from copies import honest_sketches  # the same honest corpus as the picture and sketch sides
from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
START, END = "<!-- copy-shapes-benchmark:start -->", "<!-- copy-shapes-benchmark:end -->"
BASELINE = "77f875e"      # the shape side before pair seeds, kept matches and kinds
SPLICES, REROLLS = {5: 12, 77: 30}, (1, 2)   # splices: seed -> how many


def _summary(name: str, found: list, threshold: float, copies: bool) -> list[str]:
    """name, count, flagged, lowest (attacks) or highest (honest) coverage."""
    cover = [f.coverage if f is not None else 0.0 for f in found]
    flagged = sum(c >= threshold for c in cover)
    edge = min(cover) if copies else max(cover)
    return [name, str(len(found)), f"{flagged}/{len(found)}", f"{edge:.3f}"]


def baseline_index(lists: dict[str, str]):
    """A `ShapeIndex` of copy_shapes.py as it was at BASELINE."""
    text = subprocess.run(["git", "show", f"{BASELINE}:src/brushwork/score/copy_shapes.py"], cwd=HERE.parent,
                          check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "copy_shapes_baseline.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("copy_shapes_baseline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.ShapeIndex(lists)


def run(console: Console) -> list:
    from copy_attacks import SHAPE_ATTACKS, SHAPE_TWINS, display_list, reseeded, spliced

    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.render import SyncRenderer
    from brushwork.score.copy_display import polygons
    from brushwork.score.copy_shapes import ShapeIndex
    from brushwork.score.options import ScoringOptions

    threshold = ScoringOptions().copy_shape_coverage
    with SyncRenderer() as renderer:
        pool = load_pool(example_pool_dir(), renderer=renderer)
        loved = [i for i in pool.items if i.tier == "love"]
        codes = {(i.id, s): reseeded(i.source.read_text(), s) for i in loved for s in REROLLS}
        honest = honest_sketches()
        renders = renderer.render_many([*codes.values(), *honest.values()], seed=0)
    lists = {i.id: i.display_list() for i in pool.items}
    index = ShapeIndex(lists)
    before = baseline_index(lists)
    attacks, seconds, then = [], [], []

    def nearest(dl: str, exclude=frozenset()):
        t = time.process_time()
        found = index.nearest(dl, exclude)
        seconds.append(time.process_time() - t)
        t = time.process_time()
        before.nearest(dl, exclude)
        then.append(time.process_time() - t)
        return found

    for name, move in {**SHAPE_ATTACKS, **SHAPE_TWINS}.items():
        found = [nearest(display_list(move(polygons(lists[i.id]), random.Random(name)))) for i in loved]
        right = [f if f is not None and f.pieces[0].id == i.id else None for f, i in zip(found, loved)]
        attacks.append(_summary(name + (" (twin)" if name in SHAPE_TWINS else ""), right if name in SHAPE_ATTACKS
                                else found, threshold, name in SHAPE_ATTACKS))
    rerolled = [(key, nearest(r.display_list)) for key, r in zip(codes, renders) if r.ok]
    right = [f if f is not None and f.pieces[0].id == key[0] else None for key, f in rerolled]
    attacks.append(_summary(f"re-rolled (seeds +{', +'.join(map(str, REROLLS))}, rendered)", right, threshold, True))
    missed_rolls = [f"{key[0]} +{key[1]}" for (key, _), f in zip(rerolled, right)
                    if f is None or f.coverage < threshold]
    missed = []
    for seed, count in SPLICES.items():
        rng, splices = random.Random(seed), []
        for n in range(count):
            parts = rng.sample([i.id for i in loved], 2 + n % 2)
            found = nearest(display_list(spliced([polygons(lists[p]) for p in parts], rng)))
            splices.append(found)
            if found is None or found.coverage < threshold:
                missed.append(" + ".join(parts))
        attacks.append(_summary(f"spliced from 2 or 3 (seed {seed})", splices, threshold, True))

    rest = [nearest(lists[i.id], frozenset({i.id})) for i in pool.items]
    honest_rows = [_summary(f"pool painting vs the other {len(pool.items) - 1}", rest, threshold, False)]
    done = dict(zip(honest, renders[len(codes):]))
    for group, keep in (("painter seeds 0-7", "painter"), ("good_* examples", "good_"), ("benchmark sketches", "")):
        names = [n for n in honest if n.startswith(keep)] if keep else \
            [n for n in honest if not n.startswith(("painter", "good_"))]
        honest_rows.append(_summary(group, [nearest(done[n].display_list) for n in names], threshold, False))
    ms, was = sorted(1000 * s for s in seconds), sorted(1000 * s for s in then)
    ratio = statistics.median(a / b for a, b in zip(seconds, then) if b > 0)
    blocks = [
        (f"Attacks on the {len(loved)} loved paintings (each must be flagged) and their twins (must not)",
         ["attack", "n", "flagged", "lowest coverage (twins: highest)"], attacks),
        ("Honest sets (none may be flagged)", ["set", "n", "flagged", "highest coverage"], honest_rows),
        (f"CPU cost of `ShapeIndex.nearest` against the {len(pool.items)} pool paintings, now and at {BASELINE}",
         ["median ms", "p90 ms", f"median ms at {BASELINE}", f"p90 ms at {BASELINE}", "median ratio", "calls"],
         [[f"{statistics.median(ms):.1f}", f"{ms[int(0.9 * len(ms))]:.1f}", f"{statistics.median(was):.1f}",
           f"{was[int(0.9 * len(was))]:.1f}", f"{ratio:.2f}", str(len(ms))]]),
        ("Missed", ["what", "which"], [["splices", "; ".join(missed) or "none"],
                                       ["re-rolls", "; ".join(missed_rolls) or "none"]]),
    ]
    print_tables(console, blocks)
    return blocks


def main() -> None:
    from brushwork.score.options import ScoringOptions

    blocks = run(Console())
    header = (f"## Copy detection by shapes (`benchmarks/copy_shapes.py`, {datetime.date.today()})\n\n"
              f"Threshold: copy_shape_coverage {ScoringOptions().copy_shape_coverage:g} (share of the painting's "
              "shape mass that one to three pool layouts explain, each under its own similarity transform, with "
              "4 or more shapes of 3 kinds per piece matched to the pixel or kept: same colour, near the same place "
              "and size). Display lists compared in pure Python; the "
              "re-rolled sketches and the honest sets rendered for real.")
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
