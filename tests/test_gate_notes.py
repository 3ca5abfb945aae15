"""The gate's notes (code that would break a rule but never runs: an event handler's body) reach
whoever reads the verdict: the `ScoreCard` (and its JSON, read back), `brushwork score`'s table,
the critique a model revises against. Each noted reply sits next to its twin without the handler,
which carries no note. Real parts: the real gate, real Chromium renders, a real `Scorer` (its
reward weighs the gate and the length only, so no judge or taste model is needed)."""

from __future__ import annotations

import asyncio
import json

import pytest
from gate_cases import reply, sketch
from rich.console import Console

from brushwork.env.critique import critique
from brushwork.gate import Gate
from brushwork.render import RenderConfig, Renderer
from brushwork.score import RewardConfig, Scorer
from brushwork.score.card import ScoreCard
from brushwork.score.reward import Weights

GATE = Gate()   # the recipe's configuration
HANDLER = 'function keyPressed() { if (key === "s") saveCanvas("painting", "png"); }'
NOTED, TWIN = reply(sketch(top=HANDLER)), reply(sketch())
REFUSED_NOTED = reply(sketch("rect(10, 10, 50, 50);", top=HANDLER))   # a violation and a note


def test_the_noted_reply_passes_with_one_note_and_its_twin_has_none():
    noted, twin = GATE.check(NOTED), GATE.check(TWIN)
    assert noted.passed and twin.passed and twin.notes == ()
    [note] = noted.notes
    assert note.severity == "warning" and note.line == 4 and note.message.startswith("`saveCanvas()` saves a file")


async def test_the_critique_shows_the_note_and_says_it_costs_nothing():
    noted, twin, refused = await asyncio.gather(*(GATE.run(r) for r in (NOTED, TWIN, REFUSED_NOTED)))
    text = critique(noted, 0, 1)
    [note] = noted.report.notes
    assert "Notes (no penalty: this code never runs in a render):" in text
    assert f"- {note.id} (line 4): {note.message}" in text and "Problems:" not in text
    assert "Notes" not in critique(twin, 0, 1)
    both = critique(refused, 0, 1)   # a refused painting's critique lists its problems and its note
    assert "Problems:" in both and "bare_primitive" in both and "Notes (no penalty" in both


@pytest.mark.chromium
async def test_the_score_card_carries_the_notes_and_reads_them_back(tmp_path):
    from brushwork.cli.score import score_table

    reward = RewardConfig(Weights(gate=0.5, length=0.5, judge=0.0, aesthetic=0.0), preset=None)
    async with Renderer(RenderConfig(workers=1, cache_dir=tmp_path)) as r:
        scorer = Scorer(r, None, reward=reward)
        noted, twin, refused = [await scorer.score(x, seed=3) for x in (NOTED, TWIN, REFUSED_NOTED)]
    assert noted.passed and noted.total == twin.total and noted.total > 0   # a note costs nothing
    assert noted.notes == GATE.check(NOTED).notes and len(noted.notes) == 1 and twin.notes == ()
    assert not refused.passed and refused.total == 0.0 and refused.notes == noted.notes
    data = json.loads(json.dumps(noted.to_dict()))
    assert data["notes"] == [n.to_dict() for n in noted.notes] and not twin.to_dict()["notes"]
    assert ScoreCard.from_dict(data).notes == noted.notes and ScoreCard.from_dict(data).same_as(noted)
    console = Console(record=True, width=300)
    console.print(score_table(["noted.md", "twin.md", "refused.md"], [noted, twin, refused], "custom"))
    rows = {line.split("│")[1].strip(): line for line in console.export_text().splitlines() if "│" in line}
    note = noted.notes[0]
    assert f"warning: {note.id} (line {note.line})" in rows["noted.md"]
    assert "warning" not in rows["twin.md"]
    assert "bare_primitive" in rows["refused.md"] and f"warning: {note.id}" in rows["refused.md"]
