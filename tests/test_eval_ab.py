"""Blind human A/B evaluation (`brushwork eval --ab`, `--ab-report`): two small films written
without training, the A/B folder, a scripted rater working through the real rating page over
real HTTP (uvicorn on 127.0.0.1), and the win-rate and bootstrap arithmetic by hand."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageDraw
from servers import serve
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.core.stats import bootstrap_interval
from brushwork.errors import ConfigError
from brushwork.eval import ab
from brushwork.pool.store import PoolStore, Preference
from brushwork.pool.web import create_app
from brushwork.score.card import ScoreCard

PROMPTS = [f"Paint a {c} hibiscus in loose watercolour" for c in ("peach", "coral", "violet", "ochre")]
SECRETS = ("alpha-secret-run", "bravo-secret-run")


def png(seed: int, size: int = 32) -> bytes:
    rng = random.Random(seed)
    image = Image.new("RGB", (size, size), (247, 243, 233))
    draw = ImageDraw.Draw(image)
    for _ in range(4):
        x, y = rng.randrange(size), rng.randrange(size)
        draw.ellipse((x - 6, y - 6, x + 6, y + 6), fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def write_film(root: Path, name: str, prompts: list[str], per_prompt: int, reward: float, judge: float,
               offset: int) -> Path:
    """A run folder with a film of `per_prompt` paintings per prompt; every card carries `reward`
    and `judge` plus a little per-sample noise (so B's terms are all higher when its base is)."""
    from brushwork.score.rollout import Rollout
    from brushwork.train.film import Film

    film = Film(root / name / "film")
    for k, prompt in enumerate(prompts):
        for j in range(per_prompt):
            index = k * per_prompt + j
            noise = 0.01 * j
            card = ScoreCard(passed=True, total=reward + noise, terms={"gate": 1.0, "judge": judge + noise},
                             weights={}, preset="judge-led")
            film.record(Rollout(prompt, card, reply=f"```js\n// {name}\n```", png=png(offset + index),
                                subject="hibiscus", seed=k, group=k, step=1), index)
    return root / name


@pytest.fixture
def runs(tmp_path) -> tuple[Path, Path]:
    a = write_film(tmp_path, SECRETS[0], PROMPTS, per_prompt=3, reward=0.4, judge=0.3, offset=0)
    b = write_film(tmp_path, SECRETS[1], PROMPTS[::-1] + ["a prompt only B saw"], per_prompt=3, reward=0.6,
                   judge=0.7, offset=1000)
    return a, b


def rate_through_page(folder: Path, choose, rater: str = "pat") -> tuple[int, list[str]]:
    """Judge every pair as the page does: GET /api/next?mode=pair, POST /api/prefer. `choose(pair)`
    gets the two item views and returns 'a', 'b' or 'tie'. Returns (pairs judged, raw responses)."""
    store = PoolStore(folder)
    seen, bodies = 0, []
    with serve(create_app(store, blind=True)) as url, httpx.Client(base_url=url, timeout=30) as client:
        bodies.append(client.get("/").text)
        bodies.append(client.get("/api/config").text)
        while True:
            response = client.get("/api/next", params={"rater": rater, "mode": "pair", "skip": 0})
            response.raise_for_status()
            bodies.append(response.text)
            data = response.json()
            if data["pair"] is None:
                assert data["done"] is True
                break
            left, right = data["pair"]
            bodies.append(client.get(f"/api/item/{left['id']}").text)
            answer = client.post("/api/prefer", json={"a": left["id"], "b": right["id"], "rater": rater,
                                                      "winner": choose(data["pair"])})
            answer.raise_for_status()
            seen += 1
            assert answer.json()["progress"]["compared"] == seen
    return seen, bodies


def run_items(folder: Path, run: str) -> set[str]:
    key = json.loads((folder / ab.KEY_FILE).read_text())
    return {side["item"] for p in key["pairs"] for side in (p["left"], p["right"]) if side["run"] == run}


# -- preparing -------------------------------------------------------------------------------------
def test_prepare_pairs_by_prompt_with_balanced_random_sides(runs, tmp_path):
    key = ab.prepare(*runs, tmp_path / "ab", seed=3)
    pairs = key["pairs"]
    assert len(pairs) == 12 and key["identical"] == 0          # 4 shared prompts x 3 samples; B's extra prompt out
    assert all(p["left"]["run"] != p["right"]["run"] for p in pairs)
    assert {p["prompt"] for p in pairs} == set(PROMPTS)
    b_left = [p["left"]["run"] == "B" for p in pairs]
    assert sum(b_left) == 6 and b_left != sorted(b_left) and b_left != sorted(b_left, reverse=True)
    sides = {side["run"]: side for p in pairs for side in (p["left"], p["right"])}
    assert sides["A"]["label"] == SECRETS[0] and sides["B"]["label"] == SECRETS[1]
    assert len({p["left"]["item"] for p in pairs} | {p["right"]["item"] for p in pairs}) == 24
    store = PoolStore(tmp_path / "ab")
    assert store.pairs() == [(p["left"]["item"], p["right"]["item"]) for p in pairs]
    assert all(i.generator == "" and i.provenance == {} and i.source is None for i in store.items())
    # the same seed prepares the same test; another seed another order
    again = ab.prepare(*runs, tmp_path / "ab2", seed=3)
    assert again["pairs"] == pairs
    other = ab.prepare(*runs, tmp_path / "ab3", seed=4)
    assert [p["left"]["item"] for p in other["pairs"]] != [p["left"]["item"] for p in pairs]


# -- a scripted rater through the real page ------------------------------------------------------------
def test_rater_who_always_prefers_b_wins_one_and_names_stay_hidden(runs, tmp_path):
    folder = tmp_path / "ab"
    ab.prepare(*runs, folder, seed=1)
    b_items = run_items(folder, "B")
    judged, bodies = rate_through_page(folder, lambda pair: "a" if pair[0]["id"] in b_items else "b")
    assert judged == 12
    for body in bodies:
        for secret in (*SECRETS, "alpha", "bravo", str(runs[0]), "// alpha"):
            assert secret not in body
    shown = [view for b in bodies if b.startswith('{"mode"') for view in json.loads(b)["pair"] or ()]
    assert len(shown) == 24 and all(v["generator"] is None and v["provenance"] is None for v in shown)
    r = ab.report(folder)
    assert (r.rated, r.total, r.win_rate, r.win_interval) == (12, 12, 1.0, (1.0, 1.0))
    assert r.reward_diff == pytest.approx(0.2) and r.reward_interval == pytest.approx((0.2, 0.2), abs=0.011)
    assert (r.judge_agreement, r.judge_pairs, r.judge_win_rate) == (1.0, 12, 1.0)
    assert (r.reward_agreement, r.reward_agreement_pairs) == (1.0, 12)
    assert json.loads((folder / ab.REPORT_FILE).read_text())["win_rate"] == 1.0


def test_rater_who_always_picks_the_left_side_is_at_chance(runs, tmp_path):
    folder = tmp_path / "ab"
    ab.prepare(*runs, folder, seed=2)
    judged, _ = rate_through_page(folder, lambda pair: "a")
    r = ab.report(folder)
    assert judged == 12 and r.win_rate == 0.5
    assert r.win_interval[0] < 0.5 < r.win_interval[1]
    assert r.judge_agreement == 0.5   # the judge always prefers B; the person agrees on B's left turns


def test_a_second_rater_and_ties_average_per_pair(runs, tmp_path):
    folder = tmp_path / "ab"
    ab.prepare(*runs, folder, seed=1)
    b_items = run_items(folder, "B")
    rate_through_page(folder, lambda pair: "a" if pair[0]["id"] in b_items else "b", rater="pat")
    rate_through_page(folder, lambda pair: "tie", rater="sam")
    r = ab.report(folder)
    assert r.win_rate == pytest.approx(0.75) and r.win_interval == pytest.approx((0.75, 0.75))
    assert r.judge_pairs == 12    # each pair is 0.75 for B: not a tie, so it counts


# -- the arithmetic, by hand ---------------------------------------------------------------------------
def test_bootstrap_interval_matches_the_exact_bootstrap_distribution():
    # Means of 4 draws from [1, 1, 1, 0] are k/4 with k ~ Binomial(4, 3/4): P(k <= 0) = 1/256 and
    # P(k <= 1) = 13/256 = 0.051, so the 2.5 % quantile is 1/4; P(k = 4) = 81/256, so the 97.5 % is 1.
    assert bootstrap_interval([1, 1, 1, 0], resamples=20000, seed=0) == (0.25, 1.0)
    # [1, 0]: means 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4: the interval is [0, 1].
    assert bootstrap_interval([1, 0], resamples=4000, seed=5) == (0.0, 1.0)
    # Twenty pairs at 0.7: the normal approximation sqrt(.7 * .3 / 20) = 0.102 gives about +-0.2.
    lo, hi = bootstrap_interval([1] * 14 + [0] * 6, resamples=4000, seed=0)
    assert lo == pytest.approx(0.5, abs=0.051) and hi == pytest.approx(0.9, abs=0.051)
    assert bootstrap_interval([1] * 14 + [0] * 6, resamples=4000, seed=0) == (lo, hi)   # seeded


def test_outcomes_count_ties_as_half_and_a_raters_latest_verdict():
    key = {"pairs": [{"left": {"run": "B", "item": "b1"}, "right": {"run": "A", "item": "a1"}},
                     {"left": {"run": "A", "item": "a2"}, "right": {"run": "B", "item": "b2"}},
                     {"left": {"run": "A", "item": "a3"}, "right": {"run": "B", "item": "b3"}}]}

    def pref(n, a, b, rater, winner):
        return Preference(n, a, b, rater, winner, float(n))
    prefs = [pref(1, "b1", "a1", "pat", "b"),      # pat: A, then changes their mind: B
             pref(2, "b1", "a1", "pat", "a"),
             pref(3, "b1", "a1", "sam", "tie"),    # sam: tie -> pair 1 = (1 + 0.5) / 2
             pref(4, "a2", "b2", "pat", "a"),      # pair 2: A
             pref(5, "x", "y", "pat", "a")]        # not a pair of this test: ignored
    assert ab.outcomes(key, prefs) == [0.75, 0.0, None]


# -- errors and the command line ------------------------------------------------------------------------
def test_errors_say_what_to_do(runs, tmp_path):
    lonely = write_film(tmp_path, "lonely", ["Paint a white lotus"], per_prompt=1, reward=0.5, judge=0.5, offset=500)
    with pytest.raises(ConfigError, match="share no prompt"):
        ab.prepare(runs[0], lonely, tmp_path / "x")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="not a film"):
        ab.prepare(runs[0], tmp_path / "empty", tmp_path / "y")
    ab.prepare(*runs, tmp_path / "ab")
    with pytest.raises(ConfigError, match="already holds an A/B test"):
        ab.prepare(*runs, tmp_path / "ab")
    with pytest.raises(ConfigError, match="nobody has judged"):
        ab.report(tmp_path / "ab")
    with pytest.raises(ConfigError, match="not an A/B folder"):
        ab.report(tmp_path / "empty")


def test_cli_prepares_and_reports(runs, tmp_path):
    cli = CliRunner()
    folder = tmp_path / "ab"
    made = cli.invoke(app, ["eval", "--ab", str(runs[0]), str(runs[1]), "--out", str(folder), "--no-serve",
                            "--seed", "7"])
    assert made.exit_code == 0, made.output
    assert "12 blind pairs" in " ".join(made.output.split())
    early = cli.invoke(app, ["eval", "--ab-report", str(folder)])
    assert early.exit_code == 2 and "nobody has judged" in " ".join(early.output.split())
    store = PoolStore(folder)
    for a, b in store.pairs()[:4]:
        store.prefer(a, b, "pat", "b")
    shown = cli.invoke(app, ["eval", "--ab-report", str(folder)])
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    assert "4 / 12" in text and "win rate" in text and (folder / ab.REPORT_FILE).is_file()
    missing = cli.invoke(app, ["eval", "--ab", str(runs[0]), str(tmp_path / "nowhere"), "--out",
                               str(tmp_path / "o"), "--no-serve"])
    assert missing.exit_code == 2 and "does not exist" in " ".join(missing.output.split())


# -- the page itself, in Chromium -----------------------------------------------------------------------
@pytest.mark.chromium
def test_rater_in_chromium_judges_every_pair_blind(runs, tmp_path):
    from playwright.sync_api import sync_playwright

    from brushwork.render.browser import find_chromium

    folder = tmp_path / "ab"
    ab.prepare(*runs, folder, seed=5)
    b_items = run_items(folder, "B")
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-quic"]
    ready = "document.body.dataset.state === 'ready'"
    with serve(create_app(PoolStore(folder), blind=True)) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=args)
        page = browser.new_page()
        page.add_init_script("localStorage.setItem('brushwork.rater', 'kim')")
        page.goto(url + "/?mode=pair")
        for _ in range(12):
            page.wait_for_function(f"() => {ready} && (document.body.dataset.item || '').includes('|')")
            shown = page.evaluate("document.body.dataset.item")
            for secret in SECRETS:
                assert secret not in page.content()
            page.keyboard.press("a" if shown.split("|")[0] in b_items else "b")
            page.wait_for_function(f"([shown]) => (document.body.dataset.item !== shown || "
                                   f"!document.getElementById('empty').hidden) && {ready}", arg=[shown])
        assert page.is_hidden("#pair-view")
        assert "Every pair is judged" in page.text_content("#empty")
        browser.close()
    r = ab.report(folder)
    assert (r.rated, r.win_rate, r.win_interval) == (12, 1.0, (1.0, 1.0))
