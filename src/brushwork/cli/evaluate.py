"""`brushwork eval`: a policy on held-out prompts (--model) or saved rollouts (--film), measured
against the pool's evaluation split; writes OUT/eval.json, OUT/curves/*.png and a
self-contained OUT/report.html, and prints the summary table."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from brushwork.cli.common import app, console, load_pool_with_progress, out, progress, render_config
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

if TYPE_CHECKING:
    from brushwork.score.build import BackendOptions

PANEL = "Training and evaluation"
EVAL_SEED = 1_000_003   # brushwork.eval.generate.EVAL_SEED (not imported: --help stays light)


@dataclass(frozen=True)
class Plan:
    """Every option of one `brushwork eval`, checked."""

    model: str | None
    adapter: str | None
    film: Path | None
    out: Path
    pool: Path | None = None
    snapshot: str | None = None
    split: str = "eval"
    samples: int = 4
    prompts: int = 12
    domains: tuple[str, ...] = ()
    prompt_seed: int = EVAL_SEED
    compare: tuple[Path, ...] = ()
    runs: tuple[Path, ...] = ()
    max_new_tokens: int = 512
    temperature: float = 1.0
    top_p: float = 0.95
    top_k: int = 20
    seed: int = 0
    references: int = 6
    film_steps: str = "all"
    gallery: int = 24
    preset: str = "judge-led"
    reward_file: Path | None = None
    backends: BackendOptions | None = None
    workers: int = 0
    device: str | None = None


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
    device: str = typer.Option(None, help="torch device for generation (default: cuda when available)"),
):
    """Evaluate a policy on held-out prompts, or saved rollouts, against the pool's evaluation split."""
    from brushwork.errors import BrushworkError
    from brushwork.score.build import BackendOptions

    backends = BackendOptions(judge=judge, judge_url=judge_url, judge_model=judge_model, judge_prompt=judge_prompt,
                              aesthetic=aesthetic, hpsv3_url=hpsv3_url, taste_model=taste)
    plan = Plan(model, adapter, film, out_dir, pool_dir, snapshot, split, samples, prompts, tuple(domains or ()),
                prompt_seed, tuple(compare or ()), tuple(runs or ()), max_new_tokens, temperature, top_p, top_k,
                seed, references, film_steps, gallery, preset, reward_file, backends, workers, device)
    try:
        result = run_eval(plan)
    except BrushworkError as e:
        _fail(e)
    out.print(result)


def _check(plan: Plan) -> list:
    """Fail before any slow work; returns the resolved comparison sources."""
    from brushwork.errors import ConfigError
    from brushwork.eval.collect import resolve_film, resolve_source
    from brushwork.eval.generate import check_source

    if (plan.model is None) == (plan.film is None):
        raise ConfigError("give either --model PATH (a policy to sample) or --film DIR (saved rollouts), not both")
    if plan.film_steps not in ("all", "ends"):
        raise ConfigError(f"--film-steps must be all or ends, got {plan.film_steps!r}")
    if plan.model is not None:
        check_source(plan.model, "model")
        check_source(plan.adapter, "adapter")
        if plan.samples < 1 or plan.prompts < 1:
            raise ConfigError("--samples and --prompts must be >= 1")
    else:
        resolve_film(plan.film)
    for run in plan.runs:
        if not (run / "metrics.jsonl").is_file() and not (run.is_file() and run.suffix == ".jsonl"):
            raise ConfigError(f"--run {run}: no metrics.jsonl there (brushwork train writes OUTPUT_DIR/metrics.jsonl)")
    return [resolve_source(p) for p in plan.compare]


def run_eval(plan: Plan) -> Table:
    """The whole evaluation; returns the summary table (everything else goes to plan.out)."""
    from brushwork.eval.collect import check_eval_split, resolve_source
    from brushwork.eval.report import eval_json, run_from_json, write_report
    from brushwork.score.build import build_backends, reward_config

    sources = _check(plan)
    pool = load_pool_with_progress(plan.pool, snapshot=plan.snapshot)
    check_eval_split(pool, plan.split)
    # The win rate always asks the judge, whatever the scoring preset weighs.
    judge, _ = build_backends(pool, plan.backends, reward_config("judge-led", None))
    primary = _model_run(plan, pool, judge) if plan.model else _film_run(plan.film, plan, pool, judge)
    others = [run_from_json(s.eval_json) if s.eval_json else _film_run(s.film, plan, pool, judge, s.label)
              for s in sources]
    others = _unique_labels(primary, others)
    metrics_files = [*plan.runs, *(s.metrics for s in sources if s.metrics)]
    if plan.film is not None and (own := resolve_source(plan.film).metrics):
        metrics_files.insert(0, own)
    curves = _curves(plan.out / "curves", metrics_files, [primary, *others])
    plan.out.mkdir(parents=True, exist_ok=True)
    data = eval_json(primary, others, [str(p.relative_to(plan.out)) for p in curves])
    (plan.out / "eval.json").write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    report = write_report(plan.out / "report.html", primary, others, curves, plan.gallery)
    console.print(f"wrote {report}, {plan.out / 'eval.json'} and {len(curves)} curve plot(s)")
    return summary_table([primary, *others])


def _unique_labels(primary, others):
    import dataclasses

    seen, fixed = {primary.label}, []
    for run in others:
        label, n = run.label, 2
        while label in seen:
            label, n = f"{run.label} ({n})", n + 1
        seen.add(label)
        fixed.append(dataclasses.replace(run, label=label))
    return fixed


def _judge(samples, plan: Plan, pool, judge, what: str):
    from brushwork.eval.collect import judge_samples, judged_count

    with progress() as bar:
        task = bar.add_task(f"judging {what} against the {plan.split} references", total=judged_count(samples))
        return judge_samples(samples, judge, pool, plan.references, plan.split, on_done=lambda: bar.advance(task))


def _model_run(plan: Plan, pool, judge):
    from brushwork.eval.collect import record_film, score_replies
    from brushwork.eval.generate import generate_replies, held_out_rows
    from brushwork.eval.metrics import EvalRun, by_step
    from brushwork.score.service import ScoringService, ServiceConfig

    film_dir = _fresh_film_dir(plan.out)
    rows = held_out_rows(list(plan.domains) or None, plan.prompts, plan.prompt_seed)
    config = ServiceConfig(pool=plan.pool, snapshot=plan.snapshot, preset=plan.preset, reward_file=plan.reward_file,
                           backends=plan.backends, render=render_config(plan.workers))
    # The scorer starts first: a wrong scoring setting fails before minutes of generation.
    with ScoringService(config) as service:
        with progress() as bar:
            task = bar.add_task(f"generating {plan.samples} replies to each prompt", total=len(rows))
            replies = generate_replies(plan.model, plan.adapter, rows, plan.samples, plan.max_new_tokens,
                                       plan.temperature, plan.top_p, plan.top_k, plan.seed, device=plan.device,
                                       on_prompt=lambda n: bar.update(task, completed=n))
        with progress() as bar:
            task = bar.add_task("gating, rendering and scoring", total=sum(len(r) for r in replies))
            samples = score_replies(service, rows, replies, on_done=lambda: bar.advance(task))
    samples = _judge(samples, plan, pool, judge, "the paintings")
    record_film(samples, film_dir)
    label = Path(plan.model).name + (f"+{Path(plan.adapter).name}" if plan.adapter else "")
    info = {"model": plan.model, **({"adapter": plan.adapter} if plan.adapter else {}),
            "prompts": f"{len(rows)} (seed {plan.prompt_seed})", "samples per prompt": str(plan.samples),
            "sampling": f"T={plan.temperature} top_p={plan.top_p} top_k={plan.top_k} seed={plan.seed} "
                        f"max_new_tokens={plan.max_new_tokens}",
            **_scoring_info(plan, pool, judge)}
    return EvalRun(label, "model", info, by_step(samples), tuple(samples))


def _fresh_film_dir(out_dir: Path) -> Path:
    """OUT/film, emptied when it holds an earlier eval's film, refused when it holds anything else."""
    from brushwork.errors import ConfigError

    film = out_dir / "film"
    if film.exists():
        if not (out_dir / "eval.json").is_file():
            raise ConfigError(f"{film} exists and is not an earlier `brushwork eval` output: choose another --out")
        shutil.rmtree(film)
    return film


def _scoring_info(plan: Plan, pool, judge) -> dict[str, str]:
    return {"pool": f"{plan.pool or 'the bundled example pool'} (snapshot {pool.snapshot})",
            "references": f"up to {plan.references} love/okay paintings of the {plan.split!r} split per prompt",
            "judge": judge.backend.model_id, "scoring preset": plan.preset}


def _film_run(path: Path, plan: Plan, pool, judge, label: str | None = None):
    from brushwork.eval.collect import film_samples, resolve_film, resolve_source
    from brushwork.eval.metrics import EvalRun, by_step

    folder = resolve_film(path)
    samples = film_samples(folder)
    steps = sorted({s.step for s in samples})
    if plan.film_steps == "ends":
        samples = [s for s in samples if s.step in (steps[0], steps[-1])]
    samples = _judge(samples, plan, pool, judge, f"{len(samples)} frames")
    info = {"film": str(folder), "frames": str(len(samples)), "steps": f"{steps[0]}..{steps[-1]} ({len(steps)})",
            **_scoring_info(plan, pool, judge)}
    info.pop("scoring preset")   # a film's cards were scored when it was recorded
    return EvalRun(label or resolve_source(path).label, "film", info, by_step(samples), tuple(samples))


def _curves(folder: Path, metrics_files: list[Path], runs) -> list[Path]:
    from brushwork.eval.curves import read_metrics, series, training_curves
    from brushwork.eval.metrics import step_series

    if folder.is_dir():
        for stale in folder.glob("*.png"):
            stale.unlink()
    training, seen = {}, set()
    for path in metrics_files:
        path = Path(path)
        key = (path if path.is_file() else path / "metrics.jsonl").resolve()
        if key in seen:
            continue
        seen.add(key)
        name = key.parent.name
        training[name if name not in training else f"{name} ({len(training) + 1})"] = series(read_metrics(path))
    paths = training_curves(training, folder) if training else []
    films = {r.label: step_series(list(r.samples)) for r in runs if len({s.step for s in r.samples}) > 1}
    return paths + (training_curves(films, folder, prefix="film") if films else [])


def summary_table(runs) -> Table:
    from brushwork.eval.report import table_rows

    headers, rows = table_rows(runs)
    table = Table(*headers, title="brushwork eval")
    for row in rows:
        table.add_row(*row)
    return table
