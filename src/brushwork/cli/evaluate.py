"""`brushwork eval`: a policy on held-out prompts (--model) or saved rollouts (--film), measured
against the pool's evaluation split; writes OUT/eval.json, OUT/curves/*.png and a
self-contained OUT/report.html, and prints the summary table. The evaluation itself is
`brushwork.eval.runner.run_eval`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli.common import RayAddressOpt, RenderBackendOpt, app, console, out, progress
from brushwork.cli.score import (
    AestheticOpt,
    Hpsv3UrlOpt,
    JudgeModelOpt,
    JudgeOpt,
    JudgeUrlOpt,
    PoolOpt,
    PresetOpt,
    PromptOpt,
    RewardConfigOpt,
    SnapshotOpt,
    TasteOpt,
)

PANEL = "Training and evaluation"
EVAL_SEED = 1_000_003   # brushwork.eval.generate.EVAL_SEED (not imported: --help stays light)


def _fail(e: Exception):
    console.print(f"[red]error:[/] {e}")
    raise typer.Exit(2)


@app.command("eval", rich_help_panel=PANEL)
def evaluate(
    model: str = typer.Option(None, "--model", help="policy: a local folder (save_pretrained) or a cached hub id"),
    adapter: str = typer.Option(None, "--adapter", help="PEFT adapter folder applied to --model"),
    film: Path = typer.Option(None, "--film", help="evaluate saved rollouts instead: a film or training run folder"),
    pool_dir: Path = PoolOpt, snapshot: str = SnapshotOpt,
    split: str = typer.Option("eval", "--split", help="pool split the win-rate references come from"),
    samples: int = typer.Option(4, "--samples", min=1, help="replies per prompt"),
    prompts: int = typer.Option(12, "--prompts", min=1, help="held-out prompts (first K of a seeded shuffle)"),
    domains: list[str] = typer.Option(None, "--domain", help="task domains (repeatable; default: all)"),
    prompt_seed: int = typer.Option(EVAL_SEED, "--prompt-seed", help="held-out prompt seed (training uses 0)"),
    out_dir: Path = typer.Option(Path("out/eval"), "--out", help="output folder"),
    compare: list[Path] = typer.Option(None, "--compare", help="film, run folder, eval output folder or eval.json"),
    runs: list[Path] = typer.Option(None, "--run", help="training output folder: curves from its metrics.jsonl"),
    max_new_tokens: int = typer.Option(512, "--max-new-tokens", min=1),
    temperature: float = typer.Option(1.0, "--temperature", min=0.0, help="0 = greedy"),
    top_p: float = typer.Option(0.95, "--top-p"), top_k: int = typer.Option(20, "--top-k"),
    seed: int = typer.Option(0, "--seed", help="sampling seed"),
    references: int = typer.Option(6, "--references", min=1, help="evaluation references per painting"),
    film_steps: str = typer.Option("all", "--film-steps", help="evaluate every step of a film (all) or only "
                                   "its first and last (ends)"),
    gallery: int = typer.Option(24, "--gallery", min=1, help="prompts shown in the report's gallery"),
    preset: str = PresetOpt, reward_file: Path = RewardConfigOpt,
    judge: str = JudgeOpt, judge_url: str = JudgeUrlOpt, judge_model: str = JudgeModelOpt,
    judge_prompt: str = PromptOpt,
    aesthetic: str = AestheticOpt, hpsv3_url: str = Hpsv3UrlOpt,
    taste: Path = TasteOpt,
    workers: int = typer.Option(0, help="parallel browsers (default: one per core)"),
    render_backend: str = RenderBackendOpt, ray_address: str = RayAddressOpt,
    device: str = typer.Option(None, help="torch device for generation (default: cuda when available)"),
    revisions: int = typer.Option(0, "--revisions", min=0, max=8, help="multi-turn: the policy submits with the "
                                  "submit_sketch tool, sees the critique and may revise K times; reports reward and "
                                  "gate pass rate by turn, the revision gain, fix rate and worse rate"),
):
    """Evaluate a policy on held-out prompts, or saved rollouts, against the pool's evaluation split."""
    from brushwork.errors import BrushworkError
    from brushwork.eval.runner import Plan, run_eval
    from brushwork.score.options import ScoringOptions

    try:
        scoring = ScoringOptions(pool=pool_dir, snapshot=snapshot, preset=preset, reward_file=reward_file,
                                 judge=judge, judge_url=judge_url, judge_model=judge_model, judge_prompt=judge_prompt,
                                 aesthetic=aesthetic, hpsv3_url=hpsv3_url, taste_model=taste, workers=workers,
                                 render_backend=render_backend or "local", ray_address=ray_address)
        plan = Plan(model=model, adapter=adapter, film=film, out=out_dir, scoring=scoring, split=split,
                    samples=samples, prompts=prompts, domains=tuple(domains or ()), prompt_seed=prompt_seed,
                    compare=tuple(compare or ()), runs=tuple(runs or ()), max_new_tokens=max_new_tokens,
                    temperature=temperature, top_p=top_p, top_k=top_k, seed=seed, references=references,
                    film_steps=film_steps, gallery=gallery, device=device, revisions=revisions)
        result = run_eval(plan, progress)
    except BrushworkError as e:
        _fail(e)
    console.print(f"wrote {result.report}, {result.eval_json} and {len(result.curves)} curve plot(s)")
    out.print(summary_table(result.runs))
    for run in result.runs:
        if run.revisions is not None:
            out.print(revision_table(run))


def summary_table(runs) -> Table:
    from brushwork.eval.report import table_rows

    headers, rows = table_rows(runs)
    table = Table(*headers, title="brushwork eval")
    for row in rows:
        table.add_row(*row)
    return table


def revision_table(run) -> Table:
    from brushwork.eval.report import revision_rows

    table = Table("measure", "value", title=f"revisions · {run.label}")
    for row in revision_rows(run.revisions):
        table.add_row(*row)
    return table
