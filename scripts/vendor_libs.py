#!/usr/bin/env python3
"""Copy the pinned p5, p5.brush and Prism builds from node_modules into the package.

    python3 scripts/vendor_libs.py [NODE_MODULES] [--dest DIR]

Writes `src/brushwork/render/lib/`: p5.min.js, p5.brush.js, prism.js (the rating page's code
highlighter), each library's package.json (its version) and licence, so that `pip install
brushwork` plus a Chromium is all a render worker or a rating page needs (no npm, no checkout),
then runs scripts/patch_brush.py there (the patched p5.brush builds with the rewritten blend
shader). `make setup` and the Dockerfile run it after `npm ci`. The copies are git-ignored (only
the folder's README is committed) and shipped as package data.

Standard library only: it runs before the virtualenv exists. Refuses versions other than the
pins in the repository's package.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "src" / "brushwork" / "render" / "lib"

# package -> (build inside the npm package, file name in the package copy, licence file names to try)
LIBRARIES = {
    "p5": ("lib/p5.min.js", "p5.min.js", ("license.txt", "LICENSE", "LICENSE.md", "LICENSE.txt")),
    "p5.brush": ("dist/p5.brush.js", "p5.brush.js", ("LICENSE.md", "LICENSE", "LICENSE.txt", "license.txt")),
    "prismjs": ("prism.js", "prism.js", ("LICENSE", "LICENSE.md", "LICENSE.txt")),
}


def pins(package_json: Path = ROOT / "package.json") -> dict[str, str]:
    """The versions the repository pins ({} outside a checkout)."""
    try:
        deps = json.loads(package_json.read_text())["dependencies"]
    except (OSError, KeyError, ValueError):
        return {}
    return {name: deps[name] for name in LIBRARIES if name in deps}


def vendor(node_modules: Path, dest: Path = DEST, pinned: dict[str, str] | None = None) -> dict[str, str]:
    """Copy both libraries into `dest`; returns {package: version}. Raises SystemExit with a
    message when a file is missing or a version is not the pinned one."""
    pinned = pins() if pinned is None else pinned
    versions = {}
    copies = []
    for name, (build, target, licences) in LIBRARIES.items():
        package = node_modules / name
        try:
            version = json.loads((package / "package.json").read_text())["version"]
        except (OSError, KeyError, ValueError) as e:
            raise SystemExit(f"vendor_libs: no {name} under {node_modules} ({e}); run `npm ci` first") from e
        if pinned.get(name, version) != version:
            raise SystemExit(f"vendor_libs: {name} {version} under {node_modules}, package.json pins "
                             f"{pinned[name]}; run `npm ci`")
        licence = next((package / f for f in licences if (package / f).is_file()), None)
        if licence is None or not (package / build).is_file():
            raise SystemExit(f"vendor_libs: {name} under {node_modules} lacks {build} or its licence; run `npm ci`")
        copies += [(package / build, target), (package / "package.json", f"{name}.package.json"),
                   (licence, f"{name}.{licence.name}")]
        versions[name] = version
    dest.mkdir(parents=True, exist_ok=True)
    for source, target in copies:
        shutil.copyfile(source, dest / target)   # fresh mtimes: make sees the copies as new
    return versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("node_modules", nargs="?", type=Path, default=ROOT / "node_modules")
    parser.add_argument("--dest", type=Path, default=DEST)
    args = parser.parse_args(argv)
    versions = vendor(args.node_modules, args.dest)
    print("vendored " + ", ".join(f"{k} {v}" for k, v in versions.items()) + f" into {args.dest}")
    return _patch_brush().main(["--lib", str(args.dest)])


def _patch_brush():
    """scripts/patch_brush.py, loaded by path (this script may run from anywhere)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("patch_brush", Path(__file__).resolve().parent / "patch_brush.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(main())
