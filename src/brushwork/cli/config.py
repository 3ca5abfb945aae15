"""`brushwork config show`: the effective configuration, every key with its value and where
that value came from (default, file, environment, flag), read by the loader every command
uses, `brushwork train` included."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli.common import EverySetting, app, clear_errors, console, out, with_settings
from brushwork.train.config import TrainingSection, resolve_config

config_app = typer.Typer(no_args_is_help=True, help="The configuration: every setting, its value and its source.")
app.add_typer(config_app, name="config")

__all__ = ["EverySetting", "config_app"]


@config_app.command("show")
@with_settings(EverySetting, strict_file=False, resolve_file=resolve_config)
def show(
    config_file: str = typer.Option(None, "--config", metavar="NAME|FILE",
                                    help="YAML file of settings, or a bundled training config's name (tiny-cpu); a "
                                         "training config's TRL keys are checked and listed apart"),
    as_json: bool = typer.Option(False, "--json", help="print {key: {value, source}} as JSON"),
    options: EverySetting = None, options_sources: dict = None,
):
    """Print the effective configuration: defaults < --config FILE < BRUSHWORK_* variables < flags."""
    from brushwork.core.settings import env_name, flag, read_file, settings

    known = {f.name for f in fields(EverySetting)}
    other = sorted(set(read_file(config_file)) - known) if config_file else []
    if other:
        from brushwork.errors import DependencyNotInstalled
        from brushwork.train.config import trl_file_values

        with clear_errors():   # a training config's other keys are TRL's, checked as `brushwork train` checks them
            try:
                trl_file_values(read_file(config_file), config_file)
            except DependencyNotInstalled as e:
                console.print(f"warning: not checked: {e}", markup=False, highlight=False, soft_wrap=True)
    sources = options_sources
    values = {f.name: getattr(options, f.name) for f in settings(EverySetting)}
    if as_json:
        typer.echo(json.dumps({k: {"value": str(v) if isinstance(v, Path) else v, "source": sources[k]}
                               for k, v in values.items()} | ({"not_brushwork": other} if other else {}), indent=2))
        return
    table = Table("key", "value", "source", "flag", "environment", title="brushwork configuration")
    training = {f.name for f in fields(TrainingSection)}      # flags of `brushwork train` alone, spelled as TRL's
    for key, value in values.items():
        source = sources[key] if sources[key] == "default" else f"[bold]{sources[key]}[/]"
        table.add_row(key, repr(value), source, f"--{key}" if key in training else flag(key), env_name(key))
    out.print(table)
    if other:
        out.print(f"TRL's keys (read by `brushwork train`): {', '.join(other)}", markup=False)
