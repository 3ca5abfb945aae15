"""`make demo`: the bundled example replies through the pipeline (gate, render, score against
the example pool with the offline defaults); a table and a gallery of the results.

    paint_examples   the pipeline part: every example through one `Pipeline`, concurrently
    demo_table       the rich table `brushwork demo` prints
    disagreements    the examples whose gate verdict contradicts their name (good_ passes, others fail)
    write_demo_gallery   the HTML gallery (cheats are rendered too, to show what the gate refused)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from brushwork.paths import example_files

__all__ = ["demo_table", "disagreements", "example_files", "paint_examples", "run_demo", "write_demo_gallery"]


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def paint_examples(files: list[Path], workers: int | None = None, use_cache: bool = True,
                   progress: Callable | None = None) -> tuple[str, list]:
    """Gate, render and score every file on one pipeline (judge-led weights, example pool);
    returns the pool's snapshot and a `Painting` per file. `progress` (a callable returning a
    rich `Progress`, or None) shows the pool's first rendering and one step per example."""
    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline

    options = ScoringOptions(workers=workers or 0, render_cache=use_cache)
    # the example pool is rendered on first use (with a bar), the taste model fitted on it
    pipeline = Pipeline(options, progress=progress)
    with pipeline:
        texts = [path.read_text(encoding="utf-8") for path in files]
        # render_all: the gallery shows what each cheat would have painted, too
        if progress is None:
            paintings = pipeline.run_many(texts, group_seeds=0, render_all=True)
        else:
            with progress() as bar:
                task = bar.add_task("painting and scoring the examples", total=len(texts))
                paintings = pipeline.run_many(texts, group_seeds=0, render_all=True,
                                              on_done=lambda i, p: bar.advance(task))
        return pipeline.pool.snapshot, paintings


def demo_table(files: list[Path], paintings: list, snapshot: str) -> Table:
    table = Table("example", "verdict", "violations", "paint", "len", "judge", "aes", "reward", "render s",
                  title=f"brushwork demo: gate, render, score (judge-led, example pool {snapshot})")
    for path, p in zip(files, paintings):
        r, card = p.render, p.card
        verdict = "[green]pass[/]" if p.report.passed else "[red]fail[/]"
        table.add_row(path.stem, verdict, ", ".join(p.report.ids) or "-",
                      f"{100 * r.paint_fraction:.1f}%" if r and r.paint_fraction is not None else "-",
                      _fmt(card.length), _fmt(card.judge), _fmt(card.aesthetic),
                      "None" if card.total is None else f"[bold]{card.total:.3f}[/]",
                      f"{r.timings.wall_s:.2f}" if r else "-")
    return table


def write_demo_gallery(out_dir: Path, files: list[Path], paintings: list) -> Path:
    """OUT/<example>.png for every painting and OUT/index.html; returns the page."""
    from brushwork.report.gallery import write_gallery
    from brushwork.score.rollout import Rollout, gallery_card

    out_dir.mkdir(parents=True, exist_ok=True)
    cards = []
    for path, p in zip(files, paintings):
        image = None
        if p.png is not None:
            image = f"{path.stem}.png"
            (out_dir / image).write_bytes(p.png)
        render = p.render
        timing = () if render is None else (f"{render.timings.wall_s:.2f}s{' (cached)' if render.cache_hit else ''}",)
        rollout = Rollout("", p.card, reply=path.read_text(encoding="utf-8"), png=p.png, seed=p.card.seed)
        cards.append(gallery_card(rollout, path.stem, image, code=p.sketch.code if p.sketch else "", context=timing))
    return write_gallery(out_dir / "index.html", "brushwork demo",
                         "Bundled example replies, gated, rendered and scored against the example pool "
                         "(offline taste judge and aesthetic, judge-led weights). Cheats are rendered too, to show "
                         "what the gate refused; they score 0.", cards)


def disagreements(files: list[Path], paintings: list) -> list[str]:
    """Each example whose verdict contradicts its name: a good_ one must pass the gate, a cheat_
    or broken_ one must fail it (the demo shows the gate working; a wrong verdict shows it not)."""
    wrong = []
    for path, p in zip(files, paintings):
        good = path.name.startswith("good_")
        if good and not p.report.passed:
            wrong.append(f"{path.stem} fails the gate ({', '.join(p.report.ids) or 'no violation named'})")
        elif not good and p.report.passed:
            wrong.append(f"{path.stem} passes the gate")
    return wrong


def run_demo(out_dir: Path, workers: int | None, use_cache: bool, console: Console,
             progress: Callable | None = None) -> list[str]:
    """The whole demo: paint the examples, print the table, write the gallery; returns the
    examples that disagree with their names (empty: every verdict is the one its name promises)."""
    from brushwork.errors import SetupError

    files = example_files()
    if not files:
        raise SetupError("no bundled examples found (brushwork/examples/*.md): reinstall brushwork")
    snapshot, paintings = paint_examples(files, workers, use_cache, progress)
    console.print(demo_table(files, paintings, snapshot))
    page = write_demo_gallery(out_dir, files, paintings)
    console.print(f"gallery: [bold]{page}[/]")
    return disagreements(files, paintings)
