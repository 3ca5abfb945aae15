"""The policy: loading a model with its own architecture class, its LoRA, and sampling from it.

A model is loaded with the class its config names (`config.architectures[0]`), not
`AutoModelForCausalLM`: Qwen3.5 models are multimodal (`Qwen3_5ForConditionalGeneration`,
`Qwen3_5MoeForConditionalGeneration`), and loading their adapter through the causal-LM class
silently misses most adapter tensors. The LoRA comes from TRL's `ModelConfig`; with
`lora_target_parameters` it also reaches an MoE's fused expert weights, which `all-linear`
leaves frozen.
"""

from __future__ import annotations

from dataclasses import dataclass

from brushwork.errors import ConfigError


def model_class(config):
    """The transformers class a config names (AutoModelForCausalLM when it names none)."""
    import transformers

    for name in getattr(config, "architectures", None) or ():
        cls = getattr(transformers, name, None)
        if cls is not None:
            return cls
    return transformers.AutoModelForCausalLM


def load_policy(model_name_or_path: str, revision: str = "main", dtype: str | None = None,
                attn_implementation: str | None = None):
    """(model, tokenizer) from a local folder or a hub id (the hub is only reached when the id
    is not already in the local cache)."""
    import torch
    from transformers import AutoConfig, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(model_name_or_path, revision=revision)
    except OSError as e:
        raise ConfigError(f"cannot load model {model_name_or_path!r}: {e}. Give a local folder, a cached hub "
                          f"id, or `tiny: true` for the locally built model") from e
    kwargs = {"revision": revision}
    if dtype not in (None, "auto"):
        kwargs["dtype"] = getattr(torch, dtype)
    if attn_implementation:
        kwargs["attn_implementation"] = attn_implementation
    model = model_class(config).from_pretrained(model_name_or_path, **kwargs)
    tokenizer = AutoTokenizer.from_pretrained(model_name_or_path, revision=revision)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def lora_config(model_args):
    """TRL's ModelConfig -> PEFT LoraConfig (None when use_peft is off)."""
    from trl import get_peft_config

    return get_peft_config(model_args)


@dataclass(frozen=True)
class AdapterCoverage:
    """What a LoRA reached: adapted modules (linear layers and parameter wrappers) and, of
    those, adapted 3-D parameters such as an MoE's fused experts."""

    modules: int
    parameters: int
    trainable: int
    total: int


def adapter_coverage(peft_model) -> AdapterCoverage:
    from peft.tuners.lora import ParamWrapper

    modules = sum(1 for name, _ in peft_model.named_modules() if name.endswith("lora_A"))
    params = sum(1 for _, m in peft_model.named_modules() if isinstance(m, ParamWrapper))
    trainable = sum(p.numel() for p in peft_model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in peft_model.parameters())
    return AdapterCoverage(modules, params, trainable, total)


def sample_replies(model, tokenizer, conversations: list[list[dict]], samples: int = 1, max_new_tokens: int = 512,
                   temperature: float = 1.0, top_p: float = 0.95, top_k: int = 20, seed: int = 0,
                   batch_size: int = 16) -> list[list[str]]:
    """`samples` sampled replies per conversation (thinking off), decoded without special
    tokens; prompts are left-padded and sampled `batch_size` sequences at a time. Temperature
    0 decodes greedily: one reply per conversation, repeated `samples` times."""
    import torch

    torch.manual_seed(seed)
    greedy = temperature <= 0
    sampling = {"do_sample": False} if greedy else {"do_sample": True, "temperature": temperature, "top_p": top_p,
                                                    "top_k": top_k}
    prompts = [tokenizer.apply_chat_template(m, add_generation_prompt=True, tokenize=True, return_dict=False,
                                             enable_thinking=False) for m in conversations]
    jobs = [(c, ids) for c, ids in enumerate(prompts) for _ in range(1 if greedy else samples)]
    replies: list[list[str]] = [[] for _ in conversations]
    was_training = model.training
    model.eval()
    try:
        for start in range(0, len(jobs), batch_size):
            chunk = jobs[start:start + batch_size]
            width = max(len(ids) for _, ids in chunk)
            pad = tokenizer.pad_token_id
            batch = torch.tensor([[pad] * (width - len(ids)) + list(ids) for _, ids in chunk])
            mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for _, ids in chunk])
            with torch.no_grad():
                out = model.generate(input_ids=batch.to(model.device), attention_mask=mask.to(model.device),
                                     max_new_tokens=max_new_tokens, pad_token_id=pad, **sampling)
            for (c, _), row in zip(chunk, out):
                replies[c].append(tokenizer.decode(row[width:], skip_special_tokens=True))
    finally:
        model.train(was_training)
    return [r * samples for r in replies] if greedy else replies
