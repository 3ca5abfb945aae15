"""Score: reply -> gate -> render -> pairwise judge + aesthetic -> `ScoreCard` (the reward)."""

from brushwork.score.card import ScoreCard
from brushwork.score.reward import PRESETS, LengthRamp, RewardConfig, Weights
from brushwork.score.scorer import Scorer, ScorerConfig, draw_references

__all__ = ["PRESETS", "LengthRamp", "RewardConfig", "ScoreCard", "Scorer", "ScorerConfig", "Weights",
           "draw_references"]
