"""The static rules must not refuse honest paintings: every bundled pool source, the honest
corpus, the benchmark sketches, the good examples and 1,000 procedural painter seeds pass the
static gate. (Rendered verdicts of the pool and corpus are checked in test_gate_cases.py and
the pool tests, the async_setup / model_style corpora in test_gate_language.py;
benchmarks/ocr.py renders 300+ honest paintings through the whole gate.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brushwork.gate import Gate
from brushwork.painter import paint

GATE = Gate()   # the recipe's configuration

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "src/brushwork/examples/pool/sources").glob("*.js")) \
    + sorted((ROOT / "benchmarks/sketches").glob("*.js")) \
    + sorted((ROOT / "tests/corpus/honest").glob("*.md")) \
    + sorted((ROOT / "src/brushwork/examples").glob("good_*.md"))


def _explain(report) -> str:
    return "; ".join(f"{v.id}: {v.message} (line {v.line})" for v in report.violations)


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_honest_source_passes(path: Path):
    report = GATE.check(path.read_text())
    assert report.passed, f"{path.name}: {_explain(report)}"


def test_thousand_painter_seeds_pass():
    refused = {}
    for seed in range(1000):
        report = GATE.check(paint(seed).code)
        if not report.passed:
            refused[seed] = _explain(report)
    assert not refused, f"{len(refused)} painter seeds refused, e.g. {next(iter(refused.items()))}"
