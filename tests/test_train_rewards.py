"""The TRL side: the GRPO reward function and the environment_factory class, called exactly
the way TRL 1.x calls them (no trainer here: that is the training layer's test)."""

from __future__ import annotations

import asyncio
import pickle
from types import SimpleNamespace

import pytest
from test_score import CHEAT, HONEST

from brushwork.score.options import ScoringOptions
from brushwork.train.film import read_film
from brushwork.train.rewards import BrushworkReward, completion_text, group_seed
from brushwork.train.tool_env import BrushworkToolEnv, ToolEnvReward

pytestmark = pytest.mark.chromium

SYSTEM = {"role": "system", "content": "Paint with p5.brush."}


def chat(text):
    return [{"role": "assistant", "content": text}]


def test_completion_text_and_group_seed():
    assert completion_text(chat("x")) == "x" and completion_text("y") == "y"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text",
                                                                                               "text": "b"}]}]) == "ab"
    p = [SYSTEM, {"role": "user", "content": "Paint a coral hibiscus"}]
    assert group_seed(p, 3, 10) == group_seed(list(p), 3, 10) != group_seed(p, 3, 11)


def test_reward_function_contract(example_pool):
    reward = BrushworkReward(parallel=4)
    assert reward.__name__ == "brushwork"
    prompt_a = [SYSTEM, {"role": "user", "content": "Paint a coral hibiscus"}]
    prompt_b = [SYSTEM, {"role": "user", "content": "Paint a yellow hibiscus"}]
    metrics, extras = {}, {}
    out = asyncio.run(reward(    # TRL awaits it on its own loop
        prompts=[prompt_a, prompt_a, prompt_b, prompt_b],
        completions=[chat(HONEST), chat(CHEAT), chat(HONEST), chat("I can't paint.")],
        completion_ids=[[1], [2], [3], [4]], seed=[11, 11, 12, 12], subject=["coral hibiscus"] * 2 +
        ["yellow hibiscus"] * 2, trainer_state=SimpleNamespace(global_step=4),
        log_metric=lambda k, v: metrics.__setitem__(k, v), log_extra=lambda k, v: extras.__setitem__(k, v)))
    assert len(out) == 4 and out[0] > 0.05 and out[1] == 0.0 and out[2] > 0.05 and out[3] == 0.0
    a, b = reward.last[0], reward.last[2]
    assert a.references == reward.last[1].references or not reward.last[1].references  # the cheat drew none
    assert a.references != b.references  # another group, another draw
    assert metrics["brushwork/gate_pass_rate"] == 0.5 and metrics["brushwork/cheat_rate"] == 0.25
    assert metrics["brushwork/none_rate"] == 0 and {"brushwork/judge", "brushwork/aesthetic",
                                                    "brushwork/length", "brushwork/paint_fraction"} <= set(metrics)
    assert extras["brushwork_passed"] == [True, False, True, False]
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == "brushwork"
    again = clone.score(prompts=[prompt_a], completions=[chat(HONEST)], seed=[11], subject=["coral hibiscus"],
                        trainer_state=SimpleNamespace(global_step=4))
    assert again[0] == pytest.approx(out[0], abs=1e-3) and clone.last[0].references == a.references


def test_a_groups_duplicates_earn_less_diversity_and_a_new_layout_keeps_it(example_pool, tmp_path):
    from brushwork.painter import paint

    # the terms of recipe-diverse that need no judge or taste model (the group hook is the same)
    (tmp_path / "reward.yaml").write_text("weights: {gate: 0.05, length: 0.05, judge: 0, aesthetic: 0, "
                                          "brushwork.score.diversity:DiversityTerm: 0.5, "
                                          "brushwork.score.adherence:AdherenceTerm: 0.4}\n")
    reward = BrushworkReward(config=ScoringOptions(reward_file=tmp_path / "reward.yaml"))
    prompt = [SYSTEM, {"role": "user", "content": "Paint a coral hibiscus"}]
    other = f"A coral hibiscus:\n```js\n{paint(5, 'coral hibiscus', composition='diagonal').code}\n```"
    moved = HONEST.replace("brush.circle(300, 300, 28);", "brush.circle(302, 299, 28);")   # a jittered duplicate
    out = reward.score(prompts=[prompt] * 4, completions=[chat(HONEST), chat(moved), chat(other), chat(CHEAT)],
                 seed=[11] * 4, subject=["a coral hibiscus"] * 4, trainer_state=SimpleNamespace(global_step=2))
    cards = reward.last
    assert [c.diversity for c in cards[:3]] == [0.5, 0.5, 1.0]     # each copy duplicates one of its two group-mates
    assert "group-mate" in cards[0].term_notes["diversity"] and cards[0].term_notes["adherence"].startswith(
        "asked coral")
    assert out[3] == 0.0 and cards[3].diversity is None            # a failed gate is not helped
    weights = cards[0].weights
    assert out[0] == pytest.approx(sum(weights[t] * (cards[0].terms[t] or 0.0) for t in weights))


@pytest.mark.slow
def test_endless_loop_is_zero_and_an_outage_is_none(example_pool):
    hang = HONEST.replace("brush.circle(300, 300, 28);", "brush.circle(300, 300, 28); while (true) {}")
    down = ScoringOptions(aesthetic="hpsv3", hpsv3_url="http://127.0.0.1:9",   # nothing listens there
                          workers=1, render_timeout_s=6, render_cpu_budget_s=1.5)
    reward = BrushworkReward(config=down)
    assert reward.score(prompts=["p", "p"], completions=[hang, HONEST], seed=[1, 1]) == [0.0, None]
    assert reward.last[0].infra is None and not reward.last[0].passed   # the sketch's hang: 0
    assert "aesthetic" in reward.last[1].infra                          # our outage: None, with a reason


def test_environment_factory_episode(example_pool, tmp_path):
    vision = type("VisionToolEnv", (BrushworkToolEnv,), {"images": True})
    env = vision()
    text = env.reset(seed=5, subject="coral hibiscus", domain="hibiscus", revisions=1)
    assert "submit_sketch" in text and "1 time" in text   # TRL appends it to the row's own task prompt
    first = env.submit_sketch(HONEST)
    assert first[0]["type"] == "image" and first[0]["image"].size == (600, 600)
    assert first[-1]["type"] == "text" and "score" not in first[-1]["text"].lower()
    assert not env.finished
    env.submit_sketch(HONEST.replace("#ff7f50", "#e75480"))
    assert env.finished and env.reward is not None and env.reward > 0
    unfinished = BrushworkToolEnv()            # a text-only policy gets the critique alone
    unfinished.reset(seed=6, subject="coral hibiscus", revisions=2)
    critique = unfinished.submit_sketch(CHEAT)
    assert isinstance(critique, str) and "revisions left" in critique
    never = BrushworkToolEnv()
    never.reset(seed=7, subject="coral hibiscus")
    episodes = ToolEnvReward(film=str(tmp_path / "film"))
    rewards = episodes(prompts=["p"] * 3, completions=[[{"role": "assistant", "content": "c"}]] * 3,
                       environments=[env, unfinished, never])
    assert rewards[0] == env.reward and rewards[1] == 0.0
    assert rewards[2] == 0.0 and never.replies == ["c"]     # no tool call: its text answer is scored (no sketch)
    # one frame per painting: the first episode's two turns, the others' one each, each its own rollout
    frames = read_film(tmp_path / "film")
    assert [(f.index, f.turn, f.final) for f in frames] == [(0, 0, False), (0, 1, True), (1, 0, True), (2, 0, True)]
    assert frames[1].reward == env.reward and frames[0].reward == frames[0].card.total and frames[0].png
    assert frames[1].reply == env.replies[1] and frames[0].group == frames[1].group == 5
    best = episodes.take_best()                      # the only final painting that passed: the first episode's
    assert (best.step, best.turn, best.prompt, best.reward, best.png) == (1, 1, "p", env.reward, frames[1].png)
    assert BrushworkToolEnv.submit_sketch.__doc__.count("Args:") == 1


def test_remote_reward_turns_each_failure_into_none_with_a_reason(example_pool):
    """Through a real server on a socket (in this process, sharing the warm pipeline): a completion
    the server refuses (past its request limit) is None with the reason, never an exception that
    stops training; a lone surrogate is a gate report (0) or, in the prose, nothing at all."""
    from servers import serve

    from brushwork.env.server.app import build_app
    from brushwork.env.server.context import ServerContext
    from brushwork.env.settings import ServerSettings
    from brushwork.train.rewards import shared_pipeline

    context = ServerContext(ServerSettings(max_request_bytes=50_000), pipeline=shared_pipeline())
    surrogate = HONEST.replace("brush.circle(300, 300, 28);", 'brush.circle(300, 300, 28);\n  const s = "\ud800";')
    with serve(build_app(context)) as url:
        reward = BrushworkReward(server_url=url, parallel=2)
        out = reward.score(prompts=["p"] * 4, completions=[chat(HONEST), "x" * 60_000, surrogate, "\udfff " + HONEST],
                     seed=[13] * 4, trainer_state=SimpleNamespace(global_step=1))
        assert out[0] > 0.05 and out[1] is None and out[2] == 0.0 and out[3] == pytest.approx(out[0], abs=1e-3)
        assert "--max-request-bytes" in reward.last[1].infra and url in reward.last[1].infra
        assert [v.id for v in reward.last[2].violations] == ["syntax_error"]
        again = reward.score(prompts=["p"], completions=[chat(HONEST)], seed=[13])   # the dropped client reconnects
        assert again[0] == pytest.approx(out[0], abs=1e-3)
        reward.close()


@pytest.mark.timeout(900)     # the example pool renders in its setup
def test_remote_rollouts_leave_no_open_session_behind(example_pool):
    """Against a real server on a socket: each rollout's session is released when it ends (not
    reclaimed after the idle timeout), the same worker clients serve every call, and close()
    closes them. The client waits as long as the scoring options' worst case."""
    import threading

    from servers import serve
    from test_env_server import wait_for

    from brushwork.env.client import BrushworkEnv, step_timeout_s
    from brushwork.env.server.app import build_app
    from brushwork.env.server.context import ServerContext
    from brushwork.env.settings import ServerSettings
    from brushwork.train.rewards import shared_pipeline

    context = ServerContext(ServerSettings(max_sessions=4), pipeline=shared_pipeline())
    earlier = set(threading.enumerate())     # rewards of earlier tests stop their loops when collected
    with serve(build_app(context)) as url:
        reward = BrushworkReward(server_url=url.replace("http", "ws"), parallel=2)
        try:
            for step in range(3):     # 6 rollouts on 2 workers, past a limit of 4 sessions if any were kept
                out = reward.score(prompts=["p"] * 2, completions=[chat(HONEST), chat(CHEAT)], seed=[13] * 2,
                             trainer_state=SimpleNamespace(global_step=step))
                assert out[0] > 0.05 and out[1] == 0.0
                wait_for(lambda: context.sessions_open == 0, 30, "every session of the step to be released")
            assert context.sessions_total == 6 and context.episodes == 6
            assert len(reward._clients) <= 2                      # one client per slot, kept across calls
            timeouts = {c._message_timeout for c in reward._clients}
            assert timeouts == {step_timeout_s(None)}
        finally:
            reward.close()
        assert reward._clients == [] and not any(t.name.startswith("brushwork-reward")
                                                 for t in set(threading.enumerate()) - earlier)
        assert context.sessions_open == 0
    worst = ScoringOptions(judge="openai", judge_url="http://judge/v1", aesthetic="hpsv3", hpsv3_url="http://h",
                           render_timeout_s=90)
    assert step_timeout_s(worst) > 900 > step_timeout_s(None) >= 4 * 60   # more than the old fixed 300 s
    assert BrushworkEnv("ws://127.0.0.1:1")._message_timeout == step_timeout_s(None)


@pytest.mark.timeout(900)     # the example pool renders in its setup
def test_a_reward_keeps_no_more_episodes_at_a_server_than_it_takes_sessions(example_pool, capsys):
    """A server with --max-sessions 2 refuses a third connection; a reward of 6 slots once lost
    the completions past it (None: half a batch unscored). It reads the server's limit from its
    /health, keeps 2 episodes there at a time and says so; every completion is scored. The legal
    twin, a server with room for every slot, hears no warning."""
    from servers import serve

    from brushwork.env.server.app import build_app
    from brushwork.env.server.context import ServerContext
    from brushwork.env.settings import ServerSettings
    from brushwork.train.rewards import shared_pipeline

    for sessions, warned in ((2, True), (6, False)):
        context = ServerContext(ServerSettings(max_sessions=sessions), pipeline=shared_pipeline())
        with serve(build_app(context)) as url:
            reward = BrushworkReward(server_url=url.replace("http", "ws"), parallel=6)
            try:
                out = reward.score(prompts=["p"] * 6, completions=[chat(HONEST)] * 6, seed=[13] * 6,
                                   trainer_state=SimpleNamespace(global_step=1))
            finally:
                reward.close()
            assert None not in out and min(out) > 0.05, [c.infra for c in reward.last]
            assert context.sessions_total == 6
        said = capsys.readouterr().err
        assert ("takes 2 sessions at once" in said and "--max-sessions" in said) is warned, said


def test_remote_groups_get_the_diversity_hook_too(example_pool, tmp_path):
    """Scored by a real server on a socket, a group's cards are rewritten the same way: the
    server's weights weigh the term, the reward sees the whole group and pays the jittered
    duplicate and its original 0, the other layout 1; a failed gate stays 0."""
    from servers import serve

    from brushwork.env.server.app import build_app
    from brushwork.env.server.context import ServerContext
    from brushwork.env.settings import ServerSettings
    from brushwork.painter import paint
    from brushwork.train.rewards import shared_pipeline

    (tmp_path / "reward.yaml").write_text("weights: {gate: 0.05, length: 0.05, judge: 0, aesthetic: 0, "
                                          "brushwork.score.diversity:DiversityTerm: 0.9}\n")
    options = ScoringOptions(reward_file=tmp_path / "reward.yaml")
    context = ServerContext(ServerSettings(max_sessions=8), pipeline=shared_pipeline(options))
    other = f"A coral hibiscus:\n```js\n{paint(5, 'coral hibiscus', composition='diagonal').code}\n```"
    moved = HONEST.replace("brush.circle(300, 300, 28);", "brush.circle(302, 299, 28);")
    with serve(build_app(context)) as url:
        reward = BrushworkReward(server_url=url.replace("http", "ws"), parallel=4)
        try:
            out = reward.score(prompts=["Paint a coral hibiscus"] * 4,
                               completions=[chat(HONEST), chat(moved), chat(other), chat(CHEAT)], seed=[11] * 4,
                               trainer_state=SimpleNamespace(global_step=1))
        finally:
            reward.close()
    cards = reward.last
    assert [c.diversity for c in cards[:3]] == [0.5, 0.5, 1.0] and "group-mate" in cards[0].term_notes["diversity"]
    assert out[3] == 0.0 and out[2] > out[0] + 0.4      # 0.9 x the half the copy gives up


def test_diversity_memory_is_a_training_setting():
    from brushwork.train.config import BrushworkArguments
    from brushwork.train.run import _rewards

    (reward,), _ = _rewards(BrushworkArguments(diversity_memory=3), None, ScoringOptions())
    try:
        assert reward.memory.size == 3
    finally:
        reward.close()
    (plain,), _ = _rewards(BrushworkArguments(), None, ScoringOptions())
    plain.close()
    assert plain.memory.size == 0
