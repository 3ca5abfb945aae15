"""The suite's own guards: a test's timeout times its function alone (shared setup built slowly on a
busy machine is not a failure), and a fixture that hangs stops the run with every thread's stack
on the terminal instead of hanging until CI kills the job."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = f'''
import importlib.util
spec = importlib.util.spec_from_file_location("project_conftest", {str(ROOT / "tests" / "conftest.py")!r})
project = importlib.util.module_from_spec(spec)
spec.loader.exec_module(project)
project.FIXTURE_HANG_S = 4
pytest_configure = project.pytest_configure
pytest_fixture_setup = project.pytest_fixture_setup
'''

TESTS = '''
import time
import pytest

@pytest.fixture(scope="session")
def slow_setup():
    time.sleep(3)        # longer than the test timeout (2 s), shorter than the hang guard (4 s)

@pytest.fixture
def hung(slow_setup):
    time.sleep(120)

def test_slow_setup_is_not_a_timeout(slow_setup):
    time.sleep(0.5)

def test_after(slow_setup):
    time.sleep(5)        # a test body past the hang guard: the test timeout's business, not the guard's

def test_hung_setup(hung):
    pass
'''


def _run(tmp_path: Path, func_only: bool) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_guarded.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text(f"[pytest]\ntimeout = 2\ntimeout_func_only = {str(func_only).lower()}\n"
                                         "asyncio_default_fixture_loop_scope = session\n")
    return subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "test_guarded.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)


def test_the_project_times_test_functions_only():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert options["timeout_func_only"] is True and options["timeout"] >= 60


def test_slow_setup_passes_and_a_hung_fixture_stops_the_run_with_its_stack(tmp_path):
    done = _run(tmp_path, func_only=True)
    out = done.stdout + done.stderr
    assert "test_slow_setup_is_not_a_timeout PASSED" in out, out
    assert "test_after FAILED" in out and "Timeout" in out, out       # the body's own 2 s limit
    assert done.returncode != 0
    assert "Timeout (0:00:04)!" in out and "in hung" in out, out     # the stack names the hung fixture


def test_without_func_only_the_same_slow_setup_is_a_timeout(tmp_path):
    """The twin that shows the first test can fail: setup counted against a test's 2 s."""
    done = _run(tmp_path, func_only=False)
    assert "test_slow_setup_is_not_a_timeout ERROR" in done.stdout + done.stderr
