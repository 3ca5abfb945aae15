"""The pool report: agreement statistics against published worked examples, counts, every
warning next to the legal variant that must stay quiet, the terminal output and the HTML
page (rendered by real Chromium)."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import random
import subprocess
from dataclasses import dataclass, field

import numpy as np
import pytest
from PIL import Image, ImageDraw
from rich.console import Console

from brushwork.errors import ConfigError
from brushwork.pool.report import build_report, cohen_kappa, krippendorff_alpha, print_report
from brushwork.pool.report_html import write_html
from brushwork.pool.store import PoolStore

nan = np.nan


def table(a, b, k):
    t = np.zeros((k, k))
    np.add.at(t, (np.asarray(a), np.asarray(b)), 1)
    return t


# -- Cohen's kappa ------------------------------------------------------------------------------
@pytest.mark.parametrize("counts, expected", [
    ([[20, 5], [10, 15]], 0.4),          # the textbook 2×2 example (50 proposals, p_o 0.7, p_e 0.5)
    ([[45, 15], [25, 15]], 0.1304),      # same agreement, different marginals (Wikipedia)
    ([[25, 35], [5, 35]], 0.2593),
])
def test_cohen_kappa_textbook_2x2(counts, expected):
    assert cohen_kappa(counts) == pytest.approx(expected, abs=1e-4)


def test_cohen_kappa_artstein_poesio_three_categories():
    # Artstein & Poesio (2008), Table 4: statement / info-request / check
    assert cohen_kappa([[46, 6, 0], [0, 32, 0], [0, 6, 10]]) == pytest.approx(0.8013, abs=1e-4)


def test_weighted_kappa_reference_values():
    # the weighting example from scikit-learn's test suite: none, linear, quadratic
    a = [0] * 46 + [1] * 44 + [2] * 10
    b = [0] * 50 + [1] * 40 + [2] * 10
    t = table(a, b, 3)
    assert cohen_kappa(t) == pytest.approx(0.9315, abs=1e-4)
    assert cohen_kappa(t, "linear") == pytest.approx(0.9412, abs=1e-4)
    assert cohen_kappa(t, "quadratic") == pytest.approx(0.9541, abs=1e-4)


def test_quadratic_kappa_equals_its_moment_form():
    """Quadratic-weighted kappa = 2·cov / (var_a + var_b + (mean_a − mean_b)²) (population moments)."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 200)
    b = np.clip(a + rng.integers(-1, 2, 200), 0, 3)
    cov = np.mean((a - a.mean()) * (b - b.mean()))
    expected = 2 * cov / (a.var() + b.var() + (a.mean() - b.mean()) ** 2)
    assert cohen_kappa(table(a, b, 4), "quadratic") == pytest.approx(expected, abs=1e-12)


def test_kappa_edge_cases():
    assert cohen_kappa([[5, 0], [0, 0]]) is None          # one category only: chance agreement is perfect
    assert cohen_kappa([[3, 0], [0, 4]]) == 1.0
    with pytest.raises(ConfigError, match="weights"):
        cohen_kappa([[1, 0], [0, 1]], "cubic")
    with pytest.raises(ConfigError, match="square"):
        cohen_kappa([[1, 2, 3]])


# -- Krippendorff's alpha -------------------------------------------------------------------------
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example D: four observers,
# twelve units, values 1..5, missing data. Published: nominal .743, ordinal .815, interval .849.
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]) - 1


@pytest.mark.parametrize("level, expected", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_worked_example(level, expected):
    assert krippendorff_alpha(KRIPPENDORFF_2011, 5, level) == pytest.approx(expected, abs=5e-4)


def test_krippendorff_2011_binary_two_observers():
    # example A of the same paper: two observers, ten units, 0/1 values: alpha = .095
    data = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
    assert krippendorff_alpha(data, 2) == pytest.approx(0.095, abs=5e-4)


def test_krippendorff_three_coders_with_gaps():
    # the reference example of the `krippendorff` package (three coders, fifteen units)
    data = np.array([
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]) - 1
    assert krippendorff_alpha(data, 4, "nominal") == pytest.approx(0.691358, abs=1e-6)
    assert krippendorff_alpha(data, 4, "interval") == pytest.approx(0.810845, abs=1e-6)


def test_krippendorff_edge_cases():
    assert krippendorff_alpha([[0, nan], [nan, 1]], 2) is None       # no unit has two values
    assert krippendorff_alpha([[1, 1], [1, 1]], 3) is None           # one value everywhere
    assert krippendorff_alpha([[0, 1, 2], [0, 1, 2]], 3, "ordinal") == 1.0
    with pytest.raises(ConfigError, match="level"):
        krippendorff_alpha([[0, 1], [0, 1]], 2, "ratio")


# -- stores made for the tests ------------------------------------------------------------------------
def painting(seed: int, size: int = 96) -> bytes:
    """A small 'watercolour': translucent blobs on paper, different for every seed."""
    rng = random.Random(seed)
    im = Image.new("RGBA", (size, size), (250, 247, 240, 255))
    for _ in range(rng.randint(2, 5)):
        layer = Image.new("RGBA", im.size, (0, 0, 0, 0))
        colour = (rng.randrange(40, 240), rng.randrange(30, 200), rng.randrange(40, 230), rng.randrange(90, 200))
        x, y, r = rng.randrange(size // 2), rng.randrange(size // 2), rng.randrange(size // 6, size // 2)
        ImageDraw.Draw(layer).ellipse((x, y, x + r, y + r), fill=colour)
        im = Image.alpha_composite(im, layer)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


@dataclass
class Entry:
    tier: str | None                                  # alice's tier (None: nobody rates it)
    generator: str = ""
    subject: str = ""
    split: str = "train"
    others: dict[str, str] = field(default_factory=dict)   # other raters' tiers


GENERATORS = ("qwen-35b", "qwen-4b", "surya")
SUBJECTS = ("hibiscus", "rose", "peony")


def balanced() -> list[Entry]:
    """A pool that should raise no warning: 8/8/6 training paintings plus one eval painting per
    tier, generators and subjects evenly mixed, bob agreeing with alice on every painting."""
    entries = []
    for tier, n in (("love", 9), ("okay", 9), ("nope", 7)):
        for i in range(n):
            entries.append(Entry(tier, GENERATORS[i % 3], SUBJECTS[(i + 1) % 3], "eval" if i == n - 1 else "train",
                                 {"bob": tier}))
    return entries


def make_store(root, entries: list[Entry], tiers=("love", "okay", "nope"), seed: int = 0) -> PoolStore:
    store = PoolStore.init(root, tiers)
    for n, e in enumerate(entries):
        item = store.add_item(painting(seed * 1000 + n), source=f"// painting {n}", subject=e.subject,
                              generator=e.generator, split=e.split)
        if e.tier:
            store.rate(item, "alice", e.tier)
        for rater, tier in e.others.items():
            store.rate(item, rater, tier)
    return store


def item_id(n: int, seed: int = 0) -> str:
    """The id `make_store` gave its n-th painting (the store names an item by its image's hash)."""
    return hashlib.sha256(painting(seed * 1000 + n)).hexdigest()[:16]


def codes(report) -> set[str]:
    return {w.code for w in report.warnings}


# -- counts ---------------------------------------------------------------------------------------
def test_counts(tmp_path):
    entries = balanced() + [Entry(None, "qwen-4b", "rose")]
    entries[0].others = {"bob": "okay", "carol": "love"}
    store = make_store(tmp_path / "pool", entries)
    store.rate(item_id(1), "alice", "nope")          # a change of mind: only the latest counts
    store.rate(item_id(1), "alice", "love")
    r = build_report(store)

    assert r.n_items == 26 and len(r.unrated) == 1
    assert [(t.tier, len(t.items), t.train, t.eval) for t in r.tier_summaries] == \
        [("love", 9, 8, 1), ("okay", 9, 8, 1), ("nope", 7, 6, 1)]
    raters = {s.rater: s for s in r.raters}
    assert raters["alice"].rated == 25 and raters["alice"].per_tier == (9, 9, 7)
    assert raters["bob"].per_tier == (8, 10, 7) and raters["carol"].per_tier == (1, 0, 0)
    gens = {b.name: b for b in r.by_generator}
    assert gens["qwen-35b"].per_tier == (3, 3, 3) and gens["qwen-4b"].unrated == 1 and gens["qwen-4b"].total == 9
    assert sum(b.total for b in r.by_subject) == 26
    assert [(b.name, b.total) for b in r.by_split] == [("train", 23), ("eval", 3)]
    assert dict(r.tier("love").generators) == {"qwen-35b": 3, "qwen-4b": 3, "surya": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.n_items = 3


def test_agreement_from_ratings_matches_the_statistics(tmp_path):
    entries = balanced()
    for e, bob in zip(entries, ["love", "okay", "love", "okay", "nope"] * 5):
        e.others = {"bob": bob}
    store = make_store(tmp_path / "pool", entries)
    r = build_report(store)
    tiers = ("love", "okay", "nope")
    a = [tiers.index(e.tier) for e in entries]
    b = [tiers.index(e.others["bob"]) for e in entries]
    pair = r.agreement.pairs[0]
    assert (pair.a, pair.b, pair.shared, r.agreement.units) == ("alice", "bob", 25, 25)
    assert pair.kappa == pytest.approx(cohen_kappa(table(a, b, 3)))
    assert pair.kappa_quadratic == pytest.approx(cohen_kappa(table(a, b, 3), "quadratic"))
    assert r.agreement.alpha_ordinal == pytest.approx(krippendorff_alpha([a, b], 3, "ordinal"))
    assert r.agreement.headline == ("Cohen's kappa", pair.kappa)


def test_krippendorff_example_through_a_store(tmp_path):
    """Krippendorff's 2011 example entered as ratings by four raters: the report finds .743 / .815."""
    tiers = ("t1", "t2", "t3", "t4", "t5")
    store = PoolStore.init(tmp_path / "pool", tiers)
    for unit in range(12):
        item = store.add_item(painting(unit), subject="hibiscus")
        for coder, rater in enumerate(("A", "B", "C", "D")):
            if not np.isnan(KRIPPENDORFF_2011[coder, unit]):
                store.rate(item, rater, tiers[int(KRIPPENDORFF_2011[coder, unit])])
    r = build_report(store)
    assert r.settings.reference_mix == (("t1", 2), ("t2", 2))      # the default draw follows the pool's tiers
    assert r.agreement.units == 11 and r.agreement.raters == ("A", "B", "C", "D")
    assert r.agreement.alpha_nominal == pytest.approx(0.743, abs=5e-4)
    assert r.agreement.alpha_ordinal == pytest.approx(0.815, abs=5e-4)
    assert r.agreement.headline[0] == "Krippendorff's alpha (ordinal)"
    assert len(r.agreement.pairs) == 6


def test_preferences_against_tiers(tmp_path):
    store = make_store(tmp_path / "pool", balanced())
    r0 = build_report(store)
    love, okay, nope = (r0.tier(t).items for t in ("love", "okay", "nope"))
    store.prefer(love[0], nope[0], "alice", "a")      # agrees
    store.prefer(nope[1], okay[0], "alice", "b")      # agrees
    store.prefer(love[1], okay[1], "alice", "b")      # disagrees
    store.prefer(love[2], okay[2], "alice", "tie")    # a tie across tiers
    store.prefer(love[3], love[4], "alice", "a")      # same tier: says nothing about tiers
    p = build_report(store).preferences
    assert (p.recorded, p.compared, p.agreeing, p.ties) == (5, 3, 2, 1)
    assert p.share == pytest.approx(2 / 3)


def test_diversity(tmp_path):
    store = PoolStore.init(tmp_path / "pool")
    varied = [store.add_item(painting(n)) for n in range(6)]
    same = []
    for n in range(6):                                  # one painting, a pixel changed each time
        im = Image.open(io.BytesIO(painting(99)))
        im.putpixel((n, 0), (0, 0, 0, 255))
        buf = io.BytesIO()
        im.save(buf, "PNG")
        same.append(store.add_item(buf.getvalue()))
    for item in varied:
        store.rate(item, "alice", "love")
    for item in same:
        store.rate(item, "alice", "okay")
    store.rate(store.add_item(painting(500)), "alice", "nope")
    r = build_report(store, reference_mix=())
    love, okay, nope = (r.tier(t).diversity for t in ("love", "okay", "nope"))
    assert love.overall > 0.5 and okay.overall < 0.1
    assert love.palette > okay.palette and love.composition > okay.composition
    assert love.coverage_spread > okay.coverage_spread
    assert nope.overall is None and nope.palette is None


# -- warnings: each case next to the legal variant that must stay quiet ------------------------------
def _retier(entries, tier, new, count=None):
    picked = [e for e in entries if e.tier == tier and e.split == "train"][:count]
    for e in picked:
        e.tier, e.others = new, {"bob": new}
    return entries


def _set(entries, tier, count, **changes):
    for e in [e for e in entries if e.tier == tier and e.split == "train"][:count]:
        for k, v in changes.items():
            setattr(e, k, v)
    return entries


def _all_train(entries):
    for e in entries:
        e.split = "train"
    return entries


def _bob_down(entries, keep_one=False):
    """bob rates every painting one tier worse than alice (so the consensus stays alice's)."""
    worse = {"love": "okay", "okay": "nope", "nope": "nope"}
    for n, e in enumerate(entries):
        e.others = {"bob": e.tier if keep_one and n else worse[e.tier]}
    return entries


WARNING_CASES = [
    # id, change to the balanced pool, build_report kwargs, warning codes expected
    ("balanced", lambda e: e, {}, set()),
    ("lowest-tier-empty", lambda e: _retier(e, "nope", "okay"), {}, {"no-quality-range"}),
    ("one-tier-only", lambda e: _retier(_retier(e, "nope", "love"), "okay", "love"),
     {"reference_mix": (("love", 2),)}, {"no-quality-range"}),
    ("five-love-of-six-needed", lambda e: _retier(e, "love", "nope", 3), {}, {"few-references"}),
    ("six-love-enough", lambda e: _retier(e, "love", "nope", 2), {}, set()),
    ("bigger-draw", lambda e: e, {"reference_mix": (("love", 3), ("okay", 2))}, {"few-references"}),
    ("bigger-draw-smaller-factor", lambda e: e, {"reference_mix": (("love", 3),), "min_per_tier_factor": 2}, set()),
    ("generator-owns-love", lambda e: _set(e, "love", 6, generator="surya"), {}, {"tier-dominated"}),
    ("generator-half-of-love", lambda e: _set(e, "love", 3, generator="surya"), {}, set()),
    ("unknown-generator-owns-nothing", lambda e: _set(e, "love", 8, generator=""), {}, set()),
    ("subject-owns-okay", lambda e: _set(e, "okay", 4, subject="rose"), {}, {"tier-dominated"}),
    ("subject-share-allowed", lambda e: _set(e, "okay", 4, subject="rose"), {"max_share": 0.7}, set()),
    ("raters-disagree", _bob_down, {}, {"low-agreement"}),
    ("raters-differ-once", lambda e: _bob_down(e, keep_one=True), {}, set()),
    ("an-unrated-painting", lambda e: e + [Entry(None, "surya", "rose")], {}, {"unrated"}),
    ("eval-split-empty", _all_train, {}, {"eval-empty"}),
]


@pytest.mark.parametrize("case, change, kwargs, expected", WARNING_CASES, ids=[c[0] for c in WARNING_CASES])
def test_warnings(tmp_path, case, change, kwargs, expected):
    r = build_report(make_store(tmp_path / "pool", change(balanced())), **kwargs)
    assert codes(r) == expected, [w.message for w in r.warnings]
    for w in r.warnings:          # a short sentence that says what to do
        assert not w.message[0].islower() and w.message.endswith(".") and len(w.message) < 260


def test_warning_messages_name_what_to_fix(tmp_path):
    r = build_report(make_store(tmp_path / "pool", _retier(balanced(), "love", "nope", 3)))
    assert "Tier 'love' has 5 training paintings" in r.warnings[0].message and "1 more" in r.warnings[0].message
    r = build_report(make_store(tmp_path / "p2", _set(balanced(), "love", 6, generator="surya")))
    assert "Generator 'surya' makes up 75% of 'love'" in r.warnings[0].message
    r = build_report(make_store(tmp_path / "p3", _bob_down(balanced())))
    assert "Cohen's kappa 0.0" in r.warnings[0].message or "Cohen's kappa -" in r.warnings[0].message


def test_empty_pool_and_bad_settings(tmp_path):
    store = PoolStore.init(tmp_path / "pool")
    r = build_report(store)
    assert r.n_items == 0 and codes(r) == {"no-quality-range", "few-references"}
    assert r.agreement.headline[1] is None and r.preferences.share is None
    with pytest.raises(ConfigError, match="lacks"):
        build_report(store, reference_mix=(("great", 2),))
    with pytest.raises(ConfigError, match="max_share"):
        build_report(store, max_share=60)


# -- output ----------------------------------------------------------------------------------------
@pytest.fixture
def messy_store(tmp_path):
    entries = _set(_bob_down(balanced()), "love", 6, generator="surya")
    entries += [Entry(None, "qwen-4b", "peony"), Entry(None, "surya", "rose")]
    entries[3].others = {"bob": "nope", "carol": "love"}
    return make_store(tmp_path / "pool", entries, seed=3)


def test_print_report(messy_store):
    r = build_report(messy_store)
    console = Console(record=True, width=150, force_terminal=True, color_system="standard")
    print_report(r, console)
    text = console.export_text(clear=False)
    for needle in ("Tiers (consensus)", "Raters", "Generators", "Subjects", "Splits", "surya", "alice × bob",
                   "Krippendorff's alpha", "Generator 'surya' makes up"):
        assert needle in text, needle
    styled = console.export_text(styles=True)
    assert "\x1b[33m! Generator 'surya'" in styled            # warnings in yellow


def test_write_html(messy_store, tmp_path):
    r = build_report(messy_store)
    path = write_html(r, messy_store, tmp_path / "out" / "report.html")
    page = path.read_text(encoding="utf-8")
    assert page.count('src="data:image/jpeg;base64,') == r.n_items
    assert page.count("<svg") == 2 and "Paintings per tier, by generator" in page
    assert "Generator &#x27;surya&#x27; makes up" in page and "Cohen&#x27;s kappa" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page
    assert "$" not in page.split("<body>")[1]           # every template slot filled
    assert 'class="split"' in page                      # raters who disagree are marked


@pytest.mark.chromium
def test_html_renders_in_chromium(messy_store, tmp_path):
    from brushwork.render.browser import find_chromium

    path = write_html(build_report(messy_store), messy_store, tmp_path / "report.html")
    shot = tmp_path / "report.png"
    subprocess.run([find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                    "--window-size=1300,1600", "--hide-scrollbars", path.as_uri()],
                   check=True, capture_output=True, timeout=60)
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=float)
    assert pixels.shape[:2] == (1600, 1300)
    assert (np.abs(pixels - [244, 241, 234]).sum(-1) < 6).mean() > 0.1      # the page's paper background
    assert (np.abs(pixels - [253, 243, 208]).sum(-1) < 6).sum() > 2000      # the yellow warning boxes
    assert (np.abs(pixels - [78, 121, 167]).sum(-1) < 6).sum() > 300        # the chart's first series


def test_names_are_text_not_markup(tmp_path):
    entries = balanced()
    for e in entries[:2]:
        e.generator, e.others = "<script>x</script>", {"[red]mallory[/]": e.tier}
    store = make_store(tmp_path / "pool", entries)
    r = build_report(store)
    page = write_html(r, store, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    console = Console(record=True, width=150)
    print_report(r, console)
    assert "[red]mallory[/]" in console.export_text()


# -- coverage per task domain: the report's table, and the loud check at server and trainer start --
def _pool_folder(example_pool, root, keep, domain_of=lambda item, n: item.domain):
    """A pool folder of the example pool's rendered paintings that `keep(item)` accepts, each
    tagged with `domain_of(item, its index among the kept paintings of its tier)`."""
    import json
    import shutil

    (root / "images").mkdir(parents=True)
    lines, seen = [], {}
    for item in example_pool.items:
        if not keep(item):
            continue
        n = seen[item.tier] = seen.get(item.tier, -1) + 1
        shutil.copy2(item.image, root / "images" / item.image.name)
        lines.append(json.dumps({**item.meta, "source": "", "domain": domain_of(item, n)}))
    (root / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_the_coverage_table_counts_training_paintings_per_domain_and_tier(example_pool, tmp_path):
    from brushwork.pool import load_pool
    from brushwork.pool.coverage import MIN_PER_SIDE, coverage

    table = coverage(example_pool)
    hibiscus = table["hibiscus"]
    assert hibiscus.serves() and hibiscus.loved >= MIN_PER_SIDE
    assert sum(c.loved + c.others for c in table.values()) == len(example_pool.split("train"))
    assert sum(sum(c.eval.values()) for c in table.values()) == len(example_pool.split("eval"))
    thin = load_pool(_pool_folder(example_pool, tmp_path / "thin", lambda i: i.domain == "hibiscus"))
    assert set(coverage(thin)) == {"hibiscus"}


def test_the_trainer_warns_about_a_domain_the_pool_cannot_serve(example_pool, tmp_path):
    """The pool holds hibiscus only: training on landscapes would judge every landscape against
    hibiscus. The check names the domain, what the pool has and what to do; its legal twin,
    training on hibiscus alone, is quiet."""
    from brushwork.env.tasks import check_pool_domains
    from brushwork.pool import load_pool
    from brushwork.train.config import BrushworkArguments
    from brushwork.train.run import check_pool_coverage

    thin = load_pool(_pool_folder(example_pool, tmp_path / "thin", lambda i: i.domain == "hibiscus"))
    out = io.StringIO()
    problems = check_pool_coverage(BrushworkArguments(domains=["hibiscus", "landscape"]), thin, out)
    assert len(problems) == 1 and "'landscape'" in problems[0] and "no paintings" in problems[0]
    assert "Rate more landscape paintings" in problems[0] and "--domains hibiscus" in problems[0]
    assert "WARNING (pool coverage)" in out.getvalue()
    quiet = io.StringIO()
    assert check_pool_coverage(BrushworkArguments(domains=["hibiscus"]), thin, quiet) == [] and not quiet.getvalue()
    with pytest.raises(ConfigError, match="'landscape'"):
        check_pool_domains(thin, ["landscape"], strict=True)
    every = ["hibiscus", "flowers", "landscape", "leaves"]
    spread = load_pool(_pool_folder(example_pool, tmp_path / "spread", lambda i: i.split == "train",
                                    lambda item, n: every[n % 4]))
    assert check_pool_domains(spread, stream=io.StringIO()) == []      # every domain served


@pytest.mark.chromium
@pytest.mark.slow
def test_the_server_says_at_start_which_domains_its_pool_cannot_serve(example_pool, tmp_path):
    """`brushwork serve` on a hibiscus-only pool, as users start it: before it answers /health,
    its log names each domain it cannot judge on its own paintings, and not hibiscus."""
    from test_env_server import Server

    from brushwork.pool import load_pool
    from brushwork.score.taste import model as taste

    thin = _pool_folder(example_pool, tmp_path / "thin", lambda i: i.domain == "hibiscus")
    fitted = taste.fit(load_pool(thin), features="classical", l2=30.0).save(tmp_path / "taste.json")  # seconds
    server = Server(tmp_path / "serve.log", "--pool", str(thin), "--taste-model", str(fitted), "--workers", "1").start()
    try:
        server.wait_ready()
        log = (tmp_path / "serve.log").read_text()
    finally:
        server.stop()
    warnings = [line for line in log.splitlines() if line.startswith("WARNING (pool coverage)")]
    assert {d for d in ("flowers", "landscape", "leaves", "hibiscus") if any(f"{d!r} tasks" in w for w in warnings)} \
        == {"flowers", "landscape", "leaves"}, log[-3000:]
