"""Copy detection: a painting that reproduces a pool painting must not win by it.

A policy warmed up on pool sources (or one that finds a reference's sketch) could reproduce
the references the judge compares against and win every comparison, and under GRPO it will
find the cheap variations: the sketch shifted, mirrored, turned, scaled, cropped or recoloured,
or its source rewritten. Every painting that passed the gate is compared with every pool
painting, in every split, four ways:

- the picture (`copy_image`): edge maps of the paint, searched over the 8 turns and mirrors,
  7 scales (0.75-1.33) and every translation, against each pool painting as it is and framed
  on more paper (a copy shrunk onto its paper), the best match confirmed at 96 px; a copy when
  the confirmed normalised cross-correlation reaches `copy_image_similarity`;
- the sketch (`copy_source`): winnowed token k-grams, identifiers abstracted, over the
  fingerprints distinctive of one pool sketch; a copy when it contains `copy_source_similarity`
  of them;
- the shapes (`copy_shapes`), read off the render's display list (trusted: the paint realm
  replays only validated calls) and the pool's stored ones: one to three pool paintings whose
  layouts, each under its own turn (any angle), scale, mirror and shift, explain
  `copy_shape_coverage` of the painting's shape mass, with shapes matched to the pixel or kept
  (same colour, near the same place and size). Its colours, order and the shapes left out change
  nothing, nor does the sketch's code or its random draws (a re-rolled pool sketch keeps its fixed
  shapes, and its random ones near in their colours). It answers what the picture side cannot:
  turns by any angle, and textures that change with every random draw; the picture side still
  guards pictures of pool paintings painted some other way, and pools of images alone;
- the outline (`copy_outline`), also from the display lists: the boundaries between the
  painting's flat colour regions, drawn without the watercolour, correlated with each pool
  painting's at any angle, scale, mirror and shift; a copy at `copy_outline_similarity`. It
  answers what the shape side cannot: a copy whose regions were cut into other shapes.

Thresholds were set on the bundled pool (see tests/copy_attacks.py and benchmarks/copies.py for
the measured margins). The ScoreCard names it (`copy_of`: a `Copy`) and, unless `judge_copies`
is set, the judge term is 0 without asking the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from brushwork.errors import ConfigError
from brushwork.pool import Pool
from brushwork.score.copy_image import RECOLOURED, ImageIndex
from brushwork.score.copy_outline import OutlineIndex
from brushwork.score.copy_shapes import ShapeIndex, ShapeMatch
from brushwork.score.copy_source import SourceIndex

HOWS = ("image", "source", "both", "shapes", "outline")


@dataclass(frozen=True)
class Copy:
    """A pool painting this painting reproduces: found by its picture, its sketch, both, its shapes or its outline."""

    id: str
    how: str               # image | source | both | shapes | outline
    transform: str         # what was done to the picture ("mirrored, shifted 25 px"), "" for none
    similarity: float      # 0..1: edge correlation (image, both, outline), fingerprint share (source), shape coverage
    also: tuple[str, ...] = ()   # the other pool paintings a splice takes shapes from (shapes)

    def __post_init__(self):
        if self.how not in HOWS:
            raise ConfigError(f"Copy.how must be one of {', '.join(HOWS)}, got {self.how!r}")

    def describe(self) -> str:
        """`love_x, mirrored` as one phrase for people (critique, watch, score table)."""
        if self.also:
            return f"spliced from {', '.join((self.id, *self.also))}"
        how = {"image": "", "source": "its sketch rewritten", "both": "", "shapes": "", "outline": ""}[self.how]
        detail = ", ".join(p for p in (self.transform, how) if p)
        return f"{self.id}, {detail}" if detail else self.id

    @classmethod
    def from_dict(cls, data) -> Copy:
        """Read back `asdict(copy)`; a card written by the hash check ([id, bits]) reads as an image copy."""
        if isinstance(data, dict):
            fields = {k: data[k] for k in ("id", "how", "transform", "similarity")}
            return cls(**fields, also=tuple(data.get("also", ())))
        pid, bits = data
        return cls(pid, "image", "", 1.0 - bits / 256)


def _shape_copy(found: ShapeMatch) -> Copy:
    """The shape side's finding as a `Copy`: what was done to the one pool painting, or the splice."""
    first = found.pieces[0]
    done = [word for word, on in (("mirrored", first.mirrored), (f"rotated {first.angle:.0f}°", abs(first.angle) >= 2),
                                  (f"scaled {first.scale:.2f}", abs(first.scale - 1) >= 0.03),
                                  ("recoloured", first.recoloured >= RECOLOURED)) if on]
    return Copy(first.id, "shapes", ", ".join(done), round(found.coverage, 4),
                tuple(dict.fromkeys(p.id for p in found.pieces[1:] if p.id != first.id)))


class CopyDetector:
    def __init__(self, pool: Pool, image: float, source: float, shapes: float = -1, outline: float = -1):
        """`image`, `source`, `shapes`, `outline`: the thresholds (`ScoringOptions.copy_image_similarity`,
        `copy_source_similarity`, `copy_shape_coverage`, `copy_outline_similarity`); -1 turns that side
        off. The shape and outline sides need the pool's display lists (`PoolItem.shapes`); a pool of
        images alone has none."""
        self.image_threshold, self.source_threshold, self.shape_threshold = image, source, shapes
        self.outline_threshold = outline
        items = list(pool.items)
        self.images = ImageIndex([i.id for i in items], [i.image_bytes() for i in items]) if image > 0 else None
        sources = {i.id: i.source.read_text(encoding="utf-8") for i in items if i.source is not None}
        self.sources = SourceIndex(sources) if source > 0 else None
        lists = {i.id: i.display_list() for i in items if i.shapes is not None}
        self.shapes = ShapeIndex(lists) if shapes > 0 and lists else None
        self.outlines = OutlineIndex(lists) if outline > 0 and lists else None

    def match(self, png: bytes, code: str | None = None, display_list: str | None = None) -> Copy | None:
        """The pool painting this painting (its picture, sketch or shapes) reproduces, or None. The
        picture and sketch sides speak first (they name a shift), then the outline (any angle); the
        shapes answer what they miss."""
        seen = self.images.nearest(png) if self.images is not None else None
        read = self.sources.nearest(code) if self.sources is not None and code else None
        by_image = seen is not None and seen.similarity >= self.image_threshold
        by_source = read is not None and read.similarity >= self.source_threshold
        if by_image and by_source and seen.id == read.id:
            return Copy(seen.id, "both", seen.transform, round(seen.similarity, 4))
        if by_image:
            return Copy(seen.id, "image", seen.transform, round(seen.similarity, 4))
        if by_source:
            return Copy(read.id, "source", "", round(read.similarity, 4))
        drawn = self.outlines.nearest(display_list) if self.outlines is not None and display_list else None
        if drawn is not None and drawn.similarity >= self.outline_threshold:
            return Copy(drawn.id, "outline", drawn.transform, round(drawn.similarity, 4))
        laid = self.shapes.nearest(display_list) if self.shapes is not None and display_list else None
        return _shape_copy(laid) if laid is not None and laid.coverage >= self.shape_threshold else None
