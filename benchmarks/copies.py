"""Copy-detection benchmark: every attack of tests/copy_attacks.py, the honest sets, the cost.

On the bundled example pool with the default thresholds:

- sketch attacks (the pool sketch shifted, mirrored, turned, scaled, cropped, recoloured),
  rendered and scored by the offline pipeline: flagged? by what, the similarity, the transform
  named, and the total with the copy check (judge 0) against the total with `judge_copies`;
- image attacks (Pillow on the pool's own painting) and source rewrites: flagged, similarity;
- honest sets (painter seeds, bundled examples, benchmark sketches, pool eval vs a detector
  built on the train split, each pool painting vs the rest): the highest similarity on each side
  and the false flags, and the picture side's highest before its 96 px confirm pass;
- ms per painting of `CopyDetector.match` (picture and sketch), over every painting above, and
  of the picture search alone, now and with the search's earlier settings (`BEFORE`: every turn
  in the 48 px pass, no confirm pass), on the same paintings in the same run.

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/copies.py
"""

from __future__ import annotations

import datetime
import re
import statistics
import sys
import time
from pathlib import Path

from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
START, END = "<!-- copies-benchmark:start -->", "<!-- copies-benchmark:end -->"
BEFORE = {"turns": 8, "confirm": 0}     # the search before the confirm pass, as `Search` fields


def fenced(code: str) -> str:
    return f"```js\n{code}\n```\n"


def honest_sketches() -> dict[str, str]:
    from brushwork.painter import paint

    sketches = {f"painter {s}": paint(s).code for s in range(8)}
    for path in sorted((HERE.parent / "src/brushwork/examples").glob("good_*.md")):
        sketches[path.stem] = re.search(r"```(?:js|javascript)?\n(.*?)```", path.read_text(), re.S).group(1)
    for path in sorted((HERE / "sketches").glob("*.js")):
        sketches[path.stem] = path.read_text()
    return sketches


def _flag(copy) -> str:
    return f"{copy.how}" if copy else "no"


def run(console: Console) -> list:
    from copy_attacks import CALIBRATION, HELD_OUT, IMAGE_ATTACKS, SKETCH_ATTACKS, SOURCE_ATTACKS, image_attack

    from brushwork.pool.folder import Pool
    from brushwork.score.copies import CopyDetector
    from brushwork.score.copy_image import ImageIndex, Search
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    options = ScoringOptions(workers=2)
    timings: list[float] = []
    searched: list[bytes] = []          # every painting the picture side saw, timed again at the end
    sketch_rows, image_rows, source_rows = [], [], []
    with Pipeline(options) as pipeline, Pipeline(options.with_(judge_copies=True)) as judged:
        pool = pipeline.scorer.pool
        detector = pipeline.scorer.copies

        def match(png, code=None):
            t = time.perf_counter()
            copy = detector.match(png, code)
            timings.append(time.perf_counter() - t)
            searched.append(png)
            return copy

        items = {i.id: i for i in pool.items}
        before = ImageIndex(list(items), [i.image_bytes() for i in items.values()], Search(**BEFORE))
        for pid in (*CALIBRATION, *HELD_OUT):
            part = "calibration" if pid in CALIBRATION else "held out"
            source = items[pid].source.read_text()
            for name, (edit, _) in SKETCH_ATTACKS.items():
                code = edit(source)
                painting = pipeline.run(fenced(code), seed=0, group_seed=1)
                card, png = painting.card, painting.gated.render.png
                copy = match(png, code)
                free = judged.run(fenced(code), seed=0, group_seed=1).card
                sketch_rows.append([pid, part, name, _flag(copy), f"{copy.similarity:.3f}" if copy else "-",
                                    copy.transform if copy else "-", f"{card.total:.3f}", f"{free.total:.3f}"])
            for name in IMAGE_ATTACKS:
                copy = match(image_attack(items[pid].image_bytes(), name))
                seen = detector.images.nearest(image_attack(items[pid].image_bytes(), name))
                image_rows.append([pid, part, name, _flag(copy) if copy and copy.id == pid else "no",
                                   f"{seen.similarity:.3f}", seen.transform])
            for name, rewrite in SOURCE_ATTACKS.items():
                read = detector.sources.nearest(rewrite(source))
                hit = read.id == pid and read.similarity >= options.copy_source_similarity
                source_rows.append([pid, part, name, "source" if hit else "no", f"{read.similarity:.3f}", read.stream])
        honest = honest_sketches()
        results = pipeline.renderer.render_many(list(honest.values()), seed=0)
        honest_rows = []
        groups = {"painter seeds 0-7": [k for k in honest if k.startswith("painter")],
                  "bundled good examples": [k for k in honest if k.startswith("good_")],
                  "benchmark sketches": [k for k in honest if k.startswith("recipe_")]}
        by_name = dict(zip(honest, results))
        for title, names in groups.items():
            flags = [match(by_name[n].png, honest[n]) for n in names]
            image = max(detector.images.nearest(by_name[n].png).similarity for n in names)
            source = max(detector.sources.nearest(honest[n]).similarity for n in names)
            unconfirmed = max(before.nearest(by_name[n].png).similarity for n in names)
            honest_rows.append([title, str(len(names)), f"{image:.3f}", f"{unconfirmed:.3f}", f"{source:.3f}",
                                str(sum(map(bool, flags)))])
        train_pool = Pool(pool.root, pool.split("train"), pool.snapshot)
        train = CopyDetector(train_pool, options.copy_image_similarity, options.copy_source_similarity)
        evals = pool.split("eval")
        train_before = ImageIndex([i.id for i in train_pool.items], [i.image_bytes() for i in train_pool.items],
                                  Search(**BEFORE))
        honest_rows.append(["pool eval vs train", str(len(evals)),
                            f"{max(train.images.nearest(i.image_bytes()).similarity for i in evals):.3f}",
                            f"{max(train_before.nearest(i.image_bytes()).similarity for i in evals):.3f}",
                            f"{max(train.sources.nearest(i.source.read_text()).similarity for i in evals):.3f}",
                            str(sum(train.match(i.image_bytes(), i.source.read_text()) is not None for i in evals))])
        honest_rows.append(pool_vs_pool(pool, options))
        cost = [cost_row("CopyDetector.match (picture and sketch)", timings)]
        for title, index in (("ImageIndex.nearest", detector.images), ("ImageIndex.nearest, before", before)):
            cost.append(cost_row(title, [timed(index.nearest, png) for png in searched]))
    blocks = [("Sketch attacks (rendered, scored)",
               ["pool item", "set", "attack", "flagged", "similarity", "transform", "total", "total, judge_copies"],
               sketch_rows),
              ("Image attacks (Pillow)", ["pool item", "set", "attack", "flagged", "image similarity", "transform"],
               image_rows),
              ("Source rewrites", ["pool item", "set", "attack", "flagged", "source similarity", "stream"],
               source_rows),
              ("Honest sets", ["set", "paintings", "max image similarity", "before confirm (48 px)",
                               "max source similarity", "false flags"], honest_rows),
              ("Cost, ms per painting (2 loaded cores)", ["what", "median", "p90", "n"], cost)]
    print_tables(console, blocks)
    return blocks


def timed(call, *args) -> float:
    t = time.perf_counter()
    call(*args)
    return time.perf_counter() - t


def cost_row(title: str, seconds: list[float]) -> list[str]:
    ms = sorted(1000 * t for t in seconds)
    return [title, f"{statistics.median(ms):.1f}", f"{ms[int(0.9 * len(ms))]:.1f}", str(len(ms))]


def pool_vs_pool(pool, options) -> list[str]:
    """Each pool painting against a detector built on the rest of the pool (picture side only:
    the pool's sketches share templates by design, the source side counts only distinctive ones)."""
    from brushwork.score.copy_image import ImageIndex, Search

    items = list(pool.items)
    now, then = [], []
    for n, i in enumerate(items):
        rest = items[:n] + items[n + 1:]
        ids, pngs = [j.id for j in rest], [j.image_bytes() for j in rest]
        now.append(ImageIndex(ids, pngs).nearest(i.image_bytes()).similarity)
        then.append(ImageIndex(ids, pngs, Search(**BEFORE)).nearest(i.image_bytes()).similarity)
    flags = sum(s >= options.copy_image_similarity for s in now)
    return ["pool painting vs the rest", str(len(items)), f"{max(now):.3f}", f"{max(then):.3f}", "-", str(flags)]


def main() -> None:
    from brushwork.score.copy_image import Search
    from brushwork.score.options import ScoringOptions

    console = Console()
    blocks = run(console)
    defaults = ScoringOptions()
    header = (f"## Copy detection (`benchmarks/copies.py`, {datetime.date.today()})\n\n"
              f"Thresholds: image {defaults.copy_image_similarity:g} (edge correlation, confirmed at "
              f"{Search().confirm} px), source {defaults.copy_source_similarity:g} (share of distinctive "
              "fingerprints). "
              "\"total\" is the default scorer's (a copy's judge term is 0), \"total, judge_copies\" the same "
              "reply judged as if it were honest.")
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
