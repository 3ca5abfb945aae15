"""The sketch language as gate v3 widens it: honest modern JavaScript and p5.js 2.x pass.

The sketch runs in its own realm and only the display list it records reaches the painting
(`brushwork.core.language`), so the static rules give early reasons for what could never
be a painting and the render judges what was called. Here: each ordinary construct next to
a refused variant of it (static), the honest corpora (static and rendered), arguments that
are not data (rendered), and `brushwork language`.
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest
from gate_cases import PAINT, reply, sketch

from brushwork.core import language as L
from brushwork.gate import DEFAULT_ALLOWED, RULES_BY_ID, Gate, GateConfig
from brushwork.sketch import extract_sketch

GATE = Gate()   # the recipe's configuration

ROOT = Path(__file__).resolve().parent
CORPUS = sorted((ROOT / "corpus/async_setup").glob("*.md")) + sorted((ROOT / "corpus/model_style").glob("*.md"))


def _explain(report) -> str:
    return "; ".join(f"{v.id}: {v.message} (line {v.line})" for v in report.violations) or "no violations"


def _async(code: str) -> str:
    return code.replace("function setup()", "async function setup()")


def _build(snippet: str, where: str) -> str:
    if where == "async_setup":
        return reply(_async(sketch(setup=snippet)))
    if where == "top":  # a top-level declaration, used from draw()
        declaration, use = snippet.split("\n---\n")
        return reply(sketch(use, top=declaration))
    return reply(sketch(**{where: snippet}))


# ======================================================================================
# Static: each construct that must pass, next to what must still be refused.
# (name, honest snippet, refused snippet, rule the refused one reports, where it goes)
# ======================================================================================

_CLASSES = """class Petal {
  #len = 40;
  static COUNT = 5;
  rim = 8;
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
  get len() {
    return this.#len;
  }
  paint() {
    brush.circle(this.x, this.y, this.len);
  }
}
class BigPetal extends Petal {
  get len() {
    return super.len * 2;
  }
}"""

CONSTRUCTS = [
    ("async_setup", "await Promise.resolve();\n  randomSeed(3);",
     'const img = await loadImage("hibiscus.png");', "external_access", "async_setup"),
    ("async_helper_awaited", "const layout = await (async () => ({ r: 40 }))();\n  randomSeed(layout.r);",
     'const palette = await fetch("https://example.com/palette.json");', "external_access", "async_setup"),
    ("create_vector", "const v = createVector(300, 300).add(p5.Vector.fromAngle(0.5, 40));\n"
     "  const w = p5.Vector.lerp(v, createVector(100, 100), 0.5);\n  brush.circle(v.x, v.y, w.mag() / 20);",
     "const v = createVector(300, 300);\n  circle(v.x, v.y, 20);", "bare_primitive", "draw"),
    ("classes_getters_fields_private_extends",
     _CLASSES + "\n---\nnew BigPetal(150, 150).paint();\n  new Petal(450, 450).paint();",
     _CLASSES.replace("brush.circle(this.x, this.y, this.len);", "rect(this.x, this.y, this.len, this.len);")
     + "\n---\nnew BigPetal(150, 150).paint();", "bare_primitive", "top"),
    ("for_in", 'const palette = { rose: "#e8607a", peach: "#f4a582" };\n'
     "  for (const key in palette) {\n    brush.fill(palette[key], 120);\n    brush.circle(200, 200, 30);\n  }",
     'const palette = { rose: "#e8607a", peach: "#f4a582" };\n'
     "  for (const key in palette) text(key, 20, 20);", "text_on_canvas", "draw"),
    ("computed_keys", 'const k = "pe" + "tal";\n  const sizes = { [k]: 40, ["r" + 1]: 3 };\n'
     "  brush.circle(200, 200, sizes[k] + sizes.r1);",
     'const k = "pe" + "tal";\n  const sizes = { [k]: 40 };\n  brush.rect(100, 100, sizes[k], sizes[k]);',
     "disallowed_brush_method", "draw"),
    ("regular_expressions", 'const hex = "#E8607A".replace(/^#/, "").toLowerCase();\n'
     "  const valid = /^[0-9a-f]{6}$/.test(hex);\n  brush.fill(valid ? `#${hex}` : \"#000000\", 150);",
     'const hex = "#E8607A".replace(/^#/, "");\n  brush.nope(hex);', "unknown_brush_method", "draw"),
    ("catch_parameter", "try {\n    brush.circle(150, 150, 20);\n  } catch (e) {\n    console.log(e.message);\n  }",
     'try {\n    fetch("https://example.com/palette.json");\n  } catch (e) {\n    console.log(e);\n  }',
     "external_access", "draw"),
    ("colours_in_arrays_and_objects",
     'const colours = [color("#e8607a"), lerpColor(color("#e8607a"), color(255), 0.3)];\n'
     '  const palette = { leaf: color(90, 140, 70), petals: colours };\n'
     "  brush.fill(palette.petals[1], 150);\n  brush.circle(200, 200, 30);\n"
     "  brush.fill(palette.leaf, 150);\n  brush.circle(400, 400, 30);",
     'const colours = [color("#e8607a")];\n  fill(colours[0]);', "bare_primitive", "draw"),
    ("arrow_calls_brush_vertex", "brush.beginShape(0.5);\n"
     "  [[100, 100], [200, 120], [150, 200]].forEach(([x, y]) => brush.vertex(x, y));\n  brush.endShape(CLOSE);",
     "beginShape();\n  [[100, 100], [200, 120], [150, 200]].forEach(([x, y]) => vertex(x, y));\n  endShape(CLOSE);",
     "bare_primitive", "draw"),
    ("to_string", "const grey = (200).toString(16);\n  brush.fill(`#${grey}${grey}${grey}`, 150);\n"
     "  brush.circle(150, 450, String(40).length * 20);",
     "const grey = (200).toString(16);\n  text(grey.toString(), 20, 20);", "text_on_canvas", "draw"),
    ("object_entries",
     "Object.entries({ a: 20, b: 30 }).forEach(([name, r], i) => brush.circle(100 + i * 60, 100, r));",
     "Object.entries({ a: 20, b: 30 }).forEach(([name, r], i) => setTimeout(() => brush.circle(100, 100, r), 0));",
     "deferred_code", "draw"),
    ("spread", "const pts = [...[[100, 120]], [300, 340]];\n  const far = Math.max(...pts.map(([x]) => x));\n"
     "  brush.circle(...[far, 300, 40]);",
     "const box = [...[100, 100], 50, 50];\n  brush.rect(...box);", "disallowed_brush_method", "draw"),
    ("local_names_shadow_p5", "const line = [1, 2];\n  const rect = { w: 30 };\n"
     "  brush.circle(150, 150, rect.w + line[0]);",
     "line(0, 0, 600, 600);", "bare_primitive", "draw"),
    ("comparison_with_spaces", "let n = 3;\n  while (n-- > 0) brush.circle(100 * n + 100, 100, 20);\n"
     "  const hidden = 1 < !0;",
     "const hidden = 1 <!--0;", "html_comment", "draw"),
    ("webgl_canvas", "createCanvas(600, 600, WEBGL);", "createCanvas(600, 600);", "not_webgl", "canvas"),
]


@pytest.mark.parametrize("name, honest, refused, rule, where", CONSTRUCTS, ids=[c[0] for c in CONSTRUCTS])
def test_construct_passes_and_its_neighbour_is_refused(name, honest, refused, rule, where):
    passed = GATE.check(_build(honest, where))
    assert passed.passed, f"{name} (honest): {_explain(passed)}"
    report = GATE.check(_build(refused, where))
    assert rule in report.ids, f"{name} (refused): expected {rule}, got {_explain(report)}"


def test_removed_rules_and_options_are_gone():
    """The narrow language's rules and its configuration are deleted, not left unused."""
    assert not {"outside_language", "unknown_name", "library_result", "implicit_member",
                "computed_access"} & set(RULES_BY_ID)
    assert RULES_BY_ID["harness_tampering"].static is None  # only a forged message, at run time
    assert not [f.name for f in fields(GateConfig) if f.name.startswith("extra_p5")]


# ======================================================================================
# The honest corpora: every reply passes statically, and rendered, the whole gate.
# ======================================================================================

def test_corpora_are_complete():
    assert len(CORPUS) == 64, len(CORPUS)


@pytest.mark.parametrize("path", CORPUS, ids=[f"{p.parent.name}/{p.name}" for p in CORPUS])
def test_corpus_reply_passes_statically(path: Path):
    report = GATE.check(path.read_text())
    assert report.passed, f"{path.name}: {_explain(report)}"


@pytest.fixture(scope="module")
def corpus_renders(renderer):
    """Every corpus reply rendered at seed 0, concurrently on the session's workers. The
    heaviest take ~10 s alone against the session's 20 s deadline, so one that timed out in
    the crowd (its retry too) is rendered once more on its own: the corpus is judged on its
    sketches, not on how busy this machine was."""
    replies = [p.read_text() for p in CORPUS]
    codes = [extract_sketch(r).code for r in replies]
    results = list(renderer.render_many(codes, seed=0))
    retried = [i for i, result in enumerate(results) if result.status in ("timeout", "crashed")]
    for i in retried:
        results[i] = renderer.render(codes[i], seed=0, use_cache=False)
    return list(zip(CORPUS, replies, results)), [CORPUS[i].name for i in retried]


@pytest.mark.chromium
@pytest.mark.timeout(900)  # 64 renders: ~3 min on two workers, more on a busy machine
def test_corpus_replies_pass_the_whole_gate(corpus_renders, record_property):
    rendered, retried = corpus_renders
    refused = []
    for path, text, result in rendered:
        report = GATE.check(text, render=result)
        problems = []
        if not report.passed:
            problems.append(_explain(report))
        if (result.paint_fraction or 0.0) < 0.005:
            problems.append(f"paint fraction {result.paint_fraction}")
        if result.js_errors:
            problems.append(f"js errors {[e.message for e in result.js_errors]}")
        if result.flags:
            problems.append(f"flags {[(f.id, f.detail) for f in result.flags]}")
        if problems:
            refused.append(f"{path.parent.name}/{path.name}: {' | '.join(problems)}")
    accepted = f"{len(rendered) - len(refused)}/{len(rendered)} accepted"
    record_property("acceptance", f"{accepted}; rendered again alone after a timeout: {retried or 'none'}")
    print(f"{accepted}; rendered again alone after a timeout: {retried or 'none'}")
    assert not refused, f"{accepted}; refused:\n" + "\n".join(refused)


# ======================================================================================
# Run time: only data crosses to the paint realm.
# ======================================================================================

_FROM_ARRAY = PAINT.replace('brush.fill("#e8607a", 190);', "brush.fill(palette[0], 190);")
PROBES = {
    "function_argument": reply(sketch("brush.fill(() => 0, 150);\n  brush.circle(100, 100, 40);")),
    "vector_argument": reply(sketch("brush.beginShape(0);\n  brush.vertex(createVector(100, 100));\n"
                                    "  brush.vertex(200, 100);\n  brush.vertex(150, 200);\n  brush.endShape(CLOSE);")),
    "colour_in_array": reply(sketch(paint=_FROM_ARRAY, top="const palette = [];",
                                    setup='palette.push(color("#e8607a"));')),
    "colour_string": reply(sketch()),  # the same painting with brush.fill("#e8607a", 190)
}


@pytest.fixture(scope="module")
def probe_renders(renderer):
    results = renderer.render_many([extract_sketch(r).code for r in PROBES.values()], seed=0)
    return dict(zip(PROBES, results))


@pytest.mark.chromium
@pytest.mark.parametrize("name, kind", [("function_argument", "a function"), ("vector_argument", "a p5.Vector")])
def test_non_data_argument_is_unsupported(probe_renders, name, kind):
    text = PROBES[name]
    assert GATE.check(text).passed, "the static rules leave arguments to the render"
    report = GATE.check(text, render=probe_renders[name])
    found = [v for v in report.violations if v.id == "unsupported_argument"]
    assert found and found[0].severity == "broken", _explain(report)
    assert kind in found[0].message, found[0].message


@pytest.mark.chromium
def test_colour_kept_in_array_paints_as_its_css_string(probe_renders):
    kept, direct = probe_renders["colour_in_array"], probe_renders["colour_string"]
    report = GATE.check(PROBES["colour_in_array"], render=kept)
    assert report.passed, _explain(report)
    assert kept.display_list == direct.display_list  # String(color("#e8607a")) is "#e8607a"
    assert kept.png is not None and kept.png == direct.png


# ======================================================================================
# `brushwork language`
# ======================================================================================

def test_language_command_lists_replayed_statements_and_findings():
    from typer.testing import CliRunner

    from brushwork.cli import app

    result = CliRunner().invoke(app, ["language"])
    assert result.exit_code == 0, result.output
    words = set(re.split(r"[\s,│┃()]+", result.output))
    assert L.REPLAYED | {"createCanvas"} <= words, L.REPLAYED - words
    assert {f"brush.{m}" for m in DEFAULT_ALLOWED} <= words
    # every finding category is listed with the rule that refuses it
    for rule in ("bare_primitive", "text_on_canvas", "raw_pixels", "unlisted_call", "external_access",
                 "unsupported_argument"):
        assert rule in words, rule
    assert len(L.FINDINGS) == 5
