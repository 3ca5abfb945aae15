"""Every entry point takes `--render-backend local|ray` and `--ray-address` (or
BRUSHWORK_RENDER_BACKEND / BRUSHWORK_RAY_ADDRESS) and hands them to the renderer it builds.
The renderer, pipeline, evaluation and server are replaced by a stand-in that records what it
was given, so no browser or Ray cluster is needed."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import brushwork.render
from brushwork.cli import app

CLEAN = {"BRUSHWORK_RENDER_BACKEND": None, "BRUSHWORK_RAY_ADDRESS": None, "RAY_ADDRESS": None}
RAY = ["--render-backend", "ray", "--ray-address", "10.0.0.1:6379"]


class Captured(Exception):
    def __init__(self, *args, **kwargs):
        super().__init__("captured")
        self.args_, self.kwargs = args, kwargs


def capture(*args, **kwargs):
    raise Captured(*args, **kwargs)


def invoke(args, env=None):
    res = CliRunner().invoke(app, args, env={**CLEAN, **(env or {})})
    assert isinstance(res.exception, Captured), res.output
    return res.exception.args_[0]


@pytest.fixture
def reply(tmp_path):
    path = tmp_path / "reply.js"
    path.write_text("function setup() { createCanvas(600, 600, WEBGL); }\n")
    return path


@pytest.fixture
def store(tmp_path):
    root = tmp_path / "pool"
    assert CliRunner().invoke(app, ["pool", "init", str(root)]).exit_code == 0
    return root


@pytest.mark.parametrize("command", ["render", "check"])
def test_render_and_check(command, reply, tmp_path, monkeypatch):
    monkeypatch.setattr(brushwork.render, "Renderer", capture)
    extra = ["-o", str(tmp_path / "out")] if command == "render" else []
    config = invoke([command, str(reply), *extra, *RAY])
    assert (config.backend, config.ray_address) == ("ray", "10.0.0.1:6379")
    config = invoke([command, str(reply), *extra])
    assert (config.backend, config.ray_address) == ("local", None)
    config = invoke([command, str(reply), *extra], env={"BRUSHWORK_RENDER_BACKEND": "ray",
                                                         "BRUSHWORK_RAY_ADDRESS": "auto"})
    assert (config.backend, config.ray_address) == ("ray", "auto")


def test_a_backend_that_does_not_exist_is_a_usage_error(reply):
    res = CliRunner().invoke(app, ["check", str(reply), "--render-backend", "gpu"], env=CLEAN)
    assert res.exit_code == 2 and "local or ray" in res.output


def test_score(reply, monkeypatch):
    import brushwork.score.pipeline

    monkeypatch.setattr(brushwork.score.pipeline, "Pipeline", capture)
    options = invoke(["score", str(reply), *RAY])
    assert (options.render_backend, options.ray_address) == ("ray", "10.0.0.1:6379")
    config = options.render_config()
    assert (config.backend, config.ray_address) == ("ray", "10.0.0.1:6379")
    assert invoke(["score", str(reply)]).render_backend == "local"


def test_eval(tmp_path, monkeypatch):
    import brushwork.eval.runner

    monkeypatch.setattr(brushwork.eval.runner, "run_eval", capture)
    plan = invoke(["eval", "--film", str(tmp_path), "--out", str(tmp_path / "eval"), *RAY])
    assert (plan.scoring.render_backend, plan.scoring.ray_address) == ("ray", "10.0.0.1:6379")


def test_serve(monkeypatch):
    import brushwork.env.server.app

    monkeypatch.setattr(brushwork.env.server.app, "serve", capture)
    settings = invoke(["serve", *RAY, "--max-sessions", "64"])
    assert (settings.render_backend, settings.ray_address, settings.session_limit) == ("ray", "10.0.0.1:6379", 64)
    settings = invoke(["serve"], env={"BRUSHWORK_RENDER_BACKEND": "ray"})
    assert (settings.render_backend, settings.ray_address) == ("ray", None)


def test_pool_add_import_generate(store, reply, tmp_path, monkeypatch):
    monkeypatch.setattr(brushwork.render, "SyncRenderer", capture)
    folder = tmp_path / "sketches"
    folder.mkdir()
    (folder / "a.js").write_text(reply.read_text())
    for args in (["pool", "add", str(store), str(reply)], ["pool", "import", str(store), str(folder)],
                 ["pool", "generate", str(store), "--procedural", "1"]):
        config = invoke([*args, *RAY])
        assert (config.backend, config.ray_address) == ("ray", "10.0.0.1:6379"), args
        assert invoke(args).backend == "local", args


def test_train_takes_them_from_yaml_and_flags(tmp_path):
    pytest.importorskip("trl")
    from brushwork.train.config import parse

    cfg = tmp_path / "run.yaml"
    cfg.write_text("tiny: true\nrender_backend: ray\nray_address: auto\n")
    args, _, _ = parse(["--config", str(cfg)], cpu=True)
    config = args.scoring().render_config()
    assert (config.backend, config.ray_address) == ("ray", "auto")
    args, _, _ = parse(["--config", str(cfg), "--render_backend", "local"], cpu=True)
    assert args.scoring().render_config().backend == "local"
