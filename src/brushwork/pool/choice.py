"""What an active chooser hands the rating page: the painting (or pair) to ask about next, and why.

The chooser itself lives above the pool (brushwork.score.taste.active fits a taste head on the
ratings so far); the page only receives it as a callable, so the pool never imports the scorer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Choice:
    """One item id (tier mode) or two (pair mode, left first), and a short line for the page."""

    ids: tuple[str, ...]
    why: str


class ChooseNext(Protocol):
    """`choose_next(rater, mode, after, skip)`: the next question for `rater`, or None to fall back to
    the plain queue (nothing left to ask, or nothing to choose from). `after` is the painting shown
    now (tier mode), `skip` the pairs skipped since the last preference (pair mode)."""

    def __call__(self, rater: str, mode: str, after: str | None, skip: int) -> Choice | None: ...
