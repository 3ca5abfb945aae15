"""`brushwork eval`: metrics on hand-made cards; films scored by a real Pipeline and
evaluated through the CLI (report, eval.json, curves, comparison); a tiny local policy with
and without a LoRA adapter; the errors a user meets first."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image
from test_score import HONEST
from typer.testing import CliRunner

from brushwork.cli import app
from brushwork.errors import ConfigError
from brushwork.eval.curves import read_metrics, series, training_curves
from brushwork.eval.generate import EVAL_SEED, held_out_rows
from brushwork.eval.metrics import Metrics, Sample, by_step, diversity, summarize
from brushwork.gate.verdict import Violation
from brushwork.score.card import ScoreCard
from brushwork.score.judge import Comparison, Verdict
from brushwork.score.rollout import Rollout

EXAMPLES = Path(__file__).parent.parent / "src" / "brushwork" / "examples"
HOSTILE_PROMPT = "Paint a peach hibiscus <img src=x onerror=alert(1)>"
SCRIPT = "\n<script>alert('owned')</script>\n"


def png(colour, size: int = 48, dot=None) -> bytes:
    im = Image.new("RGB", (size, size), colour)
    if dot:
        im.paste(dot, (size // 4, size // 4, size // 2, size // 2))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


def card(passed=True, total=0.5, judge=0.5, aesthetic=0.6, length=0.2, violations=()) -> ScoreCard:
    terms = {"gate": (1.0 if passed else 0.0) if total is not None else None, "length": length,
             "judge": judge, "aesthetic": aesthetic} if passed else {"gate": 0.0 if total is not None else None}
    return ScoreCard(passed=passed, total=total, terms=terms, weights={}, preset="judge-led",
                     violations=tuple(Violation(i, "cheat" if i == "text_on_canvas" else "broken", i)
                                      for i in violations),
                     paint_fraction=0.3 if passed else None)


def comparison(tier: str, candidate_first: str | None, reference_first: str | None) -> Comparison:
    return Comparison(f"{tier}_ref", tier, Verdict("candidate_first", candidate_first, ""),
                      Verdict("reference_first", reference_first, ""))


def sample(c: ScoreCard, image: bytes | None = None, group: int = 1, step: int = 0, comparisons=()) -> Sample:
    return Sample(Rollout(f"prompt {group}", c, png=image, subject="peach hibiscus", seed=group, group=group,
                          step=step), eval_comparisons=tuple(comparisons))


def write_pool(folder: Path, with_eval: bool = True) -> Path:
    """A small pool folder in the HF layout with its images present (nothing to render): soft
    layered blobs rated love, one flat disc okay, hard dark blocks nope; with `with_eval`, two
    love, two okay and one nope held out in the eval split."""
    import random

    from PIL import ImageDraw

    (folder / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for tier, count in (("love", 7), ("okay", 7), ("nope", 6)):
        for n in range(count):
            rng = random.Random(f"{tier}{n}")
            im = Image.new("RGBA", (160, 160), (251, 246, 238, 255))
            layer = Image.new("RGBA", im.size, (0, 0, 0, 0))
            draw = ImageDraw.Draw(layer)
            for _ in range({"love": 9, "okay": 1, "nope": 4}[tier]):
                x, y, r = rng.randrange(30, 130), rng.randrange(30, 130), rng.randrange(15, 45)
                if tier == "nope":
                    draw.rectangle((x - r, y - r, x + r, y + r), fill=(rng.randrange(60), 20, 20, 255))
                else:
                    alpha = 90 if tier == "love" else 255
                    draw.ellipse((x - r, y - r, x + r, y + r), fill=(240, rng.randrange(90, 200), 140, alpha))
            im = Image.alpha_composite(im, layer)
            name = f"images/{tier}_{n}.png"
            buf = io.BytesIO()
            im.save(buf, "PNG")
            (folder / name).write_bytes(buf.getvalue())
            held_out = with_eval and n < (1 if tier == "nope" else 2)
            rows.append(json.dumps({"file_name": name, "tier": tier, "subject": "hibiscus", "domain": "hibiscus",
                                    **({"split": "eval"} if held_out else {})}))
    (folder / "metadata.jsonl").write_text("\n".join(rows) + "\n")
    return folder


# ---------------------------------------------------------------- metrics (no browser)

def test_pass_rate_histogram_and_term_means_skip_none():
    samples = [sample(card(total=0.8, judge=0.9), png("white")),
               sample(card(total=0.4, judge=None), png("white")),               # judge did not run
               sample(card(passed=False, total=0.0, violations=("text_on_canvas", "text_on_canvas", "raw_pixels"))),
               sample(card(passed=False, total=0.0, violations=("syntax_error",))),
               sample(card(passed=False, total=None, violations=("render_timeout",)))]   # infra: None
    m = summarize(samples)
    assert m.samples == 5 and m.pass_rate == pytest.approx(0.4) and m.cheat_rate == pytest.approx(0.2)
    assert m.none_rate == pytest.approx(0.2)
    assert m.violations == {"raw_pixels": 1, "render_timeout": 1, "syntax_error": 1, "text_on_canvas": 1}
    assert m.terms["total"].mean == pytest.approx(0.3) and m.terms["total"].n == 4
    assert m.terms["judge"].mean == pytest.approx(0.9) and m.terms["judge"].n == 1
    assert m.terms["gate"].n == 4 and m.terms["gate"].mean == pytest.approx(0.5)
    assert m.win_rate.mean is None and m.win_rate.n == 0 and m.paint_fraction.n == 2
    assert Metrics.from_dict(json.loads(json.dumps(m.to_dict()))) == m


def test_diversity_is_zero_for_identical_paintings_and_grows_with_difference():
    same = [sample(card(), png("#f7b08a", dot="#c0392b")) for _ in range(3)]
    assert diversity(same).mean == pytest.approx(0.0) and diversity(same).n == 1
    apart = [sample(card(), png("white")), sample(card(), png("black"))]
    assert diversity(apart).mean == pytest.approx(1.0, abs=1e-6)
    near = [sample(card(), png("#f7b08a")), sample(card(), png("#f7b08a", dot="#c0392b"))]
    assert 0 < diversity(near).mean < 0.3
    # groups are separate; a lone painting and failed samples do not count
    mixed = same + [sample(card(), png("black"), group=2), sample(card(passed=False, total=0.0), png("white"))]
    assert diversity(mixed).n == 1 and diversity(mixed).mean == pytest.approx(0.0)


def test_win_rate_per_tier_and_judge_consistency():
    s = sample(card(), png("white"), comparisons=[
        comparison("love", "first", "second"),    # the candidate wins in both orders: 1, consistent
        comparison("love", "first", "first"),     # the first image wins both times: a tie .5, inconsistent
        comparison("okay", "tie", "tie"),         # .5, consistent
        comparison("okay", "second", None)])      # one order unreadable: not counted
    m = summarize([s])
    assert m.win_rate.n == 3 and m.win_rate.mean == pytest.approx(2 / 3)
    assert m.win_by_tier["love"].mean == pytest.approx(0.75) and m.win_by_tier["okay"].n == 1
    assert m.judge_consistency.n == 3 and m.judge_consistency.mean == pytest.approx(2 / 3)
    assert s.win == pytest.approx(2 / 3)


def test_film_summaries_are_first_last_and_all():
    samples = [sample(card(passed=step == 3, total=float(step == 3)), step=step, group=step) for step in (1, 2, 3)]
    summaries = by_step(samples)
    assert list(summaries) == ["step 1", "step 3", "all"]
    assert summaries["step 1"].pass_rate == 0 and summaries["step 3"].pass_rate == 1
    assert summaries["all"].samples == 3 and list(by_step(samples[:1])) == ["all"]


def test_held_out_prompts_are_seeded_and_not_the_training_rows():
    a, b = held_out_rows(None, 20), held_out_rows(None, 20)
    assert [r["seed"] for r in a] == [r["seed"] for r in b] and len(a) == 20
    assert {"prompt", "subject", "domain", "seed"} <= set(a[0]) and a[0]["prompt"][-1]["role"] == "user"
    from brushwork.env.tasks import dataset_rows

    training = {r["seed"] for r in dataset_rows(None, repeats=4, seed=0)}
    assert not training & {r["seed"] for r in held_out_rows(None, 100, EVAL_SEED)}
    assert len(held_out_rows(["hibiscus"], 3)) == 3 and {r["domain"] for r in held_out_rows(["hibiscus"], 3)} == \
        {"hibiscus"}
    with pytest.raises(ConfigError, match="--prompts"):
        held_out_rows(None, 0)


def test_training_never_samples_held_out_pairings_and_evaluation_asks_both():
    from brushwork.env.tasks import HeldOut, dataset_rows, pairing, sample_rows

    held = HeldOut.catalogue()
    assert "a coral hibiscus" in held.subjects and ("hibiscus", 2) in held.prompts
    training = dataset_rows(None, repeats=4, seed=0) + sample_rows(50, ["hibiscus"], seed=3)
    assert {pairing(r["subject"], r["prompt"][-1]["content"]) for r in training} == {"seen"}
    asked = held_out_rows(None, 60)
    assert {pairing(r["subject"], r["prompt"][-1]["content"]) for r in asked} == {"seen", "held-out"}
    assert any(r["subject"] == "a coral hibiscus" for r in asked)
    drawn = HeldOut.drawn(0.3, seed=1)
    assert drawn == HeldOut.drawn(0.3, seed=1) and drawn != HeldOut.drawn(0.3, seed=2)
    rows = dataset_rows(["hibiscus"], 2, held_out=drawn)
    assert rows and not {r["subject"] for r in rows} & drawn.subjects
    with pytest.raises(ConfigError, match="between 0 and 1"):
        HeldOut.drawn(1.0)


def test_held_out_pairings_are_summarised_apart_with_adherence_and_compositions():
    coral, pink = png("white", dot="#f58a6e"), png("white", dot="#e664a8")

    def asked(subject, image, group):
        return Sample(Rollout(f"Paint {subject} in loose watercolour.", card(), png=image, subject=subject,
                              seed=group, group=group))
    samples = [asked("a coral hibiscus", coral, 1), asked("a coral hibiscus", coral, 1),       # held out
               asked("a magenta hibiscus", coral, 2), asked("a magenta hibiscus", pink, 2)]  # seen
    summaries = by_step(samples)
    assert list(summaries) == ["all", "seen pairings", "held-out pairings"]
    held, seen = summaries["held-out pairings"], summaries["seen pairings"]
    assert held.samples == 2 and held.adherence.mean == pytest.approx(1.0)
    assert seen.adherence.mean == pytest.approx(0.5)              # one of the two is off-colour
    assert held.compositions.mean == 1 and seen.compositions.mean == 2   # a duplicate pair, two colours
    assert Metrics.from_dict(json.loads(json.dumps(held.to_dict()))) == held
    assert by_step(samples[:2]) == {"all": summarize(samples[:2])}        # one kind only: no split


def test_film_frames_become_samples_with_or_without_card_files(tmp_path):
    from dataclasses import replace

    from brushwork.eval.collect import film_samples, resolve_source
    from brushwork.train.film import Film

    full = replace(card(total=0.7, judge=0.6), comparisons=(comparison("love", "first", "second"),),
                   references=(("love_ref", "love"),))
    assert ScoreCard.from_dict(json.loads(json.dumps(full.to_dict()))).same_as(full)
    film = Film(tmp_path / "run" / "film")
    asked = dict(subject="peach hibiscus", seed=5, group=9, step=1)
    film.record(Rollout("Paint a peach hibiscus", full, reply="```js\n...\n```", png=png("white"), **asked), 0)
    cheat = film.record(Rollout("Paint a peach hibiscus", card(passed=False, total=0.0, violations=("text_on_canvas",)),
                                reply="text()", **asked), 1)
    (tmp_path / "run" / "film" / cheat.card_file).unlink()   # a film written without card files: the index line
    with (tmp_path / "run" / "film" / "index.jsonl").open("a") as index:
        index.write('{"step": 2, "ind')   # a run killed mid-line
    a, b = film_samples(tmp_path / "run")
    assert a.card.same_as(full) and a.png is not None and a.key == b.key == "1:9" and a.reply.startswith("```js")
    assert b.card.cheated and b.card.total == 0.0 and b.card.gate == 0.0 and b.png is None
    assert summarize([a, b]).cheat_rate == 0.5
    source = resolve_source(tmp_path / "run")
    assert source.film == tmp_path / "run" / "film" and source.label == "run" and source.metrics is None
    assert resolve_source(tmp_path / "run" / "film").label == "run"


OLD_FILM = [   # index lines as films already on disk have them: the first with its files, the second bare
    {"step": 3, "index": 0, "prompt": "Paint a coral hibiscus", "subject": "coral hibiscus", "seed": 4, "group": 77,
     "reward": 0.55, "passed": True, "cheated": False, "infra": None, "terms": {"gate": 1.0, "judge": 0.5},
     "paint_fraction": 0.4, "violations": [], "reply_file": "step-000003/00.md", "png_file": "step-000003/00.png",
     "card_file": "step-000003/00.json", "turn": 0, "final": True},
    {"step": 3, "index": 1, "prompt": "Paint a coral hibiscus", "subject": None, "seed": None, "group": 77,
     "reward": 0.0, "passed": False, "cheated": True, "terms": {"gate": 0.0}, "violations": ["text_on_canvas"],
     "reply_file": "step-000003/01.md"},
]


def test_a_film_written_before_the_rollout_record_still_reads(tmp_path):
    from brushwork.eval.collect import film_samples
    from brushwork.train.film import read_film

    film = tmp_path / "film"
    (film / "step-000003").mkdir(parents=True)
    (film / "step-000003" / "00.md").write_text("```js\nbrush.circle(1, 2, 3)\n```")
    (film / "step-000003" / "00.png").write_bytes(png("white"))
    (film / "step-000003" / "00.json").write_text(json.dumps(card(total=0.55, judge=0.5).to_dict()))
    (film / "index.jsonl").write_text("".join(json.dumps(line) + "\n" for line in OLD_FILM))
    a, b = read_film(film)
    assert (a.index, a.step, a.group, a.subject, a.seed, a.reward, a.turn, a.final) == (0, 3, 77, "coral hibiscus",
                                                                                        4, 0.55, 0, True)
    assert a.card.total == 0.55 and a.png == png("white") and a.reply.startswith("```js") and a.passed
    assert b.card.cheated and b.violations == ("text_on_canvas",) and b.png is None and b.reply == ""
    assert (b.turn, b.final, b.card_file, b.subject) == (0, True, None, None)     # lines without them
    samples = film_samples(film)
    assert [s.rollout for s in samples] == [a.rollout, b.rollout] and [s.episode for s in samples] == [0, 1]
    assert samples[1].pairing == "seen"                         # no subject: read as ""


def test_a_gallery_card_is_its_rollout_plus_the_callers_facts():
    """The report's cards and the demo's are one `gallery_card`: the rollout's own facts, the
    caller's (the report's win and pairing, the demo's render time) in their places, an
    infrastructure failure named among the violations, and hostile text escaped on the page."""
    from dataclasses import replace

    from brushwork.eval.report import sample_card
    from brushwork.report.gallery import card_html
    from brushwork.score.rollout import gallery_card

    noted = replace(card(total=0.4567), term_notes={"adherence": "asks <coral>"})
    s = Sample(replace(sample(noted, png("red")).rollout, reply=SCRIPT))
    shown = sample_card(s, "policy · #1")
    assert shown.facts == ("total 0.457", "judge 0.500", "aesthetic 0.600", "length 0.200", "vs eval –", "paint 30%",
                           f"{s.pairing} pairing", "adherence: asks <coral>")
    assert shown.code == SCRIPT and shown.image.startswith("data:image/") and shown.passed
    page = card_html(shown)
    assert "<script>" not in page and "&lt;script&gt;" in page and "asks &lt;coral&gt;" in page
    demo = gallery_card(s.rollout, "good_lotus", "good_lotus.png", code="brush.circle(1, 2, 3);", context=("0.52s",))
    assert demo.facts[:4] == shown.facts[:4] and demo.facts[4:] == ("paint 30%", "0.52s", "adherence: asks <coral>")
    assert demo.code == "brush.circle(1, 2, 3);" and demo.image == "good_lotus.png" and demo.violations == ()
    outage = gallery_card(Rollout("p", replace(card(total=None), infra="aesthetic unreachable")), "down", None)
    assert outage.infra and outage.facts[0] == "total –" and outage.violations == (("infra", "aesthetic unreachable"),)
    cheat = gallery_card(Rollout("p", card(passed=False, total=0.0, violations=("text_on_canvas",))), "cheat", None)
    assert not cheat.passed and not cheat.infra and cheat.violations == (("text_on_canvas", "text_on_canvas"),)
    assert cheat.facts[:2] == ("total 0.000", "judge –") and "paint –" in cheat.facts


def test_a_record_reads_each_rollout_field_through_a_declared_property():
    """Frame and Sample read every Rollout field through `Wraps`' declared `ReadThrough`s (the
    class sees them: no __getattr__); a misspelt name is an AttributeError, and declaring a read
    of a field Rollout lacks fails when the class is defined, while its legal twin (a real field)
    defines fine."""
    from dataclasses import fields

    from brushwork.score.rollout import ReadThrough, Wraps
    from brushwork.train.film import Frame

    rollout = Rollout("Paint", card(), reply="r", png=b"png", subject="s", seed=3, group=4, step=5, turn=1,
                      final=False, reward=0.25)
    names = [f.name for f in fields(Rollout)]
    assert [n for n, v in vars(Wraps).items() if isinstance(v, ReadThrough)] == names
    assert not hasattr(Wraps, "__getattr__")
    for record in (Frame(rollout, 0), Sample(rollout)):
        assert [getattr(record, n) for n in names] == [getattr(rollout, n) for n in names]
        with pytest.raises(AttributeError, match="stpe"):
            getattr(record, "stpe")  # noqa: B009
    with pytest.raises((AttributeError, RuntimeError)) as error:
        type("Misread", (Wraps,), {"stpe": ReadThrough()})
    assert "Rollout has no field 'stpe'" in str(error.value) + str(error.value.__cause__)
    twin = type("Reread", (Wraps,), {"step": ReadThrough()})
    assert isinstance(twin.__dict__["step"], ReadThrough)


def test_training_curves_are_png_per_family(tmp_path):
    lines = [{"step": s, "loss": 1 / s, "reward": 0.1 * s, "rewards/brushwork/mean": 0.1 * s,
              "brushwork/gate_pass_rate": 0.2 * s, "brushwork/judge": 0.5, "brushwork/none_rate": 0.0,
              "completions/mean_length": 100 + s, "note": "text is skipped"} for s in (1, 2, 3, 4)]
    path = tmp_path / "run" / "metrics.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(json.dumps(x) for x in lines) + '\n{"step": 5, "lo')   # a torn last line
    events = read_metrics(path.parent)
    assert len(events) == 4 and "note" not in series(events)
    other = {"brushwork/judge": [(1, 0.3), (2, 0.6)]}
    paths = training_curves({"run": series(events), "other run": other}, tmp_path / "curves")
    assert sorted(p.name for p in paths) == ["training-loss.png", "training-other.png", "training-rates.png",
                                             "training-reward.png", "training-terms.png"]
    for p in paths:
        with Image.open(p) as im:
            assert im.format == "PNG" and im.size[0] > 300
    with pytest.raises(ConfigError, match="metrics.jsonl"):
        read_metrics(tmp_path / "nowhere")


def test_a_run_keeps_its_colour_in_every_panel_under_one_legend(tmp_path):
    """The curves share one legend below the panels, so a run must be drawn in the same colour in
    every panel, also where an earlier run has no points (the diversity term is only logged by the
    run that weighs it)."""
    import numpy as np

    from brushwork.eval.curves import plot

    line, other = [(1, 0.0), (2, 1.0), (3, 0.5)], [(1, 1.0), (2, 0.0), (3, 0.8)]
    long_name = "recipe-diverse-without-diversity-15-s1-learning_rate=1.5e-3,temperature=0.25,warmup_steps=2"
    runs = {"first": {"shared": line}, long_name: {"shared": other, "second only": line}}
    path = plot("t", ["shared", "second only"], runs, tmp_path / "c.png")
    with Image.open(path) as im:
        pixels = np.asarray(im.convert("RGB")).astype(int)
    panels = pixels[: int(pixels.shape[0] * 0.7)]             # above the legend
    left, right = panels[:, : pixels.shape[1] // 2], panels[:, pixels.shape[1] // 2:]

    def count(region, rgb):
        return int((np.abs(region - np.array(rgb)).sum(axis=2) < 40).sum())

    blue, orange = (0x1F, 0x77, 0xB4), (0xFF, 0x7F, 0x0E)      # matplotlib's C0 and C1
    assert count(left, blue) > 50 and count(left, orange) > 50
    assert count(right, orange) > 50 and count(right, blue) == 0
    assert pixels.shape[1] == 2 * 420                          # the long name did not widen the figure


# ---------------------------------------------------------------- errors a user meets first

def flat(result) -> str:
    """The output with rich's line wrapping undone."""
    return " ".join(result.output.split())


def test_errors_say_what_to_do(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(app, ["eval", "--film", str(tmp_path / "nofilm"), "--out", str(tmp_path / "o")])
    assert missing.exit_code == 2 and "not a film" in flat(missing) and "index.jsonl" in flat(missing)
    neither = runner.invoke(app, ["eval", "--out", str(tmp_path / "o")])
    assert neither.exit_code == 2 and "--model" in flat(neither) and "--film" in flat(neither)
    no_model = runner.invoke(app, ["eval", "--model", str(tmp_path / "no-model"), "--out", str(tmp_path / "o")])
    assert no_model.exit_code == 2 and "no such folder" in flat(no_model)
    samples = runner.invoke(app, ["eval", "--model", str(tmp_path), "--samples", "0"])
    assert samples.exit_code == 2 and "--samples" in flat(samples)
    steps = runner.invoke(app, ["eval", "--model", str(tmp_path), "--film-steps", "some"])
    assert steps.exit_code == 2 and "all or ends" in flat(steps)
    run = runner.invoke(app, ["eval", "--model", str(tmp_path), "--run", str(tmp_path / "no-run")])
    assert run.exit_code == 2 and "no metrics.jsonl" in flat(run)
    compare = runner.invoke(app, ["eval", "--model", str(tmp_path), "--compare", str(tmp_path)])
    assert compare.exit_code == 2 and "is not a film" in flat(compare)
    pool = write_pool(tmp_path / "pool", with_eval=False)
    no_split = runner.invoke(app, ["eval", "--model", str(tmp_path), "--pool", str(pool), "--out",
                                   str(tmp_path / "o")])
    assert no_split.exit_code == 2 and "brushwork pool split" in flat(no_split) and '"split": "eval"' in flat(no_split)


# ---------------------------------------------------------------- the bundled pool's evaluation split

def test_bundled_pool_holds_out_an_eval_split():
    from brushwork.eval.collect import check_eval_split, eval_references
    from brushwork.pool import Pool, PoolItem, example_pool_dir
    from brushwork.pool.folder import _records, _tier_of

    root = example_pool_dir()
    items = tuple(PoolItem(id=Path(r["file_name"]).stem, tier=_tier_of(r), image=root / r["file_name"],
                           subject=r.get("subject", ""), domain=r.get("domain", ""), split=r.get("split", "train"))
                  for r in _records(root))
    pool = Pool(root, items, "bundled")
    count = lambda split, tier: sum(i.split == split and i.tier == tier for i in items)  # noqa: E731
    assert [count("eval", t) for t in ("love", "okay", "nope")] == [3, 3, 3]
    assert count("train", "love") >= 12 and count("train", "okay") >= 12
    assert len({i.domain for i in pool.split("eval")}) >= 4
    check_eval_split(pool)
    refs = eval_references(pool, "Paint a peach hibiscus")
    assert sorted(r.tier for r in refs) == ["love"] * 3 + ["okay"] * 3 and all(r.split == "eval" for r in refs)
    assert refs == eval_references(pool, "Paint a peach hibiscus")
    assert len(eval_references(pool, "x", count=2)) == 2


# ---------------------------------------------------------------- films scored by a real Pipeline

@pytest.fixture(scope="module")
def small_pool(tmp_path_factory):
    return write_pool(tmp_path_factory.mktemp("pool") / "pool")


@pytest.fixture(scope="module")
def films(small_pool, private_cache, tmp_path_factory):
    """Two training-run folders: A (steps 1 and 2: three good sketches, a cheat, a broken
    reply, a <script> in one reply and hostile prompt text) and B (step 1: two of A's good
    sketches and another cheat); A also has a metrics.jsonl. The bundled examples are the
    cheapest to render of their kind; `circle` is test_score's one-circle sketch."""
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline
    from brushwork.train.film import Film

    root = tmp_path_factory.mktemp("films")
    names = {"peach": "good_peach_hibiscus", "abstract": "good_abstract", "cheat": "cheat_text",
             "broken": "broken_truncated", "fetch": "cheat_fetch"}
    replies = {"circle": HONEST, **{k: (EXAMPLES / f"{v}.md").read_text() for k, v in names.items()}}
    replies["abstract+script"] = replies["abstract"] + SCRIPT    # same sketch: a render-cache hit

    options = ScoringOptions(pool=small_pool, workers=2, render_timeout_s=30)
    with Pipeline(options) as pipeline:
        keys = [k for k in replies if k != "abstract+script"]
        paintings = pipeline.run_many([replies[k] for k in keys], seeds=3, group_seeds=11, subjects="peach hibiscus")
        scored = {k: (replies[k], p.card, p.png) for k, p in zip(keys, paintings)}
        again = pipeline.run(replies["abstract+script"], seed=3, group_seed=11, subject="peach hibiscus")
        scored["abstract+script"] = (replies["abstract+script"], again.card, again.png)
        assert again.card.timings.cached    # the same sketch as "abstract": a render-cache hit, and it says so

    def record(film: Film, step: int, keys: list[str]):
        for index, key in enumerate(keys):
            reply, c, image = scored[key]
            good = c.passed
            film.record(Rollout(HOSTILE_PROMPT if good else "Paint a white lotus", c, reply=reply, png=image,
                                subject="peach hibiscus", seed=3, group=11 if good else 12, step=step), index)
    a, b = Film(root / "run-a" / "film"), Film(root / "run-b" / "film")
    record(a, 1, ["peach", "abstract", "circle", "cheat", "broken"])
    record(a, 2, ["peach", "abstract+script", "circle", "cheat"])
    record(b, 1, ["circle", "peach", "fetch"])
    (root / "run-a" / "metrics.jsonl").write_text("\n".join(json.dumps(
        {"step": s, "loss": 0.5 / s, "reward": 0.2 * s, "brushwork/gate_pass_rate": 0.3 * s, "brushwork/judge": 0.4})
        for s in (1, 2)) + "\n")
    return root, scored


def _film_eval(root: Path, pool: Path, scored: dict, out: Path) -> None:
    res = CliRunner().invoke(app, ["eval", "--film", str(root / "run-a"), "--pool", str(pool), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "gate pass rate" in res.stdout and "run-a · step 2" in res.stdout
    data = json.loads((out / "eval.json").read_text())
    assert data["mode"] == "film" and list(data["summaries"]) == ["step 1", "step 2", "all"]
    first, last, everything = (Metrics.from_dict(data["summaries"][k]) for k in ("step 1", "step 2", "all"))
    assert first.pass_rate == pytest.approx(0.6) and last.pass_rate == pytest.approx(0.75)
    assert everything.samples == 9 and everything.cheat_rate == pytest.approx(2 / 9)
    broken_ids = {v.id for v in scored["broken"][1].violations}
    assert everything.violations["text_on_canvas"] == 2 and broken_ids <= set(first.violations)
    # 6 passed paintings x 4 evaluation references (the pool holds out 2 love + 2 okay)
    assert everything.win_rate.n == 6 * 4 and 0 <= everything.win_rate.mean <= 1
    assert set(everything.win_by_tier) == {"love", "okay"} and everything.judge_consistency.mean == 1.0
    assert everything.diversity.n == 2 and everything.diversity.mean > 0
    assert everything.terms["judge"].n == 6 and everything.terms["total"].n == 9
    passed = [s for s in data["samples"] if s["passed"]]
    assert len(passed) == 6 and all(s["win"] is not None and len(s["eval_comparisons"]) == 4 for s in passed)
    assert sorted(data["curves"]) == ["curves/film-diversity.png", "curves/film-per-step.png",
                                      "curves/training-loss.png", "curves/training-rates.png",
                                      "curves/training-reward.png", "curves/training-terms.png"]
    assert all((out / c).is_file() for c in data["curves"])
    page = (out / "report.html").read_text()
    assert page.count('<img src="data:image/jpeg;base64,') == 3     # the last step's three paintings
    assert page.count('<img src="data:image/png;base64,') == 6      # the curves
    assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in page and "<script" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "<img src=x" not in page
    assert "text_on_canvas" in page and "win rate vs eval" in page


def _comparison(root: Path, pool: Path, tmp_path: Path) -> None:
    first = CliRunner().invoke(app, ["eval", "--film", str(root / "run-b" / "film"), "--pool", str(pool), "--out",
                                     str(tmp_path / "b")])
    assert first.exit_code == 0, first.output
    out = tmp_path / "ab"
    res = CliRunner().invoke(app, ["eval", "--film", str(root / "run-a" / "film"), "--pool", str(pool), "--out",
                                   str(out), "--compare", str(root / "run-b"), "--compare",
                                   str(tmp_path / "b" / "eval.json"), "--film-steps", "ends"])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "eval.json").read_text())
    assert data["label"] == "run-a" and [c["label"] for c in data["compare"]] == ["run-b", "run-b (2)"]
    assert [c["kind"] for c in data["compare"]] == ["film", "eval.json"]
    assert data["compare"][0]["summaries"]["all"]["pass_rate"] == pytest.approx(2 / 3)
    page = (out / "report.html").read_text()
    assert "run-a · step 2" in page and ">run-b<" in page and ">run-b (2)<" in page
    assert "Side by side" in page and "run-b (best)" in page and "run-a (best)" in page
    assert {"training-reward.png", "film-per-step.png"} <= {Path(c).name for c in data["curves"]}


@pytest.mark.chromium
@pytest.mark.slow
def test_films_end_to_end_and_compared(films, small_pool, tmp_path):
    """One test (not two) so that xdist never scores the films twice on two workers."""
    root, scored = films
    assert scored["peach"][1].passed and scored["cheat"][1].cheated and not scored["broken"][1].passed
    _film_eval(root, small_pool, scored, tmp_path / "eval-a")
    _comparison(root, small_pool, tmp_path)


# ---------------------------------------------------------------- a tiny local policy

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """An untrained tiny Qwen3 with its tokenizer, and a LoRA adapter on it (no download)."""
    pytest.importorskip("peft")
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from brushwork.train.tiny import TinySpec, build_tiny

    root = tmp_path_factory.mktemp("tiny")
    model = build_tiny(TinySpec(corpus_sketches=60), root / "tiny")
    lora = get_peft_model(AutoModelForCausalLM.from_pretrained(model), LoraConfig(r=4, target_modules="all-linear"))
    lora.save_pretrained(root / "lora")
    return model, root / "lora"


@pytest.mark.chromium
@pytest.mark.slow
def test_tiny_policy_end_to_end_with_and_without_adapter(tiny, small_pool, tmp_path):
    model, adapter = tiny
    common = ["--prompts", "2", "--samples", "2", "--max-new-tokens", "16", "--workers", "1", "--domain", "hibiscus",
              "--pool", str(small_pool)]
    out = tmp_path / "base"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").write_text('{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.5}\n')
    res = CliRunner().invoke(app, ["eval", "--model", str(model), "--out", str(out), "--run", str(tmp_path / "run"),
                                   *common])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "eval.json").read_text())
    m = Metrics.from_dict(data["summaries"]["all"])
    assert data["mode"] == "model" and m.samples == 4 and m.groups == 2 and m.pass_rate == 0   # it writes garbage
    assert {"no_sketch", "syntax_error", "missing_setup"} & set(m.violations)
    assert data["info"]["prompts"] == f"2 (seed {EVAL_SEED})" and m.win_rate.n == 0
    assert all(s["subject"] and s["prompt"] for s in data["samples"])
    assert len((out / "film" / "index.jsonl").read_text().splitlines()) == 4 and (out / "report.html").is_file()
    assert data["curves"] == ["curves/training-loss.png"]
    from brushwork.eval.generate import generate_replies

    greedy = generate_replies(str(model), None, held_out_rows(["hibiscus"], 1), 2, max_new_tokens=4, temperature=0)
    assert len(greedy) == 1 and len(greedy[0]) == 2 and greedy[0][0] == greedy[0][1]
    (tmp_path / "base.json").write_text((out / "eval.json").read_text())
    again = CliRunner().invoke(app, ["eval", "--model", str(model), "--adapter", str(adapter), "--out", str(out),
                                     "--compare", str(tmp_path / "base.json"), *common])
    assert again.exit_code == 0, again.output
    data = json.loads((out / "eval.json").read_text())
    assert data["label"] == "tiny+lora" and data["info"]["adapter"] == str(adapter)
    assert len((out / "film" / "index.jsonl").read_text().splitlines()) == 4    # the old film was replaced
    assert data["compare"][0]["label"] == "tiny" and data["compare"][0]["summaries"]["all"]["samples"] == 4
    assert ">tiny+lora<" in (out / "report.html").read_text()
