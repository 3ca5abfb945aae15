"""Snapshots: immutable, content-addressed states of a pool store.

A snapshot's id is the hash of its manifest (items with their image and source hashes,
splits, consensus tiers and every rating and preference), so the same taste always has the
same id and any change gives a new one. The reward and training configs name a snapshot;
a reference draw is reproducible from (snapshot, seed).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from brushwork.core.progress import progress as stderr_progress
from brushwork.errors import ConfigError
from brushwork.pool.folder import Pool, PoolItem
from brushwork.pool.store import PoolStore


@dataclass(frozen=True)
class Snapshot:
    id: str
    name: str
    created: float
    manifest: dict

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.manifest["items"]:
            counts[item["tier"] or "unrated"] = counts.get(item["tier"] or "unrated", 0) + 1
        return counts


def manifest(store: PoolStore) -> dict:
    items = []
    for it in sorted(store.items(), key=lambda i: i.id):
        items.append({"id": it.id, "image": it.image, "source": it.source, "subject": it.subject,
                      "generator": it.generator, "split": it.split, "tier": store.tier_of(it.id),
                      "ratings": [[r.rater, r.tier, r.note] for r in store.ratings(it.id)]})
    prefs = [[p.a, p.b, p.rater, p.winner] for p in store.preferences()]
    return {"tiers": list(store.tiers), "items": items, "preferences": prefs}


def snapshot_id(m: dict) -> str:
    return hashlib.sha256(json.dumps(m, sort_keys=True).encode()).hexdigest()[:16]


def take_snapshot(store: PoolStore, name: str = "") -> Snapshot:
    """Record the store's current state (idempotent: the same state is the same snapshot)."""
    m = manifest(store)
    sid = snapshot_id(m)
    existing = store.db.execute("SELECT name, created FROM snapshots WHERE id=?", (sid,)).fetchone()
    if existing is not None:
        return Snapshot(sid, existing[0], existing[1], m)
    created = time.time()
    store.db.execute("INSERT INTO snapshots VALUES (?, ?, ?, ?)", (sid, name, created, json.dumps(m, sort_keys=True)))
    return Snapshot(sid, name, created, m)


def list_snapshots(store: PoolStore) -> list[Snapshot]:
    rows = store.db.execute("SELECT id, name, created, manifest FROM snapshots ORDER BY created").fetchall()
    return [Snapshot(r[0], r[1], r[2], json.loads(r[3])) for r in rows]


def get_snapshot(store: PoolStore, ref: str) -> Snapshot:
    """By id, id prefix or name."""
    matches = [s for s in list_snapshots(store) if s.id.startswith(ref) or s.name == ref]
    if len(matches) != 1:
        known = ", ".join(f"{s.id} ({s.name})" if s.name else s.id for s in list_snapshots(store)) or "none"
        raise ConfigError(f"snapshot {ref!r} {'is ambiguous' if matches else 'not found'}; snapshots: {known}")
    return matches[0]


def pool_from_store(store: PoolStore, snapshot: str | None = None) -> Pool:
    """The scorer's view of a store: a recorded snapshot, or the current state."""
    if snapshot:
        snap = get_snapshot(store, snapshot)
        m, sid = snap.manifest, snap.id
    else:
        m = manifest(store)
        sid = snapshot_id(m)
    domains = {it.id: it.provenance.get("domain", "") for it in store.items()}   # what each is a reference for
    items = tuple(PoolItem(id=i["id"], tier=i["tier"], image=store.blob_path(i["image"]),
                           source=store.blob_path(i["source"]) if i["source"] else None, subject=i["subject"],
                           domain=domains.get(i["id"], ""), split=i["split"], meta=i)
                  for i in m["items"] if i["tier"] is not None)
    prefs = tuple((a, b) if w == "a" else (b, a) for a, b, _rater, w in m["preferences"] if w != "tie")
    return Pool(Path(store.root), items, sid, prefs)


def open_pool(path: Path | str, snapshot: str | None = None, renderer=None, on_rendered=None) -> Pool:
    """A pool store (optionally at a snapshot) or a folder in the HF layout, as the scorer's `Pool`."""
    from brushwork.pool.folder import load_pool

    path = Path(path)
    if (path / "pool.sqlite").exists():
        return pool_from_store(PoolStore(path), snapshot)
    if snapshot:
        raise ConfigError(f"--snapshot needs a pool store; {path} is a folder (import it: brushwork pool import)")
    return load_pool(path, renderer=renderer, on_rendered=on_rendered)


def load_pool_with_progress(path: Path | str | None = None, progress=stderr_progress, renderer=None,
                            snapshot: str | None = None) -> Pool:
    """`open_pool` on `path` (default: the bundled example pool), with progress while a folder's
    sketches are rendered the first time. `progress` makes the bar: a callable returning a
    context manager like rich's `Progress` (default: a live bar when stderr is a terminal, a
    plain line every few paintings otherwise; None: silent)."""
    from brushwork.pool.folder import example_pool_dir

    path = path or example_pool_dir()
    if progress is None:
        return open_pool(path, snapshot, renderer=renderer)
    with progress() as bar:
        task = bar.add_task("rendering the pool's paintings (first use only)", total=None)

        def on_rendered(done, total):
            bar.update(task, completed=done, total=total)
        return open_pool(path, snapshot, renderer=renderer, on_rendered=on_rendered)
