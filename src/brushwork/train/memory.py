"""The preflight: memory per GPU, estimated from the model's config and the plan, before any
weight is loaded.

The estimate is rough on purpose (a plan off by 2x is what it must catch, not 5 %): the
weights (parameters counted on the meta device, at the policy's dtype, divided over the
processes when ZeRO-3 or FSDP shards them); the LoRA (its weights, gradients and AdamW
moments in float32); the activations of one micro-batch (about 34 x hidden bytes a token a
layer, or the layer inputs alone with gradient checkpointing, plus one layer's working set);
the logits of one micro-batch (bf16 logits and their float32 log-softmax); the KV cache of
generating the process's share of a generation batch (full-attention layers only); and 10 %
plus 1.5 GiB for the CUDA context and fragmentation. Sequences are counted as the
completion length plus `PROMPT_TOKENS`.

With vLLM (`use_vllm`) the KV cache is vLLM's, not the trainer's. TRL 1.16 sends vLLM the
weights with the LoRA merged in, and with the weights sharded (ZeRO-3) it first gathers the
whole model on every process (`merge_adapter` cannot merge a shard): that sync is counted
beside the training step, and with its whole model it is what refuses a LoRA on a 35B model
under ZeRO-3 on 80 GB GPUs. In colocate mode vLLM takes `vllm_gpu_memory_utilization` of each
GPU for its own copy of the weights (split over `vllm_tensor_parallel_size`) and its cache;
the trainer plans against the rest.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from brushwork.errors import ConfigError

GIB = 2 ** 30
PROMPT_TOKENS = 1024     # a task prompt with its system message, generously
OVERHEAD_GIB = 1.5
BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per GPU, by part; `describe()` says how each was counted."""

    parameters: int
    trainable: int
    dtype: str
    shards: int
    weights: float
    adapter: float
    activations: float
    logits: float
    generation: float
    sync: float = 0.0     # the whole model, gathered beside the shard to send vLLM merged weights

    @property
    def total(self) -> float:
        step = self.activations + self.logits + self.generation
        return (self.weights + self.adapter + max(step, self.sync)) * 1.1 + OVERHEAD_GIB * GIB

    def describe(self) -> str:
        shard = f", sharded over {self.shards} processes" if self.shards > 1 else ""
        return (f"~{self.total / GIB:.1f} GiB per GPU: weights {self.weights / GIB:.1f} GiB "
                f"({_count(self.parameters)} parameters in {self.dtype}{shard}), LoRA + AdamW "
                f"{self.adapter / GIB:.2f} GiB ({self.trainable / 1e6:.1f} M trainable), activations "
                f"{self.activations / GIB:.1f} GiB, logits {self.logits / GIB:.1f} GiB, generation KV cache "
                f"{self.generation / GIB:.1f} GiB"
                + (f", or at the vLLM weight sync the whole model gathered beside the shard ({self.sync / GIB:.1f} GiB)"
                   if self.sync else "") + f", + 10 % and {OVERHEAD_GIB:g} GiB")


def _count(n: int) -> str:
    return f"{n / 1e9:.2f} B" if n >= 1e8 else f"{n / 1e6:.2f} M"


def _text_config(config):
    return getattr(config, "text_config", None) or config


def _meta_model(config):
    import torch

    from brushwork.train.policy import model_class

    cls = model_class(config)
    with torch.device("meta"):
        return cls.from_config(config) if hasattr(cls, "from_config") else cls._from_config(config)


def lora_parameters(model, r: int, target_modules, target_parameters) -> int:
    """Trainable LoRA parameters on `model` (a meta model): r x (in + out) on each targeted linear
    layer (`all-linear`: every one but the output layer), and E x r x (in + out) on each
    targeted 3-D parameter (an MoE's fused experts)."""
    import torch

    output = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    targets = [target_modules] if isinstance(target_modules, str) else list(target_modules or ())
    count = 0
    for name, module in model.named_modules():
        if not isinstance(module, torch.nn.Linear) or module is output:
            continue
        if "all-linear" in targets or any(name == t or name.endswith("." + t) for t in targets):
            count += r * (module.in_features + module.out_features)
    for name, param in model.named_parameters():
        if param.dim() == 3 and any(name.endswith(t) for t in target_parameters or ()):
            count += param.shape[0] * r * (param.shape[1] + param.shape[2])
    return count


def sharded(grpo) -> bool:
    """Whether the weights are sharded over the processes (FSDP, or DeepSpeed ZeRO stage 3)."""
    env = os.environ
    if env.get("ACCELERATE_USE_FSDP", "").lower() == "true" or getattr(grpo, "fsdp", None):
        return True
    deepspeed = env.get("ACCELERATE_USE_DEEPSPEED", "").lower() == "true"
    return deepspeed and env.get("ACCELERATE_DEEPSPEED_ZERO_STAGE") == "3"


def estimate_memory(config, *, dtype: str | None, lora_r: int | None, target_modules=None, target_parameters=None,
                    per_device_batch: int = 1, completion_tokens: int = 8192, generation_batch: int = 1,
                    gradient_checkpointing: bool = True, shards: int = 1, vllm: bool = False) -> MemoryEstimate:
    """Bytes per GPU of training `config`'s model with this plan (see the module docstring);
    `vllm`: generation runs on vLLM (server or colocate), which gets merged weights each step."""
    model = _meta_model(config)
    parameters = sum(p.numel() for p in model.parameters())
    dtype = dtype if dtype in BYTES else str(getattr(config, "dtype", None) or "float32").removeprefix("torch.")
    size = BYTES.get(dtype, 4)
    trainable = lora_parameters(model, lora_r, target_modules, target_parameters) if lora_r else parameters
    text = _text_config(config)
    hidden, layers = text.hidden_size, text.num_hidden_layers
    tokens = per_device_batch * (completion_tokens + PROMPT_TOKENS)
    per_layer = 17 * hidden * size          # ~34 x hidden bytes a token at 16 bits
    if gradient_checkpointing:
        activations = tokens * (layers * hidden * size + per_layer)
    else:
        activations = tokens * layers * per_layer
    logits = tokens * text.vocab_size * (size + 4)
    full = sum(t == "full_attention" for t in getattr(text, "layer_types", None) or ()) or layers
    kv_heads = getattr(text, "num_key_value_heads", None) or text.num_attention_heads
    head_dim = getattr(text, "head_dim", None) or hidden // text.num_attention_heads
    generation = 0 if vllm else \
        generation_batch * (completion_tokens + PROMPT_TOKENS) * full * 2 * kv_heads * head_dim * size
    full_weights = parameters * size if lora_r else parameters * (size + 4 + 8)   # full fine-tune: grads + AdamW
    # DeepSpeed gathers each weight into a new whole tensor beside the process's own shard
    sync = parameters * size if vllm and lora_r and shards > 1 else 0.0
    return MemoryEstimate(parameters, trainable, dtype, shards, full_weights / shards,
                          trainable * 16 / (shards if not lora_r else 1), activations, logits, generation, sync)


def gpu_memory_bytes(local_rank: int = 0) -> int | None:
    """The memory of this process's GPU (None without CUDA)."""
    import torch

    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(local_rank % torch.cuda.device_count()).total_memory


def preflight(args, grpo, model_args, processes: int, local_rank: int = 0) -> MemoryEstimate:
    """Estimate the plan's memory per GPU from the model's config (no weights read) and refuse a
    plan that cannot fit (`args.gpu_memory_gib`, else the GPU's own memory; nothing to refuse on
    CPU without it). In vLLM's colocate mode the trainer plans against what vLLM leaves."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(model_args.model_name_or_path, revision=model_args.model_revision)
    except OSError as e:
        raise ConfigError(f"cannot read the config of {model_args.model_name_or_path!r}: {e}. Give a local folder, "
                          "a cached hub id, or `tiny: true`") from e
    shards = processes if sharded(grpo) else 1
    estimate = estimate_memory(
        config, dtype=model_args.dtype, lora_r=model_args.lora_r if model_args.use_peft else None,
        target_modules=model_args.lora_target_modules, target_parameters=model_args.lora_target_parameters,
        per_device_batch=grpo.per_device_train_batch_size, completion_tokens=grpo.max_completion_length,
        generation_batch=grpo.generation_batch_size // max(1, processes),
        gradient_checkpointing=bool(grpo.gradient_checkpointing), shards=shards, vllm=bool(grpo.use_vllm))
    limit = args.gpu_memory_gib * GIB if args.gpu_memory_gib else gpu_memory_bytes(local_rank)
    if limit is not None and grpo.use_vllm and grpo.vllm_mode == "colocate":
        limit = _colocated(estimate, grpo, limit)
    if limit is not None and estimate.total > limit:
        fixes = ["shard the weights over several GPUs (the multi-GPU accelerate config, ZeRO-3)"] \
            if shards == 1 and not estimate.sync else []
        fixes += ["use GPUs that hold the whole bf16 model (TRL merges the LoRA into gathered weights for vLLM), "
                  "or generate without vLLM"] if estimate.sync else []
        fixes += ["turn on gradient_checkpointing"] if not grpo.gradient_checkpointing else []
        fixes += ["lower max_completion_length or per_device_train_batch_size", "use a larger GPU"]
        where = " (what vLLM's colocated share leaves)" if grpo.use_vllm and grpo.vllm_mode == "colocate" else ""
        raise ConfigError(f"this plan needs {estimate.describe()}, more than the {limit / GIB:.1f} GiB a GPU "
                          f"has{where}: " + "; or ".join(fixes))
    return estimate


def _colocated(estimate: MemoryEstimate, grpo, limit: float) -> float:
    """What a colocated vLLM leaves the trainer of a GPU of `limit` bytes, after checking that its
    share holds its copy of the weights (in the policy's dtype, split over tensor parallelism)."""
    share = grpo.vllm_gpu_memory_utilization * limit
    weights = estimate.parameters * BYTES.get(estimate.dtype, 2) / max(1, grpo.vllm_tensor_parallel_size)
    if weights * 1.1 > share:
        raise ConfigError(f"vllm_mode colocate: vllm_gpu_memory_utilization {grpo.vllm_gpu_memory_utilization:g} "
                          f"gives vLLM {share / GIB:.1f} GiB of the GPU, less than its copy of the weights "
                          f"({weights / GIB:.1f} GiB at vllm_tensor_parallel_size {grpo.vllm_tensor_parallel_size}) "
                          "and a cache: raise vllm_gpu_memory_utilization or vllm_tensor_parallel_size, or serve "
                          "generation on its own GPUs (vllm_mode server)")
    return limit - share
