"""Write a self-contained gallery page: each painting with its verdict, violations and code."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template


@dataclass(frozen=True)
class Card:
    name: str
    passed: bool
    infra: bool = False
    image: str | None = None          # path relative to the gallery page
    violations: tuple[tuple[str, str], ...] = ()  # (rule id, message)
    facts: tuple[str, ...] = ()       # short lines: paint fraction, time, scores...
    code: str = ""
    extra: dict = field(default_factory=dict)


def card_html(c: Card) -> str:
    badge = ("pass", "pass") if c.passed else (("infra", "infra failure") if c.infra else ("fail", "rejected"))
    img = f'<img src="{html.escape(c.image)}" alt="{html.escape(c.name)}" loading="lazy">' if c.image \
        else '<div class="noimg">not rendered</div>'
    items = "".join(f"<li><b>{html.escape(i)}</b> {html.escape(m)}</li>" for i, m in c.violations)
    facts = " · ".join(html.escape(f) for f in c.facts)
    code = f"<details><summary>sketch</summary><pre>{html.escape(c.code)}</pre></details>" if c.code else ""
    return (f'<div class="card">{img}<div class="body"><div class="name">{html.escape(c.name)}</div>'
            f'<div class="meta"><span class="badge {badge[0]}">{badge[1]}</span>{facts}</div>'
            f'{"<ul>" + items + "</ul>" if items else ""}{code}</div></div>')


def write_gallery(path: Path, title: str, subtitle: str, cards: list[Card]) -> Path:
    template = Template(resources.files("brushwork.report").joinpath("gallery.html").read_text())
    page = template.substitute(title=html.escape(title), subtitle=html.escape(subtitle),
                               cards="\n".join(card_html(c) for c in cards))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
