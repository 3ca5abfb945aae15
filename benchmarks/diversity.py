"""Does the diversity term keep a group diverse, and does offline adherence read the colour painted?

- train: the tiny CPU run (`brushwork train --config tiny-cpu`, `--steps` GRPO steps) per GRPO
  seed with recipe-diverse at each `--diversity-weight` (the preset's 0.10 by default) and
  without the term (recipe-diverse at weight 0), every other term as the preset has it (adherence
  0.05: it pays the asked colour, which makes paintings alike, so both arms weigh it) and judge
  and aesthetic taking up or giving back the difference in their 2:1 proportion (a reward YAML
  through `--reward_file`), all from the same warmed-up weights,
  with `--train-args` forwarded to `brushwork train` (a regime where a group can collapse: a
  higher learning rate, a lower temperature). From each run's film, per step: within-group diversity
  (mean pairwise distance of the passed paintings, `score.diversity`, and the number of
  distinct compositions), the reward each run was paid, the judge-led total recomputed from the
  card's terms (the recipe's reward, comparable across runs), the gate pass rate, and how much
  of the GRPO advantage the term moved (`signal`); with minus without paired by seed with a 95 %
  interval, per weight; a PNG of them per step beside this section (benchmarks/diversity.png).
  Runs are kept per `--out` folder, one folder per scorer: the taste model that pays the judge
  and aesthetic changes between sessions, and a run is only compared with runs scored as it
  was; `--beside` shows an earlier folder's comparison from its kept runs. Each run folder records
  the git tree of src/brushwork that trained and scored it (`brushwork-tree.txt`), and a kept run
  trained under other code is named on stderr, so a change to the scorer is not compared unseen.
- noise: the diversity measure on the attacks of tests/test_diversity.py (coordinates, colours,
  stroke order, tiny strokes, all at once) and on honest layouts of the same subject, for the
  procedural yellow hibiscus and pink lotus.
- adherence: a labelled set of procedural hibiscus paintings, one per palette and seed, each
  asked for every colour: asked = painted must score >= 0.5, an honest painting of another
  colour family < 0.5 (colours of one family, such as peach and coral, are not scored).

    .venv/bin/python benchmarks/diversity.py [--part train|noise|adherence|all ...] [--steps 4] [--seeds 0 1 2]
        [--diversity-weight 0.1 0.3] [--train-args="--learning_rate 3e-3 --temperature 0.8 --warmup_steps 2"]
        [--out out/bench-diversity-taste10] [--beside out/bench-diversity]

The run RESULTS.md reads (groups start crowded at temperature 0.25; ~80 min on 2 cores):

    .venv/bin/python benchmarks/diversity.py --part train --steps 15 --seeds 0 1 2 3 4
        --train-args="--learning_rate 1.5e-3 --temperature 0.25 --warmup_steps 2" --out out/bench-diversity-collapse
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
RECIPE, WITH = "judge-led", "recipe-diverse"   # the recipe's preset; the preset with the term
DIVERSITY = "brushwork.score.diversity:DiversityTerm"
WEIGHED = f"{WITH}-diversity="     # a run with the term: its folder's name begins with this and its weight
Arm = float | None    # a run's diversity weight; None: without the term (recipe-diverse at weight 0)
FAMILIES = {"yellow": "yellow", "white": "white", "peach": "warm", "coral": "warm", "red": "warm",
            "magenta": "pink", "pink": "pink", "lilac": "purple"}
PAINTED = {"yellow": "yellow hibiscus", "white": "white hibiscus with a red eye", "peach": "peach hibiscus",
           "coral": "coral hibiscus", "red": "red hibiscus", "magenta": "magenta hibiscus", "pink": "pink hibiscus",
           "lilac": "lilac hibiscus"}
SEEDS = (11, 12, 13)


def train(out: Path, steps: int, seeds: list[int], extra: list[str],
          weights: list[float]) -> dict[tuple[Arm, int], Path]:
    """The run without the term and one with it at each of `weights` per GRPO seed, all from the
    same warmed-up weights (the tiny model's supervised warm-up, paid once in `out/warm`),
    `extra` forwarded to `brushwork train` (the regime: a learning rate, a temperature);
    (arm, seed) -> its film folder. A run whose film already reaches `steps` is kept; the runs
    still to train go two side by side (one core each)."""
    warm = out / "warm"
    if not (warm / "base" / "config.json").is_file():
        if _train(warm, ["--max_steps", "1", "--film", "false"]).wait() != 0:
            raise SystemExit("the warm-up run failed: see its output above")
    films, pending = {}, []
    for seed in seeds:
        for arm in (None, *weights):
            folder = run_folder(out, arm, steps, seed, extra)
            if _last_step(folder / "film") < steps:
                reward = ["--reward_file", str(reward_file(out, arm))]
                pending.append((folder, [*reward, "--seed", str(seed)]))
            films[arm, seed] = folder / "film"
    for first in range(0, len(pending), 2):
        running, stamp = [], code_stamp()      # the code these two runs import, as they start
        for folder, args in pending[first:first + 2]:
            shutil.rmtree(folder, ignore_errors=True)
            running.append(_train(folder, ["--max_steps", str(steps), *args, "--tiny", "false",
                                           "--model_name_or_path", str(warm / "base"), "--sft_samples", "0", *extra]))
        for process in running:
            if process.wait() != 0:
                raise SystemExit(f"brushwork train failed (exit {process.returncode}): {' '.join(process.args)}")
        for folder, _ in pending[first:first + 2]:
            (folder / STAMP).write_text(stamp + "\n")
    trained = {folder for folder, _ in pending}
    warn_if_other_code({key: film for key, film in films.items() if film.parent not in trained}, code_stamp())
    return films


def kept(out: Path, steps: int, extra: list[str]) -> dict[tuple[Arm, int], Path]:
    """The runs already in `out` (an earlier comparison, under the scorer of its day), never
    trained: every seed whose run without the term reaches `steps`, and every weight whose runs
    reach it for all those seeds."""
    prefix, suffix = f"{arm_name(None)}-{steps}-s", f"-{regime_tag(extra)}" if extra else ""
    names = [f.name[len(prefix):len(f.name) - len(suffix)] for f in out.glob(f"{prefix}*{suffix}")]
    seeds = sorted(int(n) for n in names if n.isdigit() and _last_step(run_folder(out, None, steps, int(n), extra)
                                                                        / "film") >= steps)
    found = {float(f.name[len(WEIGHED):].split("-", 1)[0]) for f in out.glob(f"{WEIGHED}*")}
    films = {}
    for arm in (None, *sorted(found)):
        runs = {seed: run_folder(out, arm, steps, seed, extra) / "film" for seed in seeds}
        if all(_last_step(film) >= steps for film in runs.values()):
            films |= {(arm, seed): film for seed, film in runs.items()}
    if len(films) == len(seeds):
        raise SystemExit(f"--beside {out}: no runs with and without the term reach {steps} steps under these "
                         f"--train-args; run them with --out {out} first")
    warn_if_other_code(films, code_stamp())
    return films


def run_folder(out: Path, arm: Arm, steps: int, seed: int, extra: list[str]) -> Path:
    return out / "-".join([arm_name(arm), str(steps), f"s{seed}", *([regime_tag(extra)] if extra else [])])


STAMP = "brushwork-tree.txt"     # in each run folder: the code that trained and scored it


def code_stamp() -> str:
    """The git tree of src/brushwork (the trainer and the scorer, the taste model and its bundled pool
    included), marked when the working tree differs from it; "unknown" outside a git checkout."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()

    tree = git("rev-parse", "HEAD:src/brushwork")
    if not tree:
        return "unknown"
    return tree + (" with uncommitted changes" if git("status", "--porcelain", "--", "src/brushwork") else "")


def warn_if_other_code(films: dict[tuple[Arm, int], Path], stamp: str) -> None:
    """Kept runs are compared as they were trained; say which ones other code trained and scored."""
    for film in films.values():
        recorded = film.parent / STAMP
        was = recorded.read_text().strip() if recorded.is_file() else "not recorded"
        if was != stamp:
            print(f"note: {film.parent} was trained under src/brushwork {was} (now {stamp}); delete it, or pass "
                  f"another --out, to train it again under this code", file=sys.stderr)


def arm_weights(arm: Arm) -> dict[str, float]:
    """recipe-diverse with the diversity term at the arm's weight (None: 0, the run without it):
    the judge and aesthetic give up (or take back) the difference in their own 2:1 proportion,
    every other term as the preset has it, so the preset's own weight gives the preset."""
    from brushwork.score.reward import PRESET_WEIGHTS

    weight = 0.0 if arm is None else arm
    weights = dict(PRESET_WEIGHTS[WITH])
    shared = weights["judge"] + weights["aesthetic"]
    scale = (shared - weight + weights[DIVERSITY]) / shared
    if not ((arm is None or weight > 0) and scale > 0):
        raise SystemExit(f"--diversity-weight {weight:g}: give a weight above 0 and below "
                         f"{shared + weights[DIVERSITY]:g} (what the judge and aesthetic can give up)")
    return weights | {"judge": round(weights["judge"] * scale, 4), "aesthetic": round(weights["aesthetic"] * scale, 4),
                      DIVERSITY: weight}


def reward_file(out: Path, arm: Arm) -> Path:
    """The reward YAML (`brushwork train --reward_file`) of an arm's runs."""
    import yaml

    from brushwork.score.reward import RewardConfig

    path = out / f"reward-{arm_name(arm)}.yaml"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"weights": arm_weights(arm)}, sort_keys=False))
    RewardConfig.from_yaml(path)      # refused here, with its reason, rather than in a training run
    return path


def arm_name(arm: Arm) -> str:
    """An arm's runs' folder name: the weight is in it, so runs at two weights never mix."""
    return f"{WITH}-without-diversity" if arm is None else f"{WEIGHED}{arm:g}"


def regime_tag(extra: list[str]) -> str:
    """The run folders' name for a regime: `--learning_rate 2e-3 --temperature 0.8` ->
    `learning_rate=2e-3,temperature=0.8`."""
    pairs = zip(extra[::2], extra[1::2])
    return ",".join(f"{key.lstrip('-')}={value}" for key, value in pairs)


def _train(folder: Path, args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "brushwork", "train", "--config", "tiny-cpu", "--output_dir",
                             str(folder), "--report_to", "none", *args], cwd=ROOT)


def _last_step(film: Path) -> int:
    from brushwork.train.film import read_film

    if not (film / "index.jsonl").is_file():
        return 0
    return max((frame.step for frame in read_film(film)), default=0)


def per_step(film: Path) -> list[dict]:
    from brushwork.score.diversity import compositions, pairwise
    from brushwork.score.reward import PRESET_WEIGHTS
    from brushwork.train.film import read_film

    frames = [f for f in read_film(film) if f.final]
    rows = []
    for step in sorted({f.step for f in frames}):
        these = [f for f in frames if f.step == step]
        groups: dict[int, list] = {}
        for f in these:
            groups.setdefault(f.group, []).append(f)
        passed = [[(film / f.png_file).read_bytes() for f in group if f.passed and f.png_file]
                  for group in groups.values()]
        spreads = [d for pngs in passed if len(pngs) > 1 for d in pairwise(pngs)]
        kinds = [compositions(pngs) for pngs in passed if len(pngs) > 1]
        paid = [f.card.total for f in these if f.card.total is not None]
        recipe = [sum(w * (f.terms.get(t) or 0.0) for t, w in PRESET_WEIGHTS[RECIPE].items()) if f.passed else 0.0
                  for f in these if f.card.total is not None]
        moved = [signal(group) for group in groups.values()]
        moved = [m for m in moved if m is not None]
        rows.append({"step": step, "n": len(these), "pass": sum(f.passed for f in these) / len(these),
                     "distance": _mean(spreads), "compositions": _mean(kinds), "reward": _mean(paid),
                     "recipe": _mean(recipe), "moved": _mean(m[0] for m in moved),
                     "reordered": _mean(m[1] for m in moved)})
    return rows


def signal(group: list) -> tuple[float, float] | None:
    """How much of one group's GRPO advantage (reward minus the group's mean: the recipe's
    scale_rewards none) the diversity term moved: (the share of the advantage's absolute size
    that differs from paying every member the term's full 1, as a painting alone is paid; the
    share of member pairs the term put in another order). None where the term is not weighed
    or fewer than two members have a reward."""
    from brushwork.score.reward import total

    scored = [f.card for f in group if f.card.total is not None]
    if len(scored) < 2 or not any(c.weights.get("diversity", 0) > 0 for c in scored):
        return None
    paid = [c.total for c in scored]
    flat = [total(c.weights, c.passed, {**c.terms, "diversity": 1.0}) for c in scored]
    a, b = _centred(paid), _centred(flat)
    size = sum(abs(x) for x in a)
    moved = sum(abs(x - y) for x, y in zip(a, b)) / size if size > 1e-12 else 0.0
    pairs = [(i, j) for i in range(len(a)) for j in range(i + 1, len(a))]
    reordered = sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in pairs) / len(pairs)
    return moved, reordered


def _centred(values: list[float]) -> list[float]:
    mean = sum(values) / len(values)
    return [v - mean for v in values]


def _mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def _fmt(x, spec=".3f") -> str:
    return "–" if x is None else format(x, spec)


METRICS = (("distance", "mean pairwise distance", ".3f"), ("compositions", "distinct compositions (of 8)", ".2f"),
           ("recipe", "judge-led total", ".3f"), ("pass", "gate pass rate", ".1%"))
SIGNAL = (("moved", "share of the advantage the term moved", ".1%"),
          ("reordered", "share of member pairs it reordered", ".1%"))
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def plot(series: dict[tuple[Arm, int], list[dict]], path: Path) -> None:
    """Per step, each run as a faint line and each arm's mean over its seeds as a bold one, one colour an
    arm: with several seeds, the per-seed lines alone are a tangle the eye cannot pair."""
    from matplotlib.figure import Figure

    panels = (*METRICS, SIGNAL[0])
    arms, seeds = arms_seen(series), seeds_seen(series)
    fig = Figure(figsize=(3 * len(panels), 3.4))
    for k, (key, title, _) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), k + 1)
        for n, arm in enumerate(arms):
            colour = f"C{n % 10}"
            by_step: dict[int, list[float]] = {}
            for seed in seeds:
                points = [(r["step"], r[key]) for r in series.get((arm, seed), []) if r[key] is not None]
                for step, value in points:
                    by_step.setdefault(step, []).append(value)
                if points:
                    ax.plot(*zip(*points), linewidth=0.7, alpha=0.3, color=colour)
            if by_step:
                steps = sorted(by_step)
                ax.plot(steps, [_mean(by_step[s]) for s in steps], linewidth=2, marker="o", markersize=3,
                        color=colour, label=f"{_label(arm)}: mean over {len(seeds)} seed{'s' * (len(seeds) > 1)}")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("step", fontsize=8)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(arms), fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=100)


def seeds_seen(series) -> list[int]:
    return sorted({seed for _, seed in series})


def arms_seen(series) -> list[Arm]:
    """Without the term first, then the weights from the smallest."""
    return sorted({arm for arm, _ in series}, key=lambda arm: -1.0 if arm is None else arm)


def _label(arm: Arm, seed: int | None = None) -> str:
    weights = arm_weights(arm)
    shares = f"judge {weights['judge']:g}, aesthetic {weights['aesthetic']:g}"
    label = f"without the term ({WITH} at 0" if arm is None else f"with the term at {arm:.2f} ({WITH}"
    label += f", {shares})"
    return label + ("" if seed is None else f", seed {seed}")


def _short(arm: Arm) -> str:
    return "without" if arm is None else f"with {arm:.2f}"


def _over(rows: list[dict], key: str, first: int = 0) -> float | None:
    return _mean(r[key] for r in rows if r[key] is not None and r["step"] > first)


def train_blocks(series: dict[tuple[Arm, int], list[dict]], steps: int, where: str) -> list:
    """The tables of one comparison (the runs in one folder, `where`, under one scorer)."""
    seeds, arms = seeds_seen(series), arms_seen(series)
    weighed = [arm for arm in arms if arm is not None]
    headers = ["step", *(f"{title}: {_short(arm)}" for _, title, _ in METRICS for arm in arms),
               *(f"{title}: {_short(arm)}" for _, title, _ in SIGNAL for arm in weighed)]

    def at(step: int, arm: Arm, key: str, spec: str) -> str:
        values = [r[key] for seed in seeds for r in series[arm, seed] if r["step"] == step and r[key] is not None]
        return _fmt(_mean(values), spec)

    rows = [[str(step), *(at(step, arm, key, spec) for key, _, spec in METRICS for arm in arms),
             *(at(step, arm, key, spec) for key, _, spec in SIGNAL for arm in weighed)] for step in range(1, steps + 1)]
    per_seed = [[_label(arm, seed), *(_fmt(_over(series[arm, seed], key), spec) for key, _, spec in METRICS),
                 *(_fmt(_over(series[arm, seed], key), spec) if arm is not None else "–" for key, _, spec in SIGNAL)]
                for seed in seeds for arm in arms]
    blocks = [(f"Tiny CPU run, per step (mean over seeds {', '.join(map(str, seeds))})", headers, rows),
              ("Each run over all its steps", ["run", *(t for _, t, _ in METRICS), *(t for _, t, _ in SIGNAL)],
               per_seed),
              *(paired_block(series, steps, arm) for arm in weighed)]
    return [(f"{where}: {title}", headers, rows) for title, headers, rows in blocks]


def paired_block(series: dict[tuple[Arm, int], list[dict]], steps: int, arm: float) -> tuple:
    """With the term at `arm` minus without, paired by seed, each seed's difference of its two
    runs' means over the run (all steps: the figure the issue asks for; the last third: where a
    collapse would show), with a 95 % t interval over seeds."""
    seeds = seeds_seen(series)
    rows = []
    for label, first in (("all steps", 0), (f"steps {steps - steps // 3 + 1}-{steps}", steps - steps // 3)):
        for key, title, spec in METRICS:
            pairs = [(_over(series[arm, s], key, first), _over(series[None, s], key, first)) for s in seeds]
            diffs = [w - wo for w, wo in pairs if None not in (w, wo)]
            mean, half = _interval(diffs)
            spec = "+.1%" if spec == ".1%" else "+.3f"
            rows.append([label, title, ", ".join(format(d, spec) for d in diffs), _fmt(mean, spec),
                         "–" if half is None else f"[{format(mean - half, spec)}, {format(mean + half, spec)}]"])
    return (f"With the term at {arm:.2f} minus without, paired by seed ({len(seeds)} seed{'s' * (len(seeds) > 1)}; "
            f"over steps with 2 or more passed for the diversity measures)",
            ["steps", "measure", "per seed", "mean", "95 % interval"], rows)


def _interval(values: list[float]) -> tuple[float | None, float | None]:
    n = len(values)
    if n == 0:
        return None, None
    mean = sum(values) / n
    if n == 1:
        return mean, None
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    return mean, T975.get(n - 1, 1.96) * sd / n ** 0.5


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


def _where(out: Path) -> str:
    out = out.resolve()
    return str(out.relative_to(ROOT)) if out.is_relative_to(ROOT) else str(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("train", "noise", "adherence", "all"), action="append",
                        help="what to measure (repeatable; default all)")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="GRPO seeds, a pair of runs each")
    parser.add_argument("--train-args", default="", help="forwarded to `brushwork train` (pairs: "
                        "'--learning_rate 2e-3 --temperature 0.8'), stated in the header")
    parser.add_argument("--diversity-weight", type=float, nargs="+", default=[0.1],
                        help="the runs with the term, one per weight (recipe-diverse's judge and aesthetic give up "
                        "the difference 2:1; 0.1 is the preset)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-diversity",
                        help="where the runs are trained and kept (a folder per scorer: runs scored by two "
                        "versions of the taste model are not compared)")
    parser.add_argument("--beside", type=Path, nargs="*", default=[],
                        help="folders of earlier comparisons (another scorer's) shown beside, from their kept runs")
    args = parser.parse_args()
    parts = set(args.part or ["all"])
    parts = {"train", "noise", "adherence"} if "all" in parts else parts
    blocks = []
    if "train" in parts:
        extra = args.train_args.split()
        comparisons = {args.out: train(args.out, args.steps, args.seeds, extra, args.diversity_weight)}
        comparisons |= {out: kept(out, args.steps, extra) for out in args.beside}
        for out, films in comparisons.items():
            series = {key: per_step(film) for key, film in films.items()}
            if out == args.out:
                plot(series, HERE / "diversity.png")
            blocks += train_blocks(series, args.steps, _where(out))
    if "noise" in parts:
        blocks += noise_blocks()
    if "adherence" in parts:
        blocks += adherence_blocks(args.out)
    print_tables(Console(), blocks)
    command = " ".join(f"--part {p}" for p in sorted(parts))
    regime = f" --diversity-weight {' '.join(f'{w:g}' for w in args.diversity_weight)}" if "train" in parts else ""
    regime += f' --train-args="{args.train_args}"' if args.train_args else ""
    regime += f" --out {_where(args.out)}" if "train" in parts else ""
    regime += "".join(f" --beside {_where(out)}" for out in args.beside) if "train" in parts else ""
    header = (f"## Diversity and colour adherence\n\n`benchmarks/diversity.py {command} --steps {args.steps} "
              f"--seeds {' '.join(map(str, args.seeds))}{regime}`, {datetime.date.today()}"
              + ("; per-step figures plotted in benchmarks/diversity.png." if "train" in parts else "."))
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
