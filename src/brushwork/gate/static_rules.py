"""The static rules: checks over the syntax-tree `Facts` of one sketch.

Each check yields ``(message, node-or-line)`` findings; `brushwork.gate.rules` binds
them to ids, severities and explanations.
"""

from __future__ import annotations

from collections.abc import Iterator

from brushwork.core import vocabulary as V
from brushwork.core.language import IMPLICIT_MEMBERS, reserved_globals
from brushwork.gate.config import GateConfig
from brushwork.gate.indexing import TEXT, Kinds
from brushwork.gate.syntax import Facts, Member, line, text

Finding = tuple[str, int | None]

# Common words a sketch may legitimately declare for itself (a helper `line`, a
# variable `top`); when the sketch declares them, references resolve to its own.
SHADOWABLE = (V.P5_PRIMITIVES | V.P5_TEXT | V.P5_RAW
              | {"open", "close", "select", "remove", "save", "print", "module", "exports", "history",
                 "self", "top", "parent", "frames", "Image", "Option", "Audio", "URL", "location", "require"})
OBFUSCATION = frozenset({"atob", "btoa", "unescape", "escape", "fromCharCode", "fromCodePoint", "raw",
                         "decodeURI", "decodeURIComponent"})
OBJECT_MUTATORS = frozenset({"defineProperty", "defineProperties", "setPrototypeOf", "assign", "freeze",
                             "seal", "preventExtensions", "set", "deleteProperty"})
DANGEROUS_KEYS = (V.EXTERNAL_NAMES | V.P5_TEXT | V.P5_RAW | V.P5_PRIMITIVES | V.SNEAKY_MEMBERS | V.DOM_MEMBERS
                  | V.RAW_MEMBERS | V.TEXT_MEMBERS | V.GLOBAL_OBJECTS | V.BRUSH_METHODS | OBFUSCATION
                  | IMPLICIT_MEMBERS)
HARD_PROTECTED = V.PROTECTED - {"width", "height", "frameCount", "background", "clear", "loop", "redraw",
                                "undefined", "NaN", "Infinity", "String", "Number", "Error", "console"}


def _global_refs(facts: Facts, names: frozenset[str]) -> Iterator[tuple[str, object]]:
    for name, node in facts.refs:
        if name in names and not (name in SHADOWABLE and facts.resolves_locally(name, node)):
            yield name, node


def _is_brush(node) -> bool:
    return node is not None and node.type == "identifier" and text(node) == "brush"


def _root_identifier(node):
    while node is not None and node.type in ("member_expression", "subscript_expression",
                                             "parenthesized_expression", "call_expression"):
        node = node.child_by_field_name("object") or node.child_by_field_name("function") \
            or (node.named_children[0] if node.named_children else None)
    return node


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
    if not calls:
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
        if first is not None and first.type in FUNCTION_LIKE:
            yield f"{name}() paints after the first frame, which is the one captured", line(call)


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
    for name, node in _global_refs(facts, V.CANVAS_CHANGERS - {"createCanvas"}):
        if not _is_pixel_density_one(node):
            yield f"`{name}` changes the canvas the harness captures", line(node)


def _is_pixel_density_one(node) -> bool:
    """`pixelDensity(1)` is a common, harmless habit (the harness's density is already 1)."""
    call = node.parent
    if text(node) != "pixelDensity" or call is None or call.type != "call_expression":
        return False
    args = call.child_by_field_name("arguments")
    return args is not None and [text(a) for a in args.named_children] == ["1"]


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


def computed_access(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for name, node in facts.refs:
        if "\\" in name:
            yield f"escaped identifier `{name}` hides a name", line(node)
        elif name == "brush" and not _called_member_object(node):
            yield "brush may only be used as brush.method(...); aliasing or indexing it hides calls", line(node)
        elif name in OBFUSCATION:
            yield f"`{name}` builds hidden names or code", line(node)
    for name, node in _global_refs(facts, V.GLOBAL_OBJECTS):
        yield f"`{name}` reaches arbitrary globals", line(node)
    for m in facts.members:
        if "\\" in m.prop:
            yield f"escaped property `{m.prop}` hides a name", line(m.node)
        elif m.prop in V.SNEAKY_MEMBERS:
            yield f"`.{m.prop}` reaches constructors or prototypes", line(m.node)
        elif m.prop in OBFUSCATION:
            yield f"`.{m.prop}` builds hidden names or code", line(m.node)
    kinds = None
    for node in facts.subscripts:
        problem = _subscript_problem(node)
        if problem is None and node.child_by_field_name("index") is not None \
                and node.child_by_field_name("index").type != "string":
            kinds = kinds or Kinds(facts, DANGEROUS_KEYS)
            if kinds.of(node.child_by_field_name("index")) == TEXT:
                problem = (f"`{text(node)[:40]}`: a key that may be text built at run time hides what is "
                           "accessed; index with numbers or plain string literals")
        if problem:
            yield problem, line(node)
    for kind, node in facts.special:
        if kind == "with_statement":
            yield "`with` changes what names mean", line(node)
    for node in facts.this_nodes:
        if not _in_method_body(node):
            yield "`this` outside a class method's body can be the window", line(node)


def _called_member_object(node) -> bool:
    parent = node.parent
    if parent is None or parent.type != "member_expression" or parent.child_by_field_name("object") != node:
        return False
    prop = parent.child_by_field_name("property")
    if prop is None or prop.type != "property_identifier":
        return False
    grand = parent.parent
    return grand is not None and grand.type == "call_expression" and grand.child_by_field_name("function") == parent


def _subscript_problem(node) -> str | None:
    obj = node.child_by_field_name("object")
    index = node.child_by_field_name("index")
    root = _root_identifier(obj)
    if root is not None and root.type == "identifier" and text(root) in (V.GLOBAL_OBJECTS | {"brush", "p5", "Math"}):
        return f"`{text(root)}[...]` is computed access to a library or global"
    if index is not None and index.type == "string":
        value = text(index)[1:-1]
        if value in DANGEROUS_KEYS or "\\" in value:
            return f"`[{text(index)}]` is a forbidden name in brackets"
    return None


def _in_method_body(node) -> bool:
    """`this` is the sketch's own object only in the body of a plain class method (class code is
    strict; arrows inherit `this`). In a computed key, field, static block, `extends` clause or
    a plain function it can be the window or the class itself."""
    child, cur = node, node.parent
    while cur is not None:
        if cur.type == "method_definition":
            return cur.parent is not None and cur.parent.type == "class_body" \
                and child in (cur.child_by_field_name("body"), cur.child_by_field_name("parameters"))
        if cur.type in ("function_declaration", "function_expression", "function", "program",
                        "class_body", "class_heritage", "field_definition", "class_static_block"):
            return False
        child, cur = cur, cur.parent
    return False


def harness_tampering(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    for target in facts.targets:
        root = _root_identifier(target)
        if root is None or root.type != "identifier":
            continue
        name = text(root)
        if (name in V.PROTECTED and not facts.resolves_locally(name, root)) or name.startswith(V.HARNESS_PREFIX):
            yield f"assigning to `{text(target)[:40]}` tampers with the libraries or the harness", line(target)
        elif target.type in ("member_expression", "subscript_expression") and _touches_prototype(target):
            yield f"assigning to `{text(target)[:40]}` rewrites a prototype", line(target)
    for call in facts.calls:
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if fn is None or fn.type != "member_expression" or args is None or not args.named_children:
            continue
        obj, prop = fn.child_by_field_name("object"), fn.child_by_field_name("property")
        if obj is not None and text(obj) in ("Object", "Reflect") and prop is not None \
                and text(prop) in OBJECT_MUTATORS:
            target = _root_identifier(args.named_children[0])
            if target is not None and target.type == "identifier" and text(target) in V.PROTECTED | {"brush"}:
                yield f"{text(fn)}({text(target)}, ...) rewrites a library or harness object", line(call)
    global_names = reserved_globals() | V.P5_PRIMITIVES | V.P5_TEXT | V.P5_RAW | V.CANVAS_CHANGERS
    for name, node, scope in facts.decls:
        if name in HARD_PROTECTED or name.startswith(V.HARNESS_PREFIX):
            yield f"declaring `{name}` shadows a library or harness name", line(node)
        elif scope.type == "program" and name in global_names:
            yield (f"a top-level `{name}` replaces the library's global of that name, which p5 and p5.brush "
                   "may call; rename it"), line(node)
    for name, node in facts.refs:
        if name.startswith(V.HARNESS_PREFIX):
            yield f"`{name}` belongs to the harness", line(node)
    for m in facts.members:
        if m.prop.startswith(V.HARNESS_PREFIX):
            yield f"`.{m.prop}` belongs to the harness", line(m.node)


def _touches_prototype(node) -> bool:
    cur = node
    while cur is not None and cur.type in ("member_expression", "subscript_expression"):
        prop = cur.child_by_field_name("property")
        if prop is not None and text(prop) in ("prototype", "__proto__"):
            return True
        cur = cur.child_by_field_name("object")
    return False


def no_painting(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    if not any(m.called and m.prop in V.BRUSH_PAINTING for m in _brush_members(facts)):
        yield "no p5.brush painting call (brush.circle, brush.endShape, …)", None
