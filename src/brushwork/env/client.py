"""The client: OpenEnv's `EnvClient` for the brushwork server. Never imports the server.

Long training runs meet dead sockets (a server restart, a dropped tunnel, a session the
server reclaimed while the trainer was generating). This client keeps a journal of the
current episode (the reset arguments, with the seed and episode id the server chose, and
every action so far); when its socket is closed it opens a new one, replays the journal
(renders come back from the server's render cache) and retries the call once. A step can be
slow (renders retried, a remote judge retried), so it waits for a reply as long as the
scoring options' worst case (`step_timeout_s`) instead of OpenEnv's 60 s. `end_episode()`
releases the server's session as soon as an episode is over (the next `reset` opens another),
so a trainer holds a session only while a rollout runs.

    with BrushworkEnv("http://127.0.0.1:8000").sync() as env:
        first = env.reset(seed=7, subject="a coral hibiscus", revisions=1)
        result = env.step(PaintAction(response=reply))
        env.end_episode()
"""

from __future__ import annotations

import asyncio
import inspect
import math
import time
from dataclasses import dataclass, field
from typing import Any

from brushwork.env.models import SESSION_RECLAIMED, PaintAction, PaintObservation, PaintState
from brushwork.env.upstream import ConnectionClosed, EnvClient, InvalidHandshake, StepResult
from brushwork.errors import EnvConnectionError, EnvServerError


def _retry_worst_s(retry) -> float:
    """The longest a `Retry` can take: every attempt timing out, with its back-off between."""
    return retry.attempts * retry.timeout_s + sum(retry.backoff_s * 2 ** i for i in range(retry.attempts - 1))


def step_timeout_s(options=None) -> float:
    """How long one step may take at worst under these scoring options (default ones when None):
    its render timing out and rendered once more, behind one other session's render; the judge
    (an OpenAI-compatible one: both orders of every reference, each verdict asked `judge_attempts` times, each
    request retried, `judge_concurrency` at a time) and the HPSv3 aesthetic, every request
    retried to its end; plus 30 s for a browser restart. A client waits this long for a reply."""
    from brushwork.score.backends import HPSv3Client, OpenAIJudge
    from brushwork.score.options import ScoringOptions

    options = options or ScoringOptions()
    default = lambda cls, name: inspect.signature(cls.__init__).parameters[name].default   # noqa: E731
    seconds = 2 * (2 * options.render_timeout_s) + 30
    if options.judge == "openai":
        verdicts = 2 * sum(n for _, n in options.mix)
        rounds = math.ceil(verdicts / options.judge_concurrency) * options.judge_attempts
        seconds += rounds * _retry_worst_s(default(OpenAIJudge, "retry"))
    if options.aesthetic == "hpsv3":
        seconds += _retry_worst_s(default(HPSv3Client, "retry"))
    return seconds


async def session_limit(url: str, timeout_s: float = 30.0) -> int | None:
    """How many sessions the server at `url` (ws:// or http://) takes at once, from its /health;
    None when it does not say (or cannot be reached: the episode that follows says why)."""
    import httpx

    base = url.replace("ws://", "http://", 1).replace("wss://", "https://", 1).rstrip("/")
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as http:
            limit = (await http.get(base + "/health")).json().get("sessions", {}).get("max")
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return int(limit) if isinstance(limit, int) and limit > 0 else None


@dataclass
class _Journal:
    reset_kwargs: dict
    actions: list[PaintAction] = field(default_factory=list)


class BrushworkEnv(EnvClient[PaintAction, PaintObservation, PaintState]):
    def __init__(self, base_url: str | None = None, message_timeout_s: float | None = None,
                 reconnect_wait_s: float = 60.0, **kwargs: Any):
        """`message_timeout_s`: how long to wait for a reply (default: `step_timeout_s()` of the
        default scoring options; pass `step_timeout_s(options)` for the server's own).
        `reconnect_wait_s`: how long a reconnect keeps trying while the server (re)starts."""
        super().__init__(base_url=base_url, message_timeout_s=message_timeout_s or step_timeout_s(), **kwargs)
        self._reconnect_wait_s = reconnect_wait_s
        self._journal: _Journal | None = None
        self._journal_ws = None        # the socket (server session) the journal was played on
        self.reconnects = 0

    # -- OpenEnv's three conversions ------------------------------------------------------------
    def _step_payload(self, action: PaintAction) -> dict[str, Any]:
        return action.model_dump(exclude_defaults=False)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[PaintObservation]:
        observation = PaintObservation(**payload.get("observation", {}), done=payload.get("done", False),
                                       reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False),
                          metadata=payload.get("metadata"))

    def _parse_state(self, payload: dict[str, Any]) -> PaintState:
        return PaintState(**payload)

    # -- calls with reconnect, replay and one retry ------------------------------------------------
    async def _reset_async(self, **kwargs: Any) -> StepResult[PaintObservation]:
        result = await self._call(lambda: EnvClient._reset_async(self, **kwargs), replay=False)
        obs = result.observation
        self._journal = _Journal({**kwargs, "seed": obs.seed, "episode_id": obs.episode_id})
        self._journal_ws = self._ws
        return result

    async def _step_async(self, action: PaintAction | dict, **kwargs: Any) -> StepResult[PaintObservation]:
        if not isinstance(action, PaintAction):
            action = PaintAction.model_validate(action)     # a wrong shape fails here, naming the field
        result = await self._call(lambda: EnvClient._step_async(self, action), replay=True)
        if self._journal is not None:
            self._journal.actions.append(action)
        return result

    async def end_episode(self) -> None:
        """Release the server's session now that the episode is over (close the socket; the next
        `reset` connects again), instead of holding it until the server reclaims it idle. The
        sync client (`.sync()`) runs it on its own loop."""
        self._journal, self._journal_ws = None, None
        await self._disconnect_async()

    async def _state_async(self) -> PaintState:
        return await self._call(lambda: EnvClient._state_async(self), replay=True)

    async def _connect_async(self):
        """OpenEnv's, with a refused or failed connection an `EnvConnectionError` naming the fix."""
        try:
            return await EnvClient._connect_async(self)
        except ConnectionError as e:
            raise EnvConnectionError(f"cannot reach {self._base_url}: {e.__cause__ or e} (start `brushwork serve` "
                                     "there, or check the URL and port)") from e

    async def _call(self, operation, replay: bool):
        for attempt in (1, 2):
            try:
                if replay and self._journal is not None and not self._on_journal_session():
                    await self._replay()
                return await operation()
            except TimeoutError as e:
                # OpenEnv dropped the socket (a late reply would desync it); the next call replays.
                raise EnvConnectionError(f"no reply within {self._message_timeout:g}s; the server may be "
                                         "overloaded (raise message_timeout_s or lower the load)") from e
            except (ConnectionClosed, InvalidHandshake, OSError, EnvConnectionError) as e:
                if attempt == 2:
                    raise EnvConnectionError(f"lost the connection to {self._base_url} again after "
                                             f"reconnecting: {e} (check that `brushwork serve` is still up "
                                             "and reachable at that URL)") from e
            except EnvServerError as e:
                if attempt == 2 or SESSION_RECLAIMED not in str(e):
                    raise
            await self._reopen()

    def _on_journal_session(self) -> bool:
        from websockets.protocol import State

        return self._ws is not None and self._ws is self._journal_ws and self._ws.state is State.OPEN

    async def _replay(self) -> None:
        """Rebuild the episode on a new server session: same reset, same actions, same renders."""
        journal = self._journal
        await EnvClient._reset_async(self, **journal.reset_kwargs)
        for action in journal.actions:
            await EnvClient._step_async(self, action)
        self._journal_ws = self._ws

    async def _reopen(self) -> None:
        """Drop the socket and connect again, waiting up to `reconnect_wait_s` for the server."""
        if self._ws is not None:
            ws, self._ws, self._ws_loop = self._ws, None, None
            self._schedule_socket_close(ws, notify_server=True)
        self.reconnects += 1
        deadline = time.monotonic() + self._reconnect_wait_s
        while True:
            try:
                await EnvClient._connect_async(self)
                return
            except ConnectionError as e:
                if time.monotonic() >= deadline:
                    raise EnvConnectionError(f"cannot reach {self._base_url} after {self._reconnect_wait_s:g}s: "
                                             f"{e} (start `brushwork serve` there, check the URL, or raise "
                                             "reconnect_wait_s)") from e
                await asyncio.sleep(0.5)

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        """OpenEnv's, with typed errors that keep the server's error code."""
        try:
            await self._send(message)
        except ConnectionClosed:
            pass    # a refusing server sends an error frame, then closes: read it below
        response = await self._receive()
        if response.get("type") == "error":
            data = response.get("data", {})
            message_text = data.get("message", "unknown error")
            if data.get("code") == "CAPACITY_REACHED":
                message_text += " (raise the server's --max-sessions, or close idle clients)"
            if data.get("errors"):      # a message the server could not read: say which part
                message_text += ": " + "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg')}"
                                                 for e in data["errors"])
            raise EnvServerError(message_text, str(data.get("code", "UNKNOWN")))
        return response


def decode_image(observation: PaintObservation) -> bytes | None:
    """The PNG bytes of an observation's render, if it carries one."""
    import base64

    return base64.b64decode(observation.image_png_b64) if observation.image_png_b64 else None


__all__ = ["BrushworkEnv", "EnvConnectionError", "EnvServerError", "decode_image", "step_timeout_s"]
