"""The pool store for real (SQLite files on disk): items, ratings, snapshots, the strict
split, import / export in the Hugging Face layout."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading

import numpy as np
import pytest
from PIL import Image, ImageDraw

from brushwork.errors import ConfigError
from brushwork.gate import Gate
from brushwork.pool.folder import check_records
from brushwork.pool.hf import export_hf, import_hf
from brushwork.pool.snapshot import get_snapshot, pool_from_store, take_snapshot
from brushwork.pool.split import assign_split, dhash, find_leaks, hamming
from brushwork.pool.store import PoolStore
from brushwork.score import pick_references


def png(seed: int, noise: float = 0.0) -> bytes:
    rng = np.random.default_rng(seed)
    im = Image.new("RGB", (96, 96), tuple(int(c) for c in rng.integers(200, 255, 3)))
    d = ImageDraw.Draw(im)
    for _ in range(4):
        x, y, r = (int(v) for v in rng.integers(10, 80, 3))
        d.ellipse((x - r // 3, y - r // 3, x + r // 3, y + r // 3), fill=tuple(int(c) for c in rng.integers(0, 255, 3)))
    arr = np.asarray(im, dtype=float)
    if noise:
        arr = np.clip(arr + np.random.default_rng(seed + 999).normal(0, noise, arr.shape), 0, 255)
    buf = io.BytesIO()
    Image.fromarray(arr.astype(np.uint8)).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def store(tmp_path):
    s = PoolStore.init(tmp_path / "pool")
    tiers = ["love"] * 6 + ["okay"] * 6 + ["nope"] * 6
    for n, tier in enumerate(tiers):
        item = s.add_item(png(n), f"// sketch {n}\nfunction setup() {{}}\n", subject=f"flower {n % 3}",
                          generator=["hand", "procedural"][n % 2], provenance={"seed": n})
        s.rate(item, "ann", tier)
    return s


def test_items_ratings_and_validation(store):
    items = store.items()
    assert len(items) == 18 and items[0].provenance == {"seed": 0}
    again = store.add_item(png(0), "// sketch 0\nfunction setup() {}\n")
    assert again == items[0].id and len(store.items()) == 18  # idempotent by content
    first = items[0].id
    store.rate(first, "bob", "okay")
    latest = store.rate(first, "cy", "okay")
    assert store.tier_of(first) == "okay"
    assert store.delete_rating(latest).tier == "okay" and store.tier_of(first) == "love"  # tie -> better tier
    assert store.delete_rating(latest) is None
    assert store.source_text(first).startswith("// sketch 0")
    for bad in (lambda: store.rate(first, "ann", "meh"), lambda: store.rate(first, " ", "love"),
                lambda: store.rate("nope-such-item", "ann", "love"), lambda: store.prefer(first, first, "a", "a"),
                lambda: store.add_item(b"GIF89a", None)):
        with pytest.raises(ConfigError):
            bad()
    with pytest.raises(ConfigError, match="pool init"):
        PoolStore(store.root / "missing")


def test_concurrent_raters_all_land(store):
    items = [i.id for i in store.items()]

    def rater(name):
        s = PoolStore(store.root)
        for item in items:
            s.rate(item, name, "okay")
    threads = [threading.Thread(target=rater, args=(f"r{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.ratings()) == 18 + 4 * 18


def test_acknowledged_rating_survives_kill_9(store):
    item = store.items()[0].id
    code = (f"import os, signal\nfrom brushwork.pool.store import PoolStore\n"
            f"s = PoolStore({str(store.root)!r}); s.rate({item!r}, 'kim', 'nope'); print('ack', flush=True)\n"
            f"os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "ack" and proc.returncode == -9
    assert [r.tier for r in PoolStore(store.root).ratings(item, "kim")] == ["nope"]


def test_snapshots_are_content_addressed_and_draws_reproducible(store):
    a = take_snapshot(store, "v1")
    assert take_snapshot(store).id == a.id  # same state, same snapshot
    assert get_snapshot(store, "v1").id == a.id and get_snapshot(store, a.id[:6]).id == a.id
    pool_a = pool_from_store(store, a.id)
    assert pool_a.snapshot == a.id and len(pool_a.items) == 18
    draw = [r.id for r in pick_references(pool_a, seed=3)]
    store.rate(store.items()[7].id, "ann", "love")
    b = take_snapshot(store, "v2")
    assert b.id != a.id and b.counts == {"love": 7, "okay": 5, "nope": 6}
    assert [r.id for r in pick_references(pool_from_store(store, a.id), seed=3)] == draw  # old snapshot, old draw
    with pytest.raises(ConfigError, match="not found"):
        get_snapshot(store, "v9")


def test_split_keeps_near_duplicates_together_and_check_names_leaks(store, tmp_path):
    original = store.items()[0]
    near = store.add_item(png(0, noise=3.0), "// a retouched copy\n", subject="flower 0")
    store.rate(near, "ann", "love")
    assert hamming(dhash(png(0)), dhash(png(0, noise=3.0))) <= 6
    assert hamming(dhash(png(0)), dhash(png(1))) > 6
    store.set_split(near, "eval")  # plant a near-duplicate across the split
    (leak,) = find_leaks(store)
    assert {leak.train, leak.eval} == {original.id, near} and "near-duplicate" in leak.reason
    cli = subprocess.run([sys.executable, "-m", "brushwork.cli", "pool", "check", str(store.root)],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 1 and near in cli.stdout and original.id in cli.stdout
    counts = assign_split(store, eval_fraction=0.25, seed=1)
    assert counts["eval"] >= 3 and not find_leaks(store)
    assert store.item(near).split == store.item(original.id).split
    pool = pool_from_store(store)
    evals = {i.id for i in pool.split("eval")}
    for seed in range(10):
        assert not {r.id for r in pick_references(pool, mix=(("love", 1), ("okay", 1)), seed=seed)} & evals
    ok = subprocess.run([sys.executable, "-m", "brushwork.cli", "pool", "check", str(store.root)],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout


def test_export_loads_with_datasets_and_imports_back(store, tmp_path):
    datasets = pytest.importorskip("datasets")
    store.rate(store.items()[0].id, "bob", "okay")
    out = tmp_path / "hf"
    assert export_hf(store, out) == 18
    names = sorted(p.name for p in (out / "images").iterdir())
    assert sum(n.startswith("love_") for n in names) == 6 and all(n.split("_")[0] in store.tiers for n in names)
    ds = datasets.load_dataset("imagefolder", data_dir=str(out), split="train")
    assert len(ds) == 18 and {"image", "tier", "subject", "generator", "ratings"} <= set(ds.column_names)
    assert sorted(ds["tier"]).count("nope") == 6
    copy = PoolStore.init(tmp_path / "copy")
    summary = import_hf(copy, out)
    assert summary.added == 18 and summary.ratings == 19
    assert {i.id for i in copy.items()} == {i.id for i in store.items()}
    first = store.items()[0].id
    assert sorted((r.rater, r.tier) for r in copy.ratings(first)) == [("ann", "love"), ("bob", "okay")]
    assert json.loads(json.dumps(copy.item(first).provenance)) == {"seed": 0}
    assert import_hf(copy, out).already == 18  # idempotent


@pytest.mark.chromium
def test_import_sketch_folder_renders_once(tmp_path, renderer):
    from pathlib import Path

    from brushwork.pool.hf import import_sketches, sketch_files

    folder = tmp_path / "sketches"
    folder.mkdir()
    corpus = sorted((Path(__file__).parent / "corpus" / "honest").glob("*.md"))[:3]
    for f in corpus:
        (folder / f.name).write_text(f.read_text())
    (folder / "notes.md").write_text("no code in here")
    seen = []
    first = import_sketches(PoolStore.init(tmp_path / "a"), sketch_files(folder), renderer,
                            on_progress=lambda d, t: seen.append((d, t)), gate=Gate())
    assert first.added == 3 and first.failed == [f"{folder / 'notes.md'}: no sketch"] and seen[-1] == (3, 3)
    second = import_sketches(PoolStore.init(tmp_path / "b"), sketch_files(folder), renderer, gate=Gate())
    assert second.added == 3 and second.cached == 3 and second.rendered == 0


@pytest.mark.chromium
def test_folder_import_gates_and_reads_tiers_from_file_names(tmp_path, renderer):
    from pathlib import Path

    from brushwork.pool.hf import import_sketches, sketch_files

    examples = Path(__file__).parents[1] / "src/brushwork/examples"
    folder = tmp_path / "sketches"
    folder.mkdir()
    for name, example in [("love_lotus.md", "good_lotus.md"), ("nope_meadow.md", "good_meadow.md"),
                          ("abstract.md", "good_abstract.md"), ("love_cheat.md", "cheat_bare_primitives.md"),
                          ("okay_text.md", "cheat_text.md")]:
        (folder / name).write_text((examples / example).read_text())
    store = PoolStore.init(tmp_path / "pool")
    summary = import_sketches(store, sketch_files(folder), renderer, gate=Gate(), rater="me")
    refused = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in summary.refused}
    assert set(refused) == {str(folder / "love_cheat.md"), str(folder / "okay_text.md")}, summary
    assert "text_on_canvas" in refused[str(folder / "okay_text.md")]
    assert summary.added == 3 and summary.ratings == 2 and summary.failed == []
    tiers = {item.subject: store.tier_of(item.id) for item in store.items()}
    assert tiers == {"lotus": "love", "meadow": "nope", "abstract": None}   # the twins: honest, imported
    assert {r.rater for r in store.ratings()} == {"me"}


def test_pairwise_preferences_reach_the_taste_model(store):
    from brushwork.score.taste.model import fit

    items = store.items()
    love, nope = items[0].id, items[-1].id
    store.prefer(nope, love, "ann", "a")
    store.prefer(love, items[1].id, "ann", "tie")
    pool = pool_from_store(store)
    assert pool.preferences == ((nope, love),)
    model = fit(pool, l2=10.0)
    assert model.report["preferences"] == 1


def test_folder_pool_snapshot_follows_sketches_not_renders(tmp_path):
    from brushwork.pool import load_pool

    (tmp_path / "images").mkdir()
    (tmp_path / "sources").mkdir()
    rows = []
    for n, tier in enumerate(["love", "okay", "nope"]):
        (tmp_path / "images" / f"{tier}_{n}.png").write_bytes(png(n))
        (tmp_path / "sources" / f"{tier}_{n}.js").write_text(f"// sketch {n}\n")
        rows.append(json.dumps({"file_name": f"images/{tier}_{n}.png", "source": f"sources/{tier}_{n}.js"}))
    (tmp_path / "metadata.jsonl").write_text("\n".join(rows) + "\n")
    first = load_pool(tmp_path).snapshot
    (tmp_path / "images" / "love_0.png").write_bytes(png(0, noise=2.0))  # another machine's render
    assert load_pool(tmp_path).snapshot == first
    (tmp_path / "sources" / "love_0.js").write_text("// another sketch\n")
    assert load_pool(tmp_path).snapshot != first


def test_ids_by_prefix_and_ambiguous_prefixes_list_their_candidates(store):
    ids = sorted(item.id for item in store.items())
    assert store.resolve(ids[0][:6]) == ids[0] and store.resolve(ids[0]) == ids[0]
    by_first = {}
    for i in ids:
        by_first.setdefault(i[0], []).append(i)
    shared = next(group for group in by_first.values() if len(group) > 1)
    with pytest.raises(ConfigError, match="start of several items") as e:
        store.resolve(shared[0][0])
    assert all(i in str(e.value) for i in shared[:10]) and "give more of the id" in str(e.value)
    with pytest.raises(ConfigError, match="no item starts with 'zz'.*pool list"):
        store.resolve("zz")
    with pytest.raises(ConfigError, match="pool list"):
        store.resolve("  ")


def test_delete_rating_takes_that_rating_alone(store):
    item = store.items()[0].id
    mine, theirs = store.rate(item, "ana", "nope"), store.rate(item, "bo", "love")
    assert store.delete_rating(mine).rater == "ana" and store.delete_rating(mine) is None
    assert [r.id for r in store.ratings(item) if r.rater == "bo"] == [theirs]


BAD_METADATA = [
    # (a line, what the one-line error must say)
    ('{"file_name": "images/love_a.png", "tier": "love"', "not JSON"),
    ('["images/love_a.png"]', "a list, not a JSON object"),
    ('{"tier": "love"}', "needs a file_name"),
    ('{"file_name": "images/a.png", "tier": "adore"}', "unknown tier 'adore'"),
    ('{"file_name": "images/a.png", "split": "test"}', "split 'test' is neither train nor eval"),
    ('{"file_name": "images/a.png", "provenance": "{oops"}', "provenance is not JSON text"),
    ('{"file_name": "images/a.png", "ratings": "[{\\"rater\\": \\"x\\", \\"tier\\": \\"meh\\"}]"}',
     "a rating needs a rater and a tier"),
]


@pytest.mark.parametrize("line, words", BAD_METADATA)
def test_malformed_metadata_is_one_line_naming_the_line(tmp_path, line, words):
    folder = tmp_path / "pool"
    folder.mkdir()
    good = '{"file_name": "images/love_b.png", "tier": "love", "ratings": "[]", "provenance": "{}"}'
    (folder / "metadata.jsonl").write_text(f"{good}\n\n{line}\n")
    with pytest.raises(ConfigError) as e:
        check_records(folder, ("love", "okay", "nope"))
    message = str(e.value)
    assert "metadata.jsonl:3: " in message and words in message and "\n" not in message
    (folder / "metadata.jsonl").write_text(f"{good}\n\n" + good.replace("love_b", "unrated_c")
                                           .replace('"love"', '"unrated"') + "\n")
    assert check_records(folder, ("love", "okay", "nope")) == 2     # the twin: well-formed lines pass


# -- the command line: one line, never a traceback ----------------------------------------------------
def _cli(*args, cwd=None):
    from pathlib import Path

    cli = Path(sys.executable).with_name("brushwork")
    return subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_cli_list_filters_and_rate_by_prefix(store):
    root = store.root
    first = store.items()[0]
    store.set_split(first.id, "eval")
    rated = _cli("pool", "rate", root, first.id[:5], "okay", "--rater", "bo")
    assert rated.returncode == 0 and f"{first.id}: okay by bo" in rated.stdout, rated.stderr
    listed = _cli("pool", "list", root, "--rater", "bo")
    assert listed.returncode == 0 and first.id in listed.stdout and "1 of 18 paintings" in listed.stdout
    assert "6 of 18 paintings" in _cli("pool", "list", root, "--tier", "okay").stdout
    assert "1 of 18 paintings" in _cli("pool", "list", root, "--split", "eval").stdout
    assert "0 of 18 paintings" in _cli("pool", "list", root, "--domain", "landscape").stdout
    for args, words in [(("--tier", "meh"), "'meh' is not a tier of this pool"),
                        (("--split", "test"), "'test' is not a split")]:
        bad = _cli("pool", "list", root, *args)
        assert bad.returncode == 2 and words in bad.stderr and "Traceback" not in bad.stderr
    ambiguous = _cli("pool", "rate", root, "", "love", "--rater", "bo")
    assert ambiguous.returncode == 2 and "pool list" in ambiguous.stderr and "Traceback" not in ambiguous.stderr


def test_cli_edges_are_one_line(store, tmp_path):
    import socket

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "metadata.jsonl").write_text('{"file_name": "images/a.png", "tier": "adore"}\n')
    runs = {"import": _cli("pool", "import", store.root, bad),
            "port": _cli("pool", "serve", store.root, "--port", "-5")}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        runs["busy"] = _cli("pool", "serve", store.root, "--port", busy.getsockname()[1])
    words = {"import": "metadata.jsonl:1: unknown tier 'adore'", "port": "--port",
             "busy": "pick another with --port"}
    for name, run in runs.items():
        assert run.returncode == 2, (name, run.stdout, run.stderr)
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, (name, run.stderr)
        assert words[name] in run.stderr and "rating page on" not in run.stdout, (name, run.stderr)
    assert len(store.items()) == 18
