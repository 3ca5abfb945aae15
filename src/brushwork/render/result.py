"""`RenderResult`: what one render of one sketch produced, as a typed, frozen value."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Literal

RenderStatus = Literal["ok", "timeout", "crashed", "too_slow", "untrusted"]


@dataclass(frozen=True)
class JsError:
    message: str
    line: int | None = None


@dataclass(frozen=True)
class BlockedRequest:
    url: str
    reason: str


@dataclass(frozen=True)
class RuntimeFlag:
    """Something the page did that the gate judges: canvas_size, navigation, dom_tampering…"""

    id: str
    detail: str


@dataclass(frozen=True)
class Timings:
    """Seconds. `in_page_s` runs from navigation start to the encoded capture; `cpu_s` is the
    CPU time of the page's renderer process(es) during the render (the CPU budget's measure)."""

    wall_s: float
    in_page_s: float | None = None
    load_s: float | None = None
    paint_s: float | None = None
    encode_s: float | None = None
    queue_s: float = 0.0
    cpu_s: float | None = None

    @property
    def overhead(self) -> float | None:
        if not self.in_page_s:
            return None
        return self.wall_s / self.in_page_s


@dataclass(frozen=True)
class RenderResult:
    """A render's outcome. `status` says how the page ended:

    - ``ok``: the page ran to a capture (the sketch may still have thrown, been blank…);
    - ``too_slow``: the sketch spent more than the CPU budget and was stopped (its fault);
    - ``timeout`` / ``crashed``: no capture by the deadline, or the page's renderer died. The
      renderer then renders once more on a fresh browser (`attempts` = 2): a success replaces
      the failure, and a failure that repeats (`repeated`) is the sketch's. A failure that did
      not repeat is an infrastructure failure, which the reward turns into None;
    - ``untrusted``: no capture to trust after that second render: a process of the browser
      other than the page's renderer (the GPU process, the browser itself) died during it, or
      its capture `disagrees` with its replay and the first attempt cannot confirm that. No
      sketch code runs in those processes, so this is always ours (None), never the sketch's.

    A capture that `disagrees` on both attempts is a replay that repeats: ``ok`` with
    `repeated`, and the gate reads the blank canvas as the sketch's (paint white
    on white, off the canvas). Only a `trusted` result is cached.
    """

    status: RenderStatus
    seed: int
    size: int
    png: bytes | None = field(default=None, repr=False)
    width: int = 0
    height: int = 0
    paint_fraction: float | None = None
    js_errors: tuple[JsError, ...] = ()
    blocked_requests: tuple[BlockedRequest, ...] = ()
    flags: tuple[RuntimeFlag, ...] = ()
    brush_calls: dict[str, int] = field(default_factory=dict)
    paint_calls: int = 0
    cleared_after_paint: int = 0
    frame_count: int = 0
    timings: Timings = field(default_factory=lambda: Timings(wall_s=0.0))
    cache_hit: bool = False
    detail: str = ""
    attempts: int = 1
    repeated: bool = False
    # The calls the painting replayed, as JSON: {"setup": [[op, *args], ...], "draw": [...] | null},
    # ops "brush.<method>" or a p5 statement; "" when nothing was replayed.
    display_list: str = field(default="", repr=False)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def disagrees(self) -> bool:
        """The capture contradicts the replay: calls that paint were replayed (and no
        background() or clear() after them), yet no pixel differs from the background, or
        nothing was captured. What a canvas shows after its WebGL context was lost."""
        return self.ok and self.paint_calls > 0 and self.cleared_after_paint == 0 \
            and (self.png is None or self.paint_fraction == 0.0)

    @property
    def trusted(self) -> bool:
        """A capture that agrees with its replay, from a job during which no browser process
        died: the only kind of result that is cached."""
        return self.ok and not self.disagrees

    @property
    def infra_failure(self) -> bool:
        """Ours, not the sketch's: a timeout or crash that a fresh browser did not repeat, or no
        capture to trust (`untrusted`)."""
        return self.status == "untrusted" or (self.status in ("timeout", "crashed") and not self.repeated)

    def to_dict(self) -> dict:
        """JSON-ready metadata (without the PNG bytes)."""
        d = asdict(self)
        d.pop("png")
        d["timings"]["overhead"] = self.timings.overhead
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict, png: bytes | None) -> RenderResult:
        timings = {k: v for k, v in d["timings"].items() if k != "overhead"}
        return cls(
            status=d["status"],
            seed=d["seed"],
            size=d["size"],
            png=png,
            width=d["width"],
            height=d["height"],
            paint_fraction=d["paint_fraction"],
            js_errors=tuple(JsError(**e) for e in d["js_errors"]),
            blocked_requests=tuple(BlockedRequest(**b) for b in d["blocked_requests"]),
            flags=tuple(RuntimeFlag(**f) for f in d["flags"]),
            brush_calls=dict(d["brush_calls"]),
            paint_calls=d["paint_calls"],
            cleared_after_paint=d["cleared_after_paint"],
            frame_count=d["frame_count"],
            timings=Timings(**timings),
            cache_hit=d["cache_hit"],
            detail=d["detail"],
            attempts=d.get("attempts", 1),
            repeated=d.get("repeated", False),
            display_list=d.get("display_list", ""),
        )
