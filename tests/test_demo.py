"""`make demo`'s job: the bundled examples are gated, rendered and shown in a gallery."""

from __future__ import annotations

import re

import pytest

from brushwork.demo import example_files

pytestmark = pytest.mark.chromium


def test_examples_are_bundled():
    names = [p.name for p in example_files()]
    assert any(n.startswith("good_") for n in names) and any(n.startswith("cheat_") for n in names)


def test_demo_writes_gallery(tmp_path):
    from typer.testing import CliRunner

    from brushwork.cli import app

    result = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "demo"), "--workers", "2"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "demo" / "index.html").read_text()
    files = example_files()
    assert page.count('class="card"') == len(files)
    for path in files:
        expected = "pass" if path.name.startswith("good_") else "rejected"
        card = page.split(f'<div class="name">{path.stem}</div>')[1].split('class="card"')[0]
        assert f">{expected}<" in card, (path.name, card[:300])
        if path.name.startswith("good_"):
            assert (tmp_path / "demo" / f"{path.stem}.png").exists()
    assert re.search(r"good_\w+\s+│\s+pass", result.output)
