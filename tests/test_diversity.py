"""The diversity term: near-duplicates within a GRPO group are paid less, noise does not make a
duplicate diverse, and two honest layouts of one subject are not duplicates (the legal twins).

The attacks are edits of a procedural sketch, rendered for real: coordinates moved a few pixels,
colours moved a few units, the leaves laid in the other order, a few tiny strokes added, and all
of them at once. The twins are the same subject laid out another way. The pink lotus is the
hard case: its water wash is most of what is painted, and the painter's own lotus layouts share
that pond (they read as one composition); its twin is laid out by hand.
"""

from __future__ import annotations

import io
import random
import re

import numpy as np
import pytest
from PIL import Image

from brushwork.painter import paint
from brushwork.score import diversity
from brushwork.score.card import ScoreCard
from brushwork.score.diversity import Memory, adjust_group, compositions, distance, look, pairwise
from brushwork.score.reward import preset_weights

SUBJECT = "yellow hibiscus"


def jitter_xy(code: str, px: int = 3, seed: int = 1) -> str:
    """Every 2-3 digit number on the lines that place flowers, leaves and washes, moved by up to px."""
    rng = random.Random(seed)
    out = []
    for line in code.splitlines():
        if re.search(r"const (flowers|leaves|blooms)|blob\(|brush\.circle", line) and "function" not in line:
            line = re.sub(r"(?<![\w.#])(\d{2,3})(?![\w.])", lambda m: str(int(m.group(1)) + rng.randint(-px, px)),
                          line)
        out.append(line)
    return "\n".join(out)


def jitter_colour(code: str, units: int = 4, seed: int = 2) -> str:
    rng = random.Random(seed)

    def one(m):
        return "#" + "".join(f"{max(0, min(255, int(m.group(1)[i:i + 2], 16) + rng.randint(-units, units))):02x}"
                             for i in (0, 2, 4))
    return re.sub(r"#([0-9a-f]{6})", one, code)


def reorder(code: str) -> str:
    """The leaves (hibiscus) or the blooms (lotus) laid in the other order."""
    out = code.replace("leaves.forEach(", "leaves.reverse().forEach(").replace(" of blooms)", " of blooms.reverse())")
    assert out != code, "nothing to reorder in this sketch"
    return out


def tiny_strokes(code: str) -> str:
    end = code.rstrip().rfind("}")
    extra = '  wash("#7a5c3a", 200, 0.1, 0.3, 0.3);\n' + "".join(
        f"  brush.circle({x}, {y}, 3);\n" for x, y in ((60, 80), (520, 90), (90, 530)))
    return code[:end] + extra + code[end:]


def attacks(base: str) -> dict[str, str]:
    return {"coordinates moved 3 px": jitter_xy(base), "colours moved 4 units": jitter_colour(base),
            "laid in the other order": reorder(base), "three tiny strokes added": tiny_strokes(base),
            "all of them": tiny_strokes(reorder(jitter_colour(jitter_xy(base))))}


def pond_high(code: str) -> str:
    """A lotus laid out another way by hand: a smaller pond high on the right, one bloom on it (the
    painter's own lotus layouts share one pond and move a bloom: they read as one composition)."""
    code = re.sub(r"const blooms = .*", "const blooms = [[430, 230, 170, 1]];", code)
    for old, new in (("blob(300, 440, 290, 110", "blob(360, 280, 220, 120"), ("blob(162, 433", "blob(250, 300"),
                     ("blob(432, 463", "blob(470, 330")):
        assert old in code, f"the painter's lotus changed: {old} is gone"
        code = code.replace(old, new)
    return code


BASE = paint(3, SUBJECT).code
ATTACKS = attacks(BASE)
TWINS = {"off-centre": paint(3, SUBJECT, composition="off-centre").code,
         "diagonal": paint(3, SUBJECT, composition="diagonal").code,
         "several blooms, another seed": paint(6, SUBJECT).code}
# the pink lotus: its water wash is most of the paint, and every layout shares it
LOTUS = paint(3, "pink lotus").code
LOTUS_ATTACKS = attacks(LOTUS)
LOTUS_TWINS = {"pond high on the right": pond_high(paint(3, "pink lotus", composition="centred").code)}
CASES = {SUBJECT: ("base", ATTACKS, TWINS), "pink lotus": ("lotus", LOTUS_ATTACKS, LOTUS_TWINS)}


@pytest.fixture(scope="module")
def looks(renderer):
    named = {"base": BASE, **ATTACKS, **TWINS, "lotus": LOTUS,
             **{f"lotus: {k}": v for k, v in {**LOTUS_ATTACKS, **LOTUS_TWINS}.items()}}
    results = renderer.render_many(list(named.values()))
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    return {name: (look(r.png), r.png) for name, r in zip(named, results)}


@pytest.mark.parametrize("subject", list(CASES))
def test_noise_does_not_make_a_duplicate_diverse_and_honest_layouts_are_not_duplicates(looks, subject):
    original, noisy, twins = CASES[subject]
    prefix = "" if original == "base" else f"{original}: "
    base = looks[original][0]
    for name in noisy:
        d = distance(base, looks[prefix + name][0])
        assert d <= diversity.DUPLICATE, f"{subject}, {name}: {d:.3f} apart, must stay a duplicate"
        assert diversity.value_of(d) == 0.0
    for name in twins:
        d = distance(base, looks[prefix + name][0])
        assert d >= diversity.DISTINCT, f"{subject}, {name}: {d:.3f} apart, an honest layout must be distinct"
        assert diversity.value_of(d) == 1.0
    pngs = [looks[original][1], *(looks[prefix + n][1] for n in (*noisy, *twins))]
    assert compositions(pngs) == 1 + len(twins)


def test_a_group_pays_its_duplicates_less(looks):
    weights = dict(preset_weights("recipe-diverse"))
    group = ["base", "all of them", "off-centre", "diagonal"]
    cards = [_card(weights) for _ in group]
    out = adjust_group(cards, [looks[n][1] for n in group])
    values = [c.diversity for c in out]
    # the noisy copy and its original each duplicate one of three group-mates; the layouts none
    assert values == pytest.approx([2 / 3, 2 / 3, 1.0, 1.0])
    assert out[0].total == pytest.approx(cards[0].total - weights["diversity"] / 3)
    assert out[2].total == pytest.approx(cards[2].total)
    assert "group-mate 1" in out[0].term_notes["diversity"] and "a duplicate of 1" in out[0].term_notes["diversity"]
    assert min(pairwise([looks[n][1] for n in group])) <= diversity.DUPLICATE


def test_a_crowded_composition_earns_less_than_a_rarer_one_at_any_split():
    """5 members on one layout, 3 on another: the nearest-group-mate rule paid both nothing;
    the share paid is 1 - (k-1)/(n-1), so the rarer layout earns more, and the group's mean is
    the Gini-Simpson diversity of its layouts."""
    weights = dict(preset_weights("recipe-diverse"))
    left, right = _png(10), _png(60, (40, 60, 200))
    out = adjust_group([_card(weights) for _ in range(8)], [left] * 5 + [right] * 3)
    values = [c.diversity for c in out]
    assert values[:5] == pytest.approx([3 / 7] * 5) and values[5:] == pytest.approx([5 / 7] * 3)
    shares = [5 / 8, 3 / 8]
    assert sum(values) / 8 == pytest.approx((1 - sum(p * p for p in shares)) * 8 / 7)
    # the legal twin: every member on its own layout is paid in full; all on one, nothing
    colours = ((200, 40, 60), (40, 60, 200), (40, 160, 60))
    spread = adjust_group([_card(weights) for _ in range(3)], [_png(30, c) for c in colours])
    assert [c.diversity for c in spread] == [1.0] * 3
    same = adjust_group([_card(weights) for _ in range(4)], [left] * 4)
    assert [c.diversity for c in same] == [0.0] * 4


# -- group bookkeeping, on drawn paintings (no browser) ---------------------------------------------

def _png(x: int, colour=(200, 40, 60)) -> bytes:
    a = np.full((120, 120, 3), 245, np.uint8)
    a[30:90, x:x + 30] = colour
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, "PNG")
    return buf.getvalue()


def _card(weights: dict, passed: bool = True, total: float | None = 0.9) -> ScoreCard:
    terms = {name: (1.0 if passed else None) for name in weights}
    if total is not None and passed:
        total = sum(w * terms[n] for n, w in weights.items())
    return ScoreCard(passed=passed, total=total if passed else (0.0 if total is not None else None),
                     terms=terms, weights=weights, preset="recipe-diverse")


def test_failed_and_unscored_members_are_neither_helped_nor_neighbours():
    weights = dict(preset_weights("recipe-diverse"))
    left, right = _png(10), _png(45)
    cards = [_card(weights), _card(weights, passed=False), _card(weights, total=None), _card(weights)]
    out = adjust_group(cards, [left, left, left, right])
    assert out[1] is cards[1] and out[1].total == 0.0      # a failed gate stays 0
    assert out[2] is cards[2] and out[2].total is None     # an infra failure stays None, never a neighbour
    assert out[0].diversity == 1.0 and out[3].diversity == 1.0   # the copies of member 0 did not count


def test_a_reward_that_does_not_weigh_the_term_is_left_alone_and_a_lone_painting_is_worth_one():
    judge_led = dict(preset_weights("judge-led"))
    cards = [_card(judge_led), _card(judge_led)]
    assert adjust_group(cards, [_png(10), _png(10)]) == cards
    weights = dict(preset_weights("recipe-diverse"))
    (alone,) = adjust_group([_card(weights)], [_png(10)])
    assert alone.diversity == 1.0 and alone.term_notes["diversity"] == "no group-mate passed"


def test_memory_pays_last_steps_winner_less_and_a_new_layout_nothing_less():
    weights = dict(preset_weights("recipe-diverse"))
    memory = Memory(2)
    adjust_group([_card(weights)], [_png(10)], memory, "paint a yellow hibiscus")
    again, new = adjust_group([_card(weights), _card(weights)], [_png(10), _png(45)], memory,
                              "paint a yellow hibiscus")
    # last step's winner again: distinct from its new group-mate, a duplicate of the remembered best
    assert again.diversity == 0.5 and "recent step" in again.term_notes["diversity"]
    assert new.diversity == 1.0
    (other,) = adjust_group([_card(weights)], [_png(10)], memory, "another prompt")   # memory is per prompt
    assert other.diversity == 1.0
