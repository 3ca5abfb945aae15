"""What every command shares: the app, consoles, progress bars, and the command-line options
derived from the configuration schema (`with_settings`), read by the one settings loader
(`brushwork.core.settings.load`) against every setting (`EverySetting`)."""

from __future__ import annotations

import functools
import inspect
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from typer.core import TyperGroup

from brushwork.env.settings import ServerSettings
from brushwork.train.config import TrainingSection

# A command line's mistakes: click's UsageError, which BadParameter extends (typer >= 0.29 vendors
# its own click, so it is named through typer).
USAGE_ERROR = typer.BadParameter.__mro__[1]


class BrushworkGroup(TyperGroup):
    """A bad option or value ends a command with one line naming it, exit status 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except USAGE_ERROR as e:
            print_error(e.format_message().replace("\n", " "))
            sys.exit(2)
        except typer.Abort:
            print_error("aborted")
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


# Help in click's plain layout: rich's tables cut long option names and variable names
# (`--copy-image-simila…`) at 80 columns and whenever help is piped; click's wraps them whole.
app = typer.Typer(add_completion=False, no_args_is_help=True, cls=BrushworkGroup, rich_markup_mode=None,
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

    console.print("[red]error:[/] " + escape(str(message)), soft_wrap=True, highlight=False)


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


def progress():
    """A progress bar on the commands' stderr console: live on a terminal, plain lines otherwise."""
    from brushwork.core.progress import progress as on_console

    return on_console(console)


SEED_MAX = 2**32 - 1
SeedOpt = typer.Option(0, "--seed", min=0, max=SEED_MAX, help="render seed, 0 to 2**32-1")

@dataclass(frozen=True)
class EverySetting(TrainingSection, ServerSettings):
    """Every section at once: the keys a `--config` file may hold, and what `config show` reads."""


def with_settings(cls, keys=None, skip=(), strict_file: bool = True, resolve_file=None):
    """Give a command one option per setting of `cls` (a `ScoringOptions`-like class; only
    `keys` when given), plus `--config FILE`, and hand it `options`: the settings loaded from
    defaults < file < BRUSHWORK_* < flags, with `options_sources` (where each came from).
    A file may hold any brushwork setting (one file serves every command), each checked; any
    other key is refused unless `strict_file=False` (TRL's, in a training config, that the
    command checks itself). A command that declares `--config` itself may name a
    `resolve_file(value) -> Path` (a bundled config's name). Old spellings (`aliases`) are
    hidden options that warn and name the new one."""
    from brushwork.core.settings import default_of, env_name, flag, settings, value_types

    def decorate(func):
        kinds = value_types(cls)
        chosen = [f for f in settings(cls) if f.metadata["cli"] and (keys is None or f.name in keys)
                  and f.name not in skip]
        params, annotations, aliases = [], {}, {}
        for f in chosen:
            kind = kinds[f.name]
            default = default_of(f)
            shown = f"; default: {default}" if default is not None else ""
            help_text = f"{f.metadata['help']} [{env_name(f.name)}{shown}]"
            decls = [f"{flag(f.name)}/--no-{flag(f.name)[2:]}"] if kind is bool else [flag(f.name)]
            params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=kind | None,
                                            default=typer.Option(None, *decls, help=help_text, show_default=False)))
            annotations[f.name] = kind | None
            for old in f.metadata["aliases"]:
                name = "alias_" + old.lstrip("-").replace("-", "_")
                off = kind is bool and old.startswith("--no-")
                opt = typer.Option(False, old, hidden=True) if kind is bool \
                    else typer.Option(None, old, hidden=True)
                params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                                annotation=bool if kind is bool else kind | None, default=opt))
                annotations[name] = bool if kind is bool else kind | None
                aliases[name] = (f.name, old, not off if kind is bool else None)
        wants_file = "config_file" in inspect.signature(func).parameters   # it declares --config itself
        if not wants_file:
            params.append(inspect.Parameter("config_file", inspect.Parameter.KEYWORD_ONLY, annotation=Path | None,
                                            default=typer.Option(None, "--config", exists=True, dir_okay=False,
                                                                 help="YAML file of settings (any brushwork key)")))
            annotations["config_file"] = Path | None
        names = {f.name for f in chosen}

        @functools.wraps(func)
        def wrapper(**kwargs):
            flags = {k: kwargs.pop(k) for k in list(kwargs) if k in names}
            for name, (key, old, value) in aliases.items():
                given = kwargs.pop(name)
                if given not in (None, False):
                    new = flag(key) if value is None or value else f"--no-{flag(key)[2:]}"
                    console.print(f"[yellow]warning:[/] {old} is deprecated; use {new}", highlight=False,
                                  soft_wrap=True)
                    flags[key] = flags[key] if flags.get(key) is not None else (given if value is None else value)
            file = kwargs["config_file"] if wants_file else kwargs.pop("config_file")
            if file is not None and resolve_file is not None:
                with clear_errors():
                    file = kwargs["config_file"] = resolve_file(file)
            options, sources = load_settings(cls, file, flags, keys=None if keys is None and not skip else names,
                                             strict_file=strict_file)
            return func(**kwargs, options=options, options_sources=sources)

        own = [p for p in inspect.signature(func).parameters.values()
               if p.name not in ("options", "options_sources")]
        wrapper.__signature__ = inspect.Signature(own + params)
        wrapper.__annotations__ = {**{k: v for k, v in func.__annotations__.items()
                                      if k not in ("options", "options_sources")}, **annotations}
        return wrapper
    return decorate


def load_settings(cls, file=None, flags=None, keys=None, strict_file=True):
    """`brushwork.core.settings.load` with a file checked against every setting, its errors one
    line naming the option as the user spelled it."""
    from brushwork.core.settings import load
    from brushwork.errors import BrushworkError

    try:
        return load(cls, file=file, flags=flags, keys=keys, known=EverySetting, strict_file=strict_file)
    except BrushworkError as e:
        print_error(e)
        raise typer.Exit(2) from None
