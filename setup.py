"""A wheel of brushwork always carries p5, p5.brush and Prism (everything else is in pyproject.toml).

The libraries are not committed (they come from the pinned npm packages), so a wheel built from
a clean clone would silently lack them. Before the package is copied into the build, this makes
the package copy from `node_modules` (scripts/vendor_libs.py, which also writes the patched
p5.brush builds) when it is missing, or stops and says what to run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
LIB = ROOT / "src" / "brushwork" / "render" / "lib"
NEEDED = ("p5.min.js", "p5.brush.js", "p5.brush.fast.js", "p5.brush.deterministic.js", "prism.js")


class BuildWithLibraries(build_py):
    def run(self):
        if any(not (LIB / name).is_file() for name in NEEDED):
            vendor = ROOT / "scripts" / "vendor_libs.py"
            if not (ROOT / "node_modules" / "p5.brush" / "package.json").is_file() or not vendor.is_file():
                raise SystemExit(
                    "brushwork: the wheel needs p5 and p5.brush inside the package, and neither "
                    f"{LIB.relative_to(ROOT)} nor node_modules has them. In the checkout run `npm ci` "
                    "(or `make setup`), then build again: the build copies them in (scripts/vendor_libs.py).")
            subprocess.run([sys.executable, str(vendor)], check=True)
        super().run()


setup(cmdclass={"build_py": BuildWithLibraries})
