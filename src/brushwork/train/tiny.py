"""A tiny policy that trains on 2 CPU cores, built locally with no download.

`build_tiny(spec, out)` trains a byte-level BPE tokenizer on sketches from the procedural
painter and the environment's task prompts, wraps it in a `PreTrainedTokenizerFast` with
Qwen3's chat template, and initialises a small Qwen3-architecture model from a config. The
tokenizer splits only at line ends, so a line the painter writes often becomes one token: a
sketch is ~240 tokens and a system prompt ~150, which is what makes GRPO on CPU take
seconds per step. The chat template is one TRL ships and recognises: Qwen3's for single-turn
runs, Qwen3.5's (no thinking) for multi-turn ones (`chat_template="qwen3.5"`), which writes a
tool call's arguments as raw text (`<parameter=sketch>` + the code), not as escaped JSON, so a
sketch inside a tool call tokenizes as compactly as a sketch in a reply, and the tiny model
calls `submit_sketch` the way the Qwen3.5 GPU models do.
`warmup_rows` are the supervised pairs (task prompt -> a procedural sketch of that subject)
that teach it to write sketches that pass the gate.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from brushwork.env.tasks import make_task, sample_rows
from brushwork.errors import ConfigError
from brushwork.painter import paint, subject_for

SPECIAL = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
# Qwen3's markup words, one token each as in Qwen's own vocabulary.
MARKUP = ("<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>")


TEMPLATES = {"qwen3": "qwen3.jinja", "qwen3.5": "qwen3_5_nothink.jinja"}


def chat_template(name: str = "qwen3") -> str:
    """A chat template as TRL ships it (byte-identical, so TRL knows how to parse its tool
    calls): "qwen3" (ChatML with thinking and JSON tool calls) or "qwen3.5" (thinking off by
    default, tool-call arguments as raw text)."""
    from importlib import resources

    return resources.files("trl").joinpath(f"chat_templates/{TEMPLATES[name]}").read_text(encoding="utf-8")


@dataclass(frozen=True)
class TinySpec:
    """The tiny model's shape and the corpus its tokenizer learns from."""

    vocab_size: int = field(default=4096, metadata={"help": "BPE vocabulary size (special tokens included)"})
    hidden_size: int = field(default=128, metadata={"help": "width of the Qwen3 model"})
    layers: int = field(default=4, metadata={"help": "transformer layers"})
    heads: int = field(default=4, metadata={"help": "attention heads (head_dim = hidden_size / heads)"})
    kv_heads: int = field(default=2, metadata={"help": "key/value heads (grouped-query attention)"})
    intermediate_size: int = field(default=384, metadata={"help": "MLP width"})
    max_positions: int = field(default=2048, metadata={"help": "longest prompt + completion in tokens"})
    corpus_sketches: int = field(default=600, metadata={"help": "procedural sketches the tokenizer learns from"})
    seed: int = field(default=0, metadata={"help": "seed of the corpus and the initial weights"})
    chat_template: str = field(default="qwen3", metadata={
        "help": "qwen3 (single-turn runs) or qwen3.5 (multi-turn: tool calls with raw-text arguments)"})

    def __post_init__(self):
        if self.chat_template not in TEMPLATES:
            raise ConfigError(f"chat_template {self.chat_template!r}: choose one of {', '.join(TEMPLATES)}")
        if self.hidden_size % self.heads or self.heads % self.kv_heads:
            raise ConfigError(f"hidden_size ({self.hidden_size}) must divide by heads ({self.heads}) and heads by "
                              f"kv_heads ({self.kv_heads})")
        if self.vocab_size < 512:
            raise ConfigError(f"vocab_size {self.vocab_size} is too small for byte-level BPE: use 512 or more")

    @property
    def key(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:12]


def warmup_rows(count: int, seed: int = 0, domains: list[str] | None = None, jitter: float | None = 0.0) -> list[dict]:
    """`count` prompt-completion rows in TRL's conversational format: a task prompt and a
    fenced procedural sketch of the same subject. Colours come straight from the named
    palettes (`jitter=0`): a small model cannot copy six random hex digits reliably (in the
    first tiny run, 75 of 100 run-time errors were invalid colour strings); None keeps the
    painter's own jitter."""
    overrides = {} if jitter is None else {"jitter": jitter}
    rows = []
    for row in sample_rows(count, domains, seed):
        sketch = paint(row["seed"], subject_for(row["subject"]), **overrides).code
        rows.append({"prompt": row["prompt"],
                     "completion": [{"role": "assistant", "content": f"```js\n{sketch}\n```"}],
                     "subject": row["subject"], "seed": row["seed"]})
    return rows


def _corpus(spec: TinySpec) -> list[str]:
    texts = [f"```js\n{paint(spec.seed * 100_003 + i, jitter=0.0).code}\n```" for i in range(spec.corpus_sketches)]
    for i in range(64):
        task = make_task(spec.seed * 7919 + i)
        texts += [task.system, task.user]
    if spec.chat_template != "qwen3":
        texts += _tool_texts(spec)
    return texts


def _tool_texts(spec: TinySpec) -> list[str]:
    """Multi-turn markup rendered by the chat template (the tool list, tool calls, critiques),
    so the tokenizer learns it as a few tokens."""
    from transformers.utils.chat_template_utils import render_jinja_template

    from brushwork.train.revisions import sample_critiques
    from brushwork.train.tool_env import tool_schema

    texts = []
    for i, critique in enumerate(sample_critiques() * 8):
        task = make_task(spec.seed * 7919 + i)
        sketch = paint(spec.seed * 100_003 + i, jitter=0.0).code
        call = {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "submit_sketch", "arguments": {"sketch": sketch}}}]}
        chat = [*task.messages, call, {"role": "tool", "name": "submit_sketch", "content": critique},
                {"role": "assistant", "content": "Done."}]
        template = chat_template(spec.chat_template)
        texts += render_jinja_template([chat], tools=[tool_schema()], chat_template=template)[0]
    return texts


def train_tokenizer(spec: TinySpec):
    """A byte-level BPE over painter sketches and task prompts, as a transformers tokenizer."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\n"), "merged_with_previous"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=spec.vocab_size, special_tokens=list(SPECIAL), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_corpus(spec), trainer)
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=None, eos_token="<|im_end|>",
                                      pad_token="<|endoftext|>", unk_token=None,
                                      model_max_length=spec.max_positions)
    wrapped.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    wrapped.add_tokens(list(MARKUP))
    wrapped.chat_template = chat_template(spec.chat_template)
    return wrapped


def tiny_model(spec: TinySpec, tokenizer):
    """A freshly initialised Qwen3 causal LM of `spec`'s shape for `tokenizer`."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=spec.hidden_size,
                         intermediate_size=spec.intermediate_size, num_hidden_layers=spec.layers,
                         num_attention_heads=spec.heads, num_key_value_heads=spec.kv_heads,
                         head_dim=spec.hidden_size // spec.heads, max_position_embeddings=spec.max_positions,
                         tie_word_embeddings=True, pad_token_id=tokenizer.pad_token_id,
                         eos_token_id=tokenizer.eos_token_id, bos_token_id=None)
    torch.manual_seed(spec.seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def build_tiny(spec: TinySpec, out: Path) -> Path:
    """Tokenizer + model saved to `out` (loadable with `from_pretrained`); reused when `out`
    already holds this spec."""
    out = Path(out)
    stamp = out / "brushwork-tiny.json"
    if stamp.exists() and json.loads(stamp.read_text()).get("key") == spec.key:
        return out
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(spec)
    model = tiny_model(spec, tokenizer)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    stamp.write_text(json.dumps({"key": spec.key, "spec": asdict(spec),
                                 "parameters": sum(p.numel() for p in model.parameters())}, indent=2))
    return out
