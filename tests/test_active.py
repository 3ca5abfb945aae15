"""The active chooser (brushwork.score.taste.active) on a real PoolStore with real PNGs and the
real classical features: cold start spreads over subjects, the fit's tier probabilities follow
the ratings, the most uncertain painting and the closest pair are asked, refits run in the
background every few judgements, and a fit that cannot be made leaves the chooser working."""

from __future__ import annotations

import io
import itertools
import math
import random

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from brushwork.pool.store import PoolStore
from brushwork.score.taste.active import ActiveChooser, entropy

TIER_OF_SIZE = ("nope", "okay", "love")   # in these paintings, more paint is better


def wash(size_share: float, seed: int, side: int = 240) -> bytes:
    """A soft wash covering about `size_share` of the paper: tier follows the paint on it."""
    rng = random.Random(seed)
    image = Image.new("RGB", (side, side), (247, 243, 233))
    draw = ImageDraw.Draw(image)
    r = side * math.sqrt(size_share) / 2
    for _ in range(5):
        cx, cy = side / 2 + rng.uniform(-8, 8), side / 2 + rng.uniform(-8, 8)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(rng.randint(170, 230), rng.randint(60, 120), 90))
    buffer = io.BytesIO()
    image.filter(ImageFilter.GaussianBlur(3)).save(buffer, "PNG")
    return buffer.getvalue()


def graded_store(root, n: int = 12) -> tuple[PoolStore, dict[str, float]]:
    """n paintings of rising coverage, each its own subject but for two that share one."""
    store = PoolStore.init(root)
    share = {}
    for k in range(n):
        s = 0.04 + 0.8 * k / (n - 1)
        subject = "twins" if k in (1, 2) else f"study {k}"
        share[store.add_item(wash(s, k), subject=subject)] = s
    return store, share


def tier_for(share: float) -> str:
    return TIER_OF_SIZE[min(int(share / 0.3), 2)]


def test_cold_start_spreads_over_subjects(tmp_path):
    store = PoolStore.init(tmp_path / "pool")
    subjects = ["hibiscus"] * 4 + ["poppy", "tulip"]
    ids = [store.add_item(wash(0.1 + 0.1 * k, k), subject=s) for k, s in enumerate(subjects)]
    chooser = ActiveChooser(store, background=False)
    asked = []
    for _ in range(3):
        choice = chooser.next_item("ana")
        assert choice.why.startswith("cold start") and len(choice.ids) == 1
        asked.append(choice.ids[0])
        store.rate(choice.ids[0], "ana", "okay")          # one tier only: the model cannot be fit yet
    assert sorted(store.item(i).subject for i in asked) == ["hibiscus", "poppy", "tulip"]
    assert asked != ids[:3], "the plain queue would have asked three hibiscus first"
    assert chooser.next_item("ana", after=None).ids[0] in ids[:4]   # then the subject with most left


def test_fit_follows_the_ratings_and_asks_the_uncertain_middle(tmp_path):
    store, share = graded_store(tmp_path / "pool")
    by_share = sorted(share, key=share.get)
    for item in by_share[:2] + by_share[-2:]:                # the two emptiest and the two fullest
        store.rate(item, "ana", tier_for(share[item]))
    chooser = ActiveChooser(store, background=False, spread=0.0)
    fit = chooser.refit("ana")
    assert fit.tiers == ("love", "nope")
    probs = fit.tier_probabilities(np.stack([chooser._features[i] for i in (by_share[0], by_share[-1])]))
    assert probs[0, 1] > 0.7 and probs[1, 0] > 0.7, "the emptiest reads nope, the fullest love"

    choice = chooser.next_item("ana")
    assert choice.why.startswith("the model is unsure: love 0.") and " / nope 0." in choice.why
    unrated = by_share[2:-2]
    ranked = entropy(fit.tier_probabilities(np.stack([chooser._features[i] for i in unrated])))
    assert choice.ids[0] == unrated[int(np.argmax(ranked))]
    assert 2 <= by_share.index(choice.ids[0]) <= len(by_share) - 3


def test_skip_asks_another_and_all_rated_hands_back_to_the_queue(tmp_path):
    store, share = graded_store(tmp_path / "pool", n=4)
    chooser = ActiveChooser(store, background=False)
    first = chooser.next_item("ana").ids[0]
    assert chooser.next_item("ana", after=first).ids[0] != first
    for item in share:
        store.rate(item, "ana", tier_for(share[item]))
    assert chooser.next_item("ana") is None


def test_pair_is_the_closest_call_between_different_subjects(tmp_path):
    store, share = graded_store(tmp_path / "pool")
    by_share = sorted(share, key=share.get)
    for item in by_share[::3]:
        store.rate(item, "ana", tier_for(share[item]))
    chooser = ActiveChooser(store, background=False, coverage=0.0)
    fit = chooser.refit("ana")
    choice = chooser.next_pair("ana")
    a, b = choice.ids
    assert store.item(a).subject != store.item(b).subject
    assert choice.why.startswith("the model is unsure which you prefer: P(left is better) 0.")
    u = dict(zip(share, fit.utilities(np.stack([chooser._features[i] for i in share]))))
    closest = min(abs(u[x] - u[y]) for x, y in itertools.combinations(share, 2)
                  if store.item(x).subject != store.item(y).subject)
    assert abs(u[a] - u[b]) == pytest.approx(closest)

    store.prefer(a, b, "ana", "a")
    chooser.refit("ana")
    again = chooser.next_pair("ana").ids
    assert set(again) != {a, b}, "a judged pair is not asked again"


def test_pairs_without_anything_to_fit_spread_over_subjects(tmp_path):
    store, _ = graded_store(tmp_path / "pool", n=5)
    chooser = ActiveChooser(store, background=False)
    choice = chooser.next_pair("ana")
    assert choice.why.startswith("cold start")
    assert len(set(choice.ids)) == 2 and store.item(choice.ids[0]).subject != store.item(choice.ids[1]).subject


def test_refits_run_in_the_background_every_few_judgements(tmp_path):
    store, share = graded_store(tmp_path / "pool")
    by_share = sorted(share, key=share.get)
    chooser = ActiveChooser(store, refit_every=3)
    try:
        for item in (by_share[0], by_share[-1]):
            store.rate(item, "ana", tier_for(share[item]))
        assert chooser.next_item("ana").why.startswith("cold start"), "no fit yet: the page does not wait for one"
        assert chooser.settle()
        assert chooser.next_item("ana").why.startswith("the model is unsure")
        fitted = chooser.current_fit("ana")
        assert fitted.judgements == 2

        last = store.rate(by_share[1], "ana", "nope")
        chooser.next_item("ana")
        assert chooser.settle() and chooser.current_fit("ana") is fitted, "one more rating: no refit yet"
        latest = [store.rate(item, "ana", "nope") for item in by_share[2:4]]
        chooser.next_item("ana")
        assert chooser.settle() and chooser.current_fit("ana").judgements == 5
        for rating in (*latest, last):     # the page undoes by a rating's receipt: by its id
            assert store.delete_rating(rating) is not None
        chooser.next_item("ana")
        assert chooser.settle() and chooser.current_fit("ana").judgements == 2, "undone ratings are unlearnt"
    finally:
        chooser.close()


def test_a_painting_that_cannot_be_measured_leaves_the_chooser_working(tmp_path, caplog):
    store, share = graded_store(tmp_path / "pool", n=4)
    broken = store.add_item(b"\x89PNG\r\n\x1a\n not really a painting", subject="broken")
    by_share = sorted(share, key=share.get)
    store.rate(by_share[0], "ana", "nope")
    store.rate(by_share[-1], "ana", "love")
    chooser = ActiveChooser(store)
    try:
        first = chooser.next_item("ana")
        assert chooser.settle()
        assert "refitting ana's taste head failed" in caplog.text
        again = chooser.next_item("ana")
        assert again.why.startswith("cold start") and again == first, "still asking, by the cold-start rule"
        assert {again.ids[0]} <= set(share) | {broken}
    finally:
        chooser.close()


def test_pairs_learn_from_preferences_alone(tmp_path):
    store, share = graded_store(tmp_path / "pool")
    by_share = sorted(share, key=share.get)
    for full, empty in zip(by_share[-3:], by_share[:3]):       # no tier rated: only comparisons, fuller wins
        store.prefer(full, empty, "ana", "a")
    chooser = ActiveChooser(store, background=False)
    fit = chooser.refit("ana")
    assert fit is not None and fit.tiers == (), "preferences give a head but no tier cut points"
    u = fit.utilities(np.stack([chooser._features[i] for i in (by_share[0], by_share[-1])]))
    assert u[1] > u[0]
    assert chooser.next_pair("ana").why.startswith("the model is unsure which you prefer")
    assert chooser.next_item("ana").why.startswith("cold start"), "tier mode still needs two rated tiers"
