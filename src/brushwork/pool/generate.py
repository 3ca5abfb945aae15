"""Candidate generation: new paintings for a pool store, for a person to rate.

Two sources, both used by `brushwork pool generate`:

- `generate_openai`: any OpenAI-compatible chat model writes a sketch per subject; the sketch
  is gated and rendered; then a critic (a VLM, by default the same endpoint) looks at the
  render and the gate's verdict and writes a critique, and the model revises. Every round
  whose sketch passes the gate becomes an item whose provenance links it to its parent.
- `generate_procedural`: the offline procedural painter (`brushwork.painter`).

Both return a `Generation`: the new item ids (it is a `list[str]`) plus one `Candidate` per
sketch tried, so an unreachable endpoint, a reply without a sketch or a gate failure is a
line in the summary, never an exception.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from brushwork.core.chat import ChatClient, Retry, image_part
from brushwork.errors import ConfigError, ModelUnavailable
from brushwork.gate import Gate, GateReport
from brushwork.pool.store import PoolStore


@dataclass(frozen=True)
class Candidate:
    """One sketch tried for one subject: what became of it."""

    subject: str
    sample: int = 0
    critique_round: int = 0
    item_id: str | None = None          # set when the sketch passed the gate and was added
    violations: tuple[str, ...] = ()    # gate rule ids when it did not pass
    error: str | None = None            # an infrastructure failure: endpoint, renderer
    critique: str | None = None         # the critique this round's sketch answered

    @property
    def added(self) -> bool:
        return self.item_id is not None

    def describe(self) -> str:
        head = f"{self.subject} #{self.sample} round {self.critique_round}"
        if self.item_id:
            return f"{head}: added {self.item_id}"
        return f"{head}: {self.error or 'gate: ' + ', '.join(self.violations)}"


class Generation(list):
    """The ids of the items added (a `list[str]`), with every attempt behind them."""

    def __init__(self, attempts: Sequence[Candidate] = ()):
        self.attempts: list[Candidate] = list(attempts)
        super().__init__(a.item_id for a in self.attempts if a.item_id)

    @property
    def errors(self) -> list[str]:
        """One line per attempt that added nothing (infrastructure errors and gate failures)."""
        return [a.describe() for a in self.attempts if not a.added]

    def summary(self) -> str:
        return f"{len(self)} item(s) added from {len(self.attempts)} attempt(s), {len(self.errors)} without an item"


Progress = Callable[[int, int], None]   # (done, total), as everywhere in brushwork


@dataclass(frozen=True)
class PainterPrompts:
    """The prompts of `prompts/painter.yaml` (see that file)."""

    version: str
    system: str
    user: str
    critic_system: str
    critic_user: str
    revise: str

    @classmethod
    @cache
    def load(cls) -> PainterPrompts:
        import yaml

        text = resources.files("brushwork.pool").joinpath("prompts/painter.yaml").read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        return cls(**{k: data[k].strip() if k != "version" else data[k] for k in cls.__dataclass_fields__})

    def user_text(self, subject: str) -> str:
        return self.user.format(subject=with_article(subject))


def with_article(subject: str) -> str:
    """"peach hibiscus" -> "a peach hibiscus"; plurals and phrases with an article stay as they are."""
    words = subject.strip().split()
    if not words or words[0].lower() in ("a", "an", "the", "some", "two", "three") or \
            (words[-1].endswith("s") and not words[-1].endswith(("us", "ss"))):
        return subject.strip()
    vowel = words[0][0].lower() in "aeiou" and not words[0].lower().startswith(("eu", "uni", "use"))
    return f"{'an' if vowel else 'a'} {subject.strip()}"


# -- (b) the procedural painter --------------------------------------------------------------
def generate_procedural(store: PoolStore, renderer, n: int, seed: int = 0, subjects: Sequence[str] | None = None,
                        on_progress: Progress | None = None, *, gate: Gate) -> Generation:
    """Paint `n` procedural paintings (seeds `seed`..`seed + n - 1`, cycling through
    `subjects` when given), render them with a `SyncRenderer` at `gate`'s canvas size, add those
    that pass `gate`."""
    from brushwork.painter import paint

    prompts = PainterPrompts.load()
    paintings = [paint(seed + i, subjects[i % len(subjects)] if subjects else None) for i in range(n)]
    attempts: dict[int, Candidate] = {}
    lock = threading.Lock()

    def finished(i: int, render) -> None:   # called as each render finishes, on the renderer's thread
        painting, report = paintings[i], gate.check(paintings[i].code, render=render)
        attempt = Candidate(painting.subject, i, violations=report.ids,
                          error=f"render {render.status}: {render.detail}" if report.infra_failure else None)
        if report.passed:
            item = store.add_item(render.png, source=painting.code, subject=painting.subject,
                                  prompt=prompts.user_text(painting.subject), generator="procedural",
                                  provenance={"seed": seed + i, "domain": painting.domain, "params": painting.params})
            attempt = Candidate(painting.subject, i, item_id=item)
        with lock:
            attempts[i] = attempt
            if on_progress is not None:
                on_progress(len(attempts), n)

    renderer.render_many([p.code for p in paintings], seed=0, size=gate.config.canvas_size, on_done=finished)
    return Generation([attempts[i] for i in sorted(attempts)])


# -- (a) a chat model, with critique rounds ------------------------------------------------------
@dataclass
class ChatEndpoint:
    """An OpenAI-compatible /v1/chat/completions endpoint (vLLM, TGI, hosted providers).
    `base_url` ends before `/chat/completions` (usually in `/v1`). The key is sent, never shown."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.8
    max_tokens: int = 4096
    retry: Retry | None = None   # None: 4 attempts, backoff from 1 s, 300 s per answer

    def __post_init__(self):
        self.base_url = self.base_url.rstrip("/")
        self.retry = self.retry or Retry(attempts=4, backoff_s=1.0, timeout_s=300.0)
        self._chat = ChatClient(self.base_url, self.model, self.api_key, self.retry, ModelUnavailable)

    async def chat(self, client, messages: list[dict], temperature: float | None = None) -> str:
        """The reply's text; `client` is the `httpx.AsyncClient` the whole generation shares."""
        answer = await self._chat.complete(messages, max_tokens=self.max_tokens, client=client,
                                           temperature=self.temperature if temperature is None else temperature)
        if answer.text is None:
            raise ModelUnavailable(f"model {self.model!r} at {self.base_url} answered without a message (is it "
                                   "an OpenAI-compatible /chat/completions endpoint? check the URL ends in /v1)")
        return answer.text


async def generate_openai(store: PoolStore, renderer, subjects: Sequence[str], *, base_url: str, model: str,
                          api_key: str | None = None, rounds: int = 3, critic_base_url: str | None = None,
                          critic_model: str | None = None, samples_per_subject: int = 1,
                          on_progress: Progress | None = None, temperature: float = 0.8,
                          critic_api_key: str | None = None, retry: Retry | None = None,
                          concurrency: int = 4, gate: Gate) -> Generation:
    """Ask a chat model for a sketch per subject (and sample), then `rounds` critique-and-revise
    rounds (0: the first draft only). `renderer` is a started async `brushwork.render.Renderer`;
    `gate` judges every sketch (and sets the canvas size it is rendered at).
    Items carry generator ``openai:<model>`` and provenance ``{model, prompt, critique_round,
    parent, critique}``: `parent` is the previous round's item (None for the draft, or when the
    previous round's sketch did not pass the gate), `critique` the text that round answered."""
    import httpx

    if rounds < 0 or samples_per_subject < 1:
        raise ConfigError(f"rounds must be >= 0 and samples_per_subject >= 1, got {rounds} and {samples_per_subject}")
    for url in (base_url, critic_base_url or base_url):
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"endpoint URL must start with http:// or https:// (e.g. http://127.0.0.1:8000/v1), "
                              f"got {url!r}")
    api_key = api_key or os.environ.get("OPENAI_API_KEY")
    painter = ChatEndpoint(base_url, model, api_key, temperature, retry=retry)
    critic = ChatEndpoint(critic_base_url or base_url, critic_model or model,
                          critic_api_key or (api_key if critic_base_url in (None, base_url) else None),
                          temperature=0.0, max_tokens=400, retry=retry)
    slots = asyncio.Semaphore(max(1, concurrency))
    async with httpx.AsyncClient() as client:
        total = len(subjects) * samples_per_subject * (rounds + 1)
        session = _Session(store, renderer, gate, client, painter, critic, PainterPrompts.load(), on_progress,
                           total)

        async def one(subject: str, sample: int) -> list[Candidate]:
            async with slots:
                return await session.chain(subject, sample, rounds)
        chains = await asyncio.gather(*(one(s, k) for s in subjects for k in range(samples_per_subject)))
    return Generation([a for chain in chains for a in chain])


@dataclass
class _Session:
    """What every chain of one `generate_openai` call shares."""

    store: PoolStore
    renderer: object
    gate: Gate
    client: object
    painter: ChatEndpoint
    critic: ChatEndpoint
    prompts: PainterPrompts
    on_progress: Progress | None
    total: int = 0      # rounds planned over all chains
    done: int = 0       # rounds settled: tried, or skipped because their chain stopped

    async def chain(self, subject: str, sample: int, rounds: int) -> list[Candidate]:
        """The first draft, then `rounds` revisions; stops at the first infrastructure failure."""
        prompt = self.prompts.user_text(subject)
        messages = [{"role": "system", "content": self.prompts.system}, {"role": "user", "content": prompt}]
        attempts: list[Candidate] = []
        parent = critique = None
        tried = 0
        for round_ in range(rounds + 1):
            try:
                reply = await self.painter.chat(self.client, messages)
                gated = await self.gate.run(reply, self.renderer)
            except ModelUnavailable as e:
                attempts.append(Candidate(subject, sample, round_, error=str(e), critique=critique))
                break
            item = None
            if gated.report.passed:
                item = self.store.add_item(
                    gated.render.png, source=gated.sketch.code, subject=subject, prompt=prompt,
                    generator=f"openai:{self.painter.model}",
                    provenance={"model": self.painter.model, "prompt": prompt, "prompt_version": self.prompts.version,
                                "critique_round": round_, "parent": parent, "critique": critique})
            error = f"render {gated.render.status}" if gated.report.infra_failure else None
            attempts.append(Candidate(subject, sample, round_, item, () if item else gated.report.ids, error, critique))
            tried += 1
            self._settled(1)
            if round_ == rounds or error:
                break
            try:
                critique = await self._critique(subject, gated)
            except ModelUnavailable as e:
                attempts.append(Candidate(subject, sample, round_ + 1, error=f"critic: {e}"))
                break
            parent = item
            code = gated.sketch.code if gated.sketch else "// (the reply contained no sketch)"
            messages = [messages[0], {"role": "user", "content": self.prompts.revise.format(
                subject=subject, code=code.rstrip(), critique=critique, verdict=_verdict(gated.report))}]
        self._settled(rounds + 1 - tried)   # a chain that stopped early skips its remaining rounds
        return attempts

    async def _critique(self, subject: str, gated) -> str:
        """The critic's words on a render; without a render, the gate's verdict is the critique."""
        verdict = _verdict(gated.report)
        if gated.render is None or gated.render.png is None:
            return f"The sketch could not be painted. {verdict}"
        messages = [{"role": "system", "content": self.prompts.critic_system},
                    {"role": "user", "content": [
                        {"type": "text", "text": self.prompts.critic_user.format(subject=subject, verdict=verdict)},
                        image_part(gated.render.png)]}]
        text = (await self.critic.chat(self.client, messages)).strip()
        return text or f"(the critic said nothing) {verdict}"

    def _settled(self, rounds: int) -> None:
        self.done += rounds
        if self.on_progress is not None and rounds:
            self.on_progress(self.done, self.total)


def _verdict(report: GateReport) -> str:
    if report.passed:
        return "passed (the sketch is allowed)."
    return "failed: " + "; ".join(f"{v.id}: {v.message}" for v in report.violations[:6])
