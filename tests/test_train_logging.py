"""What a training run logs: every reward term's mean / std / min / max through TRL's
`log_metric`, and the best painting of each step as an image in trackio (offline, a local
SQLite store) and tensorboard; a tracker that fails never stops training."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from brushwork.gate.verdict import Violation
from brushwork.score.card import ScoreCard
from brushwork.score.terms import BUILTIN
from brushwork.train.config import CONFIG_DIR
from brushwork.train.rewards import BrushworkReward, make_job, term_stats

ROOT = Path(__file__).resolve().parents[1]
TINY = str(CONFIG_DIR / "tiny-cpu.yaml")


def _scored(reward, terms, passed=True, cheated=False, fraction=0.3):
    return ScoreCard(passed=passed, total=reward, terms=terms, weights={}, preset=None, paint_fraction=fraction,
                     violations=(Violation("text_on_canvas", "cheat", ""),) if cheated else ())


def _png(colour) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buf, format="PNG")
    return buf.getvalue()


def test_term_stats_mean_std_min_max_skip_none():
    scored = [_scored(0.5, {"gate": 1.0, "length": 0.2, "judge": 0.4, "aesthetic": None}),
              _scored(0.7, {"gate": 1.0, "length": 0.6, "judge": 0.8, "aesthetic": 0.9}),
              _scored(0.0, {"gate": 0.0, "length": None, "judge": None, "aesthetic": None}, passed=False,
                      cheated=True, fraction=None),
              _scored(None, {"gate": 1.0, "length": 0.4, "judge": None, "aesthetic": None})]
    stats = term_stats(scored)
    assert stats["brushwork/gate_pass_rate"] == 0.75 and stats["brushwork/cheat_rate"] == 0.25
    assert stats["brushwork/none_rate"] == 0.25
    assert stats["brushwork/judge"] == pytest.approx(0.6) and stats["brushwork/judge/std"] == pytest.approx(0.2)
    assert stats["brushwork/judge/min"] == 0.4 and stats["brushwork/judge/max"] == 0.8
    assert stats["brushwork/length"] == pytest.approx(0.4)                  # None skipped: mean of 3
    assert stats["brushwork/length/std"] == pytest.approx((0.08 / 3) ** 0.5)  # population std
    assert stats["brushwork/aesthetic"] == 0.9 and stats["brushwork/aesthetic/std"] == 0.0
    assert stats["brushwork/gate/min"] == 0.0 and stats["brushwork/gate/max"] == 1.0
    assert stats["brushwork/total"] == pytest.approx(0.4) and stats["brushwork/total/max"] == 0.7   # None skipped
    assert stats["brushwork/paint_fraction"] == pytest.approx(0.3)
    for term in (*BUILTIN, "total"):
        assert {f"brushwork/{term}/{s}" for s in ("std", "min", "max")} <= set(stats)
    none = term_stats([_scored(None, {t: None for t in BUILTIN}, passed=False, fraction=None)])
    assert none == {"brushwork/gate_pass_rate": 0.0, "brushwork/cheat_rate": 0.0, "brushwork/none_rate": 1.0}
    assert term_stats([]) == {}


def test_the_reward_keeps_the_best_passed_painting_until_taken():
    import pickle

    reward = BrushworkReward()
    prompts = [[{"role": "user", "content": f"Paint {i}"}] for i in range(3)]

    def call(step: int, cards, colours, subjects) -> None:
        reward.last, reward.last_pngs = cards, [_png(c) for c in colours]
        jobs = [make_job(p, "", 1, s, None, step) for p, s in zip(prompts, subjects)]
        reward._keep_best(reward._rollouts(step, prompts, jobs))

    call(3, [_scored(0.9, {}, passed=False), _scored(0.4, {}), _scored(0.6, {})], ["red", "green", "blue"], "abc")
    call(3, [_scored(0.5, {}), _scored(None, {})], ["white", "black"], "de")   # a second call of the same step
    assert pickle.loads(pickle.dumps(reward)).best is None
    best = reward.take_best()
    assert (best.step, best.reward, best.subject, best.prompt) == (3, 0.6, "c", "Paint 2")   # 0.6 stays
    assert Image.open(io.BytesIO(best.png)).getpixel((0, 0)) == (0, 0, 255)
    assert reward.take_best() is None                          # taken: the next step starts afresh
    call(4, [_scored(0.0, {}, passed=False)], ["red"], "a")
    assert reward.take_best() is None                          # nothing passed: no image


def test_a_failing_tracker_warns_once_and_training_goes_on():
    from brushwork.score.rollout import Rollout
    from brushwork.train.tracking import BestPaintingLog

    class Source:
        def take_best(self):
            return Rollout("Paint", _scored(0.5, {}), png=_png("red"), subject="coral hibiscus", step=1)

    callback = BestPaintingLog([Source(), object()], callbacks=SimpleNamespace(callbacks=[]))
    args, state = SimpleNamespace(report_to=["tensorboard"]), SimpleNamespace(is_world_process_zero=True,
                                                                             global_step=1)
    with pytest.warns(UserWarning, match="tensorboard") as caught:
        callback.on_log(args, state, None, logs={})
        callback.on_log(args, state, None, logs={})
    assert len([w for w in caught if "best painting" in str(w.message)]) == 1
    callback.on_log(SimpleNamespace(report_to=[]), state, None, logs={})   # no backend: nothing to do


def _trackio_rows(trackio_dir: Path, project: str) -> list[tuple[int, dict]]:
    db = trackio_dir / f"{project}.db"
    assert db.exists(), f"no trackio store at {db}: {sorted(p.name for p in trackio_dir.iterdir())}"
    with sqlite3.connect(db) as conn:
        return [(step, json.loads(text)) for step, text in
                conn.execute("SELECT step, metrics FROM metrics ORDER BY step, id")]


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(300)
def test_tiny_grpo_logs_term_stats_and_best_paintings_to_trackio_offline_and_tensorboard(example_pool, tmp_path,
                                                                                           reciting_model):
    """2 real GRPO steps (`brushwork train`) of a tiny model that paints one sketch that passes,
    `report_to: [trackio, tensorboard]`, trackio's store under tmp_path and the hub offline."""
    import yaml

    out, store = tmp_path / "run", tmp_path / "trackio"
    base = reciting_model
    config = yaml.safe_load(Path(TINY).read_text())
    config["report_to"] = ["trackio", "tensorboard"]       # a list only from a file (the command line takes one)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    env = {k: v for k, v in os.environ.items() if k not in ("TRACKIO_SPACE_ID", "TRACKIO_SERVER_URL")}
    env.update(TRACKIO_DIR=str(store), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    args = ["--config", str(tmp_path / "config.yaml"), "--output_dir", str(out), "--tiny", "false",
            "--model_name_or_path", str(base), "--sft_samples", "0", "--max_steps", "2", "--warmup_steps", "0",
            "--num_generations", "4", "--per_device_train_batch_size", "4", "--rollouts_per_step", "4",
            "--temperature", "0.3", "--task_repeats", "1", "--save_strategy", "no", "--film", "false",
            "--workers", "2", "--run_name", "logging-test"]
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "brushwork.cli", "train", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(f"tiny GRPO run with trackio + tensorboard: {time.perf_counter() - t0:.1f} s")
    assert "could not log the best painting" not in done.stderr

    rows = _trackio_rows(store, "brushwork")                 # RECIPE sets project: brushwork
    metrics = {k: v for _, m in rows for k, v in m.items()}
    for term in ("judge", "aesthetic", "length", "gate", "total"):
        for stat in ("", "/std", "/min", "/max"):
            assert isinstance(metrics.get(f"train/brushwork/{term}{stat}"), float), f"{term}{stat} not logged"
    assert "train/brushwork/gate_pass_rate" in metrics and "train/brushwork/none_rate" in metrics
    by_step = {m["train/global_step"]: step for step, m in rows if "train/global_step" in m
               and "train/brushwork/judge" in m}
    assert sorted(by_step) == [1, 2]
    images = {step: m["brushwork/best_painting"] for step, m in rows if "brushwork/best_painting" in m}
    assert sorted(images) == sorted(by_step.values())        # one image per step, on that step's metrics row
    for image in images.values():
        assert image["_type"] == "trackio.image" and image["caption"].startswith("step ")
        path = store / "media" / image["file_path"]
        assert path.exists() and Image.open(path).size == (600, 600)

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = [p.parent for p in out.rglob("events.out.tfevents.*")]
    assert events, "tensorboard wrote nothing"
    acc = EventAccumulator(str(events[0]), size_guidance={"images": 0, "scalars": 0})
    acc.Reload()
    assert "train/brushwork/judge/std" in acc.Tags()["scalars"]
    assert [e.step for e in acc.Images("brushwork/best_painting")] == [1, 2]
