"""The best painting of each logging step, as an image, in the experiment tracker.

The scalars (every reward term's mean / std / min / max, the gate pass, cheat and None rates)
reach every `report_to` backend through TRL's `log_metric` (`brushwork.train.rewards`). An
image does not fit that path, so `BestPaintingLog` — a `TrainerCallback` that runs after the
reporting callbacks — takes the reward functions' best painting that passed the gate since
the last logging event (`take_best()`), the best across every training process (each
process scores its own share of the rollouts; on_log runs on each, and they gather), and
logs it as `brushwork/best_painting`:

- **trackio** (local-first: SQLite and media files under `TRACKIO_DIR`, by default
  `~/.cache/huggingface/trackio`; nothing leaves the machine unless `trackio_space_id` is
  set): a `trackio.Image` on the step of the metrics row TRL just wrote;
- **tensorboard**: `add_image` on the `TensorBoardCallback`'s writer at the global step.

Logging never stops training: a failure is warned about once per backend, then ignored.
"""

from __future__ import annotations

import io
import warnings

from transformers import TrainerCallback

from brushwork.errors import SetupError

IMAGE_KEY = "brushwork/best_painting"


def caption(best, step: int) -> str:
    subject = f" · {best.subject}" if best.subject else ""
    return f"step {step} · reward {best.reward:.3f}{subject}"


def best_across_processes(best):
    """The best of every process's best painting (None where none passed), on every process."""
    from accelerate.utils import gather_object

    found = [b for b in gather_object([best]) if b is not None]
    return max(found, key=lambda b: b.reward) if found else None


class BestPaintingLog(TrainerCallback):
    """Logs the best passed painting of each logging step to trackio and tensorboard."""

    def __init__(self, sources, callbacks=None):
        self.sources = [s for s in sources if callable(getattr(s, "take_best", None))]
        self.callbacks = callbacks      # the trainer's callback handler (to find the tensorboard writer)
        self._warned: set[str] = set()

    def _take(self):
        found = [b for b in (s.take_best() for s in self.sources) if b is not None]
        return max(found, key=lambda b: b.reward) if found else None

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not self.sources:
            return
        best = self._take()
        if getattr(args, "world_size", 1) > 1:
            best = best_across_processes(best)     # a collective: every process reaches it
        if not state.is_world_process_zero or best is None:
            return
        report_to = set(args.report_to or ())
        for backend, log in (("trackio", self._trackio), ("tensorboard", self._tensorboard)):
            if backend in report_to:
                try:
                    log(best, state.global_step)
                except Exception as e:   # a tracker's failure must not stop training
                    if backend not in self._warned:
                        self._warned.add(backend)
                        warnings.warn(f"brushwork: could not log the best painting to {backend} "
                                      f"({type(e).__name__}: {e}); training goes on without it", stacklevel=2)

    @staticmethod
    def _image(best):
        from PIL import Image

        return Image.open(io.BytesIO(best.png)).convert("RGB")

    def _trackio(self, best, step: int) -> None:
        import trackio

        run = trackio.context_vars.current_run.get()
        if run is None:
            raise SetupError("no trackio run (transformers' TrackioCallback starts it)")
        # TrackioCallback logs each event without a step (trackio counts them): put the image
        # on the row it has just written, so a step's image sits beside its metrics.
        row = max(int(getattr(run, "_next_step", 1)) - 1, 0)
        trackio.log({IMAGE_KEY: trackio.Image(self._image(best), caption=caption(best, step))}, step=row)

    def _tensorboard(self, best, step: int) -> None:
        import numpy as np
        from transformers.integrations import TensorBoardCallback

        writers = [c.tb_writer for c in getattr(self.callbacks, "callbacks", ())
                   if isinstance(c, TensorBoardCallback) and c.tb_writer is not None]
        if not writers:
            raise SetupError("no tensorboard writer (transformers' TensorBoardCallback makes it)")
        writers[0].add_image(IMAGE_KEY, np.asarray(self._image(best)), step, dataformats="HWC")
        writers[0].flush()
