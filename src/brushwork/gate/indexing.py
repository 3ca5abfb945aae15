"""Which brackets index the sketch's own values: a small kind inference over the syntax tree.

`obj[key]` is how a sketch reads `palette[i]` or `points[k][0]`, and also how an attacker
reaches `[]["constructor"]` with a name built at run time. The gate allows a bracket when
its key is a number or a plain string literal, and refuses it when the key could be text
computed at run time. Each expression gets one of three kinds:

- ``NUM``: certainly not a string (numbers, booleans, counters, arithmetic, `.length`);
- ``LIT``: at most one of the sketch's own harmless string literals;
- ``TEXT``: possibly a string built at run time (concatenation, templates, element reads,
  parameters of functions that escape, anything unknown).

Variables, parameters and return values start at ``NUM`` and rise to a fixpoint over every
value the sketch ever gives them (names are merged across scopes: a safe over-approximation).
"""

from __future__ import annotations

from brushwork.core import language as L
from brushwork.gate.syntax import Facts, Node, text

NUM, LIT, TEXT = 0, 1, 2
NUMERIC_CALLS = (L.P5_VALUES - {"random", "shuffle", "str", "hex", "nf", "nfc", "nfp", "nfs"}) \
    | {"parseInt", "parseFloat", "Number", "isNaN", "isFinite", "Boolean"}
NUMERIC_MEMBERS = frozenset({"length", "indexOf", "lastIndexOf", "findIndex", "findLastIndex", "size",
                             "includes", "has", "some", "every"})
INDEX_CALLBACKS = frozenset({"forEach", "map", "filter", "some", "every", "find", "findIndex", "flatMap",
                             "findLast", "findLastIndex"})
FUNCTION_TYPES = ("function_declaration", "function_expression", "function", "arrow_function")


class Kinds:
    """Kinds of the sketch's variables, parameters and function results, solved once per sketch."""

    def __init__(self, facts: Facts, dangerous: frozenset[str]):
        self.facts = facts
        self.dangerous = dangerous
        self.values: dict[str, int] = {}
        self.sources: dict[str, list[Node | int]] = {}
        self._collect()
        self._solve()

    def of(self, node: Node | None) -> int:
        """The kind of an expression under the solved variable kinds."""
        if node is None:
            return NUM
        t = node.type
        if t in ("number", "true", "false", "null", "undefined", "update_expression"):
            return NUM
        if t == "string" or (t == "template_string"
                             and all(c.type == "string_fragment" for c in node.named_children)):
            return TEXT if text(node)[1:-1] in self.dangerous else LIT
        if t in ("parenthesized_expression", "sequence_expression"):
            return self.of(node.named_children[-1]) if node.named_children else NUM
        if t == "assignment_expression":
            return self.of(node.child_by_field_name("right"))
        if t == "augmented_assignment_expression":  # `x += "a"` concatenates; `x -= 1` is arithmetic
            plus = text(node.child_by_field_name("operator")) in ("+=", "||=", "&&=", "??=")
            return (NUM if self.of(node.child_by_field_name("right")) == NUM else TEXT) if plus else NUM
        if t == "unary_expression":
            return NUM
        if t == "binary_expression":
            return self._binary(node)
        if t == "ternary_expression":
            return max(self.of(node.child_by_field_name("consequence")),
                       self.of(node.child_by_field_name("alternative")))
        if t == "identifier":
            return self._identifier(node)
        if t == "member_expression":
            prop = node.child_by_field_name("property")
            return NUM if prop is not None and text(prop) in NUMERIC_MEMBERS else TEXT
        if t == "call_expression":
            return self._call(node)
        return TEXT

    def _binary(self, node: Node) -> int:
        op = text(node.child_by_field_name("operator"))
        left, right = self.of(node.child_by_field_name("left")), self.of(node.child_by_field_name("right"))
        if op == "+":
            return NUM if left == right == NUM else TEXT
        if op in ("&&", "||", "??"):
            return max(left, right)
        return NUM

    def _identifier(self, node: Node) -> int:
        name = text(node)
        if not self.facts.resolves_locally(name, node):
            return NUM if name in L.P5_CONSTANTS or name in L.JS_VALUES else TEXT
        return self.values.get("var:" + name, TEXT)

    def _call(self, node: Node) -> int:
        fn = node.child_by_field_name("function")
        if fn is None:
            return TEXT
        if fn.type == "identifier":
            name = text(fn)
            if self.facts.resolves_locally(name, fn):
                return self.values.get("ret:" + name, TEXT)
            if name in NUMERIC_CALLS:
                return NUM
            if name == "random":
                args = node.child_by_field_name("arguments")
                items = args.named_children if args is not None else []
                return NUM if len(items) != 1 or self.of(items[0]) == NUM else TEXT
            return TEXT
        if fn.type == "member_expression":
            obj, prop = fn.child_by_field_name("object"), fn.child_by_field_name("property")
            if obj is not None and text(obj) in ("Math", "Number") and not self.facts.resolves_locally(text(obj), obj):
                return NUM
            if prop is not None and text(prop) in NUMERIC_MEMBERS:
                return NUM
        return TEXT

    # -- the fixpoint -----------------------------------------------------------------------

    def _add(self, key: str, source: Node | int | str) -> None:
        self.sources.setdefault(key, []).append(source)
        self.values.setdefault(key, NUM)

    def _solve(self) -> None:
        for _ in range(12):
            changed = False
            for key, sources in self.sources.items():
                value = max(self._value(s) for s in sources)
                if value > self.values[key]:
                    self.values[key] = value
                    changed = True
            if not changed:
                return
        self.values = dict.fromkeys(self.values, TEXT)  # did not settle: assume the worst

    def _value(self, source: Node | int | str) -> int:
        if isinstance(source, int):
            return source
        if isinstance(source, str):
            return self.values.get(source, TEXT)
        return self.of(source)

    def _collect(self) -> None:
        for name, node, _ in self.facts.decls:
            self._declaration(name, node)
        for target in self.facts.targets:
            parent = target.parent
            if target.type == "identifier" and parent is not None:
                if parent.type == "update_expression":
                    self._add("var:" + text(target), NUM)
                elif parent.type == "augmented_assignment_expression":
                    self._add("var:" + text(target), parent)
                else:
                    self._add("var:" + text(target), parent.child_by_field_name("right") or TEXT)
        for call in self.facts.calls:
            self._call_site(call)

    def _declaration(self, name: str, node: Node) -> None:
        parent = node.parent
        key = "var:" + name
        if parent is None:
            self._add(key, TEXT)
        elif parent.type == "variable_declarator" and parent.child_by_field_name("name") == node:
            value = parent.child_by_field_name("value")
            self._add(key, value if value is not None else NUM)
            if value is not None and value.type in FUNCTION_TYPES:
                self._function(name, value)
        elif parent.type in ("function_declaration", "class_declaration"):
            self._add(key, TEXT)  # the function itself, as a value
            if parent.type == "function_declaration":
                self._function(name, parent)
        elif parent.type == "for_in_statement":
            kind = [c for c in parent.children if c.type in ("in", "of")]
            self._add(key, NUM if kind and kind[0].type == "in" else TEXT)
        else:
            self._parameter(name, node)

    def _function(self, name: str, fn: Node) -> None:
        body = fn.child_by_field_name("body")
        if body is not None and body.type != "statement_block":
            self._add("ret:" + name, body)  # arrow with an expression body
        for ret in _returns(body):
            self._add("ret:" + name, ret.named_children[0] if ret.named_children else NUM)
        self._add("ret:" + name, NUM)

    def _parameter(self, name: str, node: Node) -> None:
        key = "var:" + name
        holder = node.parent
        if holder is not None and holder.type == "assignment_pattern":
            self._add(key, holder.child_by_field_name("right") or TEXT)
            holder = holder.parent
        fn = holder.parent if holder is not None and holder.type == "formal_parameters" else holder
        if fn is None or fn.type not in FUNCTION_TYPES or (holder is not None and holder.type not in
                                                           ("formal_parameters", "arrow_function")):
            self._add(key, TEXT)  # destructuring, catch clauses, rest: unknown shapes
            return
        params = holder.named_children if holder.type == "formal_parameters" else [node]
        position = next((i for i, p in enumerate(params) if p == node or node in _descendants(p)), -1)
        owner = _function_name(fn)
        if owner is not None and self._only_called(owner):
            self._add(f"param:{owner}:{position}", NUM)
            self._add(key, TEXT if position < 0 else f"param:{owner}:{position}")
            return
        self._add(key, NUM if position == 1 and _index_callback(fn) else TEXT)

    def _only_called(self, name: str) -> bool:
        refs = [n for ref, n in self.facts.refs if ref == name]
        return bool(refs) and all(n.parent is not None and n.parent.type == "call_expression"
                                  and n.parent.child_by_field_name("function") == n for n in refs)

    def _call_site(self, call: Node) -> None:
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "identifier" or not self.facts.resolves_locally(text(fn), fn):
            return
        args = call.child_by_field_name("arguments")
        for i, arg in enumerate(args.named_children if args is not None else []):
            key = f"param:{text(fn)}:{i}"
            self._add(key, TEXT if arg.type == "spread_element" else arg)


def _returns(body: Node | None):
    if body is None:
        return
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            yield node
        elif node.type not in FUNCTION_TYPES and node.type not in ("class_declaration", "method_definition"):
            stack.extend(node.named_children)


def _descendants(node: Node):
    stack = list(node.named_children)
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


def _function_name(fn: Node) -> str | None:
    if fn.type == "function_declaration":
        name = fn.child_by_field_name("name")
        return text(name) if name is not None else None
    parent = fn.parent
    if parent is not None and parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
        return text(name) if name is not None and name.type == "identifier" else None
    return None


def _index_callback(fn: Node) -> bool:
    """An inline callback of an array method whose second argument is the index."""
    args = fn.parent
    call = args.parent if args is not None and args.type == "arguments" else None
    callee = call.child_by_field_name("function") if call is not None else None
    if callee is None or callee.type != "member_expression":
        return False
    prop = callee.child_by_field_name("property")
    return prop is not None and text(prop) in INDEX_CALLBACKS and args.named_children[0] == fn
