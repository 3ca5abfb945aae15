"""What every command shares: the app, consoles, progress bars, config builders."""

from __future__ import annotations

import sys
from contextlib import contextmanager

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Render, gate and score p5.brush paintings written by code models.")
console = Console(stderr=True)
# Tables stay readable when piped or logged (rich would otherwise wrap them at 80 columns).
out = Console(width=None if sys.stdout.isatty() else 150)


def _print_version(value: bool) -> None:
    if value:
        from brushwork import __version__

        print(f"brushwork {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="print brushwork's version and exit")) -> None:
    """Render, gate and score p5.brush paintings written by code models."""

FilesArg = typer.Argument(..., exists=True, dir_okay=False, readable=True,
                          help="sketch files (.js) or whole model replies (.md, .txt)")


def print_error(message: object) -> None:
    """`error: <message>` on stderr, the message taken literally (rich would read
    `brushwork[train]` in an install line as markup and drop the `[train]`)."""
    from rich.markup import escape

    console.print("[red]error:[/] " + escape(str(message)))


@contextmanager
def clear_errors():
    """A `BrushworkError` (a config that cannot work, a service that is down) ends the command
    with its message and exit status 2, not a traceback."""
    from brushwork.errors import BrushworkError

    try:
        yield
    except BrushworkError as e:
        print_error(e)
        raise typer.Exit(2) from None


def _render_backend(value: str | None) -> str | None:
    from brushwork.errors import ConfigError
    from brushwork.render.config import check_backend

    try:
        return value if value is None else check_backend(value)
    except ConfigError as e:
        raise typer.BadParameter(str(e)) from e


# Where paintings are made, on every command that renders (ScoringOptions.render_backend / ray_address,
# RenderConfig.backend / ray_address). None: the command's default (local; Ray's own $RAY_ADDRESS, else auto).
RenderBackendOpt = typer.Option(None, "--render-backend", envvar="BRUSHWORK_RENDER_BACKEND", callback=_render_backend,
                                help="where paintings are made: local (Chromium here), ray (render workers on a "
                                     "Ray cluster, with the ray extra installed; the cache stays here) or "
                                     "package.module:Class (your RenderBackend); default local")
# p5.brush's blend shader (RenderConfig.brush_shader; brushwork.render.brush_patch). None: the
# RenderConfig default, which reads BRUSHWORK_BRUSH_SHADER itself (so serve / train / eval follow it too).
BrushShaderOpt = typer.Option(None, "--brush-shader", envvar="BRUSHWORK_BRUSH_SHADER",
                              help="p5.brush's blend shader: deterministic (rewritten, ~0.7x the CPU, byte-identical "
                                   "renders), fast (rewritten, upstream's edge noise) or upstream (p5.brush's own "
                                   "build); default deterministic")
RayAddressOpt = typer.Option(None, "--ray-address", envvar="BRUSHWORK_RAY_ADDRESS",
                             help="with --render-backend ray: the cluster, auto or HOST:PORT "
                                  "[$RAY_ADDRESS, else auto]")


def progress():
    """A progress bar on the commands' stderr console: live on a terminal, plain lines otherwise."""
    from brushwork.core.progress import progress as on_console

    return on_console(console)


def gate_config(allow: str | None, size: int):
    from brushwork.errors import ConfigError
    from brushwork.gate import DEFAULT_ALLOWED, GateConfig

    methods = tuple(m.strip().removeprefix("brush.") for m in allow.split(",") if m.strip()) if allow \
        else DEFAULT_ALLOWED
    try:
        return GateConfig(allowed_methods=methods, canvas_size=size)
    except ConfigError as e:
        raise typer.BadParameter(str(e), param_hint="--allow / --size") from e


def render_config(workers: int | None, size: int = 600, no_cache: bool = False, timeout: float = 60.0,
                  cpu_budget: float | None = None, backend: str | None = None, ray_address: str | None = None,
                  brush_shader: str | None = None):
    from brushwork.errors import ConfigError
    from brushwork.render import RenderConfig

    kwargs = {"size": size, "use_cache": not no_cache, "timeout_s": timeout}
    if workers:
        kwargs["workers"] = workers
    if cpu_budget:
        kwargs["cpu_budget_s"] = cpu_budget
    if backend:
        kwargs["backend"] = backend
    if ray_address:
        kwargs["ray_address"] = ray_address
    if brush_shader:
        kwargs["brush_shader"] = brush_shader
    try:
        return RenderConfig(**kwargs)
    except ConfigError as e:
        raise typer.BadParameter(str(e), param_hint="--timeout / --cpu-budget / --workers / --size / "
                                                    "--render-backend / --brush-shader") from e


def load_pool_with_progress(path=None, renderer=None, snapshot=None):
    """`brushwork.pool.snapshot.load_pool_with_progress` with the commands' progress."""
    from brushwork.pool.snapshot import load_pool_with_progress as load

    return load(path, progress, renderer=renderer, snapshot=snapshot)
