"""Score: reply -> gate -> render -> the reward's terms (`Weights.terms`) -> `ScoreCard` (the reward)."""

from brushwork.score.card import ScoreCard
from brushwork.score.reward import PRESETS, LengthRamp, RewardConfig, Weights
from brushwork.score.scorer import Scorer, ScorerConfig
from brushwork.score.terms import BUILTIN, Term, draw_references, resolve_term

__all__ = ["BUILTIN", "PRESETS", "LengthRamp", "RewardConfig", "ScoreCard", "Scorer", "ScorerConfig", "Term",
           "Weights", "draw_references", "resolve_term"]
