"""The boundary between the two realms, attacked and checked for real (Chromium, p5.brush).

The sketch runs in its own sandboxed realm; the painting is the paint realm's replay of the
display list that realm sends. What is promised, and tested here:

- the seven classes of attack that got through the single-realm design (`this` as the window
  in a class-method hook, duck-typed arguments of allowed p5 functions, `for…in` keys, a
  renderer read off the instance, raw WebGL calls, `window.name` across renders,
  `navigator.webdriver`), each next to its legal twin: the attack is refused, or its painting
  is byte-identical to the painting of its brush calls alone (nothing else reached it);
- nothing survives between renders on one worker; the sketch cannot tell it is automated;
- a message that is not a display list is refused (`harness_tampering`), a list past the cap
  is `too_long`; a forged list paints only its allowed calls;
- for many generated sketches, the captured PNG equals the PNG of a sketch that does nothing
  but replay the recorded display list (the painting is the replay of the list alone).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from gate_cases import reply

from brushwork.gate import GateReport, check
from brushwork.gate.reply import _runtime  # the run-time rules alone: the static rules out of the way
from brushwork.painter import paint
from brushwork.render import RenderConfig, SyncRenderer

pytestmark = pytest.mark.chromium

# The brush part every attack and twin shares: a wash and a dab.
BRUSH = """brush.noStroke();
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.5);
  brush.fill("#e8607a", 190);
  brush.circle(300, 300, 70);
  brush.fill("#3a6fb0", 150);
  brush.circle(150, 460, 40);"""


def _sketch(draw_extra: str = "", *, top: str = "", setup_head: str = "function setup() {",
            setup_extra: str = "") -> str:
    head = (top + "\n" if top else "") + setup_head + "\n  createCanvas(600, 600, WEBGL);\n  noLoop();\n"
    head += (setup_extra + "\n" if setup_extra else "") + "}\n\n"
    return head + "function draw() {\n  translate(-width / 2, -height / 2);\n" \
        + '  background("#f7f2e9");\n  ' + BRUSH + "\n  " + draw_extra + "\n}\n"


@dataclass(frozen=True)
class Case:
    name: str
    attack: str  # the whole sketch
    twin: str  # the legal use of the same mechanism; must pass the whole gate
    control: str = ""  # the attack's brush calls alone (default: the plain sketch)

    def __str__(self) -> str:
        return self.name


PLAIN = _sketch()

# 1. `this` in a class method installed as a p5 hook is the (sketch realm's) window.
_STUDIO = """class Studio {
  begin() {
    const host = this;
    host.createCanvas(600, 600, WEBGL);
    host.noLoop();
    %s
  }
}
const studio = new Studio();
var setup = studio.begin;
"""
_SUNFLOWER = ("host.noStroke();\n    host.fill(245, 196, 0);\n"
              "    for (let i = 0; i < 12; i++) {\n"
              "      host.ellipse(300 + 120 * Math.cos(i), 300 + 120 * Math.sin(i), 90, 40);\n    }\n"
              "    host.fill(90, 50, 10);\n    host.sphere(60);\n    host.plane(200, 80);")
_HOOK_DRAW = ("function draw() {\n  translate(-width / 2, -height / 2);\n  background(\"#f7f2e9\");\n  " + BRUSH
              + "\n}\n")

CASES = [
    Case("this_is_window_in_hook", _STUDIO % _SUNFLOWER + _HOOK_DRAW, _STUDIO % "" + _HOOK_DRAW,
         _STUDIO % "" + _HOOK_DRAW),
    Case("this_renderer_in_hook",
         _STUDIO % ("const ren = host._renderer;\n    ren.fill(245, 196, 0);\n    ren.rect(-300, -300, 600, 200);")
         + _HOOK_DRAW, _STUDIO % "" + _HOOK_DRAW, _STUDIO % "" + _HOOK_DRAW),
    # 2. Allowed p5 functions duck-type their arguments: shuffle() returns what slice() returns.
    Case("shuffle_returns_instance",
         _sketch("const inst = shuffle({ slice: () => p5.instance, length: 0 });\n"
                 "  inst.fill(20, 20, 20);\n  inst.rect(0, 0, 600, 120);"),
         _sketch("const order = shuffle([1, 2, 3]);\n  brush.circle(100 + order[0], 100, 20);"),
         PLAIN),
    Case("lerp_colour_calls_back",
         _sketch("lerpColor({ lerp() { p5.instance.fill(0); p5.instance.rect(0, 0, 600, 600); return this; } },"
                 " color(255), 0.5);"),
         _sketch('brush.fill(lerpColor(color("#e8607a"), color("#3a6fb0"), 0.5), 160);\n  brush.circle(450, 150, 40);'),
         PLAIN),
    Case("nf_maps_arguments",
         _sketch("nf({ map: () => { p5.instance.background(0); return []; }, length: 1 }, 2);"),
         _sketch("const label = nf(3.14159, 1, 2);\n  brush.circle(450, 450, label.length * 4);"), PLAIN),
    # 3. `for…in` keys read any property by name.
    Case("for_in_reaches_renderer",
         _sketch("const inst = p5.instance;\n  for (const k in inst) {\n"
                 "    if (k === '_renderer') { inst[k].fill(0); inst[k].rect(0, 0, 600, 600); }\n  }"),
         _sketch("const palette = { rose: '#e8607a', sky: '#3a6fb0' };\n"
                 "  for (const k in palette) { brush.fill(palette[k], 120); brush.circle(k.length * 50, 100, 30); }"),
         PLAIN),
    # 4. A renderer read off the instance.
    Case("renderer_flat_shapes",
         _sketch("const ren = window._renderer || p5.instance._renderer;\n  ren.fill(245, 196, 0);\n"
                 "  ren.ellipse(300, 300, 400, 400);\n  ren.rect(0, 500, 600, 100);"),
         _sketch("const size = width / 6;\n  brush.circle(450, 150, size / 2);"), PLAIN),
    # 5. Raw WebGL on a context of the sketch's own.
    Case("raw_gl_scissor",
         _sketch("const gl = document.createElement('canvas').getContext('webgl2');\n"
                 "  gl.enable(gl.SCISSOR_TEST);\n  gl.scissor(0, 0, 600, 300);\n"
                 "  gl.clearBufferfv(gl.COLOR, 0, [0, 0, 0, 1]);"),
         _sketch("const w = width, h = height;\n  brush.circle(w / 4, h / 4, 30);"), PLAIN),
]
# What the twins add to PLAIN is their own: only the attacks need a control.


def _painted_like(result, control) -> bool:
    return result.png is not None and result.png == control.png


@pytest.fixture(scope="module")
def rendered(renderer):
    codes = list(dict.fromkeys([c.attack for c in CASES] + [c.twin for c in CASES] + [c.control for c in CASES]))
    return dict(zip(codes, renderer.render_many(codes, seed=3)))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_attack_is_refused_or_paints_only_its_brush_calls(rendered, case: Case):
    result = rendered[case.attack]
    report = check(reply(case.attack), render=result)
    if report.passed:
        assert _painted_like(result, rendered[case.control]), \
            f"{case.name}: passed, and its painting is not its brush calls' alone"
    alone = _runtime(GateReport(()), result)
    assert not alone.passed or _painted_like(result, rendered[case.control]), case.name


@pytest.mark.parametrize("case", CASES, ids=str)
def test_legal_twin_passes(rendered, case: Case):
    result = rendered[case.twin]
    report = check(reply(case.twin), render=result)
    assert report.passed, f"{case.name} twin: {[(v.id, v.message) for v in report.violations]}"
    assert result.js_errors == () and result.flags == ()


def test_the_sunflower_is_named(rendered):
    """The flat clip-art of the class-method hook is not painted, and the model is told what it called."""
    report = _runtime(GateReport(()), rendered[CASES[0].attack])
    assert "bare_primitive" in report.ids
    assert any("ellipse()" in v.message for v in report.violations)


# --------------------------------------------------------------------------------------
# 6 and 7: nothing survives between renders; the sketch cannot tell it is automated
# --------------------------------------------------------------------------------------

WRITER = _sketch(setup_extra="""  window.name = "seen-before";
  try { localStorage.setItem("k", "v"); } catch (e) { }
  try { sessionStorage.setItem("k", "v"); } catch (e) { }
  try { document.cookie = "k=v"; } catch (e) { }
  try { indexedDB.open("kept"); } catch (e) { }
  try { caches.open("kept"); } catch (e) { }
  if (window.name !== "seen-before") throw new Error("the writer could not write window.name");""")
READER = _sketch(setup_extra="""  const leaks = [];
  if (window.name !== "") leaks.push("window.name=" + window.name);
  try { if (localStorage.getItem("k") !== null) leaks.push("localStorage"); } catch (e) { }
  try { if (sessionStorage.getItem("k") !== null) leaks.push("sessionStorage"); } catch (e) { }
  try { if (document.cookie.includes("k=")) leaks.push("cookie"); } catch (e) { }
  if (leaks.length) throw new Error("leaked: " + leaks.join(", "));""")
AUTOMATION = _sketch(setup_extra="""  if (navigator.webdriver) throw new Error("navigator.webdriver is true");
  if (/Headless/i.test(navigator.userAgent)) throw new Error("the user agent says " + navigator.userAgent);""")


@pytest.fixture(scope="module")
def one_worker(private_cache):
    with SyncRenderer(RenderConfig(workers=1, cache_dir=None)) as r:
        yield r


def test_nothing_survives_between_renders_on_one_worker(one_worker):
    first = one_worker.render(WRITER, seed=0)
    assert first.status == "ok" and first.js_errors == (), first.js_errors
    second = one_worker.render(READER, seed=0)
    assert second.status == "ok"
    assert second.js_errors == (), second.js_errors[0].message
    # and the reader's painting is the plain sketch's: nothing of the writer shows
    assert second.png == one_worker.render(PLAIN, seed=0).png


def test_the_sketch_cannot_tell_it_is_automated(one_worker):
    result = one_worker.render(AUTOMATION, seed=0)
    assert result.status == "ok" and result.js_errors == (), result.js_errors


# --------------------------------------------------------------------------------------
# The message
# --------------------------------------------------------------------------------------

def _forge(message: str) -> str:
    return f"parent.postMessage({json.dumps(message)}, '*');\n" + PLAIN


def test_a_message_that_is_not_a_display_list_is_tampering(renderer):
    for forged in ("not json", json.dumps({"v": 1, "setup": [["rect", 0, 0, 600, 600]], "draw": None,
                                           "canvas": [600, 600, "webgl"]})):
        result = renderer.render(_forge(forged), seed=0)
        report = _runtime(GateReport(()), result)
        assert "harness_tampering" in report.ids, (forged, report.ids)
        assert result.png is None


def test_a_forged_display_list_paints_only_its_allowed_calls(renderer):
    forged = {"v": 1, "canvas": [600, 600, "webgl"], "draw": None, "findings": [],
              "setup": [["background", "#f7f2e9"], ["translate", -300, -300], ["brush.noStroke"],
                        ["brush.fill", "#3a6fb0", 200], ["brush.circle", 300, 300, 120], ["brush.rect", 0, 0, 600, 50]]}
    result = renderer.render(_forge(json.dumps(forged)), seed=0)
    report = _runtime(GateReport(()), result)
    assert result.brush_calls.get("circle") == 1 and result.brush_calls.get("rect") == 1
    assert "disallowed_brush_method" in report.ids  # the forged rect is counted, and refused


def test_too_many_calls_is_too_long(renderer):
    result = renderer.render(_sketch("for (let i = 0; i < 60000; i++) brush.vertex(i % 600, 300);"), seed=0)
    report = _runtime(GateReport(()), result)
    assert "too_long" in report.ids, report.ids


# --------------------------------------------------------------------------------------
# The painting is the replay of the display list alone
# --------------------------------------------------------------------------------------

REPLAY_ONLY = """const LIST = %s;
function call(op) {
  const [name, ...args] = op;
  if (name.startsWith("brush.")) brush[name.slice(6)](...args);
  else window[name](...args);
}
function setup() {
  createCanvas(600, 600, WEBGL);
  LIST.setup.forEach(call);
  if (LIST.draw === null) noLoop();
}
%s
"""
DRAW_ONLY = "function draw() {\n  noLoop();\n  LIST.draw.forEach(call);\n}"


def replay_only(display_list: str) -> str:
    """A sketch that does nothing but make the recorded calls again."""
    data = json.loads(display_list)
    return REPLAY_ONLY % (json.dumps(data), DRAW_ONLY if data["draw"] is not None else "")


def test_capture_equals_a_replay_of_the_display_list_alone(renderer):
    sketches = [paint(seed).code for seed in range(10)]
    firsts = renderer.render_many(sketches, seed=5)
    replays = renderer.render_many([replay_only(r.display_list) for r in firsts], seed=5)
    for i, (first, again) in enumerate(zip(firsts, replays)):
        assert first.status == "ok" and first.png is not None and first.display_list, i
        assert json.loads(again.display_list) == json.loads(first.display_list), f"painter seed {i}: lists differ"
        assert again.png == first.png, f"painter seed {i}: the replay of its list painted other pixels"
