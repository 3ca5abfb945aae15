"""Training for real on 2 CPU cores: the tiny model, the supervised warm-up, GRPO + LoRA
against the real environment (in-process, then through a real `brushwork serve` after a
resume), the film and the metrics every step logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_env_server import Server

from brushwork.gate import Gate
from brushwork.train.config import parse
from brushwork.train.film import read_film
from brushwork.train.tiny import TinySpec, build_tiny, train_tokenizer, warmup_rows

GATE = Gate()   # the recipe's configuration

ROOT = Path(__file__).resolve().parents[1]
TINY = "tiny-cpu"   # a bundled config, by name
TERM_METRICS = ("brushwork/gate", "brushwork/length", "brushwork/judge", "brushwork/aesthetic")
STEP_METRICS = ("rewards/brushwork/mean", "brushwork/gate_pass_rate", "brushwork/paint_fraction",
                "brushwork/none_rate", "brushwork/cheat_rate", *TERM_METRICS)


def test_tokenizer_compresses_sketches_and_round_trips():
    tok = train_tokenizer(TinySpec(corpus_sketches=80))
    row = warmup_rows(1, seed=5)[0]
    text = row["completion"][0]["content"]
    ids = tok(text)["input_ids"]
    assert tok.decode(ids) == text
    assert len(ids) < len(text) / 6          # whole lines become tokens: a sketch is a few hundred
    chat = tok.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=False)
    assert chat.endswith("<|im_start|>assistant\n") and chat.count("<|im_end|>") == 2
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>"


def test_warmup_pairs_pass_the_gate_and_match_their_prompts():
    rows = warmup_rows(12, seed=3, domains=["hibiscus", "leaves"])
    assert len(rows) == 12
    for row in rows:
        reply = row["completion"][0]["content"]
        assert GATE.check(reply).passed
        assert row["subject"] in row["prompt"][-1]["content"]
    hibiscus = [r for r in rows if "hibiscus" in r["subject"]]
    assert hibiscus and all("hibiscus" in r["completion"][0]["content"].split("\n")[1] for r in hibiscus)


def test_build_tiny_is_reused_and_rebuilt_when_the_spec_changes(tmp_path):
    spec = TinySpec(corpus_sketches=40, layers=2)
    path = build_tiny(spec, tmp_path / "tiny")
    stamp = json.loads((path / "brushwork-tiny.json").read_text())
    assert stamp["key"] == spec.key and 100_000 < stamp["parameters"] < 3_000_000
    mtime = (path / "model.safetensors").stat().st_mtime_ns
    assert build_tiny(spec, path) == path and (path / "model.safetensors").stat().st_mtime_ns == mtime
    build_tiny(TinySpec(corpus_sketches=40, layers=3), path)
    assert json.loads((path / "brushwork-tiny.json").read_text())["spec"]["layers"] == 3
    with pytest.raises(ValueError, match="divide"):
        TinySpec(hidden_size=100, heads=3)


def _lora_b_norm(folder: Path) -> float:
    from safetensors.torch import load_file

    tensors = load_file(str(folder / "adapter_model.safetensors"))
    b = [t for k, t in tensors.items() if "lora_B" in k]
    assert b, "the adapter has no LoRA B matrices"
    return float(sum(t.abs().sum() for t in b))


def _metric_keys(path: Path) -> set[str]:
    return {k for line in path.read_text().splitlines() for k in json.loads(line)}


@pytest.fixture(scope="module")
def tiny_run(example_pool, tmp_path_factory):
    """the bundled tiny-cpu config, shortened: a short warm-up, then 2 GRPO steps in-process."""
    from brushwork.train.run import train

    out = tmp_path_factory.mktemp("tiny-run")
    args = parse(["--config", TINY, "--output_dir", str(out), "--sft_samples", "400", "--sft_epochs", "4",
                  "--sft_learning_rate", "4e-3", "--sft_check", "8", "--max_steps", "2", "--warmup_steps", "0",
                  "--temperature", "0.7", "--task_repeats", "1", "--save_steps", "1", "--report_to", "none",
                  "--workers", "2"])
    return train(*args)


@pytest.mark.slow
@pytest.mark.chromium
def test_grpo_on_the_tiny_model_changes_the_lora_and_logs_every_term(tiny_run):
    out = tiny_run.output_dir
    assert tiny_run.steps == 2
    warm = json.loads((out / "warmup.json").read_text())
    assert warm["rows"] == 400 and warm["checked"] == 8 and warm["gate_pass_rate"] is not None
    assert (out / "base" / "model.safetensors").exists()
    config = json.loads((out / "adapter_config.json").read_text())
    assert config["r"] == 16 and config["lora_alpha"] == 32 and Path(config["base_model_name_or_path"]) == out / "base"
    assert _lora_b_norm(out) > 0            # LoRA B starts at zero: any change is learning
    keys = _metric_keys(out / "metrics.jsonl")
    missing = [k for k in STEP_METRICS if k not in keys]
    assert not missing, f"not logged: {missing}"


@pytest.mark.slow
@pytest.mark.chromium
def test_the_film_holds_every_rollout_with_code_and_card(tiny_run):
    frames = read_film(tiny_run.output_dir / "film")
    assert len(frames) == 16 and {f.step for f in frames} == {1, 2}
    film = tiny_run.output_dir / "film"
    for frame in frames:
        assert (film / frame.reply_file).exists() and frame.card_file and (film / frame.card_file).exists()
        card = json.loads((film / frame.card_file).read_text())
        assert card["passed"] == frame.passed and card["total"] == frame.reward
        if frame.passed:
            assert (film / frame.png_file).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert frame.terms["judge"] is not None and frame.terms["aesthetic"] is not None
        else:
            assert frame.violations and frame.reward == 0.0
    groups = {(f.step, f.group) for f in frames}
    assert len(groups) == 2                  # one prompt per step; its 8 rollouts share one reference draw


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(600)
def test_resume_continues_through_a_real_server(tiny_run, tmp_path):
    from brushwork.train.run import train

    srv = Server(tmp_path / "serve.log", "--workers", "2", "--max-sessions", "8", "--render-timeout-s", "40").start()
    try:
        srv.wait_ready()
        out = tiny_run.output_dir
        before = _lora_b_norm(out)
        args = parse(["--config", TINY, "--output_dir", str(out), "--resume_from_checkpoint", "last",
                      "--max_steps", "3", "--warmup_steps", "0", "--temperature", "0.7", "--task_repeats", "1",
                      "--report_to", "none", "--env_urls", srv.url.replace("http", "ws")])
        result = train(*args)
        assert result.steps == 3 and result.warmup is None     # resumed: no second warm-up
        assert _lora_b_norm(out) != before
        frames = [f for f in read_film(out / "film") if f.step == 3]
        assert len(frames) == 8
        passed = [f for f in frames if f.passed]
        assert all((out / "film" / f.png_file).exists() for f in passed)
        assert srv.health()["sessions"]["active"] <= 8
    finally:
        srv.stop()


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(600)
def test_multi_turn_is_a_config_switch(tiny_run, tmp_path):
    """environment_factory wiring on the single-turn tiny model (Qwen3's JSON tool calls): the
    tool is offered, and a rollout that never calls it (this model was never taught to) is
    scored on its text answer. tests/test_train_multiturn.py drives the tool itself."""
    from brushwork.train.run import train

    args = parse(["--config", TINY, "--tiny", "false", "--model_name_or_path", str(tiny_run.output_dir / "base"),
                  "--output_dir", str(tmp_path), "--multi_turn", "true", "--revisions", "1", "--sft_samples", "0",
                  "--max_steps", "1", "--max_completion_length", "256", "--report_to", "none", "--task_repeats", "1"])
    result = train(*args)
    assert result.steps == 1 and result.warmup is None
    keys = _metric_keys(tmp_path / "metrics.jsonl")
    assert "brushwork/episodes_finished" in keys and "rewards/brushwork_episode/mean" in keys


def test_train_command_line_errors_and_help(tmp_path):
    from typer.testing import CliRunner

    from brushwork.cli import app

    runner = CliRunner()

    def text(result):   # rich wraps long messages
        return " ".join(result.output.split())

    missing = runner.invoke(app, ["train", "--config", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2 and "no such file" in text(missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("tiny: true\npreset: loudest\n")
    wrong = runner.invoke(app, ["train", "--config", str(bad)])
    assert wrong.exit_code == 2 and "judge-led" in text(wrong)
    shown = runner.invoke(app, ["train", "--help"])
    assert shown.exit_code == 0
    assert all(key in shown.output for key in ("--sft_samples", "--env_urls", "--learning_rate", "--lora_r"))
