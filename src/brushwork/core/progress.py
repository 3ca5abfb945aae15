"""Progress of a long step on any stderr: rich's live bar on a terminal, a plain line every few
items when stderr is a pipe or a log file (where rich draws nothing, so the first pool render
would be half a minute of silence).

    with progress() as bar:
        task = bar.add_task("scoring", total=len(files))
        for f in files:
            ...
            bar.advance(task)
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

# A plain line at least every tenth of a known total (every LINE_EVERY items when the total is
# unknown), and on any update LINE_INTERVAL_S after the last line, so slow items still show.
LINE_EVERY = 10
LINE_INTERVAL_S = 10.0


def progress(console=None):
    """A context manager with the part of rich's `Progress` the commands use (`add_task`,
    `update`, `advance`): the live bar when `console` (default: a rich console on stderr) is a
    terminal, a `LineProgress` on its file otherwise."""
    from rich.console import Console

    console = console or Console(stderr=True)
    if console.is_terminal or console.is_jupyter:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=console, transient=True)
    return LineProgress(console.file)


@dataclass
class _Task:
    description: str
    total: int | None
    completed: int = 0
    started: float = field(default_factory=time.monotonic)
    last_line: float = field(default_factory=time.monotonic)
    next_line: int = 0      # the count at which the next line is due
    finished: bool = False


class LineProgress:
    """Progress as plain lines, `description: done/total (elapsed)`: when a task starts, every
    tenth of it (or every `LINE_EVERY` items without a total), after `LINE_INTERVAL_S` without a
    line, and when it finishes. For logs and pipes."""

    def __init__(self, stream: TextIO | None = None):
        self._stream = stream
        self._tasks: list[_Task] = []

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, description: str, total: float | None = None, completed: float = 0, **_) -> int:
        task = _Task(description, None if total is None else int(total), int(completed))
        self._tasks.append(task)
        if task.total is not None:      # an open-ended task (a pool that may be cached) waits for its first item
            self._line(task)
        return len(self._tasks) - 1

    def advance(self, task_id: int, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def update(self, task_id: int, *, total: float | None = None, completed: float | None = None,
               advance: float | None = None, description: str | None = None, **_) -> None:
        task = self._tasks[task_id]
        if total is not None:
            task.total = int(total)
        if description is not None:
            task.description = description
        if completed is not None:
            task.completed = int(completed)
        if advance:
            task.completed += int(advance)
        if task.finished:
            return
        done = task.total is not None and task.completed >= task.total
        if done or task.completed >= task.next_line or time.monotonic() - task.last_line >= LINE_INTERVAL_S:
            self._line(task)
        task.finished = done

    def _line(self, task: _Task) -> None:
        step = max(1, -(-task.total // 10)) if task.total else LINE_EVERY
        task.next_line = (task.completed // step + 1) * step
        task.last_line = time.monotonic()
        count = f"{task.completed}/{task.total}" if task.total is not None else f"{task.completed}"
        stream = self._stream or sys.stderr
        stream.write(f"{task.description}: {count} ({task.last_line - task.started:.0f} s)\n")
        stream.flush()
