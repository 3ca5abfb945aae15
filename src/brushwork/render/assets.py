"""The 127.0.0.1 server the renderer's pages load from.

Libraries (p5, p5.brush) and the harness are served with long-lived cache headers so a
warm browser reloads them from its HTTP cache; each job's pages and sketch are served once,
uncached: the paint realm's page (`PAGE`, whose only frame is the sketch realm) and the
sketch realm's (`FRAME`, a sandboxed document), each behind a Content-Security-Policy that
forbids every network access, worker, image, font and eval. Playwright request routing would disable the HTTP cache,
which is why this is a real server.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path

from brushwork.core import language as L
from brushwork.core import vocabulary as V
from brushwork.errors import SetupError
from brushwork.render import brush_patch

# The paint realm: the page whose canvas is captured. Its only frame is the sketch realm.
CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'unsafe-inline'",
    "connect-src 'none'",
    "img-src 'none'",
    "font-src 'none'",
    "media-src 'none'",
    "worker-src 'none'",
    "child-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
])
# The sketch realm: a sandboxed document (opaque origin: no storage, cookies or caches, no
# pop-ups, no top navigation) that may load scripts from this server and nothing else.
FRAME_CSP = "; ".join([
    "sandbox allow-scripts",
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'unsafe-inline'",
    "frame-src 'none'",
    "child-src 'none'",
    "worker-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
])

def _csv(names) -> str:
    return ",".join(sorted(names))


# What a number in a display list may be, checked by both realms (the sketch realm refuses it as
# `unsupported_argument`; in the paint realm a number out of bounds means the list was forged,
# `harness_tampering`): finite, and within ±NUMBER_LIMIT (over sixteen canvases; p5.brush spins
# on a line or circle of 1e6-1e8), unless its op has a range of its own: "*" for every argument,
# or by argument number. Seeds span 32 bits; a hatch distance under half a pixel (or negative)
# never ends.
NUMBER_LIMIT = 10_000
SEED_RANGE = {"*": (-2**32, 2**32)}
RANGES = {"brush.hatch": {"1": (0.5, NUMBER_LIMIT)},
          **{op: SEED_RANGE for op in ("randomSeed", "noiseSeed", "brush.seed", "brush.noiseSeed")}}
BOUNDS = html.escape(json.dumps({"limit": NUMBER_LIMIT, "ranges": RANGES}, separators=(",", ":")))


PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>brushwork</title></head>
<body style="margin:0;background:#fff">
<script src="/h/{version}/seed.js" data-seed="{seed}"></script>
<script src="/lib/{version}/p5.min.js"></script>
<script src="/lib/{version}/{brush}"></script>
<script src="/h/{version}/replay.js" data-seed="{seed}" data-size="{size}" data-frame="/job/{token}/frame.html"
 data-allow="{allow}" data-brush="{brush_api}" data-painting="{painting}" data-replay="{replay}"
 data-findings="{findings}" data-max-ops="{max_ops}" data-max-bytes="{max_bytes}"
 data-bounds="{bounds}"></script>
</body></html>
"""
FRAME = """<!doctype html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
<script src="/h/{version}/seed.js" crossorigin="anonymous" data-seed="{seed}" data-realm="sketch"></script>
<script src="/lib/{version}/p5.min.js" crossorigin="anonymous"></script>
<script src="/h/{version}/realm.js" crossorigin="anonymous" data-seed="{seed}" data-size="{size}"
 data-brush="{brush_api}" data-statements="{statements}" data-p5-drawing="{p5_drawing}"
 data-text-drawing="{text_drawing}"
 data-raw-drawing="{raw_drawing}" data-unlisted-call="{unlisted_call}"
 data-external-access="{external_access}" data-noop="{noop}"
 data-max-ops="{max_ops}" data-bounds="{bounds}"></script>
<script src="/job/{token}/sketch.js" crossorigin="anonymous"></script>
</body></html>
"""
_FIXED = {
    "brush_api": _csv(V.BRUSH_METHODS), "allow": _csv(V.BRUSH_METHODS - L.NOT_REPLAYED),
    "painting": _csv(V.BRUSH_PAINTING), "replay": _csv(L.REPLAYED),
    "findings": _csv(L.FINDING_IDS), "statements": _csv(L.REPLAYED),
    "noop": _csv(L.QUIET), "max_ops": L.MAX_OPS, "max_bytes": L.MAX_MESSAGE_BYTES,
    "bounds": BOUNDS,
    **{key: _csv(names) for key, names in L.FINDINGS.items()},
}


# The package's own copy of the pinned builds (with their package.json and licences), written by
# scripts/vendor_libs.py after `npm ci` and shipped as package data: a render worker needs no npm.
PACKAGE_LIBS = Path(__file__).resolve().parent / "lib"


@dataclass(frozen=True)
class Libraries:
    """The pinned browser libraries: the package's copy (`render/lib/`), else the project's
    `npm ci` install. `source` says which folder they came from (not part of any cache key).
    `brush` is p5.brush's own build; `brush_build(mode)` the one a render serves."""

    p5: bytes
    brush: bytes
    p5_version: str
    brush_version: str
    source: str = ""
    brush_licence: str = ""

    def brush_build(self, mode: str) -> tuple[str, bytes]:
        """(file name, bytes) of p5.brush with the blend shader of `mode` (`brush_patch.MODES`):
        the patched file scripts/patch_brush.py wrote beside the package copy when it is current,
        else the same build generated now from `brush` (a node_modules install, a stale copy)."""
        if brush_patch.check_mode(mode) == "upstream":
            return "p5.brush.js", self.brush
        name = brush_patch.PATCHED_FILE.format(mode=mode)
        try:
            built = brush_patch.patch_library(self.brush.decode("utf-8"), mode, self.brush_licence).encode("utf-8")
        except brush_patch.PatchError as e:
            raise SetupError(f"cannot build p5.brush's {mode} blend shader: {e}") from e
        try:
            on_disk = (Path(self.source) / name).read_bytes()
        except OSError:
            on_disk = None
        return name, on_disk if on_disk == built else built

    @classmethod
    def locate(cls, node_modules: Path | None = None) -> Libraries:
        """The package copy, then `node_modules` (an explicit one, $BRUSHWORK_NODE_MODULES, or the
        nearest above this package or the cwd). An explicit `node_modules` skips the package copy."""
        if node_modules is None:
            lib = PACKAGE_LIBS
            try:
                return cls._read(lib / "p5.min.js", lib / "p5.brush.js", lib / "p5.package.json",
                                 lib / "p5.brush.package.json", lib, lib / "p5.brush.LICENSE.md")
            except (OSError, KeyError, ValueError):
                pass
        root = node_modules or find_node_modules()
        try:
            return cls._read(root / "p5" / "lib" / "p5.min.js", root / "p5.brush" / "dist" / "p5.brush.js",
                             root / "p5" / "package.json", root / "p5.brush" / "package.json", root,
                             root / "p5.brush" / "LICENSE.md")
        except (OSError, KeyError, ValueError) as e:
            raise SetupError(
                f"p5 / p5.brush not found, neither in the package copy ({PACKAGE_LIBS}: run "
                "`python scripts/vendor_libs.py` after `npm ci` in the brushwork checkout, which `make setup` "
                f"does, then reinstall) nor under {root} (run `npm ci` in the brushwork checkout, or set "
                "BRUSHWORK_NODE_MODULES to a node_modules with p5 and p5.brush)"
            ) from e

    @classmethod
    def _read(cls, p5: Path, brush: Path, p5_package: Path, brush_package: Path, source: Path,
              licence: Path) -> Libraries:
        return cls(p5.read_bytes(), brush.read_bytes(), json.loads(p5_package.read_text())["version"],
                   json.loads(brush_package.read_text())["version"], str(source), licence.read_text())


def find_node_modules() -> Path:
    """node_modules from $BRUSHWORK_NODE_MODULES, else the nearest one above this package or the cwd."""
    import os

    env = os.environ.get("BRUSHWORK_NODE_MODULES")
    if env:
        return Path(env)
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for parent in (start, *start.parents):
            candidate = parent / "node_modules" / "p5.brush"
            if candidate.is_dir():
                return parent / "node_modules"
    return Path.cwd() / "node_modules"


def harness_file(name: str) -> bytes:
    return resources.files("brushwork.render").joinpath("harness", name).read_bytes()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a page closed mid-download: nothing to report
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class AssetServer:
    """A threaded HTTP server on 127.0.0.1 with one entry per pending render job."""

    def __init__(self, libraries: Libraries, brush_shader: str = brush_patch.DEFAULT_MODE):
        self.libraries = libraries
        self.brush_shader = brush_shader
        self.version = f"p5-{libraries.p5_version}_brush-{libraries.brush_version}"
        self.brush_file, brush = libraries.brush_build(brush_shader)
        self._static = {
            f"/lib/{self.version}/p5.min.js": libraries.p5,
            f"/lib/{self.version}/{self.brush_file}": brush,
            f"/h/{self.version}/seed.js": harness_file("seed.js"),
            f"/h/{self.version}/replay.js": harness_file("replay.js"),
            f"/h/{self.version}/realm.js": harness_file("realm.js"),
        }
        self._jobs: dict[str, bytes] = {}
        self._params: dict[str, tuple[int, int, tuple[str, ...]]] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def harness_digest(self) -> str:
        import hashlib

        h = hashlib.sha256()
        for key in sorted(self._static):
            h.update(key.encode())
            h.update(self._static[key])
        h.update(PAGE.encode() + FRAME.encode() + CSP.encode() + FRAME_CSP.encode()
                 + repr(sorted(_FIXED.items())).encode())
        return h.hexdigest()[:16]

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: the renderer reports what matters
                pass

            def do_GET(self):
                path = self.path.split("?", 1)[0]
                body, ctype, cache = server._lookup(path)
                csp = FRAME_CSP if path.endswith("/frame.html") else CSP
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", cache)
                self.send_header("Content-Security-Policy", csp)
                self.send_header("X-Content-Type-Options", "nosniff")
                # The sketch realm's origin is opaque: its scripts load with CORS, or the browser would
                # mute their errors (and drop their promise rejections) as cross-origin.
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(body)

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, name="brushwork-assets", daemon=True).start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def origin(self) -> str:
        assert self._httpd is not None, "AssetServer.start() first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def add_job(self, code: str, seed: int, size: int) -> str:
        token = secrets.token_hex(8)
        with self._lock:
            self._jobs[token] = code.encode("utf-8", "replace")
            self._params[token] = (int(seed), int(size))
        return token

    def drop_job(self, token: str) -> None:
        with self._lock:
            self._jobs.pop(token, None)
            self._params.pop(token, None)

    def page_url(self, token: str) -> str:
        return f"{self.origin}/job/{token}/page.html"

    def _lookup(self, path: str) -> tuple[bytes | None, str, str]:
        if path in self._static:
            return self._static[path], "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "job":
            with self._lock:
                code = self._jobs.get(parts[2])
            if code is not None and parts[3] in ("page.html", "frame.html"):
                seed, size = self._params.get(parts[2], (1, 600))
                template = PAGE if parts[3] == "page.html" else FRAME
                page = template.format(version=self.version, token=parts[2], seed=seed, size=size,
                                       brush=self.brush_file, **_FIXED).encode()
                return page, "text/html; charset=utf-8", "no-store"
            if code is not None and parts[3] == "sketch.js":
                return code, "text/javascript; charset=utf-8", "no-store"
        return None, "", ""
