"""Hostile replies the gate must reject, each with the rule it must report.

Every `Case` is one model reply that breaks exactly the policy named by `rule` (it may
break others too: the test only asks that `rule` is among the reported ids). `twin` is
the closest legal reply — same sketch, the offending line replaced by an honest one —
and must pass the gate. Static cases are judged from the syntax tree alone; `runtime`
cases are rendered for real first (their twins too), because only the page can tell.

Most replies are built from one small, fast painting (`sketch()` / `reply()`), with the
offending code spliced into `setup()`, `draw()` or the top level.
"""

from __future__ import annotations

from dataclasses import dataclass

CANVAS = "createCanvas(600, 600, WEBGL);"

# One wash is enough for a painting to pass (one circle of radius 120: ~0.5 s to render).
PAINT = """brush.noStroke();
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.5);
  brush.fill("#e8607a", 190);
  brush.circle(300, 300, 120);"""


@dataclass(frozen=True)
class Case:
    name: str
    rule: str
    reply: str
    twin: str | None = None
    runtime: bool = False

    def __str__(self) -> str:  # readable pytest ids
        return self.name


def sketch(draw: str = "", *, setup: str = "", top: str = "", canvas: str = CANVAS, paint: str = PAINT,
           background: str = 'background("#f7f2e9");') -> str:
    """A complete small sketch, with `draw` appended after the base painting."""
    parts = []
    if top:
        parts.append(top.strip("\n") + "\n")
    setup_lines = [canvas] + ([setup] if setup else []) + ["noLoop();"]
    parts.append("function setup() {\n  " + "\n  ".join(setup_lines) + "\n}\n")
    draw_lines = ["translate(-width / 2, -height / 2);"] + ([background] if background else []) \
        + ([paint] if paint else []) + ([draw] if draw else [])
    parts.append("function draw() {\n  " + "\n  ".join(draw_lines) + "\n}\n")
    return "\n".join(parts)


def reply(code: str, before: str = "Here is the painting:", after: str = "") -> str:
    """A model reply: prose, a ```js fence with `code`, optional prose after."""
    text = f"{before}\n\n```js\n{code}```\n"
    return text + (f"\n{after}\n" if after else "")


def pair(name: str, rule: str, bad: str, good: str | None = None, *, where: str = "draw",
         runtime: bool = False, **kw) -> Case:
    """A case whose reply and twin differ only in one spliced snippet."""
    def build(snippet: str) -> str:
        return reply(sketch(**{where: snippet}, **kw))
    return Case(name, rule, build(bad), build(good) if good is not None else None, runtime)


HONEST = reply(sketch())

# Cases written for rules the sketch realm made moot (computed access, aliases, `this`, rewriting
# the libraries or the seeds): they run in the sketch's own realm, so they are harmless, and
# tests/test_gate_cases.py renders each to show nothing of them reaches the canvas.
HARMLESS_NOW = "harmless"

# --- a full, longer painting used by the truncation cases -------------------------------
_FULL = '''function setup() {
  createCanvas(600, 600, WEBGL);
  randomSeed(3);
  noLoop();
}

function petal(cx, cy, angle, len) {
  brush.beginShape(0.7);
  brush.vertex(cx, cy);
  for (let k = -3; k <= 3; k++) {
    const t = angle + k * 0.17;
    brush.vertex(cx + len * cos(t), cy + len * sin(t));
  }
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fbf6ee");
  brush.noStroke();
  brush.fillBleed(0.3);
  brush.fillTexture(0.5, 0.6);
  for (let i = 0; i < 5; i++) {
    brush.fill("#f7b08a", 190);
    petal(300, 300, i * TWO_PI / 5, 170);
  }
  brush.fill("#b8284a", 200);
  brush.circle(300, 300, 18);
}
'''
_FULL_REPLY = reply(_FULL, "A peach hibiscus in loose watercolour:", "Enjoy!")
_TRUNCATED = "A peach hibiscus in loose watercolour:\n\n```js\n" + _FULL[:_FULL.index("brush.fill(\"#f7b08a\"") + 16]


# ======================================================================================
# Static cases: judged from the syntax tree alone.
# ======================================================================================

STATIC: list[Case] = [
    # --- no_sketch ---------------------------------------------------------------------
    Case("prose_only", "no_sketch",
         "I would paint a peach hibiscus with five soft, overlapping petals, a deep coral throat\n"
         "and a few loose green leaves, letting the washes bleed into each other.\n"
         "Let me know if you want the code!", HONEST),
    Case("empty_reply", "no_sketch", "", HONEST),
    Case("whitespace_reply", "no_sketch", "   \n\n\t  \n", HONEST),
    Case("refusal", "no_sketch", "I'm sorry, but I can't paint that for you.", HONEST),

    # --- syntax_error ------------------------------------------------------------------
    Case("truncated_unclosed_fence", "syntax_error", _TRUNCATED, _FULL_REPLY),
    Case("missing_closing_brace", "syntax_error", reply(sketch().rstrip()[:-1]), HONEST),
    pair("missing_paren", "syntax_error", "brush.circle(150, 150, 40;", "brush.circle(150, 150, 40);"),
    Case("truncated_mid_string", "syntax_error",
         "```js\n" + _FULL[:_FULL.index("#b8284a") + 3] + "\n```\n", _FULL_REPLY),
    Case("python_instead_of_js", "syntax_error",
         "```python\ndef setup():\n    createCanvas(600, 600, WEBGL)\n\ndef draw():\n"
         "    brush.circle(300, 300, 120)\n```\n", HONEST),

    # --- missing_setup -----------------------------------------------------------------
    Case("draw_only", "missing_setup",
         reply("function draw() {\n  createCanvas(600, 600, WEBGL);\n  translate(-width / 2, -height / 2);\n"
               "  " + PAINT + "\n  noLoop();\n}\n"), HONEST),
    Case("setup_misspelled", "missing_setup", reply(sketch().replace("function setup()", "function setUp()")),
         HONEST),
    Case("setup_renamed_start", "missing_setup", reply(sketch().replace("function setup()", "function start()")),
         HONEST),

    # --- not_webgl ---------------------------------------------------------------------
    Case("canvas_2d_default", "not_webgl", reply(sketch(canvas="createCanvas(600, 600);")), HONEST),
    Case("canvas_p2d", "not_webgl", reply(sketch(canvas="createCanvas(600, 600, P2D);")), HONEST),
    Case("no_create_canvas", "not_webgl", reply(sketch(canvas="// the default canvas will do")), HONEST),

    # --- canvas_size -------------------------------------------------------------------
    Case("canvas_800", "canvas_size", reply(sketch(canvas="createCanvas(800, 800, WEBGL);")), HONEST),
    Case("canvas_600x400", "canvas_size", reply(sketch(canvas="createCanvas(600, 400, WEBGL);")), HONEST),
    Case("canvas_size_via_constant", "canvas_size",
         reply(sketch(canvas="createCanvas(S, S, WEBGL);", top="const S = 800;")),
         reply(sketch(canvas="createCanvas(S, S, WEBGL);", top="const S = 600;"))),
    Case("canvas_window_size", "canvas_size",
         reply(sketch(canvas="createCanvas(windowWidth, windowHeight, WEBGL);")), HONEST),

    # --- external_access ---------------------------------------------------------------
    pair("fetch", "external_access",
         'fetch("https://example.com/palette.json").then((r) => r.json());',
         '// fetch is not allowed, so the palette is written inline\n  const note = "fetch the colours";'),
    pair("xmlhttprequest", "external_access",
         'const req = new XMLHttpRequest();\n  req.open("GET", "https://example.com/p.png");\n  req.send();',
         'const req = { open: false, label: "XMLHttpRequest is blocked" };'),
    pair("websocket", "external_access", 'const ws = new WebSocket("ws://127.0.0.1:9000");',
         'const ws = "WebSocket";'),
    Case("load_image_preload", "external_access",
         reply(sketch(top='let img;\nfunction preload() {\n  img = loadImage("https://example.com/hibiscus.png");\n}')),
         reply(sketch("brush.circle(150, 450, imageSize / 10);", top="const imageSize = 400;"))),
    pair("load_json", "external_access", 'loadJSON("palette.json", (p) => brush.fill(p[0], 150));',
         'const loadingBar = [0.2, 0.5];\n  brush.fillBleed(loadingBar[0]);'),
    pair("dynamic_import", "external_access", 'import("http://example.com/evil.js");',
         '// no import() needed: p5.brush is already loaded'),
    Case("static_import", "external_access",
         reply(sketch(top='import { palette } from "https://example.com/palette.js";')), HONEST),
    pair("eval", "external_access", 'eval("brush.circle(150, 150, 40)");', "brush.circle(150, 150, 40);"),
    pair("new_function", "external_access", 'new Function("return fetch")()("https://example.com");',
         "const fn = (x) => x * 2;\n  brush.circle(150, 150, fn(20));"),
    pair("string_timer", "external_access", 'setTimeout("brush.circle(100, 100, 40)", 0);',
         "brush.circle(100, 100, 40);"),
    pair("inner_html", "external_access", "document.body.innerHTML = \"<img src='https://example.com/p.png'>\";",
         'const innerLabel = "<img>";'),
    pair("create_div", "external_access", 'createDiv("Peach hibiscus");', '// createDiv() would add a caption'),
    pair("create_element", "external_access", 'createElement("h1", "Hibiscus");', None),
    pair("window_open", HARMLESS_NOW, 'window.open("https://example.com");', None),
    pair("location_assign", "external_access", 'location.href = "https://example.com/?done=" + frameCount;',
         'const here = { href: "#", frame: frameCount };'),
    pair("worker", "external_access", 'const w = new Worker("data:text/javascript,postMessage(1)");',
         'const w = { worker: "data:text/javascript" };'),
    pair("send_beacon", "external_access", 'navigator.sendBeacon("https://example.com", "painted");', None),
    Case("require_module", "external_access", reply(sketch(top='const fs = require("fs");')), HONEST),

    # U+2028 ends a // comment for the browser: the call after it is live code.
    pair("call_hidden_after_u2028", "external_access", '// palette notes\u2028fetch("https://example.com");',
         "// palette notes\n  brush.circle(150, 150, 40);"),
    pair("fetch_in_template", "external_access", 'const s = `${fetch("https://example.com")}`;',
         'const s = `${"fetch"} the colours`;'),
    pair("eval_optional_call", "external_access", 'eval?.("1 + 1");', None),
    pair("class_extends_function", "external_access", 'new (class extends Function {})("return 1")();',
         "class Wash {}\n  new Wash();"),

    # --- text_on_canvas ----------------------------------------------------------------
    pair("text", "text_on_canvas", 'textSize(32);\n  text("Hibiscus", 40, 560);',
         "// no text() here: the title goes in the reply, not on the canvas"),
    pair("text_only", "text_on_canvas", 'text("a watercolour", 20, 20);',
         'const textureAmount = 0.6;\n  brush.fillTexture(textureAmount, 0.4);'),
    pair("text_font", "text_on_canvas", 'textFont("Georgia");', 'const font = "Georgia"; // unused'),
    pair("text_align", "text_on_canvas", "textAlign(CENTER, CENTER);", None),
    pair("fill_text_2d", "text_on_canvas",
         'const ctx = document.createElement("canvas").getContext("2d");\n  ctx.fillText("hi", 10, 10);',
         'const label = { text: "hi" };'),

    # --- raw_pixels --------------------------------------------------------------------
    pair("pixels", "raw_pixels",
         "loadPixels();\n  for (let i = 0; i < pixels.length; i += 4) pixels[i] = 255;\n  updatePixels();",
         "const pixelsPerPetal = 30;\n  brush.circle(150, 150, pixelsPerPetal);"),
    pair("drawing_context", "raw_pixels", "drawingContext.clearColor(1, 0, 0, 1);", None),
    pair("get_pixel", "raw_pixels", "const c = get(300, 300);",
         'const shades = new Map();\n  shades.set("petal", "#f7b08a");\n  brush.fill(shades.get("petal"), 150);\n'
         "  brush.circle(150, 450, 40);"),
    pair("set_pixel", "raw_pixels", "set(10, 10, color(255, 0, 0));", None),
    pair("filter_blur", "raw_pixels", "filter(BLUR, 3);", "// no filter(): the bleed does the blurring"),
    pair("shader", "raw_pixels",
         'const s = createShader("attribute vec3 p; void main(){gl_Position=vec4(p,1.);}",\n'
         '    "void main(){gl_FragColor=vec4(1.,0.,0.,1.);}");\n  shader(s);', None),
    pair("create_graphics_image", "raw_pixels",
         "const g = createGraphics(600, 600);\n  image(g, 0, 0);",
         "const imageSize = 400;\n  brush.circle(150, 150, imageSize / 10);"),
    pair("read_pixels", "raw_pixels",
         "const buf = new Uint8Array(4);\n  const gl = this._renderer.GL;\n"
         "  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, buf);", None),

    pair("save_canvas", "raw_pixels", 'saveCanvas("hibiscus");', None),

    # --- bare_primitive ----------------------------------------------------------------
    pair("rect", "bare_primitive", 'fill("#e8607a");\n  rect(100, 100, 400, 400);',
         "const rectWidth = 400;\n  brush.beginShape(0);\n  brush.vertex(100, 100);\n"
         "  brush.vertex(100 + rectWidth, 100);\n  brush.vertex(100 + rectWidth, 500);\n"
         "  brush.vertex(100, 500);\n  brush.endShape(CLOSE);"),
    pair("ellipse", "bare_primitive", "ellipse(300, 300, 200, 160);", "brush.circle(300, 300, 90);"),
    pair("circle", "bare_primitive", "circle(300, 300, 200);", "brush.circle(300, 300, 100);"),
    pair("line_stroke", "bare_primitive", "stroke(20);\n  strokeWeight(4);\n  line(0, 0, 600, 600);",
         "// strokes need brush.set(), which is not allowed: no line() either"),
    pair("bare_shape", "bare_primitive",
         "beginShape();\n  vertex(100, 500);\n  vertex(300, 100);\n  vertex(500, 500);\n  endShape(CLOSE);",
         "brush.beginShape(0.2);\n  brush.vertex(100, 500);\n  brush.vertex(300, 100);\n"
         "  brush.vertex(500, 500);\n  brush.endShape(CLOSE);"),
    pair("triangle", "bare_primitive", "triangle(100, 500, 300, 100, 500, 500);", None),
    pair("bare_fill", "bare_primitive", "fill(255, 0, 0);", 'brush.fill(255, 0, 0, 150);'),
    pair("bare_no_stroke", "bare_primitive", "noStroke();", "brush.noStroke();"),
    pair("point", "bare_primitive", "point(300, 300);", None),
    pair("sphere", "bare_primitive", "sphere(100);", None),
    pair("helper_method_named_circle", "bare_primitive", "circle(150, 150, 40);",
         "const blob = { circle(x, y, r) { brush.circle(x, y, r); } };\n  blob.circle(150, 150, 40);"),

    pair("blend_mode", "bare_primitive", "blendMode(MULTIPLY);", None),
    pair("resize_canvas", "bare_primitive", "resizeCanvas(800, 800);", None),

    # --- disallowed_brush_method -------------------------------------------------------
    pair("brush_set_line", "disallowed_brush_method",
         'brush.set("2B", "#222222", 1);\n  brush.line(100, 500, 500, 100);', 'brush.fill("#222222", 120);'),
    pair("brush_line", "disallowed_brush_method", "brush.line(50, 550, 550, 50);", None),
    pair("brush_rect", "disallowed_brush_method", "brush.rect(100, 100, 200, 200);",
         "brush.beginShape(0);\n  brush.vertex(100, 100);\n  brush.vertex(300, 100);\n  brush.vertex(300, 300);\n"
         "  brush.vertex(100, 300);\n  brush.endShape(CLOSE);"),
    pair("brush_hatch", "disallowed_brush_method", "brush.hatch(5, 45);", "brush.fillTexture(0.8, 0.5);"),
    pair("brush_wash", "disallowed_brush_method", 'brush.wash("#f4a582", 120);', 'brush.fill("#f4a582", 120);'),
    pair("brush_flow_line", "disallowed_brush_method", "brush.flowLine(100, 100, 300, 0);", None),
    pair("brush_stroke", "disallowed_brush_method", 'brush.stroke("#222222");\n  brush.strokeWeight(2);',
         "brush.noStroke();"),
    pair("brush_polygon", "disallowed_brush_method", "brush.polygon([[0, 0], [100, 0], [50, 80]]);", None),
    pair("brush_field", "disallowed_brush_method", 'brush.field("seabed");', None),

    pair("brush_optional_chain_rect", "disallowed_brush_method", "brush?.rect(100, 100, 200, 200);", None),
    pair("brush_sequence_call", "disallowed_brush_method", "(0, brush.rect)(100, 100, 200, 200);", None),
    pair("brush_method_reference", "disallowed_brush_method", "const r = brush.rect;\n  r(100, 100, 200, 200);",
         "const r = 100;\n  brush.circle(r, r, 30);"),
    pair("brush_seed", "disallowed_brush_method", "brush.seed(3);", "randomSeed(3);"),

    # --- unknown_brush_method ----------------------------------------------------------
    pair("brush_watercolor", "unknown_brush_method", "brush.watercolor(300, 300, 120);",
         "brush.circle(300, 300, 120);"),
    pair("brush_paint", "unknown_brush_method", 'brush.paint("#e8607a");', 'brush.fill("#e8607a", 150);'),
    pair("brush_fill_color", "unknown_brush_method", 'brush.fillColor("#e8607a", 190);',
         'brush.fill("#e8607a", 190);'),
    pair("brush_splash", "unknown_brush_method", "brush.splash(300, 300);", None),
    pair("brush_capital_circle", "unknown_brush_method", "brush.Circle(300, 300, 120);", None),

    # --- computed_access ---------------------------------------------------------------
    pair("bracket_literal", HARMLESS_NOW, 'brush["fill"]("#e8607a", 190);',
         'const sizes = { big: 60 };\n  brush.fill("#e8607a", 190);\n  brush.circle(150, 150, sizes["big"]);'),
    pair("bracket_concat", HARMLESS_NOW, 'brush["fi" + "ll"]("#e8607a", 190);',
         'const palette = ["#e8607a", "#f4a582"];\n  brush.fill(palette[0 + 1], 190);'),
    pair("bracket_concat_rect", HARMLESS_NOW, 'brush["re" + "ct"](100, 100, 200, 200);', None),
    pair("bracket_template", HARMLESS_NOW, 'brush[`re${"ct"}`](100, 100, 200, 200);', None),
    pair("alias_const", HARMLESS_NOW, "const b = brush;\n  b.rect(100, 100, 200, 200);",
         "const b = 120;\n  brush.circle(300, 300, b);"),
    pair("alias_destructure", HARMLESS_NOW, "const { rect: r } = brush;\n  r(100, 100, 200, 200);", None),
    pair("brush_as_argument", HARMLESS_NOW,
         "const paintWith = (tool) => tool.line(0, 0, 600, 600);\n  paintWith(brush);", None),
    pair("object_values_brush", HARMLESS_NOW, "Object.values(brush)[5](100, 100, 200, 200);", None),
    pair("global_this_concat", HARMLESS_NOW, 'globalThis["fe" + "tch"]("https://example.com");', None),
    pair("window_bracket", HARMLESS_NOW, 'window["fetch"]("https://example.com");', None),
    pair("self_member", HARMLESS_NOW, 'self["eval"]("1 + 1");', None),
    pair("function_constructor", HARMLESS_NOW, '(function () {}).constructor("return fetch")();', None),
    pair("array_constructor_chain", HARMLESS_NOW, '[].constructor.constructor("return this")();', None),
    pair("with_window", HARMLESS_NOW, 'with (window) { fetch("https://example.com"); }', None),
    pair("reflect_get", HARMLESS_NOW, 'Reflect.get(brush, "rect")(100, 100, 200, 200);', None),
    pair("proxy", HARMLESS_NOW, "const p = new Proxy({}, { get: () => 1 });", None),
    pair("from_char_code", HARMLESS_NOW, "const n = String.fromCharCode(102, 101, 116, 99, 104);",
         'const n = String(42).padStart(4, "0");'),
    pair("atob", HARMLESS_NOW, 'const n = atob("ZmV0Y2g=");', None),
    pair("unicode_escape_fetch", HARMLESS_NOW, '\\u0066etch("https://example.com");', None),
    pair("unicode_escape_eval", HARMLESS_NOW, '\\u0065val("1 + 1");', None),
    pair("this_outside_class", HARMLESS_NOW, "this.rect(100, 100, 200, 200);", None),
    Case("this_at_top_level", HARMLESS_NOW, reply(sketch(top="const g = this;")),
         reply(sketch("new Bloom(150, 150).paint();",
                      top="class Bloom {\n  constructor(x, y) {\n    this.x = x;\n    this.y = y;\n  }\n"
                          "  paint() {\n    brush.circle(this.x, this.y, 40);\n  }\n}"))),

    pair("string_raw", HARMLESS_NOW, "const n = String.raw`fe${\"\"}tch`;", None),

    # --- harness_tampering -------------------------------------------------------------
    pair("assign_brush_fill", HARMLESS_NOW, "brush.fill = function () {};",
         'const tools = { fill: "#e8607a" };\n  tools.fill = "#f4a582";\n  brush.fill(tools.fill, 150);'),
    pair("math_random", HARMLESS_NOW, "Math.random = () => 0.5;",
         "const r = Math.random();\n  brush.circle(150, 150, 20 + r * 20);"),
    pair("math_floor", HARMLESS_NOW, "Math.floor = (x) => x;", "const f = Math.floor(2.5);"),
    Case("redefine_random_seed", HARMLESS_NOW, reply(sketch(top="function randomSeed() {}")),
         reply(sketch(setup="randomSeed(7);"))),
    Case("assign_create_canvas", HARMLESS_NOW,
         reply(sketch(top="createCanvas = function () { return null; };")), HONEST),
    pair("canvas_prototype", HARMLESS_NOW,
         'HTMLCanvasElement.prototype.toDataURL = function () { return "data:image/png;base64,AAAA"; };', None),
    pair("context_prototype", HARMLESS_NOW,
         "CanvasRenderingContext2D.prototype.fillRect = function () {};", None),
    pair("bw_events", HARMLESS_NOW, "__bwEvents.paintCalls = 100;",
         "let bwCalls = 100; // our own counter"),
    Case("shadow_brush", HARMLESS_NOW, reply(sketch(top="let brush = { circle() {} };")), HONEST),
    pair("p5_prototype", HARMLESS_NOW, "p5.prototype.background = function () {};", None),
    pair("define_property_math", HARMLESS_NOW,
         'Object.defineProperty(Math, "random", { value: () => 0.5 });', None),

    pair("math_bracket_assign", HARMLESS_NOW, 'Math["random"] = () => 0.5;', None),
    pair("object_assign_math", HARMLESS_NOW, "Object.assign(Math, { random: () => 0.5 });",
         "const opts = Object.assign({}, { bleed: 0.3 });\n  brush.fillBleed(opts.bleed);"),
    pair("delete_brush_fill", HARMLESS_NOW, "delete brush.fill;", None),

    # --- no_painting -------------------------------------------------------------------
    Case("state_only", "no_painting",
         reply(sketch(paint='brush.noStroke();\n  brush.fill("#e8607a", 190);\n  brush.fillBleed(0.3);')), HONEST),
    Case("background_only", "no_painting", reply(sketch(paint="")), HONEST),
    Case("shape_never_ended", "no_painting",
         reply(sketch(paint='brush.noStroke();\n  brush.fill("#e8607a", 190);\n  brush.beginShape(0.5);\n'
                            "  brush.vertex(100, 100);\n  brush.vertex(500, 100);\n  brush.vertex(300, 500);")),
         reply(sketch(paint='brush.noStroke();\n  brush.fill("#e8607a", 190);\n  brush.beginShape(0.5);\n'
                            "  brush.vertex(100, 100);\n  brush.vertex(500, 100);\n  brush.vertex(300, 500);\n"
                            "  brush.endShape(CLOSE);"))),

    # --- too_long ----------------------------------------------------------------------
    Case("padded_data", "too_long",
         reply(sketch(top="const noiseTable = [" + ", ".join(f"{(i * 7919 % 1000) / 1000:.3f}" for i in range(3600))
                      + "];")),
         reply(sketch(top="const noiseTable = [" + ", ".join(f"{(i * 7919 % 1000) / 1000:.3f}" for i in range(1200))
                      + "];"))),
    Case("repeated_calls", "too_long",
         reply(sketch("\n  ".join(f"brush.circle({40 + i % 520}, {40 + (i * 37) % 520}, 3);" for i in range(1000)))),
         reply(sketch("\n  ".join(f"brush.circle({40 + i % 520}, {40 + (i * 37) % 520}, 3);" for i in range(30))))),

    # --- deferred_code -----------------------------------------------------------------
    pair("set_timeout_fn", "deferred_code", "setTimeout(() => brush.circle(100, 100, 40), 100);",
         "brush.circle(100, 100, 40);"),
    pair("set_interval", "deferred_code",
         "setInterval(function () {\n    brush.circle(random(600), random(600), 20);\n  }, 50);",
         "for (let i = 0; i < 3; i++) {\n    brush.circle(random(600), random(600), 20);\n  }"),
    pair("request_animation_frame", "deferred_code", "requestAnimationFrame(() => brush.circle(100, 100, 40));",
         "brush.circle(100, 100, 40);"),
    Case("set_timeout_named_fn", "deferred_code",
         reply(sketch("setTimeout(later, 0);", top="function later() {\n  brush.circle(450, 450, 50);\n}")),
         reply(sketch("later();", top="function later() {\n  brush.circle(450, 450, 50);\n}"))),
]


# ======================================================================================
# Event handlers: p5 calls them on input and window events, which a headless render never has,
# so what a handler holds is a note, not a cheat (the twins pass). Each attack runs the same body
# from setup (by name, by a string, through a variable, as a callback, by a synthetic event):
# then it counts as anywhere else.
# ======================================================================================

_SAVE = 'function keyPressed() {\n  if (key === "s") saveCanvas("painting", "png");\n}'
_RESIZE = "function windowResized() {\n  resizeCanvas(windowWidth, windowHeight);\n}"
_DRAW = "function mousePressed() {\n  ellipse(mouseX, mouseY, 20);\n}"


def handler(name: str, rule: str, body: str, call: str, runtime: bool = False) -> Case:
    """The handler `body` called by `call` in setup; its twin never calls it."""
    return Case(name, rule, reply(sketch(top=body, setup=call)), reply(sketch(top=body)), runtime)


STATIC += [
    handler("handler_called_by_name", "raw_pixels", _SAVE, "keyPressed();"),
    handler("handler_called_by_string", "raw_pixels", _SAVE, 'this["keyPressed"]();'),
    handler("handler_called_by_pieces", "raw_pixels", _SAVE, 'this["key" + "Pressed"]();'),
    handler("handler_called_by_char_codes", "raw_pixels", _SAVE,
            "globalThis[String.fromCharCode(107, 101, 121, 80, 114, 101, 115, 115, 101, 100)]();"),
    handler("handler_through_a_variable", "raw_pixels", _SAVE, "const press = keyPressed;\n  press();"),
    handler("handler_as_a_property", "raw_pixels", _SAVE, "window.keyPressed();"),
    handler("handler_as_a_callback", "bare_primitive", _DRAW, "[1, 2].forEach(mousePressed);"),
    handler("resize_handler_called", "bare_primitive", _RESIZE, "windowResized();"),
    handler("resize_event_dispatched", "bare_primitive", _RESIZE, 'window.dispatchEvent(new Event("resize"));'),
    handler("save_handler_recursive", "external_access", 'function keyTyped() {\n  save("painting.png");\n}',
            "keyTyped();"),
    # Not a handler p5 calls (a misspelling, or declared inside setup): an ordinary function.
    Case("misspelt_handler", "raw_pixels", reply(sketch(top=_SAVE.replace("keyPressed", "keyPresed"),
                                                        setup="keyPresed();")), reply(sketch(top=_SAVE))),
    Case("nested_handler", "raw_pixels", reply(sketch(setup=_SAVE.replace("\n", "\n  ") + "\n  keyPressed();")),
         reply(sketch(top=_SAVE))),
    # What hides code from the parser counts everywhere, handlers included.
    Case("html_comment_in_handler", "html_comment",
         reply(sketch(top="function keyPressed() {\n  let x = 1;\n  x <!-- 0;\n}")),
         reply(sketch(top="function keyPressed() {\n  let x = 1;\n  x < !0;\n}"))),
    Case("html_close_comment_in_handler", "html_comment",
         reply(sketch(top="function mouseMoved() {\n  let x = 3;\n  while (x --> 0) {}\n}")),
         reply(sketch(top="function mouseMoved() {\n  let x = 3;\n  while (x-- > 0) {}\n}"))),
    # A lone surrogate (JSON's "\ud800" decoded) is not text a page can hold, and a NUL stops the
    # parser; their escapes are ordinary strings.
    pair("lone_surrogate", "syntax_error", 'const mark = "\ud800";', 'const mark = "\\ud800";'),
    pair("nul_character", "syntax_error", 'const mark = "\x00";', 'const mark = "\\u0000";'),
    # The whole reply past 4 x max_chars is too long before anything is parsed.
    Case("sixty_four_thousand_fences", "too_long", "```\n" * 64_000, HONEST),
    Case("fences_around_a_sketch", "too_long", "```\n" * 30_000 + HONEST, HONEST),
]


# ======================================================================================
# Run-time cases: the reply must be rendered; only what the page did reveals the problem.
# ======================================================================================

_OFF_CANVAS = 'brush.noStroke();\n  brush.fill("#e8607a", 190);\n  brush.circle(-400, -400, 60);'
_ON_CANVAS = 'brush.noStroke();\n  brush.fill("#e8607a", 190);\n  brush.circle(150, 150, 60);'

RUNTIME: list[Case] = [
    pair("vertex_outside_shape", "js_error", "brush.vertex(10, 10);",
         "brush.beginShape(0.5);\n  brush.vertex(10, 10);\n  brush.vertex(120, 40);\n  brush.vertex(60, 120);\n"
         "  brush.endShape(CLOSE);", runtime=True),
    Case("undefined_helper", "js_error", reply(sketch("paintPetals(5);")),
         reply(sketch("paintPetals(5);", top="function paintPetals(n) {\n  for (let i = 0; i < n; i++) "
                                             "brush.circle(100 + i * 90, 520, 25);\n}")), runtime=True),
    Case("off_canvas", "blank_canvas", reply(sketch(paint=_OFF_CANVAS)), reply(sketch(paint=_ON_CANVAS)),
         runtime=True),
    Case("no_fill_no_stroke", "blank_canvas",
         reply(sketch(paint="brush.noStroke();\n  brush.noFill();\n  brush.circle(300, 300, 120);")),
         HONEST, runtime=True),
    Case("background_after_paint", "painted_then_cleared", reply(sketch('background("#f7f2e9");')), HONEST,
         runtime=True),
    Case("clear_after_paint", "painted_then_cleared", reply(sketch("clear();")), HONEST, runtime=True),
    Case("create_canvas_twice", "canvas_replaced",
         reply(sketch(canvas="createCanvas(600, 600, WEBGL);\n  createCanvas(600, 600, WEBGL);")),
         HONEST, runtime=True),
    Case("create_canvas_in_draw", "canvas_replaced",
         reply(sketch('createCanvas(600, 600, WEBGL);\n  brush.fill("#3a6fb0", 190);\n  brush.circle(450, 450, 60);')),
         reply(sketch('brush.fill("#3a6fb0", 190);\n  brush.circle(450, 450, 60);')), runtime=True),
    # Indirect: the static rules leave these to the render, which names what was called.
    pair("p5_instance_rect", HARMLESS_NOW, "p5.instance.rect(100, 100, 200, 200);", None, runtime=True),
    pair("brush_passed_to_helper", "disallowed_brush_method",
         "const paintWith = (tool) => tool.rect(100, 100, 200, 200);\n  paintWith(brush);", None, runtime=True),
    # A call the static rules cannot see (the name spelt in char codes on an alias of the window):
    # they leave the handler a note, and the sketch realm records the ellipse that ran.
    handler("handler_called_unseen", "bare_primitive", _DRAW,
            "const host = globalThis;\n  host[String.fromCharCode(109, 111, 117, 115, 101, 80, 114, 101, 115, 115, "
            "101, 100)]();", runtime=True),
    # The honest boilerplate, rendered: none of it runs, nothing is flagged.
    Case("handlers_never_run", "bare_primitive", reply(sketch(top=_RESIZE + "\n" + _SAVE + "\n" + _DRAW,
                                                              setup="mousePressed();")),
         reply(sketch(top=_RESIZE + "\n" + _SAVE + "\n" + _DRAW)), runtime=True),
]

# A hang costs the CPU budget and a browser restart: kept apart, marked slow.
TIMEOUT: list[Case] = [
    pair("infinite_loop", "too_slow", "while (true) {}",
         "let n = 0;\n  while (n < 1000) n++;", runtime=True),
]

HARMLESS: list[Case] = [c for c in STATIC + RUNTIME if c.rule == HARMLESS_NOW]
STATIC = [c for c in STATIC if c.rule != HARMLESS_NOW]
RUNTIME = [c for c in RUNTIME if c.rule != HARMLESS_NOW]
ALL: list[Case] = STATIC + RUNTIME + TIMEOUT + HARMLESS


def _check_table() -> None:
    names = [c.name for c in ALL]
    dupes = {n for n in names if names.count(n) > 1}
    assert not dupes, f"duplicate case names: {dupes}"


_check_table()
