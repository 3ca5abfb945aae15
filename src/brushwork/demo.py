"""`make demo`: gate, render and score the bundled example replies against the example
pool with the offline defaults; print a table; write a gallery."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.table import Table


def example_files() -> list[Path]:
    folder = resources.files("brushwork").joinpath("examples")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".md"))


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def run_demo(out_dir: Path, workers: int | None, use_cache: bool, console: Console, progress) -> int:
    from brushwork.gate.live import gate_reply
    from brushwork.pool import example_pool_dir
    from brushwork.render import RenderConfig, Renderer, SyncRenderer
    from brushwork.report.gallery import Card, write_gallery
    from brushwork.score import Scorer, ScorerConfig
    from brushwork.score.build import BackendOptions, build_backends, reward_config

    files = example_files()
    if not files:
        console.print("[red]no bundled examples found (src/brushwork/examples/*.md)[/]")
        return 1
    cfg = RenderConfig(use_cache=use_cache, **({"workers": workers} if workers else {}))
    from brushwork.cli.common import load_pool_with_progress

    with SyncRenderer(cfg) as pool_renderer:
        pool = load_pool_with_progress(example_pool_dir(), renderer=pool_renderer)
    reward = reward_config("judge-led", None)
    with console.status("fitting the taste model on the example pool"):
        judge, aesthetic = build_backends(pool, BackendOptions(), reward)

    async def run():
        with progress() as bar:
            task = bar.add_task("painting and scoring the examples", total=len(files))
            async with Renderer(cfg) as renderer:
                scorer = Scorer(renderer, pool, judge, aesthetic, ScorerConfig(reward=reward))

                async def one(path):
                    # render_all: the gallery shows what each cheat would have painted, too
                    gated = await gate_reply(path.read_text(), renderer, scorer.config.gate, render_all=True)
                    card = await scorer.score_gated(gated, group_seed=0)
                    bar.advance(task)
                    return gated, card
                return await asyncio.gather(*(one(f) for f in files))

    results = asyncio.run(run())
    out_dir.mkdir(parents=True, exist_ok=True)
    table = Table("example", "verdict", "violations", "paint", "len", "judge", "aes", "reward", "render s",
                  title=f"brushwork demo: gate, render, score (judge-led, example pool {pool.snapshot})")
    cards = []
    for path, (g, card) in zip(files, results):
        r = g.render
        image = None
        if r is not None and r.png is not None:
            image = f"{path.stem}.png"
            (out_dir / image).write_bytes(r.png)
        verdict = "[green]pass[/]" if g.report.passed else "[red]fail[/]"
        table.add_row(path.stem, verdict, ", ".join(g.report.ids) or "-",
                      f"{100 * r.paint_fraction:.1f}%" if r and r.paint_fraction is not None else "-",
                      _fmt(card.length), _fmt(card.judge), _fmt(card.aesthetic),
                      "None" if card.total is None else f"[bold]{card.total:.3f}[/]",
                      f"{r.timings.wall_s:.2f}" if r else "-")
        facts = [f"reward {_fmt(card.total)}", f"judge {_fmt(card.judge)}", f"aesthetic {_fmt(card.aesthetic)}",
                 f"length {_fmt(card.length)}"]
        if r is not None:
            facts += [f"paint {100 * (r.paint_fraction or 0):.1f}%",
                      f"{r.timings.wall_s:.2f}s" + (" (cached)" if r.cache_hit else "")]
        cards.append(Card(name=path.stem, passed=g.report.passed, infra=g.report.infra_failure, image=image,
                          violations=tuple((v.id, v.message) for v in g.report.violations), facts=tuple(facts),
                          code=g.sketch.code if g.sketch else ""))
    console.print(table)
    page = write_gallery(out_dir / "index.html", "brushwork demo",
                         "Bundled example replies, gated, rendered and scored against the example pool "
                         "(offline taste judge and aesthetic, judge-led weights). Cheats are rendered too, to show "
                         "what the gate refused; they score 0.", cards)
    console.print(f"gallery: [bold]{page}[/]")
    return 0
