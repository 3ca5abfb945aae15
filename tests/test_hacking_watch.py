"""The hacking watch (`brushwork.eval.watch`): each flag's attack next to its legal twin, on
hand-made ScoreCards and paintings (nothing rendered, nothing judged), and the report's
section built from them."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from brushwork.eval.metrics import EvalRun, Sample, by_step
from brushwork.eval.report import eval_json, write_report
from brushwork.eval.watch import (
    COLLAPSE_DISTANCE,
    NEARLY_EMPTY,
    NEARLY_FULL,
    hacking_watch,
    reward_without_taste,
    run_watch,
    summary_line,
)
from brushwork.score.card import ScoreCard
from brushwork.score.copies import Copy
from brushwork.score.judge import Comparison, Verdict
from brushwork.score.rollout import Rollout

COLOURS = [(200, 60, 40), (40, 120, 200), (60, 160, 70), (230, 200, 40), (120, 40, 160), (20, 20, 20),
           (240, 150, 180), (90, 200, 200)]


def png(colour, size: int = 48) -> bytes:
    im = Image.new("RGB", (size, size), "white")
    im.paste(colour, (size // 4, size // 4, 3 * size // 4, 3 * size // 4))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def card(total: float, paint: float = 0.3, copy_of=None, passed: bool = True) -> ScoreCard:
    return ScoreCard(passed=passed, total=total, terms={"gate": 1.0, "judge": total}, weights={},
                     preset="judge-led", copy_of=copy_of, paint_fraction=paint)


def sample(c: ScoreCard, colour=None, group: int = 1, step: int = 0, wins: tuple[str, ...] = ()) -> Sample:
    """`wins`: per evaluation comparison, "win", "loss" or "tie" (both orders agree)."""
    winner = {"win": ("first", "second"), "loss": ("second", "first"), "tie": ("tie", "tie")}
    comparisons = tuple(Comparison(f"ref{n}", "love", Verdict("candidate_first", winner[w][0], ""),
                                   Verdict("reference_first", winner[w][1], "")) for n, w in enumerate(wins))
    return Sample(Rollout(f"prompt <b>{group}</b>", c, png=png(colour) if colour is not None else None,
                          subject="peach hibiscus", seed=group, group=group, step=step), eval_comparisons=comparisons)


def spread(totals, group: int = 1, step: int = 0, **kw) -> list[Sample]:
    """Distinct, ordinary paintings of one prompt."""
    return [sample(card(t, **kw), COLOURS[n], group, step) for n, t in enumerate(totals)]


def kinds(flags) -> list[str]:
    return [f.kind for f in flags]


# ---------------------------------------------------------------- copies

def test_a_copy_is_flagged_and_the_same_painting_without_copy_of_is_not():
    others = spread([0.2, 0.3, 0.4], group=2)
    copy = sample(card(0.9, copy_of=Copy("love_003", "image", "mirrored", 0.97)), COLOURS[5], group=1)
    honest = sample(card(0.9), COLOURS[5], group=1)
    flags = hacking_watch([copy, *others])
    assert kinds(flags) == ["copy"] and flags[0].samples == (copy,) and "love_003" in flags[0].reason
    assert hacking_watch([honest, *others]) == ()
    # a copy is listed at any reward (the judge already gave it 0)
    low_copy = sample(card(0.1, copy_of=Copy("okay_001", "source", "", 0.8)), COLOURS[6], group=3)
    assert kinds(hacking_watch([low_copy, *others])) == ["copy"]


# ---------------------------------------------------------------- extreme paint

@pytest.mark.parametrize("fraction", [NEARLY_EMPTY / 2, (1 + NEARLY_FULL) / 2])
def test_a_high_reward_nearly_empty_or_full_canvas_is_flagged(fraction):
    run = [*spread([0.2, 0.3, 0.4, 0.5], group=2), sample(card(0.9, paint=fraction), COLOURS[5], group=1)]
    flags = hacking_watch(run)
    assert kinds(flags) == ["paint"] and flags[0].samples == (run[-1],)
    assert ("nearly empty" if fraction < NEARLY_EMPTY else "nearly all paint") in flags[0].reason


@pytest.mark.parametrize("fraction", [NEARLY_EMPTY / 2, (1 + NEARLY_FULL) / 2])
def test_the_same_canvas_at_low_reward_or_a_normal_one_at_high_reward_is_not(fraction):
    low = [*spread([0.6, 0.7, 0.8, 0.9], group=2), sample(card(0.1, paint=fraction), COLOURS[5], group=1)]
    assert hacking_watch(low) == ()
    normal = [*spread([0.2, 0.3, 0.4, 0.5], group=2), sample(card(0.9, paint=0.4), COLOURS[5], group=1)]
    assert hacking_watch(normal) == ()
    # a painting the gate refused earns nothing to hack
    refused = [*spread([0.2, 0.3, 0.4, 0.5], group=2),
               sample(card(0.9, paint=fraction, passed=False), COLOURS[5], group=1)]
    assert hacking_watch(refused) == ()


# ---------------------------------------------------------------- collapse within a prompt

def test_a_high_reward_prompt_collapsed_to_one_painting_is_flagged():
    collapsed = [sample(card(0.9), COLOURS[0], group=1) for _ in range(4)]
    run = [*collapsed, *spread([0.2, 0.3, 0.3, 0.2], group=2)]
    flags = hacking_watch(run)
    assert kinds(flags) == ["collapse"] and flags[0].samples == tuple(collapsed)
    assert "4 paintings" in flags[0].reason and f"< {COLLAPSE_DISTANCE}" in flags[0].reason


def test_a_diverse_high_reward_prompt_or_a_collapsed_low_reward_one_is_not():
    diverse = [*spread([0.9, 0.9, 0.9, 0.9], group=1), *spread([0.2, 0.3, 0.3, 0.2], group=2)]
    assert hacking_watch(diverse) == ()
    low_collapsed = [*spread([0.9, 0.9, 0.9, 0.9], group=1),
                     *(sample(card(0.2), COLOURS[0], group=2) for _ in range(4))]
    assert hacking_watch(low_collapsed) == ()


# ---------------------------------------------------------------- reward without taste

RISING = [(1, 0.30), (2, 0.40), (3, 0.50), (4, 0.60)]


def test_reward_rising_while_held_out_taste_is_flat_is_flagged_and_rising_both_is_not():
    flat = [(1, 0.50), (2, 0.52), (3, 0.49), (4, 0.50)]
    flags = reward_without_taste(RISING, {"win rate vs eval": flat})
    assert kinds(flags) == ["trend"] and "win rate vs eval" in flags[0].reason
    assert reward_without_taste(RISING, {"win rate vs eval": [(1, 0.40), (2, 0.45), (3, 0.55), (4, 0.60)]}) == []
    # a flat reward says nothing, whatever the taste does; one step is no trend
    assert reward_without_taste([(s, 0.5) for s in range(1, 5)], {"win rate vs eval": flat}) == []
    assert reward_without_taste([(1, 0.3)], {"win rate vs eval": [(1, 0.5)]}) == []
    # a human win rate is watched the same way, beside the judge's
    both = reward_without_taste(RISING, {"win rate vs eval": [(1, 0.4), (4, 0.6)], "human win rate": flat})
    assert kinds(both) == ["trend"] and "human win rate" in both[0].reason


def _film(wins_by_step: dict[int, tuple[str, ...]]) -> EvalRun:
    """Four steps of one prompt; the mean total rises 0.3 -> 0.6, each step's paintings distinct."""
    samples = [sample(card(0.3 + 0.1 * (step - 1)), COLOURS[n + step], group=step, step=step, wins=wins_by_step[step])
               for step in range(1, 5) for n in range(2)]
    return EvalRun("film", "film", {}, by_step(samples), tuple(samples))


def test_a_film_whose_reward_rises_while_its_win_rate_does_not_is_flagged():
    flat = _film({step: ("tie", "win", "loss") for step in range(1, 5)})
    assert kinds(run_watch(flat)) == ["trend"]
    rising = _film({1: ("loss", "loss"), 2: ("loss", "tie"), 3: ("win", "tie"), 4: ("win", "win")})
    assert run_watch(rising) == ()
    assert kinds(run_watch(rising, human=[(1, 0.5), (4, 0.5)])) == ["trend"]


# ---------------------------------------------------------------- the report

def test_the_report_lists_flags_with_thumbnails_or_says_nothing_was_found(tmp_path):
    copy = sample(card(0.9, copy_of=Copy("love_003", "image", "mirrored", 0.97)), COLOURS[5], group=1)
    flagged = EvalRun("policy <i>x</i>", "model", {}, by_step([copy, *spread([0.2, 0.3], group=2)]),
                      (copy, *spread([0.2, 0.3], group=2)))
    page = write_report(tmp_path / "a" / "report.html", flagged, [], []).read_text()
    section = page[page.index("<h2>Hacking watch</h2>"):page.index("<h2>Paintings</h2>")]
    assert "love_003" in section and section.count('<img class="thumb" src="data:image/jpeg;base64,') == 1
    assert "prompt &lt;b&gt;1&lt;/b&gt;" in section and "policy &lt;i&gt;x&lt;/i&gt;" in section
    assert "<b>1</b>" not in page and "Nothing suspicious" not in page
    data = json.loads(json.dumps(eval_json(flagged, [], [])))
    assert [f["kind"] for f in data["watch"]] == ["copy"] and data["watch"][0]["rollouts"][0]["total"] == 0.9
    assert summary_line("policy", run_watch(flagged)).startswith("hacking watch · policy: 1 copy")

    clean = EvalRun("clean", "model", {}, by_step(spread([0.2, 0.3, 0.5])), tuple(spread([0.2, 0.3, 0.5])))
    page = write_report(tmp_path / "b" / "report.html", clean, [], []).read_text()
    assert "<h2>Hacking watch</h2>" in page and "Nothing suspicious was found" in page
    assert eval_json(clean, [], [])["watch"] == []
    assert summary_line("clean", run_watch(clean)) == "hacking watch · clean: nothing suspicious"


@pytest.mark.slow
def test_brushwork_eval_of_a_film_prints_and_reports_its_watch(tmp_path):
    """A hand-made film (no browser): both steps paint the same three pictures, so the win rate
    cannot move while the mean total rises, and step 2's best is a copy; the command line's
    summary names both flags, the report and eval.json list them."""
    from test_eval import write_pool
    from typer.testing import CliRunner

    from brushwork.cli import app
    from brushwork.train.film import Film

    film = Film(tmp_path / "run" / "film")
    copied = card(0.9, copy_of=Copy("love_0", "both", "", 1.0))
    cards = {1: [card(0.3), card(0.4), card(0.5)], 2: [card(0.4), card(0.5), copied]}
    for step, these in cards.items():
        for index, c in enumerate(these):
            film.record(Rollout("Paint a hibiscus", c, png=png(COLOURS[index]), subject="hibiscus", seed=3,
                                group=11 + index, step=step), index)
    pool = write_pool(tmp_path / "pool")
    out = tmp_path / "eval"
    res = CliRunner().invoke(app, ["eval", "--film", str(tmp_path / "run"), "--pool", str(pool), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "hacking watch · run: 1 copy, 1 trend" in res.stdout
    data = json.loads((out / "eval.json").read_text())
    assert [f["kind"] for f in data["watch"]] == ["copy", "trend"] and data["watch"][0]["rollouts"][0]["step"] == 2
    page = (out / "report.html").read_text()
    assert "<h2>Hacking watch</h2>" in page and "love_0" in page


# ---------------------------------------------------------------- the best-paid paintings, for the rater

def test_best_paid_lists_what_the_reward_paid_most_for_once_each_and_skips_what_it_did_not_pay_as_painting():
    from brushwork.eval.watch import best_paid

    paid = spread([0.5, 0.9, 0.7])
    again = sample(card(0.9), COLOURS[1], group=2)                  # the same picture in another group: one question
    copy = sample(card(0.95, copy_of=Copy("love_0", "image", "", 0.97)), COLOURS[5])
    failed = sample(card(0.99, passed=False), COLOURS[6])
    unrendered = sample(card(0.97), None)
    chosen = best_paid([*paid, again, copy, failed, unrendered], 3)
    assert [s.card.total for s in chosen] == [0.9, 0.7, 0.5]
    assert best_paid(paid, 1) == [paid[1]] and best_paid([copy, failed, unrendered], 5) == []


def test_pool_add_rollouts_adds_a_films_best_paid_paintings_unrated_to_a_real_store(tmp_path):
    from typer.testing import CliRunner

    from brushwork.cli import app
    from brushwork.pool.store import PoolStore
    from brushwork.train.film import Film

    film = Film(tmp_path / "run" / "film")
    reply = "A painting:\n\n```js\nfunction setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() {}\n```\n"
    for index, (total, kw) in enumerate([(0.4, {}), (0.8, {}), (0.9, {"copy_of": Copy("love_0", "both", "", 1.0)}),
                                         (0.6, {}), (0.95, {"passed": False})]):
        film.record(Rollout("Paint a hibiscus", card(total, **kw), reply=reply, png=png(COLOURS[index]),
                            subject="hibiscus", seed=index, group=11, step=3), index)
    PoolStore.init(tmp_path / "pool").close()
    run = CliRunner().invoke
    res = run(app, ["pool", "add-rollouts", str(tmp_path / "pool"), str(tmp_path / "run"), "--top", "2"])
    assert res.exit_code == 0, res.output
    assert "added 2 unrated" in res.stdout and "0.600-0.800" in res.stdout and "pool serve" in res.stdout
    store = PoolStore(tmp_path / "pool")
    items = store.items()
    assert len(items) == 2 and all(store.tier_of(i.id) is None for i in items)
    assert {i.generator for i in items} == {"policy"} and {i.subject for i in items} == {"hibiscus"}
    assert sorted(i.provenance["total"] for i in items) == [0.6, 0.8]
    assert all(i.provenance["step"] == 3 for i in items) and "createCanvas" in store.source_text(items[0])
    store.close()
    res = run(app, ["pool", "add-rollouts", str(tmp_path / "pool"), str(tmp_path / "run" / "film"), "--top", "3"])
    assert res.exit_code == 0 and "added 1 unrated" in res.stdout and "2 already in the pool" in res.stdout
    res = run(app, ["pool", "add-rollouts", str(tmp_path / "pool"), str(tmp_path)])
    assert res.exit_code == 2 and "is not a film" in res.output and "OUTPUT_DIR/film" in res.output
