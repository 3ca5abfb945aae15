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

from brushwork.core.chat import ChatClient, Retry, image_part, post_json, url_problem
from brushwork.errors import ConfigError, JudgeUnavailable, ScorerUnavailable
from brushwork.score.hpsv3_service import MAX_IMAGES
from brushwork.score.judge import RESPONSE_FORMAT, Answer, JudgePrompt, Reading
from brushwork.score.taste.model import TasteModel

THINKING_OFF = {"enable_thinking": False}   # the judge answers at once, inside its schema

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
        return Answer(probability=p, reading=Reading(winner, reason=f"taste model: P(first preferred) = {p:.2f}"))

    def prefetch(self, png: bytes) -> None:
        self.model.utility(png)   # fills the model's feature cache (its bounded utility is what answers)


class OpenAIJudge:
    """Any OpenAI-compatible /v1/chat/completions endpoint with image input (vLLM, TGI, hosted).

    Every request binds the answer to the judge's JSON schema (``response_format``, strict),
    at temperature 0, with room for the whole answer (`max_tokens`) and the chat template's
    thinking off (``chat_template_kwargs``, read by vLLM; `template_kwargs=None` leaves it out
    for a server that refuses unknown fields)."""

    remote = True

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 retry: Retry = Retry(), max_tokens: int = 512,
                 template_kwargs: dict | None = THINKING_OFF):
        self.base_url = (base_url or os.environ.get("BRUSHWORK_JUDGE_BASE_URL") or "").rstrip("/")
        self.model = model or os.environ.get("BRUSHWORK_JUDGE_MODEL") or ""
        self._api_key = api_key or os.environ.get("BRUSHWORK_JUDGE_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not self.base_url or not self.model:
            raise ConfigError("the openai judge needs a base URL and a model: --judge-url / BRUSHWORK_JUDGE_BASE_URL "
                              "and --judge-model / BRUSHWORK_JUDGE_MODEL")
        if (problem := url_problem(self.base_url)) is not None:
            raise ConfigError(f"judge URL {problem} (--judge-url / BRUSHWORK_JUDGE_BASE_URL)")
        self.max_tokens = max_tokens
        self.template_kwargs = template_kwargs
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
                {"type": "text", "text": "Image A:"}, image_part(first_png),
                {"type": "text", "text": "Image B:"}, image_part(second_png),
                {"type": "text", "text": prompt.user_text(subject)},
            ]},
        ]
        extra = {"chat_template_kwargs": self.template_kwargs} if self.template_kwargs is not None else None
        answer = await self._chat.complete(messages, temperature=0, max_tokens=self.max_tokens,
                                           response_format=RESPONSE_FORMAT, extra=extra)
        # a malformed body is an answer outside the schema, not an outage
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

    async def score(self, png: bytes, subject: str = "", domain: str = "") -> float:
        """The painting's aesthetic as a painting of the task's `domain` (`TasteModel.utility`)."""
        return await asyncio.to_thread(self.model.aesthetic, png, domain)

    def prefetch(self, png: bytes) -> None:
        self.model.utility(png)


HPSV3_PROMPT = "a loose watercolour painting of {subject}"   # what HPSv3 scores a painting of a subject for
HPSV3_NO_SUBJECT = "a loose watercolour flower"              # the recipe's prompt, for a task with no subject


class HPSv3Client:
    """Client of `brushwork serve-hpsv3` (POST /score): HPSv3 score = sigmoid(mu / 4) of the
    painting for the task's prompt (`prompt_for(subject)`).

    Calls made together go as one request: the first waits `batch_window_s` for company, and
    calls made while a request is in flight go in the next one, `max_batch` images at most.
    A failed request fails every call in it with `ScorerUnavailable`."""

    name = "hpsv3"
    remote = True

    def __init__(self, base_url: str | None = None, retry: Retry = Retry(timeout_s=120.0),
                 batch_window_s: float = 0.01, max_batch: int = 16):
        self.base_url = (base_url or os.environ.get("BRUSHWORK_HPSV3_URL") or "").rstrip("/")
        if not self.base_url:
            raise ConfigError("the hpsv3 aesthetic needs the service URL: --hpsv3-url / BRUSHWORK_HPSV3_URL "
                              "(start it on a GPU host with `brushwork serve-hpsv3`)")
        if (problem := url_problem(self.base_url)) is not None:
            raise ConfigError(f"HPSv3 URL {problem} (--hpsv3-url / BRUSHWORK_HPSV3_URL)")
        if not 1 <= max_batch <= MAX_IMAGES:
            raise ConfigError(f"HPSv3 max_batch must be 1..{MAX_IMAGES} (the service's limit), got {max_batch}")
        self.retry = retry
        self.batch_window_s = batch_window_s
        self.max_batch = max_batch
        self._client = None
        self._pending: list[tuple[bytes, str, asyncio.Future]] = []
        self._sender: asyncio.Task | None = None

    @staticmethod
    def prompt_for(subject: str) -> str:
        """The text HPSv3 scores a painting of `subject` against (a subject that names its
        medium, like the scorer's default "a loose watercolour flower", is the prompt as it is)."""
        subject = " ".join(subject.split())
        if not subject:
            return HPSV3_NO_SUBJECT
        return subject if "watercolour" in subject.lower() else HPSV3_PROMPT.format(subject=subject)

    async def start(self) -> None:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient()

    async def score(self, png: bytes, subject: str = "", domain: str = "") -> float:
        """HPSv3's score of the painting for the task's `subject` (the domain is the prompt's business)."""
        await self.start()
        future = asyncio.get_running_loop().create_future()
        self._pending.append((png, self.prompt_for(subject), future))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send())
        return await future

    async def _send(self) -> None:
        await asyncio.sleep(self.batch_window_s)
        while self._pending:
            batch, self._pending = self._pending[:self.max_batch], self._pending[self.max_batch:]
            try:
                scores = await self._post([png for png, _, _ in batch], [prompt for _, prompt, _ in batch])
            except asyncio.CancelledError:
                _fail(batch, ScorerUnavailable("the HPSv3 client was closed while its request was in flight"))
                raise
            except Exception as e:   # every caller in the batch hears of it
                _fail(batch, e)
                continue
            for (*_, future), value in zip(batch, scores):
                if not future.done():
                    future.set_result(value)

    async def _post(self, pngs: list[bytes], prompts: list[str]) -> list[float]:
        what = f"HPSv3 service at {self.base_url}"
        data = await post_json(self._client, f"{self.base_url}/score",
                               {"images": [base64.b64encode(png).decode() for png in pngs], "prompts": prompts},
                               {}, self.retry, what, ScorerUnavailable)
        try:
            scores = [float(s) for s in data["scores"]]
            if len(scores) != len(pngs):
                raise ValueError(f"{len(scores)} scores for {len(pngs)} images")
        except (KeyError, TypeError, ValueError) as e:
            raise ScorerUnavailable(f"{what} answered without one score per image: {str(data)[:200]} "
                                    "(is that URL a `brushwork serve-hpsv3` service?)") from e
        return scores

    async def aclose(self) -> None:
        if self._sender is not None and not self._sender.done():
            self._sender.cancel()
        _fail(self._pending, ScorerUnavailable("the HPSv3 client was closed before its request was sent"))
        self._pending = []
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _fail(batch: list, error: BaseException) -> None:
    for *_, future in batch:
        if not future.done():
            future.set_exception(error)
