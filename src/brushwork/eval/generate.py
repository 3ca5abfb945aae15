"""A policy's replies to held-out prompts.

Held-out prompts are the environment's tasks (`brushwork.env.tasks.dataset_rows`) drawn with
an evaluation seed (`EVAL_SEED`) distinct from training's (0 by default): other render seeds and
reference draws than any training row, and the pairings training never sees (`HeldOut`: a
subject or phrasing held out) beside the seen ones.

`generate_replies` loads the policy with transformers, with the class its config names (a
local folder or a hub id that is already in the local cache; nothing is downloaded in
tests), optionally with a PEFT adapter, applies the chat template with thinking off, and
samples every reply of one prompt in one batch (`num_return_sequences`), which is what a
CPU can afford.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from brushwork.errors import ConfigError, DependencyNotInstalled

EVAL_SEED = 1_000_003
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def held_out_rows(domains: list[str] | None = None, prompts: int = 12, seed: int = EVAL_SEED) -> list[dict]:
    """The first `prompts` task rows of a seeded shuffle (subjects repeat, with new seeds,
    when more prompts are asked for than the domains have subjects)."""
    from brushwork.env.tasks import sample_rows

    if prompts < 1:
        raise ConfigError(f"--prompts must be >= 1, got {prompts}")
    return sample_rows(prompts, domains, seed, include_held_out=True)


def check_source(name: str | None, what: str) -> None:
    """Fail early on a local path that does not exist (a hub id is left to transformers)."""
    if name is None or Path(name).exists():
        return
    if _HUB_ID.match(name) and not name.startswith("."):
        return
    raise ConfigError(f"--{what} {name}: no such folder; give a local {what} folder (save_pretrained layout) "
                      f"or a hub id that is in the local cache, such as Qwen/Qwen3-0.6B")


def load_generator(model: str, adapter: str | None = None, device: str | None = None):
    """(model, tokenizer) ready for generation, the adapter applied when given (the same order
    as `brushwork.train.policy.load_policy`). The model is
    loaded with the class its config names, as training does (`brushwork.train.policy`):
    through AutoModelForCausalLM a multimodal Qwen3.5 silently drops most adapter tensors."""
    try:
        import torch

        from brushwork.train.policy import load_policy as load_base
    except ImportError as e:
        raise DependencyNotInstalled(e.name or "transformers", "train") from e
    check_source(model, "model")
    check_source(adapter, "adapter")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    policy, tokenizer = load_base(model, dtype="bfloat16" if device.startswith("cuda") else "float32")
    if adapter:
        try:
            from peft import PeftModel
        except ImportError as e:
            raise DependencyNotInstalled("peft", "train") from e
        try:
            policy = PeftModel.from_pretrained(policy, adapter)
        except (OSError, ValueError) as e:
            raise ConfigError(f"could not load the adapter {adapter}: {e} (give a folder written by "
                              "save_pretrained, or a hub id that is in the local cache)") from e
    return policy.to(device).eval(), tokenizer


def generate_replies(model: str, adapter: str | None, rows: list[dict], samples: int, max_new_tokens: int = 512,
                     temperature: float = 1.0, top_p: float = 0.95, top_k: int = 20, seed: int = 0,
                     on_prompt: Callable[[int], None] | None = None, device: str | None = None) -> list[list[str]]:
    """`samples` replies per row (row["prompt"] is a list of chat messages), in row order;
    temperature 0 decodes greedily (one answer, repeated)."""
    from brushwork.train.policy import sample_replies

    if samples < 1:
        raise ConfigError(f"--samples must be >= 1, got {samples}")
    if max_new_tokens < 1:
        raise ConfigError(f"--max-new-tokens must be >= 1, got {max_new_tokens}")
    policy, tokenizer = load_generator(model, adapter, device)
    replies = []
    for n, row in enumerate(rows):
        replies += sample_replies(policy, tokenizer, [row["prompt"]], samples, max_new_tokens, temperature,
                                  top_p, top_k, seed=seed * 1_000_003 + n)
        if on_prompt is not None:
            on_prompt(n + 1)
    return replies


def play_episodes(model: str, adapter: str | None, rows: list[dict], samples: int, revisions: int, pipeline,
                  max_new_tokens: int = 512, temperature: float = 1.0, top_p: float = 0.95, top_k: int = 20,
                  seed: int = 0, device: str | None = None, on_turn: Callable[[int, int], None] | None = None):
    """`samples` multi-turn episodes per row (`brushwork.train.conversation.play`): the policy
    submits with the submit_sketch tool, sees the critique, and may revise `revisions` times."""
    from brushwork.train.conversation import play

    if samples < 1:
        raise ConfigError(f"--samples must be >= 1, got {samples}")
    policy, tokenizer = load_generator(model, adapter, device)
    sampling = {"max_new_tokens": max_new_tokens, "temperature": temperature, "top_p": top_p, "top_k": top_k,
                "seed": seed}
    return play(policy, tokenizer, rows, samples, revisions, pipeline, sampling, on_turn=on_turn)
