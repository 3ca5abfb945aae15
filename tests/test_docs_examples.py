"""Every Python and shell example in README.md and docs/*.md runs as written.

A fenced ```python, ```bash, ```sh or ```console block is an example. The HTML comment on the
line just before its fence says what it needs:

    <!-- example: needs=chromium,torch -->        run it where Chromium and torch are found
    <!-- example: server -->                     start it in the background; wait for its port
    <!-- example: timeout=900 -->                 seconds it may take (default 300)
    <!-- example: skip reason="why" -->           never run (rare: it installs, needs a cluster, ...)

A block with no comment needs nothing. The blocks of one document run in order in one
temporary folder, as a reader following the page would run them: Python with the virtualenv's
interpreter, shell with `bash -e` and the virtualenv's bin first on PATH; in ```console blocks
the lines after `$ ` are the commands. A server block's port (`--port N`) is replaced by a free
one in it and in every block after it; the server is stopped when the document ends. When a
block needs what this machine lacks, the rest of its document is skipped (later blocks may use
what it made).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"python", "bash", "sh", "console"}
NEEDS = {"chromium", "torch", "ray"}
KEYS = {"needs", "skip", "reason", "server", "timeout"}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<ticks>`{3,})(?P<lang>[\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*example:(?P<body>.*?)-->\s*$")
DEFAULT_TIMEOUT_S = 300.0
SERVER_WAIT_S = 300.0


@dataclass
class Example:
    path: Path
    line: int                 # of the opening fence, 1-based
    lang: str
    code: str
    needs: set[str] = field(default_factory=set)
    skip: str | None = None   # the reason
    server: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path.name}:{self.line}"


class DocError(Exception):
    """A malformed marker or fence, or an example that failed."""


def parse_marker(body: str, where: str) -> dict[str, str]:
    try:
        words = shlex.split(body)
    except ValueError as e:
        raise DocError(f"{where}: unreadable example marker ({e}): {body.strip()!r}") from e
    fields = {}
    for word in words:
        key, _, value = word.partition("=")
        if key not in KEYS:
            raise DocError(f"{where}: unknown key {key!r} in the example marker (known: {', '.join(sorted(KEYS))})")
        fields[key] = value
    return fields


def examples(path: Path) -> list[Example]:
    """The runnable blocks of one Markdown file, with what their markers say."""
    lines = path.read_text().split("\n")
    found: list[Example] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start, indent, lang = i, fence["indent"], fence["lang"]
        close = re.compile(rf"^\s*{fence['ticks']}`*\s*$")    # a longer fence may hold ``` lines
        i += 1
        body = []
        while i < len(lines) and not close.match(lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            raise DocError(f"{path.name}:{start + 1}: a fence that is never closed")
        i += 1
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(previous)
        where = f"{path.name}:{start + 1}"
        if lang not in LANGUAGES:
            if marker:
                raise DocError(f"{where}: an example marker before a ```{lang or 'plain'} block, which never runs")
            continue
        fields = parse_marker(marker["body"], where) if marker else {}
        example = Example(path, start + 1, lang, "\n".join(body) + "\n")
        if "needs" in fields:
            example.needs = {n for n in fields["needs"].split(",") if n}
            if unknown := example.needs - NEEDS:
                raise DocError(f"{where}: unknown need {sorted(unknown)} (known: {', '.join(sorted(NEEDS))})")
        if "skip" in fields:
            if not fields.get("reason", "").strip():
                raise DocError(f'{where}: a skipped example says why: <!-- example: skip reason="..." -->')
            example.skip = fields["reason"]
        elif "reason" in fields:
            raise DocError(f"{where}: reason= belongs with skip")
        example.server = "server" in fields
        if "timeout" in fields:
            try:
                example.timeout_s = float(fields["timeout"])
            except ValueError as e:
                raise DocError(f"{where}: timeout= takes seconds, not {fields['timeout']!r}") from e
        if example.server and not re.search(r"--port[ =](\d+)", example.code):
            raise DocError(f"{where}: a server example names its --port, so the test can move it")
        found.append(example)
    return found


def missing(need: str) -> bool:
    if need == "chromium":
        from brushwork.errors import SetupError
        from brushwork.render.browser import find_chromium

        try:
            find_chromium()
        except SetupError:
            return True
        return False
    return importlib.util.find_spec(need) is None


def script(example: Example) -> str:
    if example.lang != "console":
        return example.code
    return "".join(line[2:] + "\n" for line in example.code.splitlines() if line.startswith("$ "))


def command(example: Example, folder: Path, n: int) -> list[str]:
    file = folder / f".example-{n}.{'py' if example.lang == 'python' else 'sh'}"
    file.write_text(script(example))
    if example.lang == "python":
        return [sys.executable, str(file)]
    return ["bash", "-e", str(file)]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    # BRUSHWORK_CACHE stays this test session's private folder (tests/conftest.py): the pool's
    # renders and taste model are made once per session, by the code under test, and shared by
    # every document's examples; nothing another run left in a cache can answer for them.
    env["PYTHONUNBUFFERED"] = "1"
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(process: subprocess.Popen, port: int, example: Example, log: Path) -> None:
    deadline = time.monotonic() + SERVER_WAIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise DocError(f"{example.where}: the server exited ({process.returncode}) before it answered:\n"
                           f"{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise DocError(f"{example.where}: the server did not answer on port {port} within {SERVER_WAIT_S:g}s:\n"
                   f"{log.read_text()[-4000:]}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def run_document(blocks: list[Example], folder: Path) -> list[str]:
    """Run the blocks in order in `folder`; return the reasons blocks were not run."""
    env = environment()
    servers: list[subprocess.Popen] = []
    ports: dict[str, str] = {}
    not_run = []
    try:
        for n, example in enumerate(blocks):
            if example.skip:
                not_run.append(f"{example.where}: {example.skip}")
                continue
            if lacking := sorted(need for need in example.needs if missing(need)):
                not_run.append(f"{example.where} and after: needs {', '.join(lacking)}")
                break
            for old, new in ports.items():
                example.code = re.sub(rf"\b{old}\b", new, example.code)
            if example.server:
                old = re.search(r"--port[ =](\d+)", example.code)[1]
                ports[old] = str(free_port())
                example.code = re.sub(rf"\b{old}\b", ports[old], example.code)
                log = folder / f".server-{n}.log"
                with log.open("w") as out:
                    process = subprocess.Popen(command(example, folder, n), cwd=folder, env=env, stdout=out,
                                               stderr=subprocess.STDOUT, start_new_session=True)
                servers.append(process)
                wait_for_server(process, int(ports[old]), example, log)
                continue
            process = subprocess.Popen(command(example, folder, n), cwd=folder, env=env, text=True,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                output, _ = process.communicate(timeout=example.timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)      # the block's children too
                output, _ = process.communicate()
                raise DocError(f"{example.where}: still running after {example.timeout_s:g}s (raise its "
                               f"timeout= or make it smaller); its output so far:\n{output[-4000:]}") from None
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)  # nothing a block started outlives it
            if process.returncode != 0:
                raise DocError(f"{example.where}: the ```{example.lang} example failed (exit {process.returncode}):\n"
                               f"{textwrap.indent(example.code, '    ')}\n{output[-6000:]}")
    finally:
        for process in servers:
            stop(process)
    return not_run


def _document_param(path: Path):
    needs = set().union(*(e.needs for e in examples(path))) if path.is_file() else set()
    marks = [getattr(pytest.mark, need) for need in sorted(needs)]
    if needs:
        marks.append(pytest.mark.slow)
    return pytest.param(path, marks=marks, id=str(path.relative_to(ROOT)))


@pytest.mark.timeout(5400)    # a loaded 2-core machine: the README trains one step
@pytest.mark.parametrize("path", [_document_param(p) for p in DOCUMENTS])
def test_examples_run(path, tmp_path):
    blocks = examples(path)
    if not blocks:
        pytest.skip(f"{path.name} has no Python or shell example")
    try:
        not_run, failure = run_document(blocks, tmp_path), None
    except DocError as e:
        not_run, failure = [], str(e)
    if failure:
        pytest.fail(failure, pytrace=False)
    if any("needs" in reason for reason in not_run):
        pytest.skip("; ".join(not_run))


def test_markers_are_well_formed_and_skips_rare():
    blocks = [e for path in DOCUMENTS for e in examples(path)]
    skipped = [e for e in blocks if e.skip]
    assert blocks, "no examples found: is the fence pattern right?"
    # A skip is for what no test machine can do (install, a cluster, GPUs); they stay a minority.
    assert len(skipped) * 2 < len(blocks), f"most examples must run; skipped: {[e.where for e in skipped]}"
    for e in skipped:
        assert len(e.skip.split()) >= 3, f"{e.where}: say why it is skipped in a few words, not {e.skip!r}"


def test_docs_are_linked_from_the_readme_and_their_links_resolve():
    readme = (ROOT / "README.md").read_text()
    for doc in DOCUMENTS[1:]:
        assert f"](docs/{doc.name})" in readme, f"README.md links to no docs/{doc.name}"
    for path in DOCUMENTS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (path.parent / target).exists(), f"{path.name}: the link {target!r} leads nowhere"


# -- the runner itself: it must be able to fail ---------------------------------------------------

def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(textwrap.dedent(text))
    return path


def test_runner_fails_on_a_broken_example_and_names_its_line(tmp_path):
    path = write(tmp_path, """\
        # a page
        ```python
        print("fine")
        ```

        ```bash
        echo start
        false
        echo never
        ```
        """)
    blocks = examples(path)
    assert [(b.lang, b.line) for b in blocks] == [("python", 2), ("bash", 6)]
    with pytest.raises(DocError, match=r"doc.md:6: the ```bash example failed \(exit 1\)"):
        run_document(blocks, tmp_path)


def test_runner_shares_a_folder_in_order_and_runs_console_commands(tmp_path):
    path = write(tmp_path, """\
        ```console
        $ echo painted > out.txt
        painted? this line is output, not a command
        ```
        ```python
        assert open("out.txt").read() == "painted\\n"
        ```
        <!-- example: skip reason="would fail" -->
        ```sh
        exit 3
        ```
        ```text
        not an example
        ```
        """)
    blocks = examples(path)
    assert [b.lang for b in blocks] == ["console", "python", "sh"]
    assert run_document(blocks, tmp_path) == ["doc.md:9: would fail"]


def test_runner_moves_a_server_to_a_free_port_and_stops_it(tmp_path):
    serve = ("exec python -c \"import http.server as h, sys; h.test(h.SimpleHTTPRequestHandler, "
             "port=int(sys.argv[sys.argv.index('--port') + 1]), bind='127.0.0.1')\" --port 8000")
    path = write(tmp_path, "```bash\nmkdir -p health && echo ok > health/index.html\n```\n"
                           f"<!-- example: server -->\n```bash\n{serve}\n```\n"
                           "```bash\ncurl -sf http://127.0.0.1:8000/health/ > got.txt\n```\n")
    blocks = examples(path)
    assert blocks[1].server
    run_document(blocks, tmp_path)
    assert (tmp_path / "got.txt").read_text() == "ok\n"
    assert "8000" not in blocks[2].code
    port = int(re.search(r"--port (\d+)", blocks[1].code)[1])
    with pytest.raises(OSError):    # stopped with its document
        urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=5)


@pytest.mark.parametrize("marker, message", [
    ('<!-- example: skip -->', "says why"),
    ('<!-- example: needs=gpu -->', "unknown need"),
    ('<!-- example: colour=red -->', "unknown key"),
    ('<!-- example: server -->', "names its --port"),
])
def test_bad_markers_are_refused_with_what_to_fix(tmp_path, marker, message):
    path = write(tmp_path, f"{marker}\n```bash\necho hi\n```\n")
    with pytest.raises(DocError, match=message):
        examples(path)


def test_a_longer_fence_holds_a_reply_with_its_own_fences(tmp_path):
    path = write(tmp_path, "````bash\ncat > reply.md <<'R'\n```js\nbrush.circle(1, 2, 3);\n```\nR\n"
                           "grep -c '```' reply.md > count.txt\n````\n")
    (block,) = examples(path)
    assert block.code.count("```") == 3
    run_document([block], tmp_path)
    assert (tmp_path / "count.txt").read_text() == "2\n"


def test_a_block_past_its_timeout_fails_and_leaves_no_process(tmp_path):
    path = write(tmp_path, "<!-- example: timeout=2 -->\n```bash\nsleep 300 &\necho $! > child.pid\nsleep 300\n```\n")
    with pytest.raises(DocError, match="still running after 2s"):
        run_document(examples(path), tmp_path)
    child = int((tmp_path / "child.pid").read_text())
    time.sleep(0.5)
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
