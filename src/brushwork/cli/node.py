"""`brushwork node up`: bring a training node's scoring services up from a node plan (the judge,
HPSv3, the environment server), wait for their health and print the train command; `node plans`
lists the shipped plans."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli import exits
from brushwork.cli.common import app, console, out, print_error

node_app = typer.Typer(no_args_is_help=True, help="Bring a training node's scoring services up (judge, HPSv3, "
                                                  "environment server) and print the train command.")
app.add_typer(node_app, name="node", rich_help_panel="Environment")


def _split(plan) -> Table:
    table = Table("service", "GPUs", "CPU cores", "URL", "after", "how", title=f"node plan {plan.name}: "
                  f"{plan.gpus} GPU(s)" + (f" - {plan.about}" if plan.about else ""))
    for name, s in plan.services.items():
        cpus = (str(s.cpus) if s.cpus else "one per core") if s.command else "-"
        table.add_row(name, ",".join(map(str, s.gpus)) or "-", cpus, s.base_url(), ",".join(s.after) or "-",
                      "started here" if s.command else "already running")
    table.add_row("train", ",".join(map(str, plan.train_gpus)) or "-", "-", "-", "every service", "printed")
    return table


def _train_command(plan) -> str:
    import importlib.util

    # found without importing the training stack (a scoring node may not have the train extra)
    train = Path(importlib.util.find_spec("brushwork.train").submodule_search_locations[0])
    return plan.train_command(accelerate_configs=str(train / "configs" / "accelerate"))


@node_app.command("up")
def up(
    plan: str = typer.Option("cpu", help="a shipped plan (brushwork node plans) or a node plan YAML file"),
    logs: Path = typer.Option(Path("out/node"), help="folder for each service's log"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the split and the commands; start nothing"),
):
    """Start the plan's services (each on its GPUs, in its own process group), wait until every one
    answers its health check, print the train command, and keep them running until Ctrl-C; a service
    that dies stops the node with its log's last lines (exit 1)."""
    from brushwork.env.node import Node, load_plan
    from brushwork.errors import BrushworkError

    try:
        node_plan = load_plan(plan)
        train = _train_command(node_plan)
    except BrushworkError as e:
        print_error(exits.one_line(e))   # a YAML error's own lines would read as a traceback
        raise typer.Exit(2) from None
    out.print(_split(node_plan))
    if dry_run:
        for name, s in node_plan.services.items():
            print(f"{name}: {node_plan.command(name) if s.command else 'check ' + s.base_url() + s.health}")
        print(f"train: {train}")
        return
    try:
        with Node(node_plan, logs, say=lambda line: console.print(line, highlight=False)) as node:
            node.up()
            print(f"ready: every service answers; train with:\n  {train}", flush=True)
            why = node.watch()
            if why != "signal":
                print_error(f"{why} exited with status {node.procs[why].returncode}; stopping the node. "
                            f"Its log ({node.log_path(why)}):\n{node.tail(why)}")
                raise typer.Exit(1)
            console.print("stopping the node")
    except BrushworkError as e:
        print_error(e)
        raise typer.Exit(1) from None


@node_app.command("plans")
def plans():
    """The shipped node plans: what each runs where."""
    from brushwork.env.node import load_plan, plan_names

    table = Table("plan", "GPUs", "services", "about", title="brushwork node plans (brushwork node up --plan NAME)")
    for name in plan_names():
        p = load_plan(name)
        table.add_row(name, str(p.gpus), ", ".join(p.services), p.about)
    out.print(table)
