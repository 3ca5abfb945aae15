"""Real HTTP servers on 127.0.0.1 for tests: uvicorn in a thread, port chosen by the OS.

`openai_judge_app` speaks OpenAI's /v1/chat/completions with image input and, like vLLM with
structured outputs, answers within the request's JSON schema. The VLM behind it is the one part
that cannot run here, so it is a stand-in (`FakeVLMJudge`): it checks the colour the question
asks for, then prefers the image with more paint. Its misbehaviours are chosen per test.
"""


import asyncio
import base64
import io
import json
import socket
import threading
import time
from contextlib import contextmanager

import numpy as np
import uvicorn
from PIL import Image


def _pixels(data_url: str) -> np.ndarray:
    png = base64.b64decode(data_url.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)


def _ink(data_url: str) -> float:
    return float(255 - _pixels(data_url).mean())


# The colour words the stand-in reads in a question, and the paint it takes each to mean.
COLOURS = {"red": (200, 40, 40), "peach": (245, 170, 130), "coral": (240, 110, 80), "yellow": (235, 205, 60),
           "magenta": (200, 40, 150), "blue": (50, 80, 200), "green": (60, 150, 70), "purple": (120, 60, 160)}
PAPER = (250, 246, 238)


def _paint_colour(data_url: str) -> str | None:
    """The colour word nearest the painting's mean paint (pixels well away from the paper)."""
    rgb = _pixels(data_url).reshape(-1, 3)
    paint = rgb[np.abs(rgb - PAPER).max(axis=1) > 40]
    if not len(paint):
        return None
    mean = paint.mean(axis=0)
    return min(COLOURS, key=lambda c: float(np.linalg.norm(mean - COLOURS[c])))


def _matches(data_url: str, question: str) -> bool:
    """The stand-in's adherence: some paint, in the colour the question names (any, when it names none)."""
    asked = [c for c in COLOURS if c in question.lower().split()]
    colour = _paint_colour(data_url)
    return colour is not None and (not asked or colour in asked)


class FakeVLMJudge:
    """Stand-in for a VLM's weights behind a server that enforces ``response_format``: a request
    without a JSON schema is refused (HTTP 400); an answer is written in the schema's property
    order. It weighs adherence first (the colour the question names, `_matches`), then prefers the
    image with more paint (the first, on equal paint). mode: good | malformed (prose, always) |
    off_schema (the first `fail_first` answers outside the schema, then good) | biased (always
    image A) | flaky (the first `fail_first` requests get 503) | refuse (401)."""

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
        form = body.get("response_format") or {}
        schema = (form.get("json_schema") or {}).get("schema")
        if form.get("type") != "json_schema" or not isinstance(schema, dict) or "properties" not in schema:
            return 400, {"error": {"message": "this server answers only within a JSON schema: send response_format "
                                              "{type: json_schema, json_schema: {schema: ...}}"}}
        content = body["messages"][1]["content"]
        images = [part["image_url"]["url"] for part in content if part["type"] == "image_url"]
        question = " ".join(part["text"] for part in content if part["type"] == "text")
        if self.mode == "malformed":
            text = "I think the first one is nicer, honestly."
        elif self.mode == "off_schema" and n <= self.fail_first:
            text = '{"reason": "both are lovely", "winner": "tie"}'
        else:
            text = json.dumps(self._verdict(schema, images, question))
        return 200, {"id": f"x{n}", "object": "chat.completion", "model": body.get("model"),
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                  "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}

    def _verdict(self, schema: dict, images: list[str], question: str) -> dict:
        (a, b), (ink_a, ink_b) = [_matches(i, question) for i in images], [_ink(i) for i in images]
        if self.mode == "biased":
            winner, why = "A", "always the first"
        elif a != b:
            winner, why = ("A" if a else "B"), "only one is what was asked"
        else:
            winner, why = ("A" if ink_a >= ink_b else "B"), f"more paint: {ink_a:.1f} vs {ink_b:.1f}"
        said = {"winner": winner, "a_matches_request": a, "b_matches_request": b, "reason": why}
        return {key: said[key] for key in schema["properties"]}


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
    deadline = time.monotonic() + 120     # a hang guard; a busy machine starts slowly
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
