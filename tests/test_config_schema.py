"""One declared configuration: every setting appears under the same words on every surface
(`--render-timeout-s` in `score --help`, `serve --help` and `train --help`, as
`BRUSHWORK_RENDER_TIMEOUT_S` and as a YAML key); old spellings still work and warn; a bad
value is one line naming the option as the user spelled it, exit status 2, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from brushwork.cli.config import EverySetting
from brushwork.core.settings import default_of, env_name, flag, load, settings
from brushwork.env.settings import ServerSection, ServerSettings
from brushwork.errors import ConfigError
from brushwork.gate.config import GateSettings
from brushwork.render.config import BROWSERS_PER_CORE, CPU_BUDGET_S, RenderConfig, RenderSettings, cores
from brushwork.score.options import (
    AestheticSettings,
    JudgeSettings,
    PoolSettings,
    RewardSettings,
    ScoringOptions,
)
from brushwork.train.config import TrainingSection, compact_help

SECTIONS = (PoolSettings, RewardSettings, JudgeSettings, AestheticSettings, GateSettings, RenderSettings,
            ServerSection, TrainingSection)
SCORING = [f for f in settings(ScoringOptions) if f.metadata["cli"]]
REPLY = "```js\nfunction setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { brush.circle(1, 1, 1); }\n```\n"


def brushwork(*args, env: dict | None = None, cwd: Path | None = None):
    return subprocess.run([sys.executable, "-m", "brushwork.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "300", **(env or {})}, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def helps():
    return {cmd: brushwork(cmd, "--help").stdout for cmd in ("score", "serve", "eval")}


def test_each_key_is_declared_in_exactly_one_section():
    names = [f.name for section in SECTIONS for f in fields(section)]
    assert len(names) == len(set(names)), "a key is declared in two sections"
    assert set(names) == {f.name for f in fields(EverySetting)}
    assert all(f.metadata.get("setting") and f.metadata["help"] for f in fields(EverySetting))


@pytest.mark.parametrize("command", ["score", "serve", "eval"])
def test_every_scoring_setting_is_an_option_under_its_own_name(helps, command):
    missing = [flag(f.name) for f in SCORING if flag(f.name) not in helps[command]]
    assert not missing, f"{command} --help lacks {missing}"
    assert env_name("render_timeout_s") in helps[command]


def test_serve_has_the_server_section_too(helps):
    assert all(flag(f.name) in helps["serve"] for f in settings(ServerSection))
    assert "--port" not in helps["score"]


@pytest.mark.parametrize("command", [("taste", "fit"), ("taste", "evaluate"), ("judge", "audit")])
def test_the_pool_commands_take_the_pool_section_under_its_own_names(command):
    text = brushwork(*command, "--help").stdout
    missing = [flag(f.name) for f in settings(PoolSettings) if flag(f.name) not in text or env_name(f.name) not in text]
    assert not missing, f"{' '.join(command)} --help lacks {missing}"


def test_a_taste_command_reads_its_pool_from_the_environment_and_a_file(tmp_path):
    res = brushwork("taste", "fit", "-o", str(tmp_path / "t.json"), env={"BRUSHWORK_POOL": str(tmp_path / "no")})
    assert res.returncode == 2 and res.stderr.strip() == f"error: {tmp_path / 'no'} is not a pool folder: " \
        "metadata.jsonl is missing", res.stderr
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"# brushwork taste evaluate --config c.yaml\npool: {tmp_path / 'file'}\npreset: hps-led\n")
    res = brushwork("taste", "evaluate", "--config", str(cfg))
    assert res.returncode == 2 and f"error: {tmp_path / 'file'} is not a pool folder" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "t.json").exists()


def test_train_help_lists_every_scoring_and_training_key():
    text = compact_help()
    missing = [f.name for f in settings(ScoringOptions) + settings(TrainingSection) if f"--{f.name} " not in text]
    assert not missing


@pytest.mark.parametrize(("changes", "message"), [
    ({"workers": -1}, "RenderConfig.workers must be >= 0, got -1"),
    ({"size": 8}, "RenderConfig.size must be >= 16 and <= 4096, got 8"),
    ({"timeout_s": 0}, "RenderConfig.timeout_s must be > 0, got 0"),
    ({"cpu_budget_s": 70}, "RenderConfig.cpu_budget_s (70 CPU-s) must be below the render deadline"),
    ({"ray_memory_mb_per_worker": 0}, "RenderConfig.ray_memory_mb_per_worker must be >= 1, got 0"),
    ({"backend": "k8s"}, "RenderConfig.backend 'k8s': use local or ray"),
])
def test_a_render_config_is_checked_by_the_render_settings_under_its_own_names(changes, message):
    with pytest.raises(ConfigError) as e:
        RenderConfig(**changes)
    assert str(e.value).startswith(message)
    settings = {f.name: f for f in fields(RenderSettings)}
    assert all(settings[key].metadata["help"] == f.metadata["help"]
               for f in fields(RenderConfig) if (key := f.metadata.get("render_setting")))


def test_a_render_config_resolves_what_the_settings_leave_open():
    config = RenderSettings(render_timeout_s=30, render_cache=False).render_config(cache_dir=Path("c"))
    assert (config.workers, config.cpu_budget_s, config.timeout_s, config.use_cache) == \
        (cores(), CPU_BUDGET_S, 30, False)
    assert RenderConfig(workers=0).workers == cores() and RenderConfig(cpu_budget_s=2).cpu_budget_s == 2
    # a Ray worker's config is made on the driver: this machine's cores do not bound it, as they bound the settings
    assert RenderConfig(workers=BROWSERS_PER_CORE * cores() + 1).workers == BROWSERS_PER_CORE * cores() + 1
    with pytest.raises(ConfigError, match="workers must be at most"):
        RenderSettings(workers=BROWSERS_PER_CORE * cores() + 1)


def test_every_setting_is_read_from_its_environment_variable_and_its_yaml_key(tmp_path):
    sample = {f.name: default_of(f) for f in settings(EverySetting) if default_of(f) is not None
              and f.metadata["cli"]}
    environ = {env_name(k): (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in sample.items()}
    options, sources = load(EverySetting, environ=environ)
    assert {k for k, s in sources.items() if s == "environment"} == set(sample)
    assert all(getattr(options, k) == v for k, v in sample.items())

    import yaml

    cfg = tmp_path / "all.yaml"
    cfg.write_text(yaml.safe_dump({k: (str(v) if isinstance(v, Path) else v) for k, v in sample.items()}))
    _, sources = load(EverySetting, file=cfg, environ={})
    assert {k for k, s in sources.items() if s == "file"} == set(sample)


def test_every_scoring_key_is_a_training_config_key(tmp_path):
    pytest.importorskip("trl")
    import yaml

    from brushwork.train.config import parse

    values = {f.name: default_of(f) for f in settings(ScoringOptions) if default_of(f) is not None}
    values |= {"preset": "hps-led", "reference_mix": "love:3", "size": 512, "render_timeout_s": 45.0}
    cfg = tmp_path / "run.yaml"
    cfg.write_text("# brushwork train --config run.yaml\n" + yaml.safe_dump({"tiny": True, **values}))
    args, _, _ = parse(["--config", str(cfg)], cpu=True)
    assert all(getattr(args, k) == v for k, v in values.items())
    assert args.mix == (("love", 3),) and args.render_config().size == 512


def test_without_a_gpu_checkpointing_is_off_unless_the_command_line_asks(tmp_path):
    pytest.importorskip("trl")
    from brushwork.train.config import parse

    cfg = tmp_path / "gpu.yaml"
    cfg.write_text("tiny: true\ngradient_checkpointing: true\n")   # a GPU plan's file, run on a CPU
    _, grpo, _ = parse(["--config", str(cfg)], cpu=True)
    assert (grpo.gradient_checkpointing, grpo.activation_checkpointing) == (False, False)
    for name in ("--gradient_checkpointing", "--activation_checkpointing"):
        _, grpo, _ = parse(["--config", str(cfg), name, "true"], cpu=True)
        assert (grpo.gradient_checkpointing, grpo.activation_checkpointing) == (True, True), name


def test_flags_beat_the_environment_which_beats_the_file(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("workers: 1\npreset: hps-led\nmax_sessions: 3\n")
    options, sources = load(ServerSettings, file=cfg, environ={"BRUSHWORK_PRESET": "hps-only",
                                                                "BRUSHWORK_MAX_SESSIONS": "4"},
                            flags={"max_sessions": 5, "judge": None})
    assert (options.workers, options.preset, options.max_sessions) == (1, "hps-only", 5)
    assert (sources["workers"], sources["preset"], sources["max_sessions"], sources["judge"]) == \
        ("file", "environment", "flag", "default")


@pytest.mark.parametrize(("args", "named"), [
    (["serve", "--port", "-3"], "--port"),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--workers", "1000"], "--workers"),
    (["score", "--seed", "-1", "{reply}"], "--seed"),
    (["score", "--seed", str(2**32), "{reply}"], "--seed"),
    (["check", "--no-render", "--size", "0", "{reply}"], "--size"),
    (["check", "--no-render", "--allow", "fill,watercolor", "{reply}"], "--allow"),
    (["score", "--preset", "loudest", "{reply}"], "--preset"),
    (["score", "--render-timeout-s", "5", "{reply}"], "render deadline"),
    (["render", "-o", "out", "--workers", "-1", "{reply}"], "--workers"),
    (["eval", "--judge", "gpt"], "--judge"),
])
def test_a_bad_value_is_one_line_naming_the_option(tmp_path, args, named):
    reply = tmp_path / "reply.md"
    reply.write_text(REPLY)
    res = brushwork(*(str(reply) if a == "{reply}" else a for a in args), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip() and not line.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error:") and named in lines[0], res.stderr
    assert "Traceback" not in res.stderr + res.stdout


def test_an_environment_variable_error_names_the_variable():
    res = brushwork("serve", env={"BRUSHWORK_SESSION_TIMEOUT_S": "0"})
    assert res.returncode == 2
    assert res.stderr.strip() == "error: BRUSHWORK_SESSION_TIMEOUT_S must be > 0, got 0"


def test_old_spellings_still_work_and_name_the_new_option(tmp_path):
    reply = tmp_path / "reply.md"
    reply.write_text(REPLY)
    res = brushwork("check", "--no-render", "--json", "--timeout", "30", "--cpu-budget", "40",
                    "--allow", "circle", str(reply))
    assert res.returncode == 2, res.stderr      # the budget must stay below the deadline: checked, not dropped
    assert "warning: --timeout is deprecated; use --render-timeout-s" in res.stderr
    assert "warning: --cpu-budget is deprecated; use --render-cpu-budget-s" in res.stderr
    assert "warning: --allow is deprecated; use --allowed-methods" in res.stderr
    res = brushwork("check", "--no-render", "--json", "--timeout", "30", "--allow", "circle", str(reply))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)[0]["passed"]
    assert "--timeout" not in brushwork("check", "--help").stdout     # hidden


def test_config_show_says_where_each_value_came_from(tmp_path):
    cfg = tmp_path / "run.yaml"
    cfg.write_text("# brushwork train --config run.yaml\npreset: hps-led\nworkers: 1\nlearning_rate: 0.1\n")
    res = brushwork("config", "show", "--config", str(cfg), "--json", "--max-sessions", "3",
                    env={"BRUSHWORK_PORT": "9001", "BRUSHWORK_WORKERS": "2"})
    assert res.returncode == 0, res.stderr
    shown = json.loads(res.stdout)
    assert shown["preset"] == {"value": "hps-led", "source": "file"}
    assert shown["port"] == {"value": 9001, "source": "environment"}
    assert shown["judge"] == {"value": "taste", "source": "default"}
    assert shown["workers"] == {"value": 2, "source": "environment"}          # the environment beats the file
    assert shown["max_sessions"] == {"value": 3, "source": "flag"}
    assert shown["not_brushwork"] == ["learning_rate"]
    table = brushwork("config", "show", env={"BRUSHWORK_RENDER_TIMEOUT_S": "30"}).stdout
    row = next(line for line in table.splitlines() if " render_timeout_s " in line)
    assert "30.0" in row and "environment" in row and "--render-timeout-s" in row


GOOD_FILE = "workers: 1\nocr: false\npreset: hps-led\nsnapshot: 20261201\n"
# Each bad value, from each source, on a command that reads it and on one that only shares the file.
BAD_SOURCES = [
    ({"file": 'workers: "many"\n'}, ["check", "--no-render"],
     "workers (in {cfg}) must be a whole number (int), got 'many'"),
    ({"file": "ocr: maybe\n"}, ["check", "--no-render"], "ocr (in {cfg}) must be true or false (bool), got 'maybe'"),
    ({"file": "port: [8000]\n"}, ["check", "--no-render"], "port (in {cfg}) must be a whole number (int), got [8000]"),
    ({"file": "ocr: maybe\n"}, ["config", "show"], "ocr (in {cfg}) must be true or false (bool), got 'maybe'"),
    ({"file": "workerz: 2\n"}, ["check", "--no-render"],
     "--config {cfg}: unknown key workerz (did you mean workers?): not a brushwork setting"),
    ({"env": {"BRUSHWORK_MAX_CHARS": "lots"}}, ["check", "--no-render"],
     "BRUSHWORK_MAX_CHARS must be a whole number (int), got 'lots'"),
    ({"env": {"BRUSHWORK_OCR": "maybe"}}, ["config", "show"],
     "BRUSHWORK_OCR must be true or false (bool), got 'maybe'"),
    ({"env": {"BRUSHWORK_OCR": "maybe"}}, ["train", "--config", "tiny-cpu"],
     "BRUSHWORK_OCR must be true or false (bool), got 'maybe'"),
    ({"flag": ["--max-chars", "lots"]}, ["check", "--no-render"],
     "Invalid value for '--max-chars': Input should be a valid integer"),
    ({"flag": ["--workers", "many"]}, ["train", "--config", "tiny-cpu"], "--workers must be a whole number (int)"),
]


@pytest.mark.parametrize(("source", "command", "message"), BAD_SOURCES)
def test_a_bad_value_from_any_source_is_one_line_naming_key_source_and_type(tmp_path, source, command, message):
    reply, cfg = tmp_path / "reply.md", tmp_path / "bad.yaml"
    reply.write_text(REPLY)
    cfg.write_text(source.get("file", GOOD_FILE))
    args = [*command, "--config", str(cfg), *source.get("flag", [])] if "--config" not in command \
        else [*command, *source.get("flag", [])]
    res = brushwork(*args, *([str(reply)] if command[0] == "check" else []), env=source.get("env"))
    assert res.returncode == 2, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message.format(cfg=cfg) in lines[0], res.stderr
    assert "Traceback" not in res.stderr + res.stdout


def test_config_show_shows_a_files_values_and_every_command_reads_the_same_file(tmp_path):
    reply, cfg = tmp_path / "reply.md", tmp_path / "good.yaml"
    reply.write_text(REPLY)
    cfg.write_text(GOOD_FILE + "port: 8001\n")
    res = brushwork("config", "show", "--json", "--config", str(cfg))
    assert res.returncode == 0, res.stderr
    shown = json.loads(res.stdout)
    assert {k: shown[k] for k in ("workers", "ocr", "snapshot", "port")} == {
        "workers": {"value": 1, "source": "file"}, "ocr": {"value": False, "source": "file"},
        "snapshot": {"value": "20261201", "source": "file"}, "port": {"value": 8001, "source": "file"}}
    # the file's server key is no stranger to `check`, which reads only the gate's keys
    res = brushwork("check", "--no-render", "--json", "--config", str(cfg), str(reply))
    assert res.returncode == 0 and json.loads(res.stdout)[0]["passed"], res.stderr


@pytest.mark.parametrize("command", ["score", "serve"])
def test_help_shows_every_option_and_variable_whole_at_80_columns_through_a_pipe(command):
    text = brushwork(command, "--help", env={"COLUMNS": "80"}).stdout
    cls = ServerSettings if command == "serve" else ScoringOptions
    names = [(flag(f.name), env_name(f.name)) for f in settings(cls) if f.metadata["cli"]]
    cut = [n for pair in names for n in pair if not any(n in line.split() or f"[{n}" in line or f"{n};" in line
                                                        or f"{n}]" in line for line in text.splitlines())]
    assert not cut, f"{command} --help cuts {cut}"
    assert "…" not in text and max(map(len, text.splitlines())) <= 80


def test_config_show_tells_what_train_reads_from_a_bundled_config_and_the_environment():
    pytest.importorskip("trl")
    from brushwork.train.config import BrushworkArguments, parse

    env = {"BRUSHWORK_PRESET": "hps-led", "BRUSHWORK_SFT_CHECK": "4"}
    res = brushwork("config", "show", "--config", "tiny-cpu", "--json", env=env)
    assert res.returncode == 0, res.stderr
    shown = json.loads(res.stdout)
    assert shown["tiny"] == {"value": True, "source": "file"}
    assert shown["preset"] == {"value": "hps-led", "source": "environment"}
    assert {"max_steps", "lora_r", "learning_rate"} <= set(shown["not_brushwork"])
    args, _, _ = parse(["--config", "tiny-cpu"], cpu=True, environ=env)
    read = {f.name: getattr(args, f.name) for f in settings(BrushworkArguments)}
    assert {k: str(v) if isinstance(v, Path) else v for k, v in read.items()} == \
        {k: shown[k]["value"] for k in read}


def _commands(group, path=()):
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))
        elif name != "train":       # train prints its own help (test_cli.py)
            yield (*path, name), command


def test_no_command_help_cuts_an_option_name_at_80_columns():
    from typer.main import get_command
    from typer.testing import CliRunner

    from brushwork.cli import app

    cut = []
    for path, command in _commands(get_command(app)):
        text = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"}).output
        words = set(text.replace(",", " ").split())
        cut += [f"{' '.join(path)} {opt}" for p in command.params if not getattr(p, "hidden", False)
                for opt in (*p.opts, *p.secondary_opts) if opt.startswith("--") and opt not in words]
        assert "…" not in text and max(map(len, text.splitlines())) <= 80, path
    assert not cut, cut
