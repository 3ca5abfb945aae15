"""`taste evaluate`: the taste model's generalisation (nested CV, leave-one-domain-out, transfer
between pools) with intervals that resample paintings, not pairs."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.core.stats import _painting_counts, bootstrap_interval, painting_interval
from brushwork.errors import ConfigError
from brushwork.pool import load_pool
from brushwork.score.taste import evaluate as ev
from brushwork.score.taste import model as taste
from brushwork.score.taste import select as taste_select

pytestmark = pytest.mark.chromium   # the pools are the bundled pool's real renders

ROOT = Path(__file__).resolve().parents[1]


def cross_pairs(tiers):
    return [(i, j) for i in range(len(tiers)) for j in range(len(tiers)) if tiers[i] == "love" and tiers[j] == "nope"]


def synthetic(per_tier: int, seed: int):
    """`per_tier` love and nope paintings; a love painting's pairs are right with its own chance."""
    rng = np.random.default_rng(seed)
    tiers = ["love"] * per_tier + ["nope"] * per_tier
    skill = rng.uniform(0.2, 1.0, size=2 * per_tier)
    pairs = cross_pairs(tiers)
    return pairs, [float(rng.random() < skill[i]) for i, _ in pairs], tiers


@pytest.mark.parametrize("seed", range(5))
def test_the_painting_interval_contains_the_estimate_and_is_seeded(seed):
    pairs, values, tiers = synthetic(8, seed)
    lo, hi = painting_interval(pairs, values, tiers, seed=seed)
    assert 0 <= lo <= np.mean(values) <= hi <= 1
    assert painting_interval(pairs, values, tiers, seed=seed) == (lo, hi)
    assert not np.array_equal(_painting_counts(tiers, 100, seed), _painting_counts(tiers, 100, seed + 1))


def test_the_painting_interval_narrows_with_more_paintings_and_is_wider_than_the_pairs_bootstrap():
    width = lambda i: i[1] - i[0]  # noqa: E731
    few, many = synthetic(5, 0), synthetic(40, 0)
    assert width(painting_interval(*many)) < width(painting_interval(*few)) / 2
    # 1600 pairs of 80 paintings are not 1600 independent draws: the pairs bootstrap is too narrow
    assert width(painting_interval(*many)) > 1.5 * width(bootstrap_interval(many[1]))


def test_the_painting_interval_keeps_each_resample_s_tier_counts_and_refuses_no_pairs():
    tiers = ["love", "okay", "okay", "nope"]
    counts = _painting_counts(tiers, 50, 3)
    assert (counts[:, 0] == 1).all() and (counts[:, 1:3].sum(1) == 2).all() and (counts[:, 3] == 1).all()
    assert painting_interval([(0, 3)], [1.0], tiers) == (1.0, 1.0)
    with pytest.raises(ConfigError, match="one value per pair"):
        painting_interval([], [], tiers)


def write_pool(root: Path, items, domain_of) -> Path:
    """A pool folder of real rendered paintings (copied from the bundled pool's renders)."""
    (root / "images").mkdir(parents=True)
    lines = []
    for n, item in enumerate(items):
        shutil.copy(item.image, root / "images" / f"{item.id}.png")
        lines.append(json.dumps({"file_name": f"images/{item.id}.png", "tier": item.tier, "subject": item.subject,
                                 "domain": domain_of(n, item)}))
    (root / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def pools(example_pool, tmp_path_factory):
    """Two small pools: the bundled hibiscus paintings (two made-up domains of alternating
    paintings) and the bundled paintings of every other domain (each subject a domain of its own,
    all under MIN_DOMAIN paintings)."""
    base = tmp_path_factory.mktemp("evaluate-pools")
    hibiscus = [i for i in example_pool.items if i.domain == "hibiscus"]
    others = [i for i in example_pool.items if i.domain != "hibiscus"]
    return {"hibiscus": load_pool(write_pool(base / "hibiscus", hibiscus, lambda n, i: "ab"[n % 2])),
            "others": load_pool(write_pool(base / "others", others, lambda n, i: i.subject))}


@pytest.fixture(scope="module")
def report(pools):
    return ev.evaluate(pools, features="classical", repeats=1, resamples=500, curve=False)


def test_every_measure_on_two_small_pools(report, pools):
    names = [m.name for m in report.measures]
    assert names == ["nested 5-fold CV x 1", "held out: a", "held out: b", "held out: every domain in turn",
                     "nested 5-fold CV x 1", "hibiscus -> others", "others -> hibiscus"]
    subjects = Counter(i.subject for i in pools["others"].items)
    assert report.pools["others"]["domains"] == dict(subjects) and max(subjects.values()) < ev.MIN_DOMAIN
    for m in report.measures:
        assert list(m.figures)[-1] == "overall" and set(m.figures) <= {"love>okay", "love>nope", "okay>nope",
                                                                        "overall"}
        for f in m.figures.values():
            assert 0 <= f.ci95_paintings[0] <= f.accuracy <= f.ci95_paintings[1] <= 1 and f.pairs > 0
        # fewer than 5 paintings in a tier leave a fold empty: that fold is skipped, not fit
        nested = min(5, *report.pools[m.trained_on]["tiers"].values()) if m.kind == "nested" else 5
        pooled = m.name == "held out: every domain in turn"
        fits = 2 if pooled else {"nested": nested, "domain": 1, "transfer": 1}[m.kind]
        assert sum(m.chosen.values()) == fits and all(c.startswith("classical, l2 ") for c in m.chosen)
    a, b = report.measures[1], report.measures[2]
    assert a.figures["overall"].pairs + b.figures["overall"].pairs == report.measures[3].figures["overall"].pairs
    assert a.trained_on == "hibiscus (b)" and a.tested_on == "hibiscus (a)"
    transfer = report.measures[5]
    tiers = report.pools["others"]["tiers"]
    assert transfer.figures["love>okay"].pairs == tiers["love"] * tiers["okay"]   # every pair of the other pool
    # others' domains are all under MIN_DOMAIN paintings: one group, nothing to hold out on its own
    assert ev.domain_groups(("x",) * 6 + ("y",) * 5) == ("x",) * 6 + (ev.OTHER,) * 5
    assert json.loads(json.dumps(report.to_dict()))["measures"][0]["kind"] == "nested"


def test_nested_is_the_product_s_own_cross_validation(example_pool):
    """Same folds, same inner choice: the figures `taste fit` reports, now with intervals."""
    cache = taste.FeatureCache()
    data = ev.rated(example_pool, "example", cache, embeddings=False, split="train")
    procedures = ev.procedures_for("classical")
    ours = ev.nested(data, procedures, repeats=2, resamples=200)
    theirs = taste_select.cross_validate(procedures, data.classical, None, list(data.tiers), repeats=2,
                                         domains_of=list(data.domains))
    assert {k: round(f.accuracy, 4) for k, f in ours.figures.items() if k != "overall"} == theirs["pairwise_accuracy"]
    assert {k: f.pairs for k, f in ours.figures.items() if k != "overall"} == theirs["pairs"]


def test_shuffled_tiers_score_chance_and_the_true_tiers_do_not(example_pool):
    """The attack on the figure: shuffled tiers leave nothing to learn, so every measure must
    fall to chance; its twin, the pool's own tiers, must not."""
    cache = taste.FeatureCache()
    data = ev.rated(example_pool, "example", cache, embeddings=False)
    rng = np.random.default_rng(5)
    shuffled = ev.Rated("shuffled", data.ids, tuple(rng.permutation(data.tiers)), data.domains, data.classical, None)
    procedures = ev.procedures_for("classical")
    for d, low, high in ((shuffled, 0.3, 0.7), (data, 0.8, 1.0)):
        overall = ev.nested(d, procedures, repeats=1, resamples=200).figures["overall"].accuracy
        lodo = ev.leave_domain_out(d, procedures, resamples=200)[-1].figures["overall"].accuracy
        assert low < overall < high and low < lodo < high, (d.name, overall, lodo)


def test_unknown_features_or_split_are_errors_that_name_the_choices(pools):
    with pytest.raises(ConfigError, match="choose one of auto, classical"):
        ev.procedures_for("clip")
    with pytest.raises(ConfigError, match="no candidate procedure with 5 embedding components"):
        ev.procedures_for("embedding", dims=5)
    with pytest.raises(ConfigError, match="choose one of all, train"):
        ev.evaluate(pools, features="classical", split="eval")


def test_cli_taste_evaluate(pools):
    paths = [str(p.root) for p in pools.values()]
    args = ["taste", "evaluate", "--pool", paths[0], "--other-pool", paths[1], "--features", "classical",
            "--repeats", "1", "--resamples", "200"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    for text in ("love > okay", "held out: a", "hibiscus -> others", "paintings resampled", "classical, l2",
                 "after 10 ratings", "more ratings"):
        assert text in res.output
    js = CliRunner().invoke(app, args + ["--json"])
    assert js.exit_code == 0, js.output
    report = json.loads(js.stdout)
    assert [m["kind"] for m in report["measures"]].count("transfer") == 2 and report["features"] == "classical"
    curve = [m for m in report["measures"] if m["kind"] == "curve"]
    assert curve[0]["ratings"] == 10 and all(m["figures"]["overall"]["ci95_paintings"] for m in curve)
    bad = CliRunner().invoke(app, ["taste", "evaluate", "--pool", paths[0], "--features", "clip"])
    assert bad.exit_code == 2 and "choose one of" in bad.output


def test_the_second_pool_is_rated_by_the_painter_s_parameters_into_thirds_per_domain(tmp_path):
    spec = importlib.util.spec_from_file_location("second_pool", ROOT / "scripts" / "second_pool.py")
    second = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(second)
    records = second.paintings(per_domain=3)
    assert records == second.paintings(per_domain=3)                     # deterministic
    for domain in second.DOMAINS:
        mine = [r for r in records if r["domain"] == domain]
        assert [r["tier"] for r in mine] == ["love", "okay", "nope"]
        assert [r["rule_score"] for r in mine] == sorted((r["rule_score"] for r in mine), reverse=True)
        assert all(r["rule_score"] == round(second.taste_rule(r["params"]), 3) for r in mine)
    out = second.write(tmp_path / "pool", records)
    assert len((out / "metadata.jsonl").read_text().splitlines()) == 15 and not (out / "images").exists()
    assert "proxy, not a person" in json.loads((out / "metadata.jsonl").read_text().splitlines()[0])["rater"]


def test_the_learning_curve_fits_on_more_ratings_and_climbs(example_pool):
    """Accuracy after n ratings, per tier pair with intervals: each point's fits see exactly n
    training paintings (every tier among them), the last all a fold holds; on the bundled pool the
    curve climbs. Its twin, shuffled tiers, stays at chance however many ratings it is given."""
    cache = taste.FeatureCache()
    data = ev.rated(example_pool, "example", cache, embeddings=False)
    procedures = ev.procedures_for("classical")
    curve = ev.learning_curve(data, procedures, resamples=200)
    sizes = [m.ratings for m in curve]
    folds = ev._splits(list(data.tiers), ev.TIERS, 5, 1, 0)
    assert sizes[0] == 10 and sizes == sorted(sizes) and sizes[-1] == min(len(t) for t, _ in folds)
    assert all(set(m.figures) == {"love>okay", "love>nope", "okay>nope", "overall"} for m in curve)
    first, last = curve[0].figures["overall"], curve[-1].figures["overall"]
    assert last.accuracy > first.accuracy and last.accuracy > 0.8, [m.figures["overall"].accuracy for m in curve]
    assert all(f.ci95_paintings[0] <= f.accuracy <= f.ci95_paintings[1] for m in curve for f in m.figures.values())
    rng = np.random.default_rng(1)
    sub = ev._subsample(np.arange(len(data)), data.tiers, 10, rng)
    assert len(sub) == 10 and {data.tiers[i] for i in sub} == {"love", "okay", "nope"}
    shuffled = ev.Rated("shuffled", data.ids, tuple(rng.permutation(data.tiers)), data.domains, data.classical, None)
    flat = ev.learning_curve(shuffled, procedures, resamples=200)[-1].figures["overall"].accuracy
    assert 0.3 < flat < 0.7, flat
