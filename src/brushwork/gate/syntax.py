"""Facts about a sketch's syntax tree, gathered in one walk of a real JavaScript parser.

The gate's static rules read these facts, never the raw text: comments and string
contents cannot trigger a rule, and spacing or line breaks cannot hide a construct.
References are resolved against the sketch's own declarations (scopes), so a local
helper called `line` is not p5's `line`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

FUNCTIONS = frozenset({"function_declaration", "function_expression", "function", "arrow_function",
                       "method_definition", "generator_function_declaration", "generator_function"})
BLOCKS = frozenset({"statement_block", "for_statement", "for_in_statement", "class_body", "catch_clause",
                    "switch_body"})
DECLARATION_PATTERNS = frozenset({"identifier", "shorthand_property_identifier_pattern"})


@functools.cache
def parser() -> Parser:
    return Parser(Language(tree_sitter_javascript.language()))


def key(node: Node) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")


def ident(node: Node) -> str:
    """An identifier as the engine reads it: `\\u0072ect` is `rect`."""
    raw = text(node)
    if "\\" not in raw:
        return raw
    try:
        return _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), raw)
    except (ValueError, OverflowError):
        return raw


def line(node: Node) -> int:
    return node.start_point[0] + 1


@dataclass
class Member:
    node: Node
    obj: Node
    prop: str
    called: bool


@dataclass
class Facts:
    """What the walk found. Node lists keep source order."""

    root: Node
    refs: list[tuple[str, Node]] = field(default_factory=list)          # identifier references
    members: list[Member] = field(default_factory=list)                  # a.b
    subscripts: list[Node] = field(default_factory=list)                 # a[b]
    calls: list[Node] = field(default_factory=list)                      # f(...)
    targets: list[Node] = field(default_factory=list)                    # assigned / updated / deleted
    decls: list[tuple[str, Node, Node]] = field(default_factory=list)    # (name, node, scope)
    this_nodes: list[Node] = field(default_factory=list)
    special: list[tuple[str, Node]] = field(default_factory=list)        # with, import, meta, export
    errors: list[Node] = field(default_factory=list)
    _scopes: dict[str, set[tuple[int, int, str]]] | None = None

    def declared_scopes(self, name: str) -> set[tuple[int, int, str]]:
        if self._scopes is None:
            self._scopes = {}
            for n, _, scope in self.decls:
                self._scopes.setdefault(n, set()).add(key(scope))
        return self._scopes.get(name, set())

    def resolves_locally(self, name: str, node: Node) -> bool:
        """True when `name` at `node` refers to one of the sketch's own declarations."""
        scopes = self.declared_scopes(name)
        if not scopes:
            return False
        cur = node.parent
        while cur is not None:
            if key(cur) in scopes:
                return True
            cur = cur.parent
        return False


def parse(code: str) -> Facts:
    tree = parser().parse(code.encode("utf-8", "replace"))
    facts = Facts(root=tree.root_node)
    _walk(tree.root_node, facts)
    return facts


def _scope_of(node: Node, var: bool) -> Node:
    cur = node.parent
    while cur is not None:
        if cur.type in FUNCTIONS or cur.type == "program":
            return cur
        if not var and cur.type in BLOCKS:
            return cur
        cur = cur.parent
    return node


def _declare(pattern: Node, facts: Facts, scope: Node) -> None:
    if pattern.type in DECLARATION_PATTERNS:
        facts.decls.append((ident(pattern), pattern, scope))
        return
    for child in pattern.named_children:
        if child.type in ("assignment_pattern", "object_assignment_pattern"):
            target = child.child_by_field_name("left")
            if target is not None:
                _declare(target, facts, scope)
        elif child.type == "pair_pattern":
            value = child.child_by_field_name("value")
            if value is not None:
                _declare(value, facts, scope)
        elif child.type in ("rest_pattern", "array_pattern", "object_pattern") or child.type in DECLARATION_PATTERNS:
            _declare(child, facts, scope)


def _is_declaration_name(node: Node, parent: Node) -> bool:
    ptype = parent.type
    if ptype in ("function_declaration", "function_expression", "class_declaration", "class",
                 "generator_function_declaration", "generator_function"):
        return parent.child_by_field_name("name") == node
    if ptype == "variable_declarator":
        return parent.child_by_field_name("name") == node
    if ptype in ("formal_parameters", "rest_pattern", "array_pattern", "object_pattern", "catch_clause"):
        return True
    if ptype in ("assignment_pattern", "object_assignment_pattern"):
        return parent.child_by_field_name("left") == node and parent.parent is not None \
            and parent.parent.type in ("formal_parameters", "object_pattern", "array_pattern")
    if ptype == "arrow_function":
        return parent.child_by_field_name("parameter") == node
    if ptype in ("labeled_statement", "break_statement", "continue_statement"):
        return True  # labels are not references
    if ptype == "pair_pattern":
        return parent.child_by_field_name("value") == node
    if ptype == "for_in_statement":
        return parent.child_by_field_name("left") == node and parent.child_by_field_name("kind") is not None
    return False


def _walk(root: Node, facts: Facts) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        t = node.type
        if node.is_error or node.is_missing:
            facts.errors.append(node)
        if t == "identifier":
            parent = node.parent
            if parent is not None and not _is_declaration_name(node, parent):
                facts.refs.append((ident(node), node))
        elif t == "shorthand_property_identifier":
            facts.refs.append((ident(node), node))
        elif t == "member_expression":
            obj = node.child_by_field_name("object")
            prop = node.child_by_field_name("property")
            parent = node.parent
            called = parent is not None and parent.type == "call_expression" \
                and parent.child_by_field_name("function") == node
            facts.members.append(Member(node, obj, ident(prop) if prop is not None else "", called))
        elif t == "subscript_expression":
            facts.subscripts.append(node)
        elif t in ("call_expression", "new_expression"):
            facts.calls.append(node)
        elif t in ("assignment_expression", "augmented_assignment_expression"):
            left = node.child_by_field_name("left")
            if left is not None:
                facts.targets.append(left)
        elif t == "update_expression" or (t == "unary_expression" and node.child(0) is not None
                                          and node.child(0).type == "delete"):
            arg = node.child_by_field_name("argument")
            if arg is not None:
                facts.targets.append(arg)
        elif t == "this":
            facts.this_nodes.append(node)
        elif t in ("with_statement", "import_statement", "export_statement", "meta_property", "import",
                   "debugger_statement"):
            facts.special.append((t, node))
        _collect_declarations(node, t, facts)
        stack.extend(reversed(node.children))


def _collect_declarations(node: Node, t: str, facts: Facts) -> None:
    if t == "variable_declarator":
        name = node.child_by_field_name("name")
        if name is not None:
            is_var = node.parent is not None and node.parent.type == "variable_declaration"
            _declare(name, facts, _scope_of(node, var=is_var))
    elif t in ("function_declaration", "generator_function_declaration", "class_declaration"):
        name = node.child_by_field_name("name")
        if name is not None:
            facts.decls.append((ident(name), name, _scope_of(node, var=t != "class_declaration")))
    elif t in ("function_expression", "function", "generator_function", "class"):
        name = node.child_by_field_name("name")
        if name is not None:  # a named function expression sees its own name
            facts.decls.append((ident(name), name, node))
    elif t == "formal_parameters" and node.parent is not None:
        _declare(node, facts, node.parent)
    elif t == "arrow_function":
        param = node.child_by_field_name("parameter")
        if param is not None:
            facts.decls.append((ident(param), param, node))
    elif t == "catch_clause":
        param = node.child_by_field_name("parameter")
        if param is not None:
            _declare(param, facts, node)
    elif t == "for_in_statement":
        left = node.child_by_field_name("left")
        kind = node.child_by_field_name("kind")
        if left is not None and kind is not None:
            _declare(left, facts, _scope_of(left, var=text(kind) == "var"))
