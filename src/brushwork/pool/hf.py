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
from brushwork.gate import Gate
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
    refused: list[str] = field(default_factory=list)   # "<file>: <gate rule ids>", not imported


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


def tier_prefix(path: Path, tiers: tuple[str, ...]) -> str | None:
    """The tier a file name starts with (`love_peach.js` -> love), when it is one of `tiers`."""
    head, sep, _ = path.name.partition("_")
    return head if sep and head in tiers else None


def import_sketches(store: PoolStore, files: list[Path], renderer, subject: str = "", generator: str = "import",
                    on_progress: Callable[[int, int], None] | None = None, *, gate: Gate,
                    rater: str = "import") -> ImportSummary:
    """Render sketches (or replies holding one), gate each with its render, and add those that
    pass; one that does not (a cheat, or a sketch that breaks) is listed in `refused` with its
    rule ids and not added, because the pool is what the reward learns taste from. A file named
    `<tier>_<name>` is rated <tier> by `rater`; others are added unrated. The render cache means
    an already-rendered sketch is never painted again."""
    summary = ImportSummary()
    codes, texts = [], {}
    for f in files:
        texts[Path(f)] = Path(f).read_text(encoding="utf-8", errors="replace")
        sketch = extract_sketch(texts[Path(f)])
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
        report = gate.check(texts[path], render=result)
        if report.infra_failure or result.png is None:
            summary.failed.append(f"{path}: {result.status} {result.detail}".strip())
            continue
        if not report.passed:
            summary.refused.append(f"{path}: {', '.join(report.ids)}")
            continue
        summary.cached += result.cache_hit
        summary.rendered += not result.cache_hit
        tier = tier_prefix(path, store.tiers)
        name = path.stem.split("_", 1)[1] if tier else path.stem
        item_id = store.add_item(result.png, code, subject=subject or name.replace("_", " "),
                                 generator=generator, provenance={"file": path.name})
        if item_id in known:
            summary.already += 1
            continue
        summary.added += 1
        known.add(item_id)
        if tier:
            store.rate(item_id, rater, tier)
            summary.ratings += 1
    return summary


def sketch_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder")
    return sorted(p for p in folder.rglob("*") if p.suffix in SKETCH_SUFFIXES and p.is_file())
