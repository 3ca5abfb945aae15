"""What `brushwork train` reads: one YAML file, `BRUSHWORK_*` variables and command-line keys.

Three dataclasses share one flat namespace: `BrushworkArguments` (tasks, environment,
reward, film, tiny model, supervised warm-up), read by the settings loader every command
uses (defaults < file < `BRUSHWORK_*` < command line), and TRL's `GRPOConfig` and
`ModelConfig` (model id, LoRA), read by TRL's own parser (the recipe < file < command line;
no variables). A key that is neither is refused with the closest one named. Whatever a file
does not set takes the recipe's corrected defaults (`RECIPE`), not TRL's: lr 5e-5 with
`constant_with_warmup` over 5 steps, `scale_rewards="none"`, 8 generations, top_p 0.95 /
top_k 20, thinking off, LoRA r16 α32 dropout 0 on every linear layer.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from brushwork.core.settings import (
    check,
    closest,
    coerce,
    load,
    read_file,
    refuse_unknown,
    setting,
    settings,
    value_types,
)
from brushwork.errors import ConfigError, DependencyNotInstalled
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
    overlap: bool = setting(True, "score each completion as soon as it ends, while the rest of its batch still "
                            "generates (single turn, transformers generation; docs/training.md)")
    diversity_memory: int = setting(0, "where the reward weighs the diversity term: also pay less for a painting near "
                                    "one of its prompt's best paintings of the last K steps (0: its group alone)",
                                    min=0)
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
    recipe's TRL defaults; no torch needed (`--help-all` adds TRL's parser, every key)."""
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
        "Precedence: these defaults < the YAML file < BRUSHWORK_<KEY> variables (brushwork's keys only) < the "
        "command line; a key that is neither brushwork's nor TRL's is refused. Without a GPU, "
        + ", ".join(f"{k}={v}" for k, v in CPU_OVERRIDES.items() if v is not None) + " over the file.",
    ]
    return "\n".join(lines)


# Without a GPU these are off whatever a file says (a flag on the command line still wins): bf16
# needs one, and gradient checkpointing makes a CPU step ~3x slower for no memory that matters.
# transformers reads `gradient_checkpointing` only while its new name `activation_checkpointing`
# is unset, so that one is unset here, not False: a False would beat `--gradient_checkpointing true`.
CPU_OVERRIDES = {"bf16": False, "gradient_checkpointing": False, "activation_checkpointing": None, "use_cpu": True}


def trl_parser(cpu: bool | None = None, defaults: dict | None = None):
    """TRL's argument parser over (GRPOConfig, ModelConfig) with the recipe's defaults, then
    `defaults` (a file's TRL keys); on a machine without CUDA (or `cpu=True`) `CPU_OVERRIDES`
    replace them. A bad command-line value raises argparse.ArgumentError (not an exit)."""
    import torch
    from transformers import HfArgumentParser
    from trl import GRPOConfig, ModelConfig

    p = HfArgumentParser((GRPOConfig, ModelConfig), prog="brushwork train", exit_on_error=False)
    p.set_defaults(**{**RECIPE, **RECIPE_LORA, **(defaults or {})})
    if cpu if cpu is not None else not torch.cuda.is_available():
        p.set_defaults(**CPU_OVERRIDES)   # after the file's values, before the command line
    return p


@functools.cache
def trl_types() -> dict[str, object]:
    """Every key of TRL's GRPOConfig and ModelConfig, with its declared type."""
    from trl import GRPOConfig, ModelConfig

    out = {}
    for cls in (GRPOConfig, ModelConfig):
        hints = typing.get_type_hints(cls)
        out |= {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}
    return out


def trl_file_values(data: dict, file: Path) -> dict:
    """A training config's keys that are not brushwork's: each must be TRL's and of its declared
    type (a single value stands for a one-item list, as on TRL's command line). Returned as
    written, for TRL's own dataclasses to read."""
    ours = {f.name for f in settings(BrushworkArguments)}
    rest = {k: v for k, v in data.items() if k not in ours}
    if not rest:
        return {}
    try:
        typed = trl_types()
    except ImportError as e:
        raise DependencyNotInstalled("trl (which reads and checks a training config's other keys: "
                                     f"{', '.join(sorted(rest))})", "train") from e
    refuse_unknown(set(rest) - set(typed), file, [*ours, *typed], "brushwork or TRL key")
    for key, value in rest.items():
        hint = typed[key]
        listed = not isinstance(value, list) and "list" in str(hint)
        coerce(key, hint, [value] if listed else value, f"{key} (in {file})")
    return rest


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


# Former names of training keys: refused, naming the key to use.
RENAMED = {"reward_preset": "preset", "pool_snapshot": "snapshot", "render_workers": "workers",
           "render_timeout": "render_timeout_s", "render_cpu_budget": "render_cpu_budget_s"}


def parse(args: list[str], cpu: bool | None = None, environ: Mapping[str, str] | None = None):
    """(BrushworkArguments, GRPOConfig, ModelConfig) from `--config NAME|FILE`, `BRUSHWORK_*`
    variables (os.environ unless `environ`) and command-line keys. Brushwork's keys are read by
    the loader every command uses (defaults < file < variables < command line); TRL's by TRL's
    own dataclasses (the recipe < file < command line); a key that is neither is refused."""
    args = list(args)
    file = _pop_config(args)
    data = read_file(file) if file else {}
    flags, rest = _brushwork_flags(args)
    keys = set(data) | set(flags) | {a[2:].split("=", 1)[0] for a in rest if a.startswith("--")}
    if old := sorted(keys & set(RENAMED)):
        raise ConfigError("renamed training keys: " + ", ".join(f"{k} is now {RENAMED[k]}" for k in old))
    brush, _ = load(BrushworkArguments, file=file, environ=environ, flags=flags, strict_file=False,
                    flag_spelling=lambda key: f"--{key}")
    trl = trl_file_values(data, file) if file else {}
    grpo, model = _trl(rest, trl, cpu)
    accumulation = _accumulation(brush, grpo, keys)
    if accumulation is not None:     # the stated rollouts a step need another accumulation on these processes
        grpo, model = _trl([*rest, "--gradient_accumulation_steps", str(accumulation)], trl, cpu)
    return brush, grpo, model


def _pop_config(args: list[str]) -> Path | None:
    """The file `--config NAME|FILE` names, taken out of `args`."""
    if "--config" not in args:
        return None
    at = args.index("--config")
    if at + 1 >= len(args):
        raise ConfigError(f"--config needs a value: a YAML file or one of: {', '.join(bundled_configs())}")
    file = resolve_config(args[at + 1])
    del args[at:at + 2]
    return file


def _brushwork_flags(args: list[str]) -> tuple[dict, list[str]]:
    """Brushwork's keys on a training command line (`--workers 2`, `--tiny`, `--env_urls A B`)
    as text for the loader, and the rest (TRL's) untouched."""
    import argparse

    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    kinds = value_types(BrushworkArguments)
    for key, kind in kinds.items():
        nargs = {bool: "?", list: "+"}.get(kind)
        p.add_argument(f"--{key}", nargs=nargs, const="true" if kind is bool else None, default=None)
    try:
        given, rest = p.parse_known_args(args)
    except argparse.ArgumentError as e:
        raise ConfigError(f"brushwork train: {e}") from None
    return {k: v for k, v in vars(given).items() if v is not None}, rest


def _trl(args: list[str], defaults: dict, cpu: bool | None):
    """(GRPOConfig, ModelConfig) from TRL's command-line keys over the file's and the recipe's."""
    import argparse

    try:
        grpo, model, unknown = trl_parser(cpu, defaults).parse_args_into_dataclasses(args,
                                                                                      return_remaining_strings=True)
    except argparse.ArgumentError as e:
        raise ConfigError(f"brushwork train: {e}") from None
    except (ValueError, TypeError) as e:
        raise ConfigError(f"training config: {' '.join(str(e).split())}") from e
    if unknown:
        names = [a for a in unknown if a.startswith("-")] or unknown
        candidates = [f"--{k}" for k in [*value_types(BrushworkArguments), *trl_types()]]
        raise ConfigError("brushwork train: unknown " + ", ".join(f"{a}{closest(a.split('=')[0], candidates)}"
                                                                   for a in names)
                          + ": not a brushwork or TRL key; `brushwork train --help-all` lists every key")
    return grpo, model


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
