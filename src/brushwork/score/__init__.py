"""Score: reply -> gate -> render -> the reward's terms (`Weights.terms`) -> `ScoreCard` (the reward)."""

from __future__ import annotations

from brushwork.lazy import lazy_exports

# Imported on first use: the command line reads the options (`score.options`) at start.
_EXPORTS = {
    "ScoreCard": "brushwork.score.card",
    "PRESETS": "brushwork.score.reward",
    "LengthRamp": "brushwork.score.reward",
    "RewardConfig": "brushwork.score.reward",
    "Weights": "brushwork.score.reward",
    "Scorer": "brushwork.score.scorer",
    "BUILTIN": "brushwork.score.terms",
    "Term": "brushwork.score.terms",
    "pick_references": "brushwork.score.references",
    "resolve_term": "brushwork.score.terms",
}

__getattr__, __all__ = lazy_exports(__name__, _EXPORTS)
