"""The static rules: checks over the syntax-tree `Facts` of one sketch.

They are not the security boundary (the sketch realm is: see render/harness/realm.js and
replay.js). They give a model an early, exact reason with a line number for what the
render would refuse anyway or what could never work: no setup, a syntax error, the wrong
canvas, a brush method outside the allow-list or not in p5.brush, p5's own drawing, text,
pixels, network or DOM reached for by name, timers, HTML-like comments. Honest code in
ordinary modern JavaScript passes them.

Each check yields ``(message, node-or-line)`` findings; `brushwork.gate.rules` binds
them to ids, severities and explanations.
"""

from __future__ import annotations

from collections.abc import Iterator

from brushwork.core import vocabulary as V
from brushwork.gate.config import GateConfig
from brushwork.gate.syntax import Facts, Member, line, text

Finding = tuple[str, int | None]


def _global_refs(facts: Facts, names: frozenset[str]) -> Iterator[tuple[str, object]]:
    """References to `names` that are not the sketch's own (a helper `line`, a variable `top`)."""
    for name, node in facts.refs:
        if name in names and not facts.resolves_locally(name, node):
            yield name, node


def _is_brush(node) -> bool:
    return node is not None and node.type == "identifier" and text(node) == "brush"


def syntax_error(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    if facts.root.has_error:
        node = facts.errors[0] if facts.errors else facts.root
        what = "missing " + node.type if node.is_missing else "cannot parse here"
        yield f"JavaScript syntax error ({what}); a truncated reply ends like this", line(node)


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
            yield "createCanvas needs WEBGL as its third argument (p5.brush paints only on WEBGL)", line(call)


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
            yield f"createCanvas({shown}, ...) must be {cfg.canvas_size} x {cfg.canvas_size}", line(call)
        elif len(dims) < 2:
            yield (f"createCanvas({shown}, ...): the size must be {cfg.canvas_size}, written as a number or "
                   "constant arithmetic"), line(call)


def external_access(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.EXTERNAL_NAMES):
        yield f"`{name}` reaches outside the painting (network, files, DOM, code loading or windows)", line(node)
    for m in facts.members:
        if m.prop in V.DOM_MEMBERS:
            yield f"`.{m.prop}` manipulates the page or the network", line(m.node)
    for kind, node in facts.special:
        if kind in ("import_statement", "export_statement", "import"):
            yield "modules and dynamic import() are not allowed", line(node)
        elif kind == "meta_property":
            yield f"`{text(node)}` is not allowed", line(node)
    for name, call, first in _timer_calls(facts):
        if first is not None and first.type not in FUNCTION_LIKE:
            yield f"{name}() with code in a string is eval", line(call)


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
                   f"setup(), await new Promise((done) => {name}(done, ms))"), line(call)


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
        yield f"`{name}` draws or styles text; paintings may not contain text", line(node)
    for m in facts.members:
        if m.prop in V.TEXT_MEMBERS:
            yield f"`.{m.prop}` draws text", line(m.node)


def raw_pixels(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.P5_RAW):
        yield f"`{name}` paints pixels, shaders or images directly instead of with p5.brush", line(node)
    for m in facts.members:
        if m.prop in V.RAW_MEMBERS:
            yield f"`.{m.prop}` reaches the canvas's pixels or context", line(m.node)


def bare_primitive(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in _global_refs(facts, V.P5_PRIMITIVES):
        yield f"`{name}` is p5's own drawing function; use p5.brush (brush.{name} if allowed)", line(node)
    for name, node in _global_refs(facts, V.CANVAS_CHANGERS - {"createCanvas", "pixelDensity"}):
        yield (f"`{name}` changes the canvas; the painting is one {cfg.canvas_size} x {cfg.canvas_size} canvas",
               line(node))


def _brush_members(facts: Facts) -> Iterator[Member]:
    for m in facts.members:
        if _is_brush(m.obj):
            yield m


def disallowed_brush_method(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    allowed = set(cfg.allowed_methods)
    for m in _brush_members(facts):
        if (m.prop in V.BRUSH_METHODS or m.prop in V.BRUSH_CLASSES) and m.prop not in allowed:
            yield f"brush.{m.prop} is a p5.brush method outside the allow-list ({', '.join(cfg.allowed_methods)})", \
                line(m.node)


def unknown_brush_method(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for m in _brush_members(facts):
        if m.prop not in V.BRUSH_METHODS and m.prop not in V.BRUSH_CLASSES:
            yield f"brush.{m.prop} does not exist in p5.brush 2.2.2", line(m.node)


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
