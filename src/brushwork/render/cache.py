"""Content-addressed render cache on disk: identical code + seed + size + versions is painted once.

Layout: ``<dir>/<key[:2]>/<key>.png`` and ``<key>.json``. Only `trusted` renders are stored
(a capture that agrees with its replay, from a job during which no browser process died): a
failure, ours or the sketch's, is rendered again rather than remembered, and an entry that is
not trusted is never served. Writes go through a temporary file and an atomic rename, so
concurrent renderers can share one cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from brushwork.paths import cache_root
from brushwork.render.result import RenderResult


def default_cache_dir() -> Path:
    return cache_root() / "renders"


def cache_key(code: str, seed: int, size: int, versions: str) -> str:
    payload = json.dumps([code, int(seed), int(size), versions])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class RenderCache:
    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def _paths(self, key: str) -> tuple[Path, Path]:
        folder = self.directory / key[:2]
        return folder / f"{key}.png", folder / f"{key}.json"

    def get(self, key: str) -> RenderResult | None:
        png_path, meta_path = self._paths(key)
        try:
            meta = json.loads(meta_path.read_text())
            png = png_path.read_bytes() if png_path.exists() else None
        except (OSError, ValueError):
            return None
        try:
            result = RenderResult.from_dict(meta, png)
        except (KeyError, TypeError):
            return None  # written by an older brushwork: render again
        if not result.trusted:  # a cache directory may be shared with a brushwork that stored it
            return None
        return replace(result, cache_hit=True)

    def put(self, key: str, result: RenderResult) -> None:
        if not result.trusted:
            return
        png_path, meta_path = self._paths(key)
        png_path.parent.mkdir(parents=True, exist_ok=True)
        if result.png is not None:
            _atomic_write(png_path, result.png)
        _atomic_write(meta_path, result.to_json().encode())


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
