"""The README's picture: a strip of bundled example-pool paintings, rendered by brushwork from their
sketches and labelled with the tier the example rater gave each.

    .venv/bin/python scripts/readme_strip.py            # -> docs/img/paintings.jpg (~60 KB)

The paintings are chosen to show the range: loved ones from each task domain, then an okay and a
nope. Rerun it when the renderer's output or the pool changes.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from brushwork.pool.folder import example_pool_dir
from brushwork.render import render_sketches

PICKED = ["love_coral_hibiscus_pair", "love_eucalyptus_sprig", "love_dunes_evening_glow",
          "love_cherry_blossom_branch", "okay_peach_hibiscus_flat", "nope_muddy_brown_hibiscus"]
TILE, LABEL, GAP = 220, 26, 6
OUT = Path(__file__).resolve().parent.parent / "docs" / "img" / "paintings.jpg"


def main() -> None:
    pool = example_pool_dir()
    meta = {Path(r["source"]).stem: r for r in map(json.loads, (pool / "metadata.jsonl").read_text().splitlines())}
    codes = [(pool / meta[name]["source"]).read_text() for name in PICKED]
    results = render_sketches(codes, seed=0, workers=2)
    strip = Image.new("RGB", (len(PICKED) * (TILE + GAP) - GAP, TILE + LABEL), "white")
    draw = ImageDraw.Draw(strip)
    font = ImageFont.load_default(size=14)
    for i, (name, result) in enumerate(zip(PICKED, results)):
        if result.png is None:
            raise SystemExit(f"{name} did not render: {result.status} {result.detail}")
        tile = Image.open(io.BytesIO(result.png)).convert("RGB").resize((TILE, TILE), Image.LANCZOS)
        x = i * (TILE + GAP)
        strip.paste(tile, (x, 0))
        record = meta[name]
        draw.text((x + 4, TILE + 5), f"{record['tier']}: {record['subject']}", fill="#333333", font=font)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    strip.save(OUT, quality=80, optimize=True, progressive=True)
    print(f"{OUT} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
