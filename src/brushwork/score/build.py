"""Build the judge and aesthetic backends named by `ScoringOptions` (used by their terms in
`brushwork.score.terms`, and by evaluation, which judges against held-out references)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from brushwork.errors import ConfigError
from brushwork.score.judge import JudgePrompt, PairwiseJudge
from brushwork.score.verdicts import VerdictCache

if TYPE_CHECKING:
    from brushwork.pool import Pool
    from brushwork.score.options import ScoringOptions


def build_judge(options: ScoringOptions, taste_model: Callable[[], object]) -> PairwiseJudge:
    """The pairwise judge: the offline taste judge or an OpenAI-compatible VLM."""
    from brushwork.score.backends import OpenAIJudge, TasteJudge

    if options.judge == "taste":
        backend = TasteJudge(taste_model())
    elif options.judge == "openai":
        backend = OpenAIJudge(options.judge_url, options.judge_model)
    else:
        raise ConfigError(f"unknown judge backend {options.judge!r}: use taste or openai")
    return PairwiseJudge(backend, JudgePrompt.load(options.judge_prompt),
                         VerdictCache() if options.verdict_cache else None, options.judge_concurrency)


def build_aesthetic(options: ScoringOptions, taste_model: Callable[[], object]):
    """The aesthetic scorer: the offline taste model or a running HPSv3 service."""
    from brushwork.score.backends import HPSv3Client, TasteAesthetic

    if options.aesthetic == "taste":
        return TasteAesthetic(taste_model())
    if options.aesthetic == "hpsv3":
        return HPSv3Client(options.hpsv3_url)
    raise ConfigError(f"unknown aesthetic backend {options.aesthetic!r}: use taste or hpsv3")


def build_eval_judge(pool: Pool | None, options: ScoringOptions) -> PairwiseJudge:
    """The judge evaluation uses (whatever the reward's weights), on the pool's taste model."""
    from brushwork.score.reward import RewardConfig
    from brushwork.score.terms import Setup

    return build_judge(options, Setup(options, RewardConfig(), pool).taste_model)
