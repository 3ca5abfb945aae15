"""CPU seconds a browser's renderer processes spend, read from /proc (Linux, no dependency).

A render's CPU budget (`RenderConfig.cpu_budget_s`) is counted here. A browser started by
`BrowserWorker` leads its own process group; its renderers are the members whose command
line says ``--type=renderer`` (the page's JavaScript runs there, so a busy loop shows up
here while SwiftShader's painting shows up in the GPU process). Their user + system time
is read from /proc/<pid>/stat.
"""

from __future__ import annotations

import os
import time

from brushwork.render.processes import stat_fields

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, int] | None:
    """(process group, utime + stime ticks) of `pid`, or None once it is gone."""
    fields = stat_fields(pid)
    return None if fields is None else (int(fields[2]), int(fields[11]) + int(fields[12]))


def _is_renderer(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"--type=renderer" in f.read()
    except OSError:
        return False


class RendererCpu:
    """CPU seconds the renderers of the browser leading process group `group` spent since
    this meter was made (renderers that start later count from zero: each job's page is new,
    and so is its renderer, which may start after the meter). Finding the renderers reads every
    /proc entry (~3 ms), so that is redone every `rescan_s`, not at every reading; a renderer
    that has exited keeps its last reading (the job's page is closed before the last one)."""

    def __init__(self, group: int, rescan_s: float = 0.2):
        self.group = group
        self.rescan_s = rescan_s
        self._renderer: dict[int, bool] = {}
        self._pids: list[int] = []
        self._next_scan = 0.0
        self._seen: dict[int, int] = {}
        self._base = self._ticks()

    def _scan(self) -> list[int]:
        pids = []
        for name in os.listdir("/proc"):
            if name.isdigit() and (stat := _stat(int(name))) is not None and stat[0] == self.group:
                pid = int(name)
                if pid not in self._renderer:
                    self._renderer[pid] = _is_renderer(pid)
                if self._renderer[pid]:
                    pids.append(pid)
        return pids

    def _ticks(self) -> dict[int, int]:
        if time.monotonic() >= self._next_scan:
            self._pids = sorted(set(self._pids) | set(self._scan()))
            self._next_scan = time.monotonic() + self.rescan_s
        for pid in self._pids:
            stat = _stat(pid)
            if stat is not None and stat[0] == self.group:
                self._seen[pid] = stat[1]
        return dict(self._seen)

    def seconds(self) -> float:
        now = self._ticks()
        return sum(max(0, t - self._base.get(pid, 0)) for pid, t in now.items()) / TICKS_PER_S
