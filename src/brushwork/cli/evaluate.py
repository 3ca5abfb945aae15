"""`brushwork eval`: a policy on held-out prompts (--model) or saved rollouts (--film), measured
against the pool's evaluation split; writes OUT/eval.json, OUT/curves/*.png and a
self-contained OUT/report.html, and prints the summary table. The evaluation itself is
`brushwork.eval.runner.run_eval`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from brushwork.cli import exits
from brushwork.cli.common import app, console, out, progress, with_settings
from brushwork.score.options import ScoringOptions

PANEL = "Training and evaluation"
EVAL_SEED = 1_000_003   # brushwork.eval.generate.EVAL_SEED (not imported: --help stays light)


def _fail(e: Exception):
    exits.fail(e)


@app.command("eval", rich_help_panel=PANEL)
@with_settings(ScoringOptions)
def evaluate(
    model: str = typer.Option(None, "--model", help="policy: a local folder (save_pretrained) or a cached hub id"),
    adapter: str = typer.Option(None, "--adapter", help="PEFT adapter folder applied to --model"),
    film: Path = typer.Option(None, "--film", help="evaluate saved rollouts instead: a film or training run folder"),
    split: str = typer.Option("eval", "--split", help="pool split the win-rate references come from"),
    samples: int = typer.Option(4, "--samples", min=1, help="replies per prompt"),
    prompts: int = typer.Option(12, "--prompts", min=1, help="held-out prompts (first K of a seeded shuffle)"),
    domains: list[str] = typer.Option(None, "--domain", help="task domains (repeatable; default: all)"),
    prompt_seed: int = typer.Option(EVAL_SEED, "--prompt-seed", help="held-out prompt seed (training uses 0)"),
    out_dir: Path = typer.Option(None, "--out", help="output folder (default out/eval; with --ab, out/ab)"),
    compare: list[Path] = typer.Option(None, "--compare", help="film, run folder, eval output folder or eval.json"),
    runs: list[Path] = typer.Option(None, "--run", help="training output folder: curves from its metrics.jsonl"),
    max_new_tokens: int = typer.Option(512, "--max-new-tokens", min=1),
    temperature: float = typer.Option(1.0, "--temperature", min=0.0, help="0 = greedy"),
    top_p: float = typer.Option(0.95, "--top-p"), top_k: int = typer.Option(20, "--top-k"),
    seed: int = typer.Option(0, "--seed", min=0, max=2**32 - 1,
                             help="sampling seed (with --ab: the pairing and sides seed)"),
    references: int = typer.Option(6, "--references", min=1, help="evaluation references per painting"),
    film_steps: str = typer.Option("all", "--film-steps", help="evaluate every step of a film (all) or only "
                                   "its first and last (ends)"),
    gallery: int = typer.Option(24, "--gallery", min=1, help="prompts shown in the report's gallery"),
    device: str = typer.Option(None, help="torch device for generation (default: cuda when available)"),
    revisions: int = typer.Option(0, "--revisions", min=0, max=8, help="multi-turn: the policy submits with the "
                                  "submit_sketch tool, sees the critique and may revise K times; reports reward and "
                                  "gate pass rate by turn, the revision gain, fix rate and worse rate"),
    ab: tuple[Path, Path] | None = typer.Option(None, "--ab", metavar="RUN_A RUN_B",
                                         help="blind human A/B test: pair two films or run folders by prompt, "
                                         "hide which is which, and serve the rating page in pair mode"),
    ab_report: Path = typer.Option(None, "--ab-report", metavar="DIR", help="the human win rate of an A/B folder"),
    serve_ab: bool = typer.Option(True, "--serve/--no-serve", help="with --ab: serve the rating page"),
    port: int = typer.Option(8200, "--port", min=1, max=65535, help="with --ab: the rating page's port"),
    options: ScoringOptions = None, options_sources: dict = None,
):
    """Evaluate a policy on held-out prompts, or saved rollouts, against the pool's evaluation split;
    or run a blind human A/B test of two runs (--ab, then --ab-report)."""
    from brushwork.errors import BrushworkError

    if ab is not None:
        exits.out_dir(out_dir or Path("out/ab"))
        if serve_ab:
            exits.free_port("127.0.0.1", port)
    if ab_report is not None or ab is not None:
        try:
            ab_command(ab, ab_report, out_dir or Path("out/ab"), seed, serve_ab, port)
        except BrushworkError as e:
            _fail(e)
        return
    out_dir = exits.out_dir(out_dir or Path("out/eval"))
    from brushwork.eval.runner import Plan, run_eval
    from brushwork.eval.watch import summary_line

    try:
        scoring = options
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
    for label, flags in result.watches.items():
        out.print(summary_line(label, flags), markup=False)
    for run in result.runs:
        if run.revisions is not None:
            out.print(revision_table(run))
    _fail_when_nothing_scored(result.runs[0])


def _fail_when_nothing_scored(run) -> None:
    """Exit 1 when not one sample of the evaluated run has a reward (every total None: a failure on
    our side, not the policy's), after a table of why, so a dead judge is not read as a result."""
    from collections import Counter

    samples = (*run.first_samples, *run.samples)
    if not samples or any(s.card.total is not None for s in samples):
        return
    why = Counter(s.card.infra or "a term could not run (no reason recorded)" for s in samples)
    table = Table("why the reward is None", "samples", title=f"no sample of {run.label} has a reward")
    for reason, count in why.most_common():
        table.add_row(reason, str(count))
    out.print(table)
    exits.fail(f"none of the {len(samples)} sample(s) of {run.label} has a reward, a failure on our side and not "
               f"the policy's: {why.most_common(1)[0][0]}", exits.INCOMPLETE)


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


def ab_command(ab: tuple[Path, Path] | None, report_dir: Path | None, out_dir: Path, seed: int, serve: bool,
               port: int) -> None:
    from brushwork.errors import ConfigError
    from brushwork.eval import ab as ab_test

    if ab is not None and report_dir is not None:
        raise ConfigError("--ab prepares a test and --ab-report reads one: give one of them")
    if report_dir is not None:
        result = ab_test.report(report_dir)
        table = Table("measure", "value", title="brushwork A/B")
        for row in ab_test.report_rows(result):
            table.add_row(*row)
        out.print(table)
        console.print(f"wrote {Path(report_dir) / ab_test.REPORT_FILE}")
        return
    key = ab_test.prepare(ab[0], ab[1], out_dir, seed=seed)
    console.print(f"prepared {len(key['pairs'])} blind pairs in {out_dir} (the key is {out_dir / ab_test.KEY_FILE}; "
                  f"don't open it before rating)")
    if serve:
        from brushwork.pool.web import serve as run

        run(out_dir, port=port, blind=True, announce=lambda url: out.print(
            f"rating page on {url}?mode=pair ; then `brushwork eval --ab-report {out_dir}`"))
