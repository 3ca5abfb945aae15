"""Active rating benchmark: does asking what the taste model is least sure of need fewer ratings?

A simulated rater rates the bundled example pool (47 paintings, tiers love / okay / nope as the
oracle; rendered once into the cache by `load_pool`). For each of several stratified splits a
fixed test set (`--test-per-tier` paintings of each tier) is held out; the rest is the pool to
rate. From the same few random seed ratings, two orders rate one painting at a time:

- active: `brushwork.score.taste.active.ActiveChooser` over a real PoolStore in a temporary
  folder (the same code as `brushwork pool serve --active`, refitting every `--refit-every`
  ratings, in the caller's thread so the run is deterministic);
- random: a seeded shuffle of the unrated paintings.

After every rating the chooser's cheap head (classical features, fixed L2) is refit on all
ratings so far and scored on the test set: pairwise accuracy per tier pair and over all
cross-tier pairs (0.5 before two tiers are rated). Writes a PNG plot under `--out` (default a
temporary folder), prints the tables and replaces its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/active_rating.py               # ~1-2 min once the pool is rendered
    .venv/bin/python benchmarks/active_rating.py --no-write    # print only
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import tempfile
from pathlib import Path

import numpy as np
from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
START, END = "<!-- active-rating:start -->", "<!-- active-rating:end -->"
TARGETS = (0.65, 0.70, 0.75)
CHECKPOINTS = (6, 10, 15, 20, 25, 30)


def pairwise(fit, c_test: np.ndarray, test_tiers: list[str], order: tuple[str, ...]) -> dict[str, float]:
    """Held-out accuracy per tier pair and overall ('all'); a missing fit scores 0.5 (chance)."""
    u = fit.utilities(c_test) if fit is not None else np.zeros(len(c_test))
    hits: dict[str, list[float]] = {}
    for i, j in itertools.permutations(range(len(test_tiers)), 2):
        a, b = order.index(test_tiers[i]), order.index(test_tiers[j])
        if a < b:
            hit = 0.5 if u[i] == u[j] else float(u[i] > u[j])
            hits.setdefault(f"{test_tiers[i]}>{test_tiers[j]}", []).append(hit)
            hits.setdefault("all", []).append(hit)
    return {k: float(np.mean(v)) for k, v in hits.items()}


def curve(order_of_ids: list[str], tier: dict[str, str], feats: dict[str, np.ndarray], c_test, test_tiers,
          tiers: tuple[str, ...]) -> list[dict[str, float]]:
    """Accuracy after each of the first n ratings of `order_of_ids` (n = 1 .. len)."""
    from brushwork.score.taste.active import fit_taste

    out = []
    for n in range(1, len(order_of_ids) + 1):
        ids = order_of_ids[:n]
        fit = fit_taste(np.stack([feats[i] for i in ids]), [tier[i] for i in ids], tiers)
        out.append(pairwise(fit if fit is not None and fit.tiers else None, c_test, test_tiers, tiers))
    return out


def active_order(store, rater: str, seeds: list[str], tier: dict[str, str], refit_every: int, cache,
                 spread: float) -> list[str]:
    """The order the chooser asks for, the simulated rater answering with the oracle's tier."""
    from brushwork.score.taste.active import ActiveChooser

    chooser = ActiveChooser(store, refit_every=refit_every, spread=spread, background=False, cache=cache)
    for item in seeds:
        store.rate(item, rater, tier[item])
    order = list(seeds)
    while (choice := chooser.next_item(rater)) is not None:
        store.rate(choice.ids[0], rater, tier[choice.ids[0]])
        order.append(choice.ids[0])
    return order


def simulate(args, console) -> dict:
    from brushwork.pool import TIERS, example_pool_dir, load_pool
    from brushwork.pool.store import PoolStore
    from brushwork.score.taste.model import FeatureCache

    pool = load_pool(example_pool_dir())
    items = [i for i in pool.items if i.tier in TIERS]
    cache = FeatureCache()
    runs: dict[str, list[list[dict]]] = {"active": [], "random": []}
    with tempfile.TemporaryDirectory(prefix="brushwork-active-") as tmp:
        for split in range(args.splits):
            rng = np.random.default_rng(1000 + split)
            test = [i for t in TIERS for i in rng.permutation([i for i in items if i.tier == t])[:args.test_per_tier]]
            rest = [i for i in items if i not in test]
            store = PoolStore.init(Path(tmp) / f"split{split}")
            ids = {i.id: store.add_item(i.image_bytes(), subject=i.subject) for i in rest}
            tier = {ids[i.id]: i.tier for i in rest}
            feats = {ids[i.id]: cache.classical(i.image_bytes()) for i in rest}
            c_test = np.stack([cache.classical(i.image_bytes()) for i in test])
            test_tiers = [i.tier for i in test]
            for seed in range(args.seeds):
                r = np.random.default_rng(split * 100 + seed)
                pool_ids = sorted(tier)
                seeds = [str(x) for x in r.choice(pool_ids, args.seed_ratings, replace=False)]
                rand = seeds + [str(x) for x in r.permutation([i for i in pool_ids if i not in seeds])]
                act = active_order(store, f"sim-{seed}", seeds, tier, args.refit_every, cache, args.spread)
                for name, order in (("active", act), ("random", rand)):
                    runs[name].append(curve(order, tier, feats, c_test, test_tiers, TIERS))
            console.print(f"split {split + 1}/{args.splits}: {len(rest)} to rate, {len(test)} held out")
    return {"runs": runs, "pool": len(items), "rate": len(items) - 3 * args.test_per_tier}


def needed(run: list[dict], target: float) -> int | None:
    """Ratings from which on the run's overall accuracy stays at or above `target` (a curve this
    noisy crosses a line by chance long before it holds it); None if it ends below."""
    below = [n + 1 for n, acc in enumerate(run) if acc["all"] < target - 1e-9]
    if below and below[-1] == len(run):
        return None
    return below[-1] + 1 if below else 1


def spread(values: list[float], fmt: str = "{:.3f}") -> str:
    q = np.percentile(values, [25, 50, 75])
    return f"{fmt.format(q[1])} [{fmt.format(q[0])}, {fmt.format(q[2])}]"


def tables(result: dict) -> list:
    runs = result["runs"]
    rows = []
    for target in TARGETS:
        row = [f"{target:.2f}"]
        for name in ("active", "random"):
            ns = [needed(r, target) for r in runs[name]]
            got = [n for n in ns if n is not None]
            row.append((spread(got, "{:.0f}") if got else "never") + f" ({len(got)}/{len(ns)} runs)")
        rows.append(row)
    pairs_ = sorted({k for r in runs["active"] for acc in r for k in acc if k != "all"})
    acc_rows = []
    for n in CHECKPOINTS:
        if n > len(runs["active"][0]):
            continue
        for name in ("active", "random"):
            at = [r[n - 1] for r in runs[name]]
            acc_rows.append([str(n), name, spread([a["all"] for a in at])]
                            + [spread([a.get(p, 0.5) for a in at]) for p in pairs_])
    diff = [np.mean([a["all"] for a in ra]) - np.mean([b["all"] for b in rr])
            for ra, rr in zip(runs["active"], runs["random"])]
    summary = [["runs per order (splits x seeds)", str(len(runs["active"]))],
               ["mean over the curve, active - random (paired by run)", spread(diff, "{:+.3f}")],
               ["runs where active's curve is higher on average", f"{sum(d > 0 for d in diff)}/{len(diff)}"]]
    return [("Ratings from which held-out pairwise accuracy stays at or above a level "
             "(median, quartiles in brackets, over runs)",
             ["accuracy", "active", "random"], rows),
            ("Held-out pairwise accuracy after n ratings (median, quartiles in brackets, over runs)",
             ["n", "order", "all pairs"] + pairs_, acc_rows),
            ("Summary", ["measure", "value"], summary)]


def plot(result: dict, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ["all"] + sorted({k for r in result["runs"]["active"] for acc in r for k in acc if k != "all"})
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 3.6), sharey=True)
    for ax, key in zip(axes, keys):
        for name, colour in (("active", "#5f8a6b"), ("random", "#a9584f")):
            acc = np.array([[a.get(key, 0.5) for a in r] for r in result["runs"][name]])
            n = np.arange(1, acc.shape[1] + 1)
            lo, mid, hi = np.percentile(acc, [25, 50, 75], axis=0)
            ax.plot(n, mid, color=colour, label=name)
            ax.fill_between(n, lo, hi, color=colour, alpha=0.18)
        ax.set_title(key if key != "all" else "all cross-tier pairs")
        ax.set_xlabel("ratings")
        ax.axhline(0.5, color="#999", lw=0.6)
    axes[0].set_ylabel("held-out pairwise accuracy")
    axes[0].legend(loc="lower right")
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / "active_rating.png"
    fig.savefig(path, dpi=110)
    return path


def checkout() -> str:
    """HEAD, and whether the taste code the chooser imports has uncommitted changes."""
    import subprocess

    git = lambda *a: subprocess.run(["git", *a], capture_output=True, text=True, cwd=HERE.parent).stdout.strip()  # noqa: E731
    dirty = git("status", "--porcelain", "--", "src/brushwork/score/taste", "src/brushwork/core/features.py")
    return git("rev-parse", "--short", "HEAD") + (" with uncommitted changes to " + ", ".join(
        line.split(maxsplit=1)[1] for line in dirty.splitlines()) if dirty else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--splits", type=int, default=5, help="stratified test sets")
    ap.add_argument("--seeds", type=int, default=4, help="seed-rating draws per split")
    ap.add_argument("--test-per-tier", type=int, default=4)
    ap.add_argument("--seed-ratings", type=int, default=3)
    ap.add_argument("--refit-every", type=int, default=3, help="as `pool serve --active`")
    ap.add_argument("--spread", type=float, default=0.1, help="the chooser's subject-spread penalty")
    ap.add_argument("--out", type=Path, default=None, help="folder for the PNG plot (default: a temp dir)")
    ap.add_argument("--no-write", action="store_true", help="do not touch RESULTS.md")
    args = ap.parse_args()
    console = Console()
    result = simulate(args, console)
    blocks = tables(result)
    print_tables(console, blocks)
    path = plot(result, args.out or Path(tempfile.mkdtemp(prefix="brushwork-active-plot-")))
    console.print(f"plot: {path}")
    if not args.no_write:
        when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = (f"## Active rating vs random order (benchmarks/active_rating.py), run of {when}\n\n"
                  f"Example pool ({result['pool']} paintings), {args.splits} stratified splits holding out "
                  f"{args.test_per_tier} per tier, {result['rate']} to rate, {args.seeds} seed draws of "
                  f"{args.seed_ratings} ratings each; chooser refit every {args.refit_every} ratings, subject "
                  f"spread {args.spread}; accuracy of the chooser's own head (classical features, L2 100) "
                  f"refit after every rating. Checkout: {checkout()}.")
        replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
