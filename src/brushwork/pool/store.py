"""The pool store: a self-contained folder holding one person's (or team's) taste as data.

    <root>/pool.sqlite        items, ratings, pairwise preferences, snapshots (SQLite, WAL)
    <root>/blobs/<ab>/<hash>  images and sources, content-addressed (sha256)

A store may also fix the pairs its rating page shows, in order (`set_pairs`): a blind A/B
test of two runs is such a store.

Every write commits before it returns, so an acknowledged rating survives `kill -9` of the
process that made it. Several processes (raters, the web page, the CLI) may use one store at
once: SQLite's WAL mode lets readers and one writer work together.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.errors import ConfigError

DEFAULT_TIERS = ("love", "okay", "nope")
SPLITS = ("train", "eval")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    id TEXT PRIMARY KEY, image TEXT NOT NULL, source TEXT, subject TEXT NOT NULL DEFAULT '',
    prompt TEXT NOT NULL DEFAULT '', generator TEXT NOT NULL DEFAULT '', provenance TEXT NOT NULL DEFAULT '{}',
    split TEXT NOT NULL DEFAULT 'train', created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ratings (
    id INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL REFERENCES items(id), rater TEXT NOT NULL,
    tier TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS ratings_item ON ratings(item);
CREATE INDEX IF NOT EXISTS ratings_rater ON ratings(rater, id);
CREATE TABLE IF NOT EXISTS preferences (
    id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT NOT NULL REFERENCES items(id), b TEXT NOT NULL REFERENCES items(id),
    rater TEXT NOT NULL, winner TEXT NOT NULL CHECK (winner IN ('a', 'b', 'tie')), created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS preferences_rater ON preferences(rater);
CREATE TABLE IF NOT EXISTS pairs (position INTEGER PRIMARY KEY, a TEXT NOT NULL REFERENCES items(id),
    b TEXT NOT NULL REFERENCES items(id));
CREATE TABLE IF NOT EXISTS snapshots (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', created REAL NOT NULL,
    manifest TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Item:
    id: str
    image: str                    # sha256 of the PNG
    source: str | None            # sha256 of the sketch, when there is one
    subject: str = ""
    prompt: str = ""
    generator: str = ""
    provenance: dict = field(default_factory=dict)   # model, prompt, critique_round, parent, ...
    split: str = "train"
    created: float = 0.0


@dataclass(frozen=True)
class Rating:
    id: int
    item: str
    rater: str
    tier: str
    note: str
    created: float


@dataclass(frozen=True)
class Preference:
    id: int
    a: str
    b: str
    rater: str
    winner: str
    created: float


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class PoolStore:
    """Open with `PoolStore.init(root)` (new) or `PoolStore(root)` (existing)."""

    def __init__(self, root: Path | str):
        self.root = Path(root)
        if not (self.root / "pool.sqlite").exists():
            raise ConfigError(f"{self.root} is not a pool store: create one with `brushwork pool init {self.root}`")
        self._local = threading.local()
        self.tiers = tuple(json.loads(self._meta("tiers") or json.dumps(DEFAULT_TIERS)))

    @classmethod
    def init(cls, root: Path | str, tiers: tuple[str, ...] = DEFAULT_TIERS) -> PoolStore:
        root = Path(root)
        if len(set(tiers)) < 2 or any(not t.isidentifier() for t in tiers):
            raise ConfigError(f"tiers must be at least two distinct simple names, best first; got {tiers}")
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root} is a file, not a folder: give a new or existing folder for the pool store")
        root.mkdir(parents=True, exist_ok=True)
        (root / "blobs").mkdir(exist_ok=True)
        db = sqlite3.connect(root / "pool.sqlite")
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('tiers', ?)", (json.dumps(list(tiers)),))
        db.commit()
        db.close()
        return cls(root)

    # -- connections: one per thread; every write commits before returning ----------------
    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.root / "pool.sqlite", timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.row_factory = sqlite3.Row
            self._local.conn = conn
        return conn

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    # -- blobs ---------------------------------------------------------------------------
    def blob_path(self, digest: str) -> Path:
        return self.root / "blobs" / digest[:2] / digest

    def put_blob(self, data: bytes) -> str:
        digest = sha256(data)
        path = self.blob_path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        return digest

    def image_bytes(self, item: Item | str) -> bytes:
        return self.blob_path((self.item(item) if isinstance(item, str) else item).image).read_bytes()

    def source_text(self, item: Item | str) -> str | None:
        it = self.item(item) if isinstance(item, str) else item
        return self.blob_path(it.source).read_text(encoding="utf-8") if it.source else None

    # -- items -----------------------------------------------------------------------------
    def add_item(self, image_png: bytes, source: str | None = None, subject: str = "", prompt: str = "",
                 generator: str = "", provenance: dict | None = None, split: str = "train") -> str:
        """Add a painting (idempotent: the same image is one item). Returns its id."""
        if not image_png.startswith(b"\x89PNG"):
            raise ConfigError("an item's image must be a PNG")
        if split not in SPLITS:
            raise ConfigError(f"split must be one of {SPLITS}, got {split!r}")
        image = self.put_blob(image_png)
        src = self.put_blob(source.encode("utf-8")) if source else None
        item_id = image[:16]
        self.db.execute("INSERT OR IGNORE INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (item_id, image, src, subject, prompt, generator, json.dumps(provenance or {}, sort_keys=True),
                         split, time.time()))
        return item_id

    @staticmethod
    def _item(row) -> Item:
        return Item(row["id"], row["image"], row["source"], row["subject"], row["prompt"], row["generator"],
                    json.loads(row["provenance"]), row["split"], row["created"])

    def item(self, item_id: str) -> Item:
        row = self.db.execute("SELECT * FROM items WHERE id=?", (item_id,)).fetchone()
        if row is None:
            raise ConfigError(f"no item {item_id!r} in {self.root}")
        return self._item(row)

    def resolve(self, prefix: str) -> str:
        """The one item id that starts with `prefix` (an id is 16 hex digits; a few are enough)."""
        prefix = prefix.strip()
        if not prefix:
            raise ConfigError("an item id (or the start of one) is needed: `brushwork pool list` shows them")
        ids = [r[0] for r in self.db.execute("SELECT id FROM items WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 11",
                                             (len(prefix), prefix))]
        if prefix in ids:
            return prefix
        if len(ids) == 1:
            return ids[0]
        if not ids:
            raise ConfigError(f"no item starts with {prefix[:64]!r} in {self.root}: `brushwork pool list` shows "
                              "the ids")
        shown = ", ".join(ids[:10]) + (", ..." if len(ids) > 10 else "")
        raise ConfigError(f"{prefix[:64]!r} is the start of several items ({shown}): give more of the id")

    def items(self, split: str | None = None) -> list[Item]:
        q, args = ("SELECT * FROM items WHERE split=? ORDER BY created, id", (split,)) if split \
            else ("SELECT * FROM items ORDER BY created, id", ())
        return [self._item(r) for r in self.db.execute(q, args)]

    def set_split(self, item_id: str, split: str) -> None:
        if split not in SPLITS:
            raise ConfigError(f"split must be one of {SPLITS}, got {split!r}")
        self.db.execute("UPDATE items SET split=? WHERE id=?", (split, item_id))

    # -- ratings and preferences ---------------------------------------------------------------
    def rate(self, item_id: str, rater: str, tier: str, note: str = "") -> int:
        if tier not in self.tiers:
            raise ConfigError(f"tier must be one of {', '.join(self.tiers)}, got {tier!r}")
        if not rater.strip():
            raise ConfigError("a rating needs a rater name")
        self.item(item_id)
        cur = self.db.execute("INSERT INTO ratings (item, rater, tier, note, created) VALUES (?, ?, ?, ?, ?)",
                              (item_id, rater.strip(), tier, note, time.time()))
        return cur.lastrowid

    def delete_rating(self, rating_id: int) -> Rating | None:
        """Remove one rating by its id; returns it (None when it is gone already)."""
        row = self.db.execute("DELETE FROM ratings WHERE id=? RETURNING *", (rating_id,)).fetchone()
        return None if row is None else Rating(**dict(row))

    def ratings(self, item_id: str | None = None, rater: str | None = None) -> list[Rating]:
        where, args = [], []
        if item_id:
            where.append("item=?")
            args.append(item_id)
        if rater:
            where.append("rater=?")
            args.append(rater)
        q = "SELECT * FROM ratings" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        return [Rating(**dict(r)) for r in self.db.execute(q, args)]

    def prefer(self, a: str, b: str, rater: str, winner: str) -> int:
        if winner not in ("a", "b", "tie"):
            raise ConfigError(f"winner must be 'a', 'b' or 'tie', got {winner!r}")
        if a == b:
            raise ConfigError("a preference needs two different items")
        self.item(a), self.item(b)
        cur = self.db.execute("INSERT INTO preferences (a, b, rater, winner, created) VALUES (?, ?, ?, ?, ?)",
                              (a, b, rater.strip(), winner, time.time()))
        return cur.lastrowid

    def preferences(self) -> list[Preference]:
        return [Preference(**dict(r)) for r in self.db.execute("SELECT * FROM preferences ORDER BY id")]

    def delete_preference(self, preference_id: int) -> Preference | None:
        """Remove one preference by its id; returns it (None when it is gone already)."""
        row = self.db.execute("DELETE FROM preferences WHERE id=? RETURNING *", (preference_id,)).fetchone()
        return None if row is None else Preference(**dict(row))

    def set_pairs(self, pairs: list[tuple[str, str]]) -> None:
        """Fix the pairs the rating page shows, in this order (left, right); replaces earlier ones."""
        for a, b in pairs:
            if a == b:
                raise ConfigError(f"a pair needs two different items, got {a!r} twice")
            self.item(a), self.item(b)
        self.db.executescript(SCHEMA)   # a store made before pairs existed gains the table
        self.db.execute("BEGIN")
        self.db.execute("DELETE FROM pairs")
        self.db.executemany("INSERT INTO pairs VALUES (?, ?, ?)", [(k, a, b) for k, (a, b) in enumerate(pairs)])
        self.db.execute("COMMIT")

    def pairs(self) -> list[tuple[str, str]]:
        """The fixed pairs, in order; empty when the page may pair any two items."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='pairs'").fetchone():
            return []
        return [(r["a"], r["b"]) for r in self.db.execute("SELECT a, b FROM pairs ORDER BY position")]

    def tier_of(self, item_id: str) -> str | None:
        """The item's tier: each rater's latest rating, then the most common tier among raters
        (ties go to the better tier)."""
        latest: dict[str, str] = {}
        for r in self.ratings(item_id):
            latest[r.rater] = r.tier
        if not latest:
            return None
        votes = list(latest.values())
        return max(self.tiers, key=lambda t: (votes.count(t), -self.tiers.index(t)))

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
