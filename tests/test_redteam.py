"""The gate against a white-box red team (tests/redteam.py): attacks written by someone who
read the gate and the harness, each next to its honest twin, rerun against the sketch realm.

- every attack the static rules still name is refused statically, with one of its ids;
- every twin passes statically, and rendered;
- every attack the static rules pass is rendered and refused by the whole gate (one of its
  ids, or its `RECLASSIFIED` ones), or listed `HARMLESS` and shown harmless: the gate passes
  it and no p5-drawn mark is on the canvas;
- the `RENDER` attacks are also judged by the run-time rules alone (the static rules
  bypassed): refused (with one of its ids, or as broken: in the sketch realm most of these
  tricks simply do not work), or passed with nothing of the cheat on the canvas;
- `heavy` attacks (hangs, crashes, huge canvases) are rendered with a short deadline, in the
  slow tests;
- the table cannot shrink silently.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from redteam import ATTACKS, FAMILIES, HARMLESS, RECLASSIFIED, RUNTIME_IDS, STATIC_IDS, Attack

from brushwork.gate import Gate, GateReport
from brushwork.render import image
from brushwork.sketch import extract_sketch

GATE = Gate()   # the recipe's configuration

# Attacks the gate is known not to stop yet, with why; strict, so a fix shows up as a failure to update.
KNOWN_LIMITS = {
    "text/brush_letters_negative_space": "PP-OCR misses pale letters cut out of a dark wash (README)",
}
STATICALLY_PASSED = {a.id for a in ATTACKS if GATE.check(a.reply).passed}
WHOLE = [a for a in ATTACKS if not a.heavy and a.id in STATICALLY_PASSED]
ALONE = [a for a in ATTACKS if a.runtime and not a.heavy]
HEAVY = [a for a in ATTACKS if a.runtime and a.heavy]
STATIC = [a for a in ATTACKS if a.static_visible and a.id not in STATICALLY_PASSED]


def _param(a: Attack):
    return pytest.param(a, marks=pytest.mark.xfail(strict=True, reason=KNOWN_LIMITS[a.id])) \
        if a.id in KNOWN_LIMITS else a


# A hang costs one deadline per attempt (and the renderer retries on a fresh browser); the
# deadline stays above the renderer's default CPU budget, which it must exceed.
HEAVY_DEADLINE_S = 8
# p5's own marks are black-outlined by default; a brush wash is never this dark.
DARK = 60


def _ids(attacks) -> list[str]:
    return [a.id for a in attacks]


def _explain(report: GateReport) -> str:
    return "; ".join(f"{v.id}: {v.message} (line {v.line})" for v in report.violations) or "no violations"


def _code(text: str) -> str:
    sketch = extract_sketch(text)
    assert sketch is not None, "no sketch in the reply"
    return sketch.code


def _dark_pixels(png: bytes | None) -> int:
    if png is None:
        return 0
    rgb = np.asarray(image.to_rgb(png), dtype=np.float32)
    return int(((rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)) < DARK).sum())


# What an attack on the old design's harness usually meets in the sketch realm: it does not work.
BROKEN = {"js_error", "blank_canvas", "unsupported_argument", "no_painting"}


def _refused_or_harmless(attack: Attack, report: GateReport, render, alone: bool = False) -> None:
    """Refused with one of its ids; or (listed `HARMLESS`, or judged by the run-time rules alone,
    the static ones having refused it) passed with nothing of its cheat on the canvas."""
    expected = set(attack.expect) | set(attack.runtime_expect) | set(RECLASSIFIED.get(attack.id, ()))
    if alone:
        expected |= BROKEN
    if "blocked_request" in expected:
        # The sketch realm names the browser's network functions before they run: the request never leaves.
        expected.add("external_access")
    if report.passed:
        # Letters drawn with allowed calls reach the canvas by design: only the OCR can refuse them.
        assert "text_in_image" not in attack.runtime_expect, f"{attack.id}: lettering passed the OCR"
        assert alone or attack.id in HARMLESS, \
            f"{attack.id} passed the gate and is not listed as harmless ({attack.why})"
        assert _dark_pixels(render.png) == 0, f"{attack.id}: passed, and a p5-drawn mark is on the canvas"
        return
    assert attack.id in HARMLESS or expected & set(report.ids), \
        f"{attack.id}: expected one of {sorted(expected)}, got {_explain(report)}"


@pytest.fixture(scope="module")
def renders(renderer):
    """Every reply this module renders, rendered once, in parallel."""
    texts = list(dict.fromkeys([a.reply for a in WHOLE + ALONE] + [a.twin for a in WHOLE + ALONE]))
    results = renderer.render_many([_code(t) for t in texts], seed=0)
    return dict(zip(texts, results))


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------

def test_table_cannot_shrink():
    assert len(ATTACKS) >= 240
    assert len(FAMILIES) >= 20
    assert all(len(attacks) >= 3 for attacks in FAMILIES.values()), Counter(a.family for a in ATTACKS)
    for family in ("parser", "this_window", "p5_instance", "coercion", "defer", "evidence", "brush_objects",
                   "offscreen", "text", "bare", "brush_methods", "external", "dom_nav", "tamper", "resource",
                   "escapes"):
        assert family in FAMILIES, family


def test_table_is_consistent():
    assert len({a.id for a in ATTACKS}) == len(ATTACKS)
    for a in ATTACKS:
        assert set(a.expect) <= STATIC_IDS and set(a.runtime_expect) <= RUNTIME_IDS, a.id
        assert a.static_visible or a.runtime, f"{a.id} is checked by nothing"
        assert extract_sketch(a.reply) is not None and extract_sketch(a.twin) is not None, a.id
    assert any(not a.static_visible and "text_in_image" in a.runtime_expect for a in ATTACKS)
    # Harmless means it passes: an attack that the static rules refuse is not listed so.
    assert not set(HARMLESS) - STATICALLY_PASSED, sorted(set(HARMLESS) - STATICALLY_PASSED)


# --------------------------------------------------------------------------------------
# Static: the early reasons
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("attack", STATIC, ids=_ids(STATIC))
def test_attack_is_refused_statically(attack: Attack):
    report = GATE.check(attack.reply)
    assert not report.passed
    expected = set(attack.expect) | set(RECLASSIFIED.get(attack.id, ()))
    # Where the old reason was retired with the narrow language, any early reason will do.
    assert not expected or expected & set(report.ids), \
        f"{attack.id}: expected one of {sorted(expected)}, got {_explain(report)}"


@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_twin_passes_statically(attack: Attack):
    report = GATE.check(attack.twin)
    assert report.passed, f"{attack.id} twin: {_explain(report)}"


# --------------------------------------------------------------------------------------
# Rendered (real Chromium, real p5.brush)
# --------------------------------------------------------------------------------------

@pytest.mark.chromium
@pytest.mark.parametrize("attack", [_param(a) for a in WHOLE], ids=_ids(WHOLE))
def test_attack_the_static_rules_pass_is_refused_or_harmless(renders, attack: Attack):
    render = renders[attack.reply]
    _refused_or_harmless(attack, GATE.check(attack.reply, render=render), render)


@pytest.mark.chromium
@pytest.mark.parametrize("attack", [_param(a) for a in ALONE], ids=_ids(ALONE))
def test_attack_is_refused_or_harmless_at_run_time_alone(renders, attack: Attack):
    render = renders[attack.reply]
    _refused_or_harmless(attack, GATE._runtime(GateReport(()), render), render, alone=True)


TWINS = list({a.twin: a for a in WHOLE + ALONE}.values())


@pytest.mark.chromium
@pytest.mark.parametrize("attack", TWINS, ids=_ids(TWINS))
def test_twin_passes_rendered(renders, attack: Attack):
    render = renders[attack.twin]
    report = GATE.check(attack.twin, render=render)
    assert report.passed, f"{attack.id} twin: {_explain(report)}"
    assert render.js_errors == () and render.flags == (), f"{attack.id} twin: {render.js_errors} {render.flags}"


@pytest.fixture(scope="module")
def quick_renderer(private_cache):
    """One worker with a short deadline, for the attacks that hang or starve the page."""
    from brushwork.render import RenderConfig, SyncRenderer

    config = RenderConfig(workers=1, timeout_s=HEAVY_DEADLINE_S, cache_dir=private_cache / "redteam-heavy")
    with SyncRenderer(config) as r:
        yield r


@pytest.mark.chromium
@pytest.mark.slow
@pytest.mark.parametrize("attack", HEAVY, ids=_ids(HEAVY))
def test_heavy_attack_is_rejected_at_run_time(quick_renderer, attack: Attack):
    render = quick_renderer.render(_code(attack.reply), seed=0)
    _refused_or_harmless(attack, GATE._runtime(GateReport(()), render), render)
