"""Rating page benchmark: how fast `brushwork pool serve` answers with 1,000 paintings.

Builds a pool store of 1,000 varied PNGs (Pillow) in a temporary folder, serves it with
`brushwork.pool.web.serve` in its own process on 127.0.0.1, and times with httpx:

- 200 rating actions by one rater: GET /api/next (the next unrated painting, with its source)
  then POST /api/rate (committed with synchronous=FULL before it answers);
- the painting's image, first fetch (200) and browser revalidation (304);
- 50 undo actions (POST /api/undo with the last rating's receipt: delete it, return that painting);
- 50 pairwise actions (GET /api/next?mode=pair, then POST /api/prefer);
- 4 raters rating at once, 50 actions each (the same round trip, under write contention).

Reports p50/p95/p99 in ms (target < 100 ms each) and writes its section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/pool.py             # full run, ~1 min
    .venv/bin/python benchmarks/pool.py --no-write  # print only
"""

from __future__ import annotations

import argparse
import datetime
import io
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from PIL import Image, ImageDraw, ImageFilter
from results import replace_section

HERE = Path(__file__).resolve().parent
START, END = "<!-- pool-benchmark:start -->", "<!-- pool-benchmark:end -->"
TARGET_MS = 100


def painting(seed: int, size: int = 320) -> bytes:
    rng = random.Random(seed)
    paper = tuple(rng.randint(232, 250) for _ in range(3))
    image = Image.new("RGB", (size, size), paper)
    draw = ImageDraw.Draw(image)
    for _ in range(rng.randint(4, 14)):
        x, y, r = (rng.uniform(0, size) for _ in range(3))
        colour = tuple(rng.randint(30, 240) for _ in range(3))
        draw.ellipse((x - r / 2, y - r / 3, x + r / 2, y + r / 3), fill=colour)
    buffer = io.BytesIO()
    image.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 4))).save(buffer, "PNG")
    return buffer.getvalue()


def build_store(root: Path, n: int, source: str):
    from brushwork.pool.store import PoolStore

    store = PoolStore.init(root)
    for k in range(n):
        store.add_item(painting(k), source=f"// painting {k}\n{source}", subject=f"study {k}",
                       prompt="a hibiscus", generator=("hand", "model-a", "model-b")[k % 3],
                       provenance={"critique_round": k % 3})
    return store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(root: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    code = f"from brushwork.pool.web import serve; serve({str(root)!r}, port={port})"
    proc = subprocess.Popen([sys.executable, "-c", code])
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/api/config", timeout=1).raise_for_status()
            return proc, base
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the pool server did not start") from None
            time.sleep(0.05)


def timed(samples: list[float], call, *args, **kwargs) -> httpx.Response:
    t0 = time.perf_counter()
    result = call(*args, **kwargs)
    samples.append(1000 * (time.perf_counter() - t0))
    if result.status_code not in (200, 304):
        result.raise_for_status()
    return result


def rate_actions(base: str, rater: str, n: int, tiers: list[str], out: dict[str, list[float]], images: bool,
                 receipts: list[str] | None = None):
    """n rounds of next + rate for `rater`; fills out['next'], out['rate'], out['action'] (and image timings),
    and `receipts` with what each rating answered (what undo takes)."""
    with httpx.Client(base_url=base, timeout=30) as c:
        after = None
        for k in range(n):
            t0 = time.perf_counter()
            params = {"rater": rater, **({"after": after} if after else {})}
            item = timed(out["next"], c.get, "/api/next", params=params).json()["item"]
            rated = timed(out["rate"], c.post, "/api/rate", json={"item": item["id"], "rater": rater,
                                                                  "tier": tiers[k % len(tiers)]})
            if receipts is not None:
                receipts.append(rated.json()["receipt"])
            out["action"].append(1000 * (time.perf_counter() - t0))
            after = item["id"]
            if images:
                etag = timed(out["image"], c.get, item["image"]).headers["etag"]
                timed(out["image 304"], c.get, item["image"], headers={"If-None-Match": etag})


def pair_actions(base: str, rater: str, n: int, out: list[float]):
    """n rounds of GET /api/next?mode=pair + POST /api/prefer."""
    with httpx.Client(base_url=base, timeout=30) as c:
        for k in range(n):
            t0 = time.perf_counter()
            a, b = c.get("/api/next", params={"rater": rater, "mode": "pair"}).raise_for_status().json()["pair"]
            c.post("/api/prefer", json={"a": a["id"], "b": b["id"], "rater": rater,
                                        "winner": "ab"[k % 2]}).raise_for_status()
            out.append(1000 * (time.perf_counter() - t0))


def percentiles(samples: list[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"n": len(samples), "p50": statistics.median(samples), "p95": q[94], "p99": q[98], "max": max(samples)}


def run(items: int, actions: int, undos: int) -> dict:
    source = (Path(__file__).resolve().parents[1] / "src/brushwork/examples/pool/sources"
              / "love_coral_hibiscus_pair.js").read_text()
    with tempfile.TemporaryDirectory(prefix="brushwork-pool-bench-") as tmp:
        t0 = time.perf_counter()
        store = build_store(Path(tmp) / "pool", items, source)
        build_s = time.perf_counter() - t0
        tiers = list(store.tiers)
        proc, base = start_server(store.root)
        try:
            rate_actions(base, "warmup", 5, tiers, {"next": [], "rate": [], "action": []}, images=False)
            one = {k: [] for k in ("next", "rate", "action", "image", "image 304")}
            receipts: list[str] = []
            rate_actions(base, "ana", actions, tiers, one, images=True, receipts=receipts)
            undo: list[float] = []
            with httpx.Client(base_url=base, timeout=30) as c:
                for _ in range(undos):
                    assert timed(undo, c.post, "/api/undo", json={"receipt": receipts.pop()}).json()["undone"]
            pairs: list[float] = []
            pair_actions(base, "ana", actions // 4, pairs)
            many = {"next": [], "rate": [], "action": []}
            threads = [threading.Thread(target=rate_actions, args=(base, f"rater{k}", 50, tiers, many, False))
                       for k in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            landed = len(store.ratings())
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    expected = 5 + actions - undos + 4 * 50
    names = {"next": "GET /api/next", "rate": "POST /api/rate", "action": "next + rate",
             "image": "GET /img (200)", "image 304": "GET /img (304)"}
    rows = {f"{names[k]} (1 rater)": percentiles(v) for k, v in one.items()}
    rows["POST /api/undo (1 rater)"] = percentiles(undo)
    rows["pair + prefer (1 rater)"] = percentiles(pairs)
    rows["next + rate (4 raters at once)"] = percentiles(many["action"])
    return {"items": items, "build_s": build_s, "rows": rows, "landed": landed, "expected": expected}


def write_results(r: dict) -> None:
    lines = "\n".join(f"| {name} | {s['n']} | {s['p50']:.1f} | {s['p95']:.1f} | {s['p99']:.1f} | {s['max']:.1f} |"
                      for name, s in r["rows"].items())
    section = f"""{START}
## Rating page (benchmarks/pool.py)

Run {datetime.date.today()} on {os.cpu_count()} cores; a pool store of {r['items']} paintings (built in
{r['build_s']:.1f} s), `brushwork pool serve` in its own process on 127.0.0.1, httpx with keep-alive.
A rating action is GET /api/next (next unrated painting + its source) then POST /api/rate
(committed, synchronous=FULL, before the 200). Target: < {TARGET_MS} ms at p99.

| request | n | p50 ms | p95 ms | p99 ms | max ms |
| --- | --- | --- | --- | --- | --- |
{lines}

Ratings in the store afterwards: {r['landed']} of {r['expected']} expected.
{END}"""
    replace_section(START, END, section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--undos", type=int, default=50)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    r = run(args.items, args.actions, args.undos)
    print(f"{r['items']} items, store built in {r['build_s']:.1f} s; ratings landed {r['landed']}/{r['expected']}")
    print(f"{'request':36} {'n':>4} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7}   (ms)")
    for name, s in r["rows"].items():
        flag = "" if s["p99"] < TARGET_MS else "   over target"
        print(f"{name:36} {s['n']:>4} {s['p50']:7.1f} {s['p95']:7.1f} {s['p99']:7.1f} {s['max']:7.1f}{flag}")
    if not args.no_write:
        write_results(r)
        print("wrote benchmarks/RESULTS.md")


if __name__ == "__main__":
    main()
