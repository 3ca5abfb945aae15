"""`make demo`'s job: the bundled examples are gated, rendered and shown in a gallery."""

from __future__ import annotations

import re

import pytest
from replies import CORAL_DISC, with_text

from brushwork.demo import example_files

pytestmark = pytest.mark.chromium


def test_examples_are_bundled():
    names = [p.name for p in example_files()]
    assert any(n.startswith("good_") for n in names) and any(n.startswith("cheat_") for n in names)


@pytest.mark.usefixtures("example_pool")
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


@pytest.mark.usefixtures("example_pool")
def test_an_example_that_contradicts_its_name_fails_the_demo(tmp_path, monkeypatch):
    """A good_ example the gate rejects and a cheat_ example it passes: the demo still writes its
    gallery, then exits 1 naming both. Its legal twin, the same two sketches named for what they
    are, exits 0. (`example_pool` renders the pool and fits its taste model outside the test's
    timeout; the demo reads both from the session's cache.)"""
    from typer.testing import CliRunner

    from brushwork.cli import app

    def demo(names: dict[str, str]):
        folder = tmp_path / "-".join(names)
        folder.mkdir()
        for name, text in names.items():
            (folder / f"{name}.md").write_text(text)
        monkeypatch.setattr("brushwork.demo.example_files", lambda: sorted(folder.glob("*.md")))
        return CliRunner().invoke(app, ["demo", "-o", str(folder / "out"), "--workers", "1"], env={"COLUMNS": "300"})

    lying = demo({"good_lie": with_text(CORAL_DISC), "cheat_honest": CORAL_DISC})
    assert lying.exit_code == 1, lying.output
    (error,) = [line for line in lying.stderr.splitlines() if line.startswith("error:")]
    assert "2 bundled example(s) disagree" in error and "good_lie fails the gate (text_on_canvas)" in error
    assert "cheat_honest passes the gate" in error
    assert (tmp_path / "good_lie-cheat_honest" / "out" / "index.html").is_file()
    honest = demo({"good_disc": CORAL_DISC, "cheat_text": with_text(CORAL_DISC)})
    assert honest.exit_code == 0 and "error:" not in honest.stderr, honest.output
