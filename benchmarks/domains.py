"""Is an honest painting paid alike in every task domain? Held-out sketches per domain, none of
them in the pool, scored by the default preset (offline judge and aesthetic) on the bundled pool.

- hibiscus: the recipe's hibiscus sketches (benchmarks/sketches/recipe_*.js);
- landscape, flowers, leaves: benchmarks/sketches/domains/<domain>_*.js, written from the
  system prompt with the care of the hibiscus ones.

Each sketch renders at seed 0 and is judged with group seeds 0-3 (four reference draws of the
task's domain); a sketch's figure is the mean over the draws. The target: every domain's median
total within 0.1 of hibiscus. Writes its section of benchmarks/RESULTS.md; `--json FILE` writes
the per-domain medians instead, and `--before FILE` (such a file, from another checkout) adds a
before / after table.

    .venv/bin/python benchmarks/domains.py [--before before.json]
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import statistics
from pathlib import Path

from results import markdown, print_tables, replace_section
from rich.console import Console

HERE = Path(__file__).resolve().parent
START, END = "<!-- domains:start -->", "<!-- domains:end -->"
DRAWS = 4
DOMAINS = ("hibiscus", "landscape", "flowers", "leaves")


def held_out() -> list[tuple[str, str, str, str]]:
    """(name, domain, subject, reply) of every held-out sketch."""
    rows = []
    for path in sorted((HERE / "sketches").glob("recipe_*.js")):
        colour = path.stem.split("_", 2)[2].replace("_", " ")
        rows.append((path.stem, "hibiscus", f"a {colour} hibiscus", path.read_text()))
    for domain in DOMAINS[1:]:
        for path in sorted((HERE / "sketches" / "domains").glob(f"{domain}_*.js")):
            rows.append((path.stem, domain, path.stem.split("_", 1)[1].replace("_", " "), path.read_text()))
    return [(name, domain, subject, f"```js\n{code}\n```") for name, domain, subject, code in rows]


def score(rows) -> dict[str, dict]:
    """Per sketch: mean total, judge and aesthetic over the draws, and the share of its references
    drawn from its own domain."""
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    out: dict[str, dict] = {name: {"domain": domain, "totals": [], "judge": [], "aesthetic": [], "own": [],
                                   "copy": False}
                            for name, domain, _, _ in rows}
    with Pipeline(ScoringOptions(workers=2)) as pipeline:
        domain_of = {i.id: i.domain for i in pipeline.scorer.pool.items}
        knows_domains = "domains" in inspect.signature(pipeline.run_many).parameters   # main before the change
        for draw in range(DRAWS):
            extra = {"domains": [r[1] for r in rows]} if knows_domains else {}
            paintings = pipeline.run_many([r[3] for r in rows], seeds=0, group_seeds=draw,
                                          subjects=[r[2] for r in rows], **extra)
            for (name, domain, _, _), painting in zip(rows, paintings):
                card, rec = painting.card, out[name]
                if not card.passed:
                    raise SystemExit(f"{name} did not pass the gate: {[v.id for v in card.violations]}")
                rec["totals"].append(card.total)
                rec["judge"].append(card.terms["judge"])
                rec["aesthetic"].append(card.terms["aesthetic"])
                rec["own"].append(sum(domain_of.get(ref) == domain for ref, _ in card.references) / 4)
                rec["copy"] = rec["copy"] or card.copy_of is not None   # a copy of a pool painting: judge 0
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path, help="write the per-domain figures here, not RESULTS.md")
    parser.add_argument("--before", type=Path, help="per-domain figures of another checkout (--json)")
    args = parser.parse_args()
    rows = held_out()
    scored = score(rows)
    mean = statistics.fmean
    per_sketch = [(name, rec["domain"], f"{mean(rec['totals']):.3f}", f"{mean(rec['judge']):.3f}",
                   f"{mean(rec['aesthetic']):.3f}") for name, rec in scored.items()]
    summary, medians, figures = [], {}, {}
    for domain in DOMAINS:
        recs = [r for r in scored.values() if r["domain"] == domain]
        if not recs:
            continue
        totals = [mean(r["totals"]) for r in recs]
        medians[domain] = statistics.median(totals)
        figures[domain] = {"median": medians[domain], "best": max(totals),
                           "judge": statistics.median(mean(r["judge"]) for r in recs)}
        summary.append((domain, str(len(recs)), f"{medians[domain]:.3f}", f"{max(totals):.3f}",
                        f"{statistics.median(mean(r['judge']) for r in recs):.3f}",
                        f"{statistics.median(mean(r['aesthetic']) for r in recs):.3f}",
                        f"{mean(mean(r['own']) for r in recs):.0%}", str(sum(r["copy"] for r in recs))))
    gap = {d: m - medians["hibiscus"] for d, m in medians.items() if d != "hibiscus"}
    blocks = [("Per domain (mean over 4 reference draws per sketch)",
               ["domain", "sketches", "median total", "best total", "median judge", "median aesthetic",
                "references of its domain", "flagged as copies"], summary),
              ("Per sketch", ["sketch", "domain", "total", "judge", "aesthetic"], per_sketch)]
    if args.before:
        before = json.loads(args.before.read_text())
        blocks.insert(0, ("Before / after (median total, best total, median judge)",
                          ["domain", "before", "after"],
                          [(d, " / ".join(f"{before[d][k]:.3f}" for k in ("median", "best", "judge")),
                            " / ".join(f"{figures[d][k]:.3f}" for k in ("median", "best", "judge")))
                           for d in figures if d in before]))
    console = Console()
    print_tables(console, blocks)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
        return
    console.print("median gap to hibiscus: " + ", ".join(f"{d} {g:+.3f}" for d, g in gap.items()))
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (f"## Honest paintings per task domain (`benchmarks/domains.py`), run of {stamp}\n\n"
              "Held-out sketches (not in the pool), default preset (offline judge and aesthetic), bundled pool. "
              "Median gap to hibiscus: " + ", ".join(f"{d} {g:+.3f}" for d, g in gap.items()) + " (target: within "
              "0.1).")
    replace_section(START, END, markdown(blocks, START, END, header))


if __name__ == "__main__":
    main()
