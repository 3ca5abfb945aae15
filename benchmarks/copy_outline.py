"""Outline-side copy benchmark (score/copy_outline.py): the loved paintings attacked, the honest sets, the cost.

On the bundled example pool with the default `copy_outline_similarity`, every sketch rendered for real:

- every love painting's shapes painted from a data literal (`tests/copy_attacks.py:literal_sketch`, a
  watercolour of its own): replayed, turned 0.38 rad and scaled 1.22, turned 2.1 rad and scaled 0.8
  elsewhere, mirrored, every shape cut in two and turned 0.38 rad (`recut`); and every love sketch
  re-rolled (its random and noise seeds moved by 1). Flagged only if matched to the right painting;
  the picture side's (`ImageIndex`) similarity to the right painting beside it;
- honest sets: the procedural painter's seeds 0-7 and 40-55, the bundled good_* examples and the
  benchmark sketches, each as rendered and re-cut the same way (their shapes halved, from a literal);
- each pool painting against the rest: the highest similarity, and the highest outside the pool's
  flat five-petal siblings (one helper's flower moved and turned: copies of one another as outlines);
- CPU ms per painting of `OutlineIndex.nearest` and of today's picture side (`ImageIndex.nearest`),
  timed call by call on the same paintings.

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/copy_outline.py
"""

from __future__ import annotations

import datetime
import random
import statistics
import sys
import time
from pathlib import Path

from copies import honest_sketches
from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
START, END = "<!-- copy-outline-benchmark:start -->", "<!-- copy-outline-benchmark:end -->"
MOVES = ("replayed", "rotated 0.38 rad, scaled 1.22", "rotated 2.1 rad, scaled 0.8", "mirrored")
FIVE_PETALS = frozenset({"okay_white_hibiscus_grey_paper", "okay_orange_hibiscus_corner",
                         "nope_low_contrast_yellow_on_cream"})


def _codes(pool) -> dict[tuple[str, str], str]:
    from copy_attacks import SHAPE_ATTACKS, literal_sketch, recut, reseeded

    from brushwork.painter import paint
    from brushwork.score.copy_display import polygons

    codes = {}
    for i in (i for i in pool.items if i.tier == "love"):
        polys = polygons(i.display_list())
        for name in MOVES:
            codes[(name, i.id)] = literal_sketch(SHAPE_ATTACKS[name](polys, random.Random(name)))
        codes[("re-cut, turned 0.38 rad", i.id)] = literal_sketch(recut(SHAPE_ATTACKS[MOVES[1]](polys, None)))
        codes[("re-rolled (seeds +1)", i.id)] = reseeded(i.source.read_text(), 1)
    honest = {**honest_sketches(), **{f"painter {s}": paint(s).code for s in range(40, 56)}}
    codes.update({("honest", name): code for name, code in honest.items()})
    return codes


def run(console: Console) -> list:
    from copy_attacks import literal_sketch, recut

    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.render import SyncRenderer
    from brushwork.score.copy_display import polygons
    from brushwork.score.copy_image import ImageIndex
    from brushwork.score.copy_outline import OutlineIndex
    from brushwork.score.options import ScoringOptions

    threshold = ScoringOptions().copy_outline_similarity
    with SyncRenderer() as renderer:
        pool = load_pool(example_pool_dir(), renderer=renderer)
        codes = _codes(pool)
        done = dict(zip(codes, renderer.render_many(list(codes.values()), seed=0)))
        honest = [k for k in codes if k[0] == "honest" and done[k].ok]
        recuts = {("re-cut honest", k[1]): literal_sketch(recut(polygons(done[k].display_list))) for k in honest}
        done.update(zip(recuts, renderer.render_many(list(recuts.values()), seed=0)))
    outlines = OutlineIndex({i.id: i.display_list() for i in pool.items})
    images = ImageIndex([i.id for i in pool.items], [i.image_bytes() for i in pool.items])
    found, ms, image_ms = {}, [], []
    for key, result in done.items():
        if not result.ok:
            continue
        t = time.process_time()
        found[key] = outlines.nearest(result.display_list)
        ms.append(1000 * (time.process_time() - t))
        t = time.process_time()
        seen = images.nearest(result.png)
        image_ms.append(1000 * (time.process_time() - t))
        found[key] = (found[key], seen)
    attack_rows, missed = [], []
    for move in dict.fromkeys(k[0] for k in codes if k[0] != "honest"):
        keys = [k for k in found if k[0] == move]
        right = [o.similarity if o is not None and o.id == k[1] else 0.0 for k, (o, _) in ((k, found[k]) for k in keys)]
        seen = [s.similarity if s is not None and s.id == k[1] else 0.0 for k, (_, s) in ((k, found[k]) for k in keys)]
        flagged = sum(r >= threshold for r in right)
        missed += [f"{k[1]} ({move})" for k, r in zip(keys, right) if r < threshold]
        attack_rows.append([move, str(len(keys)), f"{flagged}/{len(keys)}", f"{min(right):.3f}",
                            f"{statistics.median(right):.3f}", f"{sum(s >= 0.86 for s in seen)}/{len(keys)}"])
    honest_rows = []
    for title, prefix in (("painter seeds 0-7, 40-55", "painter"), ("good_* examples", "good_"),
                          ("benchmark sketches", "recipe_")):
        for kind in ("honest", "re-cut honest"):
            keys = [k for k in found if k[0] == kind and k[1].startswith(prefix)]
            sims = [found[k][0].similarity if found[k][0] else 0.0 for k in keys]
            honest_rows.append([f"{title}{', re-cut' if kind != 'honest' else ''}", str(len(keys)),
                                str(sum(s >= threshold for s in sims)), f"{max(sims):.3f}"])
    rest = {i.id: outlines.nearest(i.display_list(), frozenset({i.id})) for i in pool.items}
    outside = [m.similarity for pid, m in rest.items() if m is not None
               and not (pid in FIVE_PETALS and m.id in FIVE_PETALS)]
    every = [m.similarity for m in rest.values() if m is not None]
    honest_rows.append([f"pool painting vs the other {len(pool.items) - 1}", str(len(every)),
                        str(sum(s >= threshold for s in every)), f"{max(every):.3f}"])
    honest_rows.append(["the same, five-petal siblings apart", str(len(outside)),
                        str(sum(s >= threshold for s in outside)), f"{max(outside):.3f}"])
    cost = [[what, f"{statistics.median(v):.1f}", f"{sorted(v)[int(0.9 * len(v))]:.1f}", str(len(v))]
            for what, v in (("OutlineIndex.nearest", ms), ("ImageIndex.nearest (today's picture side)", image_ms))]
    blocks = [
        ("Attacks on the loved paintings, rendered (each must be flagged)",
         ["attack", "n", "flagged", "lowest similarity", "median", "picture side flags (0.86)"], attack_rows),
        ("Honest sets (none may be flagged; pool siblings reported)", ["set", "n", "flagged", "highest similarity"],
         honest_rows),
        ("CPU ms per painting, same paintings, same run", ["what", "median", "p90", "calls"], cost),
        ("Missed", ["which"], [[m] for m in missed] or [["none"]]),
    ]
    print_tables(console, blocks)
    return blocks


def main() -> None:
    from brushwork.score.options import ScoringOptions

    blocks = run(Console())
    header = (f"## Copy detection by outline (`benchmarks/copy_outline.py`, {datetime.date.today()})\n\n"
              f"Threshold: copy_outline_similarity {ScoringOptions().copy_outline_similarity:g} (correlation of "
              "the boundaries between flat colour regions drawn from the display list, at any angle, scale, mirror "
              "and shift, confirmed at 96 px). Every attack and honest painting rendered for real.")
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
