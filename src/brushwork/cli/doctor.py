"""`brushwork doctor`: is this machine ready to render (and train, and reach a Ray cluster)?
The checks are `brushwork.render.doctor`; this prints them."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from brushwork.cli.common import app, console, out


@app.command()
def doctor(
    chromium: str = typer.Option(None, "--chromium", help="Chromium binary to check [$BRUSHWORK_CHROMIUM; Debian's]"),
    ray_address: str = typer.Option(None, "--ray-address", envvar=["BRUSHWORK_RAY_ADDRESS", "RAY_ADDRESS"],
                                    help="also join this Ray cluster (auto, HOST:PORT or ray://HOST:PORT) and "
                                         "read its resources"),
    timeout: float = typer.Option(20.0, "--timeout", min=1.0, help="seconds the cluster check may take"),
    as_json: bool = typer.Option(False, "--json", help="print {ok, checks: [...]} as JSON"),
):
    """Check Chromium, p5 / p5.brush, the optional extras and a Ray cluster; say what to install.
    Exit 0 when every required check passes, 1 otherwise."""
    from rich.markup import escape

    from brushwork.render.doctor import run_checks

    if ray_address:
        console.print(f"joining the Ray cluster at {ray_address} (up to {timeout:g}s)", markup=False)
    checks = run_checks(chromium, ray_address, timeout)
    ok = all(c.ok for c in checks if c.required)
    if as_json:
        typer.echo(json.dumps({"ok": ok, "checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        table = Table("check", "", "found", "to fix", title="brushwork doctor")
        for c in checks:
            mark = "[green]ok[/]" if c.ok else ("[red]FAIL[/]" if c.required else "[yellow]missing[/]")
            table.add_row(escape(c.name), mark, escape(c.detail), "" if c.ok else escape(c.fix))
        out.print(table)
        out.print("[green]ready to render[/]" if ok else "[red]not ready[/]: see the failed checks")
    raise typer.Exit(0 if ok else 1)
