"""The gate's rule table: one row per rule, with a stable id, a severity, a one-line
explanation, and its checks (static over the syntax tree, run-time over the render).

Severities: ``cheat`` (tries to win without painting with p5.brush), ``broken`` (an honest
sketch that does not work) and ``infra`` (our failure, not the sketch's: the reward must be
None, never 0). A run-time finding may override its rule's severity: a render timeout or
crash is ``infra`` once, ``broken`` when a fresh browser repeats it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from brushwork.gate import runtime_rules as R
from brushwork.gate import static_rules as S
from brushwork.gate.verdict import Severity


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    explanation: str
    static: Callable | None = None
    runtime: Callable | None = None


RULES: tuple[Rule, ...] = (
    # Early, exact reasons from the code (static_rules): what the render would refuse too, with a line.
    Rule("no_sketch", "broken", "The reply contains no p5.js sketch."),
    Rule("syntax_error", "broken", "The sketch is not valid JavaScript (often a truncated reply).", S.syntax_error),
    Rule("too_long", "broken", "The reply (past 4 x the sketch limit it is not read), the sketch, or the list of "
         "calls it made is longer than the limit.", S.too_long,
         R.runtime_too_long),
    Rule("html_comment", "cheat", "`<!--` / `-->` are comments to the browser but not to the gate's parser: "
         "they hide code.", S.html_comment),
    Rule("missing_setup", "broken", "A p5 sketch needs a top-level setup() function.", S.missing_setup),
    Rule("not_webgl", "broken", "p5.brush paints only on createCanvas(..., WEBGL).", S.not_webgl, R.runtime_not_webgl),
    Rule("canvas_size", "broken", "The canvas must have the configured size.", S.canvas_size, R.runtime_canvas_size),
    Rule("external_access", "cheat", "Network, files, workers, eval-like code, DOM, navigation and windows "
         "are off limits.", S.external_access, R.runtime_external_access),
    Rule("text_on_canvas", "cheat", "Paintings may not contain text.", S.text_on_canvas, R.runtime_text_drawing),
    Rule("raw_pixels", "cheat", "No direct pixels, contexts, shaders, buffers or images.", S.raw_pixels,
         R.runtime_raw_drawing),
    Rule("bare_primitive", "cheat", "p5's own drawing functions bypass p5.brush.", S.bare_primitive,
         R.runtime_p5_drawing),
    Rule("disallowed_brush_method", "cheat", "A p5.brush method outside the allow-list.", S.disallowed_brush_method,
         R.runtime_brush_method),
    Rule("unknown_brush_method", "broken", "A brush.* method that p5.brush does not have.", S.unknown_brush_method),
    Rule("deferred_code", "broken", "Timers run after the first frame, which is the one painted.", S.deferred_code),
    Rule("no_painting", "broken", "The sketch never calls a p5.brush painting method.", S.no_painting,
         R.runtime_no_painting),
    # What the render showed (runtime_rules): the sketch realm's findings, the replay, the budgets.
    Rule("render_timeout", "infra", "The render did not finish in time; the browser was restarted and the "
         "sketch rendered once more (broken when that timed out too).", runtime=R.render_timeout),
    Rule("render_crashed", "infra", "The browser failed during the render; the sketch was rendered once more on a "
         "fresh browser (broken when that failed too).", runtime=R.render_crashed),
    Rule("render_untrusted", "infra", "A browser process other than the page's (the GPU's, the browser's) died "
         "during the render, or the capture was blank although the replay painted, and a fresh browser gave no "
         "capture to trust either.", runtime=R.render_untrusted),
    Rule("too_slow", "broken", "The sketch used more than the CPU budget; it is stopped before the deadline.",
         runtime=R.too_slow),
    Rule("js_error", "broken", "The sketch threw an error, or a call it made failed when replayed.",
         runtime=R.js_error),
    Rule("unsupported_argument", "broken", "A brush call or p5 statement got something other than numbers, "
         "strings, colours, or arrays and plain objects of those (a function, a vector, a library object).",
         runtime=R.unsupported_argument),
    Rule("blank_canvas", "broken", "Too little of the canvas differs from the background.", runtime=R.blank_canvas),
    Rule("blocked_request", "cheat", "The sketch tried to load or send something and was blocked.",
         runtime=R.blocked_request),
    Rule("navigation", "cheat", "The sketch navigated its frame away.", runtime=R.navigation),
    Rule("canvas_replaced", "broken", "createCanvas() was called more than once; a painting is one canvas.",
         runtime=R.canvas_replaced),
    Rule("dom_tampering", "cheat", "The sketch opened frames.", runtime=R.dom_tampering),
    Rule("unlisted_call", "cheat", "The sketch called a p5 function that loads, saves, makes page elements or "
         "changes the canvas.", runtime=R.runtime_unlisted_call),
    Rule("harness_tampering", "cheat", "What the sketch's realm sent was not a display list (forged or mangled).",
         runtime=R.runtime_harness_tampering),
    Rule("painted_then_cleared", "broken", "background() after painting erased the painting.",
         runtime=R.painted_then_cleared),
    Rule("text_in_image", "cheat", "The painting contains legible text or digits (aimed at the judge).",
         runtime=R.text_in_image),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
