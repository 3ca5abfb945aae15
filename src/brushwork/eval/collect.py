"""What an evaluation looks at, as `Sample`s: a policy's replies scored by the pipeline,
or the frames of a film (their stored ScoreCards reused, nothing re-rendered); then each
passed painting judged against the pool's *evaluation* references.

Evaluation references: for each prompt, a seeded draw of up to `count` paintings of the
evaluation split — half `love`, half `okay` (all of a tier when it has fewer), of the
subject's domain first (`brushwork.score.references.pick_references`, the reward's picker) —
seeded by the pool snapshot and the prompt's text, so every sample of one prompt, in every
compared run, faces the same references. With the bundled example pool and the default count of 6
that is all three `love` and all three `okay` evaluation paintings.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.eval.metrics import Sample
from brushwork.pool import Pool, PoolItem
from brushwork.score.judge import PairwiseJudge
from brushwork.score.references import pick_references
from brushwork.score.rollout import Rollout

REFERENCE_TIERS = ("love", "okay")
DEFAULT_REFERENCES = 6


def check_eval_split(pool: Pool, split: str = "eval") -> None:
    """The pool must hold `love` or `okay` paintings in `split` to measure a win rate."""
    tiers = pool.by_tier(split)
    if any(tiers.get(t) for t in REFERENCE_TIERS):
        return
    raise ConfigError(
        f"the pool {pool.root} has no {'/'.join(REFERENCE_TIERS)} paintings in its {split!r} split, so there is "
        f"nothing held out to compare against: for a pool store run `brushwork pool split STORE`; for a pool "
        f"folder add \"split\": \"eval\" to some lines of its metadata.jsonl (or import it with `brushwork pool "
        f"import STORE FOLDER` and split the store)")


def eval_references(pool: Pool, prompt: str, count: int = DEFAULT_REFERENCES, split: str = "eval",
                    subject: str = "", domain: str = "") -> tuple[PoolItem, ...]:
    """Up to `count` evaluation paintings for `prompt`, its domain and subject first (see the
    module docstring and `brushwork.score.references`)."""
    if count < 1:
        raise ConfigError(f"--references must be >= 1, got {count}")
    digest = hashlib.sha256(prompt.encode()).hexdigest()[:16]
    mix = ((REFERENCE_TIERS[0], -(-count // 2)), (REFERENCE_TIERS[1], count // 2))
    return pick_references(pool, mix, f"eval:{digest}", domain, subject, split, partial=True).items


def score_replies(pipeline, rows: list[dict], replies: list[list[str]],
                  on_done: Callable[[], None] | None = None) -> list[Sample]:
    """Gate, render and score every reply (`replies[i]` answer `rows[i]`) on a `Pipeline`, as
    one batch. Every reply to one prompt renders with the row's seed and meets the same
    training references (group seed = row seed), as in a GRPO group."""
    from brushwork.train.rewards import prompt_text

    jobs = [(row, reply) for row, group in zip(rows, replies) for reply in group]
    seeds = [row["seed"] for row, _ in jobs]
    paintings = pipeline.run_many([reply for _, reply in jobs], seeds=seeds, group_seeds=seeds,
                                  subjects=[row["subject"] for row, _ in jobs],
                                  domains=[row.get("domain") for row, _ in jobs],
                                  on_done=None if on_done is None else lambda i, p: on_done())
    return [Sample(Rollout(prompt_text(row["prompt"]), painting.card, reply=reply, png=painting.png,
                           subject=row["subject"], seed=row["seed"], group=row["seed"]))
            for (row, reply), painting in zip(jobs, paintings)]


def episode_samples(played) -> list[Sample]:
    """Every painting of every played episode as a Sample (earlier paintings scored now),
    numbered by episode, with its turn and whether it was the final one."""
    from brushwork.train.episodes import episode_rollouts
    from brushwork.train.rewards import prompt_text

    return [Sample(rollout, episode=number) for number, episode in enumerate(played)
            for rollout in episode_rollouts(episode.env, 0, prompt_text(episode.row["prompt"]))]


async def judge_samples(samples: list[Sample], judge: PairwiseJudge, pool: Pool, count: int = DEFAULT_REFERENCES,
                        split: str = "eval", on_done: Callable[[], None] | None = None) -> list[Sample]:
    """Each passed painting against its prompt's evaluation references (both orders). Run it on
    the event loop the judge's client belongs to (`Pipeline.submit`): every pass of one
    evaluation shares that loop."""
    async def one(sample: Sample) -> Sample:
        if not (sample.card.passed and sample.png is not None):
            return sample
        refs = eval_references(pool, sample.prompt, count, split, sample.subject or "")
        result = await judge.judge(sample.png, refs, sample.subject or sample.prompt)
        if on_done is not None:
            on_done()
        return dataclasses.replace(sample, eval_comparisons=result.comparisons, eval_error=result.error)

    return list(await asyncio.gather(*(one(s) for s in samples)))


def judged_count(samples: list[Sample]) -> int:
    """How many samples `judge_samples` will send to the judge (for a progress bar)."""
    return sum(s.card.passed and s.png is not None for s in samples)


def resolve_film(path: Path) -> Path:
    """A film folder, or a run or eval output folder holding one under film/."""
    path = Path(path)
    for candidate in (path, path / "film"):
        if (candidate / "index.jsonl").is_file():
            return candidate
    raise ConfigError(f"{path} is not a film: no index.jsonl in it or in {path / 'film'} (`brushwork train` writes "
                      f"one under OUTPUT_DIR/film, `brushwork eval --model` under OUT/film)")


def film_samples(folder: Path) -> list[Sample]:
    """Every frame of a film as a Sample (its card, reply and painting)."""
    from brushwork.train.film import read_film

    folder = resolve_film(folder)
    samples = [Sample(frame.rollout, episode=frame.index) for frame in read_film(folder)]
    if not samples:
        raise ConfigError(f"the film {folder} has no frames yet: let the run record a step first")
    return samples


def record_film(samples: list[Sample], folder: Path) -> Path:
    """Write samples as a film (so a later `brushwork eval --compare OUT` can show them)."""
    from brushwork.train.film import Film

    film = Film(folder)
    counters: dict[int, int] = {}
    for s in samples:
        index = s.episode if s.episode is not None else counters.setdefault(s.step, -1) + 1
        counters[s.step] = index
        film.record(s.rollout, index)
    return folder


@dataclass(frozen=True)
class Source:
    """Something to compare with: a film (optionally with its run's metrics.jsonl) or an eval.json."""

    path: Path
    film: Path | None = None
    eval_json: Path | None = None
    metrics: Path | None = None

    @property
    def label(self) -> str:
        path = self.path.parent if self.path.name in ("film", "eval.json") else self.path
        return path.name or str(path)


def resolve_source(path: Path) -> Source:
    """A film, a training run folder, an eval output folder, or an eval.json file."""
    path = Path(path)
    if path.is_file() and path.suffix == ".json":
        return Source(path, eval_json=path)
    if not path.is_dir():
        raise ConfigError(f"{path} does not exist: give a film, a training run folder (OUTPUT_DIR), an eval "
                          f"output folder or an eval.json")
    beside = (path / "metrics.jsonl", *((path.parent / "metrics.jsonl",) if (path / "index.jsonl").is_file() else ()))
    metrics = next((p for p in beside if p.is_file()), None)
    try:
        return Source(path, film=resolve_film(path), metrics=metrics)
    except ConfigError:
        if (path / "eval.json").is_file():
            return Source(path, eval_json=path / "eval.json", metrics=metrics)
        raise
