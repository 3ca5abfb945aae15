"""The film of a run: every painting a policy made, with its code and ScoreCard, per step.

Layout (read back by `brushwork eval --film DIR` and the report)::

    film/
      index.jsonl                one line per rollout (see `Frame`)
      step-000001/
        00.md                    the model's whole reply
        00.png                   the painting (absent when nothing rendered)
        00.json                  its ScoreCard (`ScoreCard.to_dict()`)
        03-t1.md, 03-t1.png, ...  multi-turn: rollout 3's painting after its first revision

A multi-turn rollout is one frame per painting (`turn` 0, 1, ...; `final` marks the one
its reward came from).

`index.jsonl` is appended after each step's files are written, so a run killed mid-step
leaves a readable film; `read_film` skips a torn last line.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Frame:
    """One rollout on film (paths are relative to the film folder)."""

    step: int
    index: int
    prompt: str
    subject: str | None
    seed: int | None
    group: int
    reward: float | None
    passed: bool
    cheated: bool
    infra: str | None
    terms: dict = field(default_factory=dict)
    paint_fraction: float | None = None
    violations: tuple[str, ...] = ()
    reply_file: str = ""
    png_file: str | None = None
    card_file: str | None = None
    turn: int = 0
    final: bool = True

    @classmethod
    def from_dict(cls, data: dict) -> Frame:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["violations"] = tuple(known.get("violations", ()))
        return cls(**known)


class Film:
    """Writes frames under `folder`; safe to call from the reward function's threads."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def record(self, step: int, index: int, *, prompt: str, reply: str, card: dict | None, png: bytes | None,
               subject: str | None, seed: int | None, group: int, reward: float | None, passed: bool,
               cheated: bool, infra: str | None, terms: dict, paint_fraction: float | None,
               violations: tuple[str, ...], turn: int = 0, final: bool = True) -> Frame:
        shot = self.folder / f"step-{step:06d}"
        shot.mkdir(parents=True, exist_ok=True)
        stem = f"{index:02d}" + (f"-t{turn}" if turn else "")
        (shot / f"{stem}.md").write_text(reply, encoding="utf-8")
        png_rel = card_rel = None
        if png is not None:
            (shot / f"{stem}.png").write_bytes(png)
            png_rel = f"{shot.name}/{stem}.png"
        if card is not None:
            (shot / f"{stem}.json").write_text(json.dumps(card, indent=1, default=str), encoding="utf-8")
            card_rel = f"{shot.name}/{stem}.json"
        frame = Frame(step, index, prompt, subject, seed, group, reward, passed, cheated, infra, dict(terms),
                      paint_fraction, tuple(violations), f"{shot.name}/{stem}.md", png_rel, card_rel, turn, final)
        with self._lock, (self.folder / "index.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(asdict(frame)) + "\n")
        return frame


def read_film(folder: Path) -> list[Frame]:
    """Every frame of a film, in the order recorded."""
    index = Path(folder) / "index.jsonl"
    if not index.exists():
        raise FileNotFoundError(f"{folder} is not a film: it has no index.jsonl (train writes one under "
                                f"OUTPUT_DIR/film)")
    frames = []
    for line in index.read_text(encoding="utf-8").splitlines():
        try:
            frames.append(Frame.from_dict(json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            continue  # a torn last line from a killed run
    return frames
