"""The length term counts tokens of code on the syntax tree, so padding earns nothing.

A table of padding attacks, each next to its honest twin (the same painting without the
padding): L(attack) <= L(twin) + epsilon. Epsilon is 0 (the same count) except where the
padding is live data the painting reads: a used literal table earns at most LITERAL_BOUND
tokens, a used string at most STRING_TOKENS.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from brushwork.score.length import LITERAL_BOUND, STRING_TOKENS, count_tokens
from brushwork.score.reward import LengthRamp
from brushwork.sketch import extract_sketch

RAMP = LengthRamp()
PER_TOKEN = 1 / (RAMP.full - RAMP.low)  # what one token is worth on the ramp's slope

BASE = """const PALETTE = ["#e07a8f", "#f2b5c4", "#8fb07a", "#f6d06b"];
const CENTRE = [[300, 300], [280, 320], [320, 280]];

function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function petal(cx, cy, angle, len, width) {
  brush.beginShape(0.3);
  for (let i = 0; i <= 12; i++) {
    const t = i / 12;
    const r = len * t;
    const w = width * sin(PI * t);
    brush.vertex(cx + cos(angle) * r - sin(angle) * w, cy + sin(angle) * r + cos(angle) * w);
  }
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fbf7ef");
  brush.noStroke();
  brush.fillBleed(0.2, "out");
  for (let k = 0; k < 5; k++) {
    brush.fill(PALETTE[k % 2], 110);
    petal(300, 300, k * TWO_PI / 5, 190, 70);
  }
  brush.fill(PALETTE[2], 90);
  petal(300, 300, HALF_PI, 260, 25);
  for (const [x, y] of CENTRE) {
    brush.fill(PALETTE[3], 160);
    brush.circle(x, y, 18);
  }
}
"""

DRAW_END = "    brush.circle(x, y, 18);\n  }\n}\n"


def with_padding(top: str = "", in_draw: str = "") -> str:
    """BASE with `top` before setup and `in_draw` at the end of draw's body."""
    code = BASE.replace("function setup()", top + "function setup()")
    return code[: -len(DRAW_END)] + DRAW_END.replace("  }\n}\n", "  }\n" + in_draw + "}\n")


def numbers(n: int) -> str:
    return ", ".join(str((i * 37) % 600) for i in range(n))


LONG = "watercolour " * 900
DEAD_FUNCTIONS = "".join(f"function pad{i}(x) {{ return pad{i + 1}(x) + brush.circle(x, {i}, 3); }}\n"
                         for i in range(150))
USE_TABLE = "  brush.circle(TABLE[1], 40, 9);\n"
USE_NOTE = "  if (NOTE.length > 1) brush.circle(9, 9, 4);\n"
BIG_BLOCK = "\n".join(f"    brush.circle({i}, {i}, 10);" for i in range(300))


@dataclass(frozen=True)
class Attack:
    name: str
    attack: str
    twin: str
    epsilon_tokens: int = 0


ATTACKS = [
    Attack("comments", with_padding("// " + "a careful note about petals " * 450 + "\n/* " + "x" * 13_000 + " */\n"),
           BASE),
    Attack("blank_lines", BASE.replace("\n", "\n" + "\n" * 400), BASE),
    Attack("whitespace_runs", BASE.replace(", ", "," + " " * 200).replace(";", ";" + "\t" * 120), BASE),
    Attack("unused_number_array", with_padding(f"const TABLE = [{numbers(2400)}];\n"), BASE),
    Attack("used_number_array", with_padding(f"const TABLE = [{numbers(2400)}];\n", USE_TABLE),
           with_padding("const TABLE = [0, 37];\n", USE_TABLE), LITERAL_BOUND),
    Attack("nested_number_arrays", with_padding("const GRID = [" + ", ".join(f"[{numbers(40)}]" for _ in range(60))
                                                + "];\n", "  brush.circle(GRID[0][1], 40, 9);\n"),
           with_padding("const GRID = [[0, 37]];\n", "  brush.circle(GRID[0][1], 40, 9);\n"), LITERAL_BOUND),
    Attack("unused_long_string", with_padding(f'const NOTE = "{LONG}";\n'), BASE),
    Attack("used_long_string", with_padding(f'const NOTE = "{LONG}";\n', USE_NOTE),
           with_padding('const NOTE = "ab";\n', USE_NOTE), STRING_TOKENS),
    Attack("used_template_string", with_padding(f"const NOTE = `{LONG}${{PI}}{LONG}`;\n", USE_NOTE),
           with_padding("const NOTE = `a${PI}b`;\n", USE_NOTE), STRING_TOKENS),
    Attack("huge_object_literal", with_padding("const DATA = {" + ", ".join(f"k{i}: {i}" for i in range(2000))
                                               + "};\n", "  brush.circle(DATA.k7, 40, 9);\n"),
           with_padding("const DATA = {k7: 7};\n", "  brush.circle(DATA.k7, 40, 9);\n"), LITERAL_BOUND),
    Attack("dead_functions", with_padding(DEAD_FUNCTIONS), BASE),
    Attack("dead_variables", with_padding("".join(f"let unused{i} = {i} * width + PALETTE.length;\n"
                                                  for i in range(300))), BASE),
    Attack("semicolons", with_padding(";" * 8000, ";;;;;;;;;;" * 800), BASE),
    Attack("no_op_statements", with_padding("0;" * 3000, '  0; "pad"; PALETTE; 1 + 2;\n' * 500), BASE),
    Attack("no_op_function_expression", with_padding("", "  (() => {\n" + BIG_BLOCK + "\n  });\n"), BASE),
    Attack("if_false_block", with_padding("", "  if (false) {\n" + BIG_BLOCK + "\n  }\n"), BASE),
    Attack("if_zero_else", with_padding("", "  if (!1) {\n" + BIG_BLOCK + "\n  } else brush.circle(9, 9, 4);\n"),
           with_padding("", "  brush.circle(9, 9, 4);\n")),
    Attack("while_false_block", with_padding("", "  while (0) {\n" + BIG_BLOCK + "\n  }\n"), BASE),
    Attack("code_after_return", with_padding("", "  return;\n" + BIG_BLOCK + "\n"), BASE, 2),
    Attack("repeated_line", with_padding("", "  brush.circle(9, 9, 4);\n" * 1500),
           with_padding("", "  brush.circle(9, 9, 4);\n")),
    Attack("repeated_pair", with_padding("", "  brush.fill(PALETTE[1], 60);\n  brush.circle(9, 9, 4);\n" * 700),
           with_padding("", "  brush.fill(PALETTE[1], 60);\n  brush.circle(9, 9, 4);\n")),
    Attack("repeated_block", with_padding("", "  {\n    brush.circle(9, 9, 4);\n  }\n" * 900),
           with_padding("", "  {\n    brush.circle(9, 9, 4);\n  }\n")),
]


def test_base_painting_sits_on_the_slope():
    assert RAMP.low < count_tokens(BASE) < RAMP.full / 2


@pytest.mark.parametrize("case", ATTACKS, ids=[a.name for a in ATTACKS])
def test_padding_earns_nothing(case: Attack):
    assert len(case.attack) > len(case.twin) + 4000, "the padding must be big enough to matter"
    attack, twin = count_tokens(case.attack), count_tokens(case.twin)
    assert attack <= twin + case.epsilon_tokens, f"{case.name}: {attack} tokens against the twin's {twin}"
    assert RAMP(case.attack) <= RAMP(case.twin) + case.epsilon_tokens * PER_TOKEN + 1e-12


def test_code_that_runs_counts():
    assert count_tokens("brush.circle(300, 300, 28);") == 11
    assert count_tokens("let a = 1;\nbrush.circle(a, a, 2);") == 5 + 11      # a is used: it counts
    assert count_tokens("let a = 1;\nbrush.circle(2, 2, 2);") == 11          # a is not
    assert count_tokens("if (frameCount > 0) brush.circle(1, 1, 1);") == 6 + 11
    assert count_tokens("const c = color(1);\nbrush.fill('#fff', 1);") == 8 + 10  # a call runs: live
    # a 20-point outline, 121 tokens, counts in full; the bound only cuts bulk data
    points = "[" + ", ".join(f"[{x}, {x + 1}]" for x in range(20)) + "]"
    assert count_tokens(f"const P = {points};\nbrush.circle(P[0][0], 1, 1);") == 4 + 121 + 17


def test_honest_corpus_counts_in_full():
    """No honest sketch of the corpus loses more than 2 % of its tokens to the padding rules."""
    from brushwork.gate.syntax import parser

    def plain(node) -> int:
        if node.type == "comment" or node.end_byte == node.start_byte:
            return 0
        if node.type in ("string", "regex"):
            return min(STRING_TOKENS, 1 + (node.end_byte - node.start_byte + 1) // 4)
        return 1 if node.child_count == 0 else sum(plain(c) for c in node.children)

    for path in sorted((Path(__file__).parent / "corpus" / "honest").glob("*.md")):
        code = extract_sketch(path.read_text()).code
        assert count_tokens(code) >= 0.98 * plain(parser().parse(code.encode()).root_node), path.name


def test_counting_a_hostile_sketch_is_fast():
    hostile = "function draw() {\n" + "  a(); b(); a(); c();\n" * 1200 + "[" * 2000 + "]" * 2000 + "\n}\n"
    t0 = time.perf_counter()
    count_tokens(hostile)
    assert time.perf_counter() - t0 < 2.0
