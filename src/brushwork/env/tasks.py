"""Tasks: what the environment asks a model to paint, and the training dataset built from it.

A task is a system prompt (the sketch skeleton, the allowed brush methods with signatures,
coordinates, rules and a domain's composition guidance) and a user prompt naming a subject.
Domains and subjects are package data (`tasks/*.yaml`); the same seed always gives the same
task. `export_dataset` writes them as JSONL with a chat-format `prompt` column, which TRL
and `datasets.load_dataset("json", ...)` read directly. `check_pool_domains` says, loudly, which
of the tasks' domains a pool cannot judge from its own paintings (`brushwork serve` and
`brushwork train` call it at start).
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from brushwork.errors import ConfigError
from brushwork.gate.config import DEFAULT_ALLOWED
from brushwork.pool.coverage import coverage_problems


@dataclass(frozen=True)
class Domain:
    name: str
    composition: str
    prompts: tuple[str, ...]
    subjects: tuple[str, ...]


@dataclass(frozen=True)
class Task:
    """One painting task: the chat prompt, what it asks for and the seed that chose it."""

    domain: str
    subject: str
    system: str
    user: str
    seed: int

    @property
    def messages(self) -> list[dict]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    def to_row(self) -> dict:
        """A dataset row: `prompt` (chat messages) plus the columns a reward function receives."""
        return {"prompt": self.messages, "subject": self.subject, "domain": self.domain, "seed": self.seed}

    def to_dict(self) -> dict:
        return asdict(self)


@cache
def _library() -> dict:
    import yaml

    folder = resources.files("brushwork.env").joinpath("tasks")
    system = yaml.safe_load(folder.joinpath("system.yaml").read_text(encoding="utf-8"))
    domains = {}
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yaml") or entry.name == "system.yaml":
            continue
        data = yaml.safe_load(entry.read_text(encoding="utf-8"))
        try:
            domain = Domain(data["domain"], data["composition"].strip(), tuple(data["prompts"]),
                            tuple(data["subjects"]))
        except (KeyError, TypeError) as e:
            raise ConfigError(f"task file {entry.name} needs domain, composition, prompts and subjects") from e
        domains[domain.name] = domain
    return {"system": system, "domains": domains}


def domains() -> dict[str, Domain]:
    """Every bundled domain by name (hibiscus, flowers, landscape, leaves)."""
    return dict(_library()["domains"])


def system_prompt(domain: str, allowed: tuple[str, ...] = DEFAULT_ALLOWED) -> str:
    """The system prompt for `domain`, listing exactly the `allowed` p5.brush methods."""
    lib = _library()
    info = lib["system"]["methods"]
    lines = []
    for name in allowed:
        method = info.get(name)
        lines.append(f"- {method['signature']}: {method['help']}" if method else f"- brush.{name}(...)")
    composition = _domain(domain).composition
    return lib["system"]["system"].replace("{methods}", "\n".join(lines)).replace("{composition}", composition).strip()


def _domain(name: str) -> Domain:
    known = domains()
    if name not in known:
        raise ConfigError(f"unknown task domain {name!r}; choose one of: {', '.join(known)}")
    return known[name]


def domain_of(subject: str) -> str | None:
    """The bundled domain listing `subject`, if any."""
    return next((d.name for d in domains().values() if subject in d.subjects), None)


def make_task(seed: int, subject: str | None = None, domain: str | None = None,
              allowed: tuple[str, ...] = DEFAULT_ALLOWED) -> Task:
    """The task for `seed`. `subject` and `domain` pin what it asks for; whatever is not given
    is drawn from the seed. A free-form subject needs a domain for its composition guidance
    (default: hibiscus, the recipe's)."""
    rng = random.Random(f"brushwork-task:{seed}")
    if domain is not None:
        _domain(domain)
    if subject is not None:
        subject = subject.strip()
        if not subject:
            raise ConfigError("subject is empty: give a subject such as 'a peach hibiscus', or leave it out")
        domain = domain or domain_of(subject) or "hibiscus"
    else:
        domain = domain or rng.choice(sorted(domains()))
        subject = rng.choice(_domain(domain).subjects)
    prompt = rng.choice(_domain(domain).prompts).format(subject=subject)
    return Task(domain, subject, system_prompt(domain, allowed), prompt[:1].upper() + prompt[1:], seed)


def dataset_rows(domain_names: list[str] | None = None, repeats: int = 1, seed: int = 0,
                 allowed: tuple[str, ...] = DEFAULT_ALLOWED) -> list[dict]:
    """Every subject of the chosen domains, `repeats` times each with its own seed."""
    if repeats < 1:
        raise ConfigError(f"repeats must be >= 1, got {repeats}")
    names = domain_names or sorted(domains())
    rows = []
    for name in names:
        for index, subject in enumerate(_domain(name).subjects):
            for r in range(repeats):
                task_seed = _row_seed(seed, name, index, r)
                rows.append(make_task(task_seed, subject, name, allowed).to_row())
    return rows


def sample_rows(count: int, domain_names: list[str] | None = None, seed: int = 0) -> list[dict]:
    """`count` rows in a seeded shuffle of `dataset_rows` (subjects repeat, with new seeds, when
    more rows are asked for than the domains have subjects)."""
    if count < 1:
        raise ConfigError(f"count must be >= 1, got {count}")
    per_repeat = len(dataset_rows(domain_names, repeats=1, seed=seed))
    rows = dataset_rows(domain_names, repeats=-(-count // per_repeat), seed=seed)
    random.Random(seed).shuffle(rows)
    return rows[:count]


def _row_seed(seed: int, domain: str, index: int, repeat: int) -> int:
    # Stable across runs and independent of which other domains are exported.
    return random.Random(f"brushwork-row:{seed}:{domain}:{index}:{repeat}").randrange(2**31)


def export_dataset(out: Path, domain_names: list[str] | None = None, repeats: int = 1, seed: int = 0,
                   allowed: tuple[str, ...] = DEFAULT_ALLOWED) -> int:
    """Write the dataset as JSONL (one row per line); returns the number of rows."""
    rows = dataset_rows(domain_names, repeats, seed, allowed)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


def check_pool_domains(pool, domain_names: list[str] | None = None, strict: bool = False, stream=None) -> list[str]:
    """What the pool lacks to judge the tasks of `domain_names` (default: every domain) on their
    own domain (`brushwork.pool.coverage`), each printed as a WARNING to `stream` (stderr); with
    `strict` a ConfigError instead. Returns the messages (empty: the pool serves every domain)."""
    names = domain_names or sorted(domains())
    for name in names:
        _domain(name)
    problems = coverage_problems(pool, names)
    if problems and strict:
        raise ConfigError("\n".join(problems))
    out = stream or sys.stderr
    for problem in problems:
        print(f"\nWARNING (pool coverage): {problem}\n", file=out, flush=True)
    return problems
