"""A simulated blind A/B test: two film folders (written without training), prepared by
`brushwork.eval.ab.prepare`, judged by a scripted rater through the real rating page (uvicorn on
127.0.0.1, the page's own GET /api/next?mode=pair and POST /api/prefer) who prefers run B with
probability 0.7, then `ab.report`: prints B's win rate and its bootstrap interval and checks
that the interval holds 0.7. Then the interval's coverage over many simulated raters (the
arithmetic alone, no page): a 95 % interval should hold the true rate about 95 % of the time.

Writes its section of benchmarks/RESULTS.md (--no-write: print only).

    .venv/bin/python benchmarks/ab.py [--pairs 60] [--p 0.7] [--seed 0]
"""

from __future__ import annotations

import argparse
import io
import random
import socket
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw


def painting(seed: int, size: int = 64) -> bytes:
    rng = random.Random(seed)
    image = Image.new("RGB", (size, size), (247, 243, 233))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y, r = rng.randrange(size), rng.randrange(size), rng.randrange(4, 14)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def write_film(folder: Path, prompts: list[str], per_prompt: int, reward: float, offset: int) -> Path:
    from brushwork.score.card import ScoreCard
    from brushwork.score.rollout import Rollout
    from brushwork.train.film import Film

    film = Film(folder / "film")
    rng = random.Random(offset)
    for k, prompt in enumerate(prompts):
        for j in range(per_prompt):
            total, judge = reward + rng.gauss(0, 0.1), reward + rng.gauss(0, 0.2)
            card = ScoreCard(passed=True, total=total, terms={"gate": 1.0, "judge": judge}, weights={},
                             preset="judge-led")
            film.record(Rollout(prompt, card, png=painting(offset + k * per_prompt + j), subject="", seed=k,
                                group=k, step=1), k * per_prompt + j)
    return folder


def serve(app):
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{port}"


def rate(folder: Path, b_items: set[str], p: float, seed: int) -> int:
    """The scripted rater: through the page, prefers B's painting with probability p."""
    import httpx

    from brushwork.pool.store import PoolStore
    from brushwork.pool.web import create_app

    rng = random.Random(seed)
    server, thread, url = serve(create_app(PoolStore(folder), blind=True))
    judged = 0
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            while (pair := client.get("/api/next", params={"rater": "sim", "mode": "pair"}).json()["pair"]):
                left, right = pair
                b_side = "a" if left["id"] in b_items else "b"
                winner = b_side if rng.random() < p else {"a": "b", "b": "a"}[b_side]
                client.post("/api/prefer", json={"a": left["id"], "b": right["id"], "rater": "sim",
                                                 "winner": winner}).raise_for_status()
                judged += 1
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return judged


def coverage(p: float, pairs: int, trials: int, seed: int) -> float:
    from brushwork.core.stats import bootstrap_interval

    rng = np.random.default_rng(seed)
    hits = 0
    for t in range(trials):
        lo, hi = bootstrap_interval((rng.random(pairs) < p).astype(float), resamples=2000, seed=t)
        hits += lo <= p <= hi
    return hits / trials


def main() -> None:
    import json

    from brushwork.eval import ab

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--p", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    prompts = [f"Paint study {k} in loose watercolour" for k in range(args.pairs // 3)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a = write_film(root / "run-a", prompts, 3, reward=0.45, offset=0)
        b = write_film(root / "run-b", prompts, 3, reward=0.55, offset=100_000)
        started = time.perf_counter()
        key = ab.prepare(a, b, root / "ab", seed=args.seed)
        prepared = time.perf_counter() - started
        b_items = {s["item"] for p in key["pairs"] for s in (p["left"], p["right"]) if s["run"] == "B"}
        b_left = sum(p["left"]["run"] == "B" for p in key["pairs"])
        started = time.perf_counter()
        judged = rate(root / "ab", b_items, args.p, args.seed)
        rated = time.perf_counter() - started
        r = ab.report(root / "ab")
    print(f"prepared {len(key['pairs'])} pairs in {prepared:.2f} s (B on the left in {b_left}); "
          f"rated {judged} through the page in {rated:.2f} s")
    print(json.dumps(r.to_dict(), indent=1))
    lo, hi = r.win_interval
    ok = lo <= args.p <= hi
    print(f"B's human win rate {r.win_rate:.3f}, 95 % interval [{lo:.3f}, {hi:.3f}]: "
          f"{'holds' if ok else 'MISSES'} the true {args.p}")
    cover = coverage(args.p, len(key["pairs"]), args.trials, args.seed)
    print(f"coverage of the true rate over {args.trials} simulated raters of {len(key['pairs'])} pairs: {cover:.3f} "
          "(nominal 0.95)")
    if not args.no_write:
        write_results(args, len(key["pairs"]), judged, r, cover, b_left, rated)
    if not ok:
        raise SystemExit(1)


def write_results(args, pairs: int, judged: int, r, cover: float, b_left: int, rated_s: float) -> None:
    import datetime

    from results import replace_section

    start, end = "<!-- ab-benchmark:start -->", "<!-- ab-benchmark:end -->"
    lo, hi = r.win_interval
    holds = f"holds the true {args.p}: {'yes' if lo <= args.p <= hi else 'NO'}"
    replace_section(start, end, f"""{start}
## Blind A/B, simulated (benchmarks/ab.py)

Run {datetime.date.today()}: two film folders written without training (run B's rewards 0.10
higher), prepared by `eval --ab` ({pairs} pairs, B on the left in {b_left}), rated through the
real rating page (uvicorn on 127.0.0.1, the page's own API calls) by a scripted rater who
prefers B with probability {args.p}; {judged} pairs judged in {rated_s:.1f} s.

| measure | result | check |
| --- | --- | --- |
| B's human win rate, 95 % bootstrap interval | {r.win_rate:.3f} [{lo:.3f}, {hi:.3f}] | {holds} |
| interval coverage, {args.trials} simulated raters of {pairs} pairs (arithmetic only) | {cover:.3f} | nominal 0.95 |
{end}""")


if __name__ == "__main__":
    main()
