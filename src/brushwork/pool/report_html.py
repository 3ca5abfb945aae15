"""The pool report as one self-contained HTML page: thumbnails inline, charts as SVG."""

from __future__ import annotations

import html
from importlib import resources
from pathlib import Path
from string import Template

from brushwork.pool.report import Breakdown, PoolReport, _count, _num
from brushwork.pool.store import PoolStore
from brushwork.report.html import SERIES_COLOURS
from brushwork.report.html import table as _table
from brushwork.report.html import thumb as _thumb

TIER_COLOURS = ("#3f7f5a", "#d2a23a", "#b8574a", "#6d6aa8", "#4f8fb0", "#8a6d4f")
def _bars_svg(title: str, rows: list[tuple[str, list[int]]], series: list[str]) -> str:
    """Horizontal stacked bars: one bar per row (tier), one coloured segment per series."""
    label_w, bar_w, row_h, top = 90, 430, 26, 30
    peak = max([sum(v) for _, v in rows] + [1])
    parts = [f'<text x="0" y="18" class="t">{html.escape(title)}</text>']
    for n, (label, values) in enumerate(rows):
        y, x = top + n * (row_h + 8), label_w
        parts.append(f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{html.escape(label)}</text>')
        for s, v in enumerate(values):
            w = bar_w * v / peak
            if v:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h}" '
                             f'fill="{SERIES_COLOURS[s % len(SERIES_COLOURS)]}"><title>{html.escape(label)} · '
                             f'{html.escape(series[s])}: {v}</title></rect>')
                if w >= 22:
                    parts.append(f'<text x="{x + w / 2:.1f}" y="{y + 17}" text-anchor="middle" class="in">{v}</text>')
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 17}" class="tot">{sum(values)}</text>')
    y, x = top + len(rows) * (row_h + 8) + 8, label_w
    for s, name in enumerate(series):
        if x + 14 + 7.2 * len(name) > label_w + bar_w + 40:
            x, y = label_w, y + 20
        parts.append(f'<rect x="{x}" y="{y}" width="12" height="12" rx="2" '
                     f'fill="{SERIES_COLOURS[s % len(SERIES_COLOURS)]}"/><text x="{x + 17}" y="{y + 11}" '
                     f'class="lg">{html.escape(name)}</text>')
        x += 30 + 7.2 * len(name)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 50}" height="{y + 20}" '
            f'class="chart">{"".join(parts)}</svg>')


def _chart(r: PoolReport, title: str, breakdown: tuple[Breakdown, ...]) -> str:
    if not breakdown:
        return ""
    top = list(breakdown[:9])
    series = [b.name or "(unknown)" for b in top] + (["other"] if len(breakdown) > 9 else [])
    rest = breakdown[9:]
    rows = []
    for i, tier in enumerate([*r.tiers, "unrated"]):
        pick = (lambda b, i=i: b.per_tier[i]) if tier != "unrated" else (lambda b: b.unrated)
        rows.append((tier, [pick(b) for b in top] + ([sum(pick(b) for b in rest)] if rest else [])))
    if not r.unrated:
        rows.pop()
    return _bars_svg(title, rows, series)


def _grids(r: PoolReport, store: PoolStore) -> str:
    items = {it.id: it for it in store.items()}
    votes: dict[str, dict[str, str]] = {}
    for rating in store.ratings():
        votes.setdefault(rating.item, {})[rating.rater] = rating.tier
    groups = [(t.tier, t.items, TIER_COLOURS[n % len(TIER_COLOURS)]) for n, t in enumerate(r.tier_summaries)]
    out = []
    for name, ids, colour in groups + [("unrated", r.unrated, "#999")]:
        if not ids:
            continue
        figs = []
        for item_id in ids:
            it, vs = items[item_id], votes.get(item_id, {})
            split = len(set(vs.values())) > 1
            tip = " · ".join(x for x in (it.id, it.generator, it.subject, it.split, ", ".join(
                f"{k}: {v}" for k, v in vs.items())) if x)
            figs.append(f'<img src="{_thumb(store.image_bytes(it))}" title="{html.escape(tip)}" '
                        f'class="{"split" if split else ""}" alt="{html.escape(it.id)}">')
        out.append(f'<h3><span class="dot" style="background:{colour}"></span>{html.escape(name)} '
                   f'<small>{_count(len(ids), "painting")}</small></h3><div class="thumbs">{"".join(figs)}</div>')
    return "\n".join(out)


def _agreement_html(r: PoolReport) -> str:
    a, p = r.agreement, r.preferences
    if not a.units:
        text = "<p>No painting has ratings from two raters yet.</p>"
    else:
        text = _table(("rater A", "rater B", "shared", "Cohen's kappa", "weighted (quadratic)"),
                      [(x.a, x.b, x.shared, _num(x.kappa), _num(x.kappa_quadratic)) for x in a.pairs], "num2") + \
            (f"<p>Krippendorff's alpha over {a.units} paintings rated by two or more of {len(a.raters)} raters: "
             f"<b>ordinal {_num(a.alpha_ordinal)}</b>, nominal {_num(a.alpha_nominal)}.</p>")
    if p.recorded:
        text += (f"<p>Pairwise preferences: {p.recorded} recorded; of {p.compared} between paintings in different "
                 f"tiers, {p.agreeing} pick the better tier (<b>{_num(p.share, '.0%')}</b>); {p.ties} ties.</p>")
    return text


def write_html(report: PoolReport, store: PoolStore, path: Path) -> Path:
    r, path = report, Path(path)
    name, value = r.agreement.headline
    stats = [("paintings", r.n_items), ("rated", r.n_items - len(r.unrated)), ("raters", len(r.raters)),
             (name, _num(value)), ("eval split", next(b.total for b in r.by_split if b.name == "eval"))]
    warnings = "".join(f"<li>{html.escape(w.message)}</li>" for w in r.warnings)
    tiers = _table(("tier", "paintings", "train", "eval", "palette div.", "composition div.", "overall div.",
                    "coverage sd"),
                   [(t.tier, len(t.items), t.train, t.eval, _num(t.diversity.palette), _num(t.diversity.composition),
                     _num(t.diversity.overall), _num(t.diversity.coverage_spread)) for t in r.tier_summaries], "num")
    breakdown = lambda title, rows: f"<div><h3>{title}</h3>" + _table(  # noqa: E731
        (title.split()[0][:-1].lower(), *r.tiers, "unrated", "total"),
        [(b.name or "(unknown)", *b.per_tier, b.unrated, b.total) for b in rows], "num") + "</div>"
    page = Template(resources.files("brushwork.pool").joinpath("report.html").read_text(encoding="utf-8")).substitute(
        title=html.escape(f"Pool report · {Path(r.root).name}"),
        subtitle=html.escape(f"{r.root} · tiers {' > '.join(r.tiers)} · references drawn per judgement: "
                             + ", ".join(f"{k} {t}" for t, k in r.settings.reference_mix)),
        stats="".join(f'<div class="stat"><b>{html.escape(str(v))}</b><span>{html.escape(k)}</span></div>'
                      for k, v in stats),
        warnings=f'<ul class="warn">{warnings}</ul>' if warnings else '<p class="ok">No warnings.</p>',
        tiers=tiers,
        charts=_chart(r, "Paintings per tier, by generator", r.by_generator) + _chart(
            r, "Paintings per tier, by subject", r.by_subject),
        raters=_table(("rater", "rated", *r.tiers), [(s.rater, s.rated, *s.per_tier) for s in r.raters], "num"),
        agreement=_agreement_html(r),
        breakdowns=breakdown("Generators", r.by_generator) + breakdown("Subjects", r.by_subject)
        + breakdown("Splits", r.by_split) + breakdown("Domains (training split)", r.by_domain),
        grids=_grids(r, store))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
