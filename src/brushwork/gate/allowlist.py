"""The sketch language, checked on the syntax tree: an allow-list, not a block list.

A sketch may use only the syntax in `ALLOWED_NODES` (declarations, its own functions and
plain classes, loops, conditionals, arithmetic, literals), its own names, and the names in
`brushwork.core.language`'s tables. What a library call returns is never the sketch's to
inspect, so a value that could lead back to p5's instance, renderer or WebGL context never
enters the sketch's own data. Anything else is a violation, found here with its reason.

Checks yield ``(message, line)`` findings like `static_rules`; `rules` binds them to ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from brushwork.core import language as L
from brushwork.core import vocabulary as V
from brushwork.gate.config import GateConfig
from brushwork.gate.syntax import Facts, Node, line, text

Finding = tuple[str, int | None]

# Tree-sitter node types a sketch may contain. Punctuation and keywords are unnamed nodes
# and are not listed; every named node outside this set is a violation.
ALLOWED_NODES = frozenset({
    "program", "comment", "empty_statement", "expression_statement", "statement_block",
    "lexical_declaration", "variable_declaration", "variable_declarator", "function_declaration",
    "function_expression", "function", "arrow_function", "formal_parameters", "return_statement",
    "if_statement", "else_clause", "for_statement", "for_in_statement", "while_statement", "do_statement",
    "break_statement", "continue_statement", "switch_statement", "switch_body", "switch_case",
    "switch_default", "try_statement", "catch_clause", "finally_clause", "throw_statement",
    "identifier", "property_identifier", "shorthand_property_identifier",
    "shorthand_property_identifier_pattern", "object_pattern", "array_pattern", "pair_pattern",
    "object_assignment_pattern", "assignment_pattern", "rest_pattern", "call_expression", "arguments",
    "member_expression", "subscript_expression", "optional_chain", "assignment_expression",
    "augmented_assignment_expression", "binary_expression", "unary_expression", "update_expression",
    "ternary_expression", "parenthesized_expression", "sequence_expression", "spread_element", "array",
    "object", "pair", "number", "string", "string_fragment", "escape_sequence", "template_string",
    "template_substitution", "true", "false", "null", "undefined", "new_expression", "class_declaration",
    "class_body", "method_definition", "this",
})

# Why the common refused constructs are refused (the rest get a generic message).
REFUSED = {
    "class": "class expressions", "class_heritage": "`extends`", "field_definition": "class fields",
    "class_static_block": "static blocks", "private_property_identifier": "private names",
    "computed_property_name": "computed property names", "generator_function": "generators",
    "generator_function_declaration": "generators", "yield_expression": "generators",
    "await_expression": "async code", "regex": "regular expressions", "with_statement": "`with`",
    "labeled_statement": "labels", "statement_identifier": "labels", "debugger_statement": "`debugger`",
    "import_statement": "modules", "export_statement": "modules", "import": "dynamic import()",
    "meta_property": "`new.target` / `import.meta`", "hash_bang_line": "a #! line",
    "html_comment": "HTML-like comments", "jsx_element": "JSX", "jsx_self_closing_element": "JSX",
    "decorator": "decorators", "object_pattern_assignment": "destructuring assignment",
}
REFUSED_OPERATORS = {"delete": "`delete`", "instanceof": "`instanceof`", "in": "the `in` operator"}
# Invisible or unusual characters that readers (and parsers) disagree on.
ODD_CHARACTERS = re.compile("[\u2028\u2029\ufeff\u200b-\u200f\u2060-\u2064\u202a-\u202e\u00ad]")
# Array methods whose callback's second parameter is the element's index (a number).
INDEXED_CALLBACKS = frozenset({"forEach", "map", "filter", "some", "every", "find", "findIndex", "flatMap",
                               "findLast", "findLastIndex"})
NUMERIC_P5 = L.P5_VALUES - {"random", "shuffle", "str", "hex", "nf", "nfc", "nfp", "nfs", "boolean"}
P5_HOOKS_REFUSED = frozenset({
    "preload", "mousePressed", "mouseReleased", "mouseClicked", "mouseMoved", "mouseDragged", "mouseWheel",
    "doubleClicked", "keyPressed", "keyReleased", "keyTyped", "touchStarted", "touchMoved", "touchEnded",
    "windowResized", "deviceMoved", "deviceTurned", "deviceShaken",
})
# p5 functions whose results are p5 objects (drawing ones are refused by other rules too).
EFFECTS = V.P5_PRIMITIVES | V.P5_RAW | V.P5_TEXT | V.CANVAS_CHANGERS
# Names other rules refuse wherever they appear (network, text, pixels, bare p5 drawing, windows).
EXPLAINED = (V.EXTERNAL_NAMES | V.P5_TEXT | V.P5_RAW | V.P5_PRIMITIVES | V.CANVAS_CHANGERS | V.GLOBAL_OBJECTS) \
    - L.P5_FUNCTIONS


def html_comment(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    """`<!--` and `-->` are line comments to V8 but operators (or nothing) to the parser the
    gate reads: code after them would run unseen. Refused anywhere, even in strings."""
    for token in ("<!--", "-->"):
        start = code.find(token)
        if start >= 0:
            yield (f"`{token}` starts an HTML-like comment in browsers, which hides code from the gate; "
                   "write `a < !b` or `x-- > 0` with spaces"), code.count("\n", 0, start) + 1


def outside_language(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    if facts.root.has_error:  # a sketch that does not parse is `syntax_error`; its tree is guesswork
        return
    for match in ODD_CHARACTERS.finditer(code):
        yield (f"invisible or unusual character U+{ord(match.group()):04X}; write plain text",
               code.count("\n", 0, match.start()) + 1)
        break
    for node in _named_nodes(facts.root):
        problem = _syntax_problem(node, facts)
        if problem:
            yield problem, line(node)
    for name, node, scope in facts.decls:
        if scope.type != "program":
            continue
        if name in P5_HOOKS_REFUSED:
            yield f"p5 would call `{name}` with browser events; only setup() and draw() are sketch hooks", line(node)
        elif name in L.P5_HOOKS and node.parent is not None and node.parent.type == "function_declaration":
            params = node.parent.child_by_field_name("parameters")
            if params is not None and params.named_children:
                yield f"{name}() takes no parameters (p5 passes none the sketch may use)", line(node)


def _named_nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_named:
            yield node
        stack.extend(reversed(node.children))


def _syntax_problem(node: Node, facts: Facts) -> str | None:
    t = node.type
    if t not in ALLOWED_NODES:
        return f"{REFUSED.get(t, t.replace('_', ' '))} are outside the sketch language"
    if t in ("function_declaration", "function_expression", "function", "arrow_function", "method_definition") \
            and any(c.type in ("async", "*") for c in node.children):
        return "async functions and generators are outside the sketch language"
    if t in ("unary_expression", "binary_expression"):
        op = node.child_by_field_name("operator")
        if op is not None and text(op) in REFUSED_OPERATORS:
            return f"{REFUSED_OPERATORS[text(op)]} is outside the sketch language"
    if t == "call_expression":
        args = node.child_by_field_name("arguments")
        if args is not None and args.type == "template_string":
            return "tagged templates are outside the sketch language"
    if t == "arrow_function" and not _arrow_position_ok(node):
        return ("an arrow function cannot be an operand here: browsers end it and read what follows as a new "
                "statement (a parser differential); wrap it in parentheses or give it a name")
    if t == "new_expression":
        return _new_problem(node, facts)
    if t == "catch_clause" and node.child_by_field_name("parameter") is not None:
        return "a catch parameter holds whatever the library threw: write `catch { ... }` without one"
    if t == "method_definition":
        return _method_problem(node)
    if t == "class_declaration":
        return _class_problem(node)
    return None


# Where JavaScript's grammar admits an arrow function (an AssignmentExpression). Tree-sitter is
# more lenient: it reads `() => {}\n/re/g` as a division where V8 inserts a semicolon.
ARROW_PARENTS = frozenset({
    "variable_declarator", "assignment_expression", "augmented_assignment_expression", "arguments", "array",
    "pair", "return_statement", "parenthesized_expression", "expression_statement", "sequence_expression",
    "spread_element", "template_substitution", "assignment_pattern", "object_assignment_pattern",
    "arrow_function", "throw_statement", "switch_case", "for_in_statement",
})


def _arrow_position_ok(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "ternary_expression":
        return parent.child_by_field_name("condition") != node
    if parent.type == "for_in_statement":
        return parent.child_by_field_name("right") == node
    return parent.type in ARROW_PARENTS


def _new_problem(node: Node, facts: Facts) -> str | None:
    ctor = node.child_by_field_name("constructor")
    if ctor is not None and ctor.type == "identifier":
        name = text(ctor)
        if facts.resolves_locally(name, ctor) and name in _own_classes(facts):
            return None
        if name in L.JS_CONSTRUCTORS and not facts.resolves_locally(name, ctor):
            return None
    return (f"`new {text(ctor)[:40] if ctor is not None else ''}`: only the sketch's own classes and "
            "Map, Set and Array may be constructed")


def _own_classes(facts: Facts) -> set[str]:
    return {name for name, node, _ in facts.decls if node.parent is not None
            and node.parent.type == "class_declaration"}


def _method_problem(node: Node) -> str | None:
    words = {c.type for c in node.children if not c.is_named}
    if words & {"get", "set", "static", "async", "*"}:
        return "getters, setters, static and async methods are outside the sketch language"
    name = node.child_by_field_name("name")
    if name is None or name.type != "property_identifier":
        return "methods need a plain name"
    return None


def _class_problem(node: Node) -> str | None:
    body = node.child_by_field_name("body")
    names = [text(m.child_by_field_name("name")) for m in (body.named_children if body else [])
             if m.type == "method_definition" and m.child_by_field_name("name") is not None]
    if len(names) != len(set(names)):
        return "a class defines the same method twice"
    return None


def implicit_member(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    """Names the engine calls without the sketch calling them: defining one runs code inside a
    library call; reaching one leads to constructors and prototypes."""
    if facts.root.has_error:  # a sketch that does not parse is `syntax_error`; its tree is guesswork
        return
    for m in facts.members:
        if m.prop in L.IMPLICIT_MEMBERS:
            yield f"`.{m.prop}` is called implicitly by the engine or leads to constructors", line(m.node)
    for node in _named_nodes(facts.root):
        if node.type in ("pair", "method_definition"):
            key = node.child_by_field_name("key") or node.child_by_field_name("name")
            name = _key_name(key)
            in_class = node.type == "method_definition" and node.parent is not None \
                and node.parent.type == "class_body"
            if name in L.IMPLICIT_MEMBERS and not (in_class and name == "constructor"):
                yield f"defining `{name}` runs code whenever the engine converts or awaits the value", line(node)
        elif node.type == "shorthand_property_identifier" and text(node) in L.IMPLICIT_MEMBERS:
            yield f"defining `{text(node)}` runs code whenever the engine converts the value", line(node)
        elif node.type in ("pair_pattern", "shorthand_property_identifier_pattern", "object_assignment_pattern"):
            name = _pattern_key(node)
            if name in L.IMPLICIT_MEMBERS:
                yield f"destructuring `{name}` reaches constructors or prototypes", line(node)
        elif node.type == "string" and _string_value(node) in L.IMPLICIT_MEMBERS \
                and node.parent is not None and node.parent.type == "subscript_expression":
            yield f"`[{text(node)}]` reaches an implicit member", line(node)
    functions = {name for name, node, _ in facts.decls if node.parent is not None
                 and node.parent.type in ("function_declaration", "class_declaration")}
    for call in facts.calls:
        if call.type != "call_expression" or not (_library_kind(call, facts) or _is_p5_call(call, facts)):
            continue
        args = call.child_by_field_name("arguments")
        for arg in args.named_children if args is not None else []:
            if arg.type in ("arrow_function", "function_expression", "function") or (
                    arg.type == "identifier" and text(arg) in functions and facts.resolves_locally(text(arg), arg)):
                yield (f"`{text(call)[:40]}` is given a function: the library would run the sketch's code "
                       "inside its own call"), line(arg)


def _pattern_key(node: Node) -> str | None:
    """The property a destructuring pattern reads: `{ key: x }`, `{ key }`, `{ key = 1 }`."""
    if node.type == "shorthand_property_identifier_pattern":
        return text(node)
    if node.type == "object_assignment_pattern":
        left = node.child_by_field_name("left")
        return text(left) if left is not None and left.type == "shorthand_property_identifier_pattern" else None
    return _key_name(node.child_by_field_name("key"))


def _key_name(key: Node | None) -> str | None:
    if key is None:
        return None
    if key.type == "string":
        return _string_value(key)
    return text(key)


def _string_value(node: Node) -> str:
    return text(node)[1:-1]


def unknown_name(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    """Every name the sketch did not declare must be in the language's tables."""
    if facts.root.has_error:  # a sketch that does not parse is `syntax_error`; its tree is guesswork
        return
    p5_names = L.all_p5_names()
    extra = frozenset(cfg.extra_p5_values + cfg.extra_p5_statements)
    for name, node in facts.refs:
        if facts.resolves_locally(name, node) or name in EXPLAINED or name == "brush":
            continue
        problem = _free_name_problem(name, node, p5_names, extra)
        if problem:
            yield problem, line(node)


def _free_name_problem(name: str, node: Node, p5_names: frozenset[str], extra: frozenset[str]) -> str | None:
    parent = node.parent
    called = parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node
    if name in L.P5_FUNCTIONS or name in L.JS_FUNCTIONS or name in extra:
        return None if called else f"`{name}` may only be called by name, not used as a value"
    if name in L.P5_CONSTANTS or name in L.JS_VALUES:
        return None
    if name in L.JS_CONSTRUCTORS and parent is not None and parent.type == "new_expression":
        return None
    if name in L.JS_GLOBALS:
        members = L.JS_GLOBALS[name]
        prop = parent.child_by_field_name("property") if parent is not None and parent.type == "member_expression" \
            and parent.child_by_field_name("object") == node else None
        if prop is not None and prop.type == "property_identifier" and text(prop) in members:
            return None
        return f"`{name}` may only be used as {name}.<member> with a listed member ({', '.join(sorted(members)[:8])}…)"
    if name in p5_names:
        return f"`{name}` is a p5 function or value outside the sketch language (`brushwork language` lists it)"
    return f"`{name}` is neither declared by the sketch nor part of the sketch language"


def library_result(facts: Facts, code: str, cfg: GateConfig) -> Iterator[Finding]:
    """What brush.*, p5's effect functions and colour helpers return is the library's: such a
    call stands alone as a statement, or initialises a constant nobody reads (`const cnv =
    createCanvas(...)`). A colour goes straight into another library call, or into a constant
    that is only ever passed straight into library calls."""
    if facts.root.has_error:  # a sketch that does not parse is `syntax_error`; its tree is guesswork
        return
    for call in facts.calls:
        if call.type != "call_expression":
            continue
        kind = _library_kind(call, facts, cfg.extra_p5_statements)
        if kind is None:
            continue
        parent = call.parent
        if kind == "colour":
            if not (_is_library_argument(call, facts) or _stored_for_library(call, facts, only_arguments=True)):
                yield (f"`{text(call)[:40]}` returns a p5.Color: pass it (or a constant holding it) straight into "
                       "brush.fill / background, never inspect it"), line(call)
        elif (parent is None or parent.type != "expression_statement") \
                and not _stored_for_library(call, facts, only_arguments=False):
            yield (f"`{text(call)[:40]}` returns a library object; call it as a statement and do not use "
                   "its result"), line(call)


def _stored_for_library(call: Node, facts: Facts, only_arguments: bool) -> bool:
    """`const name = call(...)` where `name` is never assigned again and every read of it is
    an argument of a library call (`only_arguments`) or there is no read at all."""
    declarator = call.parent
    if declarator is None or declarator.type != "variable_declarator" \
            or declarator.child_by_field_name("value") != call:
        return False
    name_node = declarator.child_by_field_name("name")
    if name_node is None or name_node.type != "identifier":
        return False
    name = text(name_node)
    if any(t.type == "identifier" and text(t) == name for t in facts.targets):
        return False
    reads = [node for ref, node in facts.refs if ref == name]
    if not only_arguments:
        return not reads
    for node in reads:
        args = node.parent
        outer = args.parent if args is not None and args.type == "arguments" else None
        if outer is None or outer.type != "call_expression" or _library_kind(outer, facts) is None \
                and not _is_p5_call(outer, facts):
            return False
    return True


def _is_p5_call(call: Node, facts: Facts) -> bool:
    fn = call.child_by_field_name("function")
    return fn is not None and fn.type == "identifier" and not facts.resolves_locally(text(fn), fn) \
        and text(fn) in L.P5_FUNCTIONS


def _library_kind(call: Node, facts: Facts, extra_statements: tuple[str, ...] = ()) -> str | None:
    fn = call.child_by_field_name("function")
    if fn is None:
        return None
    if fn.type == "member_expression":
        obj = fn.child_by_field_name("object")
        if obj is not None and obj.type == "identifier" and not facts.resolves_locally(text(obj), obj) \
                and text(obj) in ("brush", "console"):
            return "effect"
        return None
    if fn.type != "identifier" or facts.resolves_locally(text(fn), fn):
        return None
    name = text(fn)
    if name in L.P5_STATEMENTS or name in extra_statements or name in EFFECTS:
        return "effect"
    if name in L.P5_COLOURS:
        return "colour"
    return None


def _is_library_argument(call: Node, facts: Facts) -> bool:
    args = call.parent
    if args is None or args.type != "arguments" or args.parent is None:
        return False
    outer = args.parent
    if outer.type != "call_expression":
        return False
    fn = outer.child_by_field_name("function")
    if fn is not None and fn.type == "identifier" and not facts.resolves_locally(text(fn), fn):
        return text(fn) in L.P5_FUNCTIONS
    return fn is not None and fn.type == "member_expression" and _library_kind(outer, facts) == "effect"
