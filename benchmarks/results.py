"""benchmarks/RESULTS.md is shared: each benchmark owns one marked section and replaces only it.
Blocks are (title, headers, rows) tables, printed with rich and written as markdown."""

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


def print_tables(console, blocks) -> None:
    from rich.table import Table

    for title, headers, rows in blocks:
        table = Table(title=title, title_justify="left")
        for h in headers:
            table.add_column(h)
        for row in rows:
            table.add_row(*row)
        console.print(table)


def markdown(blocks, start: str, end: str, header: str) -> str:
    """The section: `start`, the header, one markdown table per block, `end`."""
    lines = [start, header, ""]
    for title, headers, rows in blocks:
        lines += [f"### {title}", "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    lines.append(end)
    return "\n".join(lines)
