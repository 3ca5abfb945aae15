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
                attn_implementation: str | None = None, device_map: dict | str | None = None):
    """(model, tokenizer) from a local folder or a hub id (the hub is only reached when the id
    is not already in the local cache). `device_map` places the weights as they load
    (`process_device_map`: each training process on its own GPU)."""
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
    if device_map is not None:
        kwargs["device_map"] = device_map
    model = model_class(config).from_pretrained(model_name_or_path, **kwargs)
    tokenizer = AutoTokenizer.from_pretrained(model_name_or_path, revision=revision)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def process_device_map(local_rank: int, shards: bool) -> dict | None:
    """Where this training process loads the policy: whole on its own GPU (`local_rank`), or
    nowhere in particular when ZeRO-3 / FSDP shard it (they place the shards) or without CUDA."""
    import torch

    if shards or not torch.cuda.is_available():
        return None
    return {"": local_rank % torch.cuda.device_count()}


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
    greedy = temperature <= 0
    prompts = [_chat_ids(tokenizer, m) for m in conversations]
    jobs = [(c, ids) for c, ids in enumerate(prompts) for _ in range(1 if greedy else samples)]
    replies: list[list[str]] = [[] for _ in conversations]
    for (c, _), out in zip(jobs, _generate(model, tokenizer, [ids for _, ids in jobs], max_new_tokens, temperature,
                                           top_p, top_k, seed, batch_size)):
        replies[c].append(tokenizer.decode(out, skip_special_tokens=True))
    return [r * samples for r in replies] if greedy else replies


def sample_messages(model, tokenizer, conversations: list[list[dict]], tools: list, max_new_tokens: int = 512,
                    temperature: float = 1.0, top_p: float = 0.95, top_k: int = 20, seed: int = 0,
                    batch_size: int = 16) -> list[dict]:
    """One sampled assistant message per conversation, rendered with `tools` and parsed with
    TRL's response parser (as GRPO parses them): `tool_calls` when the model called a tool."""
    from trl.chat_template_utils import add_response_schema, parse_response

    if getattr(tokenizer, "response_template", None) is None and getattr(tokenizer, "response_schema", None) is None:
        add_response_schema(tokenizer)
    prompts = [_chat_ids(tokenizer, m, tools) for m in conversations]
    outs = _generate(model, tokenizer, prompts, max_new_tokens, temperature, top_p, top_k, seed, batch_size)
    return [parse_response(tokenizer, out, prefix=ids, tools=tools) if out else {"role": "assistant", "content": ""}
            for ids, out in zip(prompts, outs)]


def _chat_ids(tokenizer, messages: list[dict], tools: list | None = None) -> list[int]:
    return list(tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=True,
                                              return_dict=False, enable_thinking=False))


def _generate(model, tokenizer, prompts: list[list[int]], max_new_tokens: int, temperature: float, top_p: float,
              top_k: int, seed: int, batch_size: int) -> list[list[int]]:
    """The generated ids of each prompt (special tokens kept, padding and anything after the
    end of turn dropped), `batch_size` left-padded prompts at a time."""
    import torch

    torch.manual_seed(seed)
    sampling = {"do_sample": False} if temperature <= 0 else {"do_sample": True, "temperature": temperature,
                                                                "top_p": top_p, "top_k": top_k}
    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
    results: list[list[int]] = []
    was_training = model.training
    model.eval()
    try:
        for start in range(0, len(prompts), batch_size):
            chunk = prompts[start:start + batch_size]
            width = max(len(ids) for ids in chunk)
            batch = torch.tensor([[pad] * (width - len(ids)) + list(ids) for ids in chunk])
            mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in chunk])
            with torch.no_grad():
                out = model.generate(input_ids=batch.to(model.device), attention_mask=mask.to(model.device),
                                     max_new_tokens=max_new_tokens, pad_token_id=pad, **sampling)
            for row in out.tolist():
                ids = row[width:]
                if eos in ids:
                    ids = ids[:ids.index(eos) + 1]
                results.append([t for t in ids if t != pad])
    finally:
        model.train(was_training)
    return results
