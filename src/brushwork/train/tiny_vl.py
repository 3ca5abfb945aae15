"""A tiny local stand-in of the Qwen3.5 vision-language policy, built with no download.

Qwen3.5 models are multimodal (`Qwen3_5ForConditionalGeneration`): in multi-turn training the
painting reaches them as an image content block. `build_tiny_vl(out)` saves a stand-in of that
architecture with random weights — the hybrid linear/full-attention text model and a one-block
vision tower — together with the tiny recipe's BPE tokenizer (Qwen3.5's chat template, which
renders an image block as `<|vision_start|><|image_pad|><|vision_end|>`) and a processor
assembled from its parts (`vl_processor`): Qwen3.5's `AutoProcessor` would need torchvision
for its video half, which brushwork does not install; the PIL image processor and the video
processor's constructor do not. The image processor downscales every painting to at most
`max_pixels` (64×64 by default), so one painting is 16 image tokens for the tiny model
instead of ~1,000 for the real one. (Loaded back with `AutoTokenizer`, the tokenizer is a
`Qwen3_5Tokenizer`, whose pre-tokenizer splits lines into words: the tiny BPE's whole-line
tokens go unused, so a sketch is ~3 characters a token — fine for proving the image path, not
for training the stand-in.)
"""

from __future__ import annotations

from pathlib import Path

# Qwen's vision placeholder tokens; the config points its image/video ids at them.
VISION_TOKENS = ("<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>")
PATCH, MERGE, TEMPORAL = 8, 2, 2          # vision patch size, spatial merge, temporal patch
MAX_PIXELS = 64 * 64                      # a painting is downscaled to this: (64/8/2)^2 = 16 image tokens


def vl_tokenizer(corpus_sketches: int = 80):
    """The tiny multi-turn BPE (Qwen3.5 template) plus Qwen's vision placeholder tokens."""
    from brushwork.train.tiny import TinySpec, train_tokenizer

    tokenizer = train_tokenizer(TinySpec(corpus_sketches=corpus_sketches, chat_template="qwen3.5"))
    tokenizer.add_tokens(list(VISION_TOKENS), special_tokens=True)
    return tokenizer


def _processor_class():
    from transformers import Qwen3VLProcessor

    class StandInQwen3VLProcessor(Qwen3VLProcessor):
        """Qwen3VLProcessor whose class check accepts the video processor: without torchvision,
        transformers' video base class is a placeholder, so the stock check rejects any video
        processor (the painting is an image; no video is ever processed)."""

        def check_argument_for_proper_class(self, argument_name, argument):
            if argument_name == "video_processor":
                return type(argument)
            return super().check_argument_for_proper_class(argument_name, argument)

    return StandInQwen3VLProcessor


def vl_processor(tokenizer, image: dict | None = None, video: dict | None = None):
    """Qwen3.5's processor (`Qwen3VLProcessor`) from parts that need no torchvision: the PIL
    image processor and the video processor with `image` / `video` settings (the stand-in's
    when None)."""
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil
    from transformers.models.qwen3_vl.video_processing_qwen3_vl import Qwen3VLVideoProcessor

    shape = {"patch_size": PATCH, "merge_size": MERGE, "temporal_patch_size": TEMPORAL}
    image = image if image is not None else {**shape, "size": {"shortest_edge": (PATCH * MERGE) ** 2,
                                                               "longest_edge": MAX_PIXELS}}
    video = video if video is not None else shape
    drop = ("image_processor_type", "video_processor_type", "processor_class")
    images = Qwen2VLImageProcessorPil(**{k: v for k, v in image.items() if k not in drop})
    videos = Qwen3VLVideoProcessor(**{k: v for k, v in video.items() if k not in drop})
    return _processor_class()(image_processor=images, tokenizer=tokenizer, video_processor=videos,
                              chat_template=tokenizer.chat_template)


def vl_config(tokenizer):
    """A `Qwen3_5Config` a few hundred thousand parameters large: one linear-attention and one
    full-attention layer (the real models interleave them 3:1) and a one-block vision tower."""
    from transformers import Qwen3_5Config

    ids = tokenizer.convert_tokens_to_ids(list(VISION_TOKENS))
    # rotary dim = head_dim * 0.25 = 8, so the multimodal rope sections sum to 4
    text = dict(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                layer_types=["linear_attention", "full_attention"], num_attention_heads=2, num_key_value_heads=1,
                head_dim=32, linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=16,
                linear_value_head_dim=16, max_position_embeddings=4096,
                rope_parameters={"rope_type": "default", "rope_theta": 10_000.0, "partial_rotary_factor": 0.25,
                                 "mrope_section": [2, 1, 1], "mrope_interleaved": True},
                pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, patch_size=PATCH,
                  spatial_merge_size=MERGE, temporal_patch_size=TEMPORAL, num_position_embeddings=64,
                  out_hidden_size=64)
    return Qwen3_5Config(text_config=text, vision_config=vision, architectures=["Qwen3_5ForConditionalGeneration"],
                         vision_start_token_id=ids[0], vision_end_token_id=ids[1], image_token_id=ids[2],
                         video_token_id=ids[3])


def build_tiny_vl(out: Path, seed: int = 0) -> Path:
    """The stand-in (random weights) with its tokenizer and processor, saved to `out`."""
    import torch
    from transformers import Qwen3_5ForConditionalGeneration

    out = Path(out)
    tokenizer = vl_tokenizer()
    torch.manual_seed(seed)
    model = Qwen3_5ForConditionalGeneration(vl_config(tokenizer))
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    vl_processor(tokenizer).save_pretrained(out)   # the tokenizer, the image and video processors' settings
    return out


def load_vl_processor(model_path: str | Path):
    """A Qwen3-VL-style processor saved in a local folder (the stand-in's, or a downloaded
    Qwen3.5's), built from its parts so that no torchvision is needed."""
    import json

    from transformers import AutoTokenizer

    folder = Path(model_path)
    if (folder / "processor_config.json").exists():
        settings = json.loads((folder / "processor_config.json").read_text())
        image, video = settings.get("image_processor"), settings.get("video_processor")
    else:
        files = [folder / "preprocessor_config.json", folder / "video_preprocessor_config.json"]
        image, video = (json.loads(f.read_text()) if f.exists() else None for f in files)
    if image is None:
        from brushwork.errors import ConfigError

        raise ConfigError(f"{folder} holds no image processor settings (processor_config.json or "
                                "preprocessor_config.json)")
    return vl_processor(AutoTokenizer.from_pretrained(folder), image, video or {})
