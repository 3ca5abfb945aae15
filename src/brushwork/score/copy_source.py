"""The source side of copy detection: is a sketch a pool sketch rewritten?

A sketch is read by the project's JavaScript parser (`gate.syntax`) into its leaf tokens,
comments dropped and identifiers abstracted (renaming changes nothing). Two token streams are
fingerprinted, each by winnowing (`WINDOW`) over hashed `K`-grams: one keeps the numbers and
strings (it survives renaming, reordered helpers, comments and dead code), one abstracts the
numbers too (it survives changed numbers, keeping the colour strings).

Every honest sketch shares the recipe's skeleton (setup, a `wash` helper, brush calls), and the
bundled pool's own sketches are templates of one another, so only fingerprints *distinctive*
of one pool sketch count: those in no other pool sketch. The similarity to a pool sketch is the
share of its distinctive fingerprints the candidate contains, on the stream that finds more;
a pool sketch with fewer than `MIN_DISTINCT` distinctive fingerprints on a stream cannot be
recognised by it (the picture side still can).
"""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass

from brushwork.gate.syntax import parser

K = 8                 # tokens per k-gram
WINDOW = 4            # winnowing window, k-grams
MIN_DISTINCT = 10     # distinctive fingerprints a pool sketch needs on a stream to be recognised by it
_ABSTRACT = {"identifier": "I", "property_identifier": "P", "shorthand_property_identifier": "I",
             "shorthand_property_identifier_pattern": "I", "private_property_identifier": "P",
             "regex_pattern": "R"}
STREAMS = ("literal", "shape")   # shape: numbers abstracted


@dataclass(frozen=True)
class SourceMatch:
    id: str
    similarity: float     # share of the pool sketch's distinctive fingerprints found, 0..1
    stream: str           # which stream found it: literal or shape


def tokens(code: str, numbers: bool) -> list[str]:
    """The sketch's leaf tokens in source order, comments dropped, identifiers abstracted
    (numbers too unless `numbers`); strings keep their (lower-cased) text."""
    stack, out = [parser().parse(code.encode("utf-8")).root_node], []
    while stack:
        node = stack.pop()
        if node.type == "comment":
            continue
        if node.child_count:
            stack.extend(reversed(node.children))
        elif node.type == "number":
            out.append(node.text.decode() if numbers else "N")
        elif node.type == "string_fragment":
            out.append(node.text.decode("utf-8", "replace").lower())
        else:
            out.append(_ABSTRACT.get(node.type, node.type))
    return out


def fingerprints(stream: list[str]) -> frozenset[int]:
    """Winnowed hashes of the stream's K-grams: the minimum of every window of WINDOW."""
    grams = [zlib.crc32("\x1f".join(stream[i:i + K]).encode()) for i in range(len(stream) - K + 1)]
    if len(grams) <= WINDOW:
        return frozenset(grams)
    return frozenset(min(grams[i:i + WINDOW]) for i in range(len(grams) - WINDOW + 1))


def sketch_fingerprints(code: str) -> dict[str, frozenset[int]]:
    return {"literal": fingerprints(tokens(code, True)), "shape": fingerprints(tokens(code, False))}


class SourceIndex:
    """The pool's sketches, as the fingerprints distinctive of each."""

    def __init__(self, sources: dict[str, str]):
        prints = {pid: sketch_fingerprints(code) for pid, code in sources.items()}
        self.distinct: dict[str, dict[str, frozenset[int]]] = {pid: {} for pid in prints}
        for stream in STREAMS:
            seen = Counter(h for fp in prints.values() for h in fp[stream])
            for pid, fp in prints.items():
                unique = frozenset(h for h in fp[stream] if seen[h] == 1)
                if len(unique) >= MIN_DISTINCT:
                    self.distinct[pid][stream] = unique

    def nearest(self, code: str) -> SourceMatch | None:
        """The pool sketch whose distinctive fingerprints this sketch contains most of."""
        cand = sketch_fingerprints(code)
        best = None
        for pid, streams in self.distinct.items():
            for stream, unique in streams.items():
                share = len(unique & cand[stream]) / len(unique)
                if best is None or share > best.similarity:
                    best = SourceMatch(pid, share, stream)
        return best
