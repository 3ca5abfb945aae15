"""Score: reply -> gate -> render -> the reward's terms (`terms.TERMS`) -> `ScoreCard` (the reward)."""

from brushwork.score.card import ScoreCard
from brushwork.score.reward import PRESETS, LengthRamp, RewardConfig, Weights
from brushwork.score.scorer import Scorer, ScorerConfig
from brushwork.score.terms import NAMES, TERMS, Term, draw_references

__all__ = ["NAMES", "PRESETS", "TERMS", "LengthRamp", "RewardConfig", "ScoreCard", "Scorer", "ScorerConfig", "Term",
           "Weights", "draw_references"]
