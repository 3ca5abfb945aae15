"""Blind human A/B evaluation of two runs: the figure that says whether training improved taste.

`prepare(a, b, out)` pairs the two runs' paintings by prompt (several samples of one prompt
are paired by a seeded shuffle), puts each pair's sides in a seeded, balanced random order,
and writes an A/B folder:

    <out>/pool.sqlite, blobs/   a pool store holding the paintings under neutral ids (their
                                image hashes; no generator, provenance or source) and the
                                fixed pair list, served by the rating page in pair mode, blind
    <out>/ab.json               the private key: which side of which pair came from which run,
                                with each painting's reward total and judge term

`report(out)` reads the person's preferences back and gives B's human win rate (ties count
one half) with a seeded bootstrap 95 % interval over pairs, beside the reward difference
(B - A) on the same pairs and how often the judge term and the reward pick the human's choice.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from brushwork.core.stats import bootstrap_interval
from brushwork.errors import ConfigError
from brushwork.eval.collect import film_samples, resolve_source
from brushwork.eval.metrics import Sample
from brushwork.pool.store import PoolStore

KEY_FILE = "ab.json"
REPORT_FILE = "ab-report.json"
RUNS = ("A", "B")


# -- preparing ---------------------------------------------------------------------------------
def _paintings(path: Path) -> tuple[str, dict[str, list[Sample]]]:
    """A run's label and its final paintings by prompt."""
    source = resolve_source(Path(path))
    if source.film is None:
        raise ConfigError(f"{path} holds no film (only {source.eval_json}): an A/B test needs the paintings, so give "
                          f"a film, a training run folder or an eval output folder with film/ in it")
    by_prompt: dict[str, list[Sample]] = defaultdict(list)
    for sample in film_samples(source.film):
        if sample.png is not None and sample.final:
            by_prompt[sample.prompt].append(sample)
    return source.label, by_prompt


def _side(run: str, label: str, sample: Sample, item: str) -> dict:
    return {"run": run, "label": label, "item": item, "step": sample.step, "seed": sample.seed,
            "subject": sample.subject, "total": sample.card.total, "judge": sample.card.terms.get("judge")}


def prepare(a: Path, b: Path, out: Path, seed: int = 0) -> dict:
    """Write the A/B folder for runs `a` and `b` (see the module docstring); returns the key."""
    out = Path(out)
    if (out / "pool.sqlite").exists() or (out / KEY_FILE).exists():
        raise ConfigError(f"{out} already holds an A/B test: serve it again with `brushwork pool serve {out} --blind` "
                          f"(open /?mode=pair), read it with `brushwork eval --ab-report {out}`, or choose another "
                          f"--out")
    (label_a, runs_a), (label_b, runs_b) = _paintings(a), _paintings(b)
    if label_a == label_b:
        label_a, label_b = f"{label_a} (A)", f"{label_b} (B)"
    shared = sorted(set(runs_a) & set(runs_b))
    if not shared:
        raise ConfigError(f"{label_a} and {label_b} share no prompt with a painting: an A/B test compares paintings "
                          f"of the same prompt, so evaluate both on the same held-out prompts (`brushwork eval "
                          f"--model ... --prompt-seed S`)")
    rng = random.Random(f"ab:{seed}")
    matched = []
    for prompt in shared:
        left, right = list(runs_a[prompt]), list(runs_b[prompt])
        rng.shuffle(left), rng.shuffle(right)
        matched.extend((prompt, x, y) for x, y in zip(left, right))
    rng.shuffle(matched)
    # Balanced sides: half the pairs (rounded at random) show B on the left, in a random order.
    half = len(matched) // 2 + (len(matched) % 2 == 1 and rng.random() < 0.5)
    b_left = [k < half for k in range(len(matched))]
    rng.shuffle(b_left)
    store = PoolStore.init(out)
    pairs, shown, identical = [], [], 0
    for (prompt, x, y), flip in zip(matched, b_left):
        ids = [store.add_item(s.png, subject=s.subject, prompt=prompt) for s in (x, y)]
        if ids[0] == ids[1]:
            identical += 1      # the same picture from both runs: nothing for a person to choose
            continue
        sides = [_side("A", label_a, x, ids[0]), _side("B", label_b, y, ids[1])]
        left, right = sides[::-1] if flip else sides
        pairs.append({"prompt": prompt, "left": left, "right": right})
        shown.append((left["item"], right["item"]))
    if not pairs:
        raise ConfigError(f"every shared prompt of {label_a} and {label_b} has identical paintings: nothing to compare")
    store.set_pairs(shown)
    store.close()
    key = {"runs": {"A": {"label": label_a, "path": str(a)}, "B": {"label": label_b, "path": str(b)}},
           "seed": seed, "identical": identical, "pairs": pairs}
    (out / KEY_FILE).write_text(json.dumps(key, indent=1), encoding="utf-8")
    return key


# -- the arithmetic --------------------------------------------------------------------------------
def outcomes(key: dict, preferences) -> list[float | None]:
    """B's score on each pair, in pair order: 1 when the person chose B's painting, 0 for A's,
    0.5 for a tie, the mean over raters (each rater's latest verdict); None while unjudged."""
    where = {frozenset((p["left"]["item"], p["right"]["item"])): k for k, p in enumerate(key["pairs"])}
    latest: dict[tuple[int, str], float] = {}
    for pref in preferences:      # in the order given, so a later verdict replaces an earlier one
        k = where.get(frozenset((pref.a, pref.b)))
        if k is None:
            continue
        b_item = _by_run(key["pairs"][k])["B"]["item"]
        chosen = {"a": pref.a, "b": pref.b}.get(pref.winner)
        latest[(k, pref.rater)] = 0.5 if chosen is None else float(chosen == b_item)
    scores: dict[int, list[float]] = defaultdict(list)
    for (k, _), score in latest.items():
        scores[k].append(score)
    return [sum(scores[k]) / len(scores[k]) if scores[k] else None for k in range(len(key["pairs"]))]


def _by_run(pair: dict) -> dict[str, dict]:
    return {pair["left"]["run"]: pair["left"], pair["right"]["run"]: pair["right"]}


def agreement(pairs: list[dict], human: list[float], term: str) -> tuple[float | None, int]:
    """How often the painting with the higher `term` is the one the person chose, over pairs where
    both values exist and differ and the person did not tie; (rate, pairs counted)."""
    hits = []
    for pair, score in zip(pairs, human):
        sides = _by_run(pair)
        va, vb = sides["A"][term], sides["B"][term]
        if va is None or vb is None or va == vb or score == 0.5:
            continue
        hits.append((vb > va) == (score > 0.5))
    return (sum(hits) / len(hits) if hits else None), len(hits)


@dataclass(frozen=True)
class ABReport:
    a: str
    b: str
    rated: int                    # pairs with at least one human verdict
    total: int                    # pairs prepared
    win_rate: float               # B's human win rate over rated pairs (ties 0.5)
    win_interval: tuple[float, float]
    reward_diff: float | None     # mean reward total, B - A, over rated pairs where both have one
    reward_interval: tuple[float, float] | None
    reward_pairs: int
    judge_win_rate: float | None  # B's win rate by the judge term on the rated pairs (equal terms 0.5)
    judge_win_pairs: int
    judge_agreement: float | None  # the higher judge term is the human's choice
    judge_pairs: int
    reward_agreement: float | None  # the higher reward total is the human's choice
    reward_agreement_pairs: int
    resamples: int
    seed: int

    def to_dict(self) -> dict:
        return asdict(self)


def report(folder: Path, resamples: int = 2000, seed: int = 0) -> ABReport:
    """Read the A/B folder's preferences and write <folder>/ab-report.json (see the module docstring)."""
    folder = Path(folder)
    if not (folder / KEY_FILE).is_file() or not (folder / "pool.sqlite").is_file():
        raise ConfigError(f"{folder} is not an A/B folder (no {KEY_FILE} and pool.sqlite): prepare one with "
                          f"`brushwork eval --ab RUN_A RUN_B --out {folder}`")
    key = json.loads((folder / KEY_FILE).read_text(encoding="utf-8"))
    store = PoolStore(folder)
    try:
        human = outcomes(key, store.preferences())
    finally:
        store.close()
    rated = [(p, h) for p, h in zip(key["pairs"], human) if h is not None]
    if not rated:
        raise ConfigError(f"nobody has judged a pair in {folder} yet: serve it (`brushwork pool serve {folder} "
                          f"--blind`, open /?mode=pair) and choose between a few pairs first")
    pairs, scores = [p for p, _ in rated], [h for _, h in rated]
    diffs = [s["B"]["total"] - s["A"]["total"] for s in map(_by_run, pairs)
             if s["A"]["total"] is not None and s["B"]["total"] is not None]
    judge, judge_n = agreement(pairs, scores, "judge")
    by_judge = [0.5 if s["A"]["judge"] == s["B"]["judge"] else float(s["B"]["judge"] > s["A"]["judge"])
                for s in map(_by_run, pairs) if s["A"]["judge"] is not None and s["B"]["judge"] is not None]
    reward, reward_n = agreement(pairs, scores, "total")
    result = ABReport(a=key["runs"]["A"]["label"], b=key["runs"]["B"]["label"], rated=len(rated),
                      total=len(key["pairs"]), win_rate=float(np.mean(scores)),
                      win_interval=bootstrap_interval(scores, resamples, seed),
                      reward_diff=float(np.mean(diffs)) if diffs else None,
                      reward_interval=bootstrap_interval(diffs, resamples, seed) if diffs else None,
                      reward_pairs=len(diffs),
                      judge_win_rate=float(np.mean(by_judge)) if by_judge else None, judge_win_pairs=len(by_judge),
                      judge_agreement=judge, judge_pairs=judge_n, reward_agreement=reward,
                      reward_agreement_pairs=reward_n, resamples=resamples, seed=seed)
    (folder / REPORT_FILE).write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
    return result


def report_rows(r: ABReport) -> list[tuple[str, str]]:
    """The report as (measure, value) rows for a table."""
    def num(x, sign=""):
        return "—" if x is None else f"{x:{sign}.3f}"

    def span(iv, sign=""):
        return "" if iv is None else f"[{num(iv[0], sign)}, {num(iv[1], sign)}]"
    return [("runs", f"A = {r.a} · B = {r.b}"), ("pairs judged", f"{r.rated} / {r.total}"),
            ("B's human win rate (95 % CI)", f"{num(r.win_rate)} {span(r.win_interval)}"),
            ("B's judge-term win rate", f"{num(r.judge_win_rate)} over {r.judge_win_pairs} pairs"),
            ("reward B - A (95 % CI)",
             f"{num(r.reward_diff, '+')} {span(r.reward_interval, '+')} over {r.reward_pairs} pairs"),
            ("judge term agrees with the person", f"{num(r.judge_agreement)} over {r.judge_pairs} pairs"),
            ("reward agrees with the person", f"{num(r.reward_agreement)} over {r.reward_agreement_pairs} pairs")]
