"""The sketch language's finer points: which brackets pass (the key-kind inference), which
top-level names are reserved, and that the language tables are real p5 names.

Each row is a snippet spliced into a small painting; `bad` must report `rule`, `good` (its
honest twin) must pass. The broad attack table lives in tests/redteam.py.
"""

from __future__ import annotations

import pytest
from gate_cases import reply, sketch

from brushwork.core import language as L
from brushwork.gate import check

# (name, rule, attack, twin, where)
ROWS = [
    ("loop_counter", "computed_access", 'const k = "constr" + "uctor"; const f = [][k];',
     "const f = [1, 2][1];", "draw"),
    ("concat_in_loop", "computed_access",
     'let k = ""; for (const c of ["con", "structor"]) { k += c; } const f = [][k];',
     "let k = 0; for (let c = 1; c <= 2; c++) { k += c; } const f = [3, 4, 5][k];", "draw"),
    ("parameter_from_string", "computed_access",
     'function pick(o, k) { return o[k]; }\nfunction go() { return pick([], "const" + "ructor"); }',
     "function pick(o, k) { return o[k]; }\nfunction go() { return pick([1, 2], 1); }", "top"),
    ("escaping_function_parameter", "computed_access",
     "function pick(k) { return [][k]; }\nconst handlers = [pick];",
     "function pick(k) { return [4, 5][k % 2]; }\nconst handlers = [pick];", "top"),
    ("element_as_key", "computed_access",
     'const keys = ["a", "b"]; for (const k of keys) { const v = ({ a: 1 })[k]; }',
     'const keys = [0, 1]; keys.forEach((k, i) => { const v = [1, 2][i]; });', "draw"),
    ("template_key", "computed_access", "const n = 1; const v = [][`const${n}`];",
     "const n = 1; const v = [7, 8][n];", "draw"),
    ("random_element_key", "computed_access", 'const v = [][random(["constructor"])];',
     "const v = [1, 2, 3][floor(random(3))];", "draw"),
    ("string_literal_key", "implicit_member", 'const f = []["constructor"];',
     'const v = { rose: 1 }["rose"];', "draw"),
    ("function_return_text", "computed_access",
     'function key() { return "proto"; }\nconst v = ({})[key() + "type"];',
     "function key() { return 2; }\nconst v = [1, 2, 3][key()];", "top"),
    ("top_level_browser_global", "harness_tampering", "function requestAnimationFrame(f) { }",
     "function frameLater(f) { }", "top"),
    ("top_level_p5_read", "harness_tampering", "var mocha = true;", "var mochaLatte = true;", "top"),
    ("top_level_language_name", "harness_tampering", "function random(a) { return a; }",
     "function jitter(a) { return a; }", "top"),
    ("p5_event_hook", "outside_language", "function windowResized() { }", "function resizeLater() { }", "top"),
    ("draw_parameters", "outside_language", None, None, "top"),
]


def _case(row):
    name, rule, bad, good, where = row
    if name == "draw_parameters":
        attack = reply(sketch().replace("function draw()", "function draw(p)"))
        return attack, reply(sketch())
    return reply(sketch(**{where: bad})), reply(sketch(**{where: good}))


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_attack_refused_twin_passes(row):
    attack, twin = _case(row)
    report = check(attack)
    assert row[1] in report.ids, f"{row[0]}: expected {row[1]}, got {report.ids}"
    twin_report = check(twin)
    assert twin_report.passed, f"{row[0]} twin: {[(v.id, v.message) for v in twin_report.violations]}"


def test_local_names_may_shadow_globals():
    """Inside a function a sketch may call its helper `random` or `line`: only top-level
    declarations become window properties."""
    code = sketch(top="function petals() { const random = 3; const line = [1, 2]; return random + line[0]; }")
    assert check(reply(code)).passed


def test_language_tables_are_real_p5_names():
    names = L.p5_names()
    assert L.P5_FUNCTIONS <= set(names["functions"]), L.P5_FUNCTIONS - set(names["functions"])
    assert L.P5_CONSTANTS <= set(names["values"]), L.P5_CONSTANTS - set(names["values"])
    assert names["p5"].startswith("2.3") and names["p5.brush"] == "2.2.2"


def test_no_drawing_function_in_the_language():
    from brushwork.core import vocabulary as V

    assert not L.P5_FUNCTIONS & (V.P5_PRIMITIVES | V.P5_TEXT | V.P5_RAW)


def test_language_is_configurable():
    from brushwork.gate import GateConfig

    code = reply(sketch("const t = bezierPoint(0, 10, 20, 30, 0.5);\n  rotateX(0.1);"))
    assert {"unknown_name", "library_result"} & set(check(code).ids) == {"unknown_name"}
    cfg = GateConfig(extra_p5_values=("bezierPoint",), extra_p5_statements=("rotateX",))
    assert check(code, cfg).passed
    used = reply(sketch("const m = rotateX(0.1);\n  brush.fillBleed(m._pInst);"))
    assert "library_result" in check(used, GateConfig(extra_p5_statements=("rotateX",))).ids


@pytest.mark.parametrize("names, fix", [(("rect",), "without p5.brush"), (("nonsense",), "does not have")])
def test_language_refuses_drawing_or_invented_functions(names, fix):
    from brushwork.errors import ConfigError
    from brushwork.gate import GateConfig

    with pytest.raises(ConfigError, match=fix):
        GateConfig(extra_p5_values=names)


@pytest.mark.parametrize("bad, good", [
    ("const cnv = createCanvas(600, 600, WEBGL);", "createCanvas(600, 600, WEBGL);"),
])
def test_unused_canvas_handle_is_fine(bad, good):
    code = reply(sketch(canvas=bad))
    assert check(code).passed, check(code).ids
    used = reply(sketch(canvas=bad, setup="cnv.elt;"))
    assert "library_result" in check(used).ids


@pytest.mark.parametrize("snippet, ok", [
    ('const rose = color("#e8607a"); brush.fill(rose, 150); brush.circle(100, 100, 30);', True),
    ('const rose = lerpColor(color("#e8607a"), color("#ffffff"), 0.3); brush.fill(rose, 150);', True),
    ('const rose = color("#e8607a"); const keep = rose;', False),
    ('const rose = color("#e8607a"); brush.fill(rose._color, 150);', False),
    ('let rose = color("#e8607a"); rose = color("#ffffff"); brush.fill(rose, 150);', False),
    ('const roses = [color("#e8607a")]; brush.fill(roses[0], 150);', False),
])
def test_colours_only_flow_into_library_calls(snippet, ok):
    report = check(reply(sketch(snippet)))
    assert report.passed is ok, [(v.id, v.message) for v in report.violations]
    if not ok:
        assert "library_result" in report.ids


def test_catch_parameters_are_refused():
    assert "outside_language" in check(reply(sketch("try { brush.circle(1, 1, 1); } catch (e) { e.stack; }"))).ids
    assert check(reply(sketch("try { brush.circle(1, 1, 1); } catch { }"))).passed


@pytest.mark.parametrize("snippet", [
    "brush.fill(() => 0, 150);",
    "function shade() { return 120; }\n  brush.fill(shade, 150);",
    "background(function () { return 0; });",
])
def test_functions_never_go_into_library_calls(snippet):
    assert "implicit_member" in check(reply(sketch(snippet))).ids
    assert check(reply(sketch("function shade() { return 120; }\n  brush.fill(\"#aabbcc\", shade());"))).passed


def test_constructor_only_as_a_class_constructor():
    assert "implicit_member" in check(reply(sketch("const o = { constructor() { return 1; } };"))).ids


@pytest.mark.chromium
def test_configured_language_holds_at_run_time(renderer):
    """The page knows the default table; a function the config adds is not flagged there either."""
    from brushwork.gate import GateConfig
    from brushwork.sketch import extract_sketch

    code = reply(sketch("rotateX(0.0);"))
    render = renderer.render(extract_sketch(code).code, seed=0)
    assert "unlisted_call" in check(code, render=render).ids
    assert check(code, GateConfig(extra_p5_statements=("rotateX",)), render=render).passed
