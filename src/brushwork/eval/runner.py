"""The whole of one `brushwork eval`: a policy on held-out prompts (`Plan.model`) or saved
rollouts (`Plan.film`), measured against the pool's evaluation split. Writes OUT/eval.json,
OUT/curves/*.png and a self-contained OUT/report.html, and returns the runs it measured
(the command line prints their summary).

Progress bars come in as `progress`: a callable returning a rich `Progress` context manager
(the command line's); by default nothing is shown.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.eval.generate import EVAL_SEED
from brushwork.score.options import ScoringOptions


def quiet_progress():
    """A progress bar that shows nothing (the default of `run_eval`)."""
    from rich.progress import Progress

    return Progress(disable=True)


@dataclass(frozen=True)
class Plan:
    """Every option of one `brushwork eval`, checked. `scoring` scores a model's replies (the
    pool, preset, backends and renderer); the win rate always asks its judge."""

    model: str | None
    adapter: str | None
    film: Path | None
    out: Path
    scoring: ScoringOptions = field(default_factory=ScoringOptions)
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
    device: str | None = None
    revisions: int = 0      # > 0: multi-turn episodes with up to this many revisions


@dataclass(frozen=True)
class EvalResult:
    """What `run_eval` measured and wrote: the evaluated run first, then the compared ones."""

    runs: tuple  # EvalRun, ...
    eval_json: Path
    report: Path
    curves: tuple[Path, ...]
    watches: dict = field(default_factory=dict)   # run label -> its hacking watch (`eval.watch.Flag`s)


def run_eval(plan: Plan, progress: Callable = quiet_progress) -> EvalResult:
    """The whole evaluation (everything is written to plan.out)."""
    from brushwork.eval.collect import check_eval_split, resolve_source
    from brushwork.eval.report import eval_json, run_from_json, write_report
    from brushwork.eval.watch import run_watch
    from brushwork.score.build import build_eval_judge
    from brushwork.score.pipeline import Pipeline

    sources = _check(plan)
    # One pipeline for the whole evaluation: its event loop serves every scoring and judging
    # pass (the judge's HTTP client is bound to it), and it starts before minutes of generation,
    # so a wrong scoring setting fails first. Its browsers start only if a reply is rendered.
    with Pipeline(plan.scoring, progress=progress) as pipeline:
        check_eval_split(pipeline.pool, plan.split)
        # The win rate always asks the judge, whatever the scoring preset weighs.
        judge = pipeline.own(build_eval_judge(pipeline.pool, plan.scoring))
        if plan.model:
            primary = (_multi_turn_run if plan.revisions else _model_run)(plan, pipeline, judge, progress)
        else:
            primary = _film_run(plan.film, plan, pipeline, judge, progress)
        others = [run_from_json(s.eval_json) if s.eval_json else _film_run(s.film, plan, pipeline, judge, progress,
                                                                           s.label)
                  for s in sources]
    others = _unique_labels(primary, others)
    metrics_files = [*plan.runs, *(s.metrics for s in sources if s.metrics)]
    if plan.film is not None and (own := resolve_source(plan.film).metrics):
        metrics_files.insert(0, own)
    curves = _curves(plan.out / "curves", metrics_files, [primary, *others])
    watches = {run.label: run_watch(run) for run in (primary, *others) if run.samples}
    plan.out.mkdir(parents=True, exist_ok=True)
    data = eval_json(primary, others, [str(p.relative_to(plan.out)) for p in curves], watches.get(primary.label, ()))
    (plan.out / "eval.json").write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    report = write_report(plan.out / "report.html", primary, others, curves, plan.gallery, watches)
    return EvalResult((primary, *others), plan.out / "eval.json", report, tuple(curves), watches)


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
        if not 0 <= plan.revisions <= 8:
            raise ConfigError(f"--revisions must be from 0 to 8, got {plan.revisions}")
    else:
        resolve_film(plan.film)
    for run in plan.runs:
        if not (run / "metrics.jsonl").is_file() and not (run.is_file() and run.suffix == ".jsonl"):
            raise ConfigError(f"--run {run}: no metrics.jsonl there (brushwork train writes OUTPUT_DIR/metrics.jsonl)")
    return [resolve_source(p) for p in plan.compare]


def _unique_labels(primary, others):
    seen, fixed = {primary.label}, []
    for run in others:
        label, n = run.label, 2
        while label in seen:
            label, n = f"{run.label} ({n})", n + 1
        seen.add(label)
        fixed.append(dataclasses.replace(run, label=label))
    return fixed


def _judge(samples, plan: Plan, pipeline, judge, what: str, progress: Callable):
    from brushwork.eval.collect import judge_samples, judged_count

    with progress() as bar:
        task = bar.add_task(f"judging {what} against the {plan.split} references", total=judged_count(samples))
        return pipeline.submit(judge_samples(samples, judge, pipeline.pool, plan.references, plan.split,
                                             on_done=lambda: bar.advance(task)))


def _model_run(plan: Plan, pipeline, judge, progress: Callable):
    from brushwork.eval.collect import record_film, score_replies
    from brushwork.eval.generate import generate_replies, held_out_rows
    from brushwork.eval.metrics import EvalRun, by_step
    film_dir = _fresh_film_dir(plan.out)
    rows = held_out_rows(list(plan.domains) or None, plan.prompts, plan.prompt_seed)
    with progress() as bar:
        task = bar.add_task(f"generating {plan.samples} replies to each prompt", total=len(rows))
        replies = generate_replies(plan.model, plan.adapter, rows, plan.samples, plan.max_new_tokens,
                                   plan.temperature, plan.top_p, plan.top_k, plan.seed, device=plan.device,
                                   on_prompt=lambda n: bar.update(task, completed=n))
    with progress() as bar:
        task = bar.add_task("gating, rendering and scoring", total=sum(len(r) for r in replies))
        samples = score_replies(pipeline, rows, replies, on_done=lambda: bar.advance(task))
    samples = _judge(samples, plan, pipeline, judge, "the paintings", progress)
    record_film(samples, film_dir)
    label = Path(plan.model).name + (f"+{Path(plan.adapter).name}" if plan.adapter else "")
    info = {"model": plan.model, **({"adapter": plan.adapter} if plan.adapter else {}),
            "prompts": f"{len(rows)} (seed {plan.prompt_seed})", "samples per prompt": str(plan.samples),
            "sampling": f"T={plan.temperature} top_p={plan.top_p} top_k={plan.top_k} seed={plan.seed} "
                        f"max_new_tokens={plan.max_new_tokens}",
            **_scoring_info(plan, pipeline.pool, judge)}
    return EvalRun(label, "model", info, by_step(samples), tuple(samples))


def _multi_turn_run(plan: Plan, pipeline, judge, progress: Callable):
    from brushwork.eval.collect import episode_samples, record_film
    from brushwork.eval.generate import held_out_rows, play_episodes
    from brushwork.eval.metrics import EvalRun, by_turn, revision_figures
    film_dir = _fresh_film_dir(plan.out)
    rows = held_out_rows(list(plan.domains) or None, plan.prompts, plan.prompt_seed)
    with progress() as bar:
        task = bar.add_task(f"{plan.samples} episodes per prompt, up to {plan.revisions} revision(s)",
                            total=plan.revisions + 2)
        played = play_episodes(plan.model, plan.adapter, rows, plan.samples, plan.revisions, pipeline,
                               plan.max_new_tokens, plan.temperature, plan.top_p, plan.top_k, plan.seed,
                               device=plan.device, on_turn=lambda turn, _: bar.update(task, completed=turn))
        samples = episode_samples(played)
    samples = _judge(samples, plan, pipeline, judge, "the paintings", progress)
    record_film(samples, film_dir)
    first = [s for s in samples if s.turn == 0]
    final = [s for s in samples if s.final]
    label = Path(plan.model).name + (f"+{Path(plan.adapter).name}" if plan.adapter else "")
    calls = sum(p.env.calls > 0 for p in played) / len(played)
    info = {"model": plan.model, **({"adapter": plan.adapter} if plan.adapter else {}),
            "prompts": f"{len(rows)} (seed {plan.prompt_seed})", "episodes per prompt": str(plan.samples),
            "revisions": f"up to {plan.revisions}", "tool-call rate": f"{calls:.0%}",
            "sampling": f"T={plan.temperature} top_p={plan.top_p} top_k={plan.top_k} seed={plan.seed} "
                        f"max_new_tokens={plan.max_new_tokens} per turn",
            **_scoring_info(plan, pipeline.pool, judge)}
    return EvalRun(label, "model", info, by_turn(first, final), tuple(final), tuple(first),
                   revision_figures(samples, plan.revisions))


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
    return {"pool": f"{plan.scoring.pool or 'the bundled example pool'} (snapshot {pool.snapshot})",
            "references": f"up to {plan.references} love/okay paintings of the {plan.split!r} split per prompt",
            "judge": judge.backend.model_id, "scoring preset": plan.scoring.preset}


def _film_run(path: Path, plan: Plan, pipeline, judge, progress: Callable, label: str | None = None):
    from brushwork.eval.collect import film_samples, resolve_film, resolve_source
    from brushwork.eval.metrics import EvalRun, by_step, by_turn, revision_figures

    folder = resolve_film(path)
    samples = film_samples(folder)
    multi_turn = any(s.turn or not s.final for s in samples)
    steps = sorted({s.step for s in samples})
    if plan.film_steps == "ends":
        samples = [s for s in samples if s.step in (steps[0], steps[-1])]
    samples = _judge(samples, plan, pipeline, judge, f"{len(samples)} frames", progress)
    info = {"film": str(folder), "frames": str(len(samples)), "steps": f"{steps[0]}..{steps[-1]} ({len(steps)})",
            **_scoring_info(plan, pipeline.pool, judge)}
    info.pop("scoring preset")   # a film's cards were scored when it was recorded
    label = label or resolve_source(path).label
    if multi_turn:
        first = [s for s in samples if s.turn == 0]
        final = [s for s in samples if s.final]
        return EvalRun(label, "film", info, by_turn(first, final), tuple(final), tuple(first),
                       revision_figures(samples))
    return EvalRun(label, "film", info, by_step(samples), tuple(samples))


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
