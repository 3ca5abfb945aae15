"""The training configs: every file parses into the recipe's settings, and each GPU config's
model loads with its own architecture class, takes its LoRA, round-trips its adapter and is
driven by text prompts. The real weights are never downloaded here: tiny local stand-ins of
the same classes (tests/standins.py) take their place through `--model_name_or_path`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from standins import STANDINS, standin_tokenizer

from brushwork.errors import ConfigError
from brushwork.score.reward import PRESETS
from brushwork.train.config import CONFIG_DIR, parse

CONFIGS = sorted(CONFIG_DIR.glob("*.yaml"))
GPU_CONFIGS = [p for p in CONFIGS if not yaml.safe_load(p.read_text()).get("tiny")]
MOE_CONFIG = CONFIG_DIR / "qwen3.5-35b-a3b-judge-led.yaml"
EXPERTS = ["mlp.experts.gate_up_proj", "mlp.experts.down_proj"]

# The public recipe's GRPO settings as corrected (TRL's defaults differ on each).
RECIPE = {"learning_rate": 5e-5, "lr_scheduler_type": "constant_with_warmup", "warmup_steps": 5,
          "scale_rewards": "none", "num_generations": 8, "top_p": 0.95, "top_k": 20,
          "chat_template_kwargs": {"enable_thinking": False}}
RECIPE_LORA = {"use_peft": True, "lora_r": 16, "lora_alpha": 32, "lora_dropout": 0.0,
               "lora_target_modules": "all-linear"}


def _name(path: Path) -> str:
    return path.name


def _model_id(config: Path) -> str:
    return yaml.safe_load(config.read_text())["model_name_or_path"]


# --- the files themselves ---------------------------------------------------------------


def test_a_bundled_config_is_found_by_name_or_by_path():
    by_name = parse(["--config", "tiny-cpu"])
    by_path = parse(["--config", str(CONFIG_DIR / "tiny-cpu.yaml")])
    assert by_name[0] == by_path[0] and by_name[0].tiny
    with pytest.raises(ConfigError, match="tiny-cpu-multiturn") as e:
        parse(["--config", "tiny-gpu"])
    assert "no such file and no bundled config" in str(e.value)


def test_configs_exist():
    assert GPU_CONFIGS and MOE_CONFIG in GPU_CONFIGS
    assert len(CONFIGS) > len(GPU_CONFIGS), "the tiny CPU config is missing"


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_file_starts_with_its_command(config):
    first = config.read_text().splitlines()[0]
    command = f"# brushwork train --config {config.stem}"
    assert first == command or first.startswith(command + " "), first


@pytest.mark.parametrize("config", GPU_CONFIGS, ids=_name)
def test_gpu_config_carries_the_recipe(config):
    args, grpo, model_args = parse(["--config", str(config)], cpu=True)
    assert not args.tiny
    for key, value in RECIPE.items():
        assert getattr(grpo, key) == value, key
    for key, value in RECIPE_LORA.items():
        assert getattr(model_args, key) == value, key
    assert not grpo.bf16 and not grpo.gradient_checkpointing, "cpu=True must override the file"
    assert model_args.model_name_or_path == _model_id(config)


@pytest.mark.parametrize("config", GPU_CONFIGS, ids=_name)
def test_gpu_config_names_a_model_with_a_standin(config):
    """Renaming the model in a config without adding its stand-in fails here."""
    assert _model_id(config) in STANDINS, f"add a stand-in for {_model_id(config)} to tests/standins.py"


def test_tiny_cpu_config_parses():
    args, grpo, model_args = parse(["--config", str(CONFIG_DIR / "tiny-cpu.yaml")], cpu=True)
    assert args.tiny and grpo.use_cpu and not grpo.bf16
    assert grpo.num_generations == 8 and grpo.scale_rewards == "none"
    assert model_args.use_peft and model_args.lora_target_modules == "all-linear"


def test_command_line_beats_the_file():
    _, grpo, _ = parse(["--config", str(MOE_CONFIG), "--learning_rate", "1e-5"], cpu=True)
    assert grpo.learning_rate == 1e-5


def test_unknown_key_in_a_file_is_a_config_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(MOE_CONFIG.read_text() + "\nlearnig_rate: 1.0e-5\n")
    with pytest.raises(ConfigError, match=r"unknown key learnig_rate \(did you mean learning_rate\?\)"):
        parse(["--config", str(bad)], cpu=True)


@pytest.mark.parametrize(("written", "args", "message"), [
    ("max_steps: many\n", [], r"max_steps \(in .*bad.yaml\) must be a whole number \(int\), got 'many'"),
    ("bf16: maybe\n", [], r"bf16 \(in .*\) must be true or false \(bool\), or null, got 'maybe'"),
    ("", ["--max_stepz", "4"], r"unknown --max_stepz \(did you mean --max_steps\?\): not a brushwork or TRL key"),
    ("", ["--max_steps", "many"], r"--max_steps.*invalid int value: 'many'"),
    ("workers: many\n", [], r"workers \(in .*\) must be a whole number \(int\), got 'many'"),
    ("", ["--sft_epochs", "0"], r"--sft_epochs must be > 0, got 0"),
])
def test_a_mistyped_or_badly_typed_key_is_refused_by_name(tmp_path, written, args, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text("tiny: true\n" + written)
    with pytest.raises(ConfigError, match=message):
        parse(["--config", str(bad), *args], cpu=True)


def test_trl_keys_written_as_a_person_would_are_read(tmp_path):
    """The legal twins: a single value for a list (TRL's command line takes one too), a number as text."""
    good = tmp_path / "good.yaml"
    good.write_text("tiny: true\nmax_steps: '4'\nlora_target_modules: all-linear\nreport_to: tensorboard\n"
                    "bf16: null\nworkers: '1'\n")
    args, grpo, model_args = parse(["--config", str(good), "--sft_epochs", "2", "--max_steps", "5"], cpu=True)
    assert (grpo.max_steps, model_args.lora_target_modules, args.workers, args.sft_epochs) == (5, "all-linear", 1, 2.0)


def test_bad_preset_names_the_choices():
    with pytest.raises(ConfigError) as caught:
        parse(["--config", str(MOE_CONFIG), "--preset", "loudest"], cpu=True)
    assert "loudest" in str(caught.value)
    assert all(preset in str(caught.value) for preset in PRESETS)


# --- the GPU configs' models, on stand-ins ---------------------------------------------


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    """model id -> a folder holding its stand-in (built once per module)."""
    tokenizer = standin_tokenizer()
    built = {}

    def get(model_id: str) -> Path:
        if model_id not in built:
            builder, _ = STANDINS[model_id]
            built[model_id] = builder(tmp_path_factory.mktemp("standin"), tokenizer)
        return built[model_id]

    return get


def _policy(config: Path, folder: Path, *overrides: str):
    """What `brushwork train` does with a config: parse, load the policy, wrap it in its LoRA."""
    from peft import get_peft_model

    from brushwork.train.policy import load_policy, lora_config

    _, _, model_args = parse(["--config", str(config), "--model_name_or_path", str(folder), *overrides], cpu=True)
    model, tokenizer = load_policy(model_args.model_name_or_path, model_args.model_revision, model_args.dtype,
                                   model_args.attn_implementation)
    return model_args, get_peft_model(model, lora_config(model_args)), tokenizer


def _trained(peft_model, out: Path) -> Path:
    """Give the adapter non-zero B matrices (as training would) and save it, so whether it
    loads shows in its values and in the logits."""
    import torch

    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.normal_(std=0.05)
    peft_model.save_pretrained(out)
    return out


def _missed(adapter: Path, peft_model) -> list[str]:
    """Tensors of the saved adapter that did not arrive in `peft_model` with their values."""
    import torch
    from peft import get_peft_model_state_dict
    from safetensors.torch import load_file

    saved = load_file(adapter / "adapter_model.safetensors")
    loaded = get_peft_model_state_dict(peft_model)
    return sorted(k for k, v in saved.items() if k not in loaded or not torch.equal(v, loaded[k].to(v.dtype)))


@dataclass
class Adapted:
    config: Path
    folder: Path
    architecture: str
    model_args: object
    peft_model: object
    tokenizer: object
    adapter: Path


@pytest.fixture(scope="module", params=GPU_CONFIGS, ids=_name)
def adapted(request, standin, tmp_path_factory):
    config = request.param
    folder = standin(_model_id(config))
    model_args, peft_model, tokenizer = _policy(config, folder)
    adapter = _trained(peft_model, tmp_path_factory.mktemp("adapter"))
    return Adapted(config, folder, STANDINS[_model_id(config)][1], model_args, peft_model, tokenizer, adapter)


@pytest.mark.slow
def test_policy_loads_with_the_class_its_config_names(adapted):
    import transformers

    from brushwork.train.policy import adapter_coverage

    base = adapted.peft_model.get_base_model()
    assert isinstance(base, getattr(transformers, adapted.architecture))
    assert not type(base).__name__.endswith("ForCausalLM")
    coverage = adapter_coverage(adapted.peft_model)
    assert coverage.modules > 0 and 0 < coverage.trainable < coverage.total
    names = [n for n, _ in adapted.peft_model.named_parameters() if "lora_A" in n]
    assert any(".language_model.layers.0.linear_attn." in n for n in names), "linear attention not adapted"
    assert any(".language_model.layers.1.self_attn." in n for n in names), "full attention not adapted"


@pytest.mark.slow
def test_adapter_round_trips_through_load_policy(adapted):
    from peft import PeftModel

    from brushwork.train.policy import load_policy

    base, _ = load_policy(str(adapted.folder), dtype=adapted.model_args.dtype)
    reloaded = PeftModel.from_pretrained(base, adapted.adapter)
    assert _missed(adapted.adapter, reloaded) == []


@pytest.mark.slow
def test_causal_lm_class_silently_misses_the_adapter(adapted):
    """Measured with transformers 5.24 / peft 0.21: AutoModelForCausalLM gives the
    text-only *ForCausalLM (vision tower dropped, `model.language_model.*` renamed to
    `model.*`), and PEFT loads none of the adapter's tensors: no error, only a warning."""
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    causal = AutoModelForCausalLM.from_pretrained(adapted.folder)
    assert type(causal).__name__.endswith("ForCausalLM")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reloaded = PeftModel.from_pretrained(causal, adapted.adapter)
    missed = _missed(adapted.adapter, reloaded)
    assert missed, "the causal-LM class now loads the whole adapter: update brushwork.train.policy"
    # Measured: none of them arrives (the vision tower is gone and the text keys are renamed).
    assert len(missed) == len(load_file(adapted.adapter / "adapter_model.safetensors"))
    assert any("missing adapter keys" in str(w.message) for w in caught)


@pytest.mark.slow
def test_peft_policy_is_driven_by_a_text_chat_prompt(adapted):
    import torch

    from brushwork.env.tasks import make_task
    from brushwork.train.policy import sample_replies

    # The task's user turn only: its ~1,300-token system prompt makes the bf16 CPU reference
    # kernel of linear attention take seconds without testing anything more.
    messages = [{"role": "user", "content": make_task(0).user}]
    batch = adapted.tokenizer.apply_chat_template(messages, add_generation_prompt=True, enable_thinking=False,
                                                  return_dict=True, return_tensors="pt")
    model = adapted.peft_model
    with torch.no_grad():
        logits = model(**batch).logits
        with model.disable_adapter():
            base_logits = model(**batch).logits
    vocab = model.get_base_model().config.text_config.vocab_size
    assert logits.shape == (1, batch["input_ids"].shape[1], vocab)
    assert torch.isfinite(logits).all()
    assert not torch.equal(logits, base_logits), "the adapter does not act on the text path"
    replies = sample_replies(model, adapted.tokenizer, [messages], samples=2, max_new_tokens=4)
    assert len(replies) == 1 and len(replies[0]) == 2


@pytest.mark.slow
def test_routed_experts_need_target_parameters(standin, tmp_path):
    """`all-linear` adapts the shared expert but leaves the fused 3-D routed experts
    frozen; `--lora_target_parameters` reaches them, and that adapter round-trips too."""
    from peft import PeftModel
    from peft.tuners.lora import ParamWrapper

    from brushwork.train.policy import adapter_coverage, load_policy

    folder = standin(_model_id(MOE_CONFIG))
    _, linear, _ = _policy(MOE_CONFIG, folder)
    layers = linear.get_base_model().config.text_config.num_hidden_layers
    lora = [n for n, _ in linear.named_parameters() if "lora_" in n]
    assert not [n for n in lora if ".mlp.experts." in n]
    assert any(".mlp.shared_expert." in n for n in lora)
    frozen = [n for n, p in linear.named_parameters() if n.endswith(tuple(EXPERTS))]
    assert len(frozen) == 2 * layers and not any(p.requires_grad for n, p in linear.named_parameters()
                                                 if n in frozen)
    coverage = adapter_coverage(linear)
    assert coverage.parameters == 0

    model_args, experts, _ = _policy(MOE_CONFIG, folder, "--lora_target_parameters", *EXPERTS)
    assert model_args.lora_target_parameters == EXPERTS
    wrapped = {(n.split(".mlp.")[0], m.parameter_name) for n, m in experts.named_modules()
               if isinstance(m, ParamWrapper)}
    assert len(wrapped) == 2 * layers and {p for _, p in wrapped} == {"gate_up_proj", "down_proj"}
    wider = adapter_coverage(experts)
    assert wider.parameters == 2 * layers
    assert wider.modules == coverage.modules + 2 * layers and wider.trainable > coverage.trainable

    adapter = _trained(experts, tmp_path / "adapter")
    base, _ = load_policy(str(folder), dtype=model_args.dtype)
    assert _missed(adapter, PeftModel.from_pretrained(base, adapter)) == []


@pytest.mark.slow
def test_eval_loads_the_adapter_it_evaluates(adapted):
    from brushwork.eval.generate import load_generator

    policy, _ = load_generator(str(adapted.folder), str(adapted.adapter), device="cpu")
    assert _missed(adapted.adapter, policy) == []


def _length_reward(completions, **kwargs) -> list[float]:
    return [float(len(c[0]["content"])) for c in completions]


@pytest.mark.slow
@pytest.mark.parametrize("config", GPU_CONFIGS, ids=_name)
def test_one_grpo_step_with_the_configs_settings(config, standin, tmp_path):
    """GRPOTrainer takes the config's model class, GRPO settings and LoRA as `brushwork train`
    passes them (completions shortened to 8 tokens), and its saved adapter loads back whole."""
    from datasets import Dataset
    from peft import PeftModel
    from trl import GRPOTrainer

    from brushwork.env.tasks import make_task
    from brushwork.train.policy import load_policy, lora_config

    folder = standin(_model_id(config))
    _, grpo, model_args = parse(["--config", str(config), "--model_name_or_path", str(folder),
                                 "--output_dir", str(tmp_path), "--max_steps", "1", "--max_completion_length", "8",
                                 "--per_device_train_batch_size", "8", "--gradient_accumulation_steps", "1",
                                 "--report_to", "none", "--save_strategy", "no",
                                 "--use_vllm", "false"], cpu=True)   # vLLM's configs: tests/test_train_vllm.py
    model, tokenizer = load_policy(model_args.model_name_or_path, model_args.model_revision, model_args.dtype,
                                   model_args.attn_implementation)
    rows = [{"prompt": [{"role": "user", "content": make_task(i).user}]} for i in range(8)]
    trainer = GRPOTrainer(model=model, reward_funcs=[_length_reward], args=grpo, train_dataset=Dataset.from_list(rows),
                          processing_class=tokenizer, peft_config=lora_config(model_args))
    trainer.train()
    assert trainer.state.global_step == 1 and trainer.state.log_history[0]["grad_norm"] > 0
    trainer.save_model(str(tmp_path))
    base, _ = load_policy(str(folder), dtype=model_args.dtype)
    assert _missed(tmp_path, PeftModel.from_pretrained(base, tmp_path)) == []
