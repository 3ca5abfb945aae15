"""Commands of the first layers: render, check, rules, demo."""

from __future__ import annotations

import asyncio
import json
from dataclasses import fields
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from brushwork.cli import exits
from brushwork.cli.common import FilesArg, SeedOpt, app, clear_errors, out, progress, with_settings
from brushwork.gate.config import GateSettings
from brushwork.render.config import RenderSettings
from brushwork.score.options import ScoringOptions

RENDER_KEYS = tuple(f.name for f in fields(RenderSettings))
GATE_KEYS = tuple(f.name for f in fields(GateSettings)) + RENDER_KEYS


async def _gate_replies(replies: list[str], gate, render_cfg, seed: int, render: bool, render_all: bool, label: str):
    """Gate (and render) every reply concurrently with `gate`, with a progress bar. Returns Gated in order."""
    from brushwork.render import Renderer

    if not render:
        return [await gate.run(r) for r in replies]
    with progress() as bar:
        task = bar.add_task(label, total=len(replies))
        async with Renderer(render_cfg) as renderer:
            async def one(reply):
                gated = await gate.run(reply, renderer, seed=seed, render_all=render_all)
                bar.advance(task)
                return gated
            return await asyncio.gather(*(one(r) for r in replies))


@app.command()
@with_settings(RenderSettings)
def render(
    files: list[Path] = FilesArg,
    out_dir: Path = typer.Option(..., "-o", "--out", help="folder for <stem>.png and <stem>.json"),
    seed: int = typer.Option(0, min=0, max=2**32 - 1, help="random seed (Math.random, randomSeed, noiseSeed)"),
    options: RenderSettings = None, options_sources: dict = None,
):
    """Render sketches (or replies containing one) to PNG, with a JSON record of what the page did.
    Exit 1 when a file wrote no PNG (the table's last column says why)."""
    from brushwork.render import Renderer
    from brushwork.sketch import extract_sketch

    exits.out_dir(out_dir)
    sketches = {path: extract_sketch(text) for path, text in zip(files, exits.read_files(files))}
    cfg = options.render_config()

    async def run():
        results = {}
        with progress() as bar:
            task = bar.add_task("rendering", total=len(files))
            async with Renderer(cfg) as renderer:
                async def one(path: Path):
                    sketch = sketches[path]
                    results[path] = None if sketch is None else await renderer.render(sketch.code, seed=seed)
                    bar.advance(task)
                await asyncio.gather(*(one(p) for p in files))
        return results

    with clear_errors():
        results = asyncio.run(run()) if any(sketches.values()) else dict.fromkeys(files)
    table = Table("file", "status", "paint", "errors", "blocked", "in-page s", "wall s", "cache", "why no PNG")
    failed = sum(_write_render(path, sketches[path], results[path], out_dir, table) for path in files)
    out.print(table)
    if failed:
        exits.fail(f"{failed} of {len(files)} file(s) wrote no PNG: the table says why", exits.INCOMPLETE)


def _write_render(path: Path, sketch, r, out_dir: Path, table: Table) -> bool:
    """Write `<stem>.png` (when the page painted) and `<stem>.json`, add the table's row; True when
    no PNG was written. A PNG from an earlier run of the same file is removed, never left to mislead."""
    png, meta = out_dir / f"{path.stem}.png", out_dir / f"{path.stem}.json"
    why = _why_no_png(sketch, r)
    png.unlink(missing_ok=True)
    if why is None:
        png.write_bytes(r.png)
    record = {"status": "no_sketch"} if r is None else r.to_dict()
    meta.write_text(json.dumps({"file": str(path), **record, "png": None if why else png.name,
                                **({"why_no_png": why} if why else {})}, indent=2, sort_keys=True))
    if r is None:
        table.add_row(str(path), "[red]no sketch[/]", "", "", "", "", "", "", why)
        return True
    t = r.timings
    status = r.status if why is None else f"[red]{r.status if r.status != 'ok' else 'no PNG'}[/]"
    table.add_row(str(path), status, f"{100 * r.paint_fraction:.1f}%" if r.paint_fraction is not None else "-",
                  str(len(r.js_errors)), str(len(r.blocked_requests)),
                  f"{t.in_page_s:.2f}" if t.in_page_s else "-", f"{t.wall_s:.2f}", "hit" if r.cache_hit else "",
                  escape(why or ""))
    return why is not None


def _why_no_png(sketch, r) -> str | None:
    """Why a render left no painting to write, in words (lines of the file); None when it left one."""
    if r is None:
        return "no sketch in the file: give a .js sketch or a reply with a ```js block"
    if r.status == "ok" and r.png is not None:
        return None
    causes = ["the reply is cut off (its code block never closes)"] if sketch.truncated else []
    causes += [f"{e.message}" + (f" (line {e.line + sketch.start_line - 1})" if e.line else "")
               for e in r.js_errors[:2]]
    causes += [f.detail for f in r.flags[:2]]
    if r.status != "ok":
        causes.insert(0, f"{r.status}: {r.detail}" if r.detail else r.status)
    return "; ".join(causes) or "the page captured no canvas"


@app.command()
@with_settings(ScoringOptions, keys=GATE_KEYS)
def check(
    files: list[Path] = FilesArg,
    as_json: bool = typer.Option(False, "--json", help="print a JSON list of reports"),
    no_render: bool = typer.Option(False, "--no-render", help="static rules only (no browser)"),
    render_all: bool = typer.Option(False, "--render-all", help="render even sketches the static rules reject"),
    seed: int = SeedOpt,
    options: ScoringOptions = None, options_sources: dict = None,
):
    """Gate replies: every rule, static and (unless --no-render) run-time. Exit 0 if all pass, 1 if not."""
    from brushwork.gate import Gate

    replies = exits.read_files(files)
    gate, render_cfg = Gate(options.gate_config()), options.render_config()
    with clear_errors():
        gated = asyncio.run(_gate_replies(replies, gate, render_cfg, seed, not no_render, render_all, "checking"))
    if as_json:
        payload = [{"file": str(f), **g.report.to_dict()} for f, g in zip(files, gated)]
        typer.echo(json.dumps(payload, indent=2))
    else:
        out.print(_report_table(files, gated))
    raise typer.Exit(0 if all(g.report.passed for g in gated) else 1)


def _report_table(files, gated) -> Table:
    table = Table("file", "verdict", "violations", "paint", "time s")
    for f, g in zip(files, gated):
        verdict = "[green]pass[/]" if g.report.passed else (
            "[yellow]infra[/]" if g.report.infra_failure else "[red]fail[/]")
        lines = [f"{v.id}" + (f" (line {v.line})" if v.line else "") + f": {v.message}"
                 for v in g.report.violations[:6]]
        if len(g.report.violations) > 6:
            lines.append(f"… {len(g.report.violations) - 6} more")
        lines += [f"note: {n.id}" + (f" (line {n.line})" if n.line else "") + f": {n.message}"
                  for n in g.report.notes[:3]]
        r = g.render
        table.add_row(str(f), verdict, "\n".join(lines) or "-",
                      f"{100 * r.paint_fraction:.1f}%" if r and r.paint_fraction is not None else "-",
                      f"{r.timings.wall_s:.2f}" if r else "-")
    return table


@app.command()
def rules():
    """List the gate's rules: id, severity, stage and explanation."""
    from brushwork.gate import RULES

    table = Table("id", "severity", "stage", "explanation")
    for rule in RULES:
        stage = "+".join(s for s, f in (("static", rule.static), ("run time", rule.runtime)) if f) or "extract"
        table.add_row(rule.id, rule.severity, stage, rule.explanation)
    out.print(table)


@app.command()
def language():
    """Print what reaches the painting: the calls that cross from the sketch's realm to the paint realm."""
    from brushwork.core import language as L
    from brushwork.core import vocabulary as V
    from brushwork.gate import DEFAULT_ALLOWED, RULES_BY_ID

    table = Table("what", "names", "how")
    table.add_row("brush methods", ", ".join(f"brush.{m}" for m in DEFAULT_ALLOWED),
                  "recorded and replayed (the allow-list: --allow)")
    table.add_row("other brush methods", ", ".join(sorted(V.BRUSH_METHODS - set(DEFAULT_ALLOWED))),
                  "disallowed_brush_method unless allowed")
    table.add_row("p5 statements", ", ".join(sorted(L.REPLAYED)) + ", createCanvas", "recorded and replayed")
    for finding, names in L.FINDINGS.items():
        rule = {"p5_drawing": "bare_primitive", "text_drawing": "text_on_canvas", "raw_drawing": "raw_pixels"}.get(
            finding, finding)
        what = {"p5_drawing": "p5 drawing", "unlisted_call": "p5 loading, DOM, canvas",
                "external_access": "browser network"}.get(finding, "p5 " + finding.replace("_", " "))
        table.add_row(what, ", ".join(sorted(names)),
                      f"do nothing; {rule} ({RULES_BY_ID[rule].severity})")
    table.add_row("arguments", "numbers, strings, booleans, p5.Color (as its CSS colour), arrays and plain objects "
                  "of those", "anything else: unsupported_argument (broken)")
    table.add_row("everything else", "ordinary JavaScript; p5's maths, random / noise, colours, vectors, "
                  "width / height, async setup()", "runs in the sketch's own realm; reaches no painting")
    out.print(table)


@app.command()
def demo(
    out_dir: Path = typer.Option(Path("out/demo"), "-o", "--out", help="where the gallery is written"),
    workers: int = typer.Option(0, min=0, help="parallel browsers (default, 0: one per core)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="render again even if cached"),
):
    """Gate and render the bundled example replies; print a table and write an HTML gallery. Exits 1
    when an example's verdict contradicts its name (a good_ one rejected, a cheat_ one passed)."""
    from brushwork.demo import run_demo

    exits.out_dir(out_dir)
    with clear_errors():
        wrong = run_demo(out_dir, workers=workers or None, use_cache=not no_cache, console=out, progress=progress)
    if wrong:
        exits.fail(f"{len(wrong)} bundled example(s) disagree with their names: {'; '.join(wrong)} (good_ must "
                   "pass the gate, cheat_ and broken_ must fail it): fix the gate or the example", exits.INCOMPLETE)
