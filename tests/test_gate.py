"""The gate's own behaviour: scopes, line numbers, configuration, robustness.
(The big hostile/honest table lives in test_gate_cases.py.)"""

import pytest

import brushwork.gate
from brushwork.errors import ConfigError
from brushwork.gate import RULES, Gate, GateConfig
from brushwork.sketch import extract_sketch

GATE = Gate()   # the recipe's configuration

SKELETON = """function setup() {{
  createCanvas(600, 600, WEBGL);
  noLoop();
}}
function draw() {{
  translate(-width / 2, -height / 2);
  background(250);
  brush.noStroke();
  brush.fill("#c44", 90);
  {body}
  brush.circle(300, 300, 80);
}}
"""


def ok(body: str = "", cfg: GateConfig | None = None):
    return Gate(cfg).check(SKELETON.format(body=body))


def test_rule_table_is_complete_and_unique():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    assert all(r.severity in ("cheat", "broken", "infra") and r.explanation for r in RULES)
    assert {"render_timeout", "render_crashed", "render_untrusted"} == {r.id for r in RULES if r.severity == "infra"}


def test_skeleton_passes():
    assert ok().passed


def test_local_helper_named_like_a_primitive_is_not_p5():
    body = "function line(a, b) { brush.circle(a, b, 3); }\n  line(10, 20);"
    assert ok(body).passed
    # ...but the same name outside the helper's scope is p5's line()
    assert "bare_primitive" in ok("{ const line = (a) => a; line(1); }\n  line(1, 2, 3, 4);").ids


def test_brush_methods_are_judged_by_name_wherever_brush_is_named():
    # Even a local `brush` (harmless: it is the sketch's own) gets the early reason, which is the
    # simpler rule for a model to follow; the render counts what the real brush was called with.
    assert "disallowed_brush_method" in ok("function petal(brush) { brush.rect(1, 2, 3, 4); }").ids
    assert "disallowed_brush_method" in ok("brush.rect(1, 2, 3, 4);").ids


def test_escaped_names_are_read_as_the_engine_reads_them():
    assert "bare_primitive" in ok("\\u0072ect(1, 2, 3, 4);").ids
    assert "disallowed_brush_method" in ok("brush.\\u{72}ect(1, 2, 3, 4);").ids


def test_violation_lines_are_reply_lines():
    reply = "Here you go:\n\n```js\n" + SKELETON.format(body="rect(1, 2, 3, 4);") + "```\n"
    report = GATE.check(reply)
    (v,) = [v for v in report.violations if v.id == "bare_primitive"]
    assert reply.splitlines()[v.line - 1].strip() == "rect(1, 2, 3, 4);"


def test_allow_list_is_configuration():
    body = 'brush.set("HB", "#222", 1);'
    assert "disallowed_brush_method" in ok(body).ids
    wider = GateConfig(allowed_methods=GateConfig().allowed_methods + ("set",))
    assert ok(body, wider).passed
    with pytest.raises(ConfigError, match="watercolor"):
        GateConfig(allowed_methods=("fill", "watercolor"))


def test_canvas_size_follows_config_and_constants():
    assert ok().passed
    assert "canvas_size" in ok(cfg=GateConfig(canvas_size=512)).ids
    code = SKELETON.format(body="").replace("createCanvas(600, 600", "createCanvas(S, S").replace(
        "function setup", "const S = 600;\nfunction setup")
    assert GATE.check(code).passed


@pytest.mark.parametrize("junk", ["", "\x00\x01\x02" * 100, "{" * 100_000, "```js\n" + "}" * 5000,
                                  "function setup() {" * 2000, "```js\nfunction setup() { \ud800 }\n```"])
def test_never_raises(junk):
    report = GATE.check(junk)
    assert not report.passed


def test_too_long():
    long_body = "\n".join(f"  brush.circle({i % 600}, 300, 2); // petal {i}" for i in range(900))
    assert "too_long" in ok(long_body).ids


def test_canvas_size_accepts_constant_arithmetic():
    for call in ("createCanvas(300 * 2, 300 * 2, WEBGL)", "createCanvas(S * 2, S * 2, WEBGL)"):
        code = "const S = 150 + 150;\n" + SKELETON.format(body="").replace("createCanvas(600, 600, WEBGL)", call)
        assert GATE.check(code).passed, call
    code = SKELETON.format(body="").replace("createCanvas(600, 600", "createCanvas(windowWidth, windowHeight")
    assert "canvas_size" in GATE.check(code).ids


def test_pixel_density_is_harmless_other_canvas_changes_are_not():
    # The paint realm's canvas is fixed (the configured size at density 1): a density is a habit.
    assert ok("pixelDensity(1);").passed
    assert ok("pixelDensity(2);").passed
    assert "bare_primitive" in ok("resizeCanvas(300, 300);").ids


def test_awaited_timers_in_async_setup_are_fine_deferred_painting_is_not():
    waited = SKELETON.format(body="").replace("function setup() {", "async function setup() {\n"
                                              "  await new Promise((done) => setTimeout(done, 20));")
    assert GATE.check(waited).passed, GATE.check(waited).ids
    assert "deferred_code" in ok("setTimeout(() => brush.circle(10, 10, 5), 0);").ids


def test_the_public_gate_is_one_object_bound_to_its_configuration():
    assert set(brushwork.gate.__all__) == {"DEFAULT_ALLOWED", "RULES", "RULES_BY_ID", "Gate", "GateConfig",
                                           "GateReport", "Gated", "Rule", "Violation"}
    assert all(hasattr(brushwork.gate, name) for name in brushwork.gate.__all__)
    assert not hasattr(brushwork.gate, "check") and not hasattr(brushwork.gate, "gate_reply")
    assert Gate().config == GateConfig()   # the recipe's configuration unless given one


def test_a_sketch_gets_the_verdict_of_its_reply():
    reply = "Here it is:\n\n```js\n" + SKELETON.format(body="rect(1, 2, 3, 4);\n  fetch('x');") + "```\n"
    sketch = extract_sketch(reply)
    assert sketch.start_line == 4 and GATE.check(sketch) == GATE.check(reply)
    assert {"bare_primitive", "external_access"} <= set(GATE.check(sketch).ids)
    assert all(v.line > 3 for v in GATE.check(sketch).violations)   # lines of the reply, from either
    assert GATE.check(extract_sketch("```js\n" + SKELETON.format(body="") + "```")).passed


async def test_running_the_gate_without_a_renderer_is_the_static_verdict():
    refused = "```js\n" + SKELETON.format(body="rect(1, 2, 3, 4);") + "```"
    for reply in (refused, SKELETON.format(body=""), "no code here"):
        gated = await Gate(GateConfig(canvas_size=600)).run(reply)
        assert gated.report == GATE.check(reply) and gated.render is None and not gated.report.rendered
        assert gated.sketch == extract_sketch(reply)
    assert not (await GATE.run(refused)).report.passed and (await GATE.run("no code here")).sketch is None


def test_the_gate_applies_its_own_configuration():
    at_400 = SKELETON.replace("600, 600", "400, 400").format(body="")
    assert "canvas_size" in GATE.check(at_400).ids                          # the recipe's gate: 600 x 600
    assert Gate(GateConfig(canvas_size=400)).check(at_400).passed           # the same sketch, a 400 gate
    assert "canvas_size" in Gate(GateConfig(canvas_size=400)).check(SKELETON.format(body="")).ids
