"""Commands of the scoring layer: score, taste fit, judge audit, serve-hpsv3."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli import exits
from brushwork.cli.common import (
    FilesArg,
    SeedOpt,
    app,
    console,
    out,
    progress,
    with_settings,
)
from brushwork.core.settings import settings
from brushwork.score.options import PoolSettings, ScoringOptions

taste_app = typer.Typer(no_args_is_help=True, help="The personal taste model (the offline judge and aesthetic).")
judge_app = typer.Typer(no_args_is_help=True, help="Inspect the pairwise judge.")
app.add_typer(taste_app, name="taste")
app.add_typer(judge_app, name="judge")

POOL_KEYS = tuple(f.name for f in settings(PoolSettings))
JUDGE_KEYS = (*POOL_KEYS, "judge", "judge_url", "judge_model", "judge_prompt", "judge_concurrency",
              "judge_attempts", "taste_model")


def _pool(path: Path | None, snapshot: str | None = None):
    from brushwork.pool.snapshot import load_pool_with_progress

    return load_pool_with_progress(path, progress, snapshot=snapshot)


def _fail(e: Exception):
    exits.fail(e)


def _taste_choices(features: str, split: str = "all", l2: float | None = None, dims: int | None = None) -> None:
    """Exit 2 on a taste option that cannot work (a name outside its set, embeddings not installed,
    no candidate with these components) before the pool loads: its first use renders it."""
    from brushwork.errors import BrushworkError
    from brushwork.score.taste.evaluate import SPLITS, procedures_for

    if split not in SPLITS:
        exits.fail(f"--split {split!r} is not a split: choose one of {', '.join(SPLITS)}")
    try:
        procedures_for(features, l2, dims)
    except BrushworkError as e:
        _fail(e)


@app.command()
@with_settings(ScoringOptions)
def score(
    files: list[Path] = FilesArg,
    seed: int = SeedOpt,
    group_seed: int = typer.Option(None, min=0, max=2**32 - 1, help="reference draw seed (default: the render seed)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON ScoreCards"),
    options: ScoringOptions = None, options_sources: dict = None,
):
    """Score replies: gate, render, pairwise judge and aesthetic, weighted like the recipe."""
    from brushwork.errors import BrushworkError
    from brushwork.score.pipeline import Pipeline

    replies = exits.read_files(files)
    try:
        pipeline = Pipeline(options, progress=progress)   # a pool folder's first use renders it: a bar
    except BrushworkError as e:
        _fail(e)

    with pipeline, progress() as bar:
        task = bar.add_task("scoring", total=len(files))

        cards = [p.card for p in pipeline.run_many(replies, seeds=seed, group_seeds=group_seed,
                                                   on_done=lambda i, p: bar.advance(task))]
    if as_json:
        typer.echo(json.dumps([{"file": str(f), **c.to_dict()} for f, c in zip(files, cards)], indent=2))
    else:
        out.print(score_table(files, cards, pipeline.reward.preset or "custom"))
    unscored = [c for c in cards if c.total is None]
    if unscored:
        exits.fail(f"{len(unscored)} of {len(cards)} reply(ies) have no total, a failure on our side and not the "
                   f"painting's: {unscored[0].infra or 'a term could not run'}", exits.INCOMPLETE)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _taste_note(taste: dict | None) -> str:
    """Why the taste model paid less than its head would: off the rated paintings, or drawing too
    little like the loved ones (held at the middle tier)."""
    if not taste:
        return ""
    if taste["support"] < 0.99:
        return f"unlike the rated paintings (taste support {taste['support']:.2f})"
    if taste.get("drawing", 1.0) < 0.99 and taste["bounded"] < taste["utility"] - 1e-6:
        return (f"draws little like the loved paintings: paid as the middle tier at most "
                f"(drawing {taste['drawing']:.2f})")
    return ""


def _judged(card) -> str:
    """How many comparisons the judge made and, where it said, whether it saw what was asked."""
    if not card.comparisons:
        return ""
    seen = card.adherence
    asked = "" if seen is None else (f", what was asked in {seen:.0%}" if seen >= 0.5 else
                                     f", not what was asked ({seen:.0%} of comparisons say it is)")
    return f"{len(card.comparisons)} comparisons{asked}"


def score_table(files, cards, preset: str) -> Table:
    from brushwork.score.terms import term_names

    names = term_names(*(c.terms for c in cards))
    table = Table("file", *names, "total", "notes", title=f"reward ({preset})")
    for f, c in zip(files, cards):
        notes = c.infra or ", ".join(dict.fromkeys(v.id for v in c.violations)) or \
            (f"copies {c.copy_of.describe()}" if c.copy_of else "") or _taste_note(c.taste) or \
            _judged(c)
        warnings = ", ".join(dict.fromkeys(f"{n.id}" + (f" (line {n.line})" if n.line else "") for n in c.notes))
        notes = "; ".join(x for x in (notes, f"warning: {warnings}" if warnings else "") if x)
        total = "[yellow]None[/]" if c.total is None else f"[bold]{c.total:.3f}[/]"
        table.add_row(str(Path(f).name), *(_fmt(c.terms.get(t)) for t in names), total, notes)
    return table


@taste_app.command("fit")
@with_settings(ScoringOptions, keys=POOL_KEYS)
def taste_fit(
    output: Path = typer.Option(Path("taste.json"), "-o", "--out", help="where the fitted model is saved"),
    l2: float = typer.Option(None, min=0, help="L2 regularisation of the preference head (default: chosen by inner "
                             "CV)"),
    folds: int = typer.Option(5, min=2, help="cross-validation folds"),
    features: str = typer.Option("auto", help="auto (chosen by inner CV), classical, embedding or both"),
    ablation: bool = typer.Option(True, help="also report each kind of features on its own (nested CV)"),
    options: ScoringOptions = None, options_sources: dict = None,
):
    """Fit the taste model on a pool's tiers; report nested cross-validated pairwise accuracy."""
    from brushwork.errors import BrushworkError
    from brushwork.score.taste.model import fit

    _taste_choices(features, l2=l2)
    try:
        pool = _pool(options.pool, options.snapshot)
        with console.status("measuring paintings (classical features, image embeddings) and fitting"):
            model = fit(pool, l2=l2, folds=folds, features=features, ablation=ablation)
    except BrushworkError as e:
        _fail(e)
    model.save(output)
    report = model.report
    rows = {"chosen procedure (nested)": report, **report.get("ablation", {})}
    pairs = list(report["pairwise_accuracy"])
    table = Table("features", *(p.replace(">", " vs ") for p in pairs),
                  title=f"taste model on pool {pool.snapshot} ({len(pool.split('train'))} training paintings): "
                        f"held-out pairwise accuracy, nested {report['folds']}-fold CV x {report['repeats']}")
    for name, r in rows.items():
        table.add_row(name, *(f"{r['pairwise_accuracy'].get(p, float('nan')):.3f}" for p in pairs))
    out.print(table)
    out.print(taste_curve_table(report["selection"]))
    cost = ", ".join(f"{k} {v:.0f} ms" for k, v in report["per_image_ms"].items())
    dims = f", {report['dims']} embedding components" if report["features"] != "classical" else ""
    out.print(f"chosen: {report['features']} features{dims}, l2 {report['l2']:g} (best inner-CV score of "
              f"{len(report['selection']['curve'])} candidates), fit on all training paintings; "
              f"{sum(report['pairs'].values())} held-out pairs")
    out.print(f"cost: choice and fit {report['choose_cpu_s']:.1f} CPU-s, nested figures "
              f"{report['report_cpu_s']:.1f} CPU-s, {report['fit_s']:.1f} s in all; per image {cost}")
    out.print(f"saved {output}")


def taste_curve_table(selection: dict) -> Table:
    """The inner-CV curve: each candidate's score (mean held-out pairwise accuracy over tier pairs,
    3-fold CV on the training paintings), a row per feature set, a column per L2; * the choice."""
    curve = selection["curve"]
    l2s = sorted({c["l2"] for c in curve})
    rows: dict[str, dict] = {}
    for c in curve:
        name = c["kind"] if c["kind"] == "classical" else f"{c['kind']} ({c['dims']} components)"
        rows.setdefault(name, {})[c["l2"]] = c
    table = Table("features", *(f"l2 {v:g}" for v in l2s),
                  title="inner-CV curve: score of each candidate (mean pairwise accuracy over tier pairs, "
                        "3-fold CV on the training paintings); * chosen")
    for name, cells in rows.items():
        table.add_row(name, *("-" if v not in cells else f"{cells[v]['score']:.3f}"
                              + ("*" if cells[v]["procedure"] == selection["chosen"] else "") for v in l2s))
    return table


@taste_app.command("evaluate")
@with_settings(ScoringOptions, keys=POOL_KEYS)
def taste_evaluate(
    others: list[Path] = typer.Option(None, "--other-pool", help="another pool store or folder, repeatable: "
                                                                 "measured the same way, and transfer between "
                                                                 "every two pools"),
    features: str = typer.Option("auto", help="auto (chosen by inner CV), classical, embedding or both"),
    split: str = typer.Option("all", help="all rated paintings, or the training split only (as `taste fit`)"),
    l2: float = typer.Option(None, min=0, help="pin the L2 regularisation (default: chosen by inner CV, as "
                             "`taste fit`)"),
    dims: int = typer.Option(None, min=1, help="pin the embedding's principal components (default: chosen by "
                             "inner CV)"),
    folds: int = typer.Option(5, min=2, help="outer folds of the nested cross-validation"),
    repeats: int = typer.Option(3, min=1, help="shuffles of the outer folds"),
    seed: int = typer.Option(0, min=0, help="folds and the paintings' resamples"),
    resamples: int = typer.Option(2000, min=1, help="bootstrap resamples of the paintings"),
    curve: bool = typer.Option(True, help="the learning curve: accuracy after 10, 15, 20, 30, ... ratings"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
    options: ScoringOptions = None, options_sources: dict = None,
):
    """Measure how the taste model generalises: nested CV, the learning curve, leave-one-domain-out
    and transfer between pools, per tier pair with painting-level 95 % intervals."""
    from brushwork.errors import BrushworkError
    from brushwork.score.taste.evaluate import evaluate

    _taste_choices(features, split, l2, dims)
    try:
        pools = {}
        for path, snapshot in [(options.pool, options.snapshot), *((p, None) for p in others or ())]:
            pool = _pool(path, snapshot)
            pools[_pool_name(path, pool, pools)] = pool
        with console.status("measuring paintings and fitting the taste model fold by fold"):
            report = evaluate(pools, features, split, l2, dims, folds, repeats, seed, resamples, curve=curve)
    except BrushworkError as e:
        _fail(e)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    out.print(taste_evaluate_table(report))
    out.print("intervals: 95 %, paintings resampled within their tiers (pairs share paintings); "
              "chosen: the procedure each fit picked by inner CV on its training paintings")
    if any(m.kind == "curve" for m in report.measures):
        out.print("learning curve (after n ratings): each outer fold's procedure fitted on n of its training "
                  "paintings, drawn within their tiers; where accuracy still climbs at the last point, more "
                  "ratings would help")


def _pool_name(path: Path | None, pool, taken: dict) -> str:
    from brushwork.pool import example_pool_dir

    bundled = path is None or Path(path).resolve() == example_pool_dir().resolve()
    name = "example" if bundled else Path(path).resolve().name
    return name if name not in taken else f"{name}-{pool.snapshot[:6]}"


def taste_evaluate_table(report) -> Table:
    pairs = ["love>okay", "love>nope", "okay>nope", "overall"]
    pools = "; ".join(f"{name} {c['paintings']} ({', '.join(f'{n} {t}' for t, n in c['tiers'].items())})"
                      for name, c in report.pools.items())
    table = Table("measure", "fit on → ranked", *(p.replace(">", " > ") for p in pairs), "chosen",
                  title=f"taste generalisation, features {report.features}, {report.split} paintings: {pools}")
    for m in report.measures:
        cells = []
        for p in pairs:
            f = m.figures.get(p)
            lo, hi = (None, None) if f is None else f.ci95_paintings
            cells.append("-" if f is None else f"{f.accuracy:.3f} ({lo:.2f}–{hi:.2f})")
        chosen = ", ".join(f"{name} x{n}" for name, n in sorted(m.chosen.items(), key=lambda kv: -kv[1]))
        table.add_row(m.name, f"{m.trained_on} → {m.tested_on}", *cells, chosen)
    return table


@judge_app.command("audit")
@with_settings(ScoringOptions, keys=JUDGE_KEYS)
def judge_audit(
    pairs: int = typer.Option(None, min=1, help="pairs of pool paintings to ask about (default 24; with --human: up to "
                                         "200 cross-tier pairs of held-out paintings)"),
    seed: int = typer.Option(0, help="which pairs (and, with --human, the bootstrap's resamples)"),
    human: bool = typer.Option(False, "--human", help="agreement with people's pairwise preferences and tiers, on "
                                                      "held-out (eval) paintings only"),
    as_json: bool = typer.Option(False, "--json"),
    options: ScoringOptions = None, options_sources: dict = None,
):
    """Ask the judge the same pairs twice in both orders: repeat agreement, position bias, ties.
    With --human: how often it agrees with people, on held-out paintings."""
    from brushwork.errors import BrushworkError
    from brushwork.score.audit import audit, human_audit
    from brushwork.score.build import build_eval_judge

    try:
        pool = _pool(options.pool, options.snapshot)
        options = options.with_(verdict_cache=False)
        pj = build_eval_judge(pool, options)
    except BrushworkError as e:
        _fail(e)
    if human:
        try:
            with console.status(f"asking {pj.backend.model_id} about held-out pairs, in both orders"):
                report = asyncio.run(human_audit(pj, pool, 200 if pairs is None else pairs, seed))
        except BrushworkError as e:
            _fail(e)
        if as_json:
            typer.echo(json.dumps(report, indent=2))
            return
        out.print(human_audit_table(report))
        out.print(report["note"])
        out.print(f"anchor: {report['anchor']['note']}")
        return
    pairs = 24 if pairs is None else pairs
    with console.status(f"asking {pj.backend.model_id} about {pairs} pairs, 4 times each"):
        report = asyncio.run(audit(pj, pool, pairs, seed))
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    table = Table("measure", "value", title=f"judge audit: {pj.backend.model_id}")
    for key in ("pairs", "asked", "parsed_rate", "repeat_agreement", "order_consistency", "position_bias_rate",
                "first_wins_rate", "tie_rate", "agreement_with_tiers"):
        value = report[key]
        table.add_row(key.replace("_", " "), f"{value:.3f}" if isinstance(value, float) else str(value))
    out.print(table)


def human_audit_table(report: dict) -> Table:
    def row(table, name, summary):
        ci = summary["ci95_paintings"]
        agreement = "-" if summary["agreement"] is None else f"{summary['agreement']:.3f}"
        table.add_row(name, str(summary["pairs"]), str(summary["paintings"]), agreement,
                      "-" if ci is None else f"{ci[0]:.3f} – {ci[1]:.3f}")

    table = Table("measured on", "pairs", "paintings", "agreement", "95 % interval (paintings resampled)",
                  title=f"judge vs people: {report['judge']} on {report['held_out_items']} held-out paintings")
    people = report["human_preferences"]
    row(table, f"people's preferences ({people['recorded']} recorded, {people['held_out']} held out)", people)
    for name, summary in report["tiers"].items():
        if name != "overall":
            row(table, f"tiers: {name.replace('>', ' > ')}", summary)
    row(table, f"tiers: overall ({report['sampled_pairs']} of {report['cross_tier_pairs']} cross-tier pairs)",
        report["tiers"]["overall"])
    table.add_row("[dim]anchor: ArtifactsBench VLM judge vs experts[/]", "-", "-",
                  f"[dim]{report['anchor']['pairwise_agreement']:.4f}[/]", "-")
    return table


@app.command("serve-hpsv3")
def serve_hpsv3(
    host: str = typer.Option("127.0.0.1", help="interface to listen on"),
    port: int = typer.Option(8100, min=1, max=65535, help="port"),
    device: str = typer.Option("cuda", help="torch device for HPSv3"),
    checkpoint: str = typer.Option(None, help="local HPSv3 checkpoint (default: the package's)"),
    preload: bool = typer.Option(False, help="load the model at start instead of on the first request"),
):
    """Serve HPSv3 over HTTP (run it on a GPU host, in its own virtualenv with `pip install hpsv3`)."""
    exits.free_port(host, port)
    import uvicorn

    from brushwork.score.hpsv3_service import create_app

    uvicorn.run(create_app(preload=preload, device=device, checkpoint=checkpoint), host=host, port=port)
