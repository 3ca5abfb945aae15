"""Read a preference pool stored in the Hugging Face dataset layout.

    <pool>/metadata.jsonl   {"file_name": "images/love_x.png", "source": "sources/love_x.js",
                             "tier": "love", "subject": ..., "split": "train" | "eval", ...}
    <pool>/images/          the paintings (tier also the file-name prefix: love_, okay_, nope_)
    <pool>/sources/         the sketches that painted them
    <pool>/shapes/          optional: each painting's display list (`RenderResult.display_list`),
                            `<id>.json`, what the shape side of copy detection compares

A pool whose images are missing but whose sources are present (the bundled example
pool ships only sources) is *materialized*: its sketches are rendered once by brushwork
into a cache folder with the full layout, display lists included, and that folder is what
gets used. A pool of images alone has no shapes (its copies are found by their pictures).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.paths import cache_root

TIERS = ("love", "okay", "nope")
LAYOUT = b"images+shapes\n"   # what a materialized folder holds: part of its cache key


@dataclass(frozen=True)
class PoolItem:
    id: str                 # the image file's stem, e.g. love_peach_soft
    tier: str
    image: Path
    source: Path | None = None
    subject: str = ""
    domain: str = ""
    split: str = "train"
    meta: dict = field(default_factory=dict, compare=False, repr=False)
    shapes: Path | None = None   # the display list that painted it (JSON), where the pool keeps one

    def image_bytes(self) -> bytes:
        return self.image.read_bytes()

    def display_list(self) -> str | None:
        return self.shapes.read_text(encoding="utf-8") if self.shapes is not None else None


@dataclass(frozen=True)
class Pool:
    root: Path
    items: tuple[PoolItem, ...]
    snapshot: str           # content hash of metadata + images: what a taste model was fit on
    preferences: tuple[tuple[str, str], ...] = ()   # (preferred id, other id) from pairwise ratings

    def split(self, name: str) -> tuple[PoolItem, ...]:
        return tuple(i for i in self.items if i.split == name)

    def by_tier(self, split: str = "train") -> dict[str, list[PoolItem]]:
        tiers: dict[str, list[PoolItem]] = {}
        for item in self.split(split):
            tiers.setdefault(item.tier, []).append(item)
        return tiers


def example_pool_dir() -> Path:
    return Path(str(resources.files("brushwork").joinpath("examples", "pool")))


def _records(root: Path) -> list[dict]:
    meta = root / "metadata.jsonl"
    if not meta.exists():
        raise ConfigError(f"{root} is not a pool folder: metadata.jsonl is missing")
    records = []
    for n, raw in enumerate(meta.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError as e:
            raise ConfigError(f"{meta}:{n}: not JSON ({e}): one JSON object per line, "
                              '{"file_name": "images/love_x.png", "tier": "love", ...}') from e
        if not isinstance(rec, dict):
            raise ConfigError(f"{meta}:{n}: a {type(rec).__name__}, not a JSON object: one object per line, "
                              '{"file_name": "images/love_x.png", "tier": "love", ...}')
        if not isinstance(rec.get("file_name"), str):
            raise ConfigError(f"{meta}:{n}: needs a file_name (images/<tier>_<name>.png)")
        records.append(rec)
    return records


def check_records(root: Path | str, tiers: tuple[str, ...]) -> int:
    """Check a folder's metadata.jsonl against a store's `tiers` before anything is imported:
    an unknown tier (given, or in a record's ratings), a bad split or a provenance or ratings
    field that is not JSON is a ConfigError naming the line and the fix. Returns the record count."""
    _records(Path(root))    # not JSON, not an object, no file_name: refused there, by line
    meta = Path(root) / "metadata.jsonl"
    known = ", ".join(tiers)
    fix = f"this store's tiers are {known} ('unrated' for none): fix the line, or import into a store made " \
          "with `brushwork pool init --tiers ...`"
    count = 0
    for n, raw in enumerate(meta.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        rec, count = json.loads(raw), count + 1
        tier = rec.get("tier")
        if tier and tier not in (*tiers, "unrated"):
            raise ConfigError(f"{meta}:{n}: unknown tier {str(tier)[:40]!r}: {fix}")
        if rec.get("split", "train") not in ("train", "eval"):
            raise ConfigError(f"{meta}:{n}: split {str(rec['split'])[:40]!r} is neither train nor eval")
        fields = {k: rec.get(k) for k in ("provenance", "ratings")}
        for key, value in fields.items():
            try:
                fields[key] = json.loads(value or ("[]" if key == "ratings" else "{}")) \
                    if isinstance(value, str) else value
            except ValueError as e:
                raise ConfigError(f"{meta}:{n}: {key} is not JSON text ({e}): write it as a JSON string") from e
        for rating in fields["ratings"] or []:
            if not isinstance(rating, dict) or not rating.get("rater") or rating.get("tier") not in tiers:
                raise ConfigError(f"{meta}:{n}: a rating needs a rater and a tier ({known}), got "
                                  f"{json.dumps(rating)[:80]}: {fix}")
    return count


def _tier_of(rec: dict) -> str:
    tier = rec.get("tier") or Path(rec["file_name"]).name.split("_", 1)[0]
    return str(tier)


def load_pool(root: Path | str, renderer=None, on_rendered=None) -> Pool:
    """Read a pool folder; render missing images from their sources (needs a SyncRenderer,
    started on demand when `renderer` is None). `on_rendered(done, total)` reports progress."""
    root = Path(root)
    records = _records(root)
    missing = [r for r in records if not (root / r["file_name"]).exists()]
    if missing:
        root = materialize(root, renderer, on_rendered)
        records = _records(root)
    items = []
    for rec in records:
        image = root / rec["file_name"]
        if not image.exists():
            raise ConfigError(f"{image} is missing and has no source to render it from")
        source = root / rec["source"] if rec.get("source") else None
        shapes = root / "shapes" / f"{image.stem}.json"
        items.append(PoolItem(id=image.stem, tier=_tier_of(rec), image=image, source=source,
                              subject=rec.get("subject", ""), domain=rec.get("domain", ""),
                              split=rec.get("split", "train"), meta=rec,
                              shapes=shapes if shapes.is_file() else None))
    return Pool(root, tuple(items), _snapshot(root, records))


def _snapshot(root: Path, records: list[dict]) -> str:
    """Content hash of the pool. A painting with a sketch is identified by its sketch, not by
    its render: SwiftShader differs in a few pixels between machines, and the same pool must
    give the same reference draws everywhere."""
    h = hashlib.sha256()
    for rec in sorted(records, key=lambda r: r["file_name"]):
        h.update(json.dumps(rec, sort_keys=True).encode())
        source = root / rec["source"] if rec.get("source") else None
        content = source if source is not None and source.is_file() else root / rec["file_name"]
        h.update(hashlib.sha256(content.read_bytes()).digest())
    return h.hexdigest()[:16]


def materialize(root: Path, renderer=None, on_rendered=None) -> Path:
    """Render a sources-only pool into a cache folder with the full layout; return that folder."""
    records = _records(root)
    h = hashlib.sha256(LAYOUT + (root / "metadata.jsonl").read_bytes())
    for rec in records:
        src = root / rec.get("source", "")
        if not rec.get("source") or not src.is_file():
            raise ConfigError(f"{root}: {rec['file_name']} has neither an image nor a source to render")
        h.update(src.read_bytes())
    target = cache_root() / "pools" / h.hexdigest()[:16]
    if (target / ".complete").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "metadata.jsonl", target / "metadata.jsonl")
    (target / "sources").mkdir(exist_ok=True)
    (target / "images").mkdir(exist_ok=True)
    (target / "shapes").mkdir(exist_ok=True)
    codes = [(rec, (root / rec["source"]).read_text(encoding="utf-8")) for rec in records]
    for rec, code in codes:
        (target / rec["source"]).write_text(code, encoding="utf-8")

    from brushwork.render import SyncRenderer

    own = renderer is None
    r = SyncRenderer() if own else renderer
    try:
        done = []
        if on_rendered is not None:
            on_rendered(0, len(codes))

        def progress(_index, _result):
            done.append(1)
            if on_rendered is not None:
                on_rendered(len(done), len(codes))
        results = r.render_many([code for _, code in codes], seed=0, on_done=progress)
    finally:
        if own:
            r.close()
    for (rec, _), result in zip(codes, results):
        if result.png is None:
            raise ConfigError(f"{root}: {rec['source']} did not render ({result.status}: {result.detail})")
        (target / rec["file_name"]).write_bytes(result.png)
        if result.display_list:
            shapes = target / "shapes" / f"{Path(rec['file_name']).stem}.json"
            shapes.write_text(result.display_list, encoding="utf-8")
    (target / ".complete").write_text("ok\n")
    return target
