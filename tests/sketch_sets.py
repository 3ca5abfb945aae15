"""Named sketches for render-equivalence tests: the recipe's hibiscus sketches (benchmarks/sketches),
the example pool's sources, and the procedural painter's seeds."""

from __future__ import annotations

from pathlib import Path

from brushwork.painter import paint
from brushwork.pool import example_pool_dir

ROOT = Path(__file__).resolve().parent.parent


def sketch_set(pool: int, painter: int) -> list[tuple[str, str]]:
    """(name, code): every recipe sketch, the first `pool` pool sources, `painter` painter seeds."""
    recipe = sorted((ROOT / "benchmarks" / "sketches").glob("recipe_*.js"))
    sources = sorted((example_pool_dir() / "sources").glob("*.js"))[:pool]
    sketches = [(p.stem, p.read_text()) for p in [*recipe, *sources]]
    return sketches + [(f"painter_{seed}", paint(seed).code) for seed in range(painter)]
