"""Copy detection (score/copies.py): a painting that reproduces a pool painting, however moved,
turned, scaled, cropped or recoloured, or whose sketch is a pool sketch rewritten, is flagged
on its ScoreCard and wins no judge term; honest paintings are not flagged (real Chromium, the
example pool's own sketches as the attack: the tables in copy_attacks.py)."""

from __future__ import annotations

import functools
import json
import random
import re
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from copy_attacks import (
    CALIBRATION,
    HELD_OUT,
    IMAGE_ATTACKS,
    SHAPE_ATTACKS,
    SHAPE_TWINS,
    SKETCH_ATTACKS,
    SOURCE_ATTACKS,
    TRANSLATE,
    as_png,
    backdrop,
    display_list,
    framed,
    image_attack,
    literal_sketch,
    reseeded,
    shrunk_onto_paper,
    spliced,
)
from gate_cases import HONEST
from PIL import Image

from brushwork.env.critique import critique
from brushwork.errors import ConfigError
from brushwork.painter import paint
from brushwork.pool.folder import Pool
from brushwork.score import copy_image
from brushwork.score.card import ScoreCard
from brushwork.score.copies import Copy, CopyDetector
from brushwork.score.copy_display import polygons
from brushwork.score.copy_image import ImageIndex, Search
from brushwork.score.copy_shapes import ShapeIndex
from brushwork.score.options import ScoringOptions
from brushwork.score.pipeline import Pipeline

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = ScoringOptions()
CALIBRATION_SEEDS, HELD_OUT_SEEDS = range(4), range(4, 6)


def fenced(code: str) -> str:
    return f"Here is my painting.\n\n```js\n{code}\n```\n"


def unfenced(markdown: str) -> str:
    return re.search(r"```(?:js|javascript)?\n(.*?)```", markdown, re.S).group(1)


def item(pool, pid):
    return next(i for i in pool.items if i.id == pid)


@pytest.fixture(scope="module")
def detector(example_pool):
    return CopyDetector(example_pool, DEFAULTS.copy_image_similarity, DEFAULTS.copy_source_similarity)


@pytest.fixture(scope="module")
def pipeline(example_pool):
    with Pipeline(ScoringOptions(workers=2)) as p:
        yield p


def honest_sketches() -> dict[str, str]:
    """The legal twins: painter sketches, the bundled good examples, the benchmark sketches."""
    sketches = {f"painter {s}": paint(s).code for s in (*CALIBRATION_SEEDS, *HELD_OUT_SEEDS)}
    for path in sorted((ROOT / "src/brushwork/examples").glob("good_*.md")):
        sketches[path.stem] = unfenced(path.read_text())
    for path in sorted((ROOT / "benchmarks/sketches").glob("*.js"))[:3]:
        sketches[path.stem] = path.read_text()
    return sketches


@pytest.fixture(scope="module")
def rendered(renderer, example_pool):
    """Every sketch attack on one calibration and one held-out pool item, and the honest
    sketches, rendered in one batch: name -> (code, png)."""
    codes = {}
    for pid in (CALIBRATION[0], HELD_OUT[0]):
        source = item(example_pool, pid).source.read_text()
        for name, (edit, _) in SKETCH_ATTACKS.items():
            codes[(pid, name)] = edit(source)
    codes.update(honest_sketches())
    results = renderer.render_many(list(codes.values()), seed=0)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    return {key: (code, r.png, r.display_list) for (key, code), r in zip(codes.items(), results)}


# ---------------------------------------------------------------- the attacks


@pytest.mark.parametrize("pid", [CALIBRATION[0], HELD_OUT[0]], ids=["calibration", "held-out"])
@pytest.mark.parametrize("name", list(SKETCH_ATTACKS))
def test_a_moved_or_recoloured_pool_sketch_is_a_copy(rendered, detector, pid, name):
    code, png, _ = rendered[(pid, name)]
    copy = detector.match(png, code)
    assert copy is not None and copy.id == pid and copy.how in ("source", "both"), (name, copy)
    word = SKETCH_ATTACKS[name][1]
    if word is not None:             # the render is still the whole picture: the picture side sees it too
        seen = detector.images.nearest(png)
        assert seen.id == pid and seen.similarity >= DEFAULTS.copy_image_similarity, (name, seen)
        assert word in seen.transform and copy.how == "both", (name, seen.transform)


@pytest.mark.parametrize("pid", [*CALIBRATION, *HELD_OUT])
@pytest.mark.parametrize("name", list(IMAGE_ATTACKS))
def test_a_pool_painting_changed_as_an_image_is_a_copy(example_pool, detector, pid, name):
    png = image_attack(item(example_pool, pid).image_bytes(), name)
    copy = detector.match(png)       # no sketch: the picture alone
    assert copy is not None and copy.id == pid and copy.how == "image", (name, copy)
    assert IMAGE_ATTACKS[name][1] in copy.transform, (name, copy.transform)


def test_a_painting_shrunk_onto_its_paper_is_a_copy_though_its_paint_met_the_border(example_pool, detector):
    """Hill bands painted edge to edge, shrunk to 0.85 onto their own paper and brightened: each
    band now ends inside the picture, an edge the painting never had. Its framed map has it;
    without framed maps the nearest painting found is this one well under the threshold."""
    i = item(example_pool, "okay_hills_flat_bands")
    png = shrunk_onto_paper(i.image_bytes(), 0.85, (12, 60), brightness=1.15)
    copy = detector.match(png)
    assert copy is not None and copy.id == i.id and "scaled 0.8" in copy.transform, copy
    items = list(example_pool.items)
    plain = ImageIndex([j.id for j in items], [j.image_bytes() for j in items], Search(margin=0)).nearest(png)
    assert plain.id != i.id or plain.similarity < DEFAULTS.copy_image_similarity - 0.1, plain


# flat backdrops: behind a flower on paper, behind a painting with no paper (the backdrop is now its
# commonest colour), as a strip thinner than a reduced pixel; a gradient and a blotchy backdrop behind
# a painting with a paper margin; a flat one under grain (no two pixels of it alike); paintings with no
# paper margin on a blotchy backdrop and on a gradient (found by the seam alone)
BACKDROPS = {"dark": ("love_magenta_hibiscus_bud", (30, 30, 40), (60, 60), 0),
             "no paper": ("love_misty_hills_dawn", (120, 60, 60), (60, 60), 0),
             "thin strip": ("okay_daisy_white_on_green", (250, 250, 250), (3, 9), 0),
             "gradient": ("okay_orange_hibiscus_corner", "gradient", (90, 20), 0),
             "blotchy": ("love_apricot_hibiscus_trio", "blotchy", (20, 100), 0),
             "grain": ("okay_tulip_single", (40, 90, 60), (100, 40), 6),
             "no paper, blotchy": ("love_poppies_meadow", "blotchy", (70, 30), 0),
             "no paper, gradient": ("love_coral_hibiscus_blue_bloom", "gradient", (10, 110), 0),
             "no paper, blotchy, grain": ("love_misty_hills_dawn", "blotchy", (100, 100), 3)}


@pytest.mark.parametrize("case", list(BACKDROPS))
def test_a_painting_shrunk_onto_a_backdrop_of_another_colour_is_a_copy(example_pool, detector, case):
    """Measured from the backdrop, the painting's own paper would be paint and the seam an edge
    all round it. Without telling backdrops from paper the nearest painting found is another, or
    this one well under the threshold."""
    pid, onto, at, sigma = BACKDROPS[case]
    i = item(example_pool, pid)
    onto = backdrop(onto, random.Random(case)) if isinstance(onto, str) else onto
    png = shrunk_onto_paper(i.image_bytes(), 0.8, at, onto=onto, noise=sigma)
    copy = detector.match(png)
    assert copy is not None and copy.id == i.id and re.search(r"scaled 0\.[78]", copy.transform), copy
    items = list(example_pool.items)
    plain = ImageIndex([j.id for j in items], [j.image_bytes() for j in items], Search(backdrops=False)).nearest(png)
    assert plain.id != i.id or plain.similarity < DEFAULTS.copy_image_similarity - 0.1, plain


# a frame drawn over a copy: most of the picture wide, it is a seam and what it holds is measured
# (the detector before the seam rule flagged 1 of the pool's 47 framed so); a small one is not
FRAMES = {"wide": (460, (70, 60)), "nearly the whole picture": (540, (30, 30)),
          "small": (300, (150, 150))}
FRAMED = "love_pink_hibiscus_three_quarter"


@pytest.mark.parametrize("frame", [pytest.param(name, marks=pytest.mark.xfail(
    strict=True, reason="known limit: a frame under 0.7 of the side outweighs the copy's own edges"))
    if name == "small" else name for name in FRAMES])
def test_a_copy_with_a_frame_drawn_over_it_is_a_copy(example_pool, detector, frame):
    i = item(example_pool, FRAMED)
    png = framed(i.image_bytes(), *FRAMES[frame])
    copy = detector.match(png)
    assert copy is not None and copy.id == i.id, detector.images.nearest(png)


def test_honest_paintings_with_a_frame_drawn_over_them_are_not_copies(rendered, detector):
    """The frame's legal twin: an honest painting in a frame is measured inside it and matches
    no pool painting."""
    for name in honest_sketches():
        for frame in ("wide", "nearly the whole picture"):
            png = framed(rendered[name][1], *FRAMES[frame])
            assert detector.match(png) is None, (name, frame, detector.images.nearest(png))


@pytest.mark.parametrize("pid", [*CALIBRATION, *HELD_OUT])
@pytest.mark.parametrize("name", list(SOURCE_ATTACKS))
def test_a_rewritten_pool_sketch_is_a_copy_by_its_source(example_pool, detector, pid, name):
    source = item(example_pool, pid).source.read_text()
    rewritten = SOURCE_ATTACKS[name](source)
    assert rewritten != source
    read = detector.sources.nearest(rewritten)
    assert read.id == pid and read.similarity >= DEFAULTS.copy_source_similarity, (name, read)


def test_a_pool_sketch_rendered_at_another_seed_is_a_copy(renderer, example_pool, detector):
    """Other brush randomness moves the picture (this one's to 0.83 of itself, under the picture
    threshold), not the sketch: the sketch side finds it."""
    i = item(example_pool, CALIBRATION[1])
    code = i.source.read_text()
    again = renderer.render(code, seed=1)
    assert again.ok and again.png != i.image_bytes()
    copy = detector.match(again.png, code)
    assert copy is not None and copy.id == i.id and copy.how in ("source", "both"), copy


# ---------------------------------------------------------------- the legal twins


def test_honest_paintings_are_not_copies(rendered, detector):
    """Painter seeds 0-3 were looked at when the thresholds were set; 4-5, the examples and
    the benchmark sketches were not."""
    names = list(honest_sketches())
    flagged = {n: detector.match(rendered[n][1], rendered[n][0]) for n in names}
    assert all(c is None for c in flagged.values()), {n: c for n, c in flagged.items() if c}
    # and not by a whisker on the held-out ones
    held_out = [n for n in names if not n.startswith("painter") or int(n.split()[1]) in HELD_OUT_SEEDS]
    assert max(detector.sources.nearest(rendered[n][0]).similarity for n in held_out) < 0.8 * \
        DEFAULTS.copy_source_similarity


def test_honest_paintings_laid_on_a_backdrop_are_not_copies(rendered, detector):
    """The backdrop rules' legal twin: honest paintings shrunk onto a dark, a near-white, a
    gradient and a blotchy backdrop, one of them under grain, measured from their own paper,
    match no pool painting."""
    rng = random.Random("honest backdrops")
    backdrops = [(30, 30, 40), (250, 250, 250), backdrop("gradient", rng), backdrop("blotchy", rng)]
    for name in honest_sketches():
        for k, onto in enumerate(backdrops):
            png = shrunk_onto_paper(rendered[name][1], 0.85, (50, 20), onto=onto, noise=4.0 if k == 0 else 0.0)
            assert detector.match(png) is None, (name, k, detector.images.nearest(png))


def _degenerate() -> dict[str, bytes]:
    """Pictures the backdrop rules must take in their stride: marks one pixel wide or at the
    border (boxes too small to have sides), a line along an edge, noise, a gradient, an empty frame."""
    pages = {name: np.full((600, 600, 3), 30, dtype=np.uint8) for name in ("dot", "corner", "edge", "line")}
    pages["dot"][596:, 300:304] = 250
    pages["corner"][:4, :4] = 250
    pages["edge"][:, 598:] = 250
    pages["line"][300:302] = 250
    pages["noise"] = np.random.default_rng(0).integers(0, 256, (600, 600, 3), dtype=np.uint8)
    pages["gradient"] = np.zeros((600, 600, 3), dtype=np.uint8)
    pages["gradient"][..., 0] = np.linspace(0, 255, 600).astype(np.uint8)
    pages["frame"] = np.full((600, 600, 3), 240, dtype=np.uint8)     # a painted frame: a seam with nothing in it
    pages["frame"][50:550, 60:560] = 90
    pages["frame"][60:540, 70:550] = 240
    return {name: as_png(Image.fromarray(page)) for name, page in pages.items()}


DEGENERATE = _degenerate()


# the pool paintings whose only paint is one small mark
NEARLY_EMPTY = ("nope_half_flower_cut_off", "nope_nearly_empty_pale", "nope_tiny_blob_corner")


@pytest.mark.parametrize("name", list(DEGENERATE))
def test_degenerate_pictures_do_not_crash_the_detector(detector, name):
    """A box round one mark at the border has no sides a pixel in (this raised IndexError). A lone
    mark may be matched, but only to a pool painting that is itself one small mark (a mark in a
    corner reaches 0.997 against the flower cut off in a corner): two lone marks look alike."""
    copy = detector.match(DEGENERATE[name])
    assert copy is None or copy.id in NEARLY_EMPTY, copy


def test_two_paintings_of_one_layout_are_apart_once_confirmed(example_pool):
    """The confirm pass's legal twin: a pool pair of one layout that the 48 px search alone puts
    above the threshold (0.88) and the 96 px confirm well below it (0.67)."""
    a, b = item(example_pool, CALIBRATION[1]), item(example_pool, "okay_coral_hibiscus_bud_stem")
    fine = ImageIndex([b.id], [b.image_bytes()], Search(confirm=0)).nearest(a.image_bytes())
    confirmed = ImageIndex([b.id], [b.image_bytes()]).nearest(a.image_bytes())
    assert fine.similarity >= DEFAULTS.copy_image_similarity > confirmed.similarity + 0.1, (fine, confirmed)


def test_the_pool_eval_items_are_not_copies_of_its_train_items(example_pool):
    train = Pool(example_pool.root, example_pool.split("train"), example_pool.snapshot)
    detector = CopyDetector(train, DEFAULTS.copy_image_similarity, DEFAULTS.copy_source_similarity)
    for i in example_pool.split("eval"):
        assert detector.match(i.image_bytes(), i.source.read_text()) is None, i.id


def test_no_pool_painting_is_a_copy_of_another(example_pool, monkeypatch):
    # 47 indexes of 46 paintings: each painting's edge maps (a pure function of its PNG) read once
    monkeypatch.setattr(copy_image, "picture", functools.lru_cache(maxsize=None)(copy_image.picture))
    for i in example_pool.items:
        rest = Pool(example_pool.root, tuple(j for j in example_pool.items if j.id != i.id), example_pool.snapshot)
        detector = CopyDetector(rest, DEFAULTS.copy_image_similarity, -1)
        assert detector.match(i.image_bytes()) is None, i.id


def test_bare_paper_is_not_a_copy_of_anything(renderer, detector):
    empty = renderer.render("function setup() { createCanvas(600, 600, WEBGL); background(252, 248, 238); }")
    assert empty.ok and detector.match(empty.png) is None


# ---------------------------------------------------------------- the scorer


def test_a_pool_sketch_reproduced_is_a_copy_and_wins_no_judge_term(pipeline, example_pool):
    i = item(example_pool, CALIBRATION[0])
    shifted = i.source.read_text().replace(TRANSLATE, "translate(-width / 2 + 24, -height / 2 + 12);")
    painting = pipeline.run(fenced(shifted), seed=0, group_seed=3)
    card = painting.card
    assert card.passed and card.copy_of is not None and card.copy_of.id == i.id and card.copy_of.how == "both"
    assert card.judge == 0.0 and card.comparisons == () and not card.cost.calls.get("judge")
    assert ScoreCard.from_dict(card.to_dict()).copy_of == card.copy_of
    said = critique(painting.gated, 0, 1, card.copy_of)
    assert f"copies pool painting {i.id}, shifted" in said and "copies" not in critique(painting.gated, 0, 1)
    # the legal twin: an honest painting of the same kind is judged as usual
    honest = pipeline.run(HONEST, seed=0, group_seed=3).card
    assert honest.passed and honest.copy_of is None and honest.judge is not None and len(honest.comparisons) == 4


def test_judge_copies_flags_but_judges(example_pool):
    i = item(example_pool, CALIBRATION[0])
    with Pipeline(ScoringOptions(workers=1, judge_copies=True)) as p:
        card = p.run(fenced(i.source.read_text()), seed=0, group_seed=3).card
    assert card.copy_of.id == i.id and len(card.comparisons) == 4 and card.judge is not None


def test_the_thresholds_are_checked_and_can_be_off(example_pool):
    for name in ("copy_image_similarity", "copy_source_similarity", "copy_shape_coverage", "copy_outline_similarity"):
        with pytest.raises(ConfigError, match=name):
            ScoringOptions(**{name: 1.5})
    env = {"BRUSHWORK_COPY_IMAGE_SIMILARITY": "-1", "BRUSHWORK_COPY_SOURCE_SIMILARITY": "0.7"}
    options = ScoringOptions.from_env(env)
    assert options.copy_image_similarity == -1 and options.copy_source_similarity == 0.7
    with Pipeline(ScoringOptions(workers=1, copy_image_similarity=-1, copy_source_similarity=-1,
                                 copy_shape_coverage=-1, copy_outline_similarity=-1, preset="hps-only")) as p:
        assert p.run(fenced(item(example_pool, CALIBRATION[0]).source.read_text()), seed=0).card.copy_of is None


def test_a_card_written_by_the_hash_check_reads_back():
    assert Copy.from_dict(["love_x", 0]) == Copy("love_x", "image", "", 1.0)
    with pytest.raises(ValueError, match="how"):
        Copy("love_x", "pixels", "", 1.0)


# ---------------------------------------------------------------- the shapes (score/copy_shapes.py)
# Display lists compared in pure Python: the pool's stored ones moved as data, no render.
LOVED = ("love_coral_hibiscus_pair", "love_apricot_hibiscus_trio")
COVERAGE = DEFAULTS.copy_shape_coverage


@pytest.fixture(scope="module")
def shape_detector(example_pool):
    return CopyDetector(example_pool, -1, -1, COVERAGE)


@pytest.mark.parametrize("pid", LOVED)
def test_a_pool_paintings_shapes_moved_as_data_are_a_copy(example_pool, shape_detector, pid):
    """Replayed from a literal, turned by any angle, scaled, mirrored, recoloured, reordered, thinned:
    no code and no picture in common that the other sides see, the same layout."""
    polys = polygons(item(example_pool, pid).display_list())
    for name, move in SHAPE_ATTACKS.items():
        copy = shape_detector.match(b"", None, display_list(move(polys, random.Random(name))))
        assert copy is not None and copy.id == pid and copy.how == "shapes", (name, copy)
    turned = shape_detector.match(b"", None, display_list(SHAPE_ATTACKS["rotated 0.38 rad, scaled 1.22"](polys, None)))
    assert turned.describe() == f"{pid}, rotated 22°, scaled 1.22", turned


@pytest.mark.parametrize("pid", LOVED)
def test_a_pool_paintings_shapes_without_its_layout_are_not_a_copy(example_pool, shape_detector, pid):
    """The legal twins: the same shapes scattered, or only the five largest (a flower is no evidence)."""
    polys = polygons(item(example_pool, pid).display_list())
    for name, twin in SHAPE_TWINS.items():
        assert shape_detector.match(b"", None, display_list(twin(polys, random.Random(name)))) is None, name


def test_a_splice_of_two_loved_paintings_is_a_copy_of_both(example_pool, shape_detector):
    parts = ("love_apricot_hibiscus_trio", "love_eucalyptus_sprig")
    polys = [polygons(item(example_pool, pid).display_list()) for pid in parts]
    copy = shape_detector.match(b"", None, display_list(spliced(polys, random.Random(5))))
    assert copy is not None and {copy.id, *copy.also} == set(parts), copy
    assert copy.describe().startswith("spliced from ") and Copy.from_dict(json.loads(json.dumps(asdict(copy)))) == copy


@pytest.mark.parametrize("parts", [("love_tulips_pink_bunch", "love_grey_sea_headland"),
                                   ("love_misty_hills_dawn", "love_peach_hibiscus_soft"),
                                   ("love_purple_anemones", "love_dunes_evening_glow", "love_eucalyptus_sprig")])
def test_a_splice_of_few_large_or_round_shapes_is_a_copy(example_pool, shape_detector, parts):
    """Pieces the single-shape seeds could not place: a landscape's five or six bands, a bunch of like
    tulips, round anemones (no direction to seed from)."""
    polys = [polygons(item(example_pool, pid).display_list()) for pid in parts]
    copy = shape_detector.match(b"", None, display_list(spliced(polys, random.Random(77))))
    assert copy is not None and {copy.id, *copy.also} == set(parts), copy


def test_a_regular_flower_laid_twice_is_not_a_splice(example_pool, shape_detector):
    """The legal twin: a pool painting of two flat five-petal flowers, each of which another pool
    flower's petals turn onto (one pool painting lays out one piece; its petals are one kind)."""
    found = ShapeIndex({i.id: i.display_list() for i in example_pool.items}).nearest(
        item(example_pool, "okay_coral_hibiscus_two_flat").display_list(), frozenset({"okay_coral_hibiscus_two_flat"}))
    assert found is None or found.coverage < COVERAGE, found


def test_a_rerolled_landscape_keeps_its_colours_and_is_a_copy(renderer, example_pool, shape_detector):
    """Rendered for real: hills and reeds drawn from noise move a little with other seeds and none
    lands to the pixel; their colours and places are kept."""
    rolls = (("love_misty_hills_dawn", 2), ("love_lake_reeds_evening", 1))
    codes = [reseeded(item(example_pool, pid).source.read_text(), s) for pid, s in rolls]
    results = renderer.render_many(codes, seed=0)
    assert all(r.ok for r in results), [r.error for r in results]
    for (pid, _), result in zip(rolls, results):
        copy = shape_detector.match(b"", None, result.display_list)
        assert copy is not None and copy.id == pid, (pid, copy)


def test_no_pool_painting_lays_out_another(example_pool):
    """Each pool painting against the rest (the pool's sketches are templates of one another:
    the nearest pair shares 0.62 of its mass)."""
    index = ShapeIndex({i.id: i.display_list() for i in example_pool.items})
    for i in example_pool.items:
        found = index.nearest(i.display_list(), exclude=frozenset({i.id}))
        assert found is None or found.coverage < COVERAGE, (i.id, found)


def test_honest_paintings_lay_out_no_pool_painting(rendered, shape_detector):
    for name in honest_sketches():
        assert shape_detector.shapes.nearest(rendered[name][2]) is None, name


def test_a_rerolled_or_literal_pool_painting_is_a_copy_and_wins_no_judge_term(pipeline, example_pool):
    """Rendered for real: the pool sketch with other random and noise seeds (its petals drawn
    anew, its leaves and centres where they were), and its shapes turned 0.38 rad from a literal;
    the picture and sketch sides miss both (the outline side speaks for the turned literal before
    the shape side). Twin: the literal with its layout scrambled."""
    i = item(example_pool, LOVED[0])
    polys = polygons(i.display_list())
    rerolled = reseeded(i.source.read_text(), 7)
    turned = literal_sketch(SHAPE_ATTACKS["rotated 0.38 rad, scaled 1.22"](polys, None))
    scrambled = literal_sketch(SHAPE_TWINS["scrambled"](polys, random.Random(1)))
    cards = [pipeline.run(fenced(code), seed=0, group_seed=3).card for code in (rerolled, turned, scrambled)]
    for card in cards[:2]:
        assert card.passed and card.copy_of is not None and card.copy_of.id == i.id, card.copy_of
        assert card.copy_of.how in ("shapes", "outline", "both", "source", "image") and card.judge == 0.0
    assert cards[1].copy_of.how in ("outline", "shapes") and "rotated 22°" in cards[1].copy_of.describe()
    assert cards[2].passed and cards[2].copy_of is None and cards[2].judge is not None
