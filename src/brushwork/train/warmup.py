"""The supervised warm-up before GRPO: teach a policy the shape of a sketch that passes.

A model that never passes the gate earns 0 on every rollout, and GRPO learns nothing from a
group of zeros. The warm-up fine-tunes the whole model with TRL's `SFTTrainer` on pairs of
(task prompt, fenced procedural sketch of that subject), then samples replies to held-back
prompts and measures how many pass the gate: the figure that says whether GRPO can start.

For multi-turn training (`multi_turn: true`) the pairs are tool-call conversations instead
(`brushwork.train.revisions`): first sketches submitted with `submit_sketch`, defective
sketches followed by the environment's critique and the corrected sketch, and good
paintings kept. The check then also measures the tool-call rate: the share of first replies
that call `submit_sketch` with a sketch, parsed as GRPO parses them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from brushwork.train.config import BrushworkArguments
from brushwork.train.tiny import warmup_rows


@dataclass(frozen=True)
class WarmupResult:
    rows: int
    epochs: float
    loss: float | None
    seconds: float
    checked: int
    gate_pass_rate: float | None
    violations: dict
    tool_call_rate: float | None = None
    kinds: dict | None = None


def supervised_warmup(model, tokenizer, args: BrushworkArguments, out_dir: Path, *, cpu: bool,
                      passes: Callable[[str], tuple[bool, tuple[str, ...]]] | None = None,
                      sampling: dict | None = None, pipeline=None) -> WarmupResult:
    """Fine-tune `model` in place on `args.sft_samples` pairs; then gate `args.sft_check`
    sampled replies with `passes(reply) -> (passed, violation ids)`. Writes warmup.json.
    Multi-turn warm-ups build their critiques on `pipeline`."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    t0 = time.perf_counter()
    if args.multi_turn:
        from brushwork.train.revisions import revision_rows

        rows = revision_rows(args.sft_samples, pipeline, args.revisions, seed=args.task_seed + 1,
                             domains=args.domains)
        data = Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"], "tools": r["tools"]}
                                  for r in rows])
    else:
        rows = warmup_rows(args.sft_samples, seed=args.task_seed + 1, domains=args.domains)
        data = Dataset.from_list([{"prompt": r["prompt"], "completion": r["completion"]} for r in rows])
    config = SFTConfig(output_dir=str(Path(out_dir) / "warmup"), num_train_epochs=args.sft_epochs,
                       per_device_train_batch_size=args.sft_batch_size, learning_rate=args.sft_learning_rate,
                       lr_scheduler_type="cosine", warmup_steps=10, logging_steps=10, save_strategy="no",
                       report_to="none", max_length=tokenizer.model_max_length if cpu else None, use_cpu=cpu,
                       bf16=not cpu, activation_checkpointing=not cpu, disable_tqdm=False)
    trainer = SFTTrainer(model=model, args=config, train_dataset=data, processing_class=tokenizer)
    output = trainer.train()
    # GRPO's adapter sits on these weights, not on the initial ones: keep them as the base.
    base = Path(out_dir) / "base"
    trainer.save_model(str(base))
    tokenizer.save_pretrained(str(base))
    model.name_or_path = str(base)
    rate, histogram, calls = None, {}, None
    if args.sft_check and passes is not None:
        check = check_tool_calls if args.multi_turn else check_gate
        rate, histogram, calls = check(model, tokenizer, args, passes, sampling or {})
    kinds = None
    if args.multi_turn:
        kinds = {}
        for r in rows:
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    result = WarmupResult(len(rows), args.sft_epochs, float(output.training_loss), time.perf_counter() - t0,
                          args.sft_check if passes is not None else 0, rate, histogram, calls, kinds)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / "warmup.json").write_text(json.dumps(asdict(result), indent=2))
    return result


def check_gate(model, tokenizer, args: BrushworkArguments, passes, sampling: dict) -> tuple[float, dict, None]:
    """Share of sampled replies to unseen prompts that pass, and which rules the rest broke."""
    from brushwork.env.tasks import sample_rows
    from brushwork.train.policy import sample_replies

    rows = sample_rows(args.sft_check, args.domains, seed=args.task_seed + 2)
    replies = [r[0] for r in sample_replies(model, tokenizer, [row["prompt"] for row in rows], **sampling)]
    return (*_gate_histogram(replies, passes), None)


def check_tool_calls(model, tokenizer, args: BrushworkArguments, passes, sampling: dict) -> tuple[float, dict, float]:
    """The first replies to unseen prompts: gate pass rate of what they submitted (a reply
    without a tool call is gated as text), the rules broken, and the tool-call rate."""
    from brushwork.env.tasks import sample_rows
    from brushwork.train.conversation import opening
    from brushwork.train.policy import sample_messages
    from brushwork.train.tool_env import instructions, tool_schema

    rows = sample_rows(args.sft_check, args.domains, seed=args.task_seed + 2)
    sampling = {k: v for k, v in sampling.items() if k != "batch_size"}
    messages = sample_messages(model, tokenizer, [opening(row, instructions(args.revisions)) for row in rows],
                               [tool_schema()], **sampling)
    called, replies = 0, []
    for message in messages:
        sketches = [c["function"]["arguments"].get("sketch") for c in message.get("tool_calls") or ()
                    if c.get("function", {}).get("name") == "submit_sketch"
                    and isinstance(c["function"].get("arguments"), dict)]
        sketch = next((s for s in sketches if isinstance(s, str) and s.strip()), None)
        called += sketch is not None
        replies.append(sketch if sketch is not None else message.get("content") or "")
    rate, histogram = _gate_histogram(replies, passes)
    return rate, histogram, called / len(messages)


def _gate_histogram(replies: list[str], passes) -> tuple[float, dict]:
    histogram: dict[str, int] = {}
    passed = 0
    for reply in replies:
        ok, violations = passes(reply)
        passed += ok
        for rule in set(violations):
            histogram[rule] = histogram.get(rule, 0) + 1
    return passed / len(replies), dict(sorted(histogram.items(), key=lambda kv: -kv[1]))
