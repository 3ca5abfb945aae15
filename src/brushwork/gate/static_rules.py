"""The static rules: checks over the syntax-tree `Facts` of one sketch.

They are not the security boundary (the sketch realm is: see render/harness/realm.js and
replay.js). They give a model an early, exact reason with a line number for what the
render would refuse anyway or what could never work: no setup, a syntax error, the wrong
canvas, a brush method outside the allow-list or not in p5.brush, p5's own drawing, text,
pixels, network or DOM reached for by name, timers, HTML-like comments. Honest code in
ordinary modern JavaScript passes them.

Each check yields ``(message, node-or-line)`` findings; `brushwork.gate.rules` binds
them to ids, severities and explanations. `idle_handlers` finds the event handlers nothing in
the sketch can call: findings in their bodies are notes (`handler_note`), not violations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from brushwork.core import vocabulary as V
from brushwork.gate.config import GateConfig
from brushwork.gate.syntax import Facts, Member, ident, text

# (message, where): the node a finding is about (reply.py turns it into a line), a line, or None.
Finding = tuple[str, Node | int | None]


def _global_refs(facts: Facts, names: frozenset[str]) -> Iterator[tuple[str, object]]:
    """References to `names` that are not the sketch's own (a helper `line`, a variable `top`)."""
    for name, node in facts.refs:
        if name in names and not facts.resolves_locally(name, node):
            yield name, node


def _is_brush(node) -> bool:
    return node is not None and node.type == "identifier" and text(node) == "brush"


_NOT_TEXT = re.compile("[\ud800-\udfff\x00]")


def syntax_error(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    if (odd := _NOT_TEXT.search(code)) is not None:
        # A lone surrogate (JSON's "\\ud800" decoded) cannot be UTF-8 at all, and the parser stops
        # at a NUL: say which character, not "cannot parse here".
        point = ord(odd.group())
        what = "a NUL character" if point == 0 else "a lone UTF-16 surrogate"
        yield (f"the sketch holds {what} (U+{point:04X}), which is not text; write it as the escape "
               f"\"\\u{point:04x}\" inside a string"), code.count("\n", 0, odd.start()) + 1
        return
    if facts.root.has_error:
        node = facts.errors[0] if facts.errors else facts.root
        what = "missing " + node.type if node.is_missing else "cannot parse here"
        yield f"JavaScript syntax error ({what}); a truncated reply ends like this", node


def too_long(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    if len(code) > cfg.max_chars:
        yield f"sketch is {len(code):,} characters; the limit is {cfg.max_chars:,}", None


def missing_setup(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    top = {name for name, _, scope in facts.decls if scope.type == "program"}
    if "setup" not in top:
        yield "no top-level setup() function", None


def _create_canvas_calls(facts: Facts):
    for call in facts.calls:
        fn = call.child_by_field_name("function")
        if fn is not None and fn.type == "identifier" and text(fn) == "createCanvas" \
                and not facts.resolves_locally("createCanvas", fn):
            yield call


def not_webgl(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    calls = list(_create_canvas_calls(facts))
    if not calls and not any(m.prop == "createCanvas" for m in facts.members):  # `this.createCanvas`: the render judges
        yield f"no createCanvas({cfg.canvas_size}, {cfg.canvas_size}, WEBGL) call", None
    for call in calls:
        args = call.child_by_field_name("arguments").named_children
        if len(args) < 3 or text(args[2]) != "WEBGL":
            yield "createCanvas needs WEBGL as its third argument (p5.brush paints only on WEBGL)", call


def _evaluate(node, consts: dict[str, float]) -> float | None:
    """The value of a constant arithmetic expression (numbers, + - * /, constants), else None."""
    t = node.type
    if t == "number":
        try:
            return float(text(node).replace("_", ""))
        except ValueError:
            return None
    if t == "identifier":
        return consts.get(text(node))
    if t == "parenthesized_expression" and node.named_children:
        return _evaluate(node.named_children[0], consts)
    if t == "unary_expression" and node.child(0) is not None and text(node.child(0)) in "+-":
        value = _evaluate(node.child_by_field_name("argument"), consts)
        return None if value is None else (-value if text(node.child(0)) == "-" else value)
    if t == "binary_expression":
        a = _evaluate(node.child_by_field_name("left"), consts)
        b = _evaluate(node.child_by_field_name("right"), consts)
        op = text(node.child_by_field_name("operator"))
        if a is None or b is None:
            return None
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/" and b != 0:
            return a / b
    return None


def _constants(facts: Facts) -> dict[str, float]:
    """Top-level variables initialised with constant arithmetic, in source order."""
    values: dict[str, float] = {}
    for name, node, scope in facts.decls:
        parent = node.parent
        if scope.type == "program" and parent is not None and parent.type == "variable_declarator":
            value = parent.child_by_field_name("value")
            number = _evaluate(value, values) if value is not None else None
            if number is not None:
                values[name] = number
    return values


def canvas_size(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    consts = _constants(facts)
    for call in _create_canvas_calls(facts):
        args = call.child_by_field_name("arguments").named_children[:2]
        dims = [d for d in (_evaluate(a, consts) for a in args) if d is not None]
        shown = ", ".join(text(a) for a in args)
        if len(args) < 2 or (len(dims) == 2 and dims != [cfg.canvas_size, cfg.canvas_size]):
            yield f"createCanvas({shown}, ...) must be {cfg.canvas_size} x {cfg.canvas_size}", call
        elif len(dims) < 2:
            yield (f"createCanvas({shown}, ...): the size must be {cfg.canvas_size}, written as a number or "
                   "constant arithmetic"), call


def external_access(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.EXTERNAL_NAMES):
        yield _saves(name) or f"`{name}` reaches outside the painting (network, files, DOM, code loading or windows)", \
            node
    for m in facts.members:
        if m.prop in V.DOM_MEMBERS:
            yield f"`.{m.prop}` manipulates the page or the network", m.node
    for kind, node in facts.special:
        if kind in ("import_statement", "export_statement", "import"):
            yield "modules and dynamic import() are not allowed", node
        elif kind == "meta_property":
            yield f"`{text(node)}` is not allowed", node
    for name, call, first in _timer_calls(facts):
        if first is not None and first.type not in FUNCTION_LIKE:
            yield f"{name}() with code in a string is eval", call


FUNCTION_LIKE = ("arrow_function", "function_expression", "function", "identifier", "member_expression")


def _timer_calls(facts: Facts):
    """(timer name, call, first argument or None) for every setTimeout-like call."""
    for call in facts.calls:
        fn = call.child_by_field_name("function") or call.child_by_field_name("constructor")
        if fn is not None and fn.type == "identifier" and text(fn) in V.TIMERS \
                and not facts.resolves_locally(text(fn), fn):
            args = call.child_by_field_name("arguments")
            yield text(fn), call, args.named_children[0] if args is not None and args.named_children else None


def deferred_code(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, call, first in _timer_calls(facts):
        if first is not None and first.type in FUNCTION_LIKE and not _in_promise_executor(call):
            yield (f"{name}() runs after the first frame, which is the one painted; to wait in an async "
                   f"setup(), await new Promise((done) => {name}(done, ms))"), call


def _in_promise_executor(node) -> bool:
    """`await new Promise((done) => setTimeout(done, 50))` in an async setup: p5 waits for it."""
    cur = node.parent
    while cur is not None and cur.type not in ("arrow_function", "function_expression", "function"):
        cur = cur.parent
    args = cur.parent if cur is not None else None
    new = args.parent if args is not None and args.type == "arguments" else None
    ctor = new.child_by_field_name("constructor") if new is not None and new.type == "new_expression" else None
    return ctor is not None and text(ctor) == "Promise"


def text_on_canvas(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.P5_TEXT):
        yield f"`{name}` draws or styles text; paintings may not contain text", node
    for m in facts.members:
        if m.prop in V.TEXT_MEMBERS:
            yield f"`.{m.prop}` draws text", m.node


def raw_pixels(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.P5_RAW):
        yield _saves(name) or f"`{name}` paints pixels, shaders or images directly instead of with p5.brush", node
    for m in facts.members:
        if m.prop in V.RAW_MEMBERS:
            yield f"`.{m.prop}` reaches the canvas's pixels or context", m.node


def bare_primitive(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.P5_PRIMITIVES):
        yield f"`{name}` is p5's own drawing function; use p5.brush (brush.{name} if allowed)", node
    for name, node in _global_refs(facts, V.CANVAS_CHANGERS - {"createCanvas", "pixelDensity"}):
        yield (f"`{name}` changes the canvas; the painting is one {cfg.canvas_size} x {cfg.canvas_size} canvas",
               node)


def _brush_members(facts: Facts) -> Iterator[Member]:
    for m in facts.members:
        if _is_brush(m.obj):
            yield m


def disallowed_brush_method(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    allowed = set(cfg.allowed_methods)
    for m in _brush_members(facts):
        if (m.prop in V.BRUSH_METHODS or m.prop in V.BRUSH_CLASSES) and m.prop not in allowed:
            yield f"brush.{m.prop} is a p5.brush method outside the allow-list ({', '.join(cfg.allowed_methods)})", \
                m.node


def unknown_brush_method(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for m in _brush_members(facts):
        if m.prop not in V.BRUSH_METHODS and m.prop not in V.BRUSH_CLASSES:
            yield f"brush.{m.prop} does not exist in p5.brush 2.2.2", m.node


def no_painting(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    """Only when every use of `brush` is a plain `brush.method` and none paints: an alias or a
    computed name is left to the render, which counts the calls exactly."""
    members = list(_brush_members(facts))
    if any(m.called and m.prop in V.BRUSH_PAINTING for m in members):
        return
    if sum(1 for name, _ in facts.refs if name == "brush") <= len(members):
        yield "no p5.brush painting call (brush.circle, brush.endShape, …)", None


def html_comment(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    """`<!--` and `-->` are line comments to V8 but operators (or nothing) to the parser the
    gate reads: code after them would run unseen by these rules. Refused anywhere, even in strings."""
    for token in ("<!--", "-->"):
        start = code.find(token)
        if start >= 0:
            yield (f"`{token}` starts an HTML-like comment in browsers, which hides code from the gate; "
                   "write `a < !b` or `x-- > 0` with spaces"), code.count("\n", 0, start) + 1


# -- event handlers ----------------------------------------------------------------------------
# p5 calls these on input or window events, which never happen in a headless render: a body
# that only p5 would call never runs, so what it holds is a note, not a violation.
HANDLERS = frozenset({
    "windowResized", "keyPressed", "keyReleased", "keyTyped", "mousePressed", "mouseReleased", "mouseClicked",
    "mouseMoved", "mouseDragged", "mouseWheel", "doubleClicked", "touchStarted", "touchMoved", "touchEnded",
    "deviceMoved", "deviceTurned", "deviceShaken",
})
# The rules whose findings in such a body are notes: calls that would matter only if they ran.
# Parsing, hidden code and the sketch's shape (syntax, `<!--`, length, setup) count everywhere.
HANDLER_NOTES = frozenset({"external_access", "text_on_canvas", "raw_pixels", "bare_primitive",
                           "disallowed_brush_method", "unknown_brush_method", "deferred_code", "canvas_size",
                           "not_webgl"})
# What a call does, for messages about calls whose rule's wording does not say it.
DOES = {"saveCanvas": "saves a file", "save": "saves a file", "saveGif": "saves a file",
        "saveFrames": "saves files", "saveJSON": "saves a file", "saveStrings": "saves a file",
        "saveTable": "saves a file", "resizeCanvas": "resizes the canvas", "pixelDensity": "changes the canvas",
        "noCanvas": "removes the canvas", "createCanvas": "makes a canvas", "redraw": "draws again",
        "fullscreen": "enters full screen"}
_RULE_DOES = {"external_access": "reaches outside the painting", "text_on_canvas": "draws text",
              "raw_pixels": "reaches pixels, shaders or images", "bare_primitive": "is p5's own drawing",
              "disallowed_brush_method": "is a p5.brush method outside the allow-list",
              "unknown_brush_method": "is not in p5.brush", "deferred_code": "schedules code for later",
              "canvas_size": "makes a canvas", "not_webgl": "makes a canvas"}
# Ways code reaches a handler without naming it: p5's own dispatchers, synthetic events, the
# window's properties by computed name.
_DISPATCH = ("dispatchEvent", "Event", "_on")
_GLOBAL_OBJECTS = frozenset({"this", "window", "globalThis", "self", "frames", "top", "parent"})


def idle_handlers(facts: Facts) -> dict[str, Node]:
    """The bodies of event handlers nothing in the sketch can call: a top-level `function
    keyPressed() {...}` whose name no code mentions (as a name, a property or inside a string)
    in a sketch that neither dispatches events nor indexes the window by a computed name. Those
    are left to p5, which never calls them headless. Anything subtler is not exempt; and what a
    body does when it does run is recorded by the sketch realm and judged at run time."""
    candidates = {ident(name): node for node in facts.root.named_children
                  if node.type in ("function_declaration", "generator_function_declaration")
                  and (name := node.child_by_field_name("name")) is not None and ident(name) in HANDLERS}
    if not candidates or _dispatches(facts):
        return {}
    named = {name for name, _ in facts.refs} | {m.prop for m in facts.members}
    strings = [text(s) for s in _strings(facts.root)]
    return {name: body for name, node in candidates.items()
            if name not in named and (body := node.child_by_field_name("body")) is not None
            and not any(len(s) >= 2 and (s in name or name in s) for s in strings)
            and sum(1 for n, _, _ in facts.decls if n == name) == 1}


def _dispatches(facts: Facts) -> bool:
    names = [name for name, _ in facts.refs] + [m.prop for m in facts.members]
    if any(part in name for name in names for part in _DISPATCH):
        return True
    for sub in facts.subscripts:
        obj, index = sub.child_by_field_name("object"), sub.child_by_field_name("index")
        if obj is not None and text(obj) in _GLOBAL_OBJECTS and (index is None or index.type != "number"):
            return True
    return False


def _strings(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("string_fragment", "template_string", "regex_pattern"):
            yield node
        stack.extend(node.children)


def _saves(name: str) -> str | None:
    if DOES.get(name, "").startswith("saves"):
        return (f"`{name}` {DOES[name]}; the renderer captures the painting, so remove it (in an event handler "
                "such as keyPressed(), which never runs headless, it is ignored)")
    return None


def handler_note(rule_id: str, node: Node, handler: str) -> str:
    """What a call inside an idle handler does, and why it is ignored."""
    name = _called_name(node)
    does = DOES.get(name, _RULE_DOES.get(rule_id, "would break a rule"))
    return (f"`{name}()` {does}; {handler}() is an event handler, and handlers never run in a headless render, "
            "so it is ignored")


def _called_name(node: Node) -> str:
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return ident(prop) if prop is not None else text(node)
    if node.type in ("call_expression", "new_expression"):
        fn = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        return _called_name(fn) if fn is not None else text(node)[:40]
    return ident(node) if node.type == "identifier" else text(node)[:40]
