"""The bad-input walk: every command of `brushwork --help`, read from the typer app (a command
added without a case here fails `test_every_command_is_walked`), given bad input. Each case must
end without a traceback, with its exit status (2: could not start, 1: ran but could not do it all;
see `brushwork.cli.exits`) and one `error:` line on stderr that names the fix.

The cases fail before any browser starts; the one render that cannot be avoided (a truncated
sketch) is one tiny sketch. Most run in-process (typer's CliRunner); a few go through
`python -m brushwork` to prove the real entry point: a missing extra, a dead URL, a busy port.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from replies import CORAL_DISC
from typer.main import get_command
from typer.testing import CliRunner

from brushwork.cli import app

SKETCH = CORAL_DISC
TRUNCATED = SKETCH[:SKETCH.index("brush.circle")] + "brush.circle(300, 3"


@dataclass(frozen=True)
class Case:
    args: str                  # split on spaces; {closed} is a port nothing listens on
    says: str                  # a piece of the error line: the fix it names
    status: int = 2
    known: str = ""            # a known failure, and whose fix it is (the case is then an expected failure)


CASES: dict[str, list[Case]] = {
    "render": [Case("render missing.md -o out", "does not exist"),
               Case("render good.md -o afile", "give a folder"),
               Case("render fifo.md -o out", "not a regular file"),
               Case("render good.md -o out --seed -1", "greater than or equal to 0"),
               Case("render good.md -o out --render-backend no_such:Backend", "give package.module:Class")],
    "check": [Case("check fifo.md --no-render", "not a regular file"),
              Case("check good.md --no-render --config bad.yaml", "--config bad.yaml"),
              Case("check good.md --no-render --workers -3", "--workers must be >= 0")],
    "rules": [Case("rules extra", "unexpected extra argument")],
    "language": [Case("language extra", "unexpected extra argument")],
    "demo": [Case("demo -o afile", "give a folder"), Case("demo --workers -1", "greater than or equal to 0")],
    "score": [Case("score fifo.md", "not a regular file"), Case("score good.md --group-seed -1", "greater than"),
              Case("score good.md --config bad.yaml", "--config bad.yaml"),
              Case("score good.md --judge openai --judge-url judge:8000", "give one like http://127.0.0.1:8000"),
              Case("score good.md --judge-url http://127.0.0.1:99999/v1", "port that is not a number in 1..65535"),
              Case("score good.md --aesthetic hpsv3 --hpsv3-url ftp://h", "give one like http://")],
    "serve-hpsv3": [Case("serve-hpsv3 --port 70000", "less than or equal to 65535")],
    "serve": [Case("serve --port -5", "65535"), Case("serve --config bad.yaml", "--config bad.yaml"),
              Case("serve --port {closed} --pool missing", "metadata.jsonl is missing")],
    "episode": [Case("episode --url notaurl", "http://127.0.0.1:8000"), Case("episode --revisions 9", "0 to 8"),
                Case("episode --url http://127.0.0.1:{closed}", "start `brushwork serve` there")],
    "eval": [Case("eval --film missing --judge-url localhost", "--judge-url"),
             Case("eval --film missing", "brushwork train"), Case("eval --ab-report missing", "brushwork eval --ab"),
             Case("eval --film adir --out afile", "give a folder"), Case("eval --prompts 0", "greater than")],
    "train": [Case("train --config bad.yaml", "--config bad.yaml"), Case("train --config missing.yaml", "tiny-cpu")],
    "config show": [Case("config show --config bad.yaml", "--config bad.yaml")],
    "tasks list": [Case("tasks list extra", "unexpected extra argument")],
    "tasks export": [Case("tasks export adir", "give a file name"),
                     Case("tasks export out.jsonl --domains nope", "choose one of"),
                     Case("tasks export out.jsonl --repeats 0", "repeats must be >= 1")],
    "node up": [Case("node up --plan missing", "give a YAML file"),
                Case("node up --plan bad.yaml", "node plan bad.yaml")],
    "node plans": [Case("node plans extra", "unexpected extra argument")],
    # The taste commands check their fixed-value options before the pool loads (its first use
    # renders it): given a missing pool too, the error names the option, not the pool.
    "taste fit": [Case("taste fit --pool missing", "metadata.jsonl"), Case("taste fit --config bad.yaml", "bad.yaml"),
                  Case("taste fit --pool missing --features nope", "choose one of auto, classical"),
                  Case("taste fit --pool missing --folds 1", "greater than or equal to 2")],
    "taste evaluate": [Case("taste evaluate --pool missing", "metadata.jsonl"),
                       Case("taste evaluate --pool missing --split test", "choose one of all, train"),
                       Case("taste evaluate --pool missing --features nope", "choose one of auto, classical"),
                       Case("taste evaluate --pool missing --repeats 0", "greater than or equal to 1")],
    "judge audit": [Case("judge audit --pairs 0", "greater than or equal to 1"),
                    Case("judge audit --pool missing", "metadata.jsonl")],
    "doctor": [Case("doctor --timeout 0", "greater than or equal to 1")],
    "pool init": [Case("pool init afile", "is a file, not a folder")],
    "pool add": [Case("pool add missing good.md", "pool init")],
    "pool add-rollouts": [Case("pool add-rollouts missing adir", "pool init")],
    "pool import": [Case("pool import missing adir", "pool init")],
    "pool export": [Case("pool export missing out", "pool init")],
    "pool list": [Case("pool list missing", "pool init")],
    "pool rate": [Case("pool rate missing abc love --rater me", "pool init")],
    "pool serve": [Case("pool serve missing --port 0", "greater than or equal to 1")],
    "pool snapshot": [Case("pool snapshot missing", "pool init")],
    "pool split": [Case("pool split missing", "pool init")],
    "pool check": [Case("pool check missing", "pool init")],
    "pool report": [Case("pool report missing", "pool init")],
    "pool generate": [Case("pool generate missing --procedural 1", "pool init")],
}


def commands(group=None, prefix: tuple[str, ...] = ()):
    """Every command the app answers to, subcommands by their full path ("pool add")."""
    group = group or get_command(app)
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from commands(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "good.md").write_text(SKETCH)
    (tmp_path / "truncated.md").write_text(TRUNCATED)
    (tmp_path / "bad.yaml").write_text("workers: [1\n")
    (tmp_path / "afile").write_text("not a folder\n")
    (tmp_path / "adir").mkdir()
    os.mkfifo(tmp_path / "fifo.md")     # would block a reader for ever: refused as not a regular file
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_one_line(case: Case, status: int, stdout: str, stderr: str):
    shown = f"\n--- stdout\n{stdout[-1500:]}\n--- stderr\n{stderr[-3000:]}"
    assert "Traceback" not in stdout + stderr, f"{case.args}: a traceback{shown}"
    assert status == case.status, f"{case.args}: exit {status}, not {case.status}{shown}"
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, f"{case.args}: want one error line{shown}"
    assert len(stderr.splitlines()) <= 6, f"{case.args}: more than a short block on stderr{shown}"
    assert case.says in errors[0], f"{case.args}: the error line does not say {case.says!r}{shown}"


def test_every_command_is_walked():
    walked = set(CASES)
    assert set(commands()) == walked, (f"give these commands a bad-input case: {sorted(set(commands()) - walked)}; "
                                       f"no longer commands: {sorted(walked - set(commands()))}")


def walk():
    for command in sorted(CASES):
        for case in CASES[command]:
            marks = [pytest.mark.xfail(reason=case.known, strict=True)] if case.known else []
            yield pytest.param(case, id=case.args.split("{")[0].strip(), marks=marks)


@pytest.mark.parametrize("case", list(walk()))
def test_bad_input_is_one_line_naming_the_fix(case, workdir):
    result = CliRunner().invoke(app, case.args.format(closed=closed_port()).split())
    crashed = result.exception if not isinstance(result.exception, SystemExit) else None
    assert crashed is None, f"{case.args}: raised {type(crashed).__name__}: {crashed}"
    assert_one_line(case, result.exit_code, result.stdout, result.stderr)


def brushwork(*args: str, cwd: Path, code: str = "from brushwork.cli import app; app()"):
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})


def test_the_entry_point_walk(workdir):
    """`python -m brushwork` itself: a dead URL, a busy port, no OpenEnv or websockets installed."""
    cases = [(Case("-m brushwork episode --url http://127.0.0.1:{closed}", "start `brushwork serve` there"), "")]
    for module in ("openenv", "websockets"):
        cases.append((Case("episode", "pip install 'brushwork[env]'"),
                      f"import sys; sys.modules[{module!r}] = None; from brushwork.cli import app; app()"))
    for case, code in cases:
        args = case.args.format(closed=closed_port()).split()
        done = subprocess.run([sys.executable, *args], cwd=workdir, capture_output=True, text=True, timeout=300) \
            if not code else brushwork(*args, cwd=workdir, code=code)
        assert_one_line(case, done.returncode, done.stdout, done.stderr)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        for command in ("serve", "serve-hpsv3"):
            done = brushwork(command, "--port", str(port), cwd=workdir)
            assert_one_line(Case(command, f"127.0.0.1:{port}"), done.returncode, done.stdout, done.stderr)
            assert "pick another with --port" in done.stderr, done.stderr


@pytest.mark.chromium
def test_a_render_that_paints_nothing_exits_1_and_says_why(workdir, tmp_path_factory):
    """A truncated sketch: the page runs (status ok) but captures no canvas. Its legal twin, the
    whole sketch, writes its PNG beside it; the stale PNG of an earlier run is removed."""
    env = {"BRUSHWORK_CACHE": str(tmp_path_factory.mktemp("walk-cache"))}
    (workdir / "out").mkdir()
    (workdir / "out" / "truncated.png").write_bytes(b"stale")
    done = CliRunner().invoke(app, ["render", "truncated.md", "good.md", "-o", "out", "--workers", "1"], env=env)
    assert_one_line(Case("render truncated.md good.md", "1 of 2 file(s) wrote no PNG", status=1), done.exit_code,
                    done.stdout, done.stderr)
    assert "SyntaxError" in done.stdout and "no PNG" in done.stdout
    assert not (workdir / "out" / "truncated.png").exists()
    assert (workdir / "out" / "good.png").read_bytes()[:4] == b"\x89PNG"
    record = json.loads((workdir / "out" / "truncated.json").read_text())
    assert record["png"] is None and "SyntaxError" in record["why_no_png"]
    assert json.loads((workdir / "out" / "good.json").read_text())["png"] == "good.png"


@pytest.mark.parametrize("variable, backend", [("BRUSHWORK_JUDGE_BASE_URL", "OpenAIJudge"),
                                               ("BRUSHWORK_HPSV3_URL", "HPSv3Client")])
def test_a_service_url_from_the_environment_is_checked_once_when_built(variable, backend, monkeypatch):
    """The URL a backend falls back to (a variable, not a setting) is checked for shape where the
    backend is built, at start; its legal twin, a well-formed URL where nothing listens, builds (an
    unreachable service is a None with a reason per reply, tests/test_score_cli.py)."""
    from brushwork.errors import ConfigError
    from brushwork.score import backends

    monkeypatch.setenv("BRUSHWORK_JUDGE_MODEL", "m")
    build = getattr(backends, backend)
    monkeypatch.setenv(variable, "127.0.0.1:8000")
    with pytest.raises(ConfigError, match="give one like http://127.0.0.1:8000"):
        build()
    monkeypatch.setenv(variable, f"http://127.0.0.1:{closed_port()}/v1")
    assert build().base_url.startswith("http://127.0.0.1:")


@pytest.mark.chromium      # eval's Pipeline looks for a browser at start
def test_an_eval_with_no_reward_at_all_exits_1_and_its_table_says_why(workdir):
    """A film whose every card has no total (the judge was down while it was recorded): eval writes
    its report, shows why in a table and exits 1. Its legal twin, the same film with one scored
    frame, exits 0: a partial None rate is a figure, not a failure."""
    from test_eval import card, png, write_pool

    from brushwork.score.rollout import Rollout
    from brushwork.train.film import Film

    pool = write_pool(workdir / "pool")
    down = "judge at http://127.0.0.1:9/v1 unreachable: check that it is running"

    def film(name: str, totals: list) -> Path:
        frames = Film(workdir / name / "film")
        for index, total in enumerate(totals):
            scored = card(total=total)
            frames.record(Rollout("Paint a peach hibiscus",
                                  scored if total is not None else dataclasses.replace(scored, infra=down),
                                  reply="```js\n...\n```", png=png("white"), subject="peach hibiscus", seed=index,
                                  group=index, step=1), index)
        return workdir / name

    for name, totals, status in (("dead", [None, None], 1), ("alive", [None, 0.5], 0)):
        done = CliRunner().invoke(app, ["eval", "--film", str(film(name, totals)), "--pool", str(pool),
                                        "--out", str(workdir / f"out-{name}")])
        assert (workdir / f"out-{name}" / "eval.json").is_file(), done.output
        if status == 0:
            assert done.exit_code == 0 and "error:" not in done.stderr, done.output
            continue
        assert_one_line(Case("eval --film dead", "none of the 2 sample(s) of dead has a reward", status=1),
                        done.exit_code, done.stdout, done.stderr)
        assert "why the reward is None" in done.stdout and "unreachable" in done.stdout
