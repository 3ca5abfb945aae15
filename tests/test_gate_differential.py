"""Parser differentials: the gate reads sketches with tree-sitter, the browser runs them with
V8. Where the two disagree about what is code, code can hide from the static rules (the
`<!--` attack). The static rules are early reasons, not the boundary (the sketch runs in its
own realm), so a differential can hide a reason, never paint. A spec-faithful parser (acorn,
classic-script goal with Annex B's HTML-like comments, as V8 runs the sketch) is the oracle:

- on every honest sketch the two agree exactly (same identifiers at the same places);
- every red-team sketch on which they disagree is refused statically or listed harmless;
- of 3,000 fuzzed sketches (comment, string, regex and line-terminator tokens spliced into
  honest ones, with a bare rect, a fetch or a text as payload), those that disagree and pass
  the static rules are refused when rendered, by what the sketch realm saw them call.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from brushwork.gate import Gate
from brushwork.gate.syntax import parser
from brushwork.sketch import extract_sketch

GATE = Gate()   # the recipe's configuration

ROOT = Path(__file__).resolve().parents[1]
ORACLE = Path(__file__).parent / "js" / "acorn_identifiers.js"
IDENTIFIER_TYPES = frozenset({"identifier", "property_identifier", "shorthand_property_identifier",
                              "shorthand_property_identifier_pattern", "private_property_identifier",
                              "statement_identifier"})
# Tokens on which JavaScript readers are known to differ, spliced into honest sketches.
TRICKY = ["<!--", "-->", "\n-->", "\n--> ", "/", "\n/", "/*", "*/", "//", "\u2028", "\u2029", "`", '"', "'",
          "() => {}\n", "() => {}\n/", "\r", "#!", "\ufeff", "${", "}", "\\", "\n<!-- ", "/*\n*/-->", "a\n++"]

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node (installed by `make setup`) not found")


def honest_codes() -> list[str]:
    paths = sorted((ROOT / "src/brushwork/examples/pool/sources").glob("*.js")) \
        + sorted((ROOT / "benchmarks/sketches").glob("*.js")) + sorted((ROOT / "tests/corpus/honest").glob("*.md"))
    return [extract_sketch(p.read_text()).code for p in paths]


def acorn(codes: list[str]) -> list[dict]:
    done = subprocess.run(["node", str(ORACLE)], input=json.dumps(codes), capture_output=True, text=True,
                          timeout=120, cwd=ROOT, check=True)
    return json.loads(done.stdout)


def tree_sitter_identifiers(code: str) -> list[list[int]] | None:
    """Identifier ranges in UTF-16 units (acorn's), or None when tree-sitter finds an error."""
    data = code.encode("utf-8", "replace")
    tree = parser().parse(data)
    if tree.root_node.has_error:
        return None
    units = _utf16_offsets(data)
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in IDENTIFIER_TYPES:
            out.append([units[node.start_byte], units[node.end_byte]])
        stack.extend(node.children)
    return sorted(out)


def _utf16_offsets(data: bytes) -> list[int]:
    offsets, unit = [0] * (len(data) + 1), 0
    i = 0
    while i < len(data):
        width = 1 if data[i] < 0x80 else 2 if data[i] < 0xE0 else 3 if data[i] < 0xF0 else 4
        for k in range(width):
            if i + k <= len(data):
                offsets[i + k] = unit
        unit += 2 if width == 4 else 1
        i += width
    offsets[len(data)] = unit
    return offsets


def agree(code: str, oracle: dict) -> bool:
    mine = tree_sitter_identifiers(code)
    if not oracle["ok"] or mine is None:
        return oracle["ok"] == (mine is not None)  # both refuse, or it is a disagreement
    return mine == oracle["identifiers"]


def fuzzed(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    base = honest_codes()
    out = []
    for _ in range(count):
        code = rng.choice(base)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(code))
            trick = rng.choice(TRICKY)
            payload = rng.choice(["", " rect(0, 0, 600, 600); ", ' fetch("http://x"); ', " text('10/10', 9, 9); "])
            code = code[:at] + trick + payload + code[at:]
        out.append(code)
    return out


def test_parsers_agree_on_honest_sketches():
    codes = honest_codes()
    for code, oracle in zip(codes, acorn(codes)):
        assert oracle["ok"], oracle.get("error")
        assert tree_sitter_identifiers(code) == oracle["identifiers"]


def differentials(replies: list[str]) -> list[str]:
    """The replies whose extracted sketch (what the renderer runs) the two parsers read differently."""
    sketches = [(reply, extract_sketch(reply)) for reply in replies]
    sketches = [(reply, s.code) for reply, s in sketches if s is not None]
    oracles = acorn([code for _, code in sketches])
    return [reply for (reply, code), oracle in zip(sketches, oracles) if not agree(code, oracle)]


def test_every_disagreement_in_the_red_team_is_refused_or_rendered():
    from redteam import ATTACKS

    by_reply = {a.reply: a for a in ATTACKS}
    found = differentials([a.reply for a in ATTACKS])
    assert found, "the red team holds no parser differential"
    # Those the static rules pass are rendered and judged by tests/test_redteam.py (refused or harmless).
    unrendered = [by_reply[r].id for r in found if GATE.check(r).passed and by_reply[r].heavy]
    assert not unrendered, unrendered


PAYLOADS = {"rect": "bare_primitive", "fetch": "external_access", "text": "text_on_canvas"}


def _runs_in_v8(code: str, oracle: dict) -> set[str]:
    """The payload names V8 reads as identifiers (so the payload runs), by acorn's ranges."""
    if not oracle["ok"]:
        return set()
    names = {code.encode("utf-16-le")[2 * a:2 * b].decode("utf-16-le") for a, b in oracle["identifiers"]}
    return names & set(PAYLOADS)


@pytest.mark.chromium
def test_every_fuzzed_disagreement_that_runs_its_payload_is_refused(renderer):
    found = differentials(fuzzed(4000))
    assert len(found) > 50, "the fuzzer no longer finds differentials: make it harder"
    codes = [extract_sketch(reply).code for reply in found]
    live = [(reply, code, names) for reply, code, oracle in zip(found, codes, acorn(codes))
            if (names := _runs_in_v8(code, oracle))]
    assert len(live) > 20, "few fuzzed differentials run their payload: make the fuzzer harder"
    hidden = [item for item in live if GATE.check(item[0]).passed]  # the static rules did not see the payload
    sample = random.Random(1).sample(hidden, min(10, len(hidden)))
    results = renderer.render_many([code for _, code, _ in sample], seed=0)
    for (reply, _, names), result in zip(sample, results):
        report = GATE.check(reply, render=result)   # the static rules passed it: the run-time rules judge
        wanted = {PAYLOADS[n] for n in names} | {"js_error", "syntax_error"}
        assert wanted & set(report.ids), f"{sorted(names)} ran unseen: {report.ids}\n{reply[:400]}"
