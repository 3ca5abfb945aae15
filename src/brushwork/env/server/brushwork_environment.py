"""The OpenEnv environment: one instance per session, all sessions over one `ServerContext`.

`reset(...)` starts an episode and returns the task's prompt; `step(PaintAction)` gates,
renders and (when the episode ends) scores a painting. Over stateless HTTP (`POST /step`, a
fresh environment per request) an action may carry its reset arguments in
`metadata["reset"]`: one request, one single-turn episode. A hostile or broken reply is a gate
report in the observation, never a server error; an infrastructure failure is reward None
with the reason in `infra`.
"""

from __future__ import annotations

import base64
from typing import Any

from brushwork.env.episode import Episode, Turn
from brushwork.env.models import SESSION_RECLAIMED, PaintAction, PaintObservation, PaintState
from brushwork.env.server.context import ServerContext
from brushwork.env.upstream import Environment, EnvironmentMetadata
from brushwork.errors import ActionError, EpisodeError, SessionClosed


class BrushworkEnvironment(Environment[PaintAction, PaintObservation, PaintState]):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, context: ServerContext):
        super().__init__()
        self.context = context
        self.episode: Episode | None = None
        self.return_image = False
        self._closed = False
        context.session_opened()

    def reset(self, seed: int | None = None, episode_id: str | None = None, subject: str | None = None,
              domain: str | None = None, references: int | None = None, revisions: int = 0,
              return_image: bool = False, preset: str | None = None, reward_mode: str = "final",
              **kwargs: Any) -> PaintObservation:
        """Start an episode. `references` seeds the reference draw (share it across a GRPO group);
        `revisions` > 0 makes it multi-turn; `reward_mode` is "final" or "best"."""
        self._check_open()
        if kwargs:
            raise ActionError(f"unknown reset argument(s): {', '.join(sorted(kwargs))}; known: seed, episode_id, "
                               "subject, domain, references, revisions, return_image, preset, reward_mode")
        self.episode = self.context.runner.start(seed, episode_id, subject, domain, references, revisions,
                                                 preset, reward_mode)
        self.return_image = bool(return_image)
        self.context.episode_started()
        return observation(self.episode, None, self.return_image)

    def step(self, action: PaintAction, timeout_s: float | None = None, **kwargs: Any) -> PaintObservation:
        self._check_open()
        if self.episode is None:
            # Stateless HTTP /step builds a fresh environment per request: it may carry its reset.
            reset = action.metadata.get("reset")
            if not isinstance(reset, dict):
                raise EpisodeError("no episode: call reset() before step() (over stateless HTTP /step, put the "
                                   "reset arguments in action.metadata['reset'])")
            self.reset(**reset)
        self.context.step_started()
        turn = None
        try:
            turn = self.episode.submit(action.response, action.done)
        finally:
            render = turn.gated.render if turn is not None else None
            render_s = render.timings.wall_s if render is not None and not render.cache_hit else 0.0
            self.context.step_finished(render_s, infra=turn is not None and turn.gated.report.infra_failure)
        return observation(self.episode, turn, self.return_image)

    @property
    def state(self) -> PaintState:
        ep = self.episode
        if ep is None:
            raise EpisodeError("no episode: call reset() before state() (each stateless HTTP request gets a fresh "
                               "environment, so GET /state never has one: read an episode's state over the "
                               "WebSocket session, BrushworkEnv(url).state())")
        return PaintState(episode_id=ep.episode_id, step_count=len(ep.attempts), subject=ep.task.subject,
                          domain=ep.task.domain, seed=ep.task.seed, group_seed=ep.group_seed,
                          revisions=ep.config.revisions, reward_mode=ep.config.reward_mode,
                          preset=ep.config.preset or self.context.pipeline.reward.preset,
                          paintings=len(ep.attempts), done=ep.done,
                          reward=ep.final.reward if ep.final is not None else None)

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="brushwork", version="0.1.0",
                                   description="Paint with p5.brush: a reply holding a p5.js sketch is gated, "
                                               "rendered in headless Chromium and scored against a rated pool.")

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.context.session_closed()

    # -- helpers --------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosed(f"{SESSION_RECLAIMED}: this session sat idle past the server's session timeout; "
                                "reconnect and reset")


def observation(episode: Episode, turn: Turn | None, return_image: bool) -> PaintObservation:
    """What a session sees: the task (every observation repeats it), and after a step the
    painting `turn` reports (gate verdict, render, critique; its image on every revision step and
    on the final one with `return_image`); when the episode is done, the reward and the full card
    of the rollout it is paid for (`turn.rewarded`: in best mode possibly an earlier painting)."""
    task = episode.task
    fields: dict[str, Any] = dict(episode_id=episode.episode_id, subject=task.subject, domain=task.domain,
                                  system_prompt=task.system, prompt=task.user, seed=task.seed)
    if turn is None:
        return PaintObservation(revisions_left=episode.revisions_left, **fields)
    report, render = turn.gated.report, turn.gated.render
    show_image = not turn.done or return_image
    fields.update(
        revision=turn.revision, revisions_left=turn.revisions_left, passed=report.passed,
        violations=[v.to_dict() for v in report.violations], notes=[n.to_dict() for n in report.notes],
        critique=turn.critique,
        paint_fraction=render.paint_fraction if render is not None else None,
        js_errors=[e.message for e in render.js_errors] if render is not None else [],
        image_png_b64=base64.b64encode(turn.png).decode("ascii") if show_image and turn.png else None,
        done=turn.done,
    )
    rewarded = turn.rewarded
    if rewarded is not None:
        fields.update(reward=rewarded.reward, terms=turn.terms, score=rewarded.card.to_dict(),
                      reward_revision=rewarded.turn, infra=turn.infra)
    return PaintObservation(**fields)
