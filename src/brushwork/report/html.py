"""Pieces of brushwork's self-contained HTML pages (the pool report, the evaluation report,
galleries): a series palette, an escaped table, an inline JPEG thumbnail."""

from __future__ import annotations

import base64
import html

from brushwork.core.images import thumbnail_jpeg

SERIES_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                  "#9c755f", "#bab0ac")


def thumb(png: bytes, size: int = 96) -> str:
    """A painting as an inline JPEG data URI, on white, at most `size` pixels a side."""
    return "data:image/jpeg;base64," + base64.b64encode(thumbnail_jpeg(png, size, quality=82)).decode("ascii")


def table(headers, rows, cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
