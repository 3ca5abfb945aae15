"""Does each of the taste model's bounds pay its way? What it costs on held-out ratings against
what it buys on the attack families.

Bounds (brushwork.score.taste.head.Bounds): the support, the top tier's structure (linework),
the middle-tier floor (the structure floor as the bounded model pays the middle tier) and the
local agreement (paid no more than the median of the nearest rated paintings, plus a margin). Each
is switched off alone, then all of them, and the whole procedure (inner choice included) is
measured again:

- cost, on held-out ratings: nested 5-fold CV and leave-one-domain-out (every domain in turn,
  pooled) on three pools rated three different ways: the bundled pool (hand-written sketches
  rated by eye), the second pool (`scripts/second_pool.py`: the procedural painter rated by a
  rule over paper grain, bleed and layers) and the third (`scripts/third_pool.py`: the painter
  rated by a rule over motif size, a warm palette and a light paper);
- benefit, on the attack families (tests/reward_attack_cases.py, benchmark seeds 0-11 of
  `wash`, `flat` and the held-out `blob`, rendered once): each family's best aesthetic of the
  model fitted on the bundled pool's training split, against the median of the honest good
  examples (src/brushwork/examples/good_*.md). The bounds act on the utility that both the judge
  and the aesthetic read, so the aesthetic margin shows what a bound buys; the reward's own
  margins are benchmarks/reward_attack.py's.

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/taste_bounds.py [--second DIR] [--third DIR] [--repeats 3] [--only "all bounds" ...]

A row costs minutes of CPU (every fit makes the 72-candidate choice); `--only` runs the named rows alone
and merges them into the section by row (a row's `run` column says when, under which model version).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import statistics
import sys
import time
from pathlib import Path

from results import RESULTS, markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the attack generator shared with tests/test_reward_attacks.py
START, END = "<!-- taste-bounds:start -->", "<!-- taste-bounds:end -->"
SEEDS = range(12)
PAIRS = ("love>okay", "love>nope", "okay>nope")


def configurations():
    from brushwork.score.taste.head import Bounds

    return [Bounds(), Bounds(support=False), Bounds(structure=False), Bounds(paid_floor=False),
            Bounds(agreement=False), Bounds(False, False, False, False)]


async def _paintings() -> dict[str, list[bytes]]:
    """PNGs of the attack candidates by family, and of the honest good examples."""
    import reward_attack_cases as attacks

    from brushwork.paths import example_files
    from brushwork.render import RenderConfig, Renderer
    from brushwork.sketch import extract_sketch

    replies = {f: [attacks.sketch(attacks.random_genome(s, f)) for s in SEEDS]
               for f in (*attacks.FAMILIES, *attacks.HELD_OUT_FAMILIES)}
    replies["honest"] = [p.read_text() for p in example_files() if p.stem.startswith("good_")]
    async with Renderer(RenderConfig()) as r:
        return {k: [(await r.render(extract_sketch(v).code, seed=0)).png for v in vs] for k, vs in replies.items()}


def held_out(pools: dict, bounds, repeats: int) -> dict:
    """(pool, measure) -> accuracy per tier pair of the procedure with `bounds`."""
    from brushwork.score.taste.evaluate import leave_domain_out, nested, procedures_for

    procedures = procedures_for("auto")
    found = {}
    for name, data in pools.items():
        n = nested(data, procedures, repeats=repeats, resamples=200, bounds=bounds)
        d = leave_domain_out(data, procedures, resamples=200, bounds=bounds)[-1]
        for label, m in (("nested", n), ("domains", d)):
            found[name, label] = {p: m.figures[p].accuracy for p in PAIRS if p in m.figures}
    return found


def attacks_margin(pool, paintings, bounds, cache) -> dict:
    """family -> best aesthetic minus the median honest example's, the model fit with `bounds`
    (its choice and head only: the nested figures, 15 choices more, are not read here)."""
    from brushwork.score.taste.model import fit

    model = fit(pool, cache=cache, bounds=bounds, nested=False)
    honest = statistics.median(model.aesthetic(p) for p in paintings["honest"])
    return {f: max(model.aesthetic(p) for p in pngs) - honest for f, pngs in paintings.items() if f != "honest"} | {
        "honest median": honest, "chosen": model.report["selection"]["chosen"]}


def run(console: Console, second: Path, third: Path, repeats: int, only: list[str] | None = None) -> dict:
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.score.taste.evaluate import rated
    from brushwork.score.taste.model import FeatureCache

    cache = FeatureCache()
    with console.status("loading and measuring the three pools, rendering the attack candidates"):
        example = load_pool(example_pool_dir())
        pools = {name: rated(load_pool(path), name, cache, True) for name, path in
                 (("example", example_pool_dir()), ("second", second), ("third", third))}
        paintings = asyncio.run(_paintings())
    rows = {}
    for bounds in configurations():
        if only and bounds.name not in only:
            continue
        t0 = time.process_time()
        with console.status(f"{bounds.name}: held-out ratings and attacks"):
            rows[bounds.name] = {"held_out": held_out(pools, bounds, repeats),
                                 "attacks": attacks_margin(example, paintings, bounds, cache)}
        console.print(f"{bounds.name}: {time.process_time() - t0:.0f} CPU-s")
    return {"rows": rows, "pools": {n: d.counts() for n, d in pools.items()}, "repeats": repeats}


def blocks(r: dict, stamp: str) -> list:
    """The two tables, a row per configuration run, each row stamped with its run (`stamp`)."""
    rows = r["rows"]
    keys = sorted(next(iter(rows.values()))["held_out"])
    cost = []
    for name, row in rows.items():
        acc = row["held_out"]
        mean = statistics.mean(v for k in keys for v in acc[k].values())
        cost.append([name, *(" / ".join(f"{acc[k].get(p, float('nan')):.3f}" for p in PAIRS) for k in keys),
                     f"{mean:.3f}", stamp])
    families = [k for k in next(iter(rows.values()))["attacks"] if k not in ("honest median", "chosen")]
    buys = [[name, *(f"{row['attacks'][f]:+.3f}" for f in families), f"{row['attacks']['honest median']:.3f}",
             row["attacks"]["chosen"], stamp] for name, row in rows.items()]
    return [("Held-out pairwise accuracy (love>okay / love>nope / okay>nope)",
             ["bounds", *(f"{p} {m}" for p, m in keys), "mean", "run"], cost),
            ("Best attack aesthetic minus the median honest example's (model fit on the bundled pool)",
             ["bounds", *families, "honest median", "chosen on the bundled pool", "run"], buys)]


def _tables(section: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """title -> (headers, rows) of the markdown tables in a section `markdown` wrote."""
    tables, title = {}, None
    for line in section.splitlines():
        if line.startswith("### "):
            title = line[4:].strip()
        elif title and line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if title not in tables:
                tables[title] = (cells, [])
            else:
                tables[title][1].append(cells)
    return tables


def merged(new: list, section: str) -> list:
    """`new`'s rows, and the section's other rows (by their first cell, the configuration) where
    its table has the same columns: a partial rerun (`--only`) replaces its rows and keeps the
    rest, each with its own run stamp. Rows in configuration order."""
    order = [b.name for b in configurations()]
    old = _tables(section)
    out = []
    for title, headers, rows in new:
        ours = {row[0]: row for row in rows}
        before_headers, before = old.get(title, (None, []))
        kept = {row[0]: row for row in before if before_headers == headers and row[0] not in ours}
        every = kept | ours
        out.append((title, headers, [every[k] for k in sorted(every, key=lambda k: order.index(k)
                                                                 if k in order else len(order))]))
    return out


def main() -> None:
    from brushwork.paths import cache_root
    from brushwork.score.taste.model import VERSION

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--second", type=Path, default=cache_root() / "second-pool")
    parser.add_argument("--third", type=Path, default=cache_root() / "third-pool")
    parser.add_argument("--repeats", type=int, default=3, help="shuffles of the nested CV's outer folds")
    names = [b.name for b in configurations()]
    parser.add_argument("--only", nargs="+", choices=names, metavar="ROW", help=f"rows to run: {', '.join(names)}")
    args = parser.parse_args()
    console = Console()
    r = run(console, args.second, args.third, args.repeats, args.only)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = blocks(r, f"{when}, v{VERSION}, x{args.repeats}")
    print_tables(console, out)
    if args.only:
        text = RESULTS.read_text() if RESULTS.exists() else ""
        out = merged(out, text.split(START, 1)[1].split(END, 1)[0] if START in text and END in text else "")
    pools = "; ".join(f"{n} {c['paintings']} ({', '.join(f'{k} {v}' for k, v in c['tiers'].items())})"
                      for n, c in r["pools"].items())
    header = (f"## Taste bounds: cost on held-out ratings vs what they buy (`benchmarks/taste_bounds.py`), "
              f"run of {when}\n\nTaste model v{VERSION}, features auto (inner CV), nested 5-fold CV x "
              f"{r['repeats']} and leave-one-domain-out (pooled); pools: {pools}. Attacks: seeds 0-11 of "
              "wash, flat and blob, one painting each, no search." +
              (f" Rows run: {', '.join(args.only)} (`--only`); the others are the section's earlier rows, each "
               "with its own run (model version, outer repeats)." if args.only else ""))
    replace_section(START, END, markdown(out, START, END, header))


if __name__ == "__main__":
    main()
