"""The rating page's front door: which HTTP requests reach its app at all.

A page served on 127.0.0.1 is reachable by every web page the rater's browser opens. A foreign
site can POST to it (its request then carries that site's Origin), or make a name of its own
resolve to 127.0.0.1 and read the answers (DNS rebinding: the request then carries that name
as its Host). So a request must name this server in Host (127.0.0.1, localhost, [::1], or the
host it was bound to; behind 0.0.0.0, any IP address, which rebinding cannot use), and a
request that carries an Origin must come from such a host. Anything else is a 403 before the
app runs. Bodies are read here, up to `MAX_BODY` bytes: a larger one is a 413 and is never
read whole, parsed or echoed. `bind` takes the listening socket before anything slow starts.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from urllib.parse import urlsplit

from brushwork.errors import ConfigError

LOCAL_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})
MAX_BODY = 64 * 1024   # a rating, a preference or an undo is well under 1 KiB


def _hostname(value: str) -> str | None:
    """'127.0.0.1:8200' -> '127.0.0.1', '[::1]:8200' -> '::1'; None when it is no host."""
    try:
        name = urlsplit("//" + value).hostname
    except ValueError:
        return None
    return name or None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: Host and Origin must name this server; bodies are bounded."""

    def __init__(self, app, bound_host: str = "127.0.0.1", max_body: int = MAX_BODY):
        self.app = app
        self.any_ip = bound_host in ANY_ADDRESS
        self.names = LOCAL_NAMES | ({bound_host.strip("[]").lower()} - ANY_ADDRESS)
        self.max_body = max_body

    def allows(self, name: str | None) -> bool:
        return name is not None and (name in self.names or (self.any_ip and _is_ip(name)))

    def refusal(self, headers: dict[str, str], port: int | str = "PORT") -> str | None:
        """Why this request may not reach the app (None when it may)."""
        known = ", ".join(sorted(self.names)) + (", any IP address" if self.any_ip else "")
        host = headers.get("host", "")
        if not self.allows(_hostname(host)):
            return (f"refused: Host {host[:80]!r} is not this rating page (it answers to {known}); open the page "
                    f"at http://127.0.0.1:{port}/, or serve it under that name with `brushwork pool serve --host NAME`")
        origin = headers.get("origin")
        if origin is not None and not self.allows(_hostname(origin.split("://", 1)[-1])):
            return (f"refused: a page from {origin[:80]!r} may not use this rating page (a cross-site request); "
                    f"open the rating page itself (it answers to {known})")
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self.refusal(headers, (scope.get("server") or (None, "PORT"))[1])
        if problem:
            return await _answer(send, 403, problem)
        declared = headers.get("content-length", "0").strip()
        if not declared.isdigit() or int(declared) > self.max_body:
            return await _answer(send, 413, self._too_large())
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            if len(body) > self.max_body:
                return await _answer(send, 413, self._too_large())
            more = message.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"request body over {self.max_body} bytes: a rating, preference or undo is a small JSON object"


async def _answer(send, status: int, error: str) -> None:
    body = json.dumps({"error": error}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, taken before anything slow starts: a busy port or a bad host is one
    ConfigError naming the fix."""
    if not 1 <= port <= 65535:
        raise ConfigError(f"port {port} is not a TCP port: give --port between 1 and 65535 (8200 by default)")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise ConfigError(f"cannot serve on host {host!r} ({e.strerror}): give --host 127.0.0.1, or a name or "
                          "address of this machine") from e
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({e.strerror}): another program holds the port, "
                          "pick another with --port") from e
    return sock
