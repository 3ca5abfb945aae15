"""The film of a run: every painting a policy made, with its code and ScoreCard, per step.

Layout (read back by `brushwork eval --film DIR` and the report)::

    film/
      index.jsonl                one line per painting (see `Frame`)
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
from brushwork.score.rollout import Rollout, Wraps


def first_index(count: int) -> int:
    """The film index of this process's first rollout in a step where every process films
    `count`: its rank x `count` (0 in a run accelerate did not launch)."""
    from accelerate import PartialState

    return PartialState().process_index * count


@dataclass(frozen=True)
class Frame(Wraps):
    """One painting on film: its `Rollout` (read back with its reply and PNG) and its place in the
    film: the rollout's index within its step and its files, relative to the film folder. The
    rollout's fields read through (`frame.step`, `frame.card`)."""

    rollout: Rollout
    index: int
    reply_file: str = ""
    png_file: str | None = None
    card_file: str | None = None

    @property
    def passed(self) -> bool:
        return self.rollout.card.passed

    @property
    def cheated(self) -> bool:
        return self.rollout.card.cheated

    @property
    def infra(self) -> str | None:
        return self.rollout.card.infra

    @property
    def terms(self) -> dict:
        return self.rollout.card.terms

    @property
    def paint_fraction(self) -> float | None:
        return self.rollout.card.paint_fraction

    @property
    def violations(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.rollout.card.violations)

    def index_line(self) -> dict:
        """The line of index.jsonl: the paths and a summary of the card (readable without it)."""
        r = self.rollout
        return {"step": r.step, "index": self.index, "prompt": r.prompt, "subject": r.subject,
                "seed": r.seed, "group": r.group, "reward": r.reward, "passed": self.passed,
                "cheated": self.cheated, "infra": self.infra, "terms": dict(self.terms),
                "paint_fraction": self.paint_fraction, "violations": list(self.violations),
                "reply_file": self.reply_file, "png_file": self.png_file, "card_file": self.card_file,
                "turn": r.turn, "final": r.final}

    @classmethod
    def from_line(cls, data: dict, folder: Path) -> Frame:
        """A frame read back, its reply and PNG from their files: its card from its card file,
        or (a film written without card files) rebuilt from the index line, whose violations
        carry no severity, so a cheating frame marks them all `cheat`."""
        folder = Path(folder)
        card_file, reply_file, png_file = data.get("card_file"), data.get("reply_file", ""), data.get("png_file")
        path = _file(folder, card_file)
        if path is not None:
            card = ScoreCard.from_dict(json.loads(path.read_text(encoding="utf-8")))
        else:
            severity = "cheat" if data.get("cheated") else "broken"
            card = ScoreCard(passed=bool(data["passed"]), total=data.get("reward"), terms=dict(data.get("terms") or {}),
                             weights={}, preset=None, infra=data.get("infra"),
                             violations=tuple(Violation(v, severity, "") for v in data.get("violations") or ()),
                             paint_fraction=data.get("paint_fraction"), seed=data.get("seed") or 0,
                             group_seed=data.get("group"))
        reply, png = _file(folder, reply_file), _file(folder, png_file)
        rollout = Rollout(data["prompt"], card, reply=reply.read_text(encoding="utf-8") if reply else "",
                          png=png.read_bytes() if png else None, subject=data.get("subject"), seed=data.get("seed"),
                          group=data["group"], step=data["step"], turn=data.get("turn", 0),
                          final=data.get("final", True), reward=data.get("reward"))
        return cls(rollout, data["index"], reply_file, png_file, card_file)


class Film:
    """Writes frames under `folder`; safe to call from the reward function's threads and from
    several processes at once."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def record(self, rollout: Rollout, index: int) -> Frame:
        """One painting: its reply, PNG and card files, then its index line."""
        shot = self.folder / f"step-{rollout.step:06d}"
        shot.mkdir(parents=True, exist_ok=True)
        stem = f"{index:02d}" + (f"-t{rollout.turn}" if rollout.turn else "")
        (shot / f"{stem}.md").write_text(rollout.reply, encoding="utf-8")
        png_rel = None
        if rollout.png is not None:
            (shot / f"{stem}.png").write_bytes(rollout.png)
            png_rel = f"{shot.name}/{stem}.png"
        (shot / f"{stem}.json").write_text(json.dumps(rollout.card.to_dict(), indent=1, default=str),
                                           encoding="utf-8")
        frame = Frame(rollout, index, f"{shot.name}/{stem}.md", png_rel, f"{shot.name}/{stem}.json")
        line = json.dumps(frame.index_line(), default=str) + "\n"
        with (self.folder / "index.jsonl").open("a", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)     # across processes (and threads: each opens its own handle)
            try:
                f.write(line)
                f.flush()
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
        return frame


def _file(folder: Path, name: str | None) -> Path | None:
    """A frame's file, None where the line names none or it is gone."""
    path = folder / name if name else None
    return path if path is not None and path.is_file() else None


def read_film(folder: Path) -> list[Frame]:
    """Every frame of a film, in the order recorded, each with its reply and PNG."""
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
