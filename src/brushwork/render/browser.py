"""One long-lived headless Chromium and a fresh page for every job: start, render a job URL, kill.

brushwork owns the Chromium process (its own process group, a parent-death signal, a
private profile directory) and drives it through Playwright over CDP. Owning the process
is what lets a hung render be ended with SIGKILL of the whole group in milliseconds, and
guarantees no Chromium outlives the Python process that started it.

The page is the paint realm (harness/replay.js): it runs no sketch code, so its answer is
trusted. What Playwright itself sees (requests that left the asset server, navigations,
frames) is kept beside it; pop-ups cannot open (the sketch's frame is sandboxed) and any that
did would be closed. Every job opens a new page and closes it after: a render cannot read
what the one before it left (its history, its window's name), and the browser's HTTP cache,
which the sketch cannot read, keeps the libraries warm.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from brushwork.errors import RenderError, SetupError

# The flags that make SwiftShader WebGL2 fast and keep the browser off the network.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-extensions",
    "--mute-audio",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    # The sketch may not tell that it is automated: no navigator.webdriver (and see user_agent()).
    "--disable-blink-features=AutomationControlled",
)


def user_agent(version: str) -> str:
    """An ordinary desktop Chrome user agent for `version` ("Chromium 156.0.7000.1 ..."): the
    headless shell's own says "HeadlessChrome", which a sketch could read."""
    major = next((w.split(".")[0] for w in version.split() if w[:1].isdigit()), "120")
    return (f"--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            f"Chrome/{major}.0.0.0 Safari/537.36")

CANDIDATES = (
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium-headless-shell",
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium",
)


def find_chromium(explicit: str | None = None) -> str:
    """The Chromium binary: an explicit path, $BRUSHWORK_CHROMIUM, or Debian's packages."""
    path = explicit or os.environ.get("BRUSHWORK_CHROMIUM")
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise SetupError(f"Chromium not executable at {path!r} (from --chromium / BRUSHWORK_CHROMIUM)")
        return path
    for candidate in CANDIDATES:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise SetupError(
        "no Chromium found: run `make setup` (apt-get install chromium-headless-shell chromium) "
        "or set BRUSHWORK_CHROMIUM to a Chromium binary"
    )


def chromium_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.strip() or "unknown"


PR_SET_PDEATHSIG, PR_CAPBSET_DROP, CAP_SYS_NICE = 1, 24, 23


def child_setup(nice: int) -> None:
    """Between fork and exec of a process brushwork starts (a browser, a node's scorer): it dies
    with its parent, cannot raise its own priority, and runs `nice` lower than its parent."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    with contextlib.suppress(Exception):
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    # Run as root, Chromium raises its browser and GPU main threads to nice -8, above the trainer or
    # server that started it: the GPU process's thread (where SwiftShader paints) then takes a core
    # from generation or the event loop whenever both want one. Without CAP_SYS_NICE (dropped from
    # the bounding set, so root's exec does not regain it) it stays at its parent's priority, lowered by
    # `nice` (the render_nice setting) so that the trainer or the event loop comes first.
    with contextlib.suppress(Exception):
        libc.prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0)
    if nice:
        os.nice(nice)


@dataclass
class PageEvents:
    """What Playwright saw of one job's page, outside both realms: requests that left the
    asset server, navigations (of the page or of the sketch's frame), frames other than the
    sketch realm's, a crash."""

    token: str = ""
    navigations: list[str] = field(default_factory=list)
    failed_requests: list[tuple[str, str]] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    crashed: bool = False


class BrowserWorker:
    """A Chromium process that opens a fresh page for every sketch."""

    def __init__(self, binary: str, flags: tuple[str, ...] = CHROMIUM_FLAGS, origin: str = "", nice: int = 0):
        self.binary = binary
        self.nice = nice          # how much lower than this process the browser runs
        self.flags = flags
        self.origin = origin
        self.proc: subprocess.Popen | None = None
        self.browser = None
        self.context = None
        self.events = PageEvents()
        self._profile: str | None = None
        self.renders = 0

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.browser is not None \
            and self.browser.is_connected() and not self.events.crashed

    async def start(self, playwright, timeout_s: float = 20.0) -> float:
        """Launch Chromium and connect; returns the seconds it took."""
        t0 = time.perf_counter()
        await self.launch(timeout_s)
        await self.connect(playwright)
        return time.perf_counter() - t0

    async def launch(self, timeout_s: float = 20.0) -> None:
        """Start the Chromium process and wait for its debugging port (no Playwright needed yet,
        so a backend can launch its browsers while Playwright's driver starts)."""
        self._profile = tempfile.mkdtemp(prefix="brushwork-chromium-")
        # No start-up page: every job opens its own, and Playwright would set up an idle one on connect.
        args = [self.binary, *self.flags, "--remote-debugging-port=0", f"--user-data-dir={self._profile}",
                "--window-size=800,800", "--no-startup-window"]
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True,
                                         preexec_fn=functools.partial(child_setup, self.nice))
        except OSError as e:
            raise SetupError(f"cannot start Chromium at {self.binary}: {e}") from e
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout_s
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if self.proc.poll() is not None:
                raise RenderError(f"Chromium exited with code {self.proc.returncode} at start-up ({self.binary})")
            if time.monotonic() > deadline:
                self.kill()
                raise RenderError(f"Chromium did not open its debugging port within {timeout_s:.0f}s")
            await asyncio.sleep(0.02)

    async def connect(self, playwright) -> None:
        """Connect Playwright to the launched browser over CDP."""
        if self._profile is None:
            raise RenderError("BrowserWorker.connect() before launch()")
        port, path = (Path(self._profile) / "DevToolsActivePort").read_text().split("\n")[:2]
        self.browser = await playwright.chromium.connect_over_cdp(f"ws://127.0.0.1:{port}{path}")
        self.context = self.browser.contexts[0]

    def _attach(self, page, events: PageEvents) -> None:
        """Playwright's view of one job's page, written to that job's `events`."""
        def on_nav(frame):  # the page, or the sketch's frame, loading anything but this job's own pages
            if not frame.url.startswith(self.origin + "/job/") and frame.url not in ("about:blank", "") \
                    and frame.url not in events.navigations:
                events.navigations.append(frame.url)

        def on_failed(request):
            events.failed_requests.append((request.url, request.failure or "failed"))

        def on_request(request):
            if request.is_navigation_request() and not request.url.startswith(self.origin + "/job/"):
                events.navigations.append(request.url)
            elif not request.url.startswith(self.origin + "/"):
                events.failed_requests.append((request.url, "outside the asset server"))

        def on_crash(_page):
            events.crashed = True

        def on_frame(frame):  # the paint realm makes one frame, the sketch realm's; it can make none
            if frame.parent_frame is not None and frame.parent_frame != page.main_frame:
                events.frames.append(f"frame {frame.url or 'about:blank'} inside the sketch's frame")

        def on_popup(popup):  # the harness flags `open()` itself: this event may come after the job ended
            asyncio.ensure_future(popup.close())

        page.on("framenavigated", on_nav)
        page.on("requestfailed", on_failed)
        page.on("request", on_request)
        page.on("crash", on_crash)
        page.on("frameattached", on_frame)
        page.on("popup", on_popup)

    async def run(self, url: str) -> dict:
        """Load the job page and wait for the harness's capture: ``{"result": {...}, "events":
        {...}}`` (the PNG, counts, timings; empty when the page's answer is unreadable). No
        timeout here: the caller owns it."""
        self.events = PageEvents(token=url.rsplit("/", 2)[-2] if "/job/" in url else "")
        self.renders += 1
        page = await self.context.new_page()
        try:
            self._attach(page, self.events)
            await page.goto(url, wait_until="domcontentloaded")
            answer = await page.evaluate("window.__bwResult()")
        except BaseException:  # a page still busy may not close soon: the caller is not kept waiting
            asyncio.ensure_future(_close(page))
            raise
        await _close(page)
        try:
            raw = json.loads(answer) if isinstance(answer, str) else {}
        except ValueError:
            raw = {}
        return raw if isinstance(raw, dict) else {}

    def kill(self) -> None:
        """SIGKILL the whole process group at once: a hung GPU process would stall a polite close."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
        self.proc = None
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    async def close(self) -> None:
        browser, self.browser, self.context = self.browser, None, None
        self.kill()
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 2.0)


async def _close(page) -> None:
    with contextlib.suppress(Exception):  # a crashed page, or one of a browser already killed
        await page.close()
