"""Image helpers: a painting's PNG laid on white paper as RGB, whole or reduced to a thumbnail.

Every layer that looks at pixels starts here: rendering (captures, diffs), the taste features,
evaluation's diversity thumbnails and the pool report's inline previews. Transparency is always
composited over opaque white, the paper a painting is shown on.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

PAPER = (255, 255, 255, 255)


def on_white(png: bytes) -> Image.Image:
    """Decode a PNG (any mode, with or without alpha) and composite it over white paper, as RGB."""
    with Image.open(io.BytesIO(png)) as im:
        rgba = im.convert("RGBA")
    paper = Image.new("RGBA", rgba.size, PAPER)
    return Image.alpha_composite(paper, rgba).convert("RGB")


def rgb_array(png: bytes) -> np.ndarray:
    """The painting on white as an HxWx3 uint8 array, at full size."""
    return np.asarray(on_white(png))


def thumbnail_rgb(png: bytes, size: int, resample: Image.Resampling = Image.Resampling.BILINEAR) -> np.ndarray:
    """The painting on white squeezed to size x size (aspect not kept), as float64 RGB in 0..1."""
    small = on_white(png).resize((size, size), resample)
    return np.asarray(small, dtype=np.float64) / 255.0


def thumbnail_jpeg(png: bytes, size: int, quality: int = 82) -> bytes:
    """The painting on white fitted within size x size (aspect kept, never enlarged), as JPEG bytes."""
    im = on_white(png)
    im.thumbnail((size, size))
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=quality)
    return buf.getvalue()
