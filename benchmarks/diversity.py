"""Does the diversity term keep a group diverse, and does offline adherence read the colour painted?

- train: the tiny CPU run (`brushwork train --config tiny-cpu`, `--steps` GRPO steps) twice from
  the same seed, with the recipe's judge-led preset and with recipe-diverse (diversity 0.10 and
  adherence 0.05 taken from judge and aesthetic), both from the same warmed-up weights. From each
  run's film, per step: within-group
  diversity (mean pairwise distance of the passed paintings, `score.diversity`, and the number
  of distinct compositions), the reward each run was paid, the judge-led total recomputed from
  the card's terms (the recipe's reward, comparable across runs) and the gate pass rate; a PNG
  of them per step beside this section (benchmarks/diversity.png).
- noise: the diversity measure on the attacks of tests/test_diversity.py (coordinates, colours,
  stroke order, tiny strokes, all at once) and on honest layouts of the same subject, for the
  procedural yellow hibiscus and pink lotus.
- adherence: a labelled set of procedural hibiscus paintings, one per palette and seed, each
  asked for every colour: asked = painted must score >= 0.5, an honest painting of another
  colour family < 0.5 (colours of one family, such as peach and coral, are not scored).

    .venv/bin/python benchmarks/diversity.py [--part train|noise|adherence|all ...] [--steps 4] [--seeds 0 1]
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import subprocess
import sys
from pathlib import Path

from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
START, END = "<!-- diversity:start -->", "<!-- diversity:end -->"
RUNS = {"judge-led": "without the term (judge-led)", "recipe-diverse": "with the term (recipe-diverse)"}
JUDGE_LED = {"gate": 0.05, "length": 0.05, "judge": 0.60, "aesthetic": 0.30}
FAMILIES = {"yellow": "yellow", "white": "white", "peach": "warm", "coral": "warm", "red": "warm",
            "magenta": "pink", "pink": "pink", "lilac": "purple"}
PAINTED = {"yellow": "yellow hibiscus", "white": "white hibiscus with a red eye", "peach": "peach hibiscus",
           "coral": "coral hibiscus", "red": "red hibiscus", "magenta": "magenta hibiscus", "pink": "pink hibiscus",
           "lilac": "lilac hibiscus"}
SEEDS = (11, 12, 13)


def train(out: Path, steps: int, seeds: list[int]) -> dict[tuple[str, int], Path]:
    """Both runs per GRPO seed, all from the same warmed-up weights (the tiny model's supervised
    warm-up, paid once in `out/warm`); (run name, seed) -> its film folder. A run whose film
    already reaches `steps` is kept."""
    warm = out / "warm"
    if not (warm / "base" / "config.json").is_file():
        _train(warm, ["--max_steps", "1", "--film", "false"])
    films = {}
    for seed in seeds:
        for preset in RUNS:
            folder = out / f"{preset}-{steps}-s{seed}"
            if _last_step(folder / "film") < steps:
                shutil.rmtree(folder, ignore_errors=True)
                _train(folder, ["--max_steps", str(steps), "--preset", preset, "--tiny", "false", "--seed", str(seed),
                                "--model_name_or_path", str(warm / "base"), "--sft_samples", "0"])
            films[preset, seed] = folder / "film"
    return films


def _train(folder: Path, args: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "brushwork", "train", "--config", "tiny-cpu", "--output_dir", str(folder),
                    "--report_to", "none", *args], check=True, cwd=ROOT)


def _last_step(film: Path) -> int:
    from brushwork.train.film import read_film

    if not (film / "index.jsonl").is_file():
        return 0
    return max((frame.step for frame in read_film(film)), default=0)


def per_step(film: Path) -> list[dict]:
    from brushwork.eval.collect import film_samples
    from brushwork.score.diversity import compositions, pairwise

    samples = film_samples(film)
    rows = []
    for step in sorted({s.step for s in samples}):
        these = [s for s in samples if s.step == step]
        groups: dict[int, list[bytes]] = {}
        for s in these:
            if s.card.passed and s.png:
                groups.setdefault(s.group, []).append(s.png)
        spreads = [d for pngs in groups.values() if len(pngs) > 1 for d in pairwise(pngs)]
        kinds = [compositions(pngs) for pngs in groups.values() if len(pngs) > 1]
        paid = [s.card.total for s in these if s.card.total is not None]
        recipe = [sum(w * (s.card.terms.get(t) or 0.0) for t, w in JUDGE_LED.items()) if s.card.passed else 0.0
                  for s in these if s.card.total is not None]
        rows.append({"step": step, "n": len(these), "pass": sum(s.card.passed for s in these) / len(these),
                     "distance": _mean(spreads), "compositions": _mean(kinds), "reward": _mean(paid),
                     "recipe": _mean(recipe)})
    return rows


def _mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def _fmt(x, spec=".3f") -> str:
    return "–" if x is None else format(x, spec)


def plot(series: dict[tuple[str, int], list[dict]], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 3))
    panels = (("distance", "mean pairwise distance"), ("compositions", "distinct compositions (of 8)"),
              ("recipe", "judge-led total"), ("pass", "gate pass rate"))
    for k, (key, title) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), k + 1)
        for (preset, seed), rows in series.items():
            points = [(r["step"], r[key]) for r in rows if r[key] is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3,
                    color="tab:blue" if preset == "judge-led" else "tab:orange",
                    linestyle=("-", "--", ":", "-.")[seeds_seen(series).index(seed) % 4], label=_label(preset, seed))
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("step", fontsize=8)
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def seeds_seen(series) -> list[int]:
    return sorted({seed for _, seed in series})


def _label(preset: str, seed: int | None) -> str:
    return RUNS[preset] + ("" if seed is None else f", seed {seed}")


def train_blocks(series: dict[tuple[str, int], list[dict]]) -> list:
    headers = ["run", "step", "paintings", "gate pass", "mean pairwise distance", "distinct compositions",
               "reward paid", "judge-led total"]
    rows = [[_label(*key), str(r["step"]), str(r["n"]), _fmt(r["pass"], ".0%"), _fmt(r["distance"]),
             _fmt(r["compositions"], ".2f"), _fmt(r["reward"]), _fmt(r["recipe"])]
            for key, rs in series.items() for r in rs]
    runs = {**series}
    if len(seeds_seen(series)) > 1:    # each run's steps over every seed
        for preset in RUNS:
            runs[preset, None] = [r for (p, _), rs in series.items() if p == preset for r in rs]
    over = [[_label(*key), _fmt(_mean(r["distance"] for r in rs if r["distance"] is not None)),
             _fmt(_mean(r["compositions"] for r in rs if r["compositions"] is not None), ".2f"),
             _fmt(_mean(r["recipe"] for r in rs if r["recipe"] is not None)),
             _fmt(_mean(r["pass"] for r in rs), ".0%")] for key, rs in runs.items()]
    return [("Tiny CPU run, per step", headers, rows),
            ("Over the run", ["run", "mean pairwise distance", "distinct compositions", "judge-led total",
                              "gate pass"], over)]


def noise_blocks() -> list:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_diversity import attacks, pond_high

    from brushwork.painter import paint
    from brushwork.render import RenderConfig, SyncRenderer
    from brushwork.score.diversity import DISTINCT, DUPLICATE, distance, look

    rows = []
    subjects = (("yellow hibiscus", ("off-centre", "diagonal"), {}),
                ("pink lotus", ("centred", "off-centre"),
                 {"by hand: pond high on the right": pond_high(paint(3, "pink lotus", composition="centred").code)}))
    for subject, layouts, by_hand in subjects:
        base = paint(3, subject).code
        twins = {f"painter: {c}": paint(3, subject, composition=c).code for c in layouts}
        twins |= {f"painter: seed {s} ({paint(s, subject).params['composition']})": paint(s, subject).code
                  for s in (4, 6)}
        cases = {**attacks(base), **twins, **by_hand}
        with SyncRenderer(RenderConfig(workers=2, timeout_s=60)) as renderer:
            results = renderer.render_many([base, *cases.values()])
        looks = [look(r.png) for r in results]
        for name, other in zip(cases, looks[1:]):
            d = distance(looks[0], other)
            verdict = "duplicate" if d <= DUPLICATE else "distinct" if d >= DISTINCT else "partly"
            kind = "honest" if name in twins or name in by_hand else "attack"
            rows.append([subject, kind, name, f"{d:.3f}", verdict])
    return [(f"Diversity measure against the original (duplicate <= {DUPLICATE}, distinct >= {DISTINCT})",
             ["subject", "kind", "variant", "distance", "reads as"], rows)]


def adherence_blocks(out: Path) -> list:
    from brushwork.painter import paint
    from brushwork.render import RenderConfig, SyncRenderer
    from brushwork.score.adherence import adherence

    names = [(colour, seed) for colour in PAINTED for seed in SEEDS]
    with SyncRenderer(RenderConfig(workers=2, timeout_s=60)) as renderer:
        results = renderer.render_many([paint(seed, PAINTED[colour]).code for colour, seed in names])
    right = wrong = right_n = wrong_n = 0
    misses = []
    for (painted, seed), result in zip(names, results):
        for asked in PAINTED:
            if FAMILIES[asked] == FAMILIES[painted] and asked != painted:
                continue
            value, note = adherence(result.png, f"a {asked} hibiscus")
            if asked == painted:
                right_n += 1
                right += value >= 0.5
            else:
                wrong_n += 1
                wrong += value < 0.5
            if (value >= 0.5) != (asked == painted):
                misses.append(f"{painted} (seed {seed}) asked {asked}: {value:.2f}, {note}")
    rows = [["asked = painted (paid >= 0.5)", f"{right}/{right_n}", f"{right / right_n:.1%}"],
            ["honest painting of another colour family (paid < 0.5)", f"{wrong}/{wrong_n}", f"{wrong / wrong_n:.1%}"],
            ["all", f"{right + wrong}/{right_n + wrong_n}", f"{(right + wrong) / (right_n + wrong_n):.1%}"]]
    blocks = [(f"Adherence on {len(names)} procedural hibiscus paintings ({len(PAINTED)} palettes x seeds "
               f"{', '.join(map(str, SEEDS))}), each asked every colour", ["case", "right", "accuracy"], rows)]
    if misses:
        blocks.append(("Misread", ["painting, asked, value, note"], [[m] for m in misses]))
    return blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("train", "noise", "adherence", "all"), action="append",
                        help="what to measure (repeatable; default all)")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="GRPO seeds, a pair of runs each")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-diversity")
    args = parser.parse_args()
    parts = set(args.part or ["all"])
    parts = {"train", "noise", "adherence"} if "all" in parts else parts
    blocks = []
    if "train" in parts:
        series = {key: per_step(f) for key, f in train(args.out, args.steps, args.seeds).items()}
        plot(series, HERE / "diversity.png")
        blocks += train_blocks(series)
    if "noise" in parts:
        blocks += noise_blocks()
    if "adherence" in parts:
        blocks += adherence_blocks(args.out)
    print_tables(Console(), blocks)
    command = " ".join(f"--part {p}" for p in sorted(parts))
    header = (f"## Diversity and colour adherence\n\n`benchmarks/diversity.py {command} --steps {args.steps} "
              f"--seeds {' '.join(map(str, args.seeds))}`, "
              f"{datetime.date.today()}"
              + ("; per-step figures plotted in benchmarks/diversity.png." if "train" in parts else "."))
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
