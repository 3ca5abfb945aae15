"""Multi-turn training for real: the Qwen3.5 tool-call template on the tiny tokenizer, the
warm-up's revision trajectories (real defects, the environment's own critiques), the revision
figures, and one multi-turn GRPO step through TRL's `environment_factory` with real renders.

The one fake: a freshly initialised model never writes a tool call, so the GRPO-step tests
give generation a *sequence bias* that makes it write one scripted tool call (the stand-in
for trained weights). Everything after the tokens is real: TRL parses the call, runs
`submit_sketch` (real gate, real Chromium), appends the critique, generates the revision,
and `ToolEnvReward` scores the final painting.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from brushwork.painter import paint
from brushwork.score.card import ScoreCard
from brushwork.score.rollout import Rollout
from brushwork.train.episodes import revision_figures
from brushwork.train.revisions import DEFECTS, defective
from brushwork.train.tiny import TinySpec
from brushwork.train.tool_env import tool_call, tool_schema

SMALL = TinySpec(corpus_sketches=80, chat_template="qwen3.5")


@pytest.fixture(scope="module")
def tokenizer(tiny_model):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model(SMALL))


@pytest.fixture
def tiny(tiny_model, tmp_path) -> Path:
    """This test's own copy of the session's tiny multi-turn model (a test may rewrite it)."""
    return Path(shutil.copytree(tiny_model(SMALL), tmp_path / "tiny"))


def test_tool_calls_round_trip_through_trl_parser(tokenizer):
    from trl.chat_template_utils import add_response_schema, is_chat_template_prefix_preserving, parse_response

    from brushwork.env.tasks import make_task

    code = paint(3, jitter=0.0).code
    task = make_task(3)
    prompt = tokenizer.apply_chat_template(task.messages, tools=[tool_schema()], add_generation_prompt=True,
                                           tokenize=True, return_dict=False)
    full = tokenizer.apply_chat_template([*task.messages, tool_call(code)], tools=[tool_schema()], tokenize=True,
                                         return_dict=False)
    assert full[:len(prompt)] == prompt and is_chat_template_prefix_preserving(tokenizer)
    assert len(full) - len(prompt) < len(code) / 6            # the code is raw text, whole lines per token
    add_response_schema(tokenizer)
    parsed = parse_response(tokenizer, full[len(prompt):], prefix=prompt, tools=[tool_schema()])
    assert parsed["tool_calls"][0]["function"] == {"name": "submit_sketch", "arguments": {"sketch": code.strip()}}


def test_every_defect_is_a_real_one_and_the_fix_passes():
    from brushwork.gate import Gate

    check = Gate().check
    code = paint(5, "peach hibiscus", jitter=0.0).code
    assert check(code).passed
    expected = {"syntax": "syntax_error", "method": "disallowed_brush_method"}
    for kind in DEFECTS:
        broken = defective(code, kind)
        assert broken is not None and broken != code, kind
        ids = set(check(broken).ids)
        assert (expected[kind] in ids) if kind in expected else not ids, (kind, ids)


@pytest.mark.chromium
def test_run_time_defects_show_in_the_environments_critique(example_pool):
    from brushwork.env.episode import EpisodeRunner
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    code = paint(5, "peach hibiscus", jitter=0.0).code
    with Pipeline(ScoringOptions(workers=2, render_timeout_s=30)) as pipeline:
        seen = {}
        for kind in ("runtime", "blank", "faint"):
            episode = EpisodeRunner(pipeline).start(seed=5, subject="a peach hibiscus", revisions=1)
            seen[kind] = episode.submit(defective(code, kind))
        good = pipeline.gate(code, seed=5).render.paint_fraction
    assert "js_error" in seen["runtime"].critique and not seen["runtime"].gated.report.passed
    for kind in ("blank", "faint"):   # they pass the gate: the critique says what is wrong
        assert seen[kind].gated.report.passed and seen[kind].gated.render.paint_fraction < good
        assert "bare paper" in seen[kind].critique and "1 revision left" in seen[kind].critique


def _shot(passed: bool, total: float) -> Rollout:
    """A painting of an episode: whether it passed the gate, its total."""
    return Rollout("", ScoreCard(passed=passed, total=total, terms={}, weights={}, preset=None))


def test_revision_figures_arithmetic():
    episodes = [[_shot(False, 0.0), _shot(True, 0.6)],      # fixed
                [_shot(True, 0.5), _shot(True, 0.4)],       # made worse
                [_shot(True, 0.7)],                        # kept: carried forward
                [_shot(False, 0.0), _shot(False, 0.0)]]     # not fixed
    f = revision_figures(episodes, turns=1)
    assert f.episodes == 4 and f.reward_by_turn[0] == pytest.approx(0.3) and f.reward_by_turn[1] == pytest.approx(0.425)
    assert f.pass_by_turn == (0.5, 0.75)
    assert f.gain == pytest.approx((0.6 - 0.1 + 0 + 0) / 4) and f.gain_n == 4
    assert f.fix_rate == 0.5 and f.fix_n == 2 and f.revisions == 3 and f.worse_rate == pytest.approx(1 / 3)
    assert f.revised_share == 0.75
    low, high = f.gain_interval
    assert -0.1 <= low < f.gain < high <= 0.6        # within the gains (0.6, -0.1, 0, 0)
    assert revision_figures([[_shot(False, 0.0), _shot(True, 0.6)]]).gain_interval is None    # one gain: no interval


def _script_bias(tokenizer, sketch: str) -> dict:
    """Generation settings that make an untrained model write one tool call submitting
    `sketch`: each token of the call gets a bias that grows with the length of the prefix it
    continues, so the longest matching prefix always wins (the stand-in for trained weights)."""
    text = (f"<tool_call>\n<function=submit_sketch>\n<parameter=sketch>\n{sketch}\n</parameter>\n</function>\n"
            "</tool_call><|im_end|>")
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return {"sequence_bias": [[ids[:i + 1], 40.0 * (i + 1)] for i in range(len(ids))]}   # lists: saved as JSON


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(900)
def test_one_multi_turn_grpo_step_calls_the_tool_and_revises(example_pool, tiny, tmp_path):
    from transformers import AutoTokenizer

    from brushwork.train.config import parse
    from brushwork.train.film import read_film
    from brushwork.train.run import train

    tokenizer = AutoTokenizer.from_pretrained(tiny)
    sketch = "\n".join(line for line in paint(2, "peach hibiscus", jitter=0.0).code.split("\n")
                       if not line.startswith("//"))
    args = parse(["--config", "tiny-cpu-multiturn", "--tiny", "false", "--model_name_or_path",
                  str(tiny), "--output_dir", str(tmp_path / "run"), "--sft_samples", "0", "--max_steps", "1",
                  "--num_generations", "2", "--rollouts_per_step", "2", "--per_device_train_batch_size", "2",
                  "--max_completion_length", "1024",
                  "--report_to", "none", "--task_repeats", "1", "--workers", "2"], cpu=True)
    args[1].generation_kwargs = _script_bias(tokenizer, sketch)
    result = train(*args)
    assert result.steps == 1
    log = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()][0]
    assert log["tools/call_frequency"] > 0 and log["brushwork/tool_call_rate"] == 1.0
    assert log["brushwork/revisions"] == 1.0 and log["brushwork/episodes_finished"] == 1.0
    assert log["brushwork/first_pass_rate"] == 1.0 and log["rewards/brushwork_episode/mean"] > 0
    frames = read_film(tmp_path / "run" / "film")
    assert sorted((f.index, f.turn, f.final) for f in frames) == [(0, 0, False), (0, 1, True), (1, 0, False),
                                                                    (1, 1, True)]
    final = [f for f in frames if f.final]
    assert all(f.passed and f.reward is not None and f.terms.get("judge") is not None for f in final)


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(900)
def test_eval_revisions_reports_turns_and_shows_first_and_final(example_pool, tiny, tmp_path):
    """`brushwork eval --revisions 1` on a model whose generation is scripted (as above) to
    submit a defective sketch: the critique comes back, it revises, and the report measures it."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from brushwork.eval.runner import Plan, run_eval
    from brushwork.score.options import ScoringOptions
    from brushwork.train.film import read_film

    tokenizer = AutoTokenizer.from_pretrained(tiny)
    model = AutoModelForCausalLM.from_pretrained(tiny)
    sketch = "\n".join(line for line in paint(4, "peach hibiscus", jitter=0.0).code.split("\n")
                       if not line.startswith("//"))
    model.generation_config.sequence_bias = _script_bias(tokenizer, defective(sketch, "method"))["sequence_bias"]
    model.save_pretrained(tiny)
    plan = Plan(model=str(tiny), adapter=None, film=None, out=tmp_path / "eval",
                scoring=ScoringOptions(workers=2, render_timeout_s=30), prompts=1, samples=2, revisions=1,
                domains=("hibiscus",), max_new_tokens=400)
    result = run_eval(plan)
    run = result.runs[0]
    f = run.revisions
    assert f.episodes == 2 and f.revisions == 2 and f.revised_share == 1.0
    assert f.pass_by_turn == (0.0, 0.0) and f.fix_rate == 0.0 and f.fix_n == 2 and f.gain == 0.0
    assert set(run.summaries) == {"first painting", "final painting"} and run.info["tool-call rate"] == "100%"
    data = json.loads(result.eval_json.read_text())
    assert data["revisions"]["episodes"] == 2 and {s["turn"] for s in data["samples"]} == {0, 1}
    page = result.report.read_text()
    assert "Revisions" in page and "revision gain" in page and "first painting" in page
    frames = read_film(tmp_path / "eval" / "film")
    assert sorted((f.index, f.turn, f.final) for f in frames) == [(0, 0, False), (0, 1, True), (1, 0, False),
                                                                    (1, 1, True)]
    assert all("disallowed_brush_method" in f.violations for f in frames)
