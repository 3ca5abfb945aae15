"""Rating the reward's blind spots: what the policy is paid most for, rated, and the search run again.

No image statistic fitted on a few dozen rated paintings knows that a wash with a few thin dark
strokes is not a flower: the held-out `blob` family (tests/reward_attack_cases.py) lies inside
the bundled pool's support and is paid like its loved tier (benchmarks/reward_attack.py). The
remedy that does not depend on guessing the next attack is the one a person applies: show the
rater what the reward pays most for, let them rate it, refit. This benchmark simulates that loop.

1. A random search (seeds 0-11 of `blob`, 3 rounds x best 3 x 3 mutants) against the deployed
   reward (default offline scorer, taste model fit on the bundled pool) finds the policy's
   favourites.
2. A rater rates `RATED` of them `nope` (none paints the subject it was asked for): the best
   paid of each lineage, since a seed and its mutants are one painting moved about, which a
   person would rate once. Through the real pool store: the bundled pool imported into a fresh
   SQLite store, the paintings added and rated there, the store exported and loaded (what
   `brushwork pool add-rollouts` and the rating page do for a person).
3. The taste model is refit on that pool by the same procedure (features and L2 chosen by the
   inner cross-validation), and fresh searches run against both models: `blob` on other seeds
   (none of the rated paintings or their mutants), `scribble` (a family never scored before:
   washes with long curved strokes leaving them) and the design families `wash` and `flat`, so
   that rating blobs is seen not to open another door (searched again, for the model after).

Beside them: the honest good examples, the pool's love and nope tiers (judged as if honest), and
both models' pairwise accuracy on the pool's evaluation split (paintings neither model was fit
on). Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/blind_spots.py
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import os
import statistics
import sys
import tempfile
from pathlib import Path

from results import markdown, print_tables, replace_section
from reward_attack import offline_scorer
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the attack generator shared with the tests
START, END = "<!-- blind-spots:start -->", "<!-- blind-spots:end -->"
FOUND, ROUNDS, KEEP, CHILDREN = range(12), 3, 3, 3
FRESH = range(200, 212)            # seeds no rated painting came from
RATED = 10                         # the best-paid paintings of the first search the rater rates
FAMILIES = ("blob", "scribble", "wash", "flat")


def rated_pool(pool_dir: Path, paintings: list[tuple[bytes, str]], tier: str, out: Path):
    """The pool at `pool_dir` with `paintings` ((png, reply) pairs) added and rated `tier`, built
    through the pool store as a person's ratings are."""
    from brushwork.pool import load_pool
    from brushwork.pool.hf import export_hf, import_hf
    from brushwork.pool.store import PoolStore

    store = PoolStore.init(out / "store")
    try:
        import_hf(store, pool_dir)
        for png, reply in paintings:
            item = store.add_item(png, reply, generator="policy (random search)", split="train")
            store.rate(item, "rater", tier)
        export_hf(store, out / "pool")
    finally:
        store.close()
    return load_pool(out / "pool")


def eval_accuracy(model, pool) -> dict[str, float]:
    """Pairwise accuracy on the pool's evaluation split, per tier pair."""
    items = list(pool.split("eval"))
    u = {i.id: model.utility(i.image_bytes()) for i in items}
    rank = {t: k for k, t in enumerate(model.tiers)}
    hits: dict[str, list[int]] = {}
    for a, b in itertools.permutations(items, 2):
        if a.tier in rank and b.tier in rank and rank[a.tier] < rank[b.tier]:
            hits.setdefault(f"{a.tier}>{b.tier}", []).append(int(u[a.id] > u[b.id]))
    return {k: sum(v) / len(v) for k, v in sorted(hits.items())}


async def run(console: Console) -> dict:
    import reward_attack_cases as attacks

    from brushwork.paths import example_files
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.render import RenderConfig, Renderer, SyncRenderer
    from brushwork.score.options import ScoringOptions
    from brushwork.score.taste.model import fit, load_or_fit
    from brushwork.sketch import extract_sketch

    with console.status("loading the example pool and its taste model"):
        with SyncRenderer(RenderConfig()) as r:
            pool = load_pool(example_pool_dir(), renderer=r)
        before = load_or_fit(pool)
    goods = {p.stem: p.read_text() for p in example_files() if p.stem.startswith("good_")}
    tiers = {t: [i.source.read_text() for i in items] for t, items in pool.by_tier().items() if t in ("love", "nope")}
    out: dict = {"models": {}}
    async with Renderer(RenderConfig()) as renderer:
        deployed = offline_scorer(renderer, pool, before)

        async def score_before(reply):
            return await deployed.score(reply, seed=0, group_seed=1)
        with console.status("finding the policy's favourites (blob search against the deployed reward)"):
            found = await attacks.search(score_before, FOUND, ROUNDS, KEEP, CHILDREN, ("blob",))
        best, roots = [], set()
        for t in sorted((t for t in found if t.card.total is not None), key=lambda t: -t.card.total):
            root = t.genome.name.split(".")[0]      # one painting per lineage: a rater asked once per kind
            if root not in roots and len(best) < RATED:
                roots.add(root)
                best.append(t)
        paintings = []
        for t in best:
            reply = attacks.sketch(t.genome)
            paintings.append(((await renderer.render(extract_sketch(reply).code, seed=0)).png, reply))
        with tempfile.TemporaryDirectory() as tmp, console.status(f"rating {RATED} of them nope and refitting"):
            pool_after = rated_pool(example_pool_dir(), paintings, "nope", Path(tmp))
            after = fit(pool_after)
            for name, model, p in (("before", before, pool), ("after", after, pool_after)):
                scorer = deployed if name == "before" else offline_scorer(renderer, p, model)

                async def score(reply, scorer=scorer):
                    return await scorer.score(reply, seed=0, group_seed=1)
                with console.status(f"fresh searches against the model {name} rating"):
                    tried = await attacks.search(score, FRESH, 1, KEEP, CHILDREN, FAMILIES)
                judged = offline_scorer(renderer, p, model, ScoringOptions(judge_copies=True))
                out["models"][name] = {
                    "tried": tried,
                    "honest": {k: (await score(v)).total for k, v in goods.items()},
                    "pool": {t: [(await judged.score(s, seed=0, group_seed=1)).total for s in srcs]
                             for t, srcs in tiers.items()},
                    "eval": eval_accuracy(model, pool),
                    "report": {k: model.report.get(k) for k in ("pairwise_accuracy", "features", "l2")}}
    out["found"] = [(t.genome.name, t.card.total) for t in best]
    return out


def blocks(r: dict) -> list:
    m = r["models"]

    def fam(name, family):
        totals = [t.card.total for t in m[name]["tried"] if t.genome.family == family and t.card.total is not None]
        return f"{max(totals):.3f} / {statistics.mean(totals):.3f}", max(totals)
    med = {n: statistics.median(v["honest"].values()) for n, v in m.items()}
    love = {n: statistics.median(v["pool"]["love"]) for n, v in m.items()}
    attacks = [[f, str(sum(t.genome.family == f for t in m["before"]["tried"])), fam("before", f)[0],
                fam("after", f)[0]] for f in FAMILIES]
    honest = [[k, f"{m['before']['honest'][k]:.3f}", f"{m['after']['honest'][k]:.3f}"] for k in m["before"]["honest"]]
    honest += [["median honest good", f"{med['before']:.3f}", f"{med['after']:.3f}"]]
    honest += [[f"pool {t} tier median ({len(v)})", f"{statistics.median(v):.3f}",
                f"{statistics.median(m['after']['pool'][t]):.3f}"] for t, v in m["before"]["pool"].items()]
    targets = [[f"best {f} vs median honest good", f"{fam('before', f)[1] - med['before']:+.3f}",
                f"{fam('after', f)[1] - med['after']:+.3f}", "≤ -0.10"] for f in FAMILIES]
    targets += [["median honest good vs pool love median", f"{med['before'] - love['before']:+.3f}",
                 f"{med['after'] - love['after']:+.3f}", "—"]]
    accuracy = [[pair, f"{m['before']['eval'][pair]:.3f}", f"{m['after']['eval'][pair]:.3f}"]
                for pair in m["before"]["eval"]]
    nested = {n: v["report"]["pairwise_accuracy"] for n, v in m.items()}
    accuracy += [[f"nested CV {pair} (training split)", f"{nested['before'][pair]:.3f}", f"{nested['after'][pair]:.3f}"]
                 for pair in nested["before"]]
    accuracy.append(["features, l2", f"{m['before']['report']['features']}, {m['before']['report']['l2']:g}",
                     f"{m['after']['report']['features']}, {m['after']['report']['l2']:g}"])
    rated = [[name, f"{total:.3f}"] for name, total in r["found"]]
    return [("Rated nope (the best-paid blobs of the first search)", ["candidate", "total before rating"], rated),
            (f"Fresh searches (seeds {FRESH.start}-{FRESH.stop - 1}, one round of mutants; total, best / mean)",
             ["family", "candidates", "before rating", "after rating"], attacks),
            ("Honest replies and the pool (total reward)", ["reply", "before rating", "after rating"], honest),
            ("Targets", ["measure", "before rating", "after rating", "target"], targets),
            ("Pairwise accuracy of the taste model", ["measure", "before rating", "after rating"], accuracy)]


def main() -> None:
    console = Console()
    r = asyncio.run(run(console))
    b = blocks(r)
    print_tables(console, b)
    header = (f"## Rating the reward's blind spots (benchmarks/blind_spots.py)\n\nRun "
              f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores; default "
              f"offline scorer (judge-led). {RATED} of the best-paid candidates (the best of each lineage) "
              f"of a `blob` search (seeds {FOUND.start}-{FOUND.stop - 1}, "
              f"{ROUNDS} rounds x best {KEEP} x {CHILDREN} mutants) against the "
              "deployed reward are rated `nope` in a pool store holding the bundled pool, the taste model is "
              "refit on it by the same procedure, and fresh searches run against the models before and after. "
              "The pairwise accuracies on the evaluation split compare the bundled pool's own paintings only; the "
              "nested CV after rating counts the rated paintings among the nope tier.")
    replace_section(START, END, markdown(b, START, END, header))
    console.print("wrote benchmarks/RESULTS.md")


if __name__ == "__main__":
    main()
