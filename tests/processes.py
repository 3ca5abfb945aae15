"""Processes by process group, read from /proc: what the renderer tests use to prove that a
browser (each leads its own group) left nothing behind."""

from __future__ import annotations

from pathlib import Path


def in_groups(groups: set[int]) -> set[int]:
    """Live (not zombie) processes in these process groups."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != b"Z" and int(fields[2]) in groups:
                pids.add(int(entry.name))
    return pids


def thread_nice_values(group: int) -> dict[str, int]:
    """The nice value of every thread ("pid/tid") of every live process in process group `group`."""
    values = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for task in (entry / "task").iterdir():
                fields = (task / "stat").read_bytes().rsplit(b")", 1)[1].split()
                if fields[0] != b"Z" and int(fields[2]) == group:
                    values[f"{entry.name}/{task.name}"] = int(fields[16])
        except (OSError, IndexError):
            continue
    return values
