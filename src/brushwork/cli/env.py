"""Commands of the environment layer: serve (the OpenEnv server), tasks (list, export) and
episode (one episode through a real server: the demo's last act)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli import exits
from brushwork.cli.common import app, console, out, with_settings
from brushwork.env.settings import ServerSettings

tasks_app = typer.Typer(no_args_is_help=True, help="The painting tasks: domains, subjects, training datasets.")
PANEL = "Environment"
app.add_typer(tasks_app, name="tasks", rich_help_panel=PANEL)


def _fail(e: Exception):
    exits.fail(e)


@app.command(rich_help_panel=PANEL)
@with_settings(ServerSettings)
def serve(
    log_level: str = typer.Option("info", help="uvicorn log level"),
    options: ServerSettings = None, options_sources: dict = None,
):
    """Serve the OpenEnv environment: every session shares one warm renderer and scorer."""
    from brushwork.errors import BrushworkError

    settings = options
    exits.free_port(settings.host, settings.port)   # before the renderer and the pool take their time
    try:
        browsers = f"{settings.render_workers} browsers" if settings.render_backend == "local" else \
            f"browsers on the Ray cluster at {settings.ray_address or os.environ.get('RAY_ADDRESS') or 'auto'}"
        console.print(f"brushwork serve: {browsers}, {settings.session_limit} sessions, session timeout "
                      f"{settings.session_timeout_s:g}s; starting the renderer and the pool")
        from brushwork.env.server.app import serve as run_server

        run_server(settings, settings.host, settings.port, log_level)
    except BrushworkError as e:
        _fail(e)


@tasks_app.command("list")
def tasks_list():
    """Every domain and its subjects."""
    from brushwork.env.tasks import domains

    table = Table("domain", "subjects", "prompts", title="brushwork tasks")
    for d in domains().values():
        table.add_row(d.name, "\n".join(d.subjects), str(len(d.prompts)))
    out.print(table)


@tasks_app.command("export")
def tasks_export(
    output: Path = typer.Argument(..., help="JSONL file to write (load with datasets.load_dataset('json', ...))"),
    domain_names: str = typer.Option(None, "--domains", help="comma-separated domains (default: all)"),
    repeats: int = typer.Option(1, help="rows per subject, each with its own seed"),
    seed: int = typer.Option(0, help="seed of the row seeds"),
):
    """Write a training dataset: `prompt` (system + user chat messages), `subject`, `domain`, `seed`."""
    from brushwork.env.tasks import export_dataset
    from brushwork.errors import BrushworkError

    names = [d.strip() for d in domain_names.split(",") if d.strip()] if domain_names else None
    exits.out_file(output, "OUTPUT")
    try:
        count = export_dataset(output, names, repeats, seed)
    except BrushworkError as e:
        _fail(e)
    console.print(f"wrote {count} tasks to {output}")


@app.command(rich_help_panel=PANEL)
def episode(
    url: str = typer.Option(None, help="a running `brushwork serve` (default: start one here on a free port)"),
    subject: str = typer.Option("a coral hibiscus", help="what to paint"),
    revisions: int = typer.Option(1, help="revisions after the first painting (0 to 8)"),
    seed: int = typer.Option(0, min=0, max=2**32 - 1, help="episode seed"),
    workers: int = typer.Option(None, help="browsers of the server started here"),
    as_json: bool = typer.Option(False, "--json", help="print the observations as JSON (images left out)"),
):
    """Run one episode through the OpenEnv server with the real client (replies: procedural paintings).
    Exit 1 when the episode ends without a reward (a failure on our side: the table says which)."""
    from brushwork.errors import BrushworkError

    if url is not None:
        exits.check_url(url, "--url")
    try:
        from brushwork.env.demo import run_episode
        from brushwork.env.episode import EpisodeConfig

        EpisodeConfig(revisions=revisions)    # a bad value fails here, before a server starts
        observations = run_episode(url, subject, revisions, seed, workers, console)
    except BrushworkError as e:
        _fail(e)
    if as_json:
        typer.echo(json.dumps([o.model_dump(exclude={"image_png_b64", "system_prompt"}) for o in observations],
                              indent=2))
    else:
        out.print(episode_table(observations, subject, revisions))
    last = observations[-1]
    if last.reward is None:
        exits.fail(f"the episode ended without a reward: {last.infra or 'no final painting was scored'}",
                   exits.INCOMPLETE)


def episode_table(observations, subject: str, revisions: int) -> Table:
    table = Table("step", "painting", "gate", "paint", "reward", "critique / outcome",
                  title=f"one episode: {subject}, {revisions} revision(s)")
    for i, o in enumerate(observations):
        if o.revision < 0:
            table.add_row("reset", "-", "-", "-", "-", o.prompt)
            continue
        gate = "pass" if o.passed else ", ".join(v["id"] for v in o.violations) or "fail"
        paint = "-" if o.paint_fraction is None else f"{100 * o.paint_fraction:.1f}%"
        reward = "-" if not o.done else ("None" if o.reward is None else f"{o.reward:.3f}")
        note = o.critique.splitlines()[0] if not o.done else (o.infra or ", ".join(
            f"{k} {'-' if v is None else f'{v:.3f}'}" for k, v in o.terms.items()))
        table.add_row(str(i), str(o.revision + 1), gate, paint, reward, note)
    return table
