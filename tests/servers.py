"""Real HTTP servers on 127.0.0.1 for tests: uvicorn in a thread, port chosen by the OS.

`openai_judge_app` speaks OpenAI's /v1/chat/completions with image input. The VLM behind
it is the one part that cannot run here, so it is a stand-in (`FakeVLM...`): it prefers the
image with more paint. Its misbehaviours are chosen per test.
"""


import asyncio
import base64
import io
import socket
import threading
import time
from contextlib import contextmanager

import numpy as np
import uvicorn
from PIL import Image


def _ink(data_url: str) -> float:
    png = base64.b64decode(data_url.split(",", 1)[1])
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    return float(255 - rgb.mean())


class FakeVLMJudge:
    """Stand-in for a VLM's weights. mode: good | malformed | biased | flaky | slow | refuse."""

    def __init__(self, mode: str = "good", fail_first: int = 0, delay_s: float = 0.0):
        self.mode, self.fail_first, self.delay_s = mode, fail_first, delay_s
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def answer(self, body: dict) -> tuple[int, dict]:
        with self.lock:
            self.requests.append(body)
            n = len(self.requests)
        if self.mode == "flaky" and n <= self.fail_first:
            return 503, {"error": "overloaded"}
        if self.mode == "refuse":
            return 401, {"error": "bad key"}
        images = [part["image_url"]["url"] for part in body["messages"][1]["content"] if part["type"] == "image_url"]
        if self.mode == "malformed":
            text = "I think the first one is nicer, honestly."
        elif self.mode == "biased":
            text = '{"reason": "always the first", "winner": "first"}'
        else:
            a, b = _ink(images[0]), _ink(images[1])
            winner = "tie" if abs(a - b) < 0.5 else ("first" if a > b else "second")
            text = f'```json\n{{"reason": "more paint: {a:.1f} vs {b:.1f}", "winner": "{winner}"}}\n```'
        return 200, {"id": f"x{n}", "object": "chat.completion", "model": body.get("model"),
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                  "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


def openai_judge_app(vlm: FakeVLMJudge):
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        vlm.last_auth = request.headers.get("authorization")
        if vlm.delay_s:
            await asyncio.sleep(vlm.delay_s)
        status, payload = vlm.answer(body)
        return JSONResponse(payload, status_code=status)

    return app


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(app):
    """Run an ASGI app on 127.0.0.1 in a thread; yields its base URL."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
