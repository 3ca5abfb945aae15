"""Tiny local stand-ins for the models the GPU configs name, built from configs (no download).

Each stand-in has the architecture class of the real model (multimodal Qwen3.5, dense or
mixture of experts: hybrid linear/full attention, a vision tower, fused 3-D routed experts)
at a few hundred thousand parameters, saved with a locally trained BPE tokenizer, so the
configs' loading, LoRA and adapter paths run on CPU in seconds. `STANDINS` maps each real
hub id to its builder: a config that names a model without a stand-in fails its tests.
"""

from __future__ import annotations

from pathlib import Path

# The real Qwen tokenizer has these; the multimodal config points its image/video ids at them.
VISION_TOKENS = ("<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>")


def standin_tokenizer():
    """The tiny recipe's BPE (ChatML template) plus Qwen's vision placeholder tokens."""
    from brushwork.train.tiny import TinySpec, train_tokenizer

    tokenizer = train_tokenizer(TinySpec(corpus_sketches=40))
    tokenizer.add_tokens(list(VISION_TOKENS), special_tokens=True)
    return tokenizer


def _text_config(tokenizer, **extra) -> dict:
    # One layer of each kind the real models interleave (3 linear-attention : 1 full-attention);
    # rotary dim = head_dim * 0.25 = 8, so the multimodal rope sections sum to 4.
    return dict(vocab_size=len(tokenizer), hidden_size=64, num_hidden_layers=2,
                layer_types=["linear_attention", "full_attention"], num_attention_heads=2,
                num_key_value_heads=1, head_dim=32, linear_num_key_heads=2, linear_num_value_heads=4,
                linear_key_head_dim=16, linear_value_head_dim=16, max_position_embeddings=1024,
                rope_parameters={"rope_type": "default", "rope_theta": 10_000.0, "partial_rotary_factor": 0.25,
                                 "mrope_section": [2, 1, 1], "mrope_interleaved": True},
                pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, **extra)


def _multimodal_kwargs(tokenizer, architecture: str) -> dict:
    ids = tokenizer.convert_tokens_to_ids(list(VISION_TOKENS))
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, patch_size=8,
                  num_position_embeddings=64, out_hidden_size=64)
    return dict(vision_config=vision, architectures=[architecture], vision_start_token_id=ids[0],
                vision_end_token_id=ids[1], image_token_id=ids[2], video_token_id=ids[3])


def _save(model, tokenizer, out: Path) -> Path:
    out = Path(out)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def build_moe_standin(out: Path, tokenizer) -> Path:
    """Qwen3_5MoeForConditionalGeneration, the class of Qwen/Qwen3.5-35B-A3B: 4 routed experts
    (top 2) plus a shared expert per layer."""
    import torch
    from transformers import Qwen3_5MoeConfig, Qwen3_5MoeForConditionalGeneration

    text = _text_config(tokenizer, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                        shared_expert_intermediate_size=32)
    config = Qwen3_5MoeConfig(text_config=text, **_multimodal_kwargs(tokenizer, "Qwen3_5MoeForConditionalGeneration"))
    torch.manual_seed(0)
    return _save(Qwen3_5MoeForConditionalGeneration(config), tokenizer, out)


def build_dense_standin(out: Path, tokenizer) -> Path:
    """Qwen3_5ForConditionalGeneration, the class of Qwen/Qwen3.5-4B."""
    import torch
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

    config = Qwen3_5Config(text_config=_text_config(tokenizer, intermediate_size=128),
                           **_multimodal_kwargs(tokenizer, "Qwen3_5ForConditionalGeneration"))
    torch.manual_seed(0)
    return _save(Qwen3_5ForConditionalGeneration(config), tokenizer, out)


# Real hub id (as the config files name it) -> (builder, the class the real config names).
STANDINS = {
    "Qwen/Qwen3.5-35B-A3B": (build_moe_standin, "Qwen3_5MoeForConditionalGeneration"),
    "Qwen/Qwen3.5-4B": (build_dense_standin, "Qwen3_5ForConditionalGeneration"),
}
