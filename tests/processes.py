"""Processes and their threads, read from /proc: what the renderer and launch tests use to prove
that a browser (each leads its own group) or a node's scorer left nothing behind, and at which
priority they ran."""

from __future__ import annotations

from pathlib import Path

# fields of /proc/PID/stat after the command name: state 0, ppid 1, process group 2, nice 16
STATE, PPID, GROUP, NICE = 0, 1, 2, 16


def _stat(path: Path) -> list[bytes] | None:
    """The fields of one stat file after "(command)", or None when it is gone or torn."""
    try:
        fields = path.read_bytes().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields if len(fields) > NICE else None


def _live() -> dict[int, list[bytes]]:
    """Every live (not zombie) process: pid -> its stat fields."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(entry / "stat")
            if fields is not None and fields[STATE] != b"Z":
                out[int(entry.name)] = fields
    return out


def in_groups(groups: set[int]) -> set[int]:
    """Live (not zombie) processes in these process groups."""
    return {pid for pid, fields in _live().items() if int(fields[GROUP]) in groups}


def nice_of(pid: int) -> int:
    """The nice value of process `pid` (its main thread)."""
    fields = _stat(Path(f"/proc/{pid}/stat"))
    assert fields is not None, f"process {pid} is gone"
    return int(fields[NICE])


def descendants(pid: int) -> set[int]:
    """Live processes below `pid`: its children, theirs, and so on."""
    parents = {child: int(fields[PPID]) for child, fields in _live().items()}
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def thread_nice_values(group: int) -> dict[str, int]:
    """The nice value of every thread ("pid/tid") of every live process in process group `group`."""
    values = {}
    for pid in in_groups({group}):
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            fields = _stat(task / "stat")
            if fields is not None and fields[STATE] != b"Z":
                values[f"{pid}/{task.name}"] = int(fields[NICE])
    return values
