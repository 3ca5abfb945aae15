"""The rating page's wire types: what its JSON API takes and answers (pydantic, extra="forbid")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Rater = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
ItemId = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RateIn(Wire):
    item: ItemId
    rater: Rater
    tier: str = Field(min_length=1, max_length=64, description="one of the store's tiers")
    note: str = Field("", max_length=2000)


class UndoIn(Wire):
    receipt: str = Field(min_length=1, max_length=128, description="what /api/rate or /api/prefer answered")


class PreferIn(Wire):
    a: ItemId
    b: ItemId
    rater: Rater
    winner: Literal["a", "b", "tie"]


class RatingView(Wire):
    rater: str
    tier: str
    created: float


class PreferenceView(Wire):
    a: str
    b: str
    rater: str
    winner: str


class ItemView(Wire):
    """One painting as the page sees it; generator, provenance and ratings are None while hidden."""

    id: str
    image: str
    subject: str
    prompt: str
    source: str | None = None
    generator: str | None = None
    provenance: dict | None = None
    ratings: list[RatingView] | None = None


class Progress(Wire):
    rated: int = Field(description="items this rater has rated")
    total: int = Field(description="items in the pool")
    compared: int = Field(description="pairwise preferences this rater has given")


class ConfigOut(Wire):
    tiers: list[str]
    blind: bool = Field(description="the server hides generators and earlier ratings always (--blind)")
    total: int
    active: bool = Field(False, description="an active chooser picks what is asked next")


class NextOut(Wire):
    mode: Literal["tier", "pair"]
    item: ItemView | None = None
    pair: list[ItemView] | None = None
    done: bool = Field(False, description="tier: the rater has rated every item, the queue goes round again; "
                       "pair: the rater has judged every one of the store's fixed pairs")
    why: str | None = Field(None, description="active mode: why the chooser picked this")
    progress: Progress


class RateOut(Wire):
    rating: int
    receipt: str = Field(description="give it to /api/undo to take this rating back")
    progress: Progress


class UndoOut(Wire):
    undone: RatingView | None = Field(None, description="the rating taken back (a rating's receipt)")
    preference: PreferenceView | None = Field(None, description="the preference taken back")
    item: ItemView | None = None
    pair: list[ItemView] | None = None
    progress: Progress


class PreferOut(Wire):
    preference: int
    receipt: str = Field(description="give it to /api/undo to take this preference back")
    progress: Progress
