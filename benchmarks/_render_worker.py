"""Child process of `render.py --against`: one block of renders with the brushwork found in --src.

Run it with PYTHONPATH=<src> (render.py does): it checks that `brushwork` really came from
there, starts one `SyncRenderer` (one worker, cache off and pointed at a fresh folder), renders
every sketch once untimed (the first render also compiles p5.brush's shaders), then every sketch
`--passes` times. One JSON object per line on stdout: a "start" line (startup_s, and startup_cpu_s:
CPU-seconds this process and every process it started spent getting the renderer started, read
from /proc), one per warm-up render (first_s and first_cpu_s on the first: start to first painting), a
"warmed" line (short_s, short_cpu_s: start plus one render of every sketch), then one per timed render (wall_s =
`timings.wall_s`, in_page_s, status, sha256 of the PNG, cache_hit). Only the standard library and
what the side's own brushwork imports are used, so either tree can run it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def tree_cpu_s() -> float:
    """CPU-seconds of this process and its descendants now alive (Playwright's driver, Chromium),
    with what each has collected from its children that ended (`chromium --version`)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            parent[int(entry)], cpu[int(entry)] = int(fields[1]), sum(int(f) for f in fields[11:15]) / ticks
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += [child for child, up in parent.items() if up == pid]
    return total


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", required=True, help="the src/ folder brushwork must be imported from")
    p.add_argument("--sketches", required=True, help="JSON file: [[name, code], ...]")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--passes", type=int, default=1, help="timed renders of every sketch")
    p.add_argument("--cache-dir", required=True, help="a fresh, empty render cache folder")
    p.add_argument("--chromium", default=None)
    p.add_argument("--png-dir", default=None, help="also save each timed painting as DIR/<sketch>.<pass>.png")
    args = p.parse_args(argv)

    import brushwork
    from brushwork.render import RenderConfig
    from brushwork.render.assets import Libraries
    from brushwork.render.sync import SyncRenderer

    where = Path(brushwork.__file__).resolve()
    if not where.is_relative_to(Path(args.src).resolve()):
        print(f"brushwork imported from {where}, not from {args.src}", file=sys.stderr)
        return 2
    libs = Libraries.locate()
    sketches = json.loads(Path(args.sketches).read_text())
    config = RenderConfig(workers=1, use_cache=False, cache_dir=Path(args.cache_dir), chromium=args.chromium)
    cpu0, t0 = tree_cpu_s(), time.perf_counter()
    with SyncRenderer(config) as r:
        emit(event="start", brushwork=str(where), startup_s=time.perf_counter() - t0,
             startup_cpu_s=tree_cpu_s() - cpu0,
             p5=libs.p5_version, brush=libs.brush_version, libs=libs.source, brush_shader=config.brush_shader)
        for i, (name, code) in enumerate(sketches):  # warm-up: untimed
            res = r.render(code, seed=args.seed)
            emit(event="warmup", sketch=name, status=res.status, wall_s=res.timings.wall_s,
                 first_s=time.perf_counter() - t0 if i == 0 else None,
                 first_cpu_s=tree_cpu_s() - cpu0 if i == 0 else None,
                 sha256=hashlib.sha256(res.png).hexdigest() if res.png else None)
        emit(event="warmed", short_s=time.perf_counter() - t0, short_cpu_s=tree_cpu_s() - cpu0)
        for i in range(args.passes):
            for name, code in sketches:
                t1 = time.perf_counter()
                res = r.render(code, seed=args.seed)
                call_s = time.perf_counter() - t1
                emit(event="render", sketch=name, pass_=i, status=res.status, wall_s=res.timings.wall_s,
                     in_page_s=res.timings.in_page_s, call_s=call_s, cache_hit=res.cache_hit,
                     sha256=hashlib.sha256(res.png).hexdigest() if res.png else None,
                     paint_fraction=res.paint_fraction, paint_calls=res.paint_calls,
                     brush_calls=sum(res.brush_calls.values()), frame_count=res.frame_count,
                     detail=res.detail[:300], js_errors=[e.message[:200] for e in res.js_errors])
                if args.png_dir and res.png:
                    Path(args.png_dir).mkdir(parents=True, exist_ok=True)
                    (Path(args.png_dir) / f"{name}.{i}.png").write_bytes(res.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
