"""Scoring that overlaps generation: each completion is rendered and scored as soon as it ends,
while the longer ones of its batch are still being generated.

TRL 1.16's `GRPOTrainer` awaits an async reward function only after the whole batch has
generated (`_calculate_rewards` blocks on its loop), so the reward alone cannot overlap
generation. `overlapping(GRPOTrainer)` adds the one thing it lacks: a streamer on the
transformers `generate` call that sees each row's end-of-sequence token and hands that row's
text to `BrushworkReward.start_early`. The reward call that follows awaits those scores and
scores afresh any completion whose text or draw differs from what was started (a chat template
that parses its replies, a row cut at the length limit), so the overlap never changes a reward.
It applies to single-turn, non-vLLM generation; with vLLM (which returns whole batches) or
`environment_factory` the trainer is TRL's own.
"""

from __future__ import annotations

import functools

from brushwork.train.rewards import BrushworkReward


class EndWatch:
    """A transformers streamer (`put`, `end`) over a batch: calls `on_end(row, token_ids)` once per
    row, when the row emits one of `eos_ids` (the ids before it)."""

    def __init__(self, eos_ids, on_end):
        self.eos = set(int(t) for t in eos_ids)
        self.on_end = on_end
        self.rows: list[list[int]] | None = None
        self.done: set[int] = set()

    def put(self, value) -> None:
        if self.rows is None:                 # generate's first put is the prompt
            self.rows = [[] for _ in range(value.shape[0])]
            return
        for row, token in enumerate(value.reshape(-1).tolist()):
            if row in self.done:
                continue
            if token in self.eos:
                self.done.add(row)
                self.on_end(row, self.rows[row])
            else:
                self.rows[row].append(token)

    def end(self) -> None:
        pass


def early_reward(reward_funcs) -> BrushworkReward | None:
    """The reward that takes early starts, if the trainer has one."""
    return next((f for f in reward_funcs if isinstance(f, BrushworkReward)), None)


def overlapping(base):
    """`base` (TRL's GRPOTrainer or a subclass) with each completion scored as soon as it ends."""

    class OverlappingTrainer(base):
        _rows = None

        def _generate_and_score_completions(self, inputs):
            self._rows = inputs
            try:
                return super()._generate_and_score_completions(inputs)
            finally:
                self._rows = None

        def _generate_single_turn(self, prompt_ids, *args, **kwargs):
            reward, rows = early_reward(self.reward_funcs), self._rows
            if reward is None or rows is None or self.use_vllm or len(rows) != len(prompt_ids):
                return super()._generate_single_turn(prompt_ids, *args, **kwargs)
            step, decode = self.state.global_step, self._tokenizer.decode
            reward.forget_early()

            def on_end(row: int, ids: list[int]) -> None:
                reward.start_early(row, rows[row]["prompt"], decode(ids, skip_special_tokens=True), rows[row], step)

            model = self.accelerator.unwrap_model(self.model_wrapped)
            # TRL's generate call takes no streamer: this instance's generate passes one
            model.generate = functools.partial(type(model).generate, model, streamer=EndWatch(self.eos_token_ids,
                                                                                                  on_end))
            try:
                return super()._generate_single_turn(prompt_ids, *args, **kwargs)
            finally:
                del model.generate

    OverlappingTrainer.__name__ = OverlappingTrainer.__qualname__ = f"Overlapping{base.__name__}"
    return OverlappingTrainer
