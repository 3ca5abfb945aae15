"""The critique a multi-turn episode shows the model between revisions.

It says what the gate and the page observed (violations, the gate's notes on code that never
runs, how much of the canvas is painted, JavaScript errors, which brush methods ran), whether
the painting copies a pool painting (once it has been scored: a copy wins no judge term), and
never the score, the judge's verdicts or the references: those would teach the answer key
instead of painting.
"""

from __future__ import annotations

from brushwork.gate import Gated
from brushwork.score.copies import Copy

_MAX_ITEMS = 8   # violations / errors listed; the rest are counted
_BARE, _OVERWORKED = 0.10, 0.85   # paint fractions the critique remarks on (washed out, overworked)


def critique(gated: Gated, revision: int, revisions_left: int, copy: Copy | None = None) -> str:
    """Plain text for the model: what happened to painting number `revision` (0-based); `copy`
    is its ScoreCard's `copy_of` where it has been scored."""
    lines = [f"Painting {revision + 1}: {_verdict(gated)}"]
    lines += _violations(gated)
    lines += _notes(gated)
    lines += _page(gated)
    if copy is not None:
        lines.append(f"It copies pool painting {copy.describe()}: a copy wins nothing from the judge. "
                     "Paint your own picture.")
    lines.append(_next_step(gated, revisions_left))
    return "\n".join(lines)


def _verdict(gated: Gated) -> str:
    report = gated.report
    if report.infra_failure:
        return ("the renderer failed on our side (not the sketch's fault); this painting gets no score. "
                "A sketch that runs too long, for example an endless loop, is stopped and scores 0.")
    if not report.sketch_found:
        return "no p5.js sketch was found in the reply. Answer with one complete sketch in a ```js block."
    if report.passed:
        return "it rendered and passed every check."
    kinds = {v.severity for v in report.violations}
    if "cheat" in kinds:
        return "it breaks the rules (see below); such a painting scores 0."
    return "it does not work yet (see below)."


def _violations(gated: Gated) -> list[str]:
    found = [v for v in gated.report.violations if v.id != "no_sketch"]
    if not found:
        return []
    lines = ["Problems:"]
    for v in found[:_MAX_ITEMS]:
        where = f" (line {v.line})" if v.line else ""
        lines.append(f"- {v.id}{where}: {v.message}")
    if len(found) > _MAX_ITEMS:
        lines.append(f"- ... and {len(found) - _MAX_ITEMS} more")
    return lines


def _notes(gated: Gated) -> list[str]:
    """Warnings that cost nothing now: code that would break a rule if it ever ran."""
    notes = gated.report.notes
    if not notes:
        return []
    lines = ["Notes (no penalty: this code never runs in a render):"]
    lines += [f"- {n.id}" + (f" (line {n.line})" if n.line else "") + f": {n.message}" for n in notes[:_MAX_ITEMS]]
    if len(notes) > _MAX_ITEMS:
        lines.append(f"- ... and {len(notes) - _MAX_ITEMS} more")
    return lines


def _page(gated: Gated) -> list[str]:
    render = gated.render
    if render is None or not render.ok:
        return []
    lines = []
    if render.paint_fraction is not None:
        lines.append(f"Coverage: {100 * render.paint_fraction:.1f}% of the canvas differs from the paper colour.")
        if gated.report.passed and render.paint_fraction < _BARE:
            lines.append("Most of the canvas is bare paper: paint larger or more opaque shapes.")
        elif gated.report.passed and render.paint_fraction > _OVERWORKED:
            lines.append("Almost all of the canvas is painted over: leave some paper showing.")
    if render.js_errors and not any(v.id == "js_error" for v in gated.report.violations):
        lines.append("JavaScript errors:")
        for e in render.js_errors[:_MAX_ITEMS]:
            lines.append(f"- {e.message}" + (f" (line {e.line})" if e.line else ""))
    if render.brush_calls:
        calls = ", ".join(f"{name} x{count}" for name, count in sorted(render.brush_calls.items()))
        lines.append(f"Brush calls: {calls}; {render.paint_calls} painted shapes.")
    return lines


def _next_step(gated: Gated, revisions_left: int) -> str:
    if revisions_left <= 0:
        return "This was your last painting."
    turns = "1 revision" if revisions_left == 1 else f"{revisions_left} revisions"
    if gated.render is not None and gated.render.png is not None:
        ask = "Look at the image and revise the painting"
    else:
        ask = "Fix the sketch"
    return (f"{ask}: answer with the complete new sketch. You have {turns} left; "
            "say you are done to keep this painting as your final one.")
