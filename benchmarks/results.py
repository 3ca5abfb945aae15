"""benchmarks/RESULTS.md is shared: each benchmark owns one marked section and replaces only it."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def replace_section(start: str, end: str, block: str, path: Path = RESULTS) -> None:
    """Write `block` (which begins with `start` and ends with `end`) in place of the old section."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)
