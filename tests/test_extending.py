"""The house's two extension points each take one module (README "Architecture").

A reward term: one `Term` class added to `brushwork/score/terms.py`, nothing else edited, must
reach the weights, the ScoreCard, the total, evaluation's term table and training's logged term
statistics. The test copies the package, adds a term to the copy's terms.py only, and scores a
real reply with the copy in a fresh interpreter.

A render backend: one module of the user's own, named as "package.module:Class", must be what
paints, through `RenderConfig`, `ScoringOptions` and the CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gate_cases import HONEST
from typer.testing import CliRunner

import brushwork
from brushwork.cli import app
from brushwork.errors import ConfigError
from brushwork.render import RenderConfig, Renderer
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline

NEW_TERM = '''

class SaturationTerm(Term):
    """The painting's mean colour saturation (a term added by test_extending)."""

    name = "saturation"
    help = "weight of the painting's mean colour saturation"

    async def __call__(self, canvas: Canvas) -> Value:
        import io

        from PIL import Image

        hsv = Image.open(io.BytesIO(canvas.png)).convert("HSV")
        return Value(sum(hsv.getdata(band=1)) / (255 * hsv.width * hsv.height))


TERMS = (*TERMS, SaturationTerm)
NAMES = tuple(t.name for t in TERMS)
'''

SCRIPT = '''
import json, sys
import brushwork
from brushwork.eval.metrics import TERMS as EVAL_TERMS
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline
from brushwork.score.reward import RewardConfig
from brushwork.train.rewards import Scored, term_stats

with Pipeline(ScoringOptions(reward_file=sys.argv[1], workers=1)) as pipeline:
    card = pipeline.run(open(sys.argv[2]).read(), seed=1).card
scored = Scored(card.total, card.terms, card.passed, card.cheated, card.paint_fraction, card.references,
                card.infra, (), None, None)
print(json.dumps({"file": brushwork.__file__, "terms": card.terms, "total": card.total, "weights": card.weights,
                  "attribute": card.saturation, "eval_terms": list(EVAL_TERMS),
                  "logged": sorted(term_stats([scored])), "default": dict(RewardConfig().weights)}))
'''


def test_a_new_reward_term_is_one_module(example_pool, tmp_path):
    package = Path(brushwork.__file__).parent
    copy = tmp_path / "src" / "brushwork"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    terms = copy / "score" / "terms.py"
    source = terms.read_text()
    assert source.count("\nNAMES: tuple[str, ...] = ") == 1
    terms.write_text(source + NEW_TERM)    # the only edit
    changed = [p.relative_to(copy) for p in copy.rglob("*.py")
               if p.read_bytes() != (package / p.relative_to(copy)).read_bytes()]
    assert changed == [Path("score/terms.py")]

    (tmp_path / "reward.yaml").write_text("weights: {gate: 0.05, length: 0.05, judge: 0.5, aesthetic: 0.3, "
                                          "saturation: 0.1}\n")
    (tmp_path / "reply.md").write_text(HONEST)
    (tmp_path / "run.py").write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    done = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(tmp_path / "reward.yaml"),
                           str(tmp_path / "reply.md")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["file"].startswith(str(copy))                     # the copy ran, not the installed package
    assert list(out["terms"]) == ["gate", "length", "judge", "aesthetic", "saturation"]
    saturation = out["terms"]["saturation"]
    assert 0 < saturation < 1 and out["attribute"] == saturation
    expected = sum(out["weights"][t] * (out["terms"][t] or 0.0) for t in out["terms"])
    assert out["total"] == pytest.approx(expected) and out["weights"]["saturation"] == 0.1
    assert "saturation" in out["eval_terms"]
    assert {"brushwork/saturation", "brushwork/saturation/max"} <= set(out["logged"])
    assert out["default"]["saturation"] == 0.0                   # off until a preset or YAML weighs it


def test_an_unweighted_term_is_not_computed_and_unknown_terms_are_named(tmp_path):
    (tmp_path / "typo.yaml").write_text("weights: {gate: 0.05, juge: 0.6}\n")
    with pytest.raises(ConfigError, match="unknown reward term.*juge"):
        ScoringOptions(reward_file=tmp_path / "typo.yaml").reward_config()


BACKEND_MODULE = '''
"""A render backend of the user's own: the local Chromium pool, counting what it paints."""

from brushwork.render.chromium import ChromiumBackend


class CountingBackend(ChromiumBackend):
    painted = 0

    async def render(self, code, seed=0, size=None):
        type(self).painted += 1
        return await super().render(code, seed, size)
'''


@pytest.fixture
def user_backend(tmp_path, monkeypatch):
    (tmp_path / "my_backends.py").write_text(textwrap.dedent(BACKEND_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_backends:CountingBackend"
    sys.modules.pop("my_backends", None)


async def test_a_render_backend_named_by_import_path_paints(user_backend, tmp_path):
    async with Renderer(RenderConfig(workers=1, backend=user_backend, cache_dir=tmp_path / "r")) as r:
        result = await r.render("function setup(){createCanvas(600,600);background(250);}", seed=3)
        assert result.ok and r.status()["backend"] == "CountingBackend"
    assert sys.modules["my_backends"].CountingBackend.painted == 1


def test_a_user_backend_reaches_the_pipeline_and_the_cli(user_backend, example_pool, tmp_path):
    options = ScoringOptions(render_backend=user_backend, workers=1, render_cache=False, preset="hps-only")
    with Pipeline(options) as pipeline:
        painting = pipeline.run(HONEST, seed=2)
        assert painting.card.passed and pipeline.status()["backend"] == "CountingBackend"
    assert sys.modules["my_backends"].CountingBackend.painted >= 1
    (tmp_path / "s.js").write_text("function setup(){createCanvas(600,600);background(250);}")
    res = CliRunner().invoke(app, ["render", str(tmp_path / "s.js"), "--render-backend", "no_such_module:Backend",
                                   "-o", str(tmp_path / "out")])
    assert res.exit_code == 2 and "cannot import no_such_module:Backend" in " ".join(res.output.split())


def test_bad_backend_names_say_what_to_write():
    with pytest.raises(ConfigError, match="use local or ray, or a RenderBackend class as package.module:Class"):
        RenderConfig(backend="k8s")
    with pytest.raises(ConfigError, match="is not a RenderBackend"):
        Renderer(RenderConfig(backend="builtins:str"))
