"""`brushwork episode`: one episode through a real server with the real client, painted by the
procedural painter (a stand-in policy). Used by `make demo` to show the environment end to end."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

from brushwork.errors import SetupError


def policy_reply(subject: str, seed: int) -> str:
    """A model-like reply for `subject`: the procedural painter's sketch in a ```js fence
    (or a bundled example reply where the painter knows no layout for the subject)."""
    from brushwork.errors import ConfigError

    try:
        from brushwork.painter import paint

        painting = paint(seed, _bare(subject))
        return f"Here is {subject} in loose watercolour.\n\n```js\n{painting.code}\n```\n"
    except (ImportError, ConfigError):
        from brushwork.paths import example_files

        good = [p for p in example_files() if p.name.startswith("good_")]
        return good[seed % len(good)].read_text(encoding="utf-8")


def _bare(subject: str) -> str:
    for article in ("a ", "an ", "the "):
        if subject.lower().startswith(article):
            return subject[len(article):]
    return subject


@contextlib.contextmanager
def local_server(workers: int | None = None, **settings) -> Iterator[str]:
    """A `brushwork serve` in this process on a free 127.0.0.1 port; yields its base URL."""
    import uvicorn

    from brushwork.env.server.app import build_app
    from brushwork.env.server.context import ServerContext
    from brushwork.env.settings import ServerSettings

    context = ServerContext(ServerSettings.from_env(workers=workers, **settings))
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(build_app(context), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, name="brushwork-serve", daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise SetupError("the local environment server did not start")
            time.sleep(0.05)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(timeout=15)
    finally:
        context.close()


def run_episode(url: str | None, subject: str, revisions: int, seed: int, workers: int | None, console) -> list:
    """Reset, paint `revisions + 1` times (the last says done), return every observation."""
    from brushwork.env.client import BrushworkEnv
    from brushwork.env.models import PaintAction

    def run(base_url: str) -> list:
        observations = []
        with BrushworkEnv(base_url).sync() as env:
            result = env.reset(seed=seed, subject=subject, revisions=revisions)
            observations.append(result.observation)
            step = 0
            while not result.done:
                last = step == revisions
                reply = policy_reply(subject, seed * 100 + step)
                result = env.step(PaintAction(response=reply, done=last))
                observations.append(result.observation)
                step += 1
        return observations

    if url is not None:
        return run(url)
    with contextlib.ExitStack() as stack:
        with console.status("starting a local environment server (browsers, pool, taste model)"):
            base_url = stack.enter_context(local_server(workers))
        with console.status(f"painting {revisions + 1} time(s) through {base_url}"):
            return run(base_url)
