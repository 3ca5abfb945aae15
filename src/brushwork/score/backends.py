"""Who answers: judge backends (`taste`, `openai`) and aesthetic backends (`taste`, `hpsv3`).

Remote backends retry with exponential backoff on connection errors, timeouts, 429 and 5xx,
then raise `JudgeUnavailable` / `ScorerUnavailable` (an infrastructure failure: the reward
becomes None, never 0). API keys are sent, never logged or put in error messages.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import time
from dataclasses import dataclass

from brushwork.errors import BrushworkError, ConfigError
from brushwork.score.judge import Answer, JudgePrompt, JudgeUnavailable
from brushwork.score.taste.model import TasteModel


class ScorerUnavailable(BrushworkError):
    """The aesthetic scorer could not answer after its retries."""


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


@dataclass(frozen=True)
class Retry:
    attempts: int = 4
    backoff_s: float = 0.5
    timeout_s: float = 60.0


async def _post_json(client, url: str, payload: dict, headers: dict, retry: Retry, what: str,
                     error_cls: type[Exception]) -> dict:
    import httpx

    last = "no attempt"
    for attempt in range(retry.attempts):
        if attempt:
            await asyncio.sleep(retry.backoff_s * 2 ** (attempt - 1))
        try:
            response = await client.post(url, json=payload, headers=headers, timeout=retry.timeout_s)
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
    raise error_cls(f"{what} unreachable after {retry.attempts} attempts (last: {last})")


class TasteJudge:
    """The offline judge: the taste model's preference probability, with a tie band."""

    remote = False

    def __init__(self, model: TasteModel, tie_margin: float = 0.1):
        self.model = model
        self.tie_margin = tie_margin
        digest = hashlib.sha256(model.weights.tobytes()).hexdigest()[:10]
        self.model_id = f"taste:{model.snapshot}:{digest}:{tie_margin}"

    async def ask(self, first_png: bytes, second_png: bytes, prompt: JudgePrompt, subject: str) -> Answer:
        p = self.model.prefer(first_png, second_png)
        winner = "first" if p > 0.5 + self.tie_margin else "second" if p < 0.5 - self.tie_margin else "tie"
        return Answer(f'{{"winner": "{winner}", "reason": "taste model: P(first preferred) = {p:.2f}"}}',
                      probability=p)


class OpenAIJudge:
    """Any OpenAI-compatible /v1/chat/completions endpoint with image input (vLLM, TGI, hosted)."""

    remote = True

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 retry: Retry = Retry(), json_mode: bool = False, max_tokens: int = 200):
        self.base_url = (base_url or os.environ.get("BRUSHWORK_JUDGE_BASE_URL") or "").rstrip("/")
        self.model = model or os.environ.get("BRUSHWORK_JUDGE_MODEL") or ""
        self._api_key = api_key or os.environ.get("BRUSHWORK_JUDGE_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not self.base_url or not self.model:
            raise ConfigError("the openai judge needs a base URL and a model: --judge-url / BRUSHWORK_JUDGE_BASE_URL "
                              "and --judge-model / BRUSHWORK_JUDGE_MODEL")
        self.retry = retry
        self.json_mode = json_mode
        self.max_tokens = max_tokens
        self.model_id = f"openai:{self.model}"
        self._client = None

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIJudge(base_url={self.base_url!r}, model={self.model!r})"

    def _http(self):
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient()
        return self._client

    async def ask(self, first_png: bytes, second_png: bytes, prompt: JudgePrompt, subject: str) -> Answer:
        payload = {
            "model": self.model, "temperature": 0, "max_tokens": self.max_tokens,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": [
                    {"type": "text", "text": "Image 1:"},
                    {"type": "image_url", "image_url": {"url": _data_url(first_png)}},
                    {"type": "text", "text": "Image 2:"},
                    {"type": "image_url", "image_url": {"url": _data_url(second_png)}},
                    {"type": "text", "text": prompt.user_text(subject)},
                ]},
            ],
        }
        if self.json_mode:
            payload["response_format"] = {"type": "json_object"}
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        t0 = time.perf_counter()
        data = await _post_json(self._http(), f"{self.base_url}/chat/completions", payload, headers, self.retry,
                                f"judge at {self.base_url}", JudgeUnavailable)
        try:
            text = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            text = ""  # a malformed body is an unparsed answer, not an outage
        tokens = int((data.get("usage") or {}).get("total_tokens") or 0) if isinstance(data, dict) else 0
        return Answer(text if isinstance(text, str) else str(text), time.perf_counter() - t0, tokens)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class TasteAesthetic:
    """The offline aesthetic: the taste model's absolute score in [0, 1]."""

    name = "taste"
    remote = False

    def __init__(self, model: TasteModel):
        self.model = model

    async def score(self, png: bytes, prompt: str = "") -> float:
        return self.model.aesthetic(png)


class HPSv3Client:
    """Client of `brushwork serve-hpsv3` (POST /score): HPSv3 score = sigmoid(mu / 4)."""

    name = "hpsv3"
    remote = True

    def __init__(self, base_url: str | None = None, retry: Retry = Retry(timeout_s=120.0),
                 prompt: str = "a loose watercolour flower"):
        self.base_url = (base_url or os.environ.get("BRUSHWORK_HPSV3_URL") or "").rstrip("/")
        if not self.base_url:
            raise ConfigError("the hpsv3 aesthetic needs the service URL: --hpsv3-url / BRUSHWORK_HPSV3_URL "
                              "(start it on a GPU host with `brushwork serve-hpsv3`)")
        self.retry = retry
        self.prompt = prompt
        self._client = None

    async def score(self, png: bytes, prompt: str = "") -> float:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient()
        data = await _post_json(self._client, f"{self.base_url}/score",
                                {"images": [base64.b64encode(png).decode()], "prompt": prompt or self.prompt},
                                {}, self.retry, f"HPSv3 service at {self.base_url}", ScorerUnavailable)
        try:
            return float(data["scores"][0])
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise ScorerUnavailable(f"HPSv3 service answered without scores: {str(data)[:200]}") from e

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
