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
leaves a readable film; `read_film` skips a torn last line. Several training processes share
one film: each numbers its rollouts from its own offset (its rank x its rollouts), and each
index line is appended under an exclusive lock on the file (`flock`), so lines from different
processes never interleave.
"""

from __future__ import annotations

import fcntl
import json
from dataclasses import dataclass
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.gate.verdict import Violation
from brushwork.score.card import ScoreCard


def first_index(count: int) -> int:
    """The film index of this process's first rollout in a step where every process films
    `count`: its rank x `count` (0 in a run accelerate did not launch)."""
    from accelerate import PartialState

    return PartialState().process_index * count


@dataclass(frozen=True)
class Frame:
    """One rollout on film: its ScoreCard plus where its files are (relative to the film
    folder). `reward` is what the trainer was paid (the card's total, or a multi-turn
    episode's reward on its final frame)."""

    step: int
    index: int
    prompt: str
    subject: str | None
    seed: int | None
    group: int
    card: ScoreCard
    reward: float | None
    reply_file: str = ""
    png_file: str | None = None
    card_file: str | None = None
    turn: int = 0
    final: bool = True

    @property
    def passed(self) -> bool:
        return self.card.passed

    @property
    def cheated(self) -> bool:
        return self.card.cheated

    @property
    def infra(self) -> str | None:
        return self.card.infra

    @property
    def terms(self) -> dict:
        return self.card.terms

    @property
    def paint_fraction(self) -> float | None:
        return self.card.paint_fraction

    @property
    def violations(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.card.violations)

    def index_line(self) -> dict:
        """The line of index.jsonl: the paths and a summary of the card (readable without it)."""
        return {"step": self.step, "index": self.index, "prompt": self.prompt, "subject": self.subject,
                "seed": self.seed, "group": self.group, "reward": self.reward, "passed": self.passed,
                "cheated": self.cheated, "infra": self.infra, "terms": dict(self.terms),
                "paint_fraction": self.paint_fraction, "violations": list(self.violations),
                "reply_file": self.reply_file, "png_file": self.png_file, "card_file": self.card_file,
                "turn": self.turn, "final": self.final}

    @classmethod
    def from_line(cls, data: dict, folder: Path) -> Frame:
        """A frame read back: its card from its card file, or (a film written without card
        files) rebuilt from the index line, whose violations carry no severity, so a cheating
        frame marks them all `cheat`."""
        card_file = data.get("card_file")
        path = Path(folder) / card_file if card_file else None
        if path is not None and path.is_file():
            card = ScoreCard.from_dict(json.loads(path.read_text(encoding="utf-8")))
        else:
            severity = "cheat" if data.get("cheated") else "broken"
            card = ScoreCard(passed=bool(data["passed"]), total=data.get("reward"), terms=dict(data.get("terms") or {}),
                             weights={}, preset=None, infra=data.get("infra"),
                             violations=tuple(Violation(v, severity, "") for v in data.get("violations") or ()),
                             paint_fraction=data.get("paint_fraction"), seed=data.get("seed") or 0,
                             group_seed=data.get("group"))
        return cls(data["step"], data["index"], data["prompt"], data.get("subject"), data.get("seed"),
                   data["group"], card, data.get("reward"), data.get("reply_file", ""), data.get("png_file"),
                   card_file, data.get("turn", 0), data.get("final", True))


class Film:
    """Writes frames under `folder`; safe to call from the reward function's threads and from
    several processes at once."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def record(self, step: int, index: int, card: ScoreCard, png: bytes | None, *, prompt: str, reply: str,
               subject: str | None = None, seed: int | None = None, group: int | None = None,
               reward: float | None = ..., turn: int = 0, final: bool = True) -> Frame:
        """One painting: its reply, PNG and card files, then its index line. `group` defaults
        to the card's group seed, `reward` to its total."""
        shot = self.folder / f"step-{step:06d}"
        shot.mkdir(parents=True, exist_ok=True)
        stem = f"{index:02d}" + (f"-t{turn}" if turn else "")
        (shot / f"{stem}.md").write_text(reply, encoding="utf-8")
        png_rel = None
        if png is not None:
            (shot / f"{stem}.png").write_bytes(png)
            png_rel = f"{shot.name}/{stem}.png"
        (shot / f"{stem}.json").write_text(json.dumps(card.to_dict(), indent=1, default=str), encoding="utf-8")
        group = group if group is not None else card.group_seed if card.group_seed is not None else 0
        frame = Frame(step, index, prompt, subject, seed, group, card, card.total if reward is ... else reward,
                      f"{shot.name}/{stem}.md", png_rel, f"{shot.name}/{stem}.json", turn, final)
        line = json.dumps(frame.index_line(), default=str) + "\n"
        with (self.folder / "index.jsonl").open("a", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)     # across processes (and threads: each opens its own handle)
            try:
                f.write(line)
                f.flush()
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
        return frame


def read_film(folder: Path) -> list[Frame]:
    """Every frame of a film, in the order recorded."""
    index = Path(folder) / "index.jsonl"
    if not index.exists():
        raise ConfigError(f"{folder} is not a film: it has no index.jsonl (train writes one under "
                                f"OUTPUT_DIR/film)")
    frames = []
    for line in index.read_text(encoding="utf-8").splitlines():
        try:
            frames.append(Frame.from_line(json.loads(line), folder))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # a torn last line from a killed run
    return frames
