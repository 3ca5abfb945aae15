"""The TRL side of the environment: a GRPO reward function and an `environment_factory` class.

`BrushworkReward` follows TRL 1.x's contract: called as
``f(prompts=, completions=, completion_ids=, **columns, trainer_state=, log_metric=, ...)``
it returns one ``float | None`` per completion; ``None`` (an infrastructure failure: render
timeout or crash, judge unreachable) excludes that sample from its group instead of
punishing the policy. Its ``__name__`` is the metric key (``rewards/brushwork/mean``). All
rollouts of one GRPO group (same prompt, same step) share one reference draw through the
group seed. Every term's (and the total's) mean / std / min / max, the gate pass, cheat and
None rates and the paint fraction are logged through TRL's `log_metric` (so every `report_to`
backend gets them: `term_stats`), and the best painting that passed is kept for
`brushwork.train.tracking` to log as an image (`take_best`).

It is async (TRL awaits it, every completion of a batch scored concurrently; `score()` is the
synchronous facade) and scores in-process on one shared pipeline (`brushwork.score.pipeline`) or
through one or more running `brushwork serve` servers (the OpenEnv client; completions go
round-robin): `parallel` slots for the whole run, each with one client per server (never more
at one server than the sessions its /health says it takes), each rollout one episode whose
server session is released when it ends; `close()` closes the clients and
stops the reward's event loop. A completion can be started early, while the rest of its batch
still generates (`start_early`, used by `brushwork.train.overlap`). It pickles (the loop and the
clients are rebuilt lazily). With `film` set, every painting is saved with its code and
ScoreCard (see `brushwork.train.film`), numbered across the processes of a multi-process run.

Where the reward weighs the diversity term (`brushwork.score.diversity`), each group's cards are
rewritten once the whole group is scored (`adjust_group`): a painting that nearly duplicates a
group-mate (or, with `diversity_memory`, one of the best paintings of that prompt's recent steps)
earns less of the term. The cards' weights say whether it is weighed, so in-process and remote
scoring adjust alike.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import math
import sys
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from brushwork.errors import ConfigError, SetupError
from brushwork.score.card import ScoreCard
from brushwork.score.diversity import Memory, adjust_group
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline
from brushwork.score.rollout import Rollout
from brushwork.score.terms import term_names

_SHARED: dict[str, Pipeline] = {}
_SHARED_LOCK = threading.Lock()


def shared_pipeline(options: ScoringOptions | None = None) -> Pipeline:
    """One pipeline per process and options, by value (equal options share one warm renderer
    pool, however many copies of them exist)."""
    key = repr(options or ScoringOptions())
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = Pipeline(options)
        return _SHARED[key]


def close_shared() -> None:
    """Close every shared pipeline of this process (the end of a run): their clients, browsers
    and loops. A later `shared_pipeline` builds a new one."""
    with _SHARED_LOCK:
        pipelines = list(_SHARED.values())
        _SHARED.clear()
    for pipeline in pipelines:
        pipeline.close()


def completion_text(completion) -> str:
    """A completion as text: chat completions are lists of messages (the assistant's last)."""
    if isinstance(completion, list):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                content = message.get("content", "")
                if isinstance(content, list):  # content blocks
                    return "".join(b.get("text", "") for b in content if isinstance(b, dict))
                return str(content or "")
        return ""
    return str(completion or "")


def prompt_text(prompt) -> str:
    """The user's request from a prompt (chat messages or text)."""
    if isinstance(prompt, list):
        users = [m.get("content", "") for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
        return str(users[-1]) if users else ""
    return str(prompt)


def group_seed(prompt, seed, step: int) -> int:
    """Same prompt (and dataset seed) at the same step: the same reference draw."""
    key = f"{seed}|{step}|{prompt!r}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big")


def _unscored(reason: str, passed: bool = False) -> ScoreCard:
    """The card of a completion nothing could score: reward None, the reason in `infra`."""
    return ScoreCard(passed=passed, total=None, terms={}, weights={}, preset=None, infra=reason)


def _stats(values: list[float]) -> tuple[float, float, float, float]:
    """(mean, population std, min, max) of a non-empty list."""
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)), min(values), max(values)


def term_stats(scored: list[ScoreCard]) -> dict[str, float]:
    """What one reward call logs: gate pass / cheat / None rates over every completion; for each
    configured term (`term_names`) and the total, the mean (`brushwork/<term>`, the key `brushwork eval`'s
    curves read) and `brushwork/<term>/std|min|max` over the completions where it is not None
    (std: population; a term with no value is not logged); the mean paint fraction."""
    if not scored:
        return {}
    n = len(scored)
    out = {"brushwork/gate_pass_rate": sum(s.passed for s in scored) / n,
           "brushwork/cheat_rate": sum(s.cheated for s in scored) / n,
           "brushwork/none_rate": sum(s.total is None for s in scored) / n}
    for term in (*term_names(*(s.terms for s in scored)), "total"):
        values = [float(v) for v in (s.total if term == "total" else s.terms.get(term) for s in scored)
                  if v is not None]
        if values:
            mean, std, low, high = _stats(values)
            out.update({f"brushwork/{term}": mean, f"brushwork/{term}/std": std,
                        f"brushwork/{term}/min": low, f"brushwork/{term}/max": high})
    fractions = [s.paint_fraction for s in scored if s.paint_fraction is not None]
    if fractions:
        out["brushwork/paint_fraction"] = sum(fractions) / len(fractions)
    return out


def _stop_loop(loop: asyncio.AbstractEventLoop) -> None:
    if not loop.is_closed():
        loop.call_soon_threadsafe(loop.stop)


@dataclass(frozen=True)
class Job:
    """One completion to score: the reply and the draw it is scored under."""

    reply: str
    seed: int
    group: int          # the group seed: one reference draw per prompt and step
    subject: str | None
    domain: str | None


def make_job(prompt, reply: str, seed, subject, domain, step: int) -> Job:
    """The job of one completion (the reward call and the early start compute it alike)."""
    return Job(reply, int(seed) if seed is not None else group_seed(prompt, None, 0) % 100_000,
               group_seed(prompt, seed, step), subject, domain)


def _column(kwargs: dict, key: str, n: int) -> list:
    return kwargs.get(key) or [None] * n


class BrushworkReward:
    """TRL reward function over the brushwork environment (in-process or remote), awaited by TRL.

    All its async work runs on its own event loop (a thread started on first use and stopped by
    `close()`), whichever loop awaits it: TRL's daemon loop, `asyncio.run`, or `score()` (the sync
    facade). `start_early` begins scoring one completion from another thread while the rest of its
    batch still generates (`brushwork.train.overlap`); the call that follows awaits it."""

    def __init__(self, server_url: str | list[str] | None = None, config: ScoringOptions | None = None,
                 parallel: int = 8, name: str = "brushwork", film: str | None = None,
                 diversity_memory: int = 0):
        self.server_urls = [server_url] if isinstance(server_url, str) else list(server_url or [])
        self.config = config
        self.film = film
        self.parallel = parallel
        self.__name__ = name
        self.last: list[ScoreCard] = []   # the last call's cards, one per completion
        self.last_pngs: list[bytes | None] = []   # and their paintings (the best one is logged as an image)
        self.best: Rollout | None = None  # the best passed painting since the last take_best()
        self.memory = Memory(diversity_memory)   # each prompt's recent best paintings (diversity term)
        self._runtime_init()

    def _runtime_init(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._slots: asyncio.Queue | None = None   # `parallel` remote slots, each one client per server
        self._rooms: dict[str, asyncio.Semaphore] = {}   # per server: the sessions it takes at once
        self._clients: list = []
        self._early: dict[int, tuple[Job, Future]] = {}

    def __getstate__(self):
        state = self.__dict__.copy()
        for key in ("_loop", "_thread", "_lock", "_slots", "_rooms", "_clients", "_early"):
            state.pop(key, None)
        state["last"], state["last_pngs"], state["best"] = [], [], None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._runtime_init()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                # in-process scoring waits on the pipeline's own loop from these threads, `parallel` at a time
                loop.set_default_executor(ThreadPoolExecutor(max(1, self.parallel),
                                                             thread_name_prefix="brushwork-reward"))
                self._thread = threading.Thread(target=loop.run_forever, name="brushwork-reward-loop", daemon=True)
                self._thread.start()
                self._loop = loop
                weakref.finalize(self, _stop_loop, loop)   # a reward dropped without close() stops its thread
            return self._loop

    def _start(self, job: Job, index: int) -> Future:
        return asyncio.run_coroutine_threadsafe(self._score_one(job, index), self._running_loop())

    def start_early(self, index: int, prompt, reply: str, row: dict, step: int) -> None:
        """Begin scoring completion `index` of the batch about to be rewarded (any thread); the
        reward call uses the result when its completion and draw are the same, else scores afresh."""
        job = make_job(prompt, reply, row.get("seed"), row.get("subject"), row.get("domain"), step)
        future = self._start(job, index)
        with self._lock:
            self._early[index] = (job, future)

    def forget_early(self) -> None:
        """Drop early starts no reward call claimed (a new batch begins)."""
        with self._lock:
            self._early.clear()

    def _claim(self, index: int, job: Job) -> Future:
        with self._lock:
            early = self._early.pop(index, None)
        return early[1] if early is not None and early[0] == job else self._start(job, index)

    async def __call__(self, prompts, completions, completion_ids=None, **kwargs) -> list[float | None]:
        state = kwargs.get("trainer_state")
        step = int(getattr(state, "global_step", 0) or 0)
        n = len(completions)
        seeds, subjects, domains = (_column(kwargs, key, n) for key in ("seed", "subject", "domain"))
        jobs = [make_job(prompts[i], completion_text(completions[i]), seeds[i], subjects[i], domains[i], step)
                for i in range(n)]
        futures = [self._claim(i, job) for i, job in enumerate(jobs)]
        self.forget_early()
        scored = await asyncio.gather(*(asyncio.wrap_future(f) for f in futures))
        cards, pngs = [c for c, _ in scored], [png for _, png in scored]
        self.last, self.last_pngs = self._diversify(cards, pngs, jobs, prompts), pngs
        rollouts = self._rollouts(step + 1, prompts, jobs)
        self._keep_best(rollouts)
        self._log(kwargs.get("log_metric"), kwargs.get("log_extra"))
        if self.film:
            self._record(rollouts)
        return [c.total for c in self.last]

    def score(self, prompts, completions, **kwargs) -> list[float | None]:
        """The synchronous facade: the reward call, waited for (from code that has no event loop)."""
        call = self(prompts=prompts, completions=completions, **kwargs)
        return asyncio.run_coroutine_threadsafe(call, self._running_loop()).result()

    def _diversify(self, cards: list[ScoreCard], pngs: list, jobs, prompts) -> list[ScoreCard]:
        """Each group's (one prompt at this step: one group seed) cards with the diversity term set."""
        groups: dict[int, list[int]] = {}
        for i, job in enumerate(jobs):
            groups.setdefault(job.group, []).append(i)
        out = list(cards)
        for members in groups.values():
            adjusted = adjust_group([cards[i] for i in members], [pngs[i] for i in members], self.memory,
                                    prompt_text(prompts[members[0]]))
            for i, card in zip(members, adjusted):
                out[i] = card
        return out

    def close(self) -> None:
        """Close the remote clients (each releases its server session) and stop the reward's loop."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._aclose(), loop).result(timeout=60)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=30)
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
            self._runtime_init()

    async def _aclose(self) -> None:
        clients, self._clients, self._slots = self._clients, [], None
        for env in clients:
            try:
                await env.close()
            except Exception:  # noqa: BLE001, S110 - closing a broken client; nothing more to do with it
                pass

    async def _score_one(self, job: Job, index: int) -> tuple[ScoreCard, bytes | None]:
        if self.server_urls:
            return await self._score_remote(job, self.server_urls[index % len(self.server_urls)])
        pipeline = shared_pipeline(self.config)
        try:
            painting = await asyncio.to_thread(pipeline.run, job.reply, job.seed, job.group, job.subject,
                                               domain=job.domain)
        except (SetupError, ConfigError):
            raise       # this machine or these settings cannot score anything: say what to fix
        except Exception as e:  # noqa: BLE001 - any other failure is ours, never the policy's: None
            return _unscored(f"scoring failed: {type(e).__name__}: {e}"), None
        return painting.card, painting.png

    async def _score_remote(self, job: Job, url: str) -> tuple[ScoreCard, bytes | None]:
        """One completion through a server, one episode whose session is released when it ends,
        on one of `parallel` slots (each slot one client per server, kept across calls); whatever
        fails on the way is None with its reason (the client is closed and dropped, so the slot's
        next completion connects afresh)."""
        if self._slots is None:
            self._slots = asyncio.Queue()
            for _ in range(max(1, self.parallel)):
                self._slots.put_nowait({})
        async with await self._room(url):
            return await self._score_on_a_slot(job, url)

    async def _room(self, url: str) -> asyncio.Semaphore:
        """At most as many of this reward's episodes at a server as it takes sessions: past its
        --max-sessions a server refuses the connection, and the completion would be None."""
        from brushwork.env.client import session_limit

        if url not in self._rooms:
            limit, slots = await session_limit(url), max(1, self.parallel)
            if url not in self._rooms:      # asked once per server, whoever asked first
                if limit is not None and limit < slots:
                    print(f"brushwork: the server at {url} takes {limit} sessions at once (--max-sessions); this "
                          f"reward keeps {limit} of its {slots} slots there (raise the server's --max-sessions to "
                          "score more at once)", file=sys.stderr, flush=True)
                self._rooms[url] = asyncio.Semaphore(min(limit or slots, slots))
        return self._rooms[url]

    async def _score_on_a_slot(self, job: Job, url: str) -> tuple[ScoreCard, bytes | None]:
        from brushwork.env.client import BrushworkEnv, step_timeout_s

        slot = await self._slots.get()
        try:
            if url not in slot:
                slot[url] = BrushworkEnv(url, message_timeout_s=step_timeout_s(self.config))
                self._clients.append(slot[url])
            env = slot[url]
            try:
                return await self._step_remote(env, url, job)
            finally:
                await env.end_episode()
        except Exception as e:  # noqa: BLE001 - a per-sample failure must not stop training
            env = slot.pop(url, None)
            if env is not None:
                self._clients = [c for c in self._clients if c is not env]
                try:
                    await env.close()
                except Exception:  # noqa: BLE001, S110 - closing a broken client
                    pass
            return _unscored(f"the server at {url} failed this completion: {type(e).__name__}: {e}"), None
        finally:
            self._slots.put_nowait(slot)

    @staticmethod
    async def _step_remote(env, url: str, job: Job) -> tuple[ScoreCard, bytes | None]:
        from brushwork.env.models import PaintAction

        kwargs = {"seed": job.seed, "references": job.group, "return_image": True,   # the film and the best painting
                  **({"subject": job.subject} if job.subject else {})}
        await env.reset(**kwargs)
        obs = (await env.step(PaintAction(response=job.reply))).observation
        png = base64.b64decode(obs.image_png_b64) if obs.image_png_b64 else None
        card = obs.card or _unscored(obs.infra or f"the server at {url} sent no score card", bool(obs.passed))
        return card, png

    def _rollouts(self, step: int, prompts, jobs: list[Job]) -> list[Rollout]:
        """The last call's completions as scored paintings (`last`, `last_pngs`)."""
        return [Rollout(prompt_text(prompt), card, reply=job.reply, png=png, subject=job.subject, seed=job.seed,
                        group=job.group, step=step)
                for prompt, job, card, png in zip(prompts, jobs, self.last, self.last_pngs)]

    def _record(self, rollouts: list[Rollout]) -> None:
        """This process's rollouts on film, numbered across every process of the step."""
        from brushwork.train.film import Film, first_index

        film, offset = Film(self.film), first_index(len(rollouts))
        for index, rollout in enumerate(rollouts):
            film.record(rollout, offset + index)

    def _keep_best(self, rollouts: list[Rollout]) -> None:
        passed = [r for r in rollouts if r.card.passed and r.reward is not None and r.png is not None]
        if not passed:
            return
        best = max(passed, key=lambda r: r.reward)
        if self.best is None or best.reward > self.best.reward:
            self.best = best

    def take_best(self) -> Rollout | None:
        """The best painting that passed since the last call (None if none passed), and forget it."""
        best, self.best = self.best, None
        return best

    def _log(self, log_metric, log_extra) -> None:
        scored = self.last
        if not scored:
            return
        if log_metric is not None:
            # TRL averages each key over the calls of a logging step (and over processes):
            # with one reward call per step (the recipe) min and max are the step's own.
            for key, value in term_stats(scored).items():
                log_metric(key, value)
        if log_extra is not None:
            log_extra("brushwork_passed", [s.passed for s in scored])
            log_extra("brushwork_infra", [s.infra or "" for s in scored])
