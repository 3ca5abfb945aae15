"""Build the scorer's parts from plain options (used by the CLI, the demo and the environment)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.pool import Pool
from brushwork.score.judge import JudgePrompt, PairwiseJudge
from brushwork.score.reward import RewardConfig
from brushwork.score.verdicts import VerdictCache


@dataclass(frozen=True)
class BackendOptions:
    judge: str = "taste"                 # taste | openai
    judge_url: str | None = None
    judge_model: str | None = None
    judge_prompt: str = "watercolour"
    judge_concurrency: int = 8
    aesthetic: str = "taste"             # taste | hpsv3
    hpsv3_url: str | None = None
    taste_model: Path | None = None
    verdict_cache: bool = True


def reward_config(preset: str | None, config_file: Path | None) -> RewardConfig:
    if config_file is not None:
        return RewardConfig.from_yaml(config_file)
    return RewardConfig.from_preset(preset or "judge-led")


def build_backends(pool: Pool | None, options: BackendOptions, reward: RewardConfig):
    """(PairwiseJudge | None, aesthetic | None) for the weights that need them."""
    from brushwork.score.backends import HPSv3Client, OpenAIJudge, TasteAesthetic, TasteJudge
    from brushwork.score.taste.model import load_or_fit

    taste = None

    def taste_model():
        nonlocal taste
        if taste is None:
            if pool is None:
                raise ConfigError("the taste backends need a pool (--pool DIR) or a fitted model (--taste FILE)")
            taste = load_or_fit(pool, options.taste_model)
        return taste

    judge = None
    if reward.weights.judge > 0:
        if options.judge == "taste":
            backend = TasteJudge(taste_model())
        elif options.judge == "openai":
            backend = OpenAIJudge(options.judge_url, options.judge_model)
        else:
            raise ConfigError(f"unknown judge backend {options.judge!r}: use taste or openai")
        judge = PairwiseJudge(backend, JudgePrompt.load(options.judge_prompt),
                              VerdictCache() if options.verdict_cache else None, options.judge_concurrency)
    aesthetic = None
    if reward.weights.aesthetic > 0:
        if options.aesthetic == "taste":
            aesthetic = TasteAesthetic(taste_model())
        elif options.aesthetic == "hpsv3":
            aesthetic = HPSv3Client(options.hpsv3_url)
        else:
            raise ConfigError(f"unknown aesthetic backend {options.aesthetic!r}: use taste or hpsv3")
    return judge, aesthetic
