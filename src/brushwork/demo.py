"""`make demo`: gate and render the bundled example replies, print a table, write a gallery."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.table import Table


def example_files() -> list[Path]:
    folder = resources.files("brushwork").joinpath("examples")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".md"))


def run_demo(out_dir: Path, workers: int | None, use_cache: bool, console: Console, progress) -> int:
    from brushwork.gate import GateConfig
    from brushwork.gate.live import gate_reply
    from brushwork.render import RenderConfig, Renderer
    from brushwork.report.gallery import Card, write_gallery

    files = example_files()
    if not files:
        console.print("[red]no bundled examples found (src/brushwork/examples/*.md)[/]")
        return 1
    cfg = RenderConfig(use_cache=use_cache, **({"workers": workers} if workers else {}))
    gate_cfg = GateConfig()

    async def run():
        with progress() as bar:
            task = bar.add_task("painting the examples", total=len(files))
            async with Renderer(cfg) as renderer:
                async def one(path):
                    # render_all: the gallery shows what each cheat would have painted, too
                    g = await gate_reply(path.read_text(), renderer, gate_cfg, render_all=True)
                    bar.advance(task)
                    return g
                return await asyncio.gather(*(one(f) for f in files))

    gated = asyncio.run(run())
    out_dir.mkdir(parents=True, exist_ok=True)
    table = Table("file", "verdict", "violations", "paint", "time s", title="brushwork demo: gate + render")
    cards = []
    for path, g in zip(files, gated):
        r = g.render
        image = None
        if r is not None and r.png is not None:
            image = f"{path.stem}.png"
            (out_dir / image).write_bytes(r.png)
        verdict = "[green]pass[/]" if g.report.passed else "[red]fail[/]"
        table.add_row(path.name, verdict, ", ".join(g.report.ids) or "-",
                      f"{100 * r.paint_fraction:.1f}%" if r and r.paint_fraction is not None else "-",
                      f"{r.timings.wall_s:.2f}" if r else "-")
        facts = []
        if r is not None:
            facts.append(f"paint {100 * (r.paint_fraction or 0):.1f}%")
            facts.append(f"{r.timings.wall_s:.2f}s" + (" (cached)" if r.cache_hit else ""))
        cards.append(Card(name=path.stem, passed=g.report.passed, infra=g.report.infra_failure, image=image,
                          violations=tuple((v.id, v.message) for v in g.report.violations), facts=tuple(facts),
                          code=g.sketch.code if g.sketch else ""))
    console.print(table)
    page = write_gallery(out_dir / "index.html", "brushwork demo",
                         "Bundled example replies, gated and rendered. Cheats are rendered too, to show what "
                         "the gate refused.", cards)
    console.print(f"gallery: [bold]{page}[/]")
    return 0
