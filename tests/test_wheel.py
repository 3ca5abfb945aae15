"""brushwork as a pip user has it: a wheel built from a clean export of HEAD, installed into a fresh
virtualenv, run from a folder with no checkout and no node_modules. `pool serve` (the page and
Prism over HTTP), `doctor`, `score`, `serve` and `episode` work as the README says.

The virtualenv takes its dependencies from this one's site-packages (a .pth line; nothing is
downloaded) and brushwork from the wheel alone (this checkout's editable install is not seen:
a .pth line adds a folder to the path without running the .pth files inside it).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from pathlib import Path

import httpx
import pytest
from test_packaging import _build_wheel

from brushwork.render.assets import find_node_modules

pytestmark = [pytest.mark.chromium, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
REPLY = ROOT / "src/brushwork/examples/good_peach_hibiscus.md"


class Installed:
    """The wheel's virtualenv and a bare working folder to run its commands in."""

    def __init__(self, venv: Path, work: Path, cache: Path):
        self.bin, self.work = venv / "bin", work
        empty = work.parent / "no-node-modules"
        empty.mkdir(exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
        self.env.update(PATH=f"{self.bin}:{os.environ['PATH']}", BRUSHWORK_NODE_MODULES=str(empty),
                        BRUSHWORK_CACHE=str(cache))

    def run(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bin / "brushwork"), *args], cwd=self.work, env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def start(self, *args: str, log: Path) -> subprocess.Popen:
        with log.open("w") as out:
            return subprocess.Popen([str(self.bin / "brushwork"), *args], cwd=self.work, env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT)


def export_head(dest: Path) -> Path:
    """The committed tree (`git archive HEAD`): what a release is built from, without the work in
    progress of this checkout."""
    archive = dest.with_suffix(".tar")
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), "HEAD"], cwd=ROOT, check=True, timeout=300)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    archive.unlink()
    return dest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answers(url: str, proc: subprocess.Popen, log: Path, timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} did not answer in {timeout:g}s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def installed(tmp_path_factory, private_cache, example_pool) -> Installed:
    """Build, install, and check that the wheel is what runs. The session's example pool is
    rendered first, into the cache the installed commands use (the same sources, the same key)."""
    if not (find_node_modules() / "prismjs" / "prism.js").is_file():
        pytest.skip("needs `npm ci` (node_modules with p5, p5.brush and prismjs) to build a wheel")
    root = tmp_path_factory.mktemp("wheel")
    tree = export_head(root / "clone")
    (tree / "node_modules").symlink_to(find_node_modules(), target_is_directory=True)
    built = _build_wheel(tree, root / "dist")
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (root / "dist").glob("brushwork-*.whl")
    assert "brushwork/render/lib/prism.js" in zipfile.ZipFile(wheel).namelist()
    shutil.rmtree(tree)

    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(subprocess.run([str(venv / "bin/python"), "-c", purelib], capture_output=True, text=True,
                               check=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--no-deps", "--no-index",
                          "--disable-pip-version-check", "-q", str(wheel)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    work = root / "work"
    work.mkdir()
    env = Installed(venv, work, private_cache)
    where = subprocess.run([str(venv / "bin/python"), "-c", "import brushwork; print(brushwork.__file__)"],
                           cwd=work, env=env.env, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(site)), f"brushwork comes from {where}, not the wheel"
    return env


def test_pool_serve_from_the_wheel_serves_the_page_and_prism(installed, tmp_path):
    init = installed.run("pool", "init", "mypool")
    assert init.returncode == 0, init.stderr
    port, log = free_port(), tmp_path / "pool-serve.log"
    proc = installed.start("pool", "serve", "mypool", "--port", str(port), log=log)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_answers(f"{base}/api/config", proc, log, timeout=120)
        page, prism = httpx.get(f"{base}/", timeout=30), httpx.get(f"{base}/vendor/prism.js", timeout=30)
        assert page.status_code == 200 and 'src="/vendor/prism.js"' in page.text
        assert prism.status_code == 200 and "Prism" in prism.text and len(prism.content) > 10_000
        assert httpx.get(f"{base}/static/rate.css", timeout=30).status_code == 200
    finally:
        stop(proc)
    assert f"rating page on http://127.0.0.1:{port}/" in log.read_text()
    assert "Traceback" not in log.read_text()


def test_doctor_from_the_wheel_finds_everything_in_the_package(installed):
    doctor = installed.run("doctor", "--json", timeout=300)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["prism"]["ok"] and "package copy" in checks["prism"]["detail"]
    assert checks["p5 / p5.brush"]["ok"] and "from the package copy" in checks["p5 / p5.brush"]["detail"]


def test_score_from_the_wheel(installed):
    (installed.work / "reply.md").write_text(REPLY.read_text())
    scored = installed.run("score", "reply.md", "--seed", "7", timeout=1800)
    assert scored.returncode == 0, scored.stdout + scored.stderr
    assert "total" in scored.stdout.lower() and "Traceback" not in scored.stderr


def test_serve_and_episode_from_the_wheel(installed, tmp_path):
    port, log = free_port(), tmp_path / "serve.log"
    proc = installed.start("serve", "--port", str(port), "--workers", "1", "--log-level", "warning", log=log)
    try:
        wait_until_answers(f"http://127.0.0.1:{port}/health", proc, log)
        episode = installed.run("episode", "--url", f"http://127.0.0.1:{port}", "--revisions", "0", timeout=1200)
        assert episode.returncode == 0, episode.stdout + episode.stderr
        assert "one episode" in episode.stdout and "Traceback" not in episode.stderr
    finally:
        stop(proc)
