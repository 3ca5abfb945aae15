"""Pixel arithmetic on captured paintings: decoding, paper compositing, paint fraction, diffs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from brushwork.core.images import rgb_array
from brushwork.errors import ConfigError


def to_rgb(png: bytes) -> np.ndarray:
    """Decode a PNG to an HxWx3 uint8 array, compositing transparency over white paper."""
    return rgb_array(png)


def paint_fraction(rgb: np.ndarray, tolerance: int = 4) -> float:
    """Fraction of pixels that differ from the modal (background) colour by more than `tolerance`."""
    flat = rgb.reshape(-1, 3).astype(np.int32)
    packed = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    mode = values[np.argmax(counts)]
    modal = np.array([(mode >> 16) & 255, (mode >> 8) & 255, mode & 255], dtype=np.int32)
    differs = np.abs(flat - modal).max(axis=1) > tolerance
    return float(differs.mean())


def mean_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute per-channel difference on the 0–255 scale (images must share a shape)."""
    if a.shape != b.shape:
        raise ConfigError(f"cannot compare images of shapes {a.shape} and {b.shape}: render both at the same size")
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


@dataclass(frozen=True)
class Difference:
    """How far one painting is from another: mean and largest per-channel |Δ| on 0–255, and
    how many pixels differ at all."""

    mean_abs: float
    max_abs: int
    pixels: int


def difference(a: bytes, b: bytes) -> Difference:
    """The `Difference` between two PNGs of the same size."""
    x, y = to_rgb(a).astype(np.int16), to_rgb(b).astype(np.int16)
    if x.shape != y.shape:
        raise ConfigError(f"cannot compare images of shapes {x.shape} and {y.shape}: render both at the same size")
    delta = np.abs(x - y)
    return Difference(float(delta.mean()), int(delta.max()), int((delta.max(axis=2) > 0).sum()))
