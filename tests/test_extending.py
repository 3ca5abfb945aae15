"""The house's two extension points take a module of the user's own, named by import path.

A reward term: a `Term` subclass in the user's module, named in the reward YAML as
"package.module:Class", must reach the weights, the ScoreCard, the total, evaluation's term table
and training's logged term statistics, with nothing in the package edited.

A render backend: a `RenderBackend` class in the user's module, named as "package.module:Class",
must be what paints, through `RenderConfig`, `ScoringOptions` and the CLI.

Both live in one module written to a temporary folder put on `sys.path`.
"""

from __future__ import annotations

import pickle
import sys
import textwrap

import pytest
from gate_cases import HONEST
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.errors import ConfigError
from brushwork.eval.metrics import Sample, term_stats
from brushwork.render import RenderConfig, Renderer
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline
from brushwork.score.reward import RewardConfig, Weights
from brushwork.score.rollout import Rollout
from brushwork.train.rewards import term_stats as logged_stats

USER_MODULE = '''
"""Extensions of the user's own: a reward term and a render backend."""

import io

from PIL import Image, ImageStat

from brushwork.render.chromium import ChromiumBackend
from brushwork.score.terms import Canvas, Term, Value


class SaturationTerm(Term):
    """The painting's mean colour saturation."""

    name = "saturation"
    help = "weight of the painting's mean colour saturation"
    calls = 0

    async def __call__(self, canvas: Canvas) -> Value:
        type(self).calls += 1
        saturation = Image.open(io.BytesIO(canvas.png)).convert("HSV").getchannel("S")
        return Value(ImageStat.Stat(saturation).mean[0] / 255)


class JudgeAgain(Term):
    """A term that takes a built-in term's name."""

    name = "judge"
    help = "clashes"


class CountingBackend(ChromiumBackend):
    """The local Chromium pool, counting what it paints."""

    painted = 0

    async def render(self, code, seed=0, size=None):
        type(self).painted += 1
        return await super().render(code, seed, size)
'''

TERM = "my_extensions:SaturationTerm"
BACKEND = "my_extensions:CountingBackend"
SKETCH = "function setup(){createCanvas(600,600);background(250);}"


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """The user's module, importable as `my_extensions` for one test."""
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "my_extensions.py").write_text(textwrap.dedent(USER_MODULE))
    monkeypatch.syspath_prepend(str(folder))
    yield
    sys.modules.pop("my_extensions", None)


def _reward_yaml(tmp_path, weight: float) -> str:
    path = tmp_path / "reward.yaml"
    path.write_text("# brushwork score --reward-config reward.yaml\n"
                    f"weights: {{gate: 0.05, length: 0.05, judge: 0.5, aesthetic: 0.3, {TERM}: {weight}}}\n")
    return str(path)


def test_a_reward_term_of_the_users_own_module_is_scored(user_module, example_pool, tmp_path):
    options = ScoringOptions(reward_file=_reward_yaml(tmp_path, 0.1), workers=1)
    assert dict(options.reward_config().weights)["saturation"] == 0.1
    with Pipeline(options) as pipeline:
        card = pipeline.run(HONEST, seed=1).card
    term = sys.modules["my_extensions"].SaturationTerm
    assert term.calls == 1
    assert list(card.terms) == ["gate", "length", "judge", "aesthetic", "saturation"]
    saturation = card.terms["saturation"]
    assert 0 < saturation < 1 and card.saturation == saturation and card.weights["saturation"] == 0.1
    assert card.total == pytest.approx(sum(card.weights[t] * card.terms[t] for t in card.terms))

    from brushwork.score.card import ScoreCard

    assert ScoreCard.from_dict(card.to_dict()).terms == card.terms      # a film's card file reads back
    sample = Sample(Rollout("a flower", card, reply=HONEST, subject="a flower", seed=1, group=1))
    assert term_stats([sample])["saturation"].mean == pytest.approx(saturation)   # eval's term table
    logged = logged_stats([card])                                                  # training's logs
    assert logged["brushwork/saturation"] == pytest.approx(saturation) and "brushwork/saturation/max" in logged
    assert "saturation" not in RewardConfig().weights       # off until a reward YAML weighs it


def test_an_unweighted_term_of_ones_own_is_not_computed(user_module, example_pool, tmp_path):
    options = ScoringOptions(reward_file=_reward_yaml(tmp_path, 0.0), workers=1)
    with Pipeline(options) as pipeline:
        card = pipeline.run(HONEST, seed=1).card
    assert card.passed and "saturation" in card.terms and card.terms["saturation"] is None
    assert sys.modules["my_extensions"].SaturationTerm.calls == 0


def test_weights_with_a_users_term_pickle_by_import_path(user_module):
    weights = Weights(**{"judge": 0.5, TERM: 0.1})
    assert list(weights) == ["gate", "length", "judge", "aesthetic", "saturation"]
    assert weights.terms["saturation"] is sys.modules["my_extensions"].SaturationTerm
    again = pickle.loads(pickle.dumps(weights))
    assert again == weights and again.terms["saturation"] is weights.terms["saturation"]


def test_bad_term_names_say_what_to_write(user_module, tmp_path):
    (tmp_path / "typo.yaml").write_text("weights: {gate: 0.05, juge: 0.6}\n")
    with pytest.raises(ConfigError, match="unknown reward term 'juge'.*built-in terms are gate, length, judge, "
                                          "aesthetic.*package.module:Class"):
        ScoringOptions(reward_file=tmp_path / "typo.yaml").reward_config()
    with pytest.raises(ConfigError, match="cannot import no_such_module:Term"):
        Weights(**{"no_such_module:Term": 0.1})
    with pytest.raises(ConfigError, match="is not a Term subclass"):
        Weights(**{"builtins:str": 0.1})
    with pytest.raises(ConfigError, match="named 'judge', like a built-in term"):
        Weights(**{"my_extensions:JudgeAgain": 0.1})
    with pytest.raises(ConfigError, match=f"weight {TERM} must be a number in"):
        Weights(**{TERM: 2})
    (tmp_path / "list.yaml").write_text("weights: [gate, judge]\n")
    with pytest.raises(ConfigError, match="weights must be a mapping"):
        RewardConfig.from_yaml(tmp_path / "list.yaml")


async def test_a_render_backend_named_by_import_path_paints(user_module, tmp_path):
    async with Renderer(RenderConfig(workers=1, backend=BACKEND, cache_dir=tmp_path / "r")) as r:
        result = await r.render(SKETCH, seed=3)
        assert result.ok and r.status()["backend"] == "CountingBackend"
    assert sys.modules["my_extensions"].CountingBackend.painted == 1


def test_a_user_backend_reaches_the_pipeline_and_the_cli(user_module, example_pool, tmp_path):
    options = ScoringOptions(render_backend=BACKEND, workers=1, render_cache=False, preset="hps-only")
    with Pipeline(options) as pipeline:
        painting = pipeline.run(HONEST, seed=2)
        assert painting.card.passed and pipeline.status()["backend"] == "CountingBackend"
    assert sys.modules["my_extensions"].CountingBackend.painted >= 1
    (tmp_path / "s.js").write_text(SKETCH)
    res = CliRunner().invoke(app, ["render", str(tmp_path / "s.js"), "--render-backend", "no_such_module:Backend",
                                   "-o", str(tmp_path / "out")])
    assert res.exit_code == 2 and "cannot import no_such_module:Backend" in " ".join(res.output.split())


def test_bad_backend_names_say_what_to_write():
    with pytest.raises(ConfigError, match="use local or ray, or a RenderBackend class as package.module:Class"):
        RenderConfig(backend="k8s")
    with pytest.raises(ConfigError, match="is not a RenderBackend"):
        Renderer(RenderConfig(backend="builtins:str"))
