"""`brushwork doctor`: what this machine can run (render, rate, serve, train, reach a Ray cluster)
and what to install for the rest. The checks are `brushwork.render.doctor`; this prints them."""

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
    """Check Chromium, p5 / p5.brush, Prism, the extras (env, train, taste, ray) and a Ray cluster;
    say which commands each serves and what to install. Exit 0 when every required check passes
    (rendering, scoring and the rating page), 1 otherwise."""
    from rich.markup import escape

    from brushwork.render.doctor import run_checks

    if ray_address:
        console.print(f"joining the Ray cluster at {ray_address} (up to {timeout:g}s)", markup=False)
    checks = run_checks(chromium, ray_address, timeout)
    ok = all(c.ok for c in checks if c.required)
    if as_json:
        typer.echo(json.dumps({"ok": ok, "checks": [c.to_dict() for c in checks]}, indent=2))
    else:
        table = Table("check", "", "for", "found", "to fix", title="brushwork doctor")
        for c in checks:
            mark = "[green]ok[/]" if c.ok else ("[red]FAIL[/]" if c.required else "[yellow]missing[/]")
            table.add_row(escape(c.name), mark, escape(c.needed_by), escape(c.detail), "" if c.ok else escape(c.fix))
        out.print(table)
        missing = [c for c in checks if not c.ok and not c.required]
        lacking = "".join(f"; without {c.name.removeprefix('extra: ')}: {c.needed_by} ({c.fix})" for c in missing)
        out.print(("[green]ready to render, score and rate[/]" if ok else "[red]not ready[/]: see the failed checks")
                  + escape(lacking), soft_wrap=True)
    raise typer.Exit(0 if ok else 1)
