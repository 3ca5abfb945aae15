"""`brushwork score`, `taste fit` and `judge audit` on the example pool, as a user runs them."""

from __future__ import annotations

import json

import pytest
from servers import FakeVLMJudge, openai_judge_app, serve
from test_score import CHEAT, HONEST
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.score.audit import audit
from brushwork.score.backends import OpenAIJudge, Retry, TasteJudge
from brushwork.score.judge import PairwiseJudge

pytestmark = pytest.mark.chromium


def test_score_json_and_table(example_pool, tmp_path):
    (tmp_path / "honest.md").write_text(HONEST)
    (tmp_path / "cheat.md").write_text(CHEAT)
    files = [str(tmp_path / "honest.md"), str(tmp_path / "cheat.md")]
    res = CliRunner().invoke(app, ["score", *files, "--json", "--workers", "2", "--group-seed", "5"])
    assert res.exit_code == 0, res.output
    honest, cheat = json.loads(res.stdout)
    assert honest["passed"] and honest["total"] > 0.05 and len(honest["comparisons"]) == 4
    assert {"total", "terms", "references", "timings", "cost"} <= set(honest)
    assert list(honest["terms"]) == ["gate", "length", "judge", "aesthetic"] and honest["terms"]["judge"] is not None
    assert cheat["total"] == 0.0 and cheat["cheated"] and cheat["violations"][0]["id"] == "text_on_canvas"
    table = CliRunner().invoke(app, ["score", *files, "--preset", "hps-only", "--workers", "2"])
    assert table.exit_code == 0 and "hps-only" in table.output and "text_on_canvas" in table.output
    bad = CliRunner().invoke(app, ["score", files[0], "--preset", "judge-first"])
    assert bad.exit_code == 2 and "judge-led" in bad.output


def test_table_says_when_a_painting_is_held_at_the_middle_tier(example_pool, tmp_path):
    """A round wash in the loved paintings' medium draws no stem, stamen or vein: the taste model
    holds it at the middle tier, and the table says so. Its legal twin, an honest hibiscus with a
    stem and stamens, is paid what its head says, with no such note."""
    from reward_attack_cases import random_genome, sketch

    from brushwork.paths import example_files

    (tmp_path / "wash.md").write_text(sketch(random_genome(1, "wash")))
    (tmp_path / "honest.md").write_text(next(p for p in example_files() if p.stem == "good_peach_hibiscus").read_text())
    files = [str(tmp_path / "wash.md"), str(tmp_path / "honest.md")]
    res = CliRunner().invoke(app, ["score", *files, "--json", "--workers", "2"])
    wash, honest = json.loads(res.stdout)
    assert wash["taste"]["drawing"] < 0.5 and wash["taste"]["bounded"] < wash["taste"]["utility"]
    assert honest["taste"]["drawing"] == pytest.approx(1.0)
    assert honest["taste"]["bounded"] == pytest.approx(honest["taste"]["utility"])
    table = CliRunner().invoke(app, ["score", *files, "--workers", "2"], env={"COLUMNS": "400"})
    assert table.exit_code == 0, table.output
    rows = {line.split("│")[1].strip(): line for line in table.output.splitlines() if line.count("│") > 3}
    assert "paid as the middle tier at most" in rows["wash.md"]
    assert "middle tier" not in rows["honest.md"]


def test_taste_fit_reports_cross_validation(example_pool, tmp_path):
    # the ablation's nested figures double the fit's cost; test_taste's own `taste fit` run shows them
    res = CliRunner().invoke(app, ["taste", "fit", "-o", str(tmp_path / "t.json"), "--no-ablation"])
    assert res.exit_code == 0, res.output
    assert "love vs nope" in res.output and "love vs okay" in res.output
    saved = json.loads((tmp_path / "t.json").read_text())
    assert saved["snapshot"] == example_pool.snapshot and saved["report"]["pairwise_accuracy"]["love>nope"] >= 0.9


async def test_audit_measures_position_bias(example_pool):
    from brushwork.score.taste.model import load_or_fit

    # 32 pairs: the pool's evaluation paintings are out of the taste model's sample, and 12 pairs
    # (~8 across tiers) made the agreement estimate swing by a whole pair (0.67 .. 0.86 by seed).
    taste = await audit(PairwiseJudge(TasteJudge(load_or_fit(example_pool))), example_pool, n_pairs=32)
    assert taste["position_bias_rate"] == 0 and taste["order_consistency"] == 1 and taste["repeat_agreement"] == 1
    assert taste["agreement_with_tiers"] > 0.7
    with serve(openai_judge_app(FakeVLMJudge("biased"))) as url:
        biased = await audit(PairwiseJudge(OpenAIJudge(url + "/v1", "m", retry=Retry(2, 0.01, 5))), example_pool,
                             n_pairs=6)
    assert biased["position_bias_rate"] == 1 and biased["first_wins_rate"] == 1 and biased["asked"] == 24
    assert biased["order_consistency"] == 0


def test_an_unreachable_judge_exits_1_and_says_which_and_how_to_fix_it(example_pool, tmp_path):
    """Nothing listens at --judge-url: the reply has no total (our failure, not the painting's), the
    table's notes and one error line name the judge and the fix, and the command exits 1. Its legal
    twin, the same reply with the offline judge, has a total and exits 0."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    (tmp_path / "honest.md").write_text(HONEST)
    reply = [str(tmp_path / "honest.md"), "--workers", "1"]
    dead = CliRunner().invoke(app, ["score", *reply, "--judge", "openai", "--judge-model", "m",
                                    "--judge-url", f"http://127.0.0.1:{closed}/v1"], env={"COLUMNS": "400"})
    assert dead.exit_code == 1, dead.output
    (error,) = [line for line in dead.stderr.splitlines() if line.startswith("error:")]
    assert "no total" in error and f"127.0.0.1:{closed}" in error and "check that it is running" in error
    row = next(line for line in dead.stdout.splitlines() if "honest.md" in line)
    assert "None" in row and "unreachable" in row
    twin = CliRunner().invoke(app, ["score", *reply, "--json"])
    assert twin.exit_code == 0, twin.output
    assert json.loads(twin.stdout)[0]["total"] is not None
