"""One training run: tasks -> (warm-up) -> GRPO with a LoRA against the environment.

`train(args, grpo, model_args)` builds the policy (a hub/local model with its own class, or
the tiny local one), optionally warms it up (`warmup.py`), turns the environment's tasks
into a dataset, and runs TRL's `GRPOTrainer` with `BrushworkReward` (single turn, in-process
or through servers; each completion scored as soon as it ends, `overlap.py`) or
`BrushworkToolEnv` (multi-turn, `environment_factory`; a vision-language policy gets its
processor, so the painting reaches it as an image). Every logging
event also goes to OUTPUT_DIR/metrics.jsonl for `brushwork eval`'s curves, and the best
painting of each logging step to trackio / tensorboard (`tracking.py`); the adapter is
saved to OUTPUT_DIR and pushed when `push_to_hub` is set.

Under `accelerate launch` (one process per GPU, `launch.py`) each process loads the policy on
its own GPU (or lets ZeRO-3 / FSDP shard it), after a preflight that estimates its memory from
the model's config and refuses a plan that cannot fit (`memory.py`); a single-turn run scores
through one environment server per node, owned by the node's first process, instead of a
renderer pool per process.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from brushwork.errors import ConfigError, SetupError
from brushwork.train.config import BrushworkArguments


@dataclass(frozen=True)
class Plan:
    """What a run was about to do, said before any weight loads: the rollouts a step and the
    memory per GPU."""

    rollouts: object
    memory: object
    processes: int
    scorer: str


@dataclass(frozen=True)
class TrainResult:
    output_dir: Path
    model: str
    steps: int
    seconds: float
    warmup: object | None
    metrics: Path


def _metrics_callback(path: Path):
    from transformers import TrainerCallback

    class MetricsLog(TrainerCallback):
        """Appends every TRL logging event to metrics.jsonl (the eval report's curves)."""

        def on_log(self, args, state, control, logs=None, **kwargs):
            if state.is_world_process_zero and logs:
                with path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({"step": state.global_step, **logs}, default=float) + "\n")

    return MetricsLog()


def _passes(pipeline):
    """Full gate (static + render) through the in-process pipeline, for the warm-up check."""
    def passes(reply: str):
        report = pipeline.gate(reply).report
        return report.passed, tuple(v.id for v in report.violations)
    return passes


def check_pool_coverage(args: BrushworkArguments, pool, stream=None) -> list[str]:
    """Warn, before training starts, about the training domains (`args.domains`) whose tasks the
    pool cannot judge from paintings of their own domain (`brushwork.env.tasks.check_pool_domains`)."""
    from brushwork.env.tasks import check_pool_domains

    return [] if pool is None else check_pool_domains(pool, args.domains, stream=stream)


def _rewards(args: BrushworkArguments, film: Path | None, config, images: bool = False,
             env_urls: list[str] | None = None):
    from brushwork.train.rewards import BrushworkReward
    from brushwork.train.tool_env import BrushworkToolEnv, ToolEnvReward

    if not args.multi_turn:
        return [BrushworkReward(env_urls or None, config, film=str(film) if film else None,
                                diversity_memory=args.diversity_memory)], None
    env_cls = type("ConfiguredToolEnv", (BrushworkToolEnv,), {"config": config, "revisions": args.revisions,
                                                             "images": images})
    return [ToolEnvReward(film=str(film) if film else None)], env_cls


def vision_processor(model, model_path: str, revision: str = "main"):
    """The processor (tokenizer + image processor) of a vision-language policy, or None for a
    text-only one: with it, multi-turn tool results carry the painting as an image. A local
    Qwen3.5 folder whose processor does not load whole (its video half needs torchvision, or
    its class is the stand-in's) gets one built from parts (`tiny_vl.load_vl_processor`); any
    other that cannot load is a SetupError naming the fix (never a policy that silently trains blind)."""
    if getattr(model.config, "vision_config", None) is None:
        return None
    from transformers import AutoProcessor

    error = None
    try:
        processor = AutoProcessor.from_pretrained(model_path, revision=revision)
        if getattr(processor, "image_processor", None) is not None:
            return processor
    except (OSError, ValueError, TypeError, ImportError, AttributeError) as e:
        error = e
    if getattr(model.config, "model_type", "") in ("qwen3_5", "qwen3_5_moe") and Path(model_path).is_dir():
        from brushwork.train.tiny_vl import load_vl_processor

        return load_vl_processor(model_path)
    reason = f"{type(error).__name__}: {error}" if error else "it has no image processor"
    raise SetupError(f"{model_path} is a vision-language model but its processor did not load ({reason}): "
                     "pip install the torchvision built for your torch (torch 2.13 pairs with torchvision 0.28; "
                     "transformers' video half needs it), or train a text-only model")


def resume_point(value: str | None, output_dir: Path) -> str | None:
    """`last` -> the newest checkpoint in output_dir; a path must exist."""
    if value in (None, "", "false", "False"):
        return None
    if value == "last":
        from transformers.trainer_utils import get_last_checkpoint

        found = get_last_checkpoint(str(output_dir)) if output_dir.exists() else None
        if found is None:
            raise ConfigError(f"resume_from_checkpoint last: no checkpoint-* folder in {output_dir} yet")
        return found
    if not Path(value).exists():
        raise ConfigError(f"resume_from_checkpoint {value}: no such checkpoint folder")
    return value


def _check_launch(args: BrushworkArguments, grpo, where, resume) -> None:
    """What a multi-process run cannot do, said before anything loads."""
    if where.world == 1 and getattr(grpo, "n_gpu", 1) > 1:
        raise ConfigError(f"{grpo.n_gpu} GPUs are visible to one process, which would copy the model onto each "
                          "(DataParallel): launch one process per GPU with `accelerate launch --config_file "
                          "ACCELERATE.yaml -m brushwork.cli train ...` (docs/training.md), or set "
                          "CUDA_VISIBLE_DEVICES=0")
    if where.world > 1 and args.sft_samples and resume is None:
        raise ConfigError(f"sft_samples {args.sft_samples}: the warm-up runs in one process; run it first with a "
                          "plain `brushwork train ... --max_steps 1` (it saves OUTPUT_DIR/base), then launch GRPO "
                          "with model_name_or_path OUTPUT_DIR/base and sft_samples 0")


def train(args: BrushworkArguments, grpo, model_args, on_warmup=None, on_plan=None) -> TrainResult:
    """Run the whole recipe; returns where everything went. `on_plan(Plan)` hears the plan on the
    main process before the weights load."""
    from accelerate import PartialState
    from datasets import Dataset
    from trl import GRPOTrainer

    from brushwork.env.tasks import dataset_rows
    from brushwork.train.launch import NodeScorer, layout, node_scorer_url, plan_rollouts
    from brushwork.train.memory import preflight, sharded
    from brushwork.train.policy import load_policy, lora_config, process_device_map
    from brushwork.train.rewards import close_shared, shared_pipeline
    from brushwork.train.tiny import TinySpec, build_tiny
    from brushwork.train.tracking import BestPaintingLog

    t0 = time.perf_counter()
    where = layout()
    out = Path(grpo.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    resume = resume_point(grpo.resume_from_checkpoint, out)
    _check_launch(args, grpo, where, resume)
    if args.tiny:
        spec = TinySpec(chat_template="qwen3.5" if args.multi_turn else "qwen3")   # tool calls as raw text
        with PartialState().local_main_process_first():    # built once per node, then read by the others
            model_args.model_name_or_path = str(build_tiny(spec, out / "tiny"))
    if resume is not None and (out / "base").exists():
        model_args.model_name_or_path = str(out / "base")   # the warmed-up weights the adapter was trained on
    if not model_args.model_name_or_path:
        raise ConfigError("no model: set model_name_or_path (a local folder or hub id) or tiny: true")
    config = args.scoring()
    env_urls = list(args.env_urls or [])
    node_scored = where.world > 1 and not env_urls and not args.multi_turn
    rollouts = plan_rollouts(args.rollouts_per_step, grpo.num_generations, grpo.per_device_train_batch_size,
                             where.world, grpo.gradient_accumulation_steps)
    memory = preflight(args, grpo, model_args, where.world, where.local_rank)    # before any weight loads
    if on_plan and where.main:
        on_plan(Plan(rollouts, memory, where.world, "one server per node" if node_scored else
                     ", ".join(env_urls) if env_urls else "in this process"))
    model, tokenizer = load_policy(model_args.model_name_or_path, model_args.model_revision, model_args.dtype,
                                   model_args.attn_implementation,
                                   device_map=process_device_map(where.local_rank, sharded(grpo)))
    scorer = None
    if node_scored:
        sessions = where.local_world * 8 + 8     # every process's reward workers, and room for a reconnect
        host = socket.gethostname()
        url, scorer = node_scorer_url(where, lambda: NodeScorer(config, sessions, log=out / f"scorer-{host}.log",
                                                                report=out / f"scorer-{host}.json"))
        env_urls = [url]
    rewards = []
    try:
        warm = None
        if args.sft_samples and resume is None:
            from brushwork.train.warmup import supervised_warmup

            sampling = {"max_new_tokens": grpo.max_completion_length, "temperature": grpo.temperature,
                        "top_p": grpo.top_p, "top_k": grpo.top_k or 0, "seed": grpo.seed}
            passes = _passes(shared_pipeline(config)) if not env_urls else None
            warm = supervised_warmup(model, tokenizer, args, out, cpu=grpo.use_cpu, passes=passes,
                                     sampling=sampling, pipeline=None if env_urls else shared_pipeline(config))
            if on_warmup:
                on_warmup(warm)
        rows = dataset_rows(args.domains, args.task_repeats, args.task_seed)
        if not env_urls and "judge" in shared_pipeline(config).scorer.terms:   # a server checks its own pool
            check_pool_coverage(args, shared_pipeline(config).pool)
        film = out / "film" if args.film else None
        processor = vision_processor(model, model_args.model_name_or_path, model_args.model_revision) \
            if args.multi_turn else None
        rewards, env_cls = _rewards(args, film, config, images=processor is not None, env_urls=env_urls)
        trainer_cls = GRPOTrainer
        if args.multi_turn:
            from brushwork.train.tool_env import trainer_class

            trainer_cls = trainer_class()
        elif args.overlap:
            from brushwork.train.overlap import overlapping

            trainer_cls = overlapping(GRPOTrainer)
        trainer = trainer_cls(model=model, reward_funcs=rewards, args=grpo, train_dataset=Dataset.from_list(rows),
                              processing_class=processor or tokenizer, peft_config=lora_config(model_args),
                              callbacks=[_metrics_callback(out / "metrics.jsonl")],
                              **({"environment_factory": env_cls} if env_cls else {}))
        trainer.add_callback(BestPaintingLog(rewards, trainer.callback_handler))   # after the reporting callbacks
        trainer.train(resume_from_checkpoint=resume)
        trainer.save_model(str(out))
        if grpo.push_to_hub:
            trainer.push_to_hub()
        PartialState().wait_for_everyone()     # no process is still scoring when the node's server stops
    finally:
        for reward in rewards:
            if callable(getattr(reward, "close", None)):
                reward.close()
        close_shared()
        if scorer is not None:
            scorer.close()
    return TrainResult(out, model_args.model_name_or_path, trainer.state.global_step, time.perf_counter() - t0,
                       warm, out / "metrics.jsonl")
