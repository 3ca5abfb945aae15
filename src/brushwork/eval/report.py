"""The evaluation's outputs: `eval.json` (every summary and every sample's numbers, readable
back as a comparison column) and one self-contained HTML page that can be mailed — painting
thumbnails and curve PNGs inline as data URIs, the violation chart as SVG, no script.

Model text is hostile data: every reply, prompt and label is escaped (the cards come from
`brushwork.report.gallery`, which escapes them too).
"""

from __future__ import annotations

import base64
import html
import json
import time
from importlib import resources
from pathlib import Path
from string import Template

from brushwork.eval.metrics import EvalRun, Metrics, Sample, Stat
from brushwork.eval.watch import Flag, run_watch
from brushwork.report.gallery import Card, card_html
from brushwork.report.html import SERIES_COLOURS
from brushwork.report.html import table as _table
from brushwork.report.html import thumb as _thumb
from brushwork.score.rollout import gallery_card
from brushwork.score.terms import term_names

VERSION = 1
NOTES = ("Win rate: each passed painting meets its prompt's evaluation references (held-out pool paintings, half "
         "love, half okay) in both orders; win 1, tie 0.5, loss 0, a verdict that flips with the order is a tie. "
         "Diversity: mean pairwise distance (RMS over 32x32 RGB thumbnails, 0..1) of the passed paintings of one "
         "prompt. Judge consistency: share of those comparisons whose two orders agree. Term means skip samples "
         "where the term did not run (n beside each).")


WATCH_THUMBS = 4
WATCH_NOTE = ("Suspicious rollouts, to look at: copies of pool paintings; high-reward paintings (the run's top "
              "quartile) nearly empty or nearly all paint; high-reward prompts whose paintings are near-identical; "
              "the mean total rising over the steps while the held-out win rate does not. A flag is a suspicion, "
              "not a verdict.")


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "–" if x is None else format(x, spec)


def _stat(s: Stat, spec: str = ".3f") -> str:
    return "–" if s.mean is None else f"{format(s.mean, spec)} (n={s.n})"


def metric_rows(m: Metrics) -> list[tuple[str, str]]:
    """(measure, formatted value) rows of one summary, in the report's order."""
    rows = [("samples", str(m.samples)), ("prompts (groups)", str(m.groups)),
            ("gate pass rate", _fmt(m.pass_rate, ".1%")), ("cheat rate", _fmt(m.cheat_rate, ".1%")),
            ("None rate (infra)", _fmt(m.none_rate, ".1%"))]
    terms = ("total", *(t for t in term_names(m.terms) if t != "total"))
    rows += [(f"mean {term}", _stat(m.terms.get(term, Stat(None, 0)))) for term in terms]
    rows += [("win rate vs eval", _stat(m.win_rate))]
    rows += [(f"  vs {tier}", _stat(stat)) for tier, stat in m.win_by_tier.items()]
    rows += [("diversity within prompt", _stat(m.diversity)), ("distinct compositions", _stat(m.compositions, ".2f")),
             ("colour adherence (offline)", _stat(m.adherence)), ("judge consistency", _stat(m.judge_consistency)),
             ("paint fraction", _stat(m.paint_fraction))]
    return rows


def columns(runs: list[EvalRun]) -> list[tuple[str, Metrics]]:
    """(header, summary) for every summary of every run."""
    return [(run.label if len(run.summaries) == 1 else f"{run.label} · {name}", m)
            for run in runs for name, m in run.summaries.items()]


def table_rows(runs: list[EvalRun]) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the side-by-side metrics table."""
    cols = columns(runs)
    per_col = [dict(metric_rows(m)) for _, m in cols]
    names = list(dict.fromkeys(name for rows in per_col for name in rows))
    return ["measure", *(h for h, _ in cols)], [[n, *(c.get(n, "–") for c in per_col)] for n in names]


# ---------------------------------------------------------------- eval.json

def sample_record(s: Sample) -> dict:
    c = s.card
    return {"step": s.step, "group": s.group, "prompt": s.prompt, "subject": s.subject, "seed": s.seed,
            "passed": c.passed, "cheated": c.cheated, "infra": c.infra, "total": c.total,
            "terms": c.terms,
            "violations": list(dict.fromkeys(v.id for v in c.violations)), "paint_fraction": c.paint_fraction,
            "win": s.win, "turn": s.turn, "final": s.final, "episode": s.episode,
            "eval_comparisons": [{"reference": x.reference, "tier": x.tier, "outcome": x.outcome}
                                 for x in s.eval_comparisons], "eval_error": s.eval_error}


def eval_json(primary: EvalRun, others: list[EvalRun], curves: list[str],
              watch: tuple[Flag, ...] | None = None) -> dict:
    """`watch`: the primary run's hacking watch (computed here when not given)."""
    watch = run_watch(primary) if watch is None else watch
    return {"kind": "brushwork-eval", "version": VERSION, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "label": primary.label, "mode": primary.kind, "info": primary.info,
            "summaries": {k: m.to_dict() for k, m in primary.summaries.items()},
            "samples": [sample_record(s) for s in (*primary.first_samples, *primary.samples)],
            "watch": [f.to_dict() for f in watch],
            **({"revisions": primary.revisions.to_dict()} if primary.revisions is not None else {}),
            "compare": [{"label": o.label, "kind": o.kind, "info": o.info,
                         "summaries": {k: m.to_dict() for k, m in o.summaries.items()},
                         **({"revisions": o.revisions.to_dict()} if o.revisions is not None else {})} for o in others],
            "curves": curves}


def run_from_json(path: Path) -> EvalRun:
    """An earlier eval.json as a comparison column (its numbers only: it holds no paintings)."""
    from brushwork.errors import ConfigError

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        summaries = {k: Metrics.from_dict(v) for k, v in data["summaries"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ConfigError(f"{path} is not an eval.json written by `brushwork eval` ({e})") from e
    label = data.get("label") or Path(path).parent.name
    revisions = None
    if isinstance(data.get("revisions"), dict):
        from brushwork.train.episodes import RevisionFigures

        revisions = RevisionFigures.from_dict(data["revisions"])
    return EvalRun(label, "eval.json", {"from": str(path), **{k: str(v) for k, v in data.get("info", {}).items()}},
                   summaries, revisions=revisions)


# ---------------------------------------------------------------- HTML

def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _info_html(run: EvalRun) -> str:
    return (f'<p class="info"><b>{html.escape(run.label)}</b> ({html.escape(run.kind)}): '
            + " · ".join(f"{html.escape(k)} <b>{html.escape(str(v))}</b>" for k, v in run.info.items()) + "</p>")


def _stats_html(m: Metrics) -> str:
    stats = [("gate pass rate", _fmt(m.pass_rate, ".0%")), ("mean total", _fmt(m.terms["total"].mean)),
             ("win rate vs eval", _fmt(m.win_rate.mean)), ("diversity", _fmt(m.diversity.mean)),
             ("colour adherence", _fmt(m.adherence.mean)),
             ("samples", str(m.samples))]
    return '<div class="stats">' + "".join(f'<div class="stat"><b>{html.escape(v)}</b><span>{html.escape(k)}'
                                           f"</span></div>" for k, v in stats) + "</div>"


def violations_svg(runs: list[EvalRun]) -> str:
    """Grouped horizontal bars: per rule, the share of each run's samples that broke it."""
    heads = [(r.label, r.headline) for r in runs if r.summaries]
    rules = list(dict.fromkeys(rule for _, m in heads for rule in m.violations))
    if not rules:
        return "<p>No sample broke a rule.</p>"
    label_w, bar_w, bar_h, top = 170, 380, 14, 8
    parts, y = [], top
    for rule in rules:
        parts.append(f'<text x="{label_w - 8}" y="{y + bar_h * len(heads) / 2 + 4:.0f}" text-anchor="end">'
                     f"{html.escape(rule)}</text>")
        for n, (label, m) in enumerate(heads):
            count = m.violations.get(rule, 0)
            share = count / m.samples if m.samples else 0.0
            colour = SERIES_COLOURS[n % len(SERIES_COLOURS)]
            parts.append(f'<rect x="{label_w}" y="{y}" width="{max(bar_w * share, 1):.1f}" height="{bar_h - 2}" '
                         f'fill="{colour}"><title>{html.escape(label)} · {html.escape(rule)}: {count}</title></rect>'
                         f'<text x="{label_w + bar_w * share + 6:.1f}" y="{y + bar_h - 4}">{count} '
                         f"({share:.0%})</text>")
            y += bar_h
        y += 8
    legend = "".join(f'<rect x="{label_w + 150 * n}" y="{y + 4}" width="12" height="12" '
                     f'fill="{SERIES_COLOURS[n % len(SERIES_COLOURS)]}"/><text x="{label_w + 150 * n + 17}" '
                     f'y="{y + 15}">{html.escape(label[:18])}</text>' for n, (label, _) in enumerate(heads))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 90}" height="{y + 26}" '
            f'class="chart">{"".join(parts)}{legend if len(heads) > 1 else ""}</svg>')


def _curves_html(curves: list[Path]) -> str:
    if not curves:
        return ""
    images = "".join(f'<img src="{_data_url(p.read_bytes())}" alt="{html.escape(p.stem)}">' for p in curves)
    return f'<section class="curves"><h2>Curves</h2>{images}</section>'


def sample_card(s: Sample, name: str) -> Card:
    return gallery_card(s.rollout, name, _thumb(s.png, 256) if s.png else None, compared=(f"vs eval {_fmt(s.win)}",),
                        context=(f"{s.pairing} pairing",))


def _groups(samples: list[Sample]) -> dict[str, list[Sample]]:
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.key, []).append(s)
    return groups


def _prompt_html(s: Sample) -> str:
    where = (f"step {s.step} · " if s.step else "") + ("held-out pairing · " if s.pairing == "held-out" else "")
    return (f"<h3>{html.escape(s.subject or 'prompt')}</h3><p class=\"prompt\">{html.escape(where)}"
            f"{html.escape(s.prompt)}</p>")


def gallery_html(run: EvalRun, limit: int) -> str:
    """The run's last-step paintings grouped by prompt, best first."""
    groups = list(_groups(run.final_samples).values())
    if not groups:
        return "<p>No paintings.</p>"
    out = []
    for members in groups[:limit]:
        ranked = sorted(members, key=_rank, reverse=True)
        cards = "".join(card_html(sample_card(s, f"{run.label} · #{n + 1}")) for n, s in enumerate(ranked))
        out.append(f'{_prompt_html(members[0])}<div class="grid">{cards}</div>')
    if len(groups) > limit:
        out.append(f"<p>{len(groups) - limit} more prompts not shown (see eval.json).</p>")
    return "\n".join(out)


def _rank(s: Sample) -> tuple:
    return (s.card.passed, s.card.total if s.card.total is not None else -1.0, s.win if s.win is not None else -1.0)


def compare_html(runs: list[EvalRun], limit: int) -> str:
    """For each prompt of the first run, the best painting of every run side by side."""
    runs = [r for r in runs if r.samples]
    if len(runs) < 2:
        return ""
    by_prompt = [{} for _ in runs]
    for index, run in enumerate(runs):
        for s in run.final_samples:
            best = by_prompt[index].get(s.prompt)
            if best is None or _rank(s) > _rank(best):
                by_prompt[index][s.prompt] = s
    rows = []
    for prompt, first in list(by_prompt[0].items())[:limit]:
        cells = []
        for run, best in zip(runs, by_prompt):
            s = best.get(prompt)
            cells.append(card_html(sample_card(s, f"{run.label} (best)")) if s is not None else
                         f'<div class="card"><div class="noimg">{html.escape(run.label)}: no painting for this '
                         f"prompt</div></div>")
        rows.append(f'{_prompt_html(first)}<div class="side" style="--cols:{len(runs)}">{"".join(cells)}</div>')
    return "<section><h2>Side by side</h2>" + "\n".join(rows) + "</section>"


def _flag_html(flag: Flag, label: str) -> str:
    thumbs = "".join(
        (f'<img class="thumb" src="{_thumb(s.png, 128)}" alt="{html.escape(s.subject or "painting")}">'
         if s.png else '<span class="nothumb">not rendered</span>') for s in flag.samples[:WATCH_THUMBS])
    more = f"<small>+{len(flag.samples) - WATCH_THUMBS} more</small>" if len(flag.samples) > WATCH_THUMBS else ""
    where = ""
    if flag.samples:
        s = flag.samples[0]
        where = f'<p class="prompt">{f"step {s.step} · " if s.step else ""}{html.escape(s.prompt)}</p>'
    return (f'<div class="flag"><div class="flagthumbs">{thumbs}{more}</div><div><b>{html.escape(flag.kind)}</b> '
            f"<small>{html.escape(label)}</small><p>{html.escape(flag.reason)}</p>{where}</div></div>")


def watch_html(watches: dict[str, tuple[Flag, ...]], limit: int) -> str:
    """The hacking watch of every run that has samples: each flag with its reason and thumbnails."""
    if not watches:
        return ""
    flags = [(label, f) for label, fs in watches.items() for f in fs]
    if not flags:
        body = "<p>Nothing suspicious was found: no copies, no high-reward painting nearly empty or nearly all " \
               "paint, no high-reward prompt collapsed to one painting, no reward rising without the held-out " \
               "win rate.</p>"
    else:
        body = "".join(_flag_html(f, label) for label, f in flags[:limit])
        if len(flags) > limit:
            body += f"<p>{len(flags) - limit} more flags not shown (see eval.json).</p>"
    return f'<section class="watch"><h2>Hacking watch</h2><p class="info">{html.escape(WATCH_NOTE)}</p>{body}</section>'


def revision_rows(figures) -> list[tuple[str, str]]:
    """(measure, value) rows of a multi-turn run's `RevisionFigures`."""
    rows = [("episodes", str(figures.episodes))]
    for turn, (reward, passed) in enumerate(zip(figures.reward_by_turn, figures.pass_by_turn)):
        name = "first painting" if turn == 0 else f"after {turn} revision{'s' if turn > 1 else ''}"
        rows.append((f"{name}: mean total / gate pass rate", f"{_fmt(reward)} / {_fmt(passed, '.1%')}"))
    interval = figures.gain_interval
    rows.append(("revision gain (final - first)", f"{_fmt(figures.gain, '+.3f')}" +
                 (f" [{interval[0]:+.3f}, {interval[1]:+.3f}] 95 % bootstrap" if interval else "") +
                 f" (n={figures.gain_n})"))
    rows.append(("fix rate (first failed the gate, final passed)", f"{_fmt(figures.fix_rate, '.1%')} "
                 f"(n={figures.fix_n})"))
    rows.append(("revisions that lowered the total", f"{_fmt(figures.worse_rate, '.1%')} (n={figures.revisions})"))
    rows.append(("episodes with a revision", _fmt(figures.revised_share, ".1%")))
    return rows


def revisions_html(run: EvalRun, limit: int) -> str:
    """A multi-turn run: its revision figures, then each episode's first and final painting side by side."""
    if run.revisions is None:
        return ""
    table = _table(["measure", "value"], [list(r) for r in revision_rows(run.revisions)], "num")
    firsts = {(s.step, s.episode): s for s in run.first_samples}
    pairs = [(firsts[(s.step, s.episode)], s) for s in run.samples if (s.step, s.episode) in firsts]
    pairs.sort(key=lambda p: (p[1].card.total or 0.0) - (p[0].card.total or 0.0), reverse=True)
    rows = []
    for first, final in pairs[:limit]:
        cells = card_html(sample_card(first, "first painting")) + (
            card_html(sample_card(final, f"final (after {final.turn} revision{'s' if final.turn != 1 else ''})"))
            if final.turn else '<div class="card"><div class="noimg">kept the first painting</div></div>')
        rows.append(f'{_prompt_html(final)}<div class="side" style="--cols:2">{cells}</div>')
    more = f"<p>{len(pairs) - limit} more episodes not shown (see eval.json).</p>" if len(pairs) > limit else ""
    return (f"<section><h2>Revisions</h2>{table}<h3>First and final paintings, largest gain first</h3>"
            + "\n".join(rows) + more + "</section>")


def write_report(path: Path, primary: EvalRun, others: list[EvalRun], curves: list[Path],
                 gallery_prompts: int = 24, watches: dict[str, tuple[Flag, ...]] | None = None) -> Path:
    """The HTML page (see the module docstring). `watches`: run label -> its hacking watch
    (computed here for every run with samples when not given)."""
    runs = [primary, *others]
    if watches is None:
        watches = {r.label: run_watch(r) for r in runs if r.samples}
    headers, rows = table_rows(runs)
    page = Template(resources.files("brushwork.eval").joinpath("report.html").read_text(encoding="utf-8"))
    text = page.substitute(
        title=html.escape(f"Evaluation · {primary.label}"),
        subtitle=html.escape(f"{primary.kind} · " + (" vs ".join(r.label for r in others) or "no comparison")),
        info="".join(_info_html(r) for r in runs), stats=_stats_html(primary.headline),
        metrics=_table(headers, rows, "num"), notes=html.escape(NOTES), violations=violations_svg(runs),
        curves=_curves_html(curves), watch=watch_html(watches, gallery_prompts),
        revisions=revisions_html(primary, gallery_prompts),
        compare=compare_html(runs, gallery_prompts),
        gallery=gallery_html(primary, gallery_prompts))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
