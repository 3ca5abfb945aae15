"""The scoring's composition root: `Wiring` turns `ScoringOptions` into the judge and
aesthetic backends, the reward's terms, and the offline taste model they share (loaded or
fitted once). The scorer builds its terms here, and evaluation its judge (which judges against
held-out references whatever the reward weighs). Below it, `score.terms` is the contract
alone; above it, nothing builds a backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from brushwork.errors import ConfigError
from brushwork.score.judge import JudgePrompt, PairwiseJudge
from brushwork.score.references import DEFAULT_MIX
from brushwork.score.reward import RewardConfig
from brushwork.score.terms import Term
from brushwork.score.verdicts import VerdictCache

if TYPE_CHECKING:
    from brushwork.pool import Pool
    from brushwork.score.options import ScoringOptions


@dataclass
class Wiring:
    """What terms are built from (`terms.Setup`): the scoring options, the reward, the pool, and
    backends given ready-made by name (`{"judge": PairwiseJudge, "aesthetic": ...}`: tests,
    benchmarks). It keeps every backend it built or handed out (`backends`), so whoever owns the
    scorer can start and close them, and the taste model (`taste`) for the card's assessment."""

    options: ScoringOptions
    reward: RewardConfig
    pool: Pool | None = None
    reference_mix: tuple[tuple[str, int], ...] = DEFAULT_MIX
    given: dict = field(default_factory=dict)
    backends: list = field(default_factory=list)
    _taste: object = None

    def taste_model(self):
        """The offline taste model (loaded or fitted on the pool once, shared by the backends)."""
        if self._taste is None:
            from brushwork.score.taste.model import load_or_fit

            if self.pool is None:
                raise ConfigError("the taste backends need a pool (--pool DIR) or a fitted model (--taste FILE)")
            self._taste = load_or_fit(self.pool, self.options.taste_model)
        return self._taste

    def judge(self) -> PairwiseJudge:
        judge = self.given.get("judge") or build_judge(self.options, self.taste_model)
        self._keep(judge.backend)
        return judge

    def aesthetic(self):
        scorer = self.given.get("aesthetic") or build_aesthetic(self.options, self.taste_model)
        self._keep(scorer)
        return scorer

    def terms(self) -> dict[str, Term]:
        """Every term the reward weighs above 0, and those computed at any weight (`always`)."""
        weights = self.reward.weights
        return {name: t(self) for name, t in weights.terms.items() if t.always or weights[name] > 0}

    @property
    def taste(self):
        """The offline taste model a backend answers with (built here or given), else None."""
        if self._taste is not None:
            return self._taste
        models = (getattr(b, "model", None) for b in self.backends)
        return next((m for m in models if hasattr(m, "assess")), None)

    def _keep(self, backend) -> None:
        if backend not in self.backends:
            self.backends.append(backend)


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
                         VerdictCache() if options.verdict_cache else None, options.judge_concurrency,
                         options.judge_attempts)


def build_aesthetic(options: ScoringOptions, taste_model: Callable[[], object]):
    """The aesthetic scorer: the offline taste model or a running HPSv3 service."""
    from brushwork.score.backends import HPSv3Client, TasteAesthetic

    if options.aesthetic == "taste":
        return TasteAesthetic(taste_model())
    if options.aesthetic == "hpsv3":
        return HPSv3Client(options.hpsv3_url, max_batch=options.hpsv3_batch)
    raise ConfigError(f"unknown aesthetic backend {options.aesthetic!r}: use taste or hpsv3")


def build_eval_judge(pool: Pool | None, options: ScoringOptions) -> PairwiseJudge:
    """The judge evaluation uses (whatever the reward's weights), on the pool's taste model."""
    return Wiring(options, RewardConfig(), pool).judge()
