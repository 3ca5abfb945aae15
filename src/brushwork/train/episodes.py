"""Multi-turn episodes as figures and film: what a revision did.

An episode is the list of its paintings, each a `Rollout` (`Episode.rollouts`, `episode_rollouts`; its card says
whether it passed the gate and its total).
`revision_figures` summarises many: reward and gate pass rate by turn (turn t is the painting
in effect after t revisions, so an episode that stopped early carries its last painting
forward), the revision gain (final total - first total, per episode, with a bootstrap
interval), the fix rate (of first paintings that failed the gate, the share whose final one
passed) and the worse rate (of the revisions made, the share that lowered the total).
Training logs them every step (`episode_stats`, from `BrushworkToolEnv`s) and films every
painting (`record_episodes`); `brushwork eval --revisions K` reports them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from brushwork.core.stats import bootstrap_interval
from brushwork.score.rollout import Rollout


@dataclass(frozen=True)
class RevisionFigures:
    episodes: int
    turns: int
    reward_by_turn: tuple[float | None, ...]
    pass_by_turn: tuple[float | None, ...]
    gain: float | None                       # mean of final - first over episodes with both totals
    gain_interval: tuple[float, float] | None  # 95 % bootstrap interval of that mean
    gain_n: int
    fix_rate: float | None
    fix_n: int                               # first paintings that failed the gate
    worse_rate: float | None
    revisions: int                           # revisions made (paintings after the first)
    revised_share: float | None              # episodes with at least one revision
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RevisionFigures:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["reward_by_turn"] = tuple(known.get("reward_by_turn", ()))
        known["pass_by_turn"] = tuple(known.get("pass_by_turn", ()))
        if known.get("gain_interval") is not None:
            known["gain_interval"] = tuple(known["gain_interval"])
        return cls(**known)


def _mean(values) -> float | None:
    values = [float(v) for v in values if v is not None]
    return sum(values) / len(values) if values else None


def revision_figures(episodes: list[list[Rollout]], turns: int | None = None, seed: int = 0) -> RevisionFigures:
    """The figures of the module docstring over `episodes` (each a non-empty list of its
    paintings, in turn order; each painting's own total, whatever the episode was paid)."""
    episodes = [[(r.card.passed, r.card.total) for r in e] for e in episodes if e]
    turns = max((len(e) - 1 for e in episodes), default=0) if turns is None else turns
    at = [[e[min(t, len(e) - 1)] for e in episodes] for t in range(turns + 1)]
    gains = [e[-1][1] - e[0][1] for e in episodes if e[0][1] is not None and e[-1][1] is not None]
    failed_first = [e for e in episodes if not e[0][0]]
    steps = [(a, b) for e in episodes for a, b in zip(e, e[1:]) if a[1] is not None and b[1] is not None]
    return RevisionFigures(
        episodes=len(episodes), turns=turns,
        reward_by_turn=tuple(_mean(total for _, total in shots) for shots in at),
        pass_by_turn=tuple(_mean(passed for passed, _ in shots) for shots in at),
        gain=_mean(gains), gain_interval=bootstrap_interval(gains, seed=seed) if len(gains) > 1 else None,
        gain_n=len(gains),
        fix_rate=_mean(e[-1][0] for e in failed_first), fix_n=len(failed_first),
        worse_rate=_mean(b[1] < a[1] - 1e-9 for a, b in steps),
        revisions=sum(len(e) - 1 for e in episodes),
        revised_share=_mean(len(e) > 1 for e in episodes))


def episode_rollouts(env, step: int, prompt: str) -> list[Rollout]:
    """Every painting of `env`'s episode (a `BrushworkToolEnv`) as a Rollout, in turn order
    (`Episode.rollouts`: earlier paintings are scored now; the final one is paid the episode's
    reward, the others their own total), at training step `step` and under the trainer's `prompt`."""
    if env.episode is None:
        return []
    return [replace(r, prompt=prompt, step=step) for r in env.episode.rollouts()]


def episode_stats(envs, step: int, prompts) -> tuple[dict[str, float], Rollout | None]:
    """What one reward call logs for multi-turn rollouts, and the best final painting that
    passed (None if none did): the final paintings' terms (as single-turn logs them), the
    tool-call rate, the first and final gate pass rates, revisions per episode, the revision
    gain, fix rate and worse rate."""
    from brushwork.train.rewards import prompt_text, term_stats

    episodes = [episode_rollouts(env, step, prompt_text(prompt)) for prompt, env in zip(prompts, envs)]
    finals = [e[-1] for e in episodes if e]
    out = term_stats([r.card for r in finals])
    figures = revision_figures(episodes)
    out["brushwork/tool_call_rate"] = sum(env.calls > 0 for env in envs) / len(envs)
    out["brushwork/episodes_finished"] = sum(env.finished for env in envs) / len(envs)
    if figures.episodes:
        out["brushwork/first_pass_rate"] = figures.pass_by_turn[0]
        out["brushwork/revisions"] = figures.revisions / figures.episodes
    for key, value in (("revision_gain", figures.gain), ("fix_rate", figures.fix_rate),
                       ("worse_rate", figures.worse_rate)):
        if value is not None:
            out[f"brushwork/{key}"] = value
    paid = [r for r in finals if r.card.passed and r.png is not None and r.reward is not None]
    return out, max(paid, key=lambda r: r.reward, default=None)


def record_episodes(folder: str | Path, step: int, prompts, envs) -> None:
    """Every painting of every rollout on film, one frame per painting (`turn`, `final`),
    numbered across the processes of the run."""
    from brushwork.train.film import Film, first_index
    from brushwork.train.rewards import prompt_text

    film = Film(Path(folder))
    for index, (prompt, env) in enumerate(zip(prompts, envs), start=first_index(len(envs))):
        for rollout in episode_rollouts(env, step, prompt_text(prompt)):
            film.record(rollout, index)
