"""The environment's parts without a server: tasks and the exported dataset, settings, wire
models, and episodes run in-process on a real pipeline (real Chromium, example pool)."""

from __future__ import annotations

import json

import pytest
from gate_cases import HONEST, reply, sketch

from brushwork.env.tasks import HeldOut, dataset_rows, domains, make_task, system_prompt
from brushwork.errors import ConfigError

RECIPE_SUBJECTS = {"a peach hibiscus", "a white hibiscus with a red eye", "a magenta hibiscus", "a yellow hibiscus",
                   "a coral hibiscus"}
CHEAT = reply(sketch('text("10/10", 20, 20);'))


def wash(colour: str, radius: int = 120) -> str:
    """A small honest reply (one wash: fast to render)."""
    return reply(sketch(paint=f'brush.noStroke();\n  brush.fillBleed(0.3);\n  brush.fill("{colour}", 190);\n'
                              f'  brush.circle(300, 300, {radius});'))


# -- tasks --------------------------------------------------------------------------------------
def test_domains_include_the_recipe_hibiscus_and_two_more():
    known = domains()
    assert set(known["hibiscus"].subjects) == RECIPE_SUBJECTS
    assert {"flowers", "landscape"} <= set(known)
    assert all(d.subjects and d.prompts and d.composition for d in known.values())


def test_system_prompt_lists_exactly_the_allowed_methods():
    text = system_prompt("hibiscus")
    for needle in ("createCanvas(600, 600, WEBGL)", "translate(-width / 2, -height / 2)", "noLoop()",
                   "brush.fillBleed(strength)", "brush.circle(x, y, radius)", "0 (left, top) to 600"):
        assert needle in text
    assert "brush.rect(" not in text
    wider = system_prompt("landscape", ("fill", "rect"))
    assert "brush.rect(x, y, w, h)" in wider and "brush.circle(" not in wider
    assert "horizon" in wider


def test_tasks_are_reproducible_and_pinnable():
    assert make_task(7) == make_task(7)
    assert len({make_task(s).subject for s in range(30)}) > 5
    pinned = make_task(1, subject="a pink lotus")
    assert (pinned.domain, pinned.subject) == ("flowers", "a pink lotus") and "a pink lotus" in pinned.user
    assert make_task(2, domain="landscape").subject in domains()["landscape"].subjects
    assert make_task(3, subject="a blue iris").domain == "hibiscus"   # free-form: the recipe's guidance
    with pytest.raises(ConfigError, match="unknown task domain"):
        make_task(1, domain="portraits")


def test_exported_dataset_loads_with_datasets(tmp_path):
    from datasets import load_dataset
    from typer.testing import CliRunner

    from brushwork.cli import app

    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(app, ["tasks", "export", str(out), "--domains", "hibiscus,landscape",
                                      "--repeats", "2"])
    assert result.exit_code == 0, result.output
    ds = load_dataset("json", data_files=str(out), split="train")
    assert set(ds.column_names) == {"prompt", "subject", "domain", "seed"}
    held = HeldOut.catalogue().subjects     # pairings training never sees are not exported
    trained = [s for d in ("hibiscus", "landscape") for s in domains()[d].subjects if s not in held]
    assert len(ds) == 2 * len(trained)
    row = ds[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and row["subject"] in row["prompt"][1]["content"]
    assert set(ds["domain"]) == {"hibiscus", "landscape"} and len(set(ds["seed"])) == len(ds)
    assert make_task(row["seed"], row["subject"], row["domain"]).messages == row["prompt"]  # the env agrees
    assert dataset_rows(["hibiscus"], 2) == dataset_rows(["hibiscus"], 2)


def test_export_rejects_unknown_domains(tmp_path):
    from typer.testing import CliRunner

    from brushwork.cli import app

    result = CliRunner().invoke(app, ["tasks", "export", str(tmp_path / "x.jsonl"), "--domains", "nope"])
    assert result.exit_code == 2 and "unknown task domain" in result.output


# -- settings and wire types --------------------------------------------------------------------
def test_settings_come_from_variables_and_flags_win():
    from brushwork.env.settings import ServerSettings

    env = {"BRUSHWORK_WORKERS": "3", "BRUSHWORK_SESSION_TIMEOUT_S": "45", "BRUSHWORK_PRESET": "hps-led",
           "BRUSHWORK_POOL": "/data/pool"}
    s = ServerSettings.from_env(env, preset="hps-only")
    assert (s.render_workers, s.session_limit, s.session_timeout_s, s.preset) == (3, 6, 45.0, "hps-only")
    assert str(s.pool) == "/data/pool"
    assert ServerSettings.from_env(env, max_sessions=16).session_limit == 16
    with pytest.raises(ConfigError, match="BRUSHWORK_WORKERS"):
        ServerSettings.from_env({"BRUSHWORK_WORKERS": "two"})
    with pytest.raises(ConfigError, match="session_timeout_s"):
        ServerSettings(session_timeout_s=0)


def test_wire_models_reject_unknown_fields():
    from pydantic import ValidationError

    from brushwork.env.models import PaintAction, PaintObservation
    from brushwork.errors import ActionError

    assert PaintAction(response="x").done is False
    with pytest.raises(ActionError, match='unknown field "reward"; an action is {"response": string'):
        PaintAction(response="x", reward=1.0)
    with pytest.raises(ValidationError):
        PaintObservation(score_hint=1)


def test_the_final_observation_carries_the_card_as_plain_json():
    import json

    from brushwork.env.models import PaintObservation
    from brushwork.score.card import ScoreCard

    card = ScoreCard(passed=True, total=0.5, terms={"gate": 1.0, "judge": 0.4}, weights={"gate": 0.1},
                     preset="judge-led", seed=4, group_seed=9)
    wire = json.loads(PaintObservation(score=card.to_dict(), done=True, reward=0.5).model_dump_json())
    assert "card" not in wire and wire["score"]["total"] == 0.5     # the client reads plain JSON
    back = PaintObservation(**wire)
    assert back.card.same_as(card) and back.card.group_seed == 9
    assert PaintObservation().card is None                          # no score before the end


def test_openenv_manifest_is_valid():
    from pathlib import Path

    from openenv.validation.parsers.openenv_yaml import OpenEnvYamlParser

    manifest = OpenEnvYamlParser().parse(Path(__file__).parents[1])
    assert manifest.name == "brushwork"


# -- episodes in-process ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runner(example_pool, private_cache):
    from brushwork.env.episode import EpisodeRunner
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    with Pipeline(ScoringOptions(workers=1, render_timeout_s=30)) as pipeline:
        yield EpisodeRunner(pipeline)


@pytest.mark.chromium
def test_single_turn_episode_is_scored_at_once(runner):
    ep = runner.start(seed=4, subject="a coral hibiscus")
    turn = ep.submit(HONEST)
    assert turn.done and ep.done and turn.reward is not None and turn.reward > 0.05
    assert turn.reward == turn.card.total == turn.terms["total"] and turn.card.references
    from brushwork.env.episode import EpisodeError

    with pytest.raises(EpisodeError, match="over"):
        ep.submit(HONEST)


@pytest.mark.chromium
def test_revisions_show_the_render_and_a_critique_never_the_score(runner):
    ep = runner.start(seed=5, subject="a magenta hibiscus", revisions=2)
    first = ep.submit(wash("#cc3a8a"))
    assert not first.done and first.reward is None and first.card is None and first.revisions_left == 2
    assert first.png and first.png.startswith(b"\x89PNG")
    text = first.critique.lower()
    assert "coverage" in text and "2 revisions left" in text
    for secret in ("score", "reward", "judge", "reference", "aesthetic", *(i.id for i in runner.pipeline.pool.items)):
        assert secret.lower() not in text
    second = ep.submit(CHEAT)
    assert not second.done and "text_on_canvas" in second.critique and "scores 0" in second.critique
    last = ep.submit("", done=True)     # done without a sketch keeps the cheat as the final painting
    assert last.done and last.reward == 0.0 and last.reward_revision == 1 and len(ep.attempts) == 2


@pytest.mark.chromium
def test_best_mode_rewards_the_best_painting(runner):
    ep = runner.start(seed=6, subject="a yellow hibiscus", revisions=1, reward_mode="best")
    ep.submit(wash("#f0bc30", 160))
    last = ep.submit(CHEAT)
    assert last.done and last.reward_revision == 0 and last.reward == ep.attempts[0].total > 0
    assert ep.attempts[1].total == 0.0
    # the turn reports the last painting (the cheat) and names the rollout the reward is paid for
    assert last.rollout.turn == 1 and last.rollout.final and last.rollout.card.total == 0.0
    assert last.rollout.reward == last.reward and last.rollout.reply == CHEAT
    assert last.rewarded.turn == 0 and not last.rewarded.final and last.rewarded.card is last.card
    from brushwork.env.server.brushwork_environment import observation

    wire = observation(ep, last, return_image=True)
    # the painting fields are the cheat's, the outcome the earlier painting's card
    assert not wire.passed and "text_on_canvas" in {v["id"] for v in wire.violations}
    assert wire.reward_revision == 0 and wire.card.same_as(last.rewarded.card) and wire.card.passed
    assert wire.terms["total"] == wire.reward == last.reward and wire.infra is None
    # its legal twin, final mode: the reward is the cheat's own 0, the card the cheat's
    twin = runner.start(seed=6, subject="a yellow hibiscus", revisions=1)
    twin.submit(wash("#f0bc30", 160))
    end = twin.submit(CHEAT)
    assert end.rewarded is end.rollout and end.reward == 0.0 and end.reward_revision == 1
    assert observation(twin, end, return_image=False).card.same_as(end.rollout.card)


@pytest.mark.chromium
def test_an_episode_is_its_rollouts(runner):
    """Every painting of an episode as the one record the film and evaluation read: its reply,
    the task's prompt, subject, seed and reference draw, its turn; the last is final and paid the
    episode's reward. Earlier paintings, only rendered during the episode, are scored on request."""
    ep = runner.start(seed=7, subject="a white hibiscus with a red eye", revisions=2, references=41)
    first = ep.submit(wash("#f4f0ea"))
    assert first.rollout is None and first.rewarded is None        # final mode: rendered, not scored
    end = ep.submit(wash("#f4f0ea", 180), done=True)
    rollouts = ep.rollouts()
    assert [(r.turn, r.final) for r in rollouts] == [(0, False), (1, True)]
    assert [r.reply for r in rollouts] == [wash("#f4f0ea"), wash("#f4f0ea", 180)]
    assert {(r.prompt, r.subject, r.seed, r.group) for r in rollouts} == {(ep.task.user, ep.task.subject, 7, 41)}
    assert rollouts[1] == end.rollout and rollouts[1].reward == end.reward == rollouts[1].card.total
    assert rollouts[0].reward == rollouts[0].card.total and rollouts[0].png.startswith(b"\x89PNG")


@pytest.mark.chromium
def test_presets_reweigh_the_same_terms(runner):
    from brushwork.score.reward import PRESETS

    ep = runner.start(seed=8, subject="a peach hibiscus", preset="hps-led")
    turn = ep.submit(wash("#ee8060"))
    w, c = PRESETS["hps-led"], turn.card
    assert turn.reward == pytest.approx(w.gate + w.length * c.length + w.judge * c.judge + w.aesthetic * c.aesthetic)
    # the card is weighed once, by the pipeline, with the episode's preset (the server's is judge-led)
    assert turn.reward == c.total and c.preset == "hps-led" and c.weights["aesthetic"] == w.aesthetic
    judge_led = PRESETS["judge-led"]
    assert turn.reward != pytest.approx(judge_led.gate + judge_led.length * c.length + judge_led.judge * c.judge
                                        + judge_led.aesthetic * c.aesthetic)


@pytest.mark.chromium
def test_endless_loop_scores_zero_and_an_outage_is_none_with_a_reason(runner):
    from gate_cases import TIMEOUT

    from brushwork.env.episode import EpisodeRunner
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    down = ScoringOptions(aesthetic="hpsv3", hpsv3_url="http://127.0.0.1:9",   # nothing listens there
                          workers=1, render_timeout_s=6, render_cpu_budget_s=1.5, render_cache=False)
    with Pipeline(down) as pipeline:
        hang = EpisodeRunner(pipeline).start(seed=1).submit(TIMEOUT[0].reply)
        outage = EpisodeRunner(pipeline).start(seed=2).submit(wash("#e8607a"))
    # the sketch's own hang is stopped at the CPU budget and scores 0 (it needs no aesthetic call)
    assert hang.done and hang.reward == 0.0 and hang.infra is None and hang.terms["total"] == 0.0
    assert "too_slow" in {v.id for v in hang.gated.report.violations}
    # our outage leaves no honest score: None, with the reason
    assert outage.done and outage.reward is None and "aesthetic" in outage.infra and outage.terms["total"] is None


@pytest.mark.chromium
def test_bad_episode_arguments_are_config_errors(runner):
    with pytest.raises(ConfigError, match="revisions"):
        runner.start(revisions=99)
    with pytest.raises(ConfigError, match="reward_mode"):
        runner.start(reward_mode="mean")
    with pytest.raises(ConfigError, match="references must be an integer"):
        runner.start(references=["love_a", "okay_b"])
    with pytest.raises(ConfigError, match="unknown preset"):
        runner.start(preset="fancy")
    assert json.dumps(runner.start(seed=3).task.to_dict())
