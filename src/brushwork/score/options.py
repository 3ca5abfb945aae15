"""`ScoringOptions`: every choice that changes how a reply is scored, declared once.

The options are composed of sections, each declared where it belongs: the pool, reward,
judge, aesthetic and taste sections here, `GateSettings` in the gate and `RenderSettings` in
the renderer. Every field is a `setting` (brushwork.core.settings) with one flat key, so a
YAML file, TRL's parser, the command line (`--render-timeout-s`) and the environment
(`BRUSHWORK_RENDER_TIMEOUT_S`) all name it the same way; `brushwork serve` (`ServerSettings`)
and `brushwork train` (`BrushworkArguments`) add their own sections.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from brushwork.core.chat import url_problem
from brushwork.core.settings import SettingError, check, load, setting
from brushwork.errors import ConfigError
from brushwork.gate.config import GateConfig, GateSettings
from brushwork.render.config import RenderSettings
from brushwork.score.references import DEFAULT_MIX
from brushwork.score.reward import PRESETS, RewardConfig

JUDGES = ("taste", "openai")
AESTHETICS = ("taste", "hpsv3")


def parse_mix(text: str) -> tuple[tuple[str, int], ...]:
    """`love:2,okay:2` -> (("love", 2), ("okay", 2))."""
    mix = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        tier, _, count = part.partition(":")
        if not count.strip().isdigit() or not tier.strip():
            raise ConfigError(f"{part!r} is not TIER:COUNT (e.g. love:2)")
        mix.append((tier.strip(), int(count)))
    if not mix or sum(n for _, n in mix) < 1:
        raise ConfigError(f"{text!r} draws no reference: give at least one TIER:COUNT with a count above 0")
    return tuple(mix)


def _mix_problem(text: str) -> str | None:
    try:
        parse_mix(text)
    except ValueError:
        return f"{text!r} is not a reference mix: TIER:COUNT pairs, comma-separated, e.g. love:2,okay:2"
    return None


@dataclass(frozen=True)
class PoolSettings:
    pool: Path | None = setting(None, "pool store or folder (default: the bundled example pool)")
    snapshot: str | None = setting(None, "pool store snapshot to draw references from (id, prefix or name; "
                                   "default: current)")


@dataclass(frozen=True)
class RewardSettings:
    preset: str = setting("judge-led", "reward weights: " + ", ".join(PRESETS), choices=lambda: tuple(PRESETS))
    reward_file: Path | None = setting(None, "reward YAML: a preset or weights (overrides preset)",
                                       aliases=("--reward-config",), env_aliases=("BRUSHWORK_REWARD_CONFIG",))
    reference_mix: str = setting(",".join(f"{t}:{n}" for t, n in DEFAULT_MIX),
                                 "the pool tiers the judge compares against, TIER:COUNT per draw",
                                 check=_mix_problem)
    subject: str = setting("a loose watercolour flower", "what the judge is told is painted when a task names "
                           "no subject")
    copy_image_similarity: float = setting(0.86, "edge correlation (0-1, over turns, mirrors, scales and shifts, "
                                           "confirmed at 96 px) at which a painting copies a pool painting: flagged "
                                           "on its ScoreCard (copy_of); honest paintings reach 0.80; -1 turns it off",
                                           above=0, max=1, off=-1)
    copy_source_similarity: float = setting(0.5, "share (0-1) of a pool sketch's distinctive token fingerprints at "
                                            "which a sketch copies it; honest sketches reach 0.31; -1 turns it off",
                                            above=0, max=1, off=-1)
    copy_shape_coverage: float = setting(0.85, "share (0-1) of a painting's shape mass that one to three pool "
                                         "paintings' layouts explain (each under its own turn, scale, mirror and "
                                         "shift, with shapes matched to the pixel) at which it copies them; the pool's "
                                         "own paintings reach 0.62 of one another; -1 turns it off",
                                         above=0, max=1, off=-1)
    copy_outline_similarity: float = setting(0.86, "correlation (0-1) of the boundaries between a painting's flat "
                                             "colour regions, drawn from its display list, with a pool painting's "
                                             "at any angle, scale, mirror and shift, at which it copies it; honest "
                                             "paintings reach 0.63; -1 turns it off", above=0, max=1, off=-1)
    judge_copies: bool = setting(False, "judge a painting that copies a pool painting like any other (default: its "
                                 "judge term is 0)")


@dataclass(frozen=True)
class JudgeSettings:
    judge: str = setting("taste", "judge backend: taste (offline) or openai (an OpenAI-compatible VLM)",
                         choices=JUDGES)
    judge_url: str | None = setting(None, "base URL of the OpenAI-compatible judge (default: "
                                    "$BRUSHWORK_JUDGE_BASE_URL)", check=url_problem)
    judge_model: str | None = setting(None, "judge model name")
    judge_prompt: str = setting("watercolour", "judge prompt: a bundled name or a YAML file")
    judge_concurrency: int = setting(8, "judge questions in flight at once", min=1)
    judge_attempts: int = setting(2, "times a judge question is asked while the answer falls outside the schema "
                                  "(then it counts as unread: None, never the painting's fault)", min=1)
    verdict_cache: bool = setting(True, "reuse judge verdicts on identical image pairs")


@dataclass(frozen=True)
class AestheticSettings:
    aesthetic: str = setting("taste", "aesthetic backend: taste (offline) or hpsv3", choices=AESTHETICS)
    hpsv3_url: str | None = setting(None, "URL of a running `brushwork serve-hpsv3`", check=url_problem)
    hpsv3_batch: int = setting(16, "paintings in one HPSv3 request at most (calls made together go as one)",
                               min=1, max=64)
    taste_model: Path | None = setting(None, "fitted taste model file (default: fit on the pool, cached)",
                                       aliases=("--taste",))


@dataclass(frozen=True)
class ScoringOptions(RenderSettings, GateSettings, AestheticSettings, JudgeSettings, RewardSettings, PoolSettings):
    """Pool, reward, judge, aesthetic, taste, gate and render sections, as one flat set of keys."""

    def __post_init__(self):
        check(self)     # types too: a path given as text is stored as a Path
        RenderSettings.__post_init__(self)

    @property
    def mix(self) -> tuple[tuple[str, int], ...]:
        return parse_mix(self.reference_mix)

    def gate_config(self, size: int | None = None) -> GateConfig:
        return GateSettings.gate_config(self, size or self.size)

    def reward_config(self) -> RewardConfig:
        if self.reward_file is not None:
            return RewardConfig.from_yaml(self.reward_file)
        return RewardConfig.from_preset(self.preset)

    def scoring(self) -> ScoringOptions:
        """Just the scoring options (a subclass such as the server's settings holds more)."""
        return ScoringOptions(**{f.name: getattr(self, f.name) for f in fields(ScoringOptions)})

    def with_(self, **changes):
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides):
        """Options from `BRUSHWORK_<KEY>` variables; `overrides` that are not None win."""
        return load(cls, environ=environ, flags=overrides)[0]


__all__ = ["AESTHETICS", "JUDGES", "AestheticSettings", "JudgeSettings", "PoolSettings", "RewardSettings",
           "ScoringOptions", "SettingError", "parse_mix"]
