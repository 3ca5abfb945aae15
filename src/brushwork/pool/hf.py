"""Import and export in the Hugging Face dataset layout, and import from folders of sketches.

    <dir>/metadata.jsonl   one record per painting: file_name, source, tier, subject, prompt,
                           generator, split, provenance (JSON text), ratings (JSON text)
    <dir>/images/<tier>_<id>.png   (tier as the file-name prefix, as the public pool does)
    <dir>/sources/<tier>_<id>.js

Loadable with ``datasets.load_dataset("imagefolder", data_dir=<dir>)``. Nested fields are
JSON text so every record has the same columns, which Arrow needs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.pool.store import PoolStore
from brushwork.sketch import extract_sketch

SKETCH_SUFFIXES = (".js", ".md", ".txt")


@dataclass
class ImportSummary:
    added: int = 0
    already: int = 0
    ratings: int = 0
    rendered: int = 0
    cached: int = 0
    failed: list[str] = field(default_factory=list)


def export_hf(store: PoolStore, out: Path, snapshot: str | None = None) -> int:
    """Write the store (or a snapshot of it) in the HF layout; returns the number of paintings."""
    from brushwork.pool.snapshot import get_snapshot, manifest

    m = get_snapshot(store, snapshot).manifest if snapshot else manifest(store)
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "sources").mkdir(exist_ok=True)
    lines = []
    for rec in m["items"]:
        item = store.item(rec["id"])
        tier = rec["tier"] or "unrated"
        stem = f"{tier}_{item.id}"
        (out / "images" / f"{stem}.png").write_bytes(store.blob_path(item.image).read_bytes())
        source = ""
        if item.source:
            source = f"sources/{stem}.js"
            (out / source).write_bytes(store.blob_path(item.source).read_bytes())
        lines.append(json.dumps({
            "file_name": f"images/{stem}.png", "source": source, "tier": tier, "subject": item.subject,
            "prompt": item.prompt, "generator": item.generator, "split": rec["split"], "id": item.id,
            "provenance": json.dumps(item.provenance, sort_keys=True),
            "ratings": json.dumps([{"rater": r, "tier": t, "note": n} for r, t, n in rec["ratings"]]),
        }))
    (out / "metadata.jsonl").write_text("\n".join(lines) + ("\n" if lines else ""))
    return len(lines)


def import_hf(store: PoolStore, folder: Path, rater: str = "import",
              on_progress: Callable[[int, int], None] | None = None) -> ImportSummary:
    """Import a pool in the HF layout (images, or sources rendered when images are missing)."""
    from brushwork.pool.folder import load_pool

    pool = load_pool(folder)
    summary = ImportSummary()
    known = {it.id for it in store.items()}
    for n, item in enumerate(pool.items, 1):
        meta = item.meta
        source = item.source.read_text(encoding="utf-8") if item.source and item.source.is_file() else None
        prov = meta.get("provenance") or {}
        if isinstance(prov, str):
            prov = json.loads(prov or "{}")
        if item.domain:     # the task domain it serves as a reference for (`brushwork.pool.coverage`)
            prov = {**prov, "domain": item.domain}
        item_id = store.add_item(item.image_bytes(), source, subject=item.subject, prompt=meta.get("prompt", ""),
                                 generator=meta.get("generator", ""), provenance=prov, split=item.split)
        if item_id in known:
            summary.already += 1
        else:
            summary.added += 1
            known.add(item_id)
            summary.ratings += _import_ratings(store, item_id, meta, item.tier, rater)
        if on_progress:
            on_progress(n, len(pool.items))
    return summary


def _import_ratings(store: PoolStore, item_id: str, meta: dict, tier: str, rater: str) -> int:
    ratings = meta.get("ratings")
    if isinstance(ratings, str):
        ratings = json.loads(ratings or "[]")
    if ratings:
        for r in ratings:
            store.rate(item_id, r["rater"], r["tier"], r.get("note", ""))
        return len(ratings)
    if tier in store.tiers:
        store.rate(item_id, meta.get("rater") or rater, tier, meta.get("note", ""))
        return 1
    return 0


def import_sketches(store: PoolStore, files: list[Path], renderer, subject: str = "", generator: str = "import",
                    on_progress: Callable[[int, int], None] | None = None) -> ImportSummary:
    """Render sketches (or replies holding one) and add them unrated. The render cache means
    an already-rendered sketch is never painted again."""
    summary = ImportSummary()
    codes = []
    for f in files:
        sketch = extract_sketch(Path(f).read_text(encoding="utf-8", errors="replace"))
        if sketch is None:
            summary.failed.append(f"{f}: no sketch")
        else:
            codes.append((Path(f), sketch.code))
    done = []

    def progress(_i, _r):
        done.append(1)
        if on_progress:
            on_progress(len(done), len(codes))
    results = renderer.render_many([c for _, c in codes], seed=0, on_done=progress)
    known = {it.id for it in store.items()}
    for (path, code), result in zip(codes, results):
        if result.png is None or not result.ok:
            summary.failed.append(f"{path}: {result.status} {result.detail}".strip())
            continue
        summary.cached += result.cache_hit
        summary.rendered += not result.cache_hit
        item_id = store.add_item(result.png, code, subject=subject or path.stem.replace("_", " "),
                                 generator=generator, provenance={"file": path.name})
        if item_id in known:
            summary.already += 1
        else:
            summary.added += 1
            known.add(item_id)
    return summary


def sketch_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder")
    return sorted(p for p in folder.rglob("*") if p.suffix in SKETCH_SUFFIXES and p.is_file())
