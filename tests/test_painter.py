"""The procedural painter: valid, deterministic, varied sketches that really paint."""

from __future__ import annotations

import re

import pytest

from brushwork.errors import ConfigError
from brushwork.gate import Gate
from brushwork.painter import DOMAINS, MAX_FILLS, SUBJECTS, ProceduralPainting, paint

GATE = Gate()   # the recipe's configuration

ALL_SUBJECTS = [s for subjects in SUBJECTS.values() for s in subjects]


def forty() -> list[ProceduralPainting]:
    """Every subject once, then seeded picks: 40 paintings across all domains."""
    return [paint(seed, ALL_SUBJECTS[seed] if seed < len(ALL_SUBJECTS) else None) for seed in range(40)]


def test_catalogue_covers_every_domain():
    assert set(SUBJECTS) == set(DOMAINS)
    assert all(len(subjects) >= 3 for subjects in SUBJECTS.values())
    assert "peach hibiscus" in SUBJECTS["hibiscus"] and "white hibiscus with a red eye" in SUBJECTS["hibiscus"]


def test_forty_paintings_pass_the_static_gate():
    paintings = forty()
    assert {p.domain for p in paintings} == set(DOMAINS)
    for p in paintings:
        report = GATE.check(p.code)
        assert report.passed, (p.subject, [v.to_dict() for v in report.violations])


def test_sketches_follow_the_skeleton_and_read_like_answers():
    for p in forty():
        code = p.code
        assert code.startswith("// ") and "createCanvas(600, 600, WEBGL);" in code and "noLoop();" in code
        assert "translate(-width / 2, -height / 2);" in code and re.search(r"background\(\d+, \d+, \d+\);", code)
        assert 45 <= len(code.splitlines()) <= 150, (p.subject, len(code.splitlines()))
        # every helper function carries a comment saying what it paints
        for m in re.finditer(r"^function (\w+)\(", code, re.MULTILINE):
            if m.group(1) not in ("setup", "draw"):
                before = code[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
                assert before.startswith("//"), (p.subject, m.group(1))
        methods = set(re.findall(r"brush\.(\w+)\(", code))
        assert methods <= {"noStroke", "fill", "fillBleed", "fillTexture", "beginShape", "vertex", "endShape",
                           "circle", "noFill", "scaleBrushes"}


def test_same_seed_same_painting():
    assert paint(7) == paint(7)
    assert paint(7, "magenta hibiscus", layers=2) == paint(7, "magenta hibiscus", layers=2)
    assert paint(7, "magenta hibiscus").code != paint(8, "magenta hibiscus").code


def test_paintings_vary():
    paintings = forty()
    assert len({p.code for p in paintings}) == len(paintings)
    hibiscus = [paint(seed, "peach hibiscus") for seed in range(12)]
    assert len({repr(sorted(p.params.items())) for p in hibiscus}) == 12
    for name in ("composition", "layers", "paper", "palette", "petal_shape"):
        assert len({p.params[name] for p in hibiscus}) >= 2, name
    assert len({p.params["bleed"] for p in hibiscus}) >= 6
    assert all(0.05 <= p.params["bleed"] <= 0.5 for p in paintings)


def test_overrides_change_only_what_they_name():
    base = paint(3, "peach hibiscus")
    other = "apricot" if base.params["palette"] == "peach" else "peach"
    changed = paint(3, "peach hibiscus", palette=other, composition="centred", petals=6)
    assert changed.params == base.params | {"palette": other, "composition": "centred", "petals": 6}
    assert "const PETALS = 6" in changed.code


@pytest.mark.parametrize("subject,overrides,match", [
    ("seascape", {"bleed": 0.9}, "bleed"),
    ("seascape", {"petals": 5}, "unknown painter parameter"),
    ("peach hibiscus", {"palette": "neon"}, "palette"),
    ("peach hibiscus", {"composition": "upside down"}, "composition"),
    ("a portrait of my cat", {}, "no layout"),
])
def test_bad_requests_say_what_is_allowed(subject, overrides, match):
    with pytest.raises(ConfigError, match=match):
        paint(0, subject, **overrides)


def test_free_form_subjects_find_a_layout():
    p = paint(0, "a white hibiscus at noon")
    assert p.domain == "hibiscus" and p.params["palette"] == "white" and p.subject == "a white hibiscus at noon"
    assert paint(1, "poppies in a field").domain == "flowers"
    assert GATE.check(paint(2, "a quiet lake").code).passed


def test_white_paint_goes_on_tinted_paper():
    for seed in range(6):
        p = paint(seed, "white hibiscus with a red eye")
        assert p.params["paper"] in ("blue-grey", "sage", "warm grey") and p.params["layers"] == 3


@pytest.mark.chromium
def test_six_rendered_paintings_pass_the_run_time_gate(renderer):
    picks = [paint(1, "peach hibiscus"), paint(2, "red poppies"), paint(3, "eucalyptus sprig"),
             paint(4, "misty hills"), paint(5, "abstract circles"), paint(6, "white hibiscus with a red eye")]
    results = renderer.render_many([p.code for p in picks], seed=0)
    for p, result in zip(picks, results):
        assert result.ok, (p.subject, result.detail)
        report = GATE.check(p.code, render=result)
        assert report.passed, (p.subject, [v.to_dict() for v in report.violations])
        assert result.paint_fraction >= 0.02, p.subject
        assert result.paint_calls <= MAX_FILLS + 2, (p.subject, result.paint_calls)
        assert not result.js_errors
