"""Commands of the environment layer: serve (the OpenEnv server), tasks (list, export) and
episode (one episode through a real server: the demo's last act)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli.common import RayAddressOpt, RenderBackendOpt, app, console, out, print_error

tasks_app = typer.Typer(no_args_is_help=True, help="The painting tasks: domains, subjects, training datasets.")
PANEL = "Environment"
app.add_typer(tasks_app, name="tasks", rich_help_panel=PANEL)


def _fail(e: Exception):
    print_error(e)
    raise typer.Exit(2)


@app.command(rich_help_panel=PANEL)
def serve(
    host: str = typer.Option("127.0.0.1", help="interface to listen on (0.0.0.0 in a container)"),
    port: int = typer.Option(8000, help="port"),
    pool_dir: Path = typer.Option(None, "--pool", help="pool store or folder [$BRUSHWORK_POOL; default: example pool]"),
    snapshot: str = typer.Option(None, "--snapshot", help="pool store snapshot [$BRUSHWORK_SNAPSHOT]"),
    preset: str = typer.Option(None, help="judge-led, hps-led or hps-only [$BRUSHWORK_PRESET; judge-led]"),
    reward_file: Path = typer.Option(None, "--reward-config", help="reward YAML [$BRUSHWORK_REWARD_CONFIG]"),
    judge: str = typer.Option(None, help="judge backend: taste or openai [$BRUSHWORK_JUDGE; taste]"),
    judge_url: str = typer.Option(None, "--judge-url", help="OpenAI-compatible URL [$BRUSHWORK_JUDGE_BASE_URL]"),
    judge_model: str = typer.Option(None, "--judge-model", help="judge model [$BRUSHWORK_JUDGE_MODEL]"),
    aesthetic: str = typer.Option(None, help="aesthetic backend: taste or hpsv3 [$BRUSHWORK_AESTHETIC; taste]"),
    hpsv3_url: str = typer.Option(None, "--hpsv3-url", help="serve-hpsv3 URL [$BRUSHWORK_HPSV3_URL]"),
    taste: Path = typer.Option(None, "--taste", help="fitted taste model [$BRUSHWORK_TASTE_MODEL]"),
    workers: int = typer.Option(None, help="parallel browsers [$BRUSHWORK_WORKERS; one per core]"),
    render_timeout: float = typer.Option(None, "--render-timeout",
                                         help="seconds per render [$BRUSHWORK_RENDER_TIMEOUT_S; 60]"),
    cpu_budget: float = typer.Option(None, "--cpu-budget", help="CPU seconds the page may spend on one render "
                                     "before it stops as too_slow [$BRUSHWORK_RENDER_CPU_BUDGET_S; 6]"),
    max_sessions: int = typer.Option(None, "--max-sessions",
                                     help="concurrent sessions [$BRUSHWORK_MAX_SESSIONS; 2 x workers]"),
    session_timeout: float = typer.Option(None, "--session-timeout",
                                          help="idle seconds before a session is reclaimed "
                                               "[$BRUSHWORK_SESSION_TIMEOUT_S; 900]"),
    render_backend: str = RenderBackendOpt, ray_address: str = RayAddressOpt,
    log_level: str = typer.Option("info", help="uvicorn log level"),
):
    """Serve the OpenEnv environment: every session shares one warm renderer and scorer."""
    from brushwork.env.settings import ServerSettings
    from brushwork.errors import BrushworkError

    try:
        settings = ServerSettings.from_env(
            pool=pool_dir, snapshot=snapshot, preset=preset, reward_file=reward_file, judge=judge,
            judge_url=judge_url, judge_model=judge_model, aesthetic=aesthetic, hpsv3_url=hpsv3_url,
            taste_model=taste, workers=workers, render_timeout_s=render_timeout,
            render_cpu_budget_s=cpu_budget, max_sessions=max_sessions,
            session_timeout_s=session_timeout, render_backend=render_backend, ray_address=ray_address)
        browsers = f"{settings.render_workers} browsers" if settings.render_backend == "local" else \
            f"browsers on the Ray cluster at {settings.ray_address or os.environ.get('RAY_ADDRESS') or 'auto'}"
        console.print(f"brushwork serve: {browsers}, {settings.session_limit} sessions, session timeout "
                      f"{settings.session_timeout_s:g}s; starting the renderer and the pool")
        from brushwork.env.server.app import serve as run_server

        run_server(settings, host, port, log_level)
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
    try:
        count = export_dataset(output, names, repeats, seed)
    except BrushworkError as e:
        _fail(e)
    console.print(f"wrote {count} tasks to {output}")


@app.command(rich_help_panel=PANEL)
def episode(
    url: str = typer.Option(None, help="a running `brushwork serve` (default: start one here on a free port)"),
    subject: str = typer.Option("a coral hibiscus", help="what to paint"),
    revisions: int = typer.Option(1, help="revisions after the first painting"),
    seed: int = typer.Option(0, help="episode seed"),
    workers: int = typer.Option(None, help="browsers of the server started here"),
    as_json: bool = typer.Option(False, "--json", help="print the observations as JSON (images left out)"),
):
    """Run one episode through the OpenEnv server with the real client (replies: procedural paintings)."""
    from brushwork.env.demo import run_episode
    from brushwork.errors import BrushworkError

    try:
        observations = run_episode(url, subject, revisions, seed, workers, console)
    except BrushworkError as e:
        _fail(e)
    if as_json:
        typer.echo(json.dumps([o.model_dump(exclude={"image_png_b64", "system_prompt"}) for o in observations],
                              indent=2))
        return
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
    out.print(table)
