"""How many packages each brushwork install pulls, and how much it weighs.

For each install (base, [env], [train], [all], or the ones named) this makes a fresh virtualenv
and asks pip what it would install there (`pip install --dry-run --report`), then either

- sums the sizes of the wheels pip chose (the default: quick, from the local index or the
  wheel files it resolved to), or
- with `--install`, really installs into that virtualenv and measures the disk it takes
  (site-packages and bin, less what an empty virtualenv already holds).

The package count leaves out brushwork itself and what every fresh virtualenv has (pip).
Usage:

    python scripts/install_sizes.py [--install] [--json] [--spec PATH] [base env train all]

`--spec` installs from a wheel or a checkout (default: this checkout).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLS = ("base", "env", "train", "all")


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kwargs)


def disk_bytes(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            file = Path(dirpath) / name
            if not file.is_symlink():
                total += file.stat().st_size
    return total


def venv_bytes(venv: Path) -> int:
    return disk_bytes(venv / "lib") + disk_bytes(venv / "bin")


def wheel_bytes(url: str) -> int | None:
    """The size of the file pip resolved to: local files by stat, others by a HEAD request."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        path = Path(urllib.parse.unquote(parsed.path))
        return path.stat().st_size if path.is_file() else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=30) as reply:
            length = reply.headers.get("Content-Length")
            return int(length) if length else None
    except OSError:
        return None


def requirement(spec: str, install: str) -> str:
    return spec if install == "base" else f"{spec}[{install}]"


def measure(spec: str, install: str, *, real: bool, workdir: Path) -> dict:
    venv = workdir / f"venv-{install}"
    run([sys.executable, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    empty = venv_bytes(venv)
    report_file = workdir / f"report-{install}.json"
    run([*pip, "install", "--dry-run", "--quiet", "--report", str(report_file), requirement(spec, install)])
    report = json.loads(report_file.read_text())
    packages = []
    unknown = 0
    download = 0
    for item in report["install"]:
        name = item["metadata"]["name"]
        if name.lower() == "brushwork":
            continue
        packages.append(f"{name}=={item['metadata']['version']}")
        size = wheel_bytes(item["download_info"]["url"])
        if size is None:
            unknown += 1
        else:
            download += size
    result = {"install": install, "packages": len(packages), "download_bytes": download,
              "download_unknown": unknown, "names": sorted(packages, key=str.lower)}
    if real:
        run([*pip, "install", "--quiet", requirement(spec, install)])
        result["installed_bytes"] = venv_bytes(venv) - empty
    return result


def mb(n: int) -> str:
    return f"{n / 1e6:,.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("installs", nargs="*", default=list(INSTALLS), metavar="INSTALL",
                        help="base, env, train, all, or any extra of pyproject.toml (default: base env train all)")
    parser.add_argument("--install", action="store_true", help="really install and measure the disk taken")
    parser.add_argument("--json", action="store_true", help="print the results as JSON (with package names)")
    parser.add_argument("--spec", default=str(ROOT), help="what to install: a wheel or a checkout (default: this one)")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="brushwork-sizes-") as tmp:
        for install in args.installs:
            try:
                results.append(measure(args.spec, install, real=args.install, workdir=Path(tmp)))
            except subprocess.CalledProcessError as error:
                sys.exit(f"install_sizes: pip failed for {requirement(args.spec, install)!r}: "
                         f"{(error.stderr or error.stdout).strip().splitlines()[-1]}")
            print(f"measured {install}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print("| install | packages | wheels (download) |" + (" installed on disk |" if args.install else ""))
    print("| --- | --- | --- |" + (" --- |" if args.install else ""))
    for r in results:
        name = "`brushwork`" if r["install"] == "base" else f"`brushwork[{r['install']}]`"
        wheels = mb(r["download_bytes"]) + (f" (+{r['download_unknown']} unknown)" if r["download_unknown"] else "")
        line = f"| {name} | {r['packages']} | {wheels} |"
        if args.install:
            line += f" {mb(r['installed_bytes'])} |"
        print(line)


if __name__ == "__main__":
    main()
