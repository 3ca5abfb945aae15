"""Training curves as PNG plots: a run's metrics.jsonl (one JSON object per TRL logging event,
written by `brushwork train`) or a film's per-step summaries; one figure per metric family,
one panel per metric, one line per run. matplotlib (Agg, no pyplot state) is imported here
only.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from pathlib import Path

from brushwork.errors import ConfigError, DependencyNotInstalled

Series = dict[str, list[tuple[int, float]]]   # metric -> (step, value) points

FAMILIES = (
    ("reward", ("reward", "rewards/brushwork/mean", "reward_std", "rewards/brushwork/std")),
    ("terms", ("brushwork/gate", "brushwork/length", "brushwork/judge", "brushwork/aesthetic",
               "brushwork/diversity", "brushwork/adherence")),
    ("rates", ("brushwork/gate_pass_rate", "brushwork/cheat_rate", "brushwork/none_rate")),
    ("paint", ("brushwork/paint_fraction",)),
    ("loss", ("loss", "grad_norm", "kl", "entropy")),
    ("schedule", ("learning_rate",)),
    ("per-step", ("gate pass rate", "mean total", "win rate vs eval")),   # a film's own summaries
    ("diversity", ("diversity within prompt", "distinct compositions")),    # and its groups' spread
)
SKIP = {"step", "epoch", "total_flos", "train_runtime", "train_samples_per_second", "train_steps_per_second"}
MAX_OTHER = 12


def read_metrics(path: Path) -> list[dict]:
    """The events of a metrics.jsonl (or of RUN_DIR/metrics.jsonl); a torn last line is skipped."""
    path = Path(path)
    if path.is_dir():
        path = path / "metrics.jsonl"
    if not path.is_file():
        raise ConfigError(f"{path} not found: --run takes a training output folder (brushwork train writes "
                          f"OUTPUT_DIR/metrics.jsonl) or the metrics.jsonl itself")
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def series(events: list[dict]) -> Series:
    """Every numeric metric of the events as (step, value) points, in step order."""
    out: Series = {}
    for n, event in enumerate(events):
        step = event.get("step", n)
        for key, value in event.items():
            if key in SKIP or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if math.isfinite(value) and isinstance(step, int | float):
                out.setdefault(key, []).append((int(step), float(value)))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in out.items()}


def families(runs: dict[str, Series]) -> list[tuple[str, list[str]]]:
    """(family, metrics present in some run), the known families first, the rest as "other"."""
    present = {m for s in runs.values() for m in s}
    out, used = [], set()
    for name, metrics in FAMILIES:
        found = [m for m in metrics if m in present]
        used.update(found)
        if found:
            out.append((name, found))
    other = sorted(present - used)[:MAX_OTHER]
    if other:
        out.append(("other", other))
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "curves"


def plot(title: str, metrics: list[str], runs: dict[str, Series], path: Path) -> Path:
    """One figure: a panel per metric, a line per run; with several runs one legend below the panels
    (run names are folder names, often longer than a panel is wide: a legend in each panel squeezed
    the panels to a sliver)."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as e:
        raise DependencyNotInstalled("matplotlib", "train") from e
    cols = min(3, len(metrics))
    rows = -(-len(metrics) // cols)
    fig = Figure(figsize=(4.2 * cols, 3.0 * rows), dpi=100, layout="constrained")
    fig.suptitle(title)
    for n, metric in enumerate(metrics):
        ax = fig.add_subplot(rows, cols, n + 1)
        for k, (label, data) in enumerate(runs.items()):
            points = data.get(metric, [])
            if points:     # a run keeps its colour in every panel, whichever runs a panel lacks: one legend
                steps, values = zip(*points)
                ax.plot(steps, values, marker="o" if len(points) < 20 else None, markersize=3, label=label,
                        color=f"C{k % 10}")
        ax.set_title(metric, fontsize=10)
        ax.set_xlabel("step", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    shown: dict[str, object] = {}      # each run once, in the order the panels drew them
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            shown.setdefault(label, handle)
    if len(runs) > 1 and shown:
        fig.legend(list(shown.values()), [textwrap.fill(label, 80 * cols) for label in shown],
                   loc="outside lower center", fontsize=7, frameon=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def training_curves(runs: dict[str, Series], out_dir: Path, prefix: str = "training") -> list[Path]:
    """One PNG per metric family under `out_dir` (nothing when no run has a point)."""
    return [plot(f"{prefix} · {family}", metrics, runs, Path(out_dir) / f"{_slug(prefix)}-{family}.png")
            for family, metrics in families(runs)]
