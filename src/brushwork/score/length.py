"""The length term's measure: how many tokens of code a sketch has, counted on its syntax tree.

The public recipe's reward pays a little for longer sketches, so the count may only grow with code
that runs. It counts the leaves of the tree-sitter tree (an identifier, a number, an operator
or a bracket is one token; comments and whitespace are not in the tree), except:

- literal data beyond a bound: the literal entries of an array or object literal (numbers,
  strings, signed numbers, nested literal arrays/objects) count their first `LITERAL_BOUND`
  tokens, and a string literal counts one token per 4 characters, at most `STRING_TOKENS`;
- code that never runs: top-level functions, classes and side-effect-free variables that no
  live code names (setup, draw and preload are live, and so is every other top-level
  statement), statements after return/throw/break/continue in their block, the branch of an
  `if` or the body of a `while` that a constant condition (`false`, `0`, `!1`, …) rules out;
- code that does nothing new: expression statements without a call, assignment, update or
  `delete` (`0;`, `"pad";`, `;;`), a statement or run of statements that repeats, verbatim, the
  run just before it in its block (`a; a; a;`, `a; b; a; b;`), and a top-level statement
  repeated verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from brushwork.gate.syntax import FUNCTIONS, parser

LITERAL_BOUND = 128  # honest palettes and point lists measure <= 81 tokens (corpus + pool sources)
STRING_TOKENS = 3    # a colour "#88aacc" is 3; a 10,000-character string is 3 too
ROOTS = frozenset({"setup", "draw", "preload"})  # the p5 callbacks a render runs

IGNORED = frozenset({"comment", "html_comment", "empty_statement", "hash_bang_line"})
LITERAL_LEAVES = frozenset({"number", "true", "false", "null", "undefined"})
STRINGS = frozenset({"string", "regex"})
EFFECTS = frozenset({"call_expression", "new_expression", "assignment_expression",
                     "augmented_assignment_expression", "update_expression", "await_expression",
                     "yield_expression"})
STATEMENT_LISTS = frozenset({"statement_block", "switch_case", "switch_default"})
TERMINATORS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
HOISTED = frozenset({"function_declaration", "generator_function_declaration"})
DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration", "class_declaration"})
VARIABLES = frozenset({"lexical_declaration", "variable_declaration"})
REFERENCES = frozenset({"identifier", "shorthand_property_identifier"})


def count_tokens(code: str) -> int:
    """Tokens of `code` that count for the length term (see the module docstring)."""
    root = parser().parse(code.encode("utf-8", "replace")).root_node
    walk = _Walk(_effects(root))
    pieces: list[_Piece] = []
    for statement in root.children:
        pieces.extend(_pieces(statement, walk))
    seen: set[int] = set()
    for piece in pieces:  # a top-level statement repeated verbatim counts once
        if piece.sig is not None and piece.sig in seen:
            piece.tokens = 0
        seen.add(piece.sig)
    live = _live_names(pieces)
    alive = [p for p in pieces if not p.names or any(n in live for n in p.names)]
    return sum(p.tokens for p in alive) + sum({id(p.group): p.overhead for p in alive if p.group}.values())


@dataclass(eq=False)
class _Piece:
    """A top-level statement, or one declarator of a top-level `const`/`let`/`var`."""

    tokens: int
    sig: int | None
    refs: set[str]
    names: tuple[str, ...] = ()   # names it declares, when it is dead unless named elsewhere
    group: object | None = None   # the declaration a declarator belongs to
    overhead: int = 0             # that declaration's keyword and punctuation


def _pieces(statement: Node, walk: _Walk) -> list[_Piece]:
    t = statement.type
    if t in DECLARATIONS and (name := statement.child_by_field_name("name")) is not None:
        tokens, sig, refs = walk.measure(statement)
        own = _text(name)
        return [_Piece(tokens, sig, refs - {own}, () if own in ROOTS else (own,))]
    if t in VARIABLES:
        declarators = [c for c in statement.named_children if c.type == "variable_declarator"]
        overhead = sum(1 for c in statement.children if c.type != "variable_declarator" and _width(c)
                       and c.type not in IGNORED)
        group = object()
        return [_declarator(d, walk, group, overhead) for d in declarators]
    tokens, sig, refs = walk.measure(statement)
    return [_Piece(tokens, sig, refs)]


def _declarator(declarator: Node, walk: _Walk, group: object, overhead: int) -> _Piece:
    tokens, sig, refs = walk.measure(declarator)
    name = declarator.child_by_field_name("name")
    value = declarator.child_by_field_name("value")
    if name is None or name.type != "identifier" or (value is not None and value.id in walk.effects):
        return _Piece(tokens, sig, refs, (), group, overhead)  # runs something: always live
    own = _text(name)
    return _Piece(tokens, sig, refs - {own}, () if own in ROOTS else (own,), group, overhead)


def _live_names(pieces: list[_Piece]) -> set[str]:
    declared: dict[str, list[_Piece]] = {}
    for piece in pieces:
        for name in piece.names:
            declared.setdefault(name, []).append(piece)
    pending = [ref for p in pieces if not p.names for ref in p.refs]
    live: set[str] = set()
    while pending:
        name = pending.pop()
        if name in live:
            continue
        live.add(name)
        for piece in declared.get(name, ()):
            pending.extend(piece.refs)
    return live


def _effects(root: Node) -> set[int]:
    """Ids of the nodes whose evaluation calls, assigns, updates or deletes something."""
    marked: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in EFFECTS or (node.type == "unary_expression" and node.child(0).type == "delete"):
            cur = node
            while cur is not None and cur.id not in marked and cur.type not in FUNCTIONS:
                marked.add(cur.id)  # defining a function runs none of its body
                cur = cur.parent
        stack.extend(node.children)
    return marked


@dataclass
class _Walk:
    """Counts one subtree bottom-up: (tokens, literal?, signature) per node."""

    effects: set[int]
    refs: set[str] = field(default_factory=set)

    def measure(self, top: Node) -> tuple[int, int | None, set[str]]:
        self.refs = set()
        done: dict[int, tuple[int, bool, int | None]] = {}
        stack: list[tuple[Node, list[Node] | None]] = [(top, None)]
        while stack:
            node, kids = stack[-1]
            if kids is None:
                leaf = self._leaf(node)
                if leaf is not None:
                    done[node.id] = leaf
                    stack.pop()
                    continue
                kids = _kids(node)
                stack[-1] = (node, kids)
                stack.extend((k, None) for k in reversed(kids))
                continue
            stack.pop()
            done[node.id] = _combine(node, kids, [done[k.id] for k in kids])
        tokens, _, sig = done[top.id]
        return tokens, sig, self.refs

    def _leaf(self, node: Node) -> tuple[int, bool, int | None] | None:
        t = node.type
        if t in IGNORED or not _width(node) or (t == "expression_statement" and node.id not in self.effects):
            return 0, True, None
        if t in STRINGS or (t == "template_string" and not _substitutions(node)):
            return _string_tokens(_width(node) - 2), True, hash(node.text)
        if node.child_count == 0:
            if t in REFERENCES:
                self.refs.add(_text(node))
            return 1, t in LITERAL_LEAVES or not node.is_named, hash((t, node.text))
        return None


def _kids(node: Node) -> list[Node]:
    """The children that can run: constant conditions and code after a return are left out."""
    t = node.type
    if t == "if_statement":
        truth = _constant(node.child_by_field_name("condition"))
        if truth is None:
            return node.children
        branch = node.child_by_field_name("consequence" if truth else "alternative")
        if branch is not None and branch.type == "else_clause":
            branch = branch.named_children[-1] if branch.named_children else None
        return [branch] if branch is not None else []
    if t == "while_statement" and _constant(node.child_by_field_name("condition")) is False:
        return []
    if t == "template_string":
        return _substitutions(node)
    if t in STATEMENT_LISTS:
        kids, ended = [], False
        for child in node.children:
            if not ended or child.type in HOISTED or not child.is_named:
                kids.append(child)
            ended = ended or child.type in TERMINATORS
        return kids
    return node.children


def _combine(node: Node, kids: list[Node], results: list[tuple[int, bool, int | None]]) -> tuple:
    t = node.type
    if t in ("array", "object"):
        data = sum(n for n, literal, _ in results if literal)
        code = sum(n for n, literal, _ in results if not literal)
        tokens, literal = code + min(data, LITERAL_BOUND), code == 0
    elif t in STATEMENT_LISTS:
        statements = [(n, sig) for kid, (n, _, sig) in zip(kids, results, strict=True) if kid.is_named and n]
        repeated = _repeats([sig for _, sig in statements])
        tokens = sum(n for kid, (n, _, _) in zip(kids, results, strict=True) if not kid.is_named)
        tokens += sum(n for i, (n, _) in enumerate(statements) if i not in repeated)
        literal = False
    else:
        tokens = sum(n for n, _, _ in results)
        if t == "template_string":
            fragments = sum(_width(c) for c in node.named_children if c.type != "template_substitution")
            tokens += _string_tokens(fragments)
        literal = _literal_compound(node, results)
    sigs = tuple(s for _, _, s in results if s is not None)
    return tokens, literal, hash((t, sigs)) if tokens else None


def _repeats(sigs: list[int | None]) -> set[int]:
    """Indices of statements that repeat the run just before them (`a a a`, `a b a b`).
    Only an immediate repeat counts: an honest block may well begin two shapes alike."""
    repeated: set[int] = set()
    earlier: dict[int | None, list[int]] = {}
    i = 0
    while i < len(sigs):
        for j in reversed(earlier.get(sigs[i], [])[-64:]):  # bounded: time stays linear
            period = i - j
            if i + period <= len(sigs) and all(sigs[i + k] == sigs[j + k] for k in range(period)):
                repeated.update(range(i, i + period))
                for k in range(i, i + period):
                    earlier.setdefault(sigs[k], []).append(k)
                i += period
                break
        else:
            earlier.setdefault(sigs[i], []).append(i)
            i += 1
    return repeated


def _literal_compound(node: Node, results) -> bool:
    t = node.type
    if t == "pair":
        key = node.child_by_field_name("key")
        return key is not None and key.type in ("property_identifier", "string", "number") \
            and results[-1][1]
    if t == "unary_expression":
        return node.child(0).type in ("-", "+") and all(literal for _, literal, _ in results)
    return False


def _constant(condition: Node | None) -> bool | None:
    """The truth of a condition made only of literals, or None when it depends on anything."""
    node = condition
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None:
        return None
    t = node.type
    if t in ("false", "null", "undefined"):
        return False
    if t == "true":
        return True
    if t == "number":
        try:
            return float(int(_text(node), 0) if _text(node)[:2].lower() in ("0x", "0o", "0b") else _text(node)) != 0
        except ValueError:
            return None
    if t == "string":
        return _width(node) > 2
    if t == "unary_expression" and node.child(0).type in ("!", "void"):
        inner = _constant(node.named_children[0])
        return None if inner is None else node.child(0).type == "!" and not inner
    return None


def _substitutions(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type == "template_substitution"]


def _string_tokens(chars: int) -> int:
    return min(STRING_TOKENS, 1 + (max(chars, 0) + 3) // 4)


def _width(node: Node) -> int:
    return node.end_byte - node.start_byte


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")
