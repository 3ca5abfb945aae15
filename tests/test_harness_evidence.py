"""The run-time half of the gate on its own: attacks written against the single-realm page
harness (hooks the libraries call, code outside setup and draw, the harness's state and the
built-ins it relied on, library objects in the sketch's hands, offscreen painting, functions
outside the old language, the page itself), rerun against the sketch realm.

Every `Attack` is judged by the run-time rules only (`GATE._runtime(GateReport(()), render)`:
the static gate is bypassed on purpose). Its cheat is a bare p5 call (black-outlined by
default, or text): it must be refused, or be harmless — passed with no such mark on the
canvas, because it ran in the sketch's own realm. Its `twin`, the legal mechanism, must
come back clean: no flag, no error, a painting.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest
from gate_cases import CANVAS, PAINT

from brushwork.gate import Gate, GateReport
from brushwork.render import image
from brushwork.render.browser import PageEvents
from brushwork.render.evidence import read_evidence

GATE = Gate()   # the recipe's configuration

BASE_DRAW = ["translate(-width / 2, -height / 2);", 'background("#f7f2e9");', PAINT]
RECT = "rect(10, 10, 200, 200);"


def page(draw: str = "", *, setup: str = "", top: str = "", async_setup: bool = False, tail: str = "") -> str:
    """A small complete sketch: the base wash, then `draw` appended to draw()."""
    head = "async function setup() {" if async_setup else "function setup() {"
    setup_lines = [CANVAS] + ([setup] if setup else []) + ["noLoop();"]
    code = (top.strip() + "\n\n" if top else "") + head + "\n  " + "\n  ".join(setup_lines) + "\n}\n\n"
    code += "function draw() {\n  " + "\n  ".join(BASE_DRAW + ([draw] if draw else [])) + "\n}\n"
    return code + (tail + "\n" if tail else "")


@dataclass(frozen=True)
class Attack:
    name: str
    family: str
    code: str
    expect: tuple[str, ...]  # at least one of these rule ids must be reported
    twin: str

    def __str__(self) -> str:
        return self.name


def attack(name: str, family: str, bad: str, good: str, expect: str | tuple[str, ...], **kw) -> Attack:
    """An attack and its twin that differ only in the snippet spliced into draw() (or `where`)."""
    where = kw.pop("where", "draw")
    expect = (expect,) if isinstance(expect, str) else expect
    return Attack(name, family, page(**{where: bad}, **kw), expect, page(**{where: good}, **kw))


TAMPER_GLOBALS = """const kept = () => [Math, Math.random, Array.prototype.push, Object.keys, JSON.stringify,
                      Reflect.apply, p5.prototype.push, p5.Matrix, console.log];
  const before = kept();
  try { window.Math = { ...Math, random: () => 0 }; } catch (e) {}
  try { Object.defineProperty(window, "Math", { value: {} }); } catch (e) {}
  try { Math.random = () => 0; } catch (e) {}
  try { Array.prototype.push = function () { return 0; }; } catch (e) {}
  try { Object.keys = () => []; } catch (e) {}
  try { JSON.stringify = () => "{}"; } catch (e) {}
  try { Reflect.apply = () => 0; } catch (e) {}
  try { p5.prototype.push = function () {}; } catch (e) {}
  try { p5.Matrix = function () {}; } catch (e) {}
  try { console.log = function () {}; } catch (e) {}"""
TAMPER_STACKS = """try { Error.prepareStackTrace = () => []; } catch (e) {}
  try { Error.stackTraceLimit = 0; } catch (e) {}
  try { Object.defineProperty(Error, "prepareStackTrace", { value: () => [] }); } catch (e) {}
  try { Error.captureStackTrace = () => {}; } catch (e) {}"""
EMPTY_EVIDENCE = """for (const name of Object.getOwnPropertyNames(window)) {
    if (!name.startsWith("__bw")) continue;
    const v = window[name];
    if (v && typeof v === "object") for (const k of Object.keys(v)) if (Array.isArray(v[k])) v[k].length = 0;
    try { delete window[name]; } catch (e) {}
  }"""
LATER = 'const later = window["set" + "Timeout"];\n  '
SHAPE = "brush.beginShape(0);\n  brush.vertex(100, 100);\n  brush.vertex(500, 100);\n  brush.vertex(300, 500);"

ATTACKS: list[Attack] = [
    # --- hooks the libraries call, while a brush call is on the stack ----------------------
    attack("valueof_rect", "hooks", "brush.circle(300, 300, { valueOf() { rect(10, 10, 200, 200); return 120; } });",
           "brush.circle(300, 300, 120);", "bare_primitive"),
    attack("tostring_text", "hooks", 'brush.circle(300, 300, { toString() { text("BUY", 10, 10); return "120"; } });',
           'brush.circle(300, 300, "120");', "text_on_canvas"),
    attack("getter_ellipse", "hooks",
           "const col = [232, 96, 122];\n  Object.defineProperty(col, 0, { get() { ellipse(300, 300, 80, 80); "
           "return 232; } });\n  brush.fill(col, 190);\n  brush.circle(300, 300, 60);",
           "const col = [232, 96, 122];\n  Object.defineProperty(col, 0, { get() { return 232; } });\n"
           "  brush.fill(col, 190);\n  brush.circle(300, 300, 60);", "bare_primitive"),
    attack("bound_rect_as_valueof", "hooks", "brush.circle(300, 300, { valueOf: rect.bind(null, 10, 10, 200, 200) });",
           "brush.circle(300, 300, Number.bind(null, 120)());", "bare_primitive"),
    attack("reflect_apply_as_valueof", "hooks",
           "brush.circle(300, 300, { valueOf: Reflect.apply.bind(null, rect, null, [10, 10, 200, 200]) });",
           "brush.circle(300, 300, Reflect.apply.bind(null, Math.max, null, [60, 120])());",
           "bare_primitive"),

    # --- code outside setup() and draw(), before the capture ------------------------------
    attack("async_setup", "deferred", "await null;\n  " + RECT, "await null;", "bare_primitive",
           where="setup", async_setup=True),
    attack("promise_chain", "deferred", "Promise.resolve().then(() => 0).then(() => rect(10, 10, 200, 200));",
           "Promise.resolve().then(() => 0).then(() => 0);", "bare_primitive"),
    attack("promise_then_library", "deferred", "Promise.resolve(10).then(noFill);",
           "Promise.resolve(10).then(Math.abs);", "bare_primitive"),
    attack("animation_frame", "deferred",
           "await new Promise((done) => requestAnimationFrame(() => { rect(10, 10, 200, 200); done(); }));",
           "await new Promise((done) => requestAnimationFrame(() => done()));", "bare_primitive",
           where="setup", async_setup=True),
    attack("animation_frame_library", "deferred",
           "await new Promise((done) => { requestAnimationFrame(noFill); requestAnimationFrame(() => done()); });",
           "await new Promise((done) => { requestAnimationFrame(Math.abs); requestAnimationFrame(() => done()); });",
           "bare_primitive", where="setup", async_setup=True),
    attack("microtask", "deferred", "queueMicrotask(() => rect(10, 10, 200, 200));", "queueMicrotask(() => 0);",
           "bare_primitive"),
    attack("aliased_timer", "deferred", LATER + "later(() => rect(10, 10, 200, 200), 0);", LATER + "later(() => 0, 0);",
           "bare_primitive"),
    attack("timer_with_arguments", "deferred", LATER + "later(rect, 0, 10, 10, 200, 200);",
           LATER + "later(Math.max, 0, 10, 10, 200, 200);", "bare_primitive"),
    attack("event_listener", "deferred",
           'window.addEventListener("bw", () => rect(10, 10, 200, 200));\n  window.dispatchEvent(new Event("bw"));',
           'window.addEventListener("bw", () => 0);\n  window.dispatchEvent(new Event("bw"));', "bare_primitive"),
    attack("event_listener_library", "deferred",
           'window.addEventListener("bw", noFill);\n  window.dispatchEvent(new Event("bw"));',
           'window.addEventListener("bw", Math.abs);\n  window.dispatchEvent(new Event("bw"));', "bare_primitive"),

    # --- the harness's own state and the built-ins it relies on ---------------------------
    attack("flip_in_user_draw", "harness", "p5.instance._inUserDraw = false;\n  " + RECT, "", "bare_primitive"),
    attack("empty_the_evidence", "harness", RECT + "\n  " + EMPTY_EVIDENCE, EMPTY_EVIDENCE, "bare_primitive"),
    attack("replace_built_ins", "harness", TAMPER_GLOBALS + "\n  " + RECT, TAMPER_GLOBALS,
           "bare_primitive"),
    attack("iterator_hook", "harness",
           "const next = Array.prototype[Symbol.iterator];\n  Array.prototype[Symbol.iterator] = function () "
           "{ return next.call(this); };\n  brush.circle(450, 450, 40);\n  Array.prototype[Symbol.iterator] = next;",
           "brush.circle(450, 450, 40);", "harness_tampering"),
    attack("object_prototype_getter", "harness",
           'Object.defineProperty(Object.prototype, "weight", { get() { return 1; }, configurable: true });\n'
           "  brush.circle(450, 450, 40);\n  delete Object.prototype.weight;",
           "brush.circle(450, 450, 40);", "harness_tampering"),
    attack("colour_internals_getter", "hooks",
           'const c = color(232, 96, 122);\n  Object.defineProperty(c, "_color", { get() { rect(10, 10, 200, 200); '
           "return undefined; } });\n  brush.fill(c, 190);\n  brush.circle(450, 450, 40);",
           "brush.fill(color(232, 96, 122), 190);\n  brush.circle(450, 450, 40);", "bare_primitive"),
    attack("fake_stack_hooks", "harness", TAMPER_STACKS + "\n  " + RECT, TAMPER_STACKS, "bare_primitive"),
    attack("stack_hooks_then_hook", "harness",
           TAMPER_STACKS + "\n  brush.circle(300, 300, { valueOf() { rect(10, 10, 200, 200); return 120; } });",
           TAMPER_STACKS + "\n  brush.circle(300, 300, 120);", "bare_primitive"),

    # --- library objects in the sketch's hands --------------------------------------------
    attack("end_shape_plot_wash", "objects", SHAPE + "\n  brush.endShape(CLOSE).genPol(0, 0).wash();",
           SHAPE + "\n  brush.endShape(CLOSE);", "unlisted_call"),
    attack("circle_plot_fill", "objects", "const [plot] = brush.circle(300, 300, 60);\n  plot.fill();",
           "brush.circle(300, 300, 60);", "unlisted_call"),
    attack("new_polygon", "objects", "new brush.Polygon([[100, 100], [500, 100], [300, 500]]).fill();",
           SHAPE + "\n  brush.endShape(CLOSE);", "unlisted_call"),
    attack("translate_renderer_rect", "objects", "translate(0, 0).rect(10, 10, 200, 200);", "translate(0, 0);",
           "js_error"),
    attack("translate_pinst_text", "objects", 'translate(0, 0)._pInst.text("BUY", 10, 10);', "translate(0, 0);",
           "js_error"),
    attack("translate_gl_clear", "objects", "const gl = translate(0, 0).GL;\n  gl.clear(gl.COLOR_BUFFER_BIT);",
           "translate(0, 0);", "js_error"),
    attack("p5_instance_renderer", "objects", "p5.instance._renderer.GL.clear(16384);", "", ("raw_pixels",)),
    attack("colour_internals", "objects", "const c = color(255, 0, 0);\n  c.setRed(10);",
           "brush.fill(color(255, 0, 0), 190);\n  brush.circle(450, 450, 40);", "unlisted_call"),

    # --- offscreen painting and drawing contexts ------------------------------------------
    attack("graphics_text_image", "offscreen",
           'const pg = createGraphics(600, 600);\n  pg.text("BUY", 10, 10);\n  image(pg, 0, 0);\n  pg.remove();',
           "", ("text_on_canvas", "raw_pixels")),
    attack("graphics_rect", "offscreen", "const pg = createGraphics(100, 100);\n  pg.rect(0, 0, 50, 50);", "",
           ("bare_primitive", "raw_pixels")),
    attack("framebuffer", "offscreen",
           "const fb = createFramebuffer();\n  fb.begin();\n  fb.end();\n  image(fb, -300, -300);", "",
           ("unlisted_call", "raw_pixels")),
    attack("graphics_context_text", "offscreen",
           'const ctx = createGraphics(10, 10).drawingContext;\n  ctx.fillText("BUY", 1, 5);', "",
           ("text_on_canvas", "raw_pixels")),
    attack("detached_canvas_text", "offscreen",
           'const ctx = document.createElement("canvas").getContext("2d");\n  ctx.fillText("BUY", 1, 5);',
           'const scratch = document.createElement("canvas");', ("text_on_canvas", "raw_pixels")),
    attack("aliased_drawing_context", "offscreen",
           'const gl = window["drawing" + "Context"];\n  gl.clearColor(1, 0, 0, 1);\n  gl.clear(gl.COLOR_BUFFER_BIT);',
           "", "raw_pixels"),
    attack("canvas_element_context", "offscreen",
           'const gl = document.querySelector("canvas").getContext("webgl2");\n  gl.clear(gl.COLOR_BUFFER_BIT);',
           'const canvas = document.querySelector("canvas");', "raw_pixels"),

    # --- p5 functions outside the sketch language -----------------------------------------
    attack("unlisted_frame_rate", "language", "frameRate(30);", "", "unlisted_call"),
    attack("unlisted_create_vector", "language", "const v = createVector(1, 2);", "const v = [1, 2];",
           "unlisted_call"),
    attack("register_addon", "language", "p5.registerAddon(function () {});", "", "unlisted_call", where="top"),
    attack("event_hook", "language", "function windowResized() {}", "function resized() {}", "unlisted_call",
           where="top"),
    attack("custom_brush_tip_text", "objects",
           'brush.add("stamp", { type: "custom", weight: 10, tip: (surface) => surface.text("BUY", 0, 0) });', "",
           "text_on_canvas"),

    # --- the page: realms, shadow roots, the canvas ---------------------------------------
    attack("iframe_realm", "page",
           'const f = document.createElement("iframe");\n  document.body.appendChild(f);\n'
           "  const bind = f.contentWindow.Function.prototype.bind;\n"
           "  brush.circle(300, 300, { valueOf: bind.call(rect, null, 10, 10, 200, 200) });", "", "dom_tampering"),
    attack("shadow_root_iframe", "page",
           'document.body.attachShadow({ mode: "open" }).appendChild(document.createElement("iframe"));', "",
           "dom_tampering"),
    attack("window_open", "page", 'const w = window["op" + "en"]("about:blank");', "",
           ("navigation", "external_access")),
    attack("remove_canvas", "page", 'document.querySelector("canvas").remove();',
           'const canvas = document.querySelector("canvas");', "canvas_replaced"),
]


def _explain(result, report) -> str:
    lines = [f"status={result.status} {result.detail}".strip(), f"paint={result.paint_fraction}"]
    lines += [f"flag {f.id}: {f.detail}" for f in result.flags]
    lines += [f"error: {e.message}" for e in result.js_errors]
    lines += [f"blocked: {b.url} ({b.reason})" for b in result.blocked_requests]
    lines += [f"brush calls: {result.brush_calls}"]
    lines += [f"rule {v.id} [{v.severity}]: {v.message}" for v in report.violations]
    return "\n  ".join(lines)


def _judge(renderer, code: str):
    result = renderer.render(code, seed=0)
    return result, GATE._runtime(GateReport(()), result)


def _dark_pixels(png: bytes | None) -> int:
    if png is None:
        return 0
    rgb = np.asarray(image.to_rgb(png), dtype=np.float32)
    return int(((rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)) < 60).sum())


def test_the_table_is_wide():
    assert len(ATTACKS) >= 25
    assert len({a.name for a in ATTACKS}) == len(ATTACKS)
    assert {a.family for a in ATTACKS} >= {"hooks", "deferred", "harness", "objects", "offscreen", "language", "page"}


@pytest.mark.chromium
@pytest.mark.parametrize("case", ATTACKS, ids=str)
def test_attack_is_refused_or_harmless(renderer, case: Attack):
    result, report = _judge(renderer, case.code)
    why = _explain(result, report)
    assert result.status == "ok", f"{case.name}: the render itself failed\n  {why}"
    if report.passed:
        assert _dark_pixels(result.png) == 0, f"{case.name}: passed with a p5 mark on the canvas\n  {why}"
    else:
        assert set(case.expect) & set(report.ids) or {"js_error", "unsupported_argument"} & set(report.ids), \
            f"{case.name}: expected one of {case.expect}\n  {why}"


@pytest.mark.chromium
@pytest.mark.parametrize("case", ATTACKS, ids=str)
def test_twin_is_clean_at_run_time(renderer, case: Attack):
    result, report = _judge(renderer, case.twin)
    why = _explain(result, report)
    assert report.passed and report.violations == (), f"{case.name} twin\n  {why}"
    assert result.flags == () and result.js_errors == (), f"{case.name} twin\n  {why}"


@pytest.mark.chromium
def test_brush_calls_are_counted_by_the_replay(renderer):
    code = page("for (let i = 0; i < 3; i++) brush.circle(100 + 150 * i, 450, 30);\n  " + SHAPE
                + "\n  brush.endShape(CLOSE);")
    result, report = _judge(renderer, code)
    assert report.passed, _explain(result, report)
    assert result.brush_calls == {"noStroke": 1, "fillBleed": 1, "fillTexture": 1, "fill": 1, "circle": 4,
                                  "beginShape": 1, "vertex": 3, "endShape": 1}, result.brush_calls
    assert result.paint_calls == 5


@pytest.mark.chromium
def test_the_sketch_realm_holds_nothing_of_the_paint_realm(renderer):
    probe = ('for (const name of ["__bwSend", "__bwParams", "__bwResult"]) {\n'
             '    if (name in window) throw new Error(name + " is reachable");\n  }\n'
             '  let reached = "";\n  try { reached = String(window.top.document.title); } catch (e) { }\n'
             '  if (reached) throw new Error("the paint realm is reachable");')
    result, report = _judge(renderer, page(probe))
    assert report.passed, _explain(result, report)


def test_evidence_becomes_flags_errors_and_calls():
    events = {
        "flags": [["unlisted_call", "loadImage()"], ["bare_primitive"], "junk"],
        "errors": [["Uncaught boom", 3], ["no line", None]],
        "blocked": [["http://127.0.0.1:9/x", "connect-src"]],
        "calls": {"circle": 2, "fill": True, 3: 1, "vertex": 0},
    }
    ev = read_evidence(events, PageEvents(frames=["frame about:blank inside the sketch's frame"],
                                          navigations=["chrome-error://chromewebdata/"]))
    assert [f.id for f in ev.flags] == ["unlisted_call", "dom_tampering", "navigation"]
    assert [(e.message, e.line) for e in ev.errors] == [("Uncaught boom", 3), ("no line", None)]
    assert ev.blocked[0].reason == "connect-src" and ev.brush_calls == {"circle": 2}
    assert read_evidence({}, PageEvents()) == read_evidence({"flags": "nonsense"}, PageEvents())


# --- what differs from one render to the next: fixed in the sketch realm --------------------
# Each probe reads something a painting could depend on besides its seed; its circle's place is
# that value. Same sketch + seed, same painting: the clock starts at the same instant and steps
# the same way every render, crypto is seeded, history.length is 1 in the fresh page of each job.
PROBES = {
    "Date.now()": "Date.now()",
    "new Date()": "new Date().getTime()",
    "Date()": "Date().length + new Date().getMilliseconds()",
    "performance.now()": "performance.now() * 1000",
    "performance.timeOrigin": "performance.timeOrigin",
    "event time stamp": 'new Event("x").timeStamp * 1000',
    "animation frame": "stamp * 1000",
    "crypto.getRandomValues": "crypto.getRandomValues(new Uint32Array(1))[0]",
    "crypto.randomUUID": "parseInt(crypto.randomUUID().slice(0, 8), 16)",
    "history.length": 'window["hist" + "ory"].length * 977',
    "millis()": "millis() * 1000",
    "Intl": 'parseInt(new Intl.DateTimeFormat("en-US", { second: "numeric" }).format(), 10) * 7',
    "File": 'new File([], "f").lastModified',
    "document.lastModified": "Date.parse(document.lastModified) / 1000",
}
TIME_PROBE = page("\n  ".join(f"brush.circle(50 + Math.abs({v}) % 500, {60 + 40 * i}, 12);  // {k}"
                              for i, (k, v) in enumerate(PROBES.items())),
                  setup="stamp = await new Promise((done) => requestAnimationFrame(done));", async_setup=True,
                  top="let stamp = 0;")
# Sketches that would change what the probe reads, were anything kept between jobs.
BETWEEN = [
    page('try { location.hash = "again"; history.pushState({}, "", "#more"); } catch (e) { }'),
    page("const until = Date.now() + 300;\n  while (Date.now() < until) { }\n  brush.circle(300, 300, 40);"),
    page("brush.circle(300, 300, 40);"),
]


@pytest.fixture(scope="module")
def one_worker(private_cache):
    from brushwork.render import RenderConfig, SyncRenderer

    with SyncRenderer(RenderConfig(workers=1, cache_dir=None)) as r:
        yield r


@pytest.mark.chromium
def test_a_painting_cannot_read_time_crypto_or_history(one_worker):
    first = one_worker.render(TIME_PROBE, seed=0)
    assert first.status == "ok" and first.flags == () and first.js_errors == (), _explain(first, GateReport(()))
    for code in BETWEEN:
        assert one_worker.render(code, seed=0).status == "ok"
    again = one_worker.render(TIME_PROBE, seed=0)
    assert again.display_list == first.display_list
    assert again.png == first.png
    # the clock is the fixed one (2024-01-01, a few steps in), and every probe painted its circle
    draw = json.loads(first.display_list)["draw"]
    circles = {op[2]: op[1] for op in draw if op[0] == "brush.circle" and op[3] == 12}
    assert len(circles) == len(PROBES), circles
    assert circles[60] < 50 + 100 and circles[60 + 40 * list(PROBES).index("history.length")] == 50 + 977 % 500


@pytest.mark.chromium
def test_a_busy_wait_on_the_fixed_clock_ends(one_worker):
    """The clock steps at every reading, so a loop that waits for time to pass still ends."""
    result = one_worker.render(BETWEEN[1], seed=0)
    assert result.status == "ok" and result.flags == () and result.js_errors == ()


@pytest.mark.chromium
def test_random_and_millis_are_legal_and_repeat(one_worker):
    """The legal twin: p5's random() and millis() pass, and paint the same twice."""
    code = page("for (let i = 0; i < 5; i++) brush.circle(random(100, 500), random(100, 500), 10 + millis() % 20);")
    first, again = one_worker.render(code, seed=4), one_worker.render(code, seed=4)
    report = GATE._runtime(GateReport(()), first)
    assert report.passed and first.flags == () and first.js_errors == (), _explain(first, report)
    assert first.png == again.png and first.display_list == again.display_list
