"""Image observations for multimodal policies: the painting reaches a vision-language policy.

A text-only policy's tool result is the critique alone; a vision-language one's is the
painting as an image block plus the same critique. The GRPO step runs TRL's real
`GRPOTrainer` through `brushwork.train.run.train` on the tiny Qwen3.5 stand-in
(`train/tiny_vl.py`: random weights, built from a config, nothing downloaded) with a real
Chromium render, and records what the model's forward passes receive: the image's
`<|image_pad|>` tokens in `input_ids` and its patches in the vision tower. The one fake is the
test_train_multiturn one: a sequence bias scripts the tool call an untrained model would not
write.
"""

from __future__ import annotations

import json

import pytest

from brushwork.painter import paint

# One wash (as tests/gate_cases.py's PAINT): a short sketch, because AutoTokenizer loads the
# stand-in's tokenizer as Qwen3_5Tokenizer, whose pre-tokenizer splits lines into words, so the
# tiny BPE's whole-line tokens go unused and a painter sketch would be ~2,000 tokens.
SHORT = """function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}
function draw() {
  translate(-width / 2, -height / 2);
  background("#f7f2e9");
  brush.noStroke();
  brush.fill("#e8607a", 190);
  brush.circle(300, 300, 120);
}"""


def _sketch(seed: int) -> str:
    return "\n".join(line for line in paint(seed, "peach hibiscus", jitter=0.0).code.split("\n")
                     if not line.startswith("//"))


@pytest.mark.chromium
def test_text_only_policy_gets_the_critique_alone_and_a_vl_policy_the_painting(example_pool):
    from PIL import Image

    from brushwork.score.options import ScoringOptions
    from brushwork.score.pipeline import Pipeline
    from brushwork.train.tool_env import BrushworkToolEnv

    with Pipeline(ScoringOptions(workers=2, render_timeout_s=30)) as pipeline:
        results = {}
        for images in (False, True):
            env = type("Env", (BrushworkToolEnv,), {"pipeline": pipeline, "images": images})()
            env.reset(seed=5, subject="a peach hibiscus", revisions=1)
            results[images] = env.submit_sketch(_sketch(5))
    text, blocks = results[False], results[True]
    assert isinstance(text, str) and "1 revision left" in text      # the critique, no image
    assert [b["type"] for b in blocks] == ["image", "text"] and blocks[1]["text"] == text
    assert isinstance(blocks[0]["image"], Image.Image) and min(blocks[0]["image"].size) >= 256


def test_stand_in_processor_turns_a_painting_into_image_tokens(tmp_path):
    from PIL import Image

    from brushwork.train.tiny_vl import build_tiny_vl, load_vl_processor

    processor = load_vl_processor(build_tiny_vl(tmp_path / "vl"))
    chat = [{"role": "user", "content": [{"type": "text", "text": "paint"}]},
            {"role": "assistant", "content": [{"type": "text", "text": ""}], "tool_calls": [
                {"type": "function", "function": {"name": "submit_sketch", "arguments": {"sketch": "x"}}}]},
            {"role": "tool", "name": "submit_sketch", "content": [
                {"type": "image", "image": Image.new("RGB", (512, 512), "red")}, {"type": "text", "text": "ok"}]}]
    out = processor.apply_chat_template(chat, add_generation_prompt=True, tokenize=True, return_dict=True)
    # 512x512 is downscaled to 64x64: 8x8 patches of 8 px, merged 2x2 -> 16 image tokens
    assert out["image_grid_thw"].tolist() == [[1, 8, 8]] and tuple(out["pixel_values"].shape) == (64, 3 * 2 * 8 * 8)
    assert sum(1 for t in out["input_ids"][0] if t == processor.image_token_id) == 16


def _script_bias(tokenizer, sketch: str) -> dict:
    text = (f"<tool_call>\n<function=submit_sketch>\n<parameter=sketch>\n{sketch}\n</parameter>\n</function>\n"
            "</tool_call><|im_end|>")
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return {"sequence_bias": [[ids[:i + 1], 40.0 * (i + 1)] for i in range(len(ids))]}


class _Recorder:
    """Wraps the stand-in's language model and vision tower to note what each forward gets."""

    def __init__(self, monkeypatch, image_token_id: int):
        from transformers.models.qwen3_5 import modeling_qwen3_5 as m

        self.calls, self.vision = [], []
        model_forward, vision_forward = m.Qwen3_5Model.forward, m.Qwen3_5VisionModel.forward

        def model(module, input_ids=None, *args, pixel_values=None, **kwargs):
            if input_ids is not None:
                self.calls.append({"image_tokens": int((input_ids == image_token_id).sum()),
                                   "pixel_values": None if pixel_values is None else tuple(pixel_values.shape),
                                   "grad": input_ids.shape[1] > 1 and __import__("torch").is_grad_enabled()})
            return model_forward(module, input_ids, *args, pixel_values=pixel_values, **kwargs)

        def vision(module, hidden_states, grid_thw, **kwargs):
            self.vision.append((tuple(hidden_states.shape), grid_thw.tolist()))
            return vision_forward(module, hidden_states, grid_thw, **kwargs)

        monkeypatch.setattr(m.Qwen3_5Model, "forward", model)
        monkeypatch.setattr(m.Qwen3_5VisionModel, "forward", vision)


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(600)
def test_one_multi_turn_grpo_step_shows_the_painting_to_a_vision_language_policy(example_pool, tmp_path, monkeypatch):
    from transformers import AutoTokenizer

    from brushwork.train.config import parse
    from brushwork.train.run import train
    from brushwork.train.tiny_vl import VISION_TOKENS, build_tiny_vl

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = build_tiny_vl(tmp_path / "tiny-vl")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    recorder = _Recorder(monkeypatch, tokenizer.convert_tokens_to_ids(VISION_TOKENS[2]))
    args = parse(["--config", "tiny-cpu-multiturn", "--tiny", "false", "--model_name_or_path",
                  str(folder), "--output_dir", str(tmp_path / "run"), "--sft_samples", "0", "--max_steps", "1",
                  "--num_generations", "2", "--rollouts_per_step", "2", "--per_device_train_batch_size", "2",
                  "--max_completion_length", "512",
                  "--report_to", "none", "--task_repeats", "1", "--workers", "2"], cpu=True)
    args[1].generation_kwargs = _script_bias(tokenizer, SHORT)
    result = train(*args)
    assert result.steps == 1
    log = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()][0]
    assert log["brushwork/tool_call_rate"] == 1.0 and log["brushwork/first_pass_rate"] == 1.0

    # each painting: 64x64 -> 64 patch rows of 3*2*8*8 values in the vision tower, 16 <|image_pad|> tokens
    seen = [c for c in recorder.calls if c["image_tokens"]]
    generation, training = [c for c in seen if not c["grad"]], [c for c in seen if c["grad"]]
    assert generation and training and all(c["image_tokens"] % 16 == 0 for c in seen), recorder.calls
    # generation after the tool result: transformers runs the vision tower first and passes its
    # features, not the pixels; the training forward (with gradients) gets the pixels themselves
    assert training[0]["pixel_values"] == (4 * training[0]["image_tokens"], 3 * 2 * 8 * 8)
    assert len(recorder.vision) >= 2, recorder.vision
    for rows, grid in recorder.vision:
        assert grid == [[1, 8, 8]] * len(grid) and rows == (64 * len(grid), 3 * 2 * 8 * 8)


def test_a_vision_language_policy_whose_processor_cannot_load_is_an_error_naming_the_fix(tmp_path):
    """A vision-language policy whose processor does not load would train blind (the critique
    without the painting): that is a SetupError naming torchvision, not a warning. Its twin, a
    text-only policy, needs no processor at all."""
    from types import SimpleNamespace

    from brushwork.errors import SetupError
    from brushwork.train.run import vision_processor

    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llava"}))
    vl = SimpleNamespace(config=SimpleNamespace(vision_config={"hidden_size": 8}, model_type="llava"))
    with pytest.raises(SetupError, match="torchvision") as e:
        vision_processor(vl, str(tmp_path))
    assert str(tmp_path) in str(e.value) and "text-only" in str(e.value)
    text_only = SimpleNamespace(config=SimpleNamespace(vision_config=None, model_type="qwen3"))
    assert vision_processor(text_only, str(tmp_path)) is None
