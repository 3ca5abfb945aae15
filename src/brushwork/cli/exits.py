"""What a command's exit status means, and the checks that let a command fail in one line before
its slow start (a browser, a pool, a server) instead of with a traceback after it.

    0  it did everything asked
    1  it ran, but could not do all of it: a reply failed the gate, a render wrote no PNG, a
       reply has no total (a term unavailable), a check failed; its table or a line says why
    2  it could not start: a bad value, path or file, a missing extra, a busy port, an
       unreachable service; one `error:` line naming the fix
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from brushwork.cli.common import app, print_error

DONE, INCOMPLETE, CANNOT_START = 0, 1, 2

EXIT_STATUS = ("Exit status: 0 done; 1 ran, but some of it could not be done (a reply failed the gate, a "
               "render wrote no PNG, a total is None: the output says why); 2 could not start (a bad value, "
               "path or file, a missing extra, a busy port, an unreachable service: one error line names the fix).")
# The app is declared with the settings machinery (cli.common); its --help ends with the convention above.
app.info.epilog = EXIT_STATUS


def one_line(message: object) -> str:
    """A message on one line: a YAML parser's or a server's own line breaks would read as a traceback."""
    return " ".join(str(message).split())


def fail(message: object, status: int = CANNOT_START):
    """End the command with `error: <message>` on one line of stderr."""
    print_error(one_line(message))
    raise typer.Exit(status)


def read_files(files: list[Path]) -> list[str]:
    """Each file's text (bytes that are not UTF-8 replaced), or exit 2 naming the file that cannot be
    read: not a regular file (a FIFO, a device would block or never end) or refused by the system."""
    texts = []
    for path in files:
        if not path.is_file():
            fail(f"{path} is not a regular file: give a sketch (.js) or a reply (.md, .txt)")
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError as e:
            fail(f"cannot read {path} ({e.strerror}): check its permissions")
    return texts


def out_dir(path: Path, option: str = "--out") -> Path:
    """`path` as a folder this command can write into (made if missing), or exit 2 naming why."""
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if path.exists() and not path.is_dir():
        fail(f"{option} {path} is a file, not a folder: give a folder (it is made if missing)")
    if existing is not None and not existing.is_dir():
        fail(f"{option} {path}: {existing} is a file, so no folder can be made there; give another path")
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        fail(f"{option} {path}: {existing} is not writable; give a folder you can write to")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(f"{option} {path}: cannot make the folder ({e.strerror}); give a folder you can write to")
    return path


def out_file(path: Path, what: str = "output file") -> Path:
    """`path` as a file this command can write (its folder made if missing), or exit 2 naming why."""
    if path.is_dir():
        fail(f"{what} {path} is a folder: give a file name (e.g. {path / 'tasks.jsonl'})")
    out_dir(path.parent if str(path.parent) else Path("."), what + "'s folder")
    if path.exists() and not os.access(path, os.W_OK):
        fail(f"{what} {path} is not writable; give another path")
    return path


def free_port(host: str, port: int) -> None:
    """Exit 2 at once when `host:port` cannot be listened on (in use, out of range, an address this
    machine lacks), instead of after a server's slow start-up."""
    from brushwork.errors import ConfigError
    from brushwork.pool.guard import bind

    try:
        bind(host, port).close()
    except ConfigError as e:
        fail(e)


def check_url(url: str, option: str) -> str:
    """`url` as an http(s) or ws(s) URL with a host and a valid port, or exit 2 naming the shape expected."""
    from brushwork.core.chat import url_problem

    if (problem := url_problem(url, ("http", "https", "ws", "wss"))) is not None:
        fail(f"{option} {problem}")
    return url
