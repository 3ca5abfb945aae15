"""Revision trajectories for the multi-turn warm-up: the tool-call format, a first sketch with
a real defect, the environment's own critique of it, and the corrected sketch.

A policy learns to revise only if it has seen revising. `revision_rows` builds TRL
conversational prompt-completion rows (with a `tools` column) of four kinds, every sketch a
procedural one of the row's subject and every critique what `BrushworkToolEnv` returns:

- ``first``  task -> ``submit_sketch(good)``: the tool-call format itself;
- ``fix``    task, ``submit_sketch(defective)``, its critique -> ``submit_sketch(good)``;
- ``keep``   task, ``submit_sketch(good)``, its critique -> a short text answer (keep it);
- ``last``   task, defective, critique, good, "This was your last painting." -> text answer.

Defects (`DEFECTS`, each a small edit of a procedural sketch that a small model really makes):
``syntax`` (the last brace dropped: syntax_error), ``method`` (a brush method outside the
allow-list: disallowed_brush_method), ``runtime`` (iterating a function: a JavaScript error at
run time), ``blank`` (the layout emptied: a blank canvas), ``faint`` (opacities cut to a tenth:
a washed-out painting that passes the gate with little coverage). Only ``keep``/``last`` rows
and run-time defects render; static defects are critiqued by the static gate alone.
"""

from __future__ import annotations

import asyncio
import json
import random
from concurrent.futures import ThreadPoolExecutor

from brushwork.env.tasks import sample_rows

DONE = "The painting is finished; I keep it."


def _syntax(code: str) -> str:
    return code[:code.rstrip().rfind("}")].rstrip() + "\n"


def _method(code: str) -> str:
    return code.replace("brush.noStroke();", "brush.noHatch();", 1)


def _runtime(code: str) -> str:
    return code.replace("of flowers) flower(", "of flower) flower(", 1)


def _blank(code: str) -> str:
    lines = [("  const flowers = [];" if line.lstrip().startswith("const flowers = ") else
              "  const leaves = [];" if line.lstrip().startswith("const leaves = ") else line)
             for line in code.split("\n")]
    return "\n".join(lines)


def _faint(code: str) -> str:
    lines = []
    for line in code.split("\n"):
        if line.startswith("const OPACITY = ["):
            values = [int(v) // 10 for v in line[line.index("[") + 1:line.index("]")].split(",")]
            line = f"const OPACITY = [{', '.join(map(str, values))}];"
        lines.append(line.replace(", 185, 0.3, TEXTURE", ", 18, 0.3, TEXTURE"))
    return "\n".join(lines)


DEFECTS = {"syntax": _syntax, "method": _method, "runtime": _runtime, "blank": _blank, "faint": _faint}


def defective(code: str, kind: str) -> str | None:
    """`code` with the defect `kind`, or None when this sketch has no place for it."""
    broken = DEFECTS[kind](code)
    return broken if broken != code else None


def sample_critiques() -> list[str]:
    """Critiques of each kind of defect and of a passed painting, from the static gate (no
    render), for the tiny tokenizer's corpus."""
    from brushwork.env.critique import critique
    from brushwork.gate import Gate
    from brushwork.painter import paint

    async def static(replies):
        return [await Gate().run(reply) for reply in replies]   # no renderer: the static verdict

    broken = []
    for i, kind in enumerate((*DEFECTS, "good", "good")):
        code = paint(i, jitter=0.0).code
        broken.append(code if kind == "good" else defective(code, kind) or code)
    return [critique(gated, i % 2, 1 - i % 2) + f"\nCoverage: {4.5 + 7.3 * i:.1f}% of the canvas differs from the "
            "paper colour." for i, gated in enumerate(asyncio.run(static(broken)))]


def revision_rows(count: int, pipeline, revisions: int, seed: int = 0, domains: list[str] | None = None,
                  parallel: int = 8) -> list[dict]:
    """`count` warm-up rows: half ``first``, 30 % ``fix``, 10 % each ``keep`` and ``last``
    (``last`` needs revisions >= 1). Critiques come from real episodes on `pipeline`."""
    from brushwork.painter import paint, subject_for
    from brushwork.train.tool_env import instructions, tool_call, tool_result, tool_schema

    rng = random.Random(f"brushwork-revisions:{seed}")
    kinds = ["first"] * (count // 2) + ["fix"] * (3 * count // 10) + ["keep"] * (count // 10)
    kinds += ["last" if revisions else "keep"] * (count - len(kinds))
    rng.shuffle(kinds)
    tools = json.dumps([tool_schema()])

    def one(job) -> dict:
        kind, row = job
        good = paint(row["seed"], subject_for(row["subject"]), jitter=0.0).code
        user = {"role": "user", "content": row["prompt"][-1]["content"] + instructions(revisions)}
        prompt = [*row["prompt"][:-1], user]
        if kind == "first":
            return _row(prompt, [tool_call(good)], tools, kind, row)
        defect = next(d for d in (defective(good, k) for k in _order(rng, row["seed"])) if d is not None)
        episode = _episode(pipeline, row, revisions)
        if kind == "keep":
            shown = episode.submit(good).critique
            return _row(prompt + [tool_call(good), tool_result(shown)], [_text(DONE)], tools, kind, row)
        critique = episode.submit(defect).critique
        prompt += [tool_call(defect), tool_result(critique)]
        if kind == "fix":
            return _row(prompt, [tool_call(good)], tools, kind, row)
        from brushwork.env.critique import critique as critique_of

        gated = pipeline.gate(good, seed=row["seed"]).gated
        prompt += [tool_call(good), tool_result(critique_of(gated, 1, 0))]
        return _row(prompt, [_text(DONE)], tools, kind, row)

    rows = sample_rows(count, domains, seed)
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        return list(pool.map(one, zip(kinds, rows)))


def _order(rng: random.Random, salt: int) -> list[str]:
    kinds = list(DEFECTS)
    random.Random(f"{rng.random()}:{salt}").shuffle(kinds)
    return kinds


def _episode(pipeline, row: dict, revisions: int):
    from brushwork.env.episode import EpisodeRunner

    return EpisodeRunner(pipeline).start(seed=int(row["seed"]), subject=row["subject"], domain=row.get("domain"),
                                         revisions=max(1, revisions))


def _text(content: str) -> dict:
    return {"role": "assistant", "content": content}


def _row(prompt: list[dict], completion: list[dict], tools: str, kind: str, row: dict) -> dict:
    return {"prompt": prompt, "completion": completion, "tools": tools, "kind": kind,
            "subject": row["subject"], "seed": row["seed"]}
