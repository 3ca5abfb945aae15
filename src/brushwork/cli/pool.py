"""`brushwork pool ...`: build, rate, version, split, inspect and grow a preference pool."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Column, Table

from brushwork.cli.common import app, clear_errors, console, out, print_error, progress, with_settings
from brushwork.cli.gate import GATE_KEYS
from brushwork.score.options import ScoringOptions

pool_app = typer.Typer(no_args_is_help=True, help="The preference pool: the person's taste as data.")
app.add_typer(pool_app, name="pool")

RootArg = typer.Argument(..., help="pool store folder (created by `brushwork pool init`)")
ThresholdOpt = typer.Option(6, "--threshold", help="near-duplicate: perceptual-hash distance (bits of 64)")


def _store(root: Path):
    from brushwork.errors import ConfigError
    from brushwork.pool.store import PoolStore

    try:
        return PoolStore(root)
    except ConfigError as e:
        print_error(e)
        raise typer.Exit(2) from e


def _bar(label: str):
    bar = progress()
    task = bar.add_task(label, total=None)
    return bar, (lambda done, total: bar.update(task, completed=done, total=total))


@pool_app.command("init")
def init(root: Path = RootArg, tiers: str = typer.Option("love,okay,nope", help="tiers, best first")):
    """Create an empty pool store."""
    from brushwork.errors import ConfigError
    from brushwork.pool.store import PoolStore

    try:
        store = PoolStore.init(root, tuple(t.strip() for t in tiers.split(",") if t.strip()))
    except ConfigError as e:
        raise typer.BadParameter(str(e), param_hint="ROOT" if root.exists() and not root.is_dir() else "--tiers") \
            from e
    out.print(f"pool store at {store.root} with tiers {', '.join(store.tiers)}")


@pool_app.command("add")
@with_settings(ScoringOptions, keys=GATE_KEYS)
def add(root: Path = RootArg, files: list[Path] = typer.Argument(..., exists=True, dir_okay=False),
        subject: str = typer.Option("", help="subject of these paintings"),
        generator: str = typer.Option("hand-written", help="who or what made them"),
        rater: str = typer.Option("import", help="rater of the tiers given by file-name prefixes (love_x.js)"),
        options: ScoringOptions = None, options_sources: dict = None):
    """Render and gate sketches (or replies) and add those that pass; a file named love_x.js
    (any tier of the store) is rated that tier, others are added unrated."""
    _import_sketch_files(_store(root), files, subject, generator, rater, options)


def _import_sketch_files(store, files, subject, generator, rater, options: ScoringOptions):
    from brushwork.gate import Gate
    from brushwork.pool.hf import import_sketches
    from brushwork.render import SyncRenderer

    gate = Gate(options.gate_config())
    bar, update = _bar("rendering, gating and adding")
    with clear_errors(), bar, SyncRenderer(options.render_config()) as renderer:
        summary = import_sketches(store, files, renderer, subject, generator, on_progress=update, gate=gate,
                                  rater=rater)
    out.print(f"added {summary.added} ({summary.ratings} rated by file-name prefix), already present "
              f"{summary.already}, rendered {summary.rendered}, from cache {summary.cached}; refused by the gate "
              f"{len(summary.refused)}")
    for refusal in summary.refused:
        console.print(f"[red]refused[/] {escape(refusal)} (not imported: the pool teaches the reward; "
                      "`brushwork check FILE` says why)", highlight=False, soft_wrap=True)
    for failure in summary.failed:
        console.print(f"[yellow]skipped[/] {escape(failure)}", highlight=False, soft_wrap=True)


@pool_app.command("add-rollouts")
def add_rollouts(root: Path = RootArg,
                 film: Path = typer.Argument(..., exists=True, file_okay=False,
                                             help="a run's film (OUTPUT_DIR/film, or the run folder holding it)"),
                 top: int = typer.Option(20, min=1, help="how many of the best-paid paintings to add")):
    """Add a run's best-paid paintings, unrated, so the rater sees what the reward pays most for."""
    from brushwork.errors import ConfigError
    from brushwork.eval.collect import film_samples, resolve_film
    from brushwork.eval.watch import best_paid
    from brushwork.sketch import extract_sketch

    store = _store(root)
    try:
        folder = resolve_film(film)
        chosen = best_paid(film_samples(folder), top)
    except ConfigError as e:
        print_error(e)
        raise typer.Exit(2) from e
    if not chosen:
        out.print(f"{folder} holds no painting the reward paid (passed, rendered, not a copy): nothing added")
        return
    held = len(store.items())
    for s in chosen:
        sketch = extract_sketch(s.reply)
        store.add_item(s.png, sketch.code if sketch else None, subject=s.subject, prompt=s.prompt,
                       generator="policy", provenance={"film": str(folder), "step": s.step, "group": s.group,
                                                       "seed": s.seed, "turn": s.turn, "total": s.card.total})
    added = len(store.items()) - held   # add_item is idempotent: a painting already held is not added again
    totals = [s.card.total for s in chosen]
    out.print(f"added {added} unrated of the run's {len(chosen)} best-paid paintings (totals {min(totals):.3f}-"
              f"{max(totals):.3f}; {len(chosen) - added} already in the pool); rate them with "
              f"`brushwork pool serve {root}`, then refit with `brushwork taste fit`")


@pool_app.command("import")
@with_settings(ScoringOptions, keys=GATE_KEYS)
def import_(root: Path = RootArg, source: Path = typer.Argument(..., exists=True, file_okay=False),
            rater: str = typer.Option("import", help="rater name for tiers given only by file name"),
            generator: str = typer.Option("import", help="generator of imported sketches"),
            options: ScoringOptions = None, options_sources: dict = None):
    """Import a pool in the Hugging Face layout (metadata.jsonl, checked line by line first) or a
    folder of sketches (gated: a sketch the gate refuses is reported and not imported; tiers from
    love_/okay_/nope_ file-name prefixes)."""
    from brushwork.pool.folder import check_records
    from brushwork.pool.hf import import_hf, sketch_files

    store = _store(root)
    if (source / "metadata.jsonl").exists():
        with clear_errors():
            check_records(source, store.tiers)
            bar, update = _bar("importing")
            with bar:
                summary = import_hf(store, source, rater, on_progress=update)
        out.print(f"added {summary.added} paintings ({summary.already} already present), {summary.ratings} ratings")
    else:
        _import_sketch_files(store, sketch_files(source), "", generator, rater, options)


@pool_app.command("export")
def export(root: Path = RootArg, dest: Path = typer.Argument(..., help="output folder (HF layout)"),
           snapshot: str = typer.Option(None, help="export this snapshot (default: the current state)")):
    """Export in the Hugging Face layout (images/, sources/, metadata.jsonl; tier prefixes)."""
    from brushwork.pool.hf import export_hf

    n = export_hf(_store(root), dest, snapshot)
    out.print(f"wrote {n} paintings to {dest} (datasets.load_dataset('imagefolder', data_dir='{dest}'))")


@pool_app.command("list")
def list_(root: Path = RootArg,
          tier: str = typer.Option(None, help="only paintings of this consensus tier (or 'unrated')"),
          rater: str = typer.Option(None, help="only paintings this rater has rated (their latest tier shown)"),
          split: str = typer.Option(None, help="only the train or the eval split"),
          domain: str = typer.Option(None, help="only paintings of this task domain (hibiscus, flowers, ...)")):
    """The paintings, with their ids (any unique start of an id works wherever one is asked for)."""
    from brushwork.pool.store import SPLITS

    store = _store(root)
    if tier is not None and tier not in (*store.tiers, "unrated"):
        raise typer.BadParameter(f"{tier!r} is not a tier of this pool: {', '.join(store.tiers)} or unrated",
                                 param_hint="--tier")
    if split is not None and split not in SPLITS:
        raise typer.BadParameter(f"{split!r} is not a split: {' or '.join(SPLITS)}", param_hint="--split")
    table = Table(Column("id", no_wrap=True, min_width=16), "tier", "ratings", "split", "domain", "subject",
                  "generator")
    shown = 0
    for item in store.items(split):
        ratings = store.ratings(item.id)
        mine = [r.tier for r in ratings if r.rater == rater] if rater else None
        consensus = store.tier_of(item.id) or "unrated"
        if (rater and not mine) or (tier and consensus != tier) or \
                (domain and item.provenance.get("domain", "") != domain):
            continue
        shown += 1
        table.add_row(item.id, consensus if not rater else f"{mine[-1]} ({rater}); {consensus}", str(len(ratings)),
                      item.split, escape(str(item.provenance.get("domain", ""))), escape(item.subject),
                      escape(item.generator))
    out.print(table)
    out.print(f"{shown} of {len(store.items())} paintings")


@pool_app.command("rate")
def rate(root: Path = RootArg, item: str = typer.Argument(...), tier: str = typer.Argument(...),
         rater: str = typer.Option(..., help="who rates"), note: str = typer.Option("", help="optional note")):
    """Rate one painting from the command line."""
    from brushwork.errors import ConfigError

    store = _store(root)
    try:
        item = store.resolve(item)
        store.rate(item, rater, tier, note)
    except ConfigError as e:
        raise typer.BadParameter(str(e)) from e
    out.print(f"{item}: {tier} by {rater}")


@pool_app.command("serve")
def serve(root: Path = RootArg,
          host: str = typer.Option("127.0.0.1", help="where to listen; the page answers only to this name, "
                                                     "127.0.0.1 and localhost (0.0.0.0: also any IP address)"),
          port: int = typer.Option(8200, min=1, max=65535),
          blind: bool = typer.Option(False, help="hide generators and earlier ratings always (by default they "
                                                 "are hidden until the rater has rated, or asks to see them)"),
          active: bool = typer.Option(False, help="ask about what the taste model is least sure of, spread over "
                                                  "subjects (refit in the background every few ratings)")):
    """The rating web page: keys 1/2/3 rate, S skips, U undoes; pairwise mode A/B/T (U undoes too)."""
    from brushwork.pool.guard import bind
    from brushwork.pool.web import serve as run

    store = _store(root)
    with clear_errors():
        sock = bind(host, port)    # a busy port is one line now, not after the chooser's start
    chooser = None
    try:
        if active:
            from brushwork.score.taste.active import ActiveChooser

            chooser = ActiveChooser(store)
        with clear_errors():
            run(root, host=host, blind=blind, choose_next=chooser, sock=sock,
                announce=lambda url: out.print(f"rating page on {url}" + (" (active rating)" if active else "")))
    finally:
        sock.close()
        if chooser is not None:
            chooser.close()


@pool_app.command("snapshot")
def snapshot(root: Path = RootArg, name: str = typer.Option("", help="a name to find it by"),
             list_: bool = typer.Option(False, "--list", help="list snapshots instead")):
    """Record an immutable, content-addressed snapshot (configs name it; draws reproduce from it)."""
    from brushwork.pool.snapshot import list_snapshots, take_snapshot

    store = _store(root)
    if list_:
        table = Table("id", "name", "paintings by tier")
        for s in list_snapshots(store):
            table.add_row(s.id, s.name, ", ".join(f"{k} {v}" for k, v in sorted(s.counts.items())))
        out.print(table)
        return
    snap = take_snapshot(store, name)
    out.print(f"snapshot {snap.id}" + (f" ({snap.name})" if snap.name else "") + f": {snap.counts}")


@pool_app.command("split")
def split(root: Path = RootArg, eval_fraction: float = typer.Option(0.2, help="share of each tier for eval"),
          seed: int = typer.Option(0), threshold: int = ThresholdOpt):
    """Assign train / eval, keeping exact and near-duplicates on one side."""
    from brushwork.pool.split import assign_split

    store = _store(root)
    with console.status("hashing paintings and grouping near-duplicates"):
        counts = assign_split(store, eval_fraction, seed, threshold)
    out.print(f"train {counts['train']}, eval {counts['eval']}")


@pool_app.command("check")
def check(root: Path = RootArg, threshold: int = ThresholdOpt):
    """Exit non-zero if any evaluation painting duplicates or nearly duplicates a training one."""
    from brushwork.pool.split import find_leaks

    leaks = find_leaks(_store(root), threshold)
    for leak in leaks:
        out.print(f"[red]leak[/] {leak}")
    if leaks:
        raise typer.Exit(1)
    out.print("no leaks: train and eval are disjoint (exact and near-duplicate)")


@pool_app.command("report")
def report(root: Path = RootArg, html: Path = typer.Option(None, help="also write an HTML report here")):
    """Counts, rater agreement, diversity and warnings (terminal, and HTML with thumbnails)."""
    from brushwork.pool.report import build_report, print_report
    from brushwork.pool.report_html import write_html

    store = _store(root)
    with console.status("measuring the pool"):
        rep = build_report(store)
    print_report(rep, out)
    if html:
        out.print(f"HTML report: {write_html(rep, store, html)}")


@pool_app.command("generate")
@with_settings(ScoringOptions, keys=GATE_KEYS)
def generate(root: Path = RootArg,
             procedural: int = typer.Option(0, help="paint this many with the built-in procedural painter"),
             model: str = typer.Option(None, help="OpenAI-compatible chat model that writes sketches"),
             base_url: str = typer.Option(None, help="its /v1 base URL"),
             critic_model: str = typer.Option(None, help="VLM that critiques renders (default: the model)"),
             critic_url: str = typer.Option(None, help="its /v1 base URL (default: base URL)"),
             subjects: str = typer.Option("", help="comma-separated subjects (default: the hibiscus domain)"),
             rounds: int = typer.Option(3, help="critique-and-revise rounds"),
             seed: int = typer.Option(0, min=0, max=2**32 - 1),
             options: ScoringOptions = None, options_sources: dict = None):
    """Add candidate paintings: from a chat model with VLM critique rounds, or procedurally; each
    gated with the gate settings and canvas size given here."""
    import os

    from brushwork.gate import Gate
    from brushwork.painter import SUBJECTS
    from brushwork.pool import generate as gen
    from brushwork.render import Renderer, SyncRenderer

    store = _store(root)
    config, gate = options.render_config(), Gate(options.gate_config())
    wanted = [s.strip() for s in subjects.split(",") if s.strip()] or list(SUBJECTS["hibiscus"])
    if procedural:
        bar, update = _bar("painting procedurally")
        with bar, SyncRenderer(config) as r:
            ids = gen.generate_procedural(store, r, procedural, seed=seed, subjects=wanted, on_progress=update,
                                          gate=gate)
        out.print(f"added {len(ids)} procedural paintings")
    if model:
        async def run():
            async with Renderer(config) as r:
                return await gen.generate_openai(store, r, wanted, base_url=base_url, model=model,
                                                 api_key=os.environ.get("BRUSHWORK_GENERATOR_API_KEY"),
                                                 rounds=rounds, critic_base_url=critic_url, critic_model=critic_model,
                                                 gate=gate)
        with console.status(f"asking {model} for {len(wanted)} subjects, {rounds} critique rounds"):
            result = asyncio.run(run())
        out.print(result.summary())
        for error in result.errors:
            console.print(f"[yellow]{error}[/]")
    if not procedural and not model:
        raise typer.BadParameter("give --procedural N and/or --model M --base-url URL")
