"""What every session of one server process shares: the settings, ONE pipeline (one warm
renderer pool, the pool, the scorers) and the counters `/health` reports.

Sessions are cheap objects over this context; creating the context is the slow part (browsers
start, a pool folder is rendered on first use) and happens once, before the server listens.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from brushwork.env.episode import EpisodeRunner
from brushwork.env.settings import ServerSettings
from brushwork.errors import AtCapacity

if TYPE_CHECKING:
    from brushwork.score.pipeline import Pipeline


class ServerContext:
    def __init__(self, settings: ServerSettings, pipeline: Pipeline | None = None):
        from brushwork.core.progress import progress
        from brushwork.score.pipeline import Pipeline

        self.settings = settings
        self.pipeline = pipeline or Pipeline(settings, progress=progress)   # the first pool render shows on stderr
        self.pipeline.warm()    # browsers start before the server listens: the first reply is not the one to wait
        self.runner = EpisodeRunner(self.pipeline)
        self.pool_warnings = check_pool(self.pipeline)   # said loudly before the server listens
        self.started = time.time()
        self._lock = threading.Lock()
        self.sessions_open = 0
        self.sessions_total = 0
        self.episodes = 0
        self.steps = 0
        self.steps_in_flight = 0
        self.infra_failures = 0
        self.render_busy_s = 0.0    # render seconds spent on this server's steps (cache hits excluded)

    # -- counters (called from the session threads) --------------------------------------------
    def session_opened(self) -> None:
        """Count a session in, or refuse it at the limit: a WebSocket session and a stateless HTTP
        request (/reset, /step: a fresh environment each) hold one slot each, as long as they last."""
        with self._lock:
            limit = self.settings.session_limit
            if self.sessions_open >= limit:
                raise AtCapacity(f"the server is at capacity: {self.sessions_open} sessions (WebSocket sessions and "
                                 f"HTTP requests together) of --max-sessions {limit}; retry later, raise "
                                 "--max-sessions, or close idle clients")
            self.sessions_open += 1
            self.sessions_total += 1

    def session_closed(self) -> None:
        with self._lock:
            self.sessions_open = max(0, self.sessions_open - 1)

    def episode_started(self) -> None:
        with self._lock:
            self.episodes += 1

    def step_started(self) -> None:
        with self._lock:
            self.steps_in_flight += 1

    def step_finished(self, render_s: float, infra: bool) -> None:
        with self._lock:
            self.steps_in_flight -= 1
            self.steps += 1
            self.render_busy_s += render_s
            self.infra_failures += int(infra)

    # -- reporting ------------------------------------------------------------------------------
    def health(self) -> dict:
        service = self.pipeline
        render_status = service.status()
        pool = service.pool
        tiers: dict[str, int] = {}
        for item in pool.items:
            tiers[item.tier] = tiers.get(item.tier, 0) + 1
        with self._lock:
            sessions = {"active": self.sessions_open, "max": self.settings.session_limit,
                        "timeout_s": self.settings.session_timeout_s, "opened": self.sessions_total}
            work = {"episodes": self.episodes, "steps": self.steps, "steps_in_flight": self.steps_in_flight,
                    "infra_failures": self.infra_failures, "render_busy_s": round(self.render_busy_s, 3)}
        return {
            "status": "healthy" if render_status["workers"] and render_status["alive"] == render_status["workers"]
            else "degraded",
            "uptime_s": round(time.time() - self.started, 1),
            "renderer": render_status,
            "pool": {"root": str(pool.root), "snapshot": pool.snapshot, "paintings": len(pool.items),
                     "tiers": tiers},
            "reward": {"preset": service.reward.preset, "weights": dict(service.reward.weights)},
            "scorers": {name: term.backend for name, term in service.scorer.terms.items() if term.backend},
            "sessions": sessions,
            "work": work,
        }

    def close(self) -> None:
        self.pipeline.close()


def check_pool(pipeline: Pipeline) -> list[str]:
    """The task domains the pool cannot judge from its own paintings, warned about on stderr
    (`brushwork.env.tasks.check_pool_domains`); nothing to check without a judge."""
    from brushwork.env.tasks import check_pool_domains

    if getattr(pipeline, "pool", None) is None or "judge" not in pipeline.scorer.terms:
        return []
    return check_pool_domains(pipeline.pool)
