"""The `brushwork` command line, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from replies import CORAL_DISC, with_text

GOOD, CHEAT = CORAL_DISC, with_text(CORAL_DISC)


def brushwork(*args, cwd: Path, env_extra: dict | None = None):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "brushwork.cli", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.fixture
def replies(tmp_path):
    (tmp_path / "good.md").write_text(GOOD)
    (tmp_path / "cheat.md").write_text(CHEAT)
    return tmp_path


def test_check_json_static(replies):
    res = brushwork("check", "good.md", "cheat.md", "--json", "--no-render", cwd=replies)
    assert res.returncode == 1, res.stderr
    data = json.loads(res.stdout)
    assert [d["file"] for d in data] == ["good.md", "cheat.md"]
    assert data[0] == {"file": "good.md", "passed": True, "violations": [], "notes": []}
    (v,) = data[1]["violations"]
    assert v["id"] == "text_on_canvas" and v["severity"] == "cheat" and v["line"] == 11
    assert set(v) == {"id", "severity", "message", "line"}


def test_check_exit_codes(replies):
    assert brushwork("check", "good.md", "--no-render", cwd=replies).returncode == 0
    bad_allow = brushwork("check", "good.md", "--no-render", "--allow", "fill,watercolor", cwd=replies)
    assert bad_allow.returncode == 2 and "watercolor" in bad_allow.stderr
    assert brushwork("check", "missing.md", cwd=replies).returncode == 2


@pytest.mark.chromium
def test_the_check_command_renders_and_render_writes_files(replies, tmp_path_factory):
    env = {"BRUSHWORK_CACHE": str(tmp_path_factory.mktemp("cli-cache"))}
    res = brushwork("check", "good.md", "--json", "--workers", "1", cwd=replies, env_extra=env)
    assert res.returncode == 0, res.stdout + res.stderr
    out = replies / "out"
    res = brushwork("render", "good.md", "-o", str(out), "--workers", "1", "--seed", "3", cwd=replies,
                    env_extra=env)
    assert res.returncode == 0, res.stderr
    meta = json.loads((out / "good.json").read_text())
    assert meta["status"] == "ok" and meta["paint_fraction"] > 0.01 and meta["cache_hit"] is False
    assert meta["timings"]["wall_s"] > 0 and meta["timings"]["in_page_s"] > 0
    assert (out / "good.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = brushwork("render", "good.md", "-o", str(out), "--workers", "1", "--seed", "3", cwd=replies,
                      env_extra=env)
    assert json.loads((out / "good.json").read_text())["cache_hit"] is True, again.stderr


def test_python_dash_m_brushwork_is_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "brushwork", "rules"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "text_in_image" in done.stdout


def test_version_is_the_packages_own(tmp_path):
    from importlib.metadata import version

    from brushwork import __version__

    r = brushwork("--version", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"brushwork {__version__}" == f"brushwork {version('brushwork')}"


NO_TORCH = "import sys; sys.modules['torch'] = sys.modules['trl'] = None; from brushwork.cli import app; app()"


def test_train_help_is_short_lists_config_first_and_needs_no_torch(tmp_path):
    r = subprocess.run([sys.executable, "-c", NO_TORCH, "train", "--help"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    options = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("  --")]
    assert options[0] == "--config" and "tiny-cpu" in r.stdout
    assert {"--tiny", "--preset", "--judge", "--learning_rate"} <= set(options)
    assert len(r.stdout.splitlines()) < 120


def test_train_without_the_extra_names_the_exact_install_line(tmp_path):
    r = subprocess.run([sys.executable, "-c", NO_TORCH, "train", "--help-all"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    assert "pip install 'brushwork[train]'" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_serve_without_the_env_extra_names_the_exact_install_line(tmp_path):
    code = "import sys; sys.modules['openenv'] = None; from brushwork.cli import app; app()"
    r = subprocess.run([sys.executable, "-c", code, "episode"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2
    assert "pip install 'brushwork[env]'" in " ".join(r.stderr.split()) and "Traceback" not in r.stderr, r.stderr
