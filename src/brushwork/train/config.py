"""What `brushwork train` reads: one YAML file and command-line overrides, in TRL's style.

Three dataclasses share one flat namespace (TRL's `TrlParser`): `BrushworkArguments`
(tasks, environment, reward, film, tiny model, supervised warm-up), TRL's `GRPOConfig` and
TRL's `ModelConfig` (model id and LoRA). Whatever a file does not set takes the recipe's
corrected defaults (`RECIPE`), not TRL's: lr 5e-5 with `constant_with_warmup` over 5 steps,
`scale_rewards="none"`, 8 generations, top_p 0.95 / top_k 20, thinking off, LoRA r16 α32
dropout 0 on every linear layer. Precedence: RECIPE < YAML < command line.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from brushwork.core.settings import check, setting
from brushwork.errors import ConfigError
from brushwork.score.options import ScoringOptions

# The public recipe's GRPO settings as corrected; TRL's defaults differ on each.
RECIPE = {
    "learning_rate": 5e-5, "lr_scheduler_type": "constant_with_warmup", "warmup_steps": 5,
    "scale_rewards": "none", "num_generations": 8, "top_p": 0.95, "top_k": 20,
    "max_completion_length": 8192, "chat_template_kwargs": {"enable_thinking": False},
    "per_device_train_batch_size": 1, "gradient_accumulation_steps": 8, "bf16": True,
    "save_steps": 10, "logging_steps": 1, "report_to": "tensorboard", "project": "brushwork",
}
RECIPE_LORA = {"use_peft": True, "lora_r": 16, "lora_alpha": 32, "lora_dropout": 0.0,
               "lora_target_modules": ["all-linear"]}


@dataclass(frozen=True)
class TrainingSection:
    """The training run's own settings (the rest of `brushwork train`'s keys are TRL's)."""

    tiny: bool = setting(False, "build the tiny local Qwen3 model (no download) under OUTPUT_DIR/tiny and train it; "
                         "model_name_or_path is then ignored")
    domains: list[str] | None = setting(None, "task domains to train on (hibiscus, flowers, landscape, leaves); "
                                        "default all", cli=False)
    task_repeats: int = setting(8, "prompts per subject in the training set", min=1)
    task_seed: int = setting(0, "seed of the training prompts (evaluation uses others)", min=0, max=2**32 - 1)
    env_urls: list[str] | None = setting(None, "score through running `brushwork serve` servers (ws/http URLs, "
                                         "round-robin); default: score in this process on a shared warm renderer",
                                         cli=False)
    rollouts_per_step: int | None = setting(None, "completions scored per optimizer step over all processes (prompts "
                                            "x num_generations); gradient_accumulation_steps is derived from it, "
                                            "so the step means the same on 1 GPU and on 8. Default: TRL's product "
                                            "per_device_train_batch_size x processes x gradient_accumulation_steps",
                                            min=1)
    gpu_memory_gib: float | None = setting(None, "memory per GPU the preflight plans against (default: the GPU's "
                                           "own; on CPU nothing is refused)", above=0)
    multi_turn: bool = setting(False, "train through BrushworkToolEnv (environment_factory): the model submits with "
                               "a tool, sees its painting and revises")
    revisions: int = setting(2, "multi-turn: revisions after the first painting", min=0)
    film: bool = setting(True, "save every painting with its code and ScoreCard under OUTPUT_DIR/film")
    sft_samples: int = setting(0, "supervised warm-up before GRPO on this many (prompt, procedural sketch) pairs; "
                               "0 = none", min=0)
    sft_epochs: float = setting(8.0, "warm-up epochs", above=0)
    sft_learning_rate: float = setting(2e-3, "warm-up learning rate (full fine-tune)", above=0)
    sft_batch_size: int = setting(8, "warm-up batch size", min=1)
    sft_check: int = setting(16, "after the warm-up, sample this many replies and report the static gate pass rate",
                             min=0)


@dataclass(frozen=True)
class BrushworkArguments(TrainingSection, ScoringOptions):
    """The environment, reward and data side of a training run: the scoring options
    (`ScoringOptions`: pool, preset, judge, aesthetic, workers, render deadline, ...) and the
    training section."""

    def __post_init__(self):
        ScoringOptions.__post_init__(self)
        check(self)
        if self.judge == "openai" and not self.judge_url:
            raise ConfigError("judge openai needs judge_url (the OpenAI-compatible endpoint)")
        if self.aesthetic == "hpsv3" and not self.hpsv3_url:
            raise ConfigError("aesthetic hpsv3 needs hpsv3_url (a running `brushwork serve-hpsv3`)")
        if self.multi_turn and self.env_urls:
            raise ConfigError("multi_turn trains in this process (environment_factory); drop env_urls")


def compact_help() -> str:
    """`brushwork train --help`: the config first, then brushwork's own keys by group, then the
    recipe's TRL defaults; no torch needed (`--help-all` prints TRL's parser, every key)."""
    from dataclasses import MISSING, fields

    def rows(items):
        for f in items:
            default = f.default if f.default is not MISSING else (f.default_factory() if f.default_factory
                                                                   is not MISSING else None)
            yield f"  --{f.name} ({default!r})".ljust(34) + " " + f.metadata.get("help", "")

    lines = [
        "Usage: brushwork train --config NAME|FILE [--key value ...]",
        "",
        "  --config NAME|FILE".ljust(34) + " a bundled config (" + ", ".join(bundled_configs()) + ") or a YAML file",
        "  --help-all".ljust(34) + " every key of TRL's GRPOConfig and ModelConfig too (needs brushwork[train])",
        "",
        "Training run (brushwork):", *rows(fields(TrainingSection)),
        "",
        "Reward and environment (the scoring options, as in `brushwork score` / `serve`):",
        *rows(fields(ScoringOptions)),
        "",
        "TRL's keys (GRPOConfig, ModelConfig), e.g. --model_name_or_path, --output_dir, --max_steps,",
        "--num_generations, --resume_from_checkpoint; the recipe sets these (a file or the command line overrides):",
        *(f"  --{k} {v!r}" for k, v in {**RECIPE, **RECIPE_LORA}.items()),
        "",
        "Precedence: these defaults < the YAML file < the command line. Without a GPU, "
        + ", ".join(f"{k}={v}" for k, v in CPU_OVERRIDES.items()) + ".",
    ]
    return "\n".join(lines)


# Without a GPU these must be off whatever a file says: bf16 needs one, and gradient
# checkpointing makes a CPU step ~3x slower for no memory that matters.
CPU_OVERRIDES = {"bf16": False, "gradient_checkpointing": False, "activation_checkpointing": False, "use_cpu": True}


def parser(cpu: bool | None = None):
    """The `TrlParser` over (BrushworkArguments, GRPOConfig, ModelConfig) with the recipe's
    defaults; on a machine without CUDA (or `cpu=True`) `CPU_OVERRIDES` replace file values."""
    import torch
    from trl import GRPOConfig, ModelConfig, TrlParser

    class _Parser(TrlParser):
        def parse_args_into_dataclasses(self, *args, **kwargs):
            if cpu if cpu is not None else not torch.cuda.is_available():
                self.set_defaults(**CPU_OVERRIDES)   # after the file's values, before the command line
            return super().parse_args_into_dataclasses(*args, **kwargs)

        @staticmethod
        def _parse_dataclass_field(parser, field):
            # argparse takes only the help of a setting's declaration (its bounds are checked
            # by the dataclass itself, with the same message on every surface).
            if field.metadata.get("setting"):
                field = copy.copy(field)
                field.metadata = MappingProxyType({"help": field.metadata["help"]})
            return TrlParser._parse_dataclass_field(parser, field)

    p = _Parser((BrushworkArguments, GRPOConfig, ModelConfig), prog="brushwork train")
    p.set_defaults(**RECIPE, **RECIPE_LORA)
    return p


CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def bundled_configs() -> list[str]:
    """The names of the training configs shipped with brushwork (`--config tiny-cpu`)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def resolve_config(name: str) -> Path:
    """A `--config` value: a YAML file, or the name of a bundled config (with or without .yaml)."""
    path = Path(name)
    if path.is_file():
        return path
    bundled = CONFIG_DIR / f"{name.removesuffix('.yaml')}.yaml"
    if name and "/" not in name and bundled.is_file():
        return bundled
    raise ConfigError(f"--config {name}: no such file and no bundled config of that name; give a YAML file or "
                      f"one of: {', '.join(bundled_configs())}")


# Keys renamed when the scoring options were declared once (`ScoringOptions`).
RENAMED = {"reward_preset": "preset", "pool_snapshot": "snapshot", "render_workers": "workers",
           "render_timeout": "render_timeout_s", "render_cpu_budget": "render_cpu_budget_s"}


def parse(args: list[str], cpu: bool | None = None):
    """(BrushworkArguments, GRPOConfig, ModelConfig) from `--config FILE` and overrides."""
    import yaml

    args = list(args)
    keys = {a[2:].split("=", 1)[0] for a in args if a.startswith("--")}
    if "--config" in args:
        at = args.index("--config") + 1
        if at >= len(args):
            raise ConfigError(f"--config needs a value: a YAML file or one of: {', '.join(bundled_configs())}")
        args[at] = str(resolve_config(args[at]))
        try:
            keys |= set(yaml.safe_load(Path(args[at]).read_text()) or {})
        except (yaml.YAMLError, TypeError) as e:
            raise ConfigError(f"training config {args[at]}: {e}") from e
    if old := sorted(keys & set(RENAMED)):
        raise ConfigError("renamed training keys: " + ", ".join(f"{k} is now {RENAMED[k]}" for k in old))
    try:
        brush, grpo, model = parser(cpu).parse_args_and_config(args)
        accumulation = _accumulation(brush, grpo, keys)
        if accumulation is not None:     # the stated rollouts a step need another accumulation on these processes
            brush, grpo, model = parser(cpu).parse_args_and_config(
                [*args, "--gradient_accumulation_steps", str(accumulation)])
        return brush, grpo, model
    except (ValueError, TypeError, yaml.YAMLError) as e:
        raise ConfigError(f"training config: {e}") from e


def _accumulation(brush: BrushworkArguments, grpo, keys: set[str]) -> int | None:
    """The gradient accumulation that keeps `rollouts_per_step` on this many processes, when it
    differs from the parsed one (None: nothing to change)."""
    from brushwork.train.launch import plan_rollouts

    if brush.rollouts_per_step is None:
        return None
    if given := sorted(keys & {"steps_per_generation", "generation_batch_size"}):
        raise ConfigError(f"rollouts_per_step sets the generation batch; drop {', '.join(given)}")
    plan = plan_rollouts(brush.rollouts_per_step, grpo.num_generations, grpo.per_device_train_batch_size,
                         grpo.world_size, grpo.gradient_accumulation_steps)
    if plan.gradient_accumulation_steps == grpo.gradient_accumulation_steps:
        return None
    if "gradient_accumulation_steps" in keys:
        raise ConfigError(f"rollouts_per_step {brush.rollouts_per_step} on {grpo.world_size} process(es) x "
                          f"per_device_train_batch_size {grpo.per_device_train_batch_size} needs "
                          f"gradient_accumulation_steps {plan.gradient_accumulation_steps}, not the "
                          f"{grpo.gradient_accumulation_steps} given: drop gradient_accumulation_steps (it is derived)")
    return plan.gradient_accumulation_steps
