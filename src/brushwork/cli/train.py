"""`brushwork train`: the GRPO + LoRA recipe from one YAML file and TRL-style overrides."""

from __future__ import annotations

import typer
from rich.table import Table

from brushwork.cli.common import app, console, out, print_error

PANEL = "Training and evaluation"


def _missing_extra(e: ImportError):
    print_error(f"{e.name or e} is not installed: pip install 'brushwork[train]' "
                "(in a checkout, make setup installs it)")
    raise typer.Exit(2)


@app.command(rich_help_panel=PANEL, context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                                      "help_option_names": []})
def train(ctx: typer.Context):
    """Train a policy with GRPO + LoRA: brushwork train --config FILE [--key value ...].

    Every key of brushwork's arguments, TRL's GRPOConfig and ModelConfig may appear in the
    file or as an override (--learning_rate 1e-5, --max_steps 50, --env_urls ws://h:8000);
    brushwork's keys are also read from BRUSHWORK_<KEY> variables (file < variable < flag).
    `brushwork train --help` lists brushwork's keys; `--help-all` every key."""
    from brushwork.errors import ConfigError, DependencyNotInstalled
    from brushwork.train.config import compact_help, parse, trl_parser

    args = list(ctx.args)
    try:
        if "--help-all" in args:
            help_all = trl_parser().format_help()
            print(compact_help(), "", "TRL's keys (GRPOConfig, ModelConfig):", help_all, sep="\n")
            raise typer.Exit(0)
        if "--help" in args or "-h" in args or not args:
            print(compact_help())
            raise typer.Exit(0 if args else 2)
        brush, grpo, model = parse(args)
        from brushwork.train.run import train as run_train

        _announce(brush, grpo, model)
        result = run_train(brush, grpo, model, on_warmup=_warmup_done, on_plan=_plan)
    except (ConfigError, DependencyNotInstalled) as e:
        print_error(e)
        raise typer.Exit(2) from None
    except ImportError as e:   # torch, trl, peft, transformers: the train extra
        _missing_extra(e)
    table = Table(title="brushwork train", show_header=False)
    table.add_row("policy", result.model)
    table.add_row("GRPO steps", str(result.steps))
    table.add_row("minutes", f"{result.seconds / 60:.1f}")
    table.add_row("adapter", str(result.output_dir))
    table.add_row("film", str(result.output_dir / "film"))
    table.add_row("metrics", str(result.metrics))
    out.print(table)


def _announce(brush, grpo, model):
    where = ", ".join(brush.env_urls) if brush.env_urls else "in this process"
    what = "the tiny local model" if brush.tiny else model.model_name_or_path
    console.print(f"[bold]brushwork train[/]: {what}, {'multi-turn' if brush.multi_turn else 'single-turn'}, "
                  f"environment {where}, reward {brush.preset} (judge {brush.judge}, "
                  f"aesthetic {brush.aesthetic}), lr {grpo.learning_rate:g}, "
                  f"{'CPU' if grpo.use_cpu else 'GPU'}{', no gradient checkpointing' if grpo.use_cpu else ''}")


def _plan(plan):
    console.print(f"plan: {plan.rollouts.describe()}; {plan.processes} process(es), scoring {plan.scorer}")
    console.print(f"memory: {plan.memory.describe()}")


def _warmup_done(result):
    rate = "not checked" if result.gate_pass_rate is None else f"{result.gate_pass_rate:.0%} of {result.checked}"
    console.print(f"warm-up: {result.rows} pairs x {result.epochs:g} epochs in {result.seconds / 60:.1f} min, "
                  f"loss {result.loss:.3f}; gate pass rate after warm-up: {rate}")
    if result.tool_call_rate is not None:
        console.print(f"  tool-call rate after warm-up: {result.tool_call_rate:.0%} of {result.checked} first replies")
    if result.violations:
        console.print("  failing rules: " + ", ".join(f"{k} x{v}" for k, v in result.violations.items()))
