"""Which of a browser's own processes died during a job, read from /proc (Linux, no dependency).

A browser that `BrowserWorker` starts leads its own process group. Beside its renderers it
runs processes that live as long as it does: the browser itself, the GPU process (where
SwiftShader runs every WebGL call), the network and other utility processes, the zygotes.
When the GPU process dies mid-render, Chromium starts another and the page carries on, but
its WebGL canvas has lost its context and everything painted on it: the page still answers,
with a blank capture. `BrowserProcesses` notes these processes when a job starts (pid and
start time, so a reused pid is not taken for the same process) and names those gone since.
Only the browser, its GPU process and the children the browser had then are watched:
renderers (and the zygotes' forks that become them) come and go with pages and frames, and the page's renderer dying is
Playwright's `crash` event; a helper started during the job (the audio service a page can
wake) may end on its own.
"""

from __future__ import annotations

import os
import re

_TYPE = re.compile(rb"--type=([a-z-]+)")
_GPU_CRASHES = re.compile(rb"--gpu-recent-crash-count=([0-9]+)")
NAMES = {"browser": "the browser", "gpu-process": "the GPU process", "utility": "a utility process",
         "zygote": "a zygote"}


def stat_fields(pid: int) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()  # the command name may hold spaces
    except (OSError, IndexError):
        return None


def _stat(pid: int) -> tuple[bytes, int, int, int] | None:
    """(state, process group, start time in ticks, parent) of `pid`, or None once it is gone."""
    fields = stat_fields(pid)
    return None if fields is None else (fields[0], int(fields[2]), int(fields[19]), int(fields[1]))


def _cmdline(pid: int) -> bytes:
    """The command line; Chromium rewrites its helpers' into one string, so flags are searched."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


class BrowserProcesses:
    """The non-renderer processes of the browser leading process group `group`, as they are
    now; `gone()` names those that died since (a zombie counts as dead). `gpu_crashes` is how
    many GPU processes this browser lost before (Chromium tells its new GPU process): a browser
    whose GPU process died between jobs hangs or loses WebGL after a few, so it is replaced."""

    def __init__(self, group: int):
        self.group = group
        self.gpu_crashes = 0
        self._watched: dict[int, tuple[str, int]] = {}
        for name in os.listdir("/proc"):
            pid = int(name) if name.isdigit() else 0
            if pid and (stat := _stat(pid)) is not None and stat[1] == group and stat[0] not in (b"Z", b"X"):
                cmdline = _cmdline(pid)
                kind = "browser" if pid == group else (m.group(1).decode() if (m := _TYPE.search(cmdline)) else "")
                if kind == "gpu-process" and (crashes := _GPU_CRASHES.search(cmdline)):
                    self.gpu_crashes = max(self.gpu_crashes, int(crashes.group(1)))
                # the GPU process is forked by a zygote, the zygotes and utilities by the browser
                if kind == "gpu-process" or kind == "browser" or (kind in ("utility", "zygote") and stat[3] == group):
                    self._watched[pid] = (kind, stat[2])

    def gone(self) -> list[str]:
        """The kinds of the watched processes that are no longer running, e.g. ["gpu-process"]."""
        lost = set()
        for pid, (kind, start) in self._watched.items():
            stat = _stat(pid)
            if stat is None or stat[0] in (b"Z", b"X") or stat[1] != self.group or stat[2] != start:
                lost.add(kind)
        return sorted(lost)


def described(kinds: list[str]) -> str:
    """["browser", "gpu-process"] -> "the browser and the GPU process"."""
    names = [NAMES.get(k, f"a {k} process") for k in kinds]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
