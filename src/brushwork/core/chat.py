"""An OpenAI-compatible chat client, shared by the judge backend and the pool generator.

`post_json` POSTs with retries: exponential backoff on connection errors, timeouts, 429, 5xx
and bodies that are not JSON; any other 4xx fails at once. Failures raise the caller's
`ServiceUnavailable` subclass (`JudgeUnavailable`, `ModelUnavailable`, ...). `ChatClient` is
one /v1/chat/completions endpoint (vLLM, TGI, hosted providers). API keys are sent, never
logged, shown in a repr or put in an error message.
"""

from __future__ import annotations

import asyncio
import base64
import time
from dataclasses import dataclass

from brushwork.errors import ServiceUnavailable


def url_problem(url: str, schemes: tuple[str, ...] = ("http", "https")) -> str | None:
    """Why `url` cannot name a service (its scheme, host or port), or None: checked once where the
    URL is taken, so a typo is one line at start rather than a failure on every request."""
    from urllib.parse import urlparse

    parts = urlparse(url)
    if parts.scheme not in schemes or not parts.hostname:
        return f"{url!r} is not an {'/'.join(schemes)} URL: give one like {schemes[0]}://127.0.0.1:8000"
    try:
        parts.port  # noqa: B018 (an out-of-range or non-numeric port raises here)
    except ValueError:
        return f"{url!r} has a port that is not a number in 1..65535"
    return None


@dataclass(frozen=True)
class Retry:
    """How hard to try: `attempts` in all, waiting `backoff_s`, then twice as long each time;
    `timeout_s` per attempt."""

    attempts: int = 4
    backoff_s: float = 0.5
    timeout_s: float = 60.0


async def post_json(client, url: str, payload: dict, headers: dict | None = None, retry: Retry = Retry(),
                    what: str | None = None, error_cls: type[Exception] = ServiceUnavailable) -> dict:
    """POST `payload` as JSON to `url` with an `httpx.AsyncClient`; the decoded JSON reply.
    `what` names the service in error messages (default: the URL)."""
    import httpx

    what = what or url
    last = "no attempt"
    for attempt in range(retry.attempts):
        if attempt:
            await asyncio.sleep(retry.backoff_s * 2 ** (attempt - 1))
        try:
            response = await client.post(url, json=payload, headers=headers or {}, timeout=retry.timeout_s)
        except (httpx.TimeoutException, httpx.TransportError) as e:
            last = f"{type(e).__name__}"
            continue
        if response.status_code == 429 or response.status_code >= 500:
            last = f"HTTP {response.status_code}"
            continue
        if response.status_code >= 400:
            raise error_cls(f"{what} refused the request: HTTP {response.status_code} "
                            f"{response.text[:200]!r} (check the URL, model name and API key)")
        try:
            return response.json()
        except ValueError:
            last = "a body that is not JSON"
            continue
    raise error_cls(f"{what} unreachable after {retry.attempts} attempts (last: {last}); check that it is "
                    f"running at that URL, or give it more time (more attempts, a longer timeout)")


def data_url(png: bytes) -> str:
    """A PNG as a ``data:`` URL, for an ``image_url`` message part."""
    return "data:image/png;base64," + base64.b64encode(png).decode()


def image_part(png: bytes) -> dict:
    """An OpenAI ``image_url`` content part holding a PNG."""
    return {"type": "image_url", "image_url": {"url": data_url(png)}}


@dataclass(frozen=True)
class Completion:
    """One chat answer. `text` is None when the body held no message at all (a malformed
    reply); an empty or null message is ``""``."""

    text: str | None
    tokens: int = 0
    seconds: float = 0.0


def _message_text(data) -> str | None:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):   # a list of content parts: keep the text parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


class ChatClient:
    """One OpenAI-compatible /chat/completions endpoint. `base_url` ends before
    ``/chat/completions`` (usually in ``/v1``). Failures raise `error_cls` after `retry`."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, retry: Retry = Retry(),
                 error_cls: type[Exception] = ServiceUnavailable, what: str | None = None):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self.retry = retry
        self.error_cls = error_cls
        self.what = what or f"model {model!r} at {self.base_url}"
        self._client = None

    def __repr__(self) -> str:  # never shows the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    def _http(self):
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient()
        return self._client

    async def complete(self, messages: list[dict], *, temperature: float = 0.0, max_tokens: int | None = None,
                       response_format: dict | None = None, extra: dict | None = None, client=None) -> Completion:
        """Ask once (with retries). `extra`: more request fields, for a server that reads them
        (vLLM's ``chat_template_kwargs``). `client`: an `httpx.AsyncClient` to use instead of
        this object's own (which `aclose` closes)."""
        payload: dict = {"model": self.model, "messages": messages, "temperature": temperature, **(extra or {})}
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        if response_format is not None:
            payload["response_format"] = response_format
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        t0 = time.perf_counter()
        data = await post_json(client or self._http(), f"{self.base_url}/chat/completions", payload, headers,
                               self.retry, self.what, self.error_cls)
        tokens = int((data.get("usage") or {}).get("total_tokens") or 0) if isinstance(data, dict) else 0
        return Completion(_message_text(data), tokens, time.perf_counter() - t0)

    async def start(self) -> None:
        """Open the HTTP client now, on the running event loop (the one every call must use)."""
        self._http()

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
