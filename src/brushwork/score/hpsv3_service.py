"""`brushwork serve-hpsv3`: HPSv3 as a small HTTP service for a GPU host.

HPSv3 (a 7B Qwen2-VL-based human-preference model) pins transformers 4.45.2, which TRL
cannot live with, so it runs in its own virtualenv and process:

    python -m venv hps && hps/bin/pip install hpsv3 fastapi uvicorn brushwork --no-deps
    hps/bin/brushwork serve-hpsv3 --host 0.0.0.0 --port 8100 --device cuda

POST /score {"images": [base64 PNG, ...], "prompts": ["...", ...]} -> {"scores": [sigmoid(mu/4)], "mu": [...]}
GET /health -> {"status": "ok" | "loading" | "error", "model_loaded": bool, "detail": str}

One prompt per image (each painting is scored for its own task's prompt), up to 64 a request,
scored in one call of the inferencer; the model runs one forward pass at a time (requests are served
in threads, and two passes at once would share one GPU's memory for no gain). The model is
loaded lazily on the first request (or at start with --preload), so /health answers at once.
Tests run the real app with a stand-in inferencer (no GPU here).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import math
import threading
from typing import Protocol

from pydantic import BaseModel, Field, model_validator

from brushwork.errors import ConfigError, SetupError


class Inferencer(Protocol):
    def reward(self, prompts: list[str], image_paths: list) -> list: ...


MAX_IMAGES = 64


class ScoreRequest(BaseModel):
    model_config = {"extra": "forbid"}
    images: list[str] = Field(..., min_length=1, max_length=MAX_IMAGES, description="base64-encoded PNG images")
    prompts: list[str] = Field(..., min_length=1, max_length=MAX_IMAGES,
                               description="the prompt each image is scored for, in the same order")

    # ConfigError is a ValueError: pydantic turns it into the 422 naming the field.
    @model_validator(mode="after")
    def _one_prompt_per_image(self):
        if len(self.prompts) != len(self.images):
            raise ConfigError(f"{len(self.images)} images and {len(self.prompts)} prompts: give one prompt per image")
        if any(len(p) > 2000 for p in self.prompts):
            raise ConfigError("a prompt is over 2000 characters: shorten it")
        return self


class ScoreResponse(BaseModel):
    scores: list[float]
    mu: list[float]


def load_hpsv3(device: str = "cuda", checkpoint: str | None = None) -> Inferencer:
    """The real loader (needs the `hpsv3` package, its weights and a GPU)."""
    try:
        from hpsv3 import HPSv3RewardInferencer
    except ImportError as e:
        raise SetupError("hpsv3 is not installed in this environment: pip install hpsv3 "
                         "(in a separate virtualenv: it pins transformers 4.45.2)") from e
    kwargs = {"device": device}
    if checkpoint:
        kwargs["checkpoint_path"] = checkpoint
    return HPSv3RewardInferencer(**kwargs)


def _mu(value) -> float:
    """HPSv3 returns (mu, sigma) per image, as tensors or lists."""
    first = value[0] if hasattr(value, "__len__") and not isinstance(value, (int, float)) else value
    return float(first.item() if hasattr(first, "item") else first)


def create_app(loader=load_hpsv3, preload: bool = False, **loader_kwargs):
    from fastapi import FastAPI, HTTPException
    from PIL import Image

    state = {"model": None, "status": "loading" if preload else "idle", "detail": ""}
    lock = threading.Lock()      # one load
    forward = threading.Lock()   # one forward pass at a time

    def model():
        with lock:
            if state["model"] is None:
                state["status"] = "loading"
                try:
                    state["model"] = loader(**loader_kwargs)
                except Exception as e:
                    state["status"], state["detail"] = "error", str(e)[:500]
                    raise
                state["status"] = "ok"
            return state["model"]

    def load_quietly():
        with contextlib.suppress(Exception):  # the failure is kept in `state` for /health
            model()

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        if preload:
            asyncio.get_running_loop().run_in_executor(None, load_quietly)
        yield

    app = FastAPI(title="brushwork HPSv3 scorer", lifespan=lifespan)

    @app.get("/health")
    def health():
        return {"status": state["status"], "model_loaded": state["model"] is not None, "detail": state["detail"]}

    @app.post("/score", response_model=ScoreResponse)
    def score(req: ScoreRequest):
        try:
            images = [Image.open(io.BytesIO(base64.b64decode(s, validate=True))).convert("RGB") for s in req.images]
        except Exception as e:
            raise HTTPException(422, f"images must be base64-encoded PNG/JPEG: {e}") from e
        try:
            m = model()
        except Exception as e:
            raise HTTPException(503, f"HPSv3 could not be loaded: {e}") from e
        # HPSv3RewardInferencer.reward takes paths or PIL images and returns (mu, sigma) per image.
        with forward:
            mus = [_mu(r) for r in m.reward(prompts=list(req.prompts), image_paths=images)]
        return ScoreResponse(scores=[1 / (1 + math.exp(-mu / 4)) for mu in mus], mu=mus)

    return app
