"""Progress on any stderr: rich's live bar on a terminal, plain lines in a pipe or a log (where
rich draws nothing), so the first pool render is never half a minute of silence."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from rich.console import Console
from rich.progress import Progress

from brushwork.core.progress import LineProgress, progress
from brushwork.paths import example_files

LINE = re.compile(r"^(?P<what>.+): (?P<done>\d+)(?:/(?P<total>\d+))? \(\d+ s\)$")


def lines(text: str) -> list[re.Match]:
    found = [LINE.match(line) for line in text.splitlines()]
    assert all(found), text
    return found


def test_a_terminal_gets_the_live_bar_and_a_pipe_gets_lines():
    assert isinstance(progress(Console(file=io.StringIO(), force_terminal=True)), Progress)
    assert isinstance(progress(Console(file=io.StringIO(), force_terminal=False)), LineProgress)


def test_lines_every_tenth_of_a_known_total_and_at_the_end():
    out = io.StringIO()
    with LineProgress(out) as bar:
        task = bar.add_task("scoring", total=47)
        for _ in range(47):
            bar.advance(task)
        bar.advance(task)                     # past the end: nothing more
    found = lines(out.getvalue())
    counts = [int(m["done"]) for m in found]
    assert counts[0] == 0 and counts[-1] == 47 and counts == sorted(set(counts))
    assert all(m["what"] == "scoring" and m["total"] == "47" for m in found)
    assert 5 <= len(counts) <= 12                        # a line per tenth, not per item
    assert max(b - a for a, b in zip(counts, counts[1:])) <= 5


def test_an_open_ended_task_waits_for_its_first_item():
    """A pool that is already rendered never reports: no line at all."""
    quiet, loud = io.StringIO(), io.StringIO()
    with LineProgress(quiet) as bar:
        bar.add_task("rendering the pool", total=None)
    assert quiet.getvalue() == ""
    with LineProgress(loud) as bar:
        task = bar.add_task("rendering the pool", total=None)
        for done in range(0, 21):
            bar.update(task, completed=done, total=20)
    counts = [int(m["done"]) for m in lines(loud.getvalue())]
    assert counts[0] == 0 and counts[-1] == 20 and len(counts) <= 12


def small_pool(folder, per_tier: int = 3):
    """A sources-only copy of the example pool, `per_tier` paintings of each tier (rendered on first use)."""
    src = example_files()[0].parent / "pool"
    records = [json.loads(line) for line in (src / "metadata.jsonl").read_text().splitlines() if line.strip()]
    chosen = [r for tier in ("love", "okay", "nope") for r in [r for r in records if r["tier"] == tier][:per_tier]]
    (folder / "sources").mkdir(parents=True)
    for r in chosen:
        shutil.copy(src / r["source"], folder / r["source"])
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
    return len(chosen)


@pytest.mark.chromium
@pytest.mark.slow
def test_score_with_stderr_piped_prints_progress_lines(tmp_path):
    n = small_pool(tmp_path / "pool")
    reply = next(p for p in example_files() if p.name == "good_lotus.md")
    env = {**os.environ, "BRUSHWORK_CACHE": str(tmp_path / "cache")}      # a first use: the pool renders
    run = subprocess.run([sys.executable, "-m", "brushwork.cli", "score", "--pool", str(tmp_path / "pool"),
                          str(reply)], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    found = lines("\n".join(line for line in run.stderr.splitlines() if LINE.match(line)))
    pool = [int(m["done"]) for m in found if m["what"].startswith("rendering the pool's paintings")]
    assert pool[0] == 0 and pool[-1] == n and all(m["total"] == str(n) for m in found if
                                                  m["what"].startswith("rendering the pool"))
    assert [m["done"] for m in found if m["what"] == "scoring"][-1] == "1"
    again = subprocess.run([sys.executable, "-m", "brushwork.cli", "score", "--pool", str(tmp_path / "pool"),
                            str(reply)], capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0 and "rendering the pool" not in again.stderr    # rendered once
