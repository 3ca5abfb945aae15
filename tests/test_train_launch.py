"""Training across processes: the rollouts a step whatever the process count, the memory
preflight that refuses a plan before any weight loads, and a real two-process run
(`accelerate launch`, gloo, on CPU) that scores through one server for the node, writes one
film from both processes and logs the best painting across them."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from processes import descendants, nice_of

from brushwork.errors import ConfigError
from brushwork.train.config import CONFIG_DIR, parse
from brushwork.train.film import read_film
from brushwork.train.launch import plan_rollouts

ACCELERATE = CONFIG_DIR / "accelerate"
TINY = str(CONFIG_DIR / "tiny-cpu.yaml")


# --- the rollouts a step ---------------------------------------------------------------------


@pytest.mark.parametrize("processes, batch, accumulation", [(1, 1, 8), (8, 1, 1), (2, 2, 2), (4, 2, 1)])
def test_the_stated_rollouts_hold_on_any_process_count(processes, batch, accumulation):
    plan = plan_rollouts(8, 8, batch, processes, gradient_accumulation_steps=8)
    assert plan.rollouts == 8 and plan.prompts == 1 and plan.gradient_accumulation_steps == accumulation
    assert plan.per_process * processes == 8 and "8 rollouts a step" in plan.describe()


def test_without_a_stated_number_the_plan_is_trls_product():
    """What TRL does with the recipe's batch 1 x accumulation 8 on 8 GPUs: 64 rollouts, said."""
    plan = plan_rollouts(None, 8, 1, 8, gradient_accumulation_steps=8)
    assert plan.rollouts == 64 and plan.prompts == 8 and "64 rollouts a step" in plan.describe()


def test_rollouts_that_do_not_divide_say_what_to_change():
    with pytest.raises(ConfigError, match="multiple of 8"):
        plan_rollouts(12, 8, 1, 1, 1)
    with pytest.raises(ConfigError, match="lower per_device_train_batch_size"):
        plan_rollouts(8, 8, 4, 4, 1)


def test_parse_derives_the_accumulation_and_refuses_a_contradiction():
    _, grpo, _ = parse(["--config", TINY, "--per_device_train_batch_size", "2"], cpu=True)
    assert grpo.gradient_accumulation_steps == 4 and grpo.generation_batch_size == 8
    _, grpo, _ = parse(["--config", "qwen3.5-35b-a3b-judge-led"], cpu=True)
    assert grpo.gradient_accumulation_steps == 8 and grpo.generation_batch_size == 8     # 1 process x batch 1
    with pytest.raises(ConfigError, match="drop gradient_accumulation_steps"):
        parse(["--config", TINY, "--per_device_train_batch_size", "2", "--gradient_accumulation_steps", "8"],
              cpu=True)
    with pytest.raises(ConfigError, match="drop steps_per_generation"):
        parse(["--config", TINY, "--steps_per_generation", "2"], cpu=True)


# --- the memory preflight --------------------------------------------------------------------


@pytest.fixture(scope="module")
def moe_config_only(tmp_path_factory):
    """Qwen3.5-35B-A3B's config (transformers' default for its class) and nothing else: no weights
    to load, so a plan that got past the preflight would fail on the missing files."""
    from transformers import Qwen3_5MoeConfig

    folder = tmp_path_factory.mktemp("moe-config")
    Qwen3_5MoeConfig(architectures=["Qwen3_5MoeForConditionalGeneration"]).save_pretrained(folder)
    return folder


def _preflight(folder, monkeypatch, *overrides, processes=1, zero3=False):
    from brushwork.train.memory import preflight

    # parsed as on a GPU (the file's gradient checkpointing); `use_cpu` so that TrainingArguments builds here
    args, grpo, model_args = parse(["--config", "qwen3.5-35b-a3b-judge-led", "--model_name_or_path", str(folder),
                                    "--use_cpu", "true", *overrides], cpu=False)
    assert grpo.gradient_checkpointing
    if zero3:   # what `accelerate launch` with the ZeRO-3 config tells each process (DeepSpeed itself is not here)
        monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "3")
    return preflight(args, grpo, model_args, processes)


@pytest.mark.slow
def test_preflight_refuses_the_moe_on_one_80gb_gpu_before_loading_weights(moe_config_only, monkeypatch):
    with pytest.raises(ConfigError) as caught:
        _preflight(moe_config_only, monkeypatch, "--gpu_memory_gib", "74.5")        # an H100's 80 GB
    said = str(caught.value)
    assert "35.11 B parameters in bfloat16" in said and "74.5 GiB" in said and "ZeRO-3" in said
    fits = _preflight(moe_config_only, monkeypatch, "--gpu_memory_gib", "131")        # an H200's 141 GB
    assert 65 * 2 ** 30 < fits.weights < 66 * 2 ** 30 and 29e6 < fits.trainable < 32e6
    experts = _preflight(moe_config_only, monkeypatch, "--gpu_memory_gib", "131", "--lora_target_parameters",
                         "mlp.experts.gate_up_proj", "mlp.experts.down_proj")
    assert 900e6 < experts.trainable < 1000e6         # every routed expert its own rank-16 pair
    sharded = _preflight(moe_config_only, monkeypatch, "--gpu_memory_gib", "74.5", processes=8, zero3=True)
    assert sharded.shards == 8 and sharded.weights == pytest.approx(fits.weights / 8)


H100_BYTES, H200_BYTES = 80 * 10 ** 9, 141 * 10 ** 9   # the datasheets' 80 GB and 141 GB (torch reports a bit more)


def _as_launched(name: str, policy: Path, gpu_bytes: int, monkeypatch):
    """A node plan's own train command as each of its training processes sees it: accelerate's
    launcher reads the accelerate config the command names (its process count, ZeRO-3 or not) and
    sets the variables it gives each process; the flags parse as on a GPU (the file's bf16 and
    gradient checkpointing; `use_cpu` only so that TrainingArguments builds on this machine, which
    the preflight does not read); the GPU reports `gpu_bytes`. `policy` (a config folder: no
    download) stands in for the model the plan trains. Returns (args, grpo, model_args, processes)."""
    import shlex

    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env, prepare_simple_launcher_cmd_env

    from brushwork.env.node import load_plan
    from brushwork.train import memory

    plan = load_plan(name)
    words = shlex.split(plan.train_command(accelerate_configs=str(ACCELERATE)))
    launch, _, _ = _validate_launch_command(launch_command_parser().parse_args(words[words.index("launch") + 1:]))
    assert launch.num_processes == len(plan.train_gpus), "the processes are the GPUs the plan trains on"
    if launch.use_deepspeed:
        launch.deepspeed_fields_from_accelerate_config = ""
        _, env = prepare_deepspeed_cmd_env(launch)
    else:
        _, env = prepare_simple_launcher_cmd_env(launch)
    flags = launch.training_script_args[launch.training_script_args.index("train") + 1:]
    args, grpo, model_args = parse([*flags, "--model_name_or_path", str(policy), "--use_cpu", "true"], cpu=False)
    for key, value in env.items():   # after the parse: under ZeRO-3 TrainingArguments wants DeepSpeed, not here
        if key.startswith("ACCELERATE_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setattr(memory, "gpu_memory_bytes", lambda local_rank=0: gpu_bytes)
    return args, grpo, model_args, launch.num_processes


@pytest.mark.slow
def test_the_8xh100_plans_training_fits_an_h100_and_the_35b_in_its_place_does_not(moe_config_only, monkeypatch,
                                                                                    tmp_path):
    """The node plan's own train command, through the preflight as each of its four ZeRO-3 processes
    sees it on an H100: its policy (a dense Qwen3.5 config at least the 4B's size stands in: no
    download) fits; the recipe's 35B-A3B in its place is refused, since TRL merges the LoRA into a
    gathered copy of the whole model at each vLLM weight sync."""
    from transformers import Qwen3_5Config

    from brushwork.train.memory import preflight, sharded

    dense = tmp_path / "dense"
    Qwen3_5Config(architectures=["Qwen3_5ForConditionalGeneration"]).save_pretrained(dense)
    args, grpo, model_args, processes = _as_launched("8xh100", dense, H100_BYTES, monkeypatch)
    assert grpo.use_vllm and processes == 4 and sharded(grpo) and grpo.gradient_checkpointing
    assert preflight(args, grpo, model_args, processes).shards == processes
    monkeypatch.undo()
    args, grpo, model_args, processes = _as_launched("8xh100", moe_config_only, H100_BYTES, monkeypatch)
    with pytest.raises(ConfigError, match="74.5 GiB"):
        preflight(args, grpo, model_args, processes)


@pytest.mark.slow
def test_the_1xh200_plans_training_fits_an_h200_beside_its_judge_and_hpsv3(moe_config_only, monkeypatch):
    """The one-GPU plan's own train command (the recipe's 35B-A3B, one process, no ZeRO) through the
    preflight as its process sees it on an H200; and what it needs fits in what the plan's judge
    (vLLM's share of the GPU, read from the plan) and HPSv3 (7B in bf16, one pass: ~18 GiB, the
    plan's figure) leave it on the same GPU."""
    import re

    from brushwork.env.node import load_plan
    from brushwork.train.memory import GIB, preflight, sharded

    args, grpo, model_args, processes = _as_launched("1xh200", moe_config_only, H200_BYTES, monkeypatch)
    assert processes == 1 and not sharded(grpo) and not grpo.use_vllm and grpo.gradient_checkpointing
    estimate = preflight(args, grpo, model_args, processes)
    assert "35.11 B parameters in bfloat16" in estimate.describe() and estimate.shards == 1
    judge_share = float(re.search(r"--gpu-memory-utilization ([0-9.]+)", load_plan("1xh200").command("judge"))[1])
    left = H200_BYTES * (1 - judge_share) - 18 * GIB
    assert estimate.total < left, f"{estimate.describe()}; the judge and HPSv3 leave {left / GIB:.1f} GiB"
    # the same command without gradient checkpointing is refused in what they leave (its legal twin fits above)
    monkeypatch.setattr("brushwork.train.memory.gpu_memory_bytes", lambda local_rank=0: int(left))
    args, grpo, model_args = parse(["--config", "qwen3.5-35b-a3b-judge-led", "--model_name_or_path",
                                    str(moe_config_only), "--use_cpu", "true", "--gradient_checkpointing", "false"],
                                   cpu=False)
    with pytest.raises(ConfigError, match="turn on gradient_checkpointing"):
        preflight(args, grpo, model_args, 1)


# --- two processes -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(*args: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(ACCELERATE / "cpu-2.yaml"),
               "--main_process_port", str(_free_port()), *args]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "OMP_NUM_THREADS": "1"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_best_painting_is_the_best_across_processes(tmp_path):
    """Each process holds its own best; the one logged is the best of both (rank 1's here)."""
    script = tmp_path / "best.py"
    script.write_text(
        "from accelerate import PartialState\n"
        "from brushwork.score.card import ScoreCard\n"
        "from brushwork.score.rollout import Rollout\n"
        "from brushwork.train.tracking import best_across_processes\n"
        "rank = PartialState(cpu=True).process_index     # what TrainingArguments(use_cpu=True) starts\n"
        "card = ScoreCard(passed=True, total=0.4 + 0.3 * rank, terms={}, weights={}, preset=None)\n"
        "mine = Rollout('Paint', card, png=b'png-%d' % rank, step=1) if rank else None\n"
        "best = best_across_processes(mine)\n"
        "open(f'best-{rank}.txt', 'w').write(f'{best.reward} {best.png.decode()}')\n")
    done = _launch(str(script), cwd=tmp_path, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    # each process writes a file of its own: two processes printing to one pipe interleave
    assert [(tmp_path / f"best-{rank}.txt").read_text() for rank in (0, 1)] == ["0.7 png-1", "0.7 png-1"]


def _tensorboard_images(out: Path) -> dict[int, bytes]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    images = {}
    for events in {p.parent for p in out.rglob("events.out.tfevents.*")}:
        acc = EventAccumulator(str(events), size_guidance={"images": 0})
        acc.Reload()
        if "brushwork/best_painting" in acc.Tags()["images"]:
            images.update({e.step: e.encoded_image_string for e in acc.Images("brushwork/best_painting")})
    return images


def _rgb(png: bytes):
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(1500)     # a loaded 2-core machine renders the pool slowly in the scorer's start
def test_two_processes_train_with_one_scorer_for_the_node(tmp_path, reciting_model):
    """`accelerate launch` with two CPU processes (gloo) trains the tiny model 3 steps: 4 rollouts a
    step as configured (2 per process), all scored by the one server the first process owns,
    on one film without a collision, with each step's best painting the best of both."""
    import numpy as np

    base = reciting_model
    out = tmp_path / "run"
    done = _launch("-m", "brushwork.cli", "train", "--config", TINY, "--tiny", "false",
                   "--model_name_or_path", str(base), "--output_dir", str(out), "--sft_samples", "0",
                   "--max_steps", "3", "--warmup_steps", "0", "--rollouts_per_step", "4", "--num_generations", "4",
                   "--per_device_train_batch_size", "2", "--temperature", "1.0", "--task_repeats", "1",
                   "--save_strategy", "no", "--report_to", "tensorboard", "--workers", "2",
                   cwd=tmp_path, timeout=1400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said = " ".join((done.stdout + done.stderr).split())      # the plan is said on stderr, wrapped
    assert "plan: 4 rollouts a step (1 prompt(s) x 4 generations) = 2 process(es) x batch 2 x 1" in said

    frames = read_film(out / "film")
    keys = [(f.step, f.index) for f in frames]
    assert sorted(keys) == [(s, i) for s in (1, 2, 3) for i in range(4)]     # both processes, no collision
    lines = (out / "film" / "index.jsonl").read_text().splitlines()
    assert len(lines) == 12 and all(json.loads(line) for line in lines)
    for frame in frames:
        assert (out / "film" / frame.reply_file).exists() and (out / "film" / frame.card_file).exists()

    reports = list(out.glob("scorer-*.json"))
    assert len(reports) == 1, "one scorer for the node"
    health = json.loads(reports[0].read_text())
    assert health["work"]["steps"] == 12 and health["work"]["episodes"] == 12     # every rollout of both
    assert health["sessions"]["opened"] == 12 and health["sessions"]["active"] == 0

    steps = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps if "rewards/brushwork/mean" in s] == [1, 2, 3]

    images = _tensorboard_images(out)
    for step in (1, 2, 3):
        passed = [f for f in frames if f.step == step and f.passed and f.png_file]
        if not passed:
            assert step not in images
            continue
        top = max(f.reward for f in passed)
        best = [_rgb((out / "film" / f.png_file).read_bytes()) for f in passed if f.reward == top]
        assert any(np.array_equal(_rgb(images[step]), b) for b in best), f"step {step}: not the best of both"


@pytest.mark.chromium
@pytest.mark.timeout(600)
def test_the_node_scorer_is_a_process_of_its_own_below_the_trainer(example_pool, tmp_path):
    """The node's scorer runs in its own interpreter (never on a trainer's GIL), `render_nice`
    below the process that starts it with its browsers, scores a rollout over its socket, writes
    its last health report when closed, and leaves no process behind."""
    from test_score import HONEST

    from brushwork.score.options import ScoringOptions
    from brushwork.train.launch import NodeScorer
    from brushwork.train.rewards import BrushworkReward

    options = ScoringOptions(workers=1, render_nice=3)
    scorer = NodeScorer(options, 4, log=tmp_path / "scorer.log", report=tmp_path / "scorer.json")
    try:
        assert scorer.pid != os.getpid() and nice_of(scorer.pid) == nice_of(os.getpid()) + 3
        reward = BrushworkReward(server_url=scorer.url, parallel=1)
        try:
            assert reward.score(prompts=["p"], completions=[HONEST], seed=[13])[0] > 0.05
        finally:
            reward.close()
        below = descendants(scorer.pid)
        assert below and {nice_of(pid) for pid in below} == {nice_of(scorer.pid)}    # its browsers, no lower
    finally:
        scorer.close()
    health = json.loads((tmp_path / "scorer.json").read_text())
    assert health["work"]["episodes"] == 1 and health["sessions"]["active"] == 0
    assert not descendants(scorer.pid) and scorer.returncode is not None


@pytest.mark.timeout(300)
def test_a_node_scorer_that_cannot_start_says_why(tmp_path):
    """A scorer whose server fails at start-up (a pool folder that does not exist) is a SetupError
    carrying the end of its log, and leaves no process behind."""
    from brushwork.errors import SetupError
    from brushwork.score.options import ScoringOptions
    from brushwork.train.launch import NodeScorer

    missing = tmp_path / "no-such-pool"
    with pytest.raises(SetupError) as failed:
        NodeScorer(ScoringOptions(pool=str(missing), workers=1), 4, log=tmp_path / "scorer.log")
    said = str(failed.value)
    assert "did not start" in said and "exited with code" in said
    assert said.splitlines()[-1] == f"error: {missing} is not a pool folder: metadata.jsonl is missing"
