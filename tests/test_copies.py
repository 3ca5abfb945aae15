"""Copy detection (score/copies.py): a painting that nearly duplicates a pool painting is
flagged on its ScoreCard and wins no judge term; honest paintings are not flagged (real
Chromium, the example pool's own sketches as the attack)."""

from __future__ import annotations

import io

import pytest
from gate_cases import HONEST
from PIL import Image, ImageEnhance

from brushwork.errors import ConfigError
from brushwork.painter import paint
from brushwork.pool.split import dhash, hamming
from brushwork.score.copies import DEFAULT_DISTANCE, HASH_SIZE, CopyDetector
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline


def fenced(code: str) -> str:
    return f"Here is my painting.\n\n```js\n{code}\n```\n"


@pytest.fixture(scope="module")
def pipeline(example_pool):
    with Pipeline(ScoringOptions(workers=2)) as p:
        yield p


def loved(pool):
    return next(i for i in pool.items if i.tier == "love" and i.split == "train")


def test_a_pool_sketch_reproduced_is_a_copy_and_wins_no_judge_term(pipeline, example_pool):
    item = loved(example_pool)
    card = pipeline.run(fenced(item.source.read_text()), seed=0, group_seed=3).card
    assert card.passed and card.copy_of == (item.id, 0)
    assert card.judge == 0.0 and card.comparisons == () and not card.cost.calls.get("judge")
    # the legal twin: an honest painting of the same kind is judged as usual
    honest = pipeline.run(HONEST, seed=0, group_seed=3).card
    assert honest.passed and honest.copy_of is None and honest.judge is not None and len(honest.comparisons) == 4


def test_judge_copies_flags_but_judges(example_pool):
    item = loved(example_pool)
    with Pipeline(ScoringOptions(workers=1, judge_copies=True)) as p:
        card = p.run(fenced(item.source.read_text()), seed=0, group_seed=3).card
    assert card.copy_of == (item.id, 0) and len(card.comparisons) == 4 and card.judge is not None


def test_near_copies_are_caught_and_distinct_paintings_are_not(example_pool):
    detector = CopyDetector(example_pool)
    item = loved(example_pool)
    with Image.open(io.BytesIO(item.image_bytes())) as im:
        im = ImageEnhance.Brightness(im.convert("RGB")).enhance(0.93).resize((560, 560))
        buf = io.BytesIO()
        im.save(buf, "PNG")
    near = detector.match(buf.getvalue())          # darker and rescaled: still the same picture
    assert near is not None and near.id == item.id and near.distance <= DEFAULT_DISTANCE
    # no pool painting is a copy of another one (the check's false positives on distinct paintings)
    hashes = {i.id: dhash(i.image_bytes(), HASH_SIZE) for i in example_pool.items}
    ids = sorted(hashes)
    closest = min(hamming(hashes[a], hashes[b]) for n, a in enumerate(ids) for b in ids[n + 1:])
    assert closest > DEFAULT_DISTANCE


def test_painter_paintings_are_not_copies(pipeline):
    for seed in range(4):
        card = pipeline.run(fenced(paint(seed).code), seed=seed).card
        assert card.passed and card.copy_of is None, (seed, card.copy_of)


def test_copy_distance_is_checked_and_can_be_off(example_pool):
    with pytest.raises(ConfigError, match="copy_distance"):
        ScoringOptions(copy_distance=257)
    assert ScoringOptions.from_env({"BRUSHWORK_COPY_DISTANCE": "-1"}).copy_distance == -1
    with Pipeline(ScoringOptions(workers=1, copy_distance=-1, preset="hps-only")) as p:
        item = loved(example_pool)
        assert p.run(fenced(item.source.read_text()), seed=0).card.copy_of is None
