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

It scores in-process on one shared pipeline (`brushwork.score.pipeline`) or through one or more
running `brushwork serve` servers (the OpenEnv client; completions go round-robin): `parallel`
worker threads for the whole run, each with one client per server, each rollout one episode
whose server session is released when it ends; `close()` stops the workers and closes their
clients. It pickles (the service and the workers are rebuilt lazily). With `film` set, every
painting is saved with its code and ScoreCard (see `brushwork.train.film`), numbered across
the processes of a multi-process run.

Where the reward weighs the diversity term (`brushwork.score.diversity`), each group's cards are
rewritten once the whole group is scored (`adjust_group`): a painting that nearly duplicates a
group-mate (or, with `diversity_memory`, one of the best paintings of that prompt's recent steps)
earns less of the term. The cards' weights say whether it is weighed, so in-process and remote
scoring adjust alike.
"""

from __future__ import annotations

import base64
import hashlib
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from brushwork.errors import ConfigError, SetupError
from brushwork.score.card import ScoreCard
from brushwork.score.diversity import Memory, adjust_group
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline
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


def _close_quietly(env) -> None:
    try:
        env.close()
    except Exception:  # noqa: BLE001, S110 - closing a broken client; nothing more to do with it
        pass


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


@dataclass(frozen=True)
class Best:
    """The best painting that passed the gate in one or more reward calls (see `take_best`)."""

    step: int
    reward: float
    png: bytes
    subject: str | None = None
    prompt: str = ""


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


class BrushworkReward:
    """TRL reward function over the brushwork environment (in-process or remote)."""

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
        self.best: Best | None = None     # the best passed painting since the last take_best()
        self.memory = Memory(diversity_memory)   # each prompt's recent best paintings (diversity term)
        self._remote_init()

    def _remote_init(self) -> None:
        # Remote scoring: `parallel` worker threads for the whole run, each with one client per
        # server (made on first use), all closed by close().
        self._workers: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._clients: list = []
        self._clients_lock = threading.Lock()

    def __getstate__(self):
        state = self.__dict__.copy()
        for key in ("_workers", "_local", "_clients", "_clients_lock"):
            state.pop(key, None)
        state["last"], state["last_pngs"], state["best"] = [], [], None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._remote_init()

    def __call__(self, prompts, completions, completion_ids=None, **kwargs) -> list[float | None]:
        state = kwargs.get("trainer_state")
        step = int(getattr(state, "global_step", 0) or 0)
        n = len(completions)
        seeds = kwargs.get("seed") or [None] * n
        subjects = kwargs.get("subject") or [None] * n
        jobs = []
        for i in range(n):
            seed = int(seeds[i]) if seeds[i] is not None else group_seed(prompts[i], None, 0) % 100_000
            jobs.append((completion_text(completions[i]), seed, group_seed(prompts[i], seeds[i], step),
                         subjects[i], i))
        if self.server_urls:
            if self._workers is None:
                self._workers = ThreadPoolExecutor(max_workers=max(1, self.parallel),
                                                   thread_name_prefix="brushwork-reward")
            scored = list(self._workers.map(lambda job: self._score_remote(*job), jobs))
        else:
            scored = self._score_local(jobs, kwargs.get("domain"))
        self.last, self.last_pngs = self._diversify([c for c, _ in scored], [png for _, png in scored], jobs,
                                                    prompts), [png for _, png in scored]
        self._keep_best(step + 1, prompts, subjects)
        self._log(kwargs.get("log_metric"), kwargs.get("log_extra"))
        if self.film:
            self._record(step + 1, prompts, jobs)
        return [c.total for c in self.last]

    def _diversify(self, cards: list[ScoreCard], pngs: list, jobs, prompts) -> list[ScoreCard]:
        """Each group's (one prompt at this step: one group seed) cards with the diversity term set."""
        groups: dict[int, list[int]] = {}
        for i, job in enumerate(jobs):
            groups.setdefault(job[2], []).append(i)
        out = list(cards)
        for members in groups.values():
            adjusted = adjust_group([cards[i] for i in members], [pngs[i] for i in members], self.memory,
                                    prompt_text(prompts[members[0]]))
            for i, card in zip(members, adjusted):
                out[i] = card
        return out

    def close(self) -> None:
        """Stop the remote workers and close their clients (each releases its server session)."""
        if self._workers is not None:
            self._workers.shutdown(wait=True)
            self._workers = None
        with self._clients_lock:
            clients, self._clients = self._clients, []
        for env in clients:
            _close_quietly(env)
        self._local = threading.local()

    def _score_local(self, jobs, domains) -> list[tuple[ScoreCard, bytes | None]]:
        try:
            paintings = shared_pipeline(self.config).run_many([j[0] for j in jobs], seeds=[j[1] for j in jobs],
                                                              group_seeds=[j[2] for j in jobs],
                                                              subjects=[j[3] for j in jobs], domains=domains)
        except (SetupError, ConfigError):
            raise       # this machine or these settings cannot score anything: say what to fix
        except Exception as e:  # noqa: BLE001 - any other failure is ours, never the policy's: None
            return [(_unscored(f"scoring failed: {type(e).__name__}: {e}"), None) for _ in jobs]
        return [(p.card, p.png) for p in paintings]

    def _client(self, url: str):
        """This worker thread's client for `url`."""
        from brushwork.env.client import BrushworkEnv, step_timeout_s

        envs = self._local.__dict__.setdefault("envs", {})
        if url not in envs:
            envs[url] = BrushworkEnv(url, message_timeout_s=step_timeout_s(self.config)).sync()
            with self._clients_lock:
                self._clients.append(envs[url])
        return envs[url]

    def _score_remote(self, reply: str, seed: int, gseed: int, subject: str | None, index: int
                      ) -> tuple[ScoreCard, bytes | None]:
        """One completion through a server, one episode whose session is released when it ends;
        whatever fails on the way is None with its reason (the client is closed and dropped, so
        the next completion connects afresh)."""
        url = self.server_urls[index % len(self.server_urls)]
        try:
            env = self._client(url)
            try:
                return self._step_remote(env, url, reply, seed, gseed, subject)
            finally:
                env.end_episode()
        except Exception as e:  # noqa: BLE001 - a per-sample failure must not stop training
            env = self._local.__dict__.get("envs", {}).pop(url, None)
            if env is not None:
                with self._clients_lock:
                    self._clients = [c for c in self._clients if c is not env]
                _close_quietly(env)
            return _unscored(f"the server at {url} failed this completion: {type(e).__name__}: {e}"), None

    @staticmethod
    def _step_remote(env, url: str, reply: str, seed: int, gseed: int, subject: str | None
                     ) -> tuple[ScoreCard, bytes | None]:
        from brushwork.env.models import PaintAction

        kwargs = {"seed": seed, "references": gseed, "return_image": True,   # the film and the best painting
                  **({"subject": subject} if subject else {})}
        env.reset(**kwargs)
        obs = env.step(PaintAction(response=reply)).observation
        png = base64.b64decode(obs.image_png_b64) if obs.image_png_b64 else None
        card = obs.card or _unscored(obs.infra or f"the server at {url} sent no score card", bool(obs.passed))
        return card, png

    def _record(self, step: int, prompts, jobs) -> None:
        """This process's rollouts on film, numbered across every process of the step."""
        from brushwork.train.film import Film, first_index

        film, offset = Film(self.film), first_index(len(jobs))
        for (reply, seed, gseed, subject, index), card, png in zip(jobs, self.last, self.last_pngs):
            film.record(step, offset + index, card, png, prompt=prompt_text(prompts[index]), reply=reply,
                        subject=subject, seed=seed, group=gseed)

    def _keep_best(self, step: int, prompts, subjects) -> None:
        passed = [(c.total, i) for i, (c, png) in enumerate(zip(self.last, self.last_pngs))
                  if c.passed and c.total is not None and png is not None]
        if not passed:
            return
        reward, i = max(passed)
        if self.best is None or reward > self.best.reward:
            self.best = Best(step, reward, self.last_pngs[i], subjects[i], prompt_text(prompts[i]))

    def take_best(self) -> Best | None:
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
