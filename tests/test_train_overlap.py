"""Scoring overlapped with generation: the async reward's early starts (`start_early`) and the
trainer that makes them (`brushwork.train.overlap`), on the tiny model with real renders."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from brushwork.train.overlap import EndWatch
from brushwork.train.rewards import BrushworkReward

TINY = Path(__file__).resolve().parents[1] / "src" / "brushwork" / "train" / "configs" / "tiny-cpu.yaml"


def test_the_streamer_reports_each_row_once_at_its_end():
    ended = []
    watch = EndWatch([0, 9], lambda row, ids: ended.append((row, list(ids))))
    watch.put(torch.tensor([[5, 5], [5, 5], [5, 5]]))        # the prompt
    for tokens in ([1, 2, 3], [4, 9, 3], [0, 7, 3], [0, 0, 3]):
        watch.put(torch.tensor(tokens))
    watch.end()
    assert ended == [(1, [2]), (0, [1, 4])]                    # row 2 never ended: scored with its batch


def test_an_early_start_is_claimed_only_by_the_same_completion_and_draw(monkeypatch):
    """The reward call reuses an early start whose text, seed, subject and step match, and scores
    afresh otherwise (scoring itself replaced by a note of what was scored: the claim is tested)."""
    from brushwork.train.rewards import _unscored

    async def note(self, job, index):
        return _unscored(f"scored {job.reply!r}"), None

    reward = BrushworkReward(parallel=2)
    started = []
    original = BrushworkReward._start
    monkeypatch.setattr(BrushworkReward, "_score_one", note)
    monkeypatch.setattr(BrushworkReward, "_start", lambda self, job, i: started.append(job.reply) or
                        original(self, job, i))
    prompt = [{"role": "user", "content": "Paint a coral hibiscus"}]
    row = {"prompt": prompt, "seed": 3, "subject": "coral hibiscus", "domain": "hibiscus"}
    try:
        reward.start_early(0, prompt, "A", row, step=2)
        reward.start_early(1, prompt, "B", row, step=2)
        out = reward.score(prompts=[prompt] * 2, completions=["A", "B, as parsed"], seed=[3, 3],
                           subject=["coral hibiscus"] * 2, domain=["hibiscus"] * 2,
                           trainer_state=SimpleNamespace(global_step=2))
        assert out == [None, None] and reward.last[1].infra == "scored 'B, as parsed'"
        assert started == ["A", "B", "B, as parsed"]            # A reused; B's text differed: scored afresh
        reward.start_early(0, prompt, "A", row, step=2)
        reward.score(prompts=[prompt], completions=["A"], seed=[3], subject=["coral hibiscus"],
                     domain=["hibiscus"], trainer_state=SimpleNamespace(global_step=3))
        assert started[-2:] == ["A", "A"]                       # another step draws other references: afresh
        assert reward._early == {}
    finally:
        reward.close()


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(1500)     # minutes on a loaded 2-core machine
@pytest.mark.parametrize("overlap", [True, False])
def test_a_tiny_grpo_step_scores_each_completion_as_it_ends(example_pool, reciting_model, tmp_path, monkeypatch,
                                                            overlap):
    """A real GRPO step (`brushwork train` in this process, real renders): with overlap every
    completion that ended is started during generation and the reward call starts nothing more;
    its legal twin without overlap scores every completion in the reward call. Both pay the
    reciting model's passing painting."""
    from brushwork.train.config import parse
    from brushwork.train.run import train

    calls = {"early": 0, "started": 0}
    start_early, start = BrushworkReward.start_early, BrushworkReward._start
    monkeypatch.setattr(BrushworkReward, "start_early", lambda self, *a: calls.__setitem__(
        "early", calls["early"] + 1) or start_early(self, *a))
    monkeypatch.setattr(BrushworkReward, "_start", lambda self, *a: calls.__setitem__(
        "started", calls["started"] + 1) or start(self, *a))
    args = ["--config", str(TINY), "--output_dir", str(tmp_path / "run"), "--tiny", "false",
            "--model_name_or_path", str(reciting_model), "--sft_samples", "0", "--max_steps", "1",
            "--warmup_steps", "0", "--num_generations", "2", "--per_device_train_batch_size", "2",
            "--rollouts_per_step", "2", "--temperature", "0.3", "--task_repeats", "1", "--save_strategy", "no",
            "--workers", "2", "--report_to", "none", "--overlap", str(overlap).lower()]
    brush, grpo, model = parse(args, cpu=True)
    result = train(brush, grpo, model)
    assert result.steps == 1
    logged = [json.loads(line) for line in result.metrics.read_text().splitlines()]
    assert max(row.get("rewards/brushwork/mean", 0.0) for row in logged) > 0.05     # the painting passed
    if overlap:     # every early start claimed; only completions cut at the length limit start late
        assert calls["early"] >= 1 and calls["started"] == 2, calls
    else:
        assert calls == {"early": 0, "started": 2}
