"""Scoring options are declared once (`ScoringOptions`); the server's settings and the
trainer's arguments extend them, so no entry point can drop a field on the way to the
pipeline (the trainer once dropped `taste_model` and `judge_prompt`)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from brushwork.core.settings import env_name, flag, load
from brushwork.env.settings import ServerSettings
from brushwork.errors import ConfigError, SettingError
from brushwork.score.options import ScoringOptions

SCORING = {f.name for f in fields(ScoringOptions)}


@pytest.mark.parametrize("cls", [ServerSettings, "BrushworkArguments"])
def test_entry_points_extend_the_options_without_redeclaring_them(cls):
    if cls == "BrushworkArguments":
        from brushwork.train.config import BrushworkArguments as cls
    assert issubclass(cls, ScoringOptions)
    assert SCORING <= {f.name for f in fields(cls)}
    assert not SCORING & set(cls.__dict__.get("__annotations__", {})), "a scoring option is declared twice"


def test_every_option_reaches_the_pipeline_from_a_training_config(tmp_path):
    from brushwork.train.config import parse

    cfg = tmp_path / "run.yaml"
    cfg.write_text("# brushwork train --config run.yaml\ntiny: true\npreset: hps-led\ntaste_model: t.json\n"
                   "judge_prompt: landscape\njudge_concurrency: 3\nworkers: 1\nrender_timeout_s: 45\n"
                   "render_cpu_budget_s: 4\nverdict_cache: false\n")
    args, _, _ = parse(["--config", str(cfg)], cpu=True)
    scoring = args.scoring()
    assert type(scoring) is ScoringOptions
    assert (scoring.preset, scoring.taste_model, scoring.judge_prompt, scoring.judge_concurrency) == \
        ("hps-led", Path("t.json"), "landscape", 3)
    assert not scoring.verdict_cache
    render = scoring.render_config()
    assert (render.workers, render.timeout_s, render.cpu_budget_s) == (1, 45, 4)


def test_server_settings_come_from_the_environment_and_flags_win():
    env = {"BRUSHWORK_WORKERS": "3", "BRUSHWORK_PRESET": "hps-only", "BRUSHWORK_SESSION_TIMEOUT_S": "45",
           "BRUSHWORK_TASTE_MODEL": "/models/taste.json"}
    s = ServerSettings.from_env(env, preset="hps-led", judge_prompt=None)
    assert (s.workers, s.preset, s.session_timeout_s, s.taste_model) == (3, "hps-led", 45.0, Path("/models/taste.json"))
    assert s.session_limit == 6
    assert ScoringOptions.from_env(env).scoring() == s.scoring().with_(preset="hps-only")
    assert ServerSettings.from_env({env_name("max_sessions"): "5"}).max_sessions == 5


@pytest.mark.parametrize(("changes", "names"), [
    ({"judge": "gpt"}, "judge 'gpt'"),
    ({"aesthetic": "clip"}, "aesthetic 'clip'"),
    ({"preset": "loudest"}, "judge-led"),
    ({"workers": -1}, "workers"),
    ({"render_timeout_s": 5}, "below the render deadline"),
    ({"render_cpu_budget_s": 0}, "render_cpu_budget_s must be > 0"),
    ({"reference_mix": "love"}, "TIER:COUNT"),
    ({"copy_image_similarity": 1.5}, r"or -1 \(off\)"),
    ({"workers": "many"}, r"^workers must be a whole number \(int\), got 'many'$"),
    ({"ocr": "maybe"}, r"^ocr must be true or false \(bool\), got 'maybe'$"),
    ({"workers": True}, r"^workers must be a whole number"),
])
def test_bad_options_name_the_field_and_the_fix(changes, names):
    with pytest.raises(ConfigError, match=names):
        ScoringOptions(**changes)


def test_options_built_in_python_are_as_typed_as_loaded_ones():
    """The legal twins of the bad types above: values that are what their type says, as text."""
    options = ScoringOptions(workers="2", ocr="off", taste_model="t.json", snapshot=20261201)
    assert (options.workers, options.ocr, options.taste_model, options.snapshot) == (2, False, Path("t.json"),
                                                                                    "20261201")
    assert ServerSettings(port=" 8001 ").port == 8001


# (key, a bad value as written in a file and in a variable or flag, the type the error names)
BAD_TYPES = [
    ("workers", '"many"', "many", "a whole number (int)"),
    ("workers", "2.5", "2.5", "a whole number (int)"),
    ("ocr", "maybe", "maybe", "true or false (bool)"),
    ("render_timeout_s", "soon", "soon", "a number (float)"),
    ("port", "[8000]", "eighty", "a whole number (int)"),
]
# Their legal twins: the same keys, written as a person would, read whatever the source.
LEGAL_TYPES = [("workers", '"2"', "2", 2), ("ocr", "false", "off", False), ("render_timeout_s", "45", "45", 45.0),
               ("snapshot", "20261201", "20261201", "20261201"), ("port", "8001", " 8001 ", 8001)]


@pytest.mark.parametrize(("key", "written", "text", "kind"), BAD_TYPES)
def test_a_value_of_the_wrong_type_names_key_source_and_type_from_every_source(tmp_path, key, written, text, kind):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(f"{key}: {written}\n")
    for source, spelled in [({"file": cfg, "environ": {}}, f"{key} (in {cfg})"),
                            ({"environ": {env_name(key): text}}, env_name(key)),
                            ({"environ": {}, "flags": {key: text}}, flag(key))]:
        with pytest.raises(SettingError) as caught:
            load(ServerSettings, **source)
        message = str(caught.value)
        assert message.startswith(f"{spelled} must be {kind}, got ") and "\n" not in message, message
        assert caught.value.key == key


@pytest.mark.parametrize(("key", "written", "text", "value"), LEGAL_TYPES)
def test_a_value_of_the_right_type_is_read_from_every_source(tmp_path, key, written, text, value):
    cfg = tmp_path / "good.yaml"
    cfg.write_text(f"{key}: {written}\n")
    for source in ({"file": cfg, "environ": {}}, {"environ": {env_name(key): text}},
                   {"environ": {}, "flags": {key: text}}):
        assert getattr(load(ServerSettings, **source)[0], key) == value


def test_yes_in_a_file_is_no_number_of_workers(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("workers: yes\n")      # YAML reads `yes` as true, which pydantic alone would take as 1
    with pytest.raises(SettingError, match=r"workers \(in .*\) must be a whole number \(int\), got True"):
        load(ScoringOptions, file=cfg, environ={})


def test_an_unknown_key_in_a_file_is_refused_with_the_closest_key(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("workerz: 2\npreset: hps-led\n")
    with pytest.raises(ConfigError) as caught:
        load(ScoringOptions, file=cfg, environ={})
    assert str(caught.value) == f"--config {cfg}: unknown key workerz (did you mean workers?): not a brushwork " \
        "setting; `brushwork config show` lists every key"
    # its legal twin: a key of another command's section, in a file every command shares, is read by that one
    cfg.write_text("port: 8001\npreset: hps-led\n")
    options, sources = load(ScoringOptions, file=cfg, environ={}, known=ServerSettings)
    assert options.preset == "hps-led" and sources["preset"] == "file" and "port" not in sources
    cfg.write_text("port: eighty\n")       # checked even by a command that does not read it
    with pytest.raises(SettingError, match="port .* must be a whole number"):
        load(ScoringOptions, file=cfg, environ={}, known=ServerSettings)


def test_training_reads_brushwork_variables_between_its_file_and_its_command_line(tmp_path):
    pytest.importorskip("trl")
    from brushwork.train.config import parse

    cfg = tmp_path / "run.yaml"
    cfg.write_text("# brushwork train --config run.yaml\ntiny: true\npreset: hps-led\nworkers: 1\nmax_steps: 3\n")
    env = {"BRUSHWORK_PRESET": "hps-only", "BRUSHWORK_WORKERS": "2", "BRUSHWORK_OCR": "false"}
    args, grpo, _ = parse(["--config", str(cfg), "--workers", "1"], cpu=True, environ=env)
    assert (args.preset, args.workers, args.ocr, grpo.max_steps) == ("hps-only", 1, False, 3)
    with pytest.raises(SettingError, match="^BRUSHWORK_OCR must be true or false"):
        parse(["--config", str(cfg)], cpu=True, environ={"BRUSHWORK_OCR": "maybe"})
    with pytest.raises(SettingError, match="^--workers must be a whole number"):
        parse(["--config", str(cfg), "--workers", "many"], cpu=True, environ={})


def test_a_training_key_that_was_renamed_says_its_new_name(tmp_path):
    from brushwork.train.config import parse

    cfg = tmp_path / "old.yaml"
    cfg.write_text("tiny: true\nreward_preset: hps-led\n")
    with pytest.raises(ConfigError, match="reward_preset is now preset"):
        parse(["--config", str(cfg)], cpu=True)
    with pytest.raises(ConfigError, match="render_timeout is now render_timeout_s"):
        parse(["--render_timeout", "30"], cpu=True)


def test_the_render_backend_and_its_worker_size_reach_the_render_config():
    s = ServerSettings.from_env({"BRUSHWORK_RENDER_BACKEND": "ray", "BRUSHWORK_RAY_ADDRESS": "10.0.0.1:6379",
                                 "BRUSHWORK_RAY_CPUS_PER_WORKER": "2", "BRUSHWORK_RAY_MEMORY_MB_PER_WORKER": "3000"})
    render = s.render_config()
    assert (render.backend, render.ray_address, render.ray_cpus_per_worker, render.ray_memory_mb_per_worker) == \
        ("ray", "10.0.0.1:6379", 2.0, 3000)
    with pytest.raises(ConfigError, match="render_backend 'k8s'"):
        ScoringOptions(render_backend="k8s")
    with pytest.raises(ConfigError, match="ray_cpus_per_worker"):
        ScoringOptions(ray_cpus_per_worker=0).render_config()


def test_a_preset_weighing_a_term_the_pipeline_does_not_compute_is_refused():
    from types import SimpleNamespace

    from brushwork.score.pipeline import Pipeline
    from brushwork.score.reward import PRESETS, RewardConfig

    hps_only = SimpleNamespace(reward=RewardConfig.from_preset("hps-only"))   # no judge backend
    with pytest.raises(ConfigError, match="preset 'judge-led' weights judge, which this pipeline does not compute"):
        Pipeline.weights_for(hps_only, "judge-led")
    judge_led = SimpleNamespace(reward=RewardConfig.from_preset("judge-led"))
    assert Pipeline.weights_for(judge_led, "judge-led") is None            # its own: the reward's weights
    assert Pipeline.weights_for(judge_led, "hps-led") == PRESETS["hps-led"]
    with pytest.raises(ConfigError, match="unknown preset 'loudest'"):
        Pipeline.weights_for(judge_led, "loudest")


def test_the_old_environment_variable_still_works_and_warns(capsys):
    s = ScoringOptions.from_env({"BRUSHWORK_REWARD_CONFIG": "r.yaml"})
    assert s.reward_file == Path("r.yaml")
    assert "BRUSHWORK_REWARD_CONFIG is deprecated; set BRUSHWORK_REWARD_FILE" in capsys.readouterr().err


def test_the_reference_mix_and_gate_settings_reach_the_scorer_configs():
    s = ScoringOptions(reference_mix="love:3, nope:1", allowed_methods="brush.circle,fill", size=512,
                       ocr=False)
    assert s.mix == (("love", 3), ("nope", 1))
    gate = s.gate_config()
    assert (gate.allowed_methods, gate.canvas_size, gate.ocr) == (("circle", "fill"), 512, False)
    assert s.render_config().size == 512


def test_judge_attempts_and_hpsv3_batch_reach_the_backends_and_the_client_timeout():
    """Options in one schema: the judge's attempts and HPSv3's batch size come from the scoring
    options (a file, a flag or BRUSHWORK_*), reach the backends the composition root builds, and
    the remote client's worst case counts every attempt; out of range is a clear error."""
    from brushwork.env.client import step_timeout_s
    from brushwork.score.build import Wiring

    options = ScoringOptions(judge="openai", judge_url="http://127.0.0.1:9", judge_model="m", judge_attempts=3,
                             aesthetic="hpsv3", hpsv3_url="http://127.0.0.1:9", hpsv3_batch=4)
    wiring = Wiring(options, options.reward_config())
    assert (wiring.judge().attempts, wiring.aesthetic().max_batch) == (3, 4)
    once = ScoringOptions(judge="openai", judge_url="http://127.0.0.1:9", judge_model="m", judge_attempts=1)
    assert step_timeout_s(options) > step_timeout_s(once)
    for bad in ({"judge_attempts": 0}, {"hpsv3_batch": 65}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            ScoringOptions(**bad)
