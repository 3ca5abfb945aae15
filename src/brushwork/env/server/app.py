"""The FastAPI app: OpenEnv's `create_app` over `BrushworkEnvironment`, plus a `/health` that
reports the renderer, the pool, the scorers and the sessions.

Endpoints (OpenEnv's): WebSocket `/ws` (one stateful session per connection: what clients
use), stateless HTTP `/reset` and `/step` (a fresh environment per request), `/state`,
`/schema`, `/metadata`, `/health`.

    brushwork serve --port 8000                      # the usual way
    uvicorn brushwork.env.server.app:app             # settings from BRUSHWORK_* variables
"""

from __future__ import annotations

import functools
import json
import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.websockets import WebSocketDisconnect, WebSocketDisconnected

from brushwork.env.models import PaintAction, PaintObservation, PaintState
from brushwork.env.server.brushwork_environment import BrushworkEnvironment
from brushwork.env.server.context import ServerContext
from brushwork.env.settings import ServerSettings
from brushwork.env.upstream import ConcurrencyConfig, create_app
from brushwork.errors import ActionError, AtCapacity, BrushworkError, ConfigError, EpisodeError

# What an HTTP caller did wrong, as a status: a malformed action or reset argument, or a value
# out of range such as revisions=99 (422); an episode used out of order (409: /step without a
# reset, /state with no episode); a stateless request past --max-sessions, which holds a session
# slot like a WebSocket session (503). A one-line answer, no traceback in the server's log.
CLIENT_ERRORS = {ActionError: 422, ConfigError: 422, EpisodeError: 409, AtCapacity: 503}


def build_app(context: ServerContext) -> FastAPI:
    """The app for one server process; every session shares `context`."""
    settings = context.settings
    concurrency = ConcurrencyConfig(max_concurrent_envs=settings.session_limit,
                                    session_timeout=settings.session_timeout_s)
    app = create_app(functools.partial(BrushworkEnvironment, context), PaintAction, PaintObservation,
                     env_name="brushwork", concurrency_config=concurrency, state_cls=PaintState)
    # OpenEnv's /health only says "healthy"; ours says what is running and how busy it is.
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) != "/health"]

    @app.get("/health", tags=["Health"], summary="Renderer, pool, scorers and sessions")
    async def health() -> dict:
        return context.health()

    for error, status in CLIENT_ERRORS.items():
        app.add_exception_handler(error, functools.partial(_client_error, status))
    app.add_middleware(_GoneClients)
    app.add_middleware(_RequestLimit, limit=settings.request_limit)
    app.state.brushwork = context
    return app


class _GoneClients:
    """A client that goes away mid-episode (killed, its network lost) is ordinary under RL. OpenEnv's
    /ws handler then tries to send the step's answer, and then an error, on the closed socket, and
    raises after its own cleanup has closed the session: three chained tracebacks in the log for
    something that needs one line. This says that line and lets every other error through."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        try:
            await self.app(scope, receive, send)
        except (WebSocketDisconnect, WebSocketDisconnected):
            client = scope.get("client") or ("a client", "")
            logging.getLogger("uvicorn.error").warning(
                "%s:%s closed its connection before its answer was sent; its session is closed",
                *client)


class _RequestLimit:
    """Refuses an HTTP body (413) or a WebSocket message (an error frame; the session lives on)
    longer than `limit` bytes before the app reads it: what a reply may cost the server is bounded
    before any JSON is parsed. The gate's own length rule judges what fits. A body that is not
    UTF-8 is 400 with that said (a WebSocket text frame is UTF-8 by the protocol)."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    def _says(self, size: int, more: bool = False) -> str:
        return (f"the request is {'over ' if more else ''}{size:,} bytes; the limit is {self.limit:,} "
                "(--max-request-bytes): send one sketch and little prose")

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            return await self._http(scope, receive, send)
        if scope["type"] == "websocket":
            return await self.app(scope, self._websocket_receive(receive, send), send)
        return await self.app(scope, receive, send)

    async def _http(self, scope, receive, send):
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            return await JSONResponse({"detail": self._says(int(declared))}, 413)(scope, receive, send)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return                     # the client left before its body arrived
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await JSONResponse({"detail": self._says(size, more=True)}, 413)(scope, receive, send)
            more = message.get("more_body", False)
        data = b"".join(chunks)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            detail = f"the request body is not UTF-8 (byte {e.start}): send JSON encoded as UTF-8"
            return await JSONResponse({"detail": detail}, 400)(scope, receive, send)
        body = [{"type": "http.request", "body": data, "more_body": False}]

        async def replay():
            return body.pop() if body else await receive()
        return await self.app(scope, replay, send)

    def _websocket_receive(self, receive, send):
        async def limited():
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return message
                text = message.get("text")
                size = len(message.get("bytes") or b"") if text is None else len(text.encode("utf-8", "replace"))
                if size <= self.limit:
                    return message
                error = {"type": "error", "data": {"message": self._says(size), "code": "REQUEST_TOO_LARGE"}}
                await send({"type": "websocket.send", "text": json.dumps(error)})
        return limited


async def _client_error(status: int, request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=status)


def serve(settings: ServerSettings, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
          sock=None) -> None:
    """Start the shared pipeline (browsers, pool, scorers), then listen until stopped (SIGTERM or
    Ctrl-C: the browsers are closed): on host:port, or on `sock`, a bound socket handed over."""
    import uvicorn

    context = ServerContext(settings)
    try:
        config = uvicorn.Config(build_app(context), host=host, port=port, log_level=log_level,
                                timeout_graceful_shutdown=5)
        uvicorn.Server(config).run(sockets=[sock] if sock is not None else None)
    finally:
        context.close()


_app: FastAPI | None = None


def __getattr__(name: str):
    """`app`, built on first access from BRUSHWORK_* variables (for `uvicorn ...:app`)."""
    global _app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _app is None:
        context = ServerContext(ServerSettings.from_env())
        _app = build_app(context)
        _app.router.on_shutdown.append(context.close)
    return _app


def main() -> None:
    """`python -m brushwork.env.server.app [--host H] [--port P]`; other settings from BRUSHWORK_*,
    or `--settings -` (the JSON of ServerSettings on stdin) and `--fd N` (listen on the bound
    socket N, inherited): how a training node starts its scorer (`brushwork.train.launch`)."""
    import argparse
    import socket
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--fd", type=int, help="an inherited bound socket to listen on (instead of host:port)")
    parser.add_argument("--settings", choices=["env", "-"], default="env",
                        help="env: BRUSHWORK_* variables; -: the settings as JSON on stdin")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args()
    try:
        settings = ServerSettings(**json.load(sys.stdin)) if args.settings == "-" else ServerSettings.from_env()
        sock = socket.socket(fileno=args.fd) if args.fd is not None else None
        serve(settings, args.host, args.port, args.log_level, sock=sock)
    except BrushworkError as e:     # what to fix, in one line: the log's last
        sys.exit(f"error: {e}")


if __name__ == "__main__":
    main()
