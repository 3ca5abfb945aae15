"""A second taste pool, built offline: another generator and another rating rule.

    .venv/bin/python scripts/second_pool.py [--out DIR] [--per-domain 10] [--no-render]

The bundled example pool is hand-written sketches rated by eye, and the taste model's
features were shaped on it. This pool is what the design never saw: paintings by the
procedural painter (`brushwork.painter.paint`), 10 per domain across its five domains, with
layers, bleed, texture and colour jitter spread wide, rated into love / okay / nope by a rule
over the painter's own parameters (never over the image statistics the taste model measures):

    grain + wetness = paper texture, bleed, and (half as much) layers of wash

The rule ranks each domain's paintings and cuts the ranking into thirds, so every domain has
every tier. (A first rule, "wet, layered, little colour jitter, texture near 0.4", was
not learnable even within the pool, nested CV 0.50: colour jitter and a third layer barely
show in a 600-px painting. A rule can only test generalisation if what it rates is visible.)
A rule-rated pool is a PROXY for a person, not a person: it checks that the
procedure can learn a taste it was not designed around, from a generator it was not tuned on;
it says nothing about how well a person's taste is learnt.

The folder holds sources and metadata only (the PNGs are rendered once into brushwork's cache
by `brushwork.pool.load_pool`, like the bundled pool), under `$BRUSHWORK_CACHE/second-pool` by
default; it is deterministic, so it is not committed. Then:

    brushwork taste evaluate --pool ~/.cache/brushwork/second-pool --other-pool <another pool folder>
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

from brushwork.painter import SUBJECTS, paint
from brushwork.paths import cache_root

DOMAINS = ("hibiscus", "flowers", "leaves", "landscape", "abstract")
RATER = ("rule over painter parameters (paper texture, bleed, layers of wash), thirds within each domain: "
         "a proxy, not a person")


def taste_rule(params: dict) -> float:
    """The rater: higher is better. Reads only the painter's parameters."""
    grain = (params["texture"] - 0.05) / 0.9
    wetness = (params["bleed"] - 0.05) / 0.45 + (params["layers"] - 1) / 4
    return grain + wetness


def _overrides(rng: random.Random) -> dict:
    """Parameters spread wider than the painter's own draws, so the rule has something to rate."""
    return {"layers": rng.choice((1, 2, 3)), "bleed": round(rng.uniform(0.05, 0.5), 2),
            "texture": round(rng.uniform(0.05, 0.95), 2), "jitter": round(rng.uniform(0.0, 0.12), 3)}


def rated_by_rule(name: str, draw, rule, rater: str, per_domain: int, seed: int = 0) -> list[dict]:
    """Metadata records (with the sketch under "code") of a pool rated by `rule` over the painter's
    parameters, tiers the thirds within each domain; `draw(n, subject, rng)` paints painting n."""
    records = []
    for domain in DOMAINS:
        rng = random.Random(f"{name}:{seed}:{domain}")
        subjects = SUBJECTS[domain]
        drawn = []
        for n in range(per_domain):
            painting = draw(n, subjects[n % len(subjects)], rng)
            drawn.append((rule(painting.params), n, painting))
        drawn.sort(key=lambda t: (-t[0], t[1]))
        for rank, (score, n, painting) in enumerate(drawn):
            tier = "love" if rank < per_domain / 3 else "okay" if rank < 2 * per_domain / 3 else "nope"
            slug = f"{domain}_{n:02d}"      # not named by tier: a new rule re-rates, the renders stay cached
            records.append({"file_name": f"images/{slug}.png", "source": f"sources/{slug}.js", "tier": tier,
                            "subject": painting.subject, "domain": domain, "generator": "brushwork.painter",
                            "rater": rater, "rule_score": round(score, 3), "params": painting.params,
                            "code": painting.code})
    return records


def paintings(per_domain: int, seed: int = 0) -> list[dict]:
    """Metadata records (with the sketch under "code") of every painting, tiers assigned."""
    return rated_by_rule("second-pool", lambda n, subject, rng: paint(1000 + n, subject, **_overrides(rng)),
                         taste_rule, RATER, per_domain, seed)


def write(out: Path, records: list[dict]) -> Path:
    """The pool folder: sources/ and metadata.jsonl (no images: load_pool renders them)."""
    if out.exists():
        shutil.rmtree(out)
    (out / "sources").mkdir(parents=True)
    lines = []
    for rec in records:
        (out / rec["source"]).write_text(rec["code"], encoding="utf-8")
        lines.append(json.dumps({k: v for k, v in rec.items() if k != "code"}))
    (out / "metadata.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def main(paintings=paintings, name: str = "second-pool", about: str = __doc__) -> None:
    """Write (and render) a rule-rated pool: this one, or another script's `paintings`."""
    parser = argparse.ArgumentParser(description=about.splitlines()[0])
    parser.add_argument("--out", type=Path, default=cache_root() / name, help="pool folder to write")
    parser.add_argument("--per-domain", type=int, default=10, help="paintings per painter domain")
    parser.add_argument("--no-render", action="store_true", help="write the folder only")
    args = parser.parse_args()
    records = paintings(args.per_domain)
    out = write(args.out, records)
    tiers = {t: sum(r["tier"] == t for r in records) for t in ("love", "okay", "nope")}
    print(f"wrote {len(records)} paintings to {out}: {tiers}")
    if not args.no_render:
        from brushwork.pool import load_pool

        pool = load_pool(out, on_rendered=lambda done, total: print(f"\rrendered {done}/{total}", end=""))
        print(f"\nrendered into {pool.root} (snapshot {pool.snapshot})")


if __name__ == "__main__":
    main()
