"""Multi-turn episodes as figures and film: what a revision did.

An episode is the list of its paintings, each as a `Shot` (passed the gate?, total reward).
`revision_figures` summarises many: reward and gate pass rate by turn (turn t is the painting
in effect after t revisions, so an episode that stopped early carries its last painting
forward), the revision gain (final total - first total, per episode, with a bootstrap
interval), the fix rate (of first paintings that failed the gate, the share whose final one
passed) and the worse rate (of the revisions made, the share that lowered the total).
Training logs them every step (`episode_stats`, from `BrushworkToolEnv`s) and films every
painting (`record_episodes`); `brushwork eval --revisions K` reports them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from brushwork.core.stats import bootstrap_interval


@dataclass(frozen=True)
class Shot:
    passed: bool
    total: float | None


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


def revision_figures(episodes: list[list[Shot]], turns: int | None = None, seed: int = 0) -> RevisionFigures:
    """The figures of the module docstring over `episodes` (each a non-empty list of shots)."""
    episodes = [e for e in episodes if e]
    turns = max((len(e) - 1 for e in episodes), default=0) if turns is None else turns
    at = [[e[min(t, len(e) - 1)] for e in episodes] for t in range(turns + 1)]
    gains = [e[-1].total - e[0].total for e in episodes if e[0].total is not None and e[-1].total is not None]
    failed_first = [e for e in episodes if not e[0].passed]
    steps = [(a, b) for e in episodes for a, b in zip(e, e[1:]) if a.total is not None and b.total is not None]
    return RevisionFigures(
        episodes=len(episodes), turns=turns,
        reward_by_turn=tuple(_mean(s.total for s in shots) for shots in at),
        pass_by_turn=tuple(_mean(s.passed for s in shots) for shots in at),
        gain=_mean(gains), gain_interval=bootstrap_interval(gains, seed=seed) if len(gains) > 1 else None,
        gain_n=len(gains),
        fix_rate=_mean(e[-1].passed for e in failed_first), fix_n=len(failed_first),
        worse_rate=_mean(b.total < a.total - 1e-9 for a, b in steps),
        revisions=sum(len(e) - 1 for e in episodes),
        revised_share=_mean(len(e) > 1 for e in episodes))


def _shots(env) -> list[Shot]:
    if env.episode is None:
        return []
    return [Shot(a.painting.report.passed, a.total) for a in env.episode.scored_attempts()]


def episode_stats(envs, step: int) -> tuple[dict[str, float], object]:
    """What one reward call logs for multi-turn rollouts, and the best final painting that
    passed (a `Best`, or None): the final paintings' terms (as single-turn logs them), the
    tool-call rate, the first and final gate pass rates, revisions per episode, the revision
    gain, fix rate and worse rate."""
    from brushwork.train.rewards import Best, prompt_text, term_stats

    episodes = [_shots(env) for env in envs]
    finals = [env.episode.attempts[-1].painting for env in envs if env.episode is not None and env.episode.attempts]
    out = term_stats([p.card for p in finals if p.card is not None])
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
    best = None
    for env, painting in zip(envs, finals):
        if painting.card is not None and painting.card.passed and painting.png is not None and env.reward is not None:
            if best is None or env.reward > best.reward:
                best = Best(step, env.reward, painting.png, env.row.get("subject"), prompt_text(env.row.get("prompt")))
    return out, best


def record_episodes(folder: str | Path, step: int, prompts, envs) -> None:
    """Every painting of every rollout on film, one frame per painting (`turn`, `final`),
    numbered across the processes of the run."""
    from brushwork.train.film import Film, first_index
    from brushwork.train.rewards import prompt_text

    film = Film(Path(folder))
    for index, (prompt, env) in enumerate(zip(prompts, envs), start=first_index(len(envs))):
        if env.episode is None:
            continue
        attempts = env.episode.attempts
        for attempt in attempts:
            painting, card = attempt.painting, attempt.painting.card
            final = attempt.revision == len(attempts) - 1
            reply = env.replies[attempt.revision] if attempt.revision < len(env.replies) else ""
            film.record(step, index, card if card is not None else _unscored(painting), painting.png,
                        prompt=prompt_text(prompt), reply=reply, subject=env.episode.task.subject,
                        seed=env.episode.task.seed, group=env.episode.group_seed,
                        reward=env.reward if final else attempt.total, turn=attempt.revision, final=final)


def _unscored(painting):
    """The card of a painting that was only gated (its verdict, no total)."""
    from brushwork.score.card import ScoreCard

    report = painting.report
    return ScoreCard(passed=report.passed, total=None, terms={}, weights={}, preset=None,
                     violations=report.violations,
                     paint_fraction=painting.render.paint_fraction if painting.render is not None else None)
