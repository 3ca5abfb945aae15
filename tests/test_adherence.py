"""Colour adherence offline: the colour asked against the colour painted, on honest paintings.

An honest painting of the wrong colour is the attack here (it is paid like the right one by a
judge that cannot see a subject); the same painting asked for its own colour is its legal twin.
"""

from __future__ import annotations

import pytest

from brushwork.painter import paint
from brushwork.score.adherence import adherence, asked_colour

PAINTINGS = {"yellow": paint(3, "yellow hibiscus").code, "pink": paint(3, "pink hibiscus").code,
             "white": paint(3, "white hibiscus with a red eye").code, "magenta": paint(4, "magenta hibiscus").code}


@pytest.fixture(scope="module")
def pngs(renderer):
    results = renderer.render_many(list(PAINTINGS.values()))
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    return {name: r.png for name, r in zip(PAINTINGS, results)}


def test_the_colour_asked_is_the_subjects_first_colour_word():
    assert asked_colour("a white hibiscus with a red eye") == "white"
    assert asked_colour("Purple anemones") == "purple"
    assert asked_colour("a fern frond") is None


@pytest.mark.parametrize("painted, asked_right, asked_wrong", [
    ("yellow", "a yellow hibiscus", "a pink hibiscus"),
    ("pink", "a pink hibiscus", "a yellow hibiscus"),
    ("magenta", "a magenta hibiscus", "a yellow hibiscus"),
    ("white", "a white hibiscus with a red eye", "a yellow hibiscus"),   # white asked: lightness, not hue
])
def test_an_off_colour_painting_scores_low_and_its_twin_high(pngs, painted, asked_right, asked_wrong):
    right, note = adherence(pngs[painted], asked_right)
    wrong, wrong_note = adherence(pngs[painted], asked_wrong)
    assert right >= 0.7, note
    assert wrong <= 0.3, wrong_note
    assert note.startswith(f"asked {asked_colour(asked_right)}, seen mostly")


def test_a_painting_asked_white_that_is_yellow_scores_low(pngs):
    value, note = adherence(pngs["yellow"], "a white hibiscus with a red eye")
    assert value <= 0.3, note


def test_a_subject_without_a_colour_costs_nothing(pngs):
    assert adherence(pngs["yellow"], "a fern frond") == (1.0, "no colour asked")
