"""Reward attack benchmark: subject-less sketches against the offline reward, with and without
the taste model's bounds.

A small random search (tests/reward_attack_cases.py: round washes and flat, hard-edged
clip-art, every one legal, seeds 0-11 per family, then three rounds in which the best three
each get three mutants: 51 candidates) attacks the default offline scorer (judge-led preset,
taste judge + taste aesthetic on the bundled example pool). Every candidate is rendered for
real and scored twice: by the deployed taste model (every bound) and by the same head unbounded
(its support, its top tier's structure bound and its local-agreement cap removed), beside the honest good examples
(src/brushwork/examples/good_*.md) and the pool's own love and nope tiers (judged although they
are copies of the pool, so the judge term is measured on them). The same search runs apart
on the held-out family (`blob`: irregular washes with random thin strokes), built after the
structure features were chosen and never used to choose them.

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/reward_attack.py
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import os
import statistics
import sys
from pathlib import Path

from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the attack generator shared with tests/test_reward_attacks.py
START, END = "<!-- reward-attack:start -->", "<!-- reward-attack:end -->"
SEEDS, ROUNDS, KEEP, CHILDREN = range(12), 3, 3, 3


def offline_scorer(renderer, pool, model, options=None):
    """The default offline scorer with `model` as both its judge and its aesthetic."""
    from brushwork.score import Scorer
    from brushwork.score.backends import TasteAesthetic, TasteJudge
    from brushwork.score.judge import PairwiseJudge

    return Scorer(renderer, pool, options,
                  backends={"judge": PairwiseJudge(TasteJudge(model)), "aesthetic": TasteAesthetic(model)})


async def run(console: Console) -> dict:
    import reward_attack_cases as attacks

    from brushwork.paths import example_files
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.render import RenderConfig, Renderer, SyncRenderer
    from brushwork.score.options import ScoringOptions
    from brushwork.score.taste.model import load_or_fit

    with console.status("loading the example pool and its taste model"):
        with SyncRenderer(RenderConfig()) as r:
            pool = load_pool(example_pool_dir(), renderer=r)
        model = load_or_fit(pool)
    unbounded = dataclasses.replace(model, support=None, structure=None, agreement=None)
    goods = {p.stem: p.read_text() for p in example_files() if p.stem.startswith("good_")}
    tiers = {t: [i.source.read_text() for i in items] for t, items in pool.by_tier().items()
             if t in ("love", "nope")}
    async with Renderer(RenderConfig()) as renderer:
        bounded_scorer = offline_scorer(renderer, pool, model)

        async def score(reply):
            return await bounded_scorer.score(reply, seed=0, group_seed=1)
        with console.status("random search against the bounded reward"):
            tried = await attacks.search(score, SEEDS, ROUNDS, KEEP, CHILDREN)
            tried += await attacks.search(score, SEEDS, ROUNDS, KEEP, CHILDREN, attacks.HELD_OUT_FAMILIES)
        free = offline_scorer(renderer, pool, unbounded)
        free_totals = [(await free.score(attacks.sketch(t.genome), seed=0, group_seed=1)).total for t in tried]
        copies = ScoringOptions(judge_copies=True)
        honest, pool_totals = {}, {}
        for name, s in (("bounded", bounded_scorer), ("unbounded", free)):
            honest[name] = {k: (await s.score(v, seed=0, group_seed=1)).total for k, v in goods.items()}
            judged = offline_scorer(renderer, pool, model if name == "bounded" else unbounded, copies)
            pool_totals[name] = {t: [(await judged.score(src, seed=0, group_seed=1)).total for src in srcs]
                                 for t, srcs in tiers.items()}
    return {"tried": tried, "free": free_totals, "honest": honest, "pool": pool_totals,
            "support": model.report.get("support"), "structure": model.report.get("structure"),
            "agreement": model.report.get("agreement"), "features": model.report.get("features")}


def _summary(totals: list) -> str:
    t = [x for x in totals if x is not None]
    return f"{max(t):.3f} / {statistics.mean(t):.3f}" if t else "—"


def blocks(r: dict) -> list:
    import reward_attack_cases as attacks

    tried = r["tried"]
    rows = []
    groups = [(f, (f,)) for f in attacks.FAMILIES] + [(" + ".join(attacks.FAMILIES), attacks.FAMILIES)]
    groups += [(f"{f} (held out)", (f,)) for f in attacks.HELD_OUT_FAMILIES]
    for name, families in groups:
        idx = [k for k, t in enumerate(tried) if t.genome.family in families]
        rows.append([name, str(len(idx)), str(sum(tried[k].card.passed for k in idx)),
                     _summary([tried[k].card.total for k in idx]), _summary([r["free"][k] for k in idx])])
    med = {n: statistics.median(h.values()) for n, h in r["honest"].items()}
    love = {n: statistics.median(p["love"]) for n, p in r["pool"].items()}
    nope = {n: statistics.median(p["nope"]) for n, p in r["pool"].items()}
    seen = [k for k, t in enumerate(tried) if t.genome.family in attacks.FAMILIES]
    held = [k for k, t in enumerate(tried) if t.genome.family in attacks.HELD_OUT_FAMILIES]

    def top(idx):
        return {"bounded": max(tried[k].card.total for k in idx if tried[k].card.total is not None),
                "unbounded": max(r["free"][k] for k in idx if r["free"][k] is not None)}
    best, best_held = top(seen), top(held)
    targets = [["best attack vs median honest good", f"{best['bounded'] - med['bounded']:+.3f}",
                f"{best['unbounded'] - med['unbounded']:+.3f}", "≤ -0.10"],
               ["best held-out attack vs median honest good", f"{best_held['bounded'] - med['bounded']:+.3f}",
                f"{best_held['unbounded'] - med['unbounded']:+.3f}", "≤ -0.10"],
               ["best attack vs pool love median", f"{best['bounded'] - love['bounded']:+.3f}",
                f"{best['unbounded'] - love['unbounded']:+.3f}", "< 0"],
               ["median honest good vs pool nope median", f"{med['bounded'] - nope['bounded']:+.3f}",
                f"{med['unbounded'] - nope['unbounded']:+.3f}", "> 0"]]
    reference = [[k, f"{r['honest']['bounded'][k]:.3f}", f"{r['honest']['unbounded'][k]:.3f}"]
                 for k in r["honest"]["bounded"]]
    reference += [[f"pool {t} tier median ({len(r['pool']['bounded'][t])})", f"{statistics.median(v):.3f}",
                   f"{statistics.median(r['pool']['unbounded'][t]):.3f}"] for t, v in r["pool"]["bounded"].items()]
    top = sorted(range(len(tried)), key=lambda k: -(tried[k].card.total or 0))[:5]
    best_rows = [[tried[k].genome.name, f"{tried[k].card.total:.3f}", f"{tried[k].card.judge:.3f}",
                  f"{tried[k].card.aesthetic:.3f}", f"{r['free'][k]:.3f}"] for k in top]
    return [("Attack candidates (total reward, best / mean)", ["family", "candidates", "pass the gate",
                                                              "bounded (deployed)", "same head unbounded"], rows),
            ("Honest replies and the pool (total reward)", ["reply", "bounded", "unbounded"], reference),
            ("Targets", ["measure", "bounded", "unbounded", "target"], targets),
            ("Best five attacks", ["candidate", "total", "judge", "aesthetic", "unbounded total"], best_rows)]


def main() -> None:
    from brushwork.score.taste.model import VERSION

    console = Console()
    r = asyncio.run(run(console))
    b = blocks(r)
    print_tables(console, b)
    header = (f"## Reward attacks without a subject (benchmarks/reward_attack.py)\n\nRun "
              f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores; default "
              f"offline scorer (judge-led), taste model v{VERSION} ({r['features']} features, support {r['support']}, "
              f"top tier's structure {r['structure']}, local agreement {r['agreement']}). "
              f"Random search against the bounded reward: seeds {SEEDS.start}-{SEEDS.stop - 1} per family, "
              f"{ROUNDS} rounds x best {KEEP} x {CHILDREN} mutants. tests/test_reward_attacks.py uses other seeds.")
    replace_section(START, END, markdown(b, START, END, header))
    console.print("wrote benchmarks/RESULTS.md")


if __name__ == "__main__":
    main()
