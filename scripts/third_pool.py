"""A third taste pool, built offline: the painter again, rated by a rule over OTHER parameters.

    .venv/bin/python scripts/third_pool.py [--out DIR] [--per-domain 10] [--no-render]

`scripts/second_pool.py`'s rater likes wet, grainy, layered paint (the medium). This rater
ignores the medium and rates what a painting shows and how it sits on the page:

    size of the motif (the painter's `scale`, drawn wide) + a warm palette + a light paper

so a taste model that only learnt "more bleed and grain" from the second pool, or "drawn
detail" from the bundled one, has nothing to lean on here. The paintings are new (other
seeds than the second pool's), tiers are thirds within each domain, and the rule never reads
the image statistics the taste model measures. Like the second pool it is a PROXY for a
person, not a person: it checks that the procedure (and each of its bounds) holds up on a
taste it was not designed around.

The folder holds sources and metadata only (`brushwork.pool.load_pool` renders the PNGs once
into brushwork's cache), under `$BRUSHWORK_CACHE/third-pool` by default. Then:

    brushwork taste evaluate --pool ~/.cache/brushwork/third-pool --other-pool ~/.cache/brushwork/second-pool
"""

from __future__ import annotations

import sys
from pathlib import Path

from brushwork.painter import paint

sys.path.insert(0, str(Path(__file__).resolve().parent))
from second_pool import main as write_pool  # noqa: E402  (the folder layout and command line are the second pool's)
from second_pool import rated_by_rule  # noqa: E402

RATER = ("rule over painter parameters (motif size, warm palette, light paper), thirds within each domain: "
         "a proxy, not a person")
WARM = frozenset({"peach", "apricot", "coral", "red", "orange", "yellow", "magenta", "pink", "gold", "autumn",
                  "rust", "dawn", "dusk", "sand", "rose sand", "autumn alpine", "sunset", "citrus", "earth"})
LIGHT_PAPERS = frozenset({"warm white", "cream", "cool white", "blush"})


def taste_rule(params: dict) -> float:
    """The rater: higher is better. Reads only the painter's parameters (none of the medium's)."""
    size = (params["scale"] - 0.6) / 0.65
    return size + (params["palette"] in WARM) + 0.5 * (params["paper"] in LIGHT_PAPERS)


def paintings(per_domain: int, seed: int = 0) -> list[dict]:
    """Metadata records (with the sketch under "code") of every painting, tiers assigned."""
    return rated_by_rule("third-pool", lambda n, subject, rng: paint(3000 + n, subject,
                                                                      scale=round(rng.uniform(0.6, 1.25), 2)),
                         taste_rule, RATER, per_domain, seed)


if __name__ == "__main__":
    write_pool(paintings, "third-pool", __doc__)
