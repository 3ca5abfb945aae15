"""What a render worker installs: p5 / p5.brush inside the package (scripts/vendor_libs.py,
`Libraries.locate`), and the deployment files in deploy/ that run it on a Ray cluster."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from brushwork.errors import SetupError
from brushwork.render import assets
from brushwork.render.assets import Libraries, find_node_modules

ROOT = Path(__file__).resolve().parent.parent
PINS = json.loads((ROOT / "package.json").read_text())["dependencies"]


def _vendor_module():
    spec = importlib.util.spec_from_file_location("vendor_libs", ROOT / "scripts" / "vendor_libs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def node_modules():
    path = find_node_modules()
    if not (path / "p5.brush" / "package.json").is_file():
        pytest.skip("needs `npm ci` (node_modules with p5 and p5.brush)")
    return path


def test_pins_are_the_recipes():
    assert PINS["p5"] == "2.3.4" and PINS["p5.brush"] == "2.2.2"


def test_vendored_copy_is_used_without_node_modules(node_modules, tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    versions = _vendor_module().vendor(node_modules, lib)
    assert versions == {"p5": PINS["p5"], "p5.brush": PINS["p5.brush"], "prismjs": PINS["prismjs"]}
    assert sorted(p.name for p in lib.iterdir()) == sorted([
        "p5.min.js", "p5.brush.js", "p5.package.json", "p5.brush.package.json", "p5.license.txt",
        "p5.brush.LICENSE.md", "prism.js", "prismjs.package.json", "prismjs.LICENSE"])
    assert "LESSER GENERAL PUBLIC LICENSE" in (lib / "p5.license.txt").read_text()
    assert "MIT License" in (lib / "p5.brush.LICENSE.md").read_text()
    assert "MIT LICENSE" in (lib / "prismjs.LICENSE").read_text().upper()

    empty = tmp_path / "empty-node-modules"
    empty.mkdir()
    monkeypatch.setenv("BRUSHWORK_NODE_MODULES", str(empty))
    monkeypatch.setattr(assets, "PACKAGE_LIBS", lib)
    libs = Libraries.locate()
    assert (libs.p5_version, libs.brush_version) == (PINS["p5"], PINS["p5.brush"])
    assert libs.source == str(lib)
    assert libs.p5 == (node_modules / "p5" / "lib" / "p5.min.js").read_bytes()
    assert libs.brush == (node_modules / "p5.brush" / "dist" / "p5.brush.js").read_bytes()
    # Where they come from is not part of what a painting depends on (the cache key).
    from_npm = Libraries.locate(node_modules)
    assert from_npm.source == str(node_modules)
    assert assets.AssetServer(libs).harness_digest == assets.AssetServer(from_npm).harness_digest


def test_package_copy_serves_with_an_empty_node_modules(tmp_path, monkeypatch):
    """The copy `make setup` writes into src/brushwork/render/lib (git-ignored, shipped as package data)."""
    if not (assets.PACKAGE_LIBS / "p5.brush.js").is_file():
        pytest.skip("no package copy: run `make setup` (scripts/vendor_libs.py after npm ci)")
    monkeypatch.setenv("BRUSHWORK_NODE_MODULES", str(tmp_path))
    libs = Libraries.locate()
    assert libs.source == str(assets.PACKAGE_LIBS)
    assert (libs.p5_version, libs.brush_version) == (PINS["p5"], PINS["p5.brush"])
    assert b"p5" in libs.p5[:2000] and len(libs.brush) > 10_000


def test_neither_copy_names_both_places(tmp_path, monkeypatch):
    monkeypatch.setattr(assets, "PACKAGE_LIBS", tmp_path / "no-package-copy")
    monkeypatch.setenv("BRUSHWORK_NODE_MODULES", str(tmp_path / "no-node-modules"))
    with pytest.raises(SetupError) as e:
        Libraries.locate()
    assert "no-package-copy" in str(e.value) and "no-node-modules" in str(e.value)
    assert "vendor_libs.py" in str(e.value) and "npm ci" in str(e.value)


def test_vendor_refuses_other_versions(node_modules, tmp_path):
    vendor = _vendor_module()
    with pytest.raises(SystemExit, match="pins 9.9.9"):
        vendor.vendor(node_modules, tmp_path / "lib", pinned={"p5": "9.9.9"})
    with pytest.raises(SystemExit, match="npm ci"):
        vendor.vendor(tmp_path / "nothing", tmp_path / "lib")
    assert not (tmp_path / "lib").exists()


def test_package_data_and_gitignore_ship_the_copy_but_do_not_commit_it():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"render/lib/*"' in pyproject
    gitignore = (ROOT / ".gitignore").read_text().splitlines()
    assert "src/brushwork/render/lib/*" in gitignore and "!src/brushwork/render/lib/README.md" in gitignore
    assert "scripts/vendor_libs.py" in (ROOT / "Makefile").read_text()
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "scripts/vendor_libs.py" in dockerfile and "EXTRAS" in dockerfile


def _clean_clone(dest: Path) -> Path:
    """The files a clean clone has (git's tracked files, as they are in this tree now)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, dest / name)
    return dest


def _build_wheel(tree: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", "-q", "-w", str(out), str(tree)],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_wheel_from_a_clean_clone_carries_p5_and_p5_brush_or_is_not_built(node_modules, tmp_path):
    tree = _clean_clone(tmp_path / "clone")
    assert not any((tree / "src/brushwork/render/lib").glob("*.js")), "the libraries are committed"

    refused = _build_wheel(tree, tmp_path / "refused")
    assert refused.returncode != 0 and not list((tmp_path / "refused").glob("*.whl"))
    assert "npm ci" in refused.stdout + refused.stderr, refused.stdout + refused.stderr

    (tree / "node_modules").symlink_to(node_modules, target_is_directory=True)
    built = _build_wheel(tree, tmp_path / "dist")
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("brushwork-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    lib = "brushwork/render/lib/"
    for name in ("p5.min.js", "p5.brush.js", "p5.brush.fast.js", "p5.brush.deterministic.js",
                 "p5.license.txt", "p5.brush.LICENSE.md", "p5.package.json", "p5.brush.package.json",
                 "prism.js", "prismjs.LICENSE"):
        assert lib + name in names, f"{name} is not in the wheel"
    assert "brushwork/train/configs/tiny-cpu.yaml" in names, "the bundled training configs are not in the wheel"
    with zipfile.ZipFile(wheel) as z:
        assert json.loads(z.read(lib + "p5.brush.package.json"))["version"] == PINS["p5.brush"]


# -- deploy/ -----------------------------------------------------------------------------------------
IMAGE_NAME = "brushwork-ray"


def _image_name(image: str) -> str:
    return image.rsplit("/", 1)[-1].split(":", 1)[0]


def test_ray_cluster_launcher_config():
    config = yaml.safe_load((ROOT / "deploy" / "ray-cluster.yaml").read_text())
    assert _image_name(config["docker"]["image"]) == IMAGE_NAME
    types = config["available_node_types"]
    assert config["head_node_type"] in types
    workers = [t for name, t in types.items() if name != config["head_node_type"]]
    assert workers and all(t["max_workers"] >= t["min_workers"] >= 0 for t in workers)
    assert any("brushwork doctor" in c for c in config["setup_commands"])   # brushwork is in the image
    head = " ".join(config["head_start_ray_commands"])
    assert "ray start --head" in head and "--num-cpus=0" in head          # no render workers on the head
    assert any("ray start --address=$RAY_HEAD_IP:6379" in c for c in config["worker_start_ray_commands"])


def test_kuberay_raycluster_manifest():
    manifest = yaml.safe_load((ROOT / "deploy" / "kuberay-raycluster.yaml").read_text())
    assert manifest["apiVersion"] == "ray.io/v1" and manifest["kind"] == "RayCluster"
    spec = manifest["spec"]
    head = spec["headGroupSpec"]
    assert head["rayStartParams"]["num-cpus"] == "0"
    (head_container,) = head["template"]["spec"]["containers"]
    assert _image_name(head_container["image"]) == IMAGE_NAME
    (render,) = spec["workerGroupSpecs"]
    assert render["minReplicas"] <= render["replicas"] <= render["maxReplicas"]
    pod = render["template"]["spec"]
    (worker,) = pod["containers"]
    assert _image_name(worker["image"]) == IMAGE_NAME
    requests, limits = worker["resources"]["requests"], worker["resources"]["limits"]
    assert requests["cpu"] == limits["cpu"] and requests["memory"] == limits["memory"]
    # brushwork is installed in the image: the worker pod checks it can render before Ray starts.
    (doctor,) = pod["initContainers"]
    assert doctor["command"] == ["brushwork", "doctor"] and doctor["image"] == worker["image"]
    assert any(m["mountPath"] == "/dev/shm" for m in worker["volumeMounts"])
    assert spec["rayVersion"].count(".") == 2


def test_without_the_env_extra_the_environment_names_its_install_line(tmp_path):
    """The base install has no OpenEnv: gating and scoring import nothing of it, and the
    environment's first import says which extra to install."""
    code = ("import sys; sys.modules['openenv'] = None\n"
            "import brushwork.gate, brushwork.score, brushwork.env.tasks\n"
            "from brushwork.errors import DependencyNotInstalled\n"
            "try:\n    from brushwork.env import BrushworkEnv\nexcept DependencyNotInstalled as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "pip install 'brushwork[env]'" in r.stdout


def test_extras_match_what_users_do():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    base = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not any(d.startswith("openenv") for d in base), "OpenEnv belongs to the env extra"
    assert any(d.startswith("openenv") for d in extras["env"]) and any(d.startswith("openenv") for d in extras["train"])
    assert {"env", "train", "ray", "taste", "all"} <= set(extras)
