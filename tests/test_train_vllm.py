"""The vLLM training configs: each loads through the settings loader with every key known, and
the memory preflight passes the plan its header states (and refuses the plans it says do not
fit). vLLM is not installed here: only the trainer built on it is skipped."""

from __future__ import annotations

import pytest
import yaml

from brushwork.errors import ConfigError
from brushwork.train.config import CONFIG_DIR, parse

VLLM_CONFIGS = [p for p in sorted(CONFIG_DIR.glob("*.yaml")) if yaml.safe_load(p.read_text()).get("use_vllm")]
H100, H200 = "74.5", "131"       # GiB a GPU gives a plan, as the node plans count them


@pytest.fixture(scope="module")
def config_only(tmp_path_factory):
    """Model configs and nothing else (no weights: a plan that got past the preflight would fail
    on the missing files). The 35B-A3B is transformers' default Qwen3.5 MoE; the dense default
    is a 9B-sized Qwen3.5, larger than the 4B the colocate config trains."""
    from transformers import Qwen3_5Config, Qwen3_5MoeConfig

    folders = {}
    for name, config in (("moe", Qwen3_5MoeConfig(architectures=["Qwen3_5MoeForConditionalGeneration"])),
                         ("dense", Qwen3_5Config(architectures=["Qwen3_5ForConditionalGeneration"]))):
        folders[name] = tmp_path_factory.mktemp(name)
        config.save_pretrained(folders[name])
    return folders


def _preflight(config: str, folder, monkeypatch, *overrides, processes=1, zero3=False):
    from brushwork.train.memory import preflight

    for key in ("ACCELERATE_USE_DEEPSPEED", "ACCELERATE_DEEPSPEED_ZERO_STAGE"):   # parse would look for DeepSpeed
        monkeypatch.delenv(key, raising=False)
    args, grpo, model_args = parse(["--config", config, "--model_name_or_path", str(folder),
                                    "--gradient_checkpointing", "true", "--activation_checkpointing", "true",
                                    *overrides], cpu=True)   # as on a GPU (cpu=True turns both off)
    if zero3:   # what `accelerate launch` with the ZeRO-3 config tells each process
        monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "3")
    return preflight(args, grpo, model_args, processes)


@pytest.mark.parametrize("config", VLLM_CONFIGS, ids=lambda p: p.stem)
def test_a_vllm_config_loads_with_every_key_known(config):
    args, grpo, model_args = parse(["--config", str(config)], cpu=True)
    assert grpo.use_vllm and grpo.vllm_mode in ("server", "colocate") and model_args.use_peft
    assert not args.multi_turn and args.rollouts_per_step == grpo.num_generations == 8
    if grpo.vllm_mode == "server":
        assert grpo.vllm_server_base_url.endswith(":8003")    # the node plans' policy port
    else:
        assert 0 < grpo.vllm_gpu_memory_utilization < 0.5 and grpo.vllm_tensor_parallel_size == 1
        assert grpo.vllm_max_model_length >= grpo.max_completion_length + 1024


def test_vllm_configs_exist():
    assert {p.stem for p in VLLM_CONFIGS} == {"qwen3.5-4b-vllm-colocate", "qwen3.5-35b-a3b-vllm-server"}


@pytest.mark.slow
def test_colocate_plans_against_what_vllm_leaves(config_only, monkeypatch):
    fits = _preflight("qwen3.5-4b-vllm-colocate", config_only["dense"], monkeypatch, "--gpu_memory_gib", H100)
    assert fits.generation == 0 and fits.sync == 0                # the KV cache is vLLM's, the merge in place
    assert fits.total < (1 - 0.3) * float(H100) * 2 ** 30
    with pytest.raises(ConfigError, match="vllm_gpu_memory_utilization 0.05 gives vLLM 3.7 GiB"):
        _preflight("qwen3.5-4b-vllm-colocate", config_only["dense"], monkeypatch, "--gpu_memory_gib", H100,
                   "--vllm_gpu_memory_utilization", "0.05")
    with pytest.raises(ConfigError, match="what vLLM's colocated share leaves"):
        _preflight("qwen3.5-4b-vllm-colocate", config_only["dense"], monkeypatch, "--gpu_memory_gib", H100,
                   "--vllm_gpu_memory_utilization", "0.9")


@pytest.mark.slow
def test_server_mode_fits_one_h200_and_a_sharded_lora_sync_needs_the_whole_model(config_only, monkeypatch):
    one = _preflight("qwen3.5-35b-a3b-vllm-server", config_only["moe"], monkeypatch, "--gpu_memory_gib", H200)
    plain = _preflight("qwen3.5-35b-a3b-judge-led", config_only["moe"], monkeypatch, "--gpu_memory_gib", H200)
    assert one.generation == 0 < plain.generation and one.total < plain.total
    with pytest.raises(ConfigError, match="whole model gathered") as caught:      # 4 x H100 under ZeRO-3
        _preflight("qwen3.5-35b-a3b-vllm-server", config_only["moe"], monkeypatch, "--gpu_memory_gib", H100,
                   processes=4, zero3=True)
    assert "hold the whole bf16 model" in str(caught.value)
    sharded = _preflight("qwen3.5-35b-a3b-vllm-server", config_only["moe"], monkeypatch, "--gpu_memory_gib", H200,
                         processes=4, zero3=True)
    assert sharded.sync == sharded.parameters * 2 and sharded.total > 90 * 2 ** 30
    without = _preflight("qwen3.5-35b-a3b-judge-led", config_only["moe"], monkeypatch, "--gpu_memory_gib", H100,
                         processes=4, zero3=True)
    assert without.sync == 0          # no vLLM: nothing is gathered, ZeRO-3 fits the H100s


@pytest.mark.slow
def test_the_colocated_trainer_starts_on_vllm(tmp_path):
    """Only where vLLM is installed (a GPU machine): GRPOTrainer builds its colocated engine."""
    pytest.importorskip("vllm")
    import torch

    if not torch.cuda.is_available():
        pytest.skip("vLLM's colocate mode needs a GPU")
    from datasets import Dataset
    from trl import GRPOTrainer

    from brushwork.train.policy import load_policy, lora_config
    from brushwork.train.tiny import TinySpec, build_tiny

    folder = build_tiny(TinySpec(), tmp_path / "tiny")
    _, grpo, model_args = parse(["--config", "qwen3.5-4b-vllm-colocate", "--model_name_or_path", str(folder),
                                 "--output_dir", str(tmp_path / "run"), "--max_steps", "1", "--sft_samples", "0",
                                 "--max_completion_length", "16", "--vllm_max_model_length", "1024",
                                 "--report_to", "none", "--save_strategy", "no"])
    model, tokenizer = load_policy(str(folder), dtype=model_args.dtype)
    trainer = GRPOTrainer(model=model, reward_funcs=[lambda completions, **kw: [0.0] * len(completions)], args=grpo,
                          train_dataset=Dataset.from_list([{"prompt": "Paint."}] * 8), processing_class=tokenizer,
                          peft_config=lora_config(model_args))
    assert trainer.use_vllm and trainer.vllm_generation is not None
