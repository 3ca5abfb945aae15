"""The boundary between the two realms, attacked and checked for real (Chromium, p5.brush).

The sketch runs in its own sandboxed realm; the painting is the paint realm's replay of the
display list that realm sends. What is promised, and tested here:

- the seven classes of attack that got through the single-realm design (`this` as the window
  in a class-method hook, duck-typed arguments of allowed p5 functions, `for…in` keys, a
  renderer read off the instance, raw WebGL calls, `window.name` across renders,
  `navigator.webdriver`), each next to its legal twin: the attack is refused, or its painting
  is byte-identical to the painting of its brush calls alone (nothing else reached it);
- nothing survives between renders on one worker; the sketch cannot tell it is automated;
- the frame's window takes one message, the harness's port, before the sketch runs: anything
  the sketch posts is `harness_tampering` and takes back none of the findings of what it does
  next; a list with a number that is not finite or out of its op's bounds, or a `__proto__` /
  `constructor` key, is refused by name (in the sketch realm `unsupported_argument`, in the
  paint realm `harness_tampering`), each next to its legal twin; a list past the cap is
  `too_long`; a list of the sketch's own making paints only its allowed calls;
- for many generated sketches, the captured PNG equals the PNG of a sketch that does nothing
  but replay the recorded display list (the painting is the replay of the list alone).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from gate_cases import reply

from brushwork.gate import Gate, GateReport
from brushwork.painter import paint
from brushwork.render import RenderConfig, SyncRenderer

GATE = Gate()   # the recipe's configuration

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
    report = GATE.check(reply(case.attack), render=result)
    if report.passed:
        assert _painted_like(result, rendered[case.control]), \
            f"{case.name}: passed, and its painting is not its brush calls' alone"
    alone = GATE._runtime(GateReport(()), result)
    assert not alone.passed or _painted_like(result, rendered[case.control]), case.name


@pytest.mark.parametrize("case", CASES, ids=str)
def test_legal_twin_passes(rendered, case: Case):
    result = rendered[case.twin]
    report = GATE.check(reply(case.twin), render=result)
    assert report.passed, f"{case.name} twin: {[(v.id, v.message) for v in report.violations]}"
    assert result.js_errors == () and result.flags == ()


def test_the_sunflower_is_named(rendered):
    """The flat clip-art of the class-method hook is not painted, and the model is told what it called."""
    report = GATE._runtime(GateReport(()), rendered[CASES[0].attack])
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

# The frame's window takes one message, the harness's port, posted before the sketch runs;
# findings leave through that port as they happen. What a sketch can post is `harness_tampering`,
# changes nothing of the painting, and takes back none of the findings of what it does next.
PARENT = 'const up = window["par" + "ent"];\n  '
COMPUTED_CALLS = """window["ell" + "ipse"](300, 300, 80, 80);
  window["te" + "xt"]("BUY", 10, 10);
  window["load" + "Pixels"]();
  try { window["fe" + "tch"]("/x"); } catch (e) { }
  try { window["op" + "en"]("about:blank"); } catch (e) { }"""
EMPTY_LIST = {"v": 1, "stage": "draw", "frameCount": 1, "canvas": [600, 600, "webgl"], "setup": [], "draw": [],
              "overflow": False, "findings": [], "errors": [], "blocked": []}


def _post(message: str) -> str:
    return PARENT + f'up["post" + "Message"]({json.dumps(message)}, "*");'


CIRCLE = "brush.circle(450, 450, 30);"
OPTIONS = 'brush.fill("#3a6fb0", 150, { weight: 2 });\n  ' + CIRCLE  # an options object


# Replaces the display list the harness sends (its JSON.stringify calls an inherited toJSON):
# the one way a sketch can hand the paint realm a list of its own making.
def _own_list(setup: str) -> str:
    forged = json.dumps(json.dumps({**EMPTY_LIST, "draw": None, "setup": "@"}).replace('"@"', setup))
    return f"Object.prototype.toJSON = function () {{ delete Object.prototype.toJSON; return JSON.parse({forged}); }};"


@dataclass(frozen=True)
class Forgery:
    name: str
    attack: str  # a snippet for draw(); the attack must report every id in `expect`
    twin: str  # the legal use of the same feature; must come back clean
    expect: tuple[str, ...]
    control: str = ""  # a snippet: what the attack paints once its refused calls are gone

    def __str__(self) -> str:
        return self.name


FORGERIES = [
    Forgery("forged_first_message_then_computed_calls", _post(json.dumps(EMPTY_LIST)) + "\n  " + COMPUTED_CALLS,
            'const M = window["Ma" + "th"];\n  brush.circle(M.max(100, 450), 450, 30);',
            ("harness_tampering", "p5_drawing", "text_drawing", "raw_drawing", "external_access")),
    Forgery("second_port", PARENT + 'up.postMessage("brushwork:port", "*", [new MessageChannel().port2]);',
            "const channel = new MessageChannel();\n  channel.port1.postMessage(1);", ("harness_tampering",)),
    Forgery("later_message",
            PARENT + f'setTimeout(() => up.postMessage({json.dumps(json.dumps(EMPTY_LIST))}, "*"), 0);',
            "setTimeout(() => 0, 0);", ("harness_tampering",)),
    Forgery("forged_infinity",
            _post('{"v":1,"canvas":[600,600,"webgl"],"draw":null,"setup":[["brush.circle",300,300,1e999]]}'),
            "brush.circle(300, 300, 9000);", ("harness_tampering",)),
    Forgery("forged_proto_key",
            _post('{"v":1,"canvas":[600,600,"webgl"],"draw":null,"setup":[["brush.fill","#000",{"__proto__":{"a":1}}]]}'),
            "brush.fill(\"#3a6fb0\", 150);\n  brush.circle(450, 450, 30);", ("harness_tampering",)),
    # the sketch's own list, through the harness's port: refused by name, not replayed
    Forgery("own_list_1e308", _own_list('[["brush.circle", 300, 300, 1e308]]'),
            "brush.circle(-9999.5, 10000, 40);", ("harness_tampering",)),
    Forgery("own_list_constructor_key", _own_list('[["brush.fill", "#3a6fb0", 150, {"constructor": {"a": 1}}]]'),
            OPTIONS, ("harness_tampering",)),
    Forgery("own_list_seed_out_of_range", _own_list('[["randomSeed", 1e12]]'), "randomSeed(4294967295);",
            ("harness_tampering",)),
    # in the sketch's own realm: refused as unsupported arguments, named
    Forgery("infinity_argument", "brush.circle(300, 300, Infinity);", "brush.circle(300, 300, 9999);",
            ("unsupported_argument",)),
    Forgery("nan_argument", "brush.circle(300, NaN, 40);", "brush.circle(300, 0.5, 40);", ("unsupported_argument",)),
    Forgery("huge_argument", "brush.circle(300, 300, 1e308);", "brush.circle(-10000, 300, 40);",
            ("unsupported_argument",)),
    Forgery("proto_key", OPTIONS.replace("weight", '["__proto__"]'), OPTIONS, ("unsupported_argument",),
            control=CIRCLE),
    Forgery("constructor_key", OPTIONS.replace("weight", "constructor"), OPTIONS, ("unsupported_argument",),
            control=CIRCLE),
    Forgery("seed_out_of_range", "randomSeed(1e12);", "randomSeed(4294967295);", ("unsupported_argument",)),
    # a flood of one kind of finding does not crowd out another
    Forgery("finding_flood",
            'for (let i = 0; i < 300; i++) brush.circle(300, 300, 1e6 + i);\n  window["ell" + "ipse"](1, 1, 8, 8);',
            "for (let i = 0; i < 3; i++) brush.circle(100 + 100 * i, 300, 20);",
            ("unsupported_argument", "p5_drawing")),
]


@pytest.fixture(scope="module")
def forged(renderer):
    codes = list(dict.fromkeys([_sketch(f.control) for f in FORGERIES] + [_sketch(f.attack) for f in FORGERIES]
                               + [_sketch(f.twin) for f in FORGERIES]))
    return dict(zip(codes, renderer.render_many(codes, seed=0)))


@pytest.mark.parametrize("case", FORGERIES, ids=str)
def test_a_forgery_is_reported_and_changes_nothing(forged, case: Forgery):
    result = forged[_sketch(case.attack)]
    report = GATE._runtime(GateReport(()), result)
    details = [(f.id, f.detail) for f in result.flags]
    assert result.status == "ok", f"{case.name}: {result.status} {result.detail}"
    assert set(case.expect) <= {f.id for f in result.flags} and not report.passed, \
        f"{case.name}: expected {case.expect}, got {details}"
    # harmless: what was forged or refused painted nothing
    assert result.png is None or result.png == forged[_sketch(case.control)].png, \
        f"{case.name}: the forgery reached the painting"


@pytest.mark.parametrize("case", FORGERIES, ids=str)
def test_a_forgerys_legal_twin_passes(forged, case: Forgery):
    result = forged[_sketch(case.twin)]
    report = GATE._runtime(GateReport(()), result)
    assert result.status == "ok" and report.passed, f"{case.name} twin: {[(f.id, f.detail) for f in result.flags]}"
    assert result.flags == () and result.js_errors == (), f"{case.name} twin: {result.flags} {result.js_errors}"


def test_refusals_name_the_call_and_the_value(forged):
    def details(name: str) -> list[str]:
        case = next(f for f in FORGERIES if f.name == name)
        return [f.detail for f in forged[_sketch(case.attack)].flags]

    assert any("brush.circle(): argument 3 is 1e+308, outside -10000 to 10000" in d for d in details("own_list_1e308"))
    assert any("an object with a constructor key" in d for d in details("own_list_constructor_key"))
    assert any("brush.circle(): argument 3 is Infinity, not a finite number" in d for d in details("infinity_argument"))
    assert any("an object with a __proto__ key" in d for d in details("proto_key"))


def test_a_forged_list_paints_only_its_allowed_calls(renderer):
    setup = ('[["background", "#f7f2e9"], ["translate", -300, -300], ["brush.noStroke"], '
             '["brush.fill", "#3a6fb0", 200], ["brush.circle", 300, 300, 120], ["brush.rect", 0, 0, 600, 50]]')
    result = renderer.render(_sketch(_own_list(setup)), seed=0)
    report = GATE._runtime(GateReport(()), result)
    assert result.brush_calls.get("circle") == 1 and result.brush_calls.get("rect") == 1, result.brush_calls
    assert "disallowed_brush_method" in report.ids  # the forged rect is counted, and refused


def test_too_many_calls_is_too_long(renderer):
    result = renderer.render(_sketch("for (let i = 0; i < 60000; i++) brush.vertex(i % 600, 300);"), seed=0)
    report = GATE._runtime(GateReport(()), result)
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
