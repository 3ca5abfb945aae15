"""Tasks: what the environment asks a model to paint, and the training dataset built from it.

A task is a system prompt (the sketch skeleton, the allowed brush methods with signatures,
coordinates, rules and a domain's composition guidance) and a user prompt naming a subject.
Domains and subjects are package data (`tasks/*.yaml`); the same seed always gives the same
task. `export_dataset` writes them as JSONL with a chat-format `prompt` column, which TRL
and `datasets.load_dataset("json", ...)` read directly. `check_pool_domains` says, loudly, which
of the tasks' domains a pool cannot judge from its own paintings (`brushwork serve` and
`brushwork train` call it at start).

Some pairings are held out of training (`HeldOut`): a domain's file names the subjects (a colour
with a kind: "a coral hibiscus") and the prompt phrasings (by index) training never sees, and
`HeldOut.drawn` holds out a seeded fraction of each domain's subjects instead. Training's rows
(`dataset_rows`, `sample_rows`) leave them out; evaluation asks for them too
(`include_held_out`), and `pairing` says which kind a prompt is, so `brushwork eval` can report
held-out pairings apart from seen ones.
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
    held_out_subjects: tuple[str, ...] = ()    # subject pairings training never sees
    held_out_prompts: tuple[int, ...] = ()     # prompt phrasings (indices) training never sees


@dataclass(frozen=True)
class HeldOut:
    """The pairings training never samples: subjects (colour x kind) and (domain, prompt index)."""

    subjects: frozenset[str] = frozenset()
    prompts: frozenset[tuple[str, int]] = frozenset()

    @classmethod
    def catalogue(cls) -> HeldOut:
        """The pairings the domain files hold out (`held_out: {subjects: [...], prompts: [...]}`)."""
        known = domains().values()
        return cls(frozenset(s for d in known for s in d.held_out_subjects),
                   frozenset((d.name, i) for d in known for i in d.held_out_prompts))

    @classmethod
    def drawn(cls, fraction: float, seed: int = 0) -> HeldOut:
        """A seeded `fraction` of each domain's subjects (at least one, never all), no phrasing."""
        if not 0 < fraction < 1:
            raise ConfigError(f"held-out fraction must be between 0 and 1, got {fraction}")
        chosen = []
        for name, domain in sorted(domains().items()):
            count = min(len(domain.subjects) - 1, max(1, round(fraction * len(domain.subjects))))
            chosen += random.Random(f"brushwork-held-out:{seed}:{name}").sample(domain.subjects, count)
        return cls(frozenset(chosen))

    def holds(self, domain: str, subject: str, prompt: int | None = None) -> bool:
        return subject in self.subjects or (domain, prompt) in self.prompts


def pairing(subject: str, user_prompt: str, held_out: HeldOut | None = None) -> str:
    """"held-out" when a prompt asks for a held-out subject or in a held-out phrasing, else "seen"."""
    held_out = held_out or HeldOut.catalogue()
    if subject in held_out.subjects:
        return "held-out"
    text = user_prompt.strip().lower()
    for name, index in held_out.prompts:
        if _domain(name).prompts[index].format(subject=subject).strip().lower() == text:
            return "held-out"
    return "seen"


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
            held = data.get("held_out") or {}
            domain = Domain(data["domain"], data["composition"].strip(), tuple(data["prompts"]),
                            tuple(data["subjects"]), tuple(held.get("subjects", ())), tuple(held.get("prompts", ())))
        except (KeyError, TypeError, AttributeError) as e:
            raise ConfigError(f"task file {entry.name} needs domain, composition, prompts and subjects "
                              "(and optionally held_out: {subjects: [...], prompts: [index, ...]})") from e
        if not set(domain.held_out_subjects) <= set(domain.subjects) or not all(
                isinstance(i, int) and 0 <= i < len(domain.prompts) for i in domain.held_out_prompts):
            raise ConfigError(f"task file {entry.name}: held_out names subjects of its own list and prompt "
                              f"indices from 0 to {len(domain.prompts) - 1}")
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
              allowed: tuple[str, ...] = DEFAULT_ALLOWED, held_out: HeldOut | None = None) -> Task:
    """The task for `seed`. `subject` and `domain` pin what it asks for; whatever is not given
    is drawn from the seed. A free-form subject needs a domain for its composition guidance
    (default: hibiscus, the recipe's). A drawn subject or phrasing is never one `held_out`
    (default: the catalogue's) holds; a pinned subject is asked for as given. Evaluation passes
    `HeldOut()` to draw from every pairing."""
    rng = random.Random(f"brushwork-task:{seed}")
    held_out = HeldOut.catalogue() if held_out is None else held_out
    if domain is not None:
        _domain(domain)
    if subject is not None:
        subject = subject.strip()
        if not subject:
            raise ConfigError("subject is empty: give a subject such as 'a peach hibiscus', or leave it out")
        domain = domain or domain_of(subject) or "hibiscus"
    else:
        domain = domain or rng.choice(sorted(domains()))
        subjects = [s for s in _domain(domain).subjects if s not in held_out.subjects]
        subject = rng.choice(subjects)
    prompts = [p for i, p in enumerate(_domain(domain).prompts) if (domain, i) not in held_out.prompts]
    prompt = rng.choice(prompts).format(subject=subject)
    return Task(domain, subject, system_prompt(domain, allowed), prompt[:1].upper() + prompt[1:], seed)


def dataset_rows(domain_names: list[str] | None = None, repeats: int = 1, seed: int = 0,
                 allowed: tuple[str, ...] = DEFAULT_ALLOWED, held_out: HeldOut | None = None,
                 include_held_out: bool = False) -> list[dict]:
    """Every subject of the chosen domains, `repeats` times each with its own seed; the held-out
    pairings (`held_out`, default the catalogue's) are left out unless `include_held_out`."""
    if repeats < 1:
        raise ConfigError(f"repeats must be >= 1, got {repeats}")
    names = domain_names or sorted(domains())
    held = HeldOut() if include_held_out else (held_out or HeldOut.catalogue())
    rows = []
    for name in names:
        for index, subject in enumerate(_domain(name).subjects):
            if subject in held.subjects:
                continue
            for r in range(repeats):
                task_seed = _row_seed(seed, name, index, r)
                rows.append(make_task(task_seed, subject, name, allowed, held).to_row())
    return rows


def sample_rows(count: int, domain_names: list[str] | None = None, seed: int = 0,
                held_out: HeldOut | None = None, include_held_out: bool = False) -> list[dict]:
    """`count` rows in a seeded shuffle of `dataset_rows` (subjects repeat, with new seeds, when
    more rows are asked for than the domains have subjects)."""
    if count < 1:
        raise ConfigError(f"count must be >= 1, got {count}")
    kept = {"held_out": held_out, "include_held_out": include_held_out}
    per_repeat = len(dataset_rows(domain_names, repeats=1, seed=seed, **kept))
    rows = dataset_rows(domain_names, repeats=-(-count // per_repeat), seed=seed, **kept)
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
