"""The gate against a table of hostile replies (tests/gate_cases.py) and a corpus of honest
paintings (tests/corpus/honest/*.md), statically and, where it matters, rendered for real.

- every static case's reply reports its rule; its twin (the honest variant) passes;
- every run-time case is rendered and reports its rule; its twin, rendered, passes;
- every honest painting passes statically and rendered (paint fraction >= 0.5 %);
- the bundled examples (src/brushwork/examples) are judged like the corpus;
- `check` never raises, whatever it is given.
"""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest
from gate_cases import HARMLESS, RUNTIME, STATIC, TIMEOUT, Case

from brushwork.gate import Gate, GateConfig
from brushwork.sketch import extract_sketch

GATE = Gate()   # the recipe's configuration

CORPUS = Path(__file__).parent / "corpus" / "honest"
HONEST = sorted(CORPUS.glob("*.md"))
EXAMPLES = Path(__file__).parents[1] / "src" / "brushwork" / "examples"
GOOD_EXAMPLES = sorted(EXAMPLES.glob("good_*.md"))
BAD_EXAMPLES = sorted(p for p in EXAMPLES.glob("*.md") if not p.name.startswith("good_"))
# What each bundled non-good example must be rejected for.
EXAMPLE_RULES = {
    "cheat_text.md": "text_on_canvas",
    "cheat_bare_primitives.md": "bare_primitive",
    "cheat_fetch.md": "external_access",
    "broken_truncated.md": "syntax_error",
}

STATIC_TWINS = [c for c in STATIC + HARMLESS if c.twin is not None]
RUNTIME_TWINS = [c for c in RUNTIME + TIMEOUT if c.twin is not None]


def _ids(cases):
    return [c.name for c in cases]


def _explain(report) -> str:
    return "; ".join(f"{v.id}: {v.message} (line {v.line})" for v in report.violations) or "no violations"


def _render(renderer, reply: str):
    sketch = extract_sketch(reply)
    assert sketch is not None, "no sketch in the reply"
    return renderer.render(sketch.code, seed=0)


# --------------------------------------------------------------------------------------
# The table itself
# --------------------------------------------------------------------------------------

STATIC_RULES = ("no_sketch", "syntax_error", "html_comment", "missing_setup", "not_webgl", "canvas_size",
                "external_access", "text_on_canvas", "raw_pixels", "bare_primitive", "disallowed_brush_method",
                "unknown_brush_method", "no_painting", "too_long",
                "deferred_code")
RUNTIME_RULES = ("js_error", "blank_canvas", "too_slow", "painted_then_cleared", "canvas_replaced")


def test_table_covers_every_rule():
    static = {c.rule for c in STATIC}
    for rule in STATIC_RULES:
        assert sum(c.rule == rule for c in STATIC) >= 2, rule
    assert static <= set(STATIC_RULES)
    assert set(RUNTIME_RULES) <= {c.rule for c in RUNTIME + TIMEOUT}
    assert len(STATIC) + len(RUNTIME) + len(TIMEOUT) >= 45


def test_rules_are_known_to_the_gate():
    from brushwork.gate import RULES_BY_ID

    for case in STATIC + RUNTIME + TIMEOUT:
        assert case.rule in RULES_BY_ID, case.name
    assert len(HARMLESS) >= 30


# --------------------------------------------------------------------------------------
# Static
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", STATIC, ids=_ids(STATIC))
def test_static_case_is_rejected(case: Case):
    report = GATE.check(case.reply)
    assert not report.passed
    assert case.rule in report.ids, f"{case.name}: expected {case.rule}, got {_explain(report)}"


@pytest.mark.parametrize("case", STATIC_TWINS, ids=_ids(STATIC_TWINS))
def test_static_twin_passes(case: Case):
    report = GATE.check(case.twin)
    assert report.passed, f"{case.name} twin: {_explain(report)}"


@pytest.mark.parametrize("case", RUNTIME_TWINS, ids=_ids(RUNTIME_TWINS))
def test_runtime_twin_passes_statically(case: Case):
    report = GATE.check(case.twin)
    assert report.passed, f"{case.name} twin: {_explain(report)}"


@pytest.mark.parametrize("path", HONEST, ids=[p.stem for p in HONEST])
def test_honest_passes_statically(path: Path):
    report = GATE.check(path.read_text())
    assert report.passed, f"{path.name}: {_explain(report)}"


def test_honest_corpus_is_varied():
    assert len(HONEST) >= 16
    texts = [p.read_text() for p in HONEST]
    assert any("```js" in t for t in texts)
    assert any(re.search(r"^```[ \t]*$", t, re.MULTILINE) and not re.search(r"```(js|javascript|p5)", t) for t in texts)
    assert any("```" not in t for t in texts)  # raw code, no fence at all
    assert any("class " in t and "this." in t for t in texts)
    assert any("randomSeed(" in t and "random(" in t for t in texts)


@pytest.mark.parametrize("path", GOOD_EXAMPLES, ids=[p.stem for p in GOOD_EXAMPLES])
def test_good_example_passes_statically(path: Path):
    report = GATE.check(path.read_text())
    assert report.passed, f"{path.name}: {_explain(report)}"


@pytest.mark.parametrize("path", BAD_EXAMPLES, ids=[p.stem for p in BAD_EXAMPLES])
def test_bad_example_is_rejected(path: Path):
    report = GATE.check(path.read_text())
    assert not report.passed
    expected = EXAMPLE_RULES.get(path.name)
    if expected is not None:
        assert expected in report.ids, f"{path.name}: expected {expected}, got {_explain(report)}"


def test_examples_are_bundled():
    names = {p.name for p in EXAMPLES.glob("*.md")}
    for name in ("good_peach_hibiscus.md", "good_meadow.md", "good_abstract.md", "good_white_hibiscus.md",
                 "good_lotus.md", *EXAMPLE_RULES):
        assert name in names, name


def test_allow_list_is_configuration():
    """A case rejected for brush.line passes once the allow-list includes line."""
    case = next(c for c in STATIC if c.name == "brush_line")
    assert "disallowed_brush_method" in GATE.check(case.reply).ids
    wider = GateConfig(allowed_methods=GateConfig().allowed_methods + ("line",))
    assert "disallowed_brush_method" not in Gate(wider).check(case.reply).ids


# --------------------------------------------------------------------------------------
# Event handlers: notes that say what the call does, never a violation
# --------------------------------------------------------------------------------------

BOILERPLATE = [   # (handler, what its note must say)
    ("function windowResized() { resizeCanvas(600, 600); }", "`resizeCanvas()` resizes the canvas"),
    ('function keyPressed() { if (key === "s") saveCanvas("x", "png"); }', "`saveCanvas()` saves a file"),
    ('function keyReleased() { save("painting.png"); }', "`save()` saves a file"),
    ("function mouseDragged() { line(pmouseX, pmouseY, mouseX, mouseY); }", "`line()` is p5's own drawing"),
    ('function doubleClicked() { text("hi", 10, 10); }', "`text()` draws text"),
]


@pytest.mark.parametrize("body,says", BOILERPLATE, ids=[b.split("(")[0].split()[1] for b, _ in BOILERPLATE])
def test_handler_boilerplate_passes_with_a_note(body: str, says: str):
    from gate_cases import reply, sketch

    report = GATE.check(reply(sketch(top=body)))
    assert report.passed, _explain(report)
    [note] = report.notes
    assert note.severity == "warning" and note.line == 4, note      # the reply's line: prose, blank, fence
    assert note.message.startswith(says) and "handlers never run in a headless render, so it is ignored" \
        in note.message, note.message
    assert report.to_dict()["notes"] == [note.to_dict()]


def test_the_same_call_outside_a_handler_says_what_it_does():
    from gate_cases import reply, sketch

    report = GATE.check(reply(sketch('saveCanvas("x", "png");')))
    assert report.cheated and not report.notes
    assert report.violations[0].message.startswith("`saveCanvas` saves a file; the renderer captures the painting")


def test_a_reply_past_the_cap_is_too_long_unread():
    cfg = GateConfig()
    report = Gate(cfg).check("```\n" * 64_000)
    assert report.ids == ("too_long",) and not report.cheated and not report.infra_failure
    assert f"{cfg.max_reply_chars:,}" in report.violations[0].message
    gated = asyncio.run(Gate(cfg).run("```\n" * 64_000))
    assert gated.sketch is None and gated.render is None and gated.report == report
    just_under = "```\n" * (cfg.max_reply_chars // 4)         # read, and found to hold no sketch
    assert "too_long" not in Gate(cfg).check(just_under).ids


# --------------------------------------------------------------------------------------
# Robustness: the gate returns a report for anything, never raises
# --------------------------------------------------------------------------------------

def _junk() -> list[tuple[str, str]]:
    rng = random.Random(0)
    binary = bytes(rng.randrange(256) for _ in range(4096)).decode("latin-1")
    return [
        ("empty", ""),
        ("binary", binary),
        ("nul_bytes", "function setup() {\x00\x00}\x00"),
        ("braces_1mb", "{" * 1_000_000),
        ("parens_deep", "```js\n" + "(" * 50_000 + ")" * 50_000 + "\n```"),
        ("fence_only", "```"),
        ("fences_only", "```js\n```\n```\n```"),
        ("lone_surrogate", "function setup() { const s = '\ud800'; }"),
        ("unicode_soup", "🌺" * 10_000 + "function setup(){}"),
        ("huge_line", "const x = " + "1+" * 200_000 + "1;"),
        ("think_unclosed", "<think>function setup() {"),
        ("regex_backtrack", "function setup() { const r = /" + "a*" * 5000 + "b/; }"),
    ]


@pytest.mark.parametrize("name,reply", _junk(), ids=[n for n, _ in _junk()])
def test_check_never_raises(name: str, reply: str):
    report = GATE.check(reply)
    assert isinstance(report.passed, bool)
    assert isinstance(report.ids, tuple)


def test_check_never_raises_on_non_strings():
    for junk in (None, b"function setup() {}", 42):
        report = GATE.check(junk)  # type: ignore[arg-type]
        assert not report.passed


# --------------------------------------------------------------------------------------
# Rendered (real Chromium, real p5.brush)
# --------------------------------------------------------------------------------------

@pytest.mark.chromium
@pytest.mark.parametrize("case", RUNTIME, ids=_ids(RUNTIME))
def test_runtime_case_is_rejected(renderer, case: Case):
    result = _render(renderer, case.reply)
    report = GATE.check(case.reply, render=result)
    assert not report.passed
    assert case.rule in report.ids, f"{case.name}: expected {case.rule}, got {_explain(report)}"


@pytest.mark.chromium
@pytest.mark.parametrize("case", RUNTIME_TWINS, ids=_ids(RUNTIME_TWINS))
def test_runtime_twin_passes_rendered(renderer, case: Case):
    result = _render(renderer, case.twin)
    report = GATE.check(case.twin, render=result)
    assert report.passed, f"{case.name} twin: {_explain(report)}"


@pytest.mark.chromium
@pytest.mark.slow
@pytest.mark.parametrize("case", TIMEOUT, ids=_ids(TIMEOUT))
def test_hang_is_the_sketchs_fault(renderer, case: Case):
    result = _render(renderer, case.reply)
    report = GATE.check(case.reply, render=result)
    # Stopped at the CPU budget; or, on a machine too busy to give the loop that much CPU before
    # the deadline, timed out on two browsers. Either way the sketch's fault: the reward is 0.
    assert {case.rule, "render_timeout"} & set(report.ids), f"{case.name}: expected {case.rule}, got {_explain(report)}"
    assert not report.infra_failure and not report.passed


@pytest.mark.chromium
@pytest.mark.parametrize("path", HONEST + GOOD_EXAMPLES, ids=[p.stem for p in HONEST + GOOD_EXAMPLES])
def test_honest_passes_rendered(renderer, path: Path):
    reply = path.read_text()
    result = _render(renderer, reply)
    report = GATE.check(reply, render=result)
    assert report.passed, f"{path.name}: {_explain(report)}"
    assert result.paint_fraction is not None and result.paint_fraction >= 0.005
    assert result.brush_calls and set(result.brush_calls) <= set(GateConfig().allowed_methods)


@pytest.mark.chromium
def test_harmless_cases_leave_nothing_on_the_canvas(renderer):
    """Cases for rules the sketch realm made moot: rendered, each passes or is refused, and no
    p5-drawn mark (black-outlined by default; no watercolour wash is this dark) is captured."""
    import numpy as np

    from brushwork.render import image

    results = renderer.render_many([extract_sketch(c.reply).code for c in HARMLESS], seed=0)
    for case, result in zip(HARMLESS, results):
        assert result.status == "ok", f"{case.name}: {result.status} {result.detail}"
        if result.png is not None:
            rgb = np.asarray(image.to_rgb(result.png), dtype=np.float32)
            dark = int(((rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)) < 60).sum())
            assert dark == 0, f"{case.name}: {dark} dark pixels reached the canvas"
