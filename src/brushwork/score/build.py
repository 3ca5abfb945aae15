"""Build the scorer's backends (judge, aesthetic) from `ScoringOptions`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from brushwork.errors import ConfigError
from brushwork.pool import Pool
from brushwork.score.judge import JudgePrompt, PairwiseJudge
from brushwork.score.reward import RewardConfig
from brushwork.score.verdicts import VerdictCache

if TYPE_CHECKING:
    from brushwork.score.options import ScoringOptions


def build_backends(pool: Pool | None, options: ScoringOptions, reward: RewardConfig):
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
