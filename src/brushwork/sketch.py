"""Reply -> sketch: find the p5.js program inside a model's reply.

A reply may hold a fenced block (```js, ```javascript, ```p5, or a bare fence), several
blocks, prose around them, a reasoning section, or no fence at all. A fence that never
closes (a truncated reply) still yields its code, so the gate can call it a syntax error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w.+-]*)[^\n]*$", re.MULTILINE)
_JS_TAGS = {"", "js", "javascript", "p5", "p5js", "p5.js", "jsx", "mjs", "ecmascript", "node"}
_CODE_START = re.compile(
    r"^[ \t]*(function\b|let\b|const\b|var\b|class\b|//|/\*|async\s+function\b|'use strict'|\"use strict\")",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Sketch:
    """The code of one sketch and where it came from in the reply."""

    code: str
    fenced: bool
    language: str = "javascript"
    start_line: int = 1  # 1-based line of the reply where `code` begins
    truncated: bool = False

    @property
    def chars(self) -> int:
        return len(self.code)


def extract_sketch(reply: str) -> Sketch | None:
    """The sketch in `reply`, or None when there is no code to speak of."""
    if not reply or not reply.strip():
        return None
    text = _THINK.sub(lambda m: "\n" * m.group(0).count("\n"), reply)
    blocks = list(_fenced_blocks(text))
    if blocks:
        js = [b for b in blocks if b.language.lower() in _JS_TAGS] or blocks
        with_setup = [b for b in js if re.search(r"\bsetup\b", b.code)]
        return max(with_setup or js, key=lambda b: len(b.code))
    return _unfenced(text)


def _fenced_blocks(text: str):
    """Each fenced block in order, in one pass over the fences: a fence closes the open block
    when it has the same character, at least its length and no info string; every other fence
    opens the next block. Line numbers are counted forward, never from the start again."""
    line, counted = 1, 0
    opening = None
    for fence in _FENCE.finditer(text):
        mark = fence.group(1)
        if opening is None:
            opening = fence
            continue
        first = opening.group(1)
        if mark[0] != first[0] or len(mark) < len(first) or fence.group(2):
            continue
        start = opening.end() + 1
        line, counted = line + text.count("\n", counted, start), start
        yield _block(text[start:fence.start()], opening, line, truncated=False)
        opening = None
    if opening is not None:    # a fence that never closes: a truncated reply still yields its code
        start = opening.end() + 1
        yield _block(text[start:], opening, line + text.count("\n", counted, start), truncated=True)


def _block(code: str, opening: re.Match, line: int, truncated: bool) -> Sketch:
    return Sketch(code=code.rstrip("\n") + "\n", fenced=True, language=opening.group(2) or "", start_line=line,
                  truncated=truncated)


def _unfenced(text: str) -> Sketch | None:
    m = _CODE_START.search(text)
    if not m or not re.search(r"\b(setup|draw|createCanvas|brush)\b", text):
        return None
    start = m.start()
    code = text[start:]
    # Drop trailing prose: keep through the last line that closes a block or ends a statement.
    lines = code.rstrip().split("\n")
    while lines and not re.search(r"[};)]\s*(//.*)?$", lines[-1]) and not lines[-1].strip().startswith("//"):
        lines.pop()
    if not lines:
        return None
    return Sketch(code="\n".join(lines) + "\n", fenced=False, start_line=text.count("\n", 0, start) + 1)
