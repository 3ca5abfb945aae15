"""Who answers: judge backends (`taste`, `openai`) and aesthetic backends (`taste`, `hpsv3`).

Remote backends hold one HTTP client, bound to the event loop it was opened on: `start` opens
it and `aclose` closes it, both on the pipeline's loop (`Pipeline.start` / `close`). They retry
with exponential backoff on connection errors, timeouts, 429 and 5xx, then raise
`JudgeUnavailable` / `ScorerUnavailable` (an infrastructure failure: the reward becomes None,
never 0). API keys are sent, never logged or put in error messages.
"""

from __future__ import annotations

import asyncio
import base64
import os

from brushwork.core.chat import ChatClient, Retry, image_part, post_json
from brushwork.errors import ConfigError, JudgeUnavailable, ScorerUnavailable
from brushwork.score.judge import Answer, JudgePrompt
from brushwork.score.taste.model import TasteModel

__all__ = ["HPSv3Client", "JudgeUnavailable", "OpenAIJudge", "Retry", "ScorerUnavailable", "TasteAesthetic",
           "TasteJudge"]


class TasteJudge:
    """The offline judge: the taste model's preference probability, with a tie band."""

    remote = False

    def __init__(self, model: TasteModel, tie_margin: float = 0.1):
        self.model = model
        self.tie_margin = tie_margin
        self.model_id = f"taste:{model.snapshot}:{model.digest[:10]}:{tie_margin}"   # a verdict cache key

    async def ask(self, first_png: bytes, second_png: bytes, prompt: JudgePrompt, subject: str) -> Answer:
        p = await asyncio.to_thread(self.model.prefer, first_png, second_png)  # an embedding takes ~0.2 s
        winner = "first" if p > 0.5 + self.tie_margin else "second" if p < 0.5 - self.tie_margin else "tie"
        return Answer(f'{{"reason": "taste model: P(first preferred) = {p:.2f}", "winner": "{winner}"}}',
                      probability=p)

    def prefetch(self, png: bytes) -> None:
        self.model.utility(png)   # fills the model's feature cache (its bounded utility is what answers)


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
        self.json_mode = json_mode
        self.max_tokens = max_tokens
        self.model_id = f"openai:{self.model}"
        self._chat = ChatClient(self.base_url, self.model, self._api_key, retry, JudgeUnavailable,
                                what=f"judge at {self.base_url}")

    @property
    def retry(self) -> Retry:
        return self._chat.retry

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIJudge(base_url={self.base_url!r}, model={self.model!r})"

    async def ask(self, first_png: bytes, second_png: bytes, prompt: JudgePrompt, subject: str) -> Answer:
        messages = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": [
                {"type": "text", "text": "Image 1:"}, image_part(first_png),
                {"type": "text", "text": "Image 2:"}, image_part(second_png),
                {"type": "text", "text": prompt.user_text(subject)},
            ]},
        ]
        answer = await self._chat.complete(messages, temperature=0, max_tokens=self.max_tokens,
                                           response_format={"type": "json_object"} if self.json_mode else None)
        # a malformed body is an unparsed answer, not an outage
        return Answer(answer.text or "", answer.seconds, answer.tokens)

    async def start(self) -> None:
        await self._chat.start()

    async def aclose(self) -> None:
        await self._chat.aclose()


class TasteAesthetic:
    """The offline aesthetic: the taste model's absolute score in [0, 1]."""

    name = "taste"
    remote = False

    def __init__(self, model: TasteModel):
        self.model = model

    async def score(self, png: bytes, prompt: str = "", domain: str = "") -> float:
        """The painting's aesthetic as a painting of the task's `domain` (`TasteModel.utility`)."""
        return await asyncio.to_thread(self.model.aesthetic, png, domain)

    def prefetch(self, png: bytes) -> None:
        self.model.utility(png)


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

    async def start(self) -> None:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient()

    async def score(self, png: bytes, prompt: str = "", domain: str = "") -> float:
        """HPSv3's score of the painting for `prompt` (the domain is the prompt's business here)."""
        await self.start()
        data = await post_json(self._client, f"{self.base_url}/score",
                               {"images": [base64.b64encode(png).decode()], "prompt": prompt or self.prompt},
                               {}, self.retry, f"HPSv3 service at {self.base_url}", ScorerUnavailable)
        try:
            return float(data["scores"][0])
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise ScorerUnavailable(f"HPSv3 service at {self.base_url} answered without scores: {str(data)[:200]} "
                                    "(is that URL a `brushwork serve-hpsv3` service?)") from e

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
