"""A configuration setting, declared once: `setting(default, help, *, bounds...)`.

Each setting is a field of a frozen dataclass section (render, gate, reward, judge, server,
training) whose name is its one key everywhere: `render_timeout_s` in YAML, Python and
TRL, `--render-timeout-s` on a command line, `BRUSHWORK_RENDER_TIMEOUT_S` in the
environment. `check` validates a section against its fields' bounds and choices; `load`
fills one from defaults, a YAML file, the environment and flags, remembering where each
value came from, and names a bad value the way its source spelled it.
"""

from __future__ import annotations

import os
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields
from pathlib import Path

from brushwork.errors import ConfigError, SettingError

ENV_PREFIX = "BRUSHWORK_"
SOURCES = ("default", "file", "environment", "flag")


def setting(default=None, help: str = "", *, factory: Callable | None = None, min=None, max=None,
            above=None, below=None, choices=None, off=None, check: Callable | None = None,
            aliases: tuple[str, ...] = (), env_aliases: tuple[str, ...] = (), cli: bool = True):
    """A dataclass field carrying its help, bounds (`min`/`max` inclusive, `above`/`below`
    exclusive), `choices` (a collection, or a callable returning one), `off` (a value allowed
    outside the bounds, meaning off), `check` (value -> problem or None), old spellings kept
    as deprecated `aliases` (`--timeout`) and `env_aliases`, and `cli=False` for a setting
    a command line cannot carry (a list)."""
    meta = {"setting": True, "help": help, "min": min, "max": max, "above": above, "below": below,
            "choices": choices, "off": off, "check": check, "aliases": tuple(aliases),
            "env_aliases": tuple(env_aliases), "cli": cli}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def settings(cls) -> list:
    """The setting fields of a section (or of a class composed of sections), in order."""
    return [f for f in fields(cls) if f.metadata.get("setting")]


def flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def env_name(key: str) -> str:
    return ENV_PREFIX + key.upper()


def default_of(f):
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else None


def choices_of(f) -> tuple | None:
    choices = f.metadata.get("choices")
    return tuple(choices() if callable(choices) else choices) if choices is not None else None


def problem(f, value) -> str | None:
    """What is wrong with `value` for setting `f` (None: nothing)."""
    m = f.metadata
    if value is None or (m.get("off") is not None and value == m["off"]):
        return None
    if (choices := choices_of(f)) is not None and value not in choices:
        return f"{value!r} is not one of: {', '.join(map(str, choices))}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi, gt, lt = m.get("min"), m.get("max"), m.get("above"), m.get("below")
        hi = hi() if callable(hi) else hi
        bad = (lo is not None and value < lo) or (hi is not None and value > hi) or \
            (gt is not None and value <= gt) or (lt is not None and value >= lt)
        if bad:
            low = f"> {gt:g}" if gt is not None else (f">= {lo:g}" if lo is not None else "")
            high = f"< {lt:g}" if lt is not None else (f"<= {hi:g}" if hi is not None else "")
            off = f", or {m['off']:g} (off)" if m.get("off") is not None else ""
            return f"must be {' and '.join(x for x in (low, high) if x)}{off}, got {value:g}"
    if m.get("check") is not None:
        return m["check"](value)
    return None


def check(obj) -> None:
    """Every setting of `obj` against its declaration; the first bad one is a SettingError."""
    for f in settings(type(obj)):
        if (p := problem(f, getattr(obj, f.name))) is not None:
            raise SettingError(f.name, p)


def value_types(cls) -> dict[str, type]:
    """Each setting's value type, with `| None` dropped (int, float, bool, str, Path, list)."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in settings(cls):
        kind = hints[f.name]
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if typing.get_origin(kind) in (typing.Union, types.UnionType) and args:
            kind = args[0]
        out[f.name] = typing.get_origin(kind) or kind
    return out


def parse(kind: type, raw: str, spelled: str):
    """A setting's value from text (an environment variable)."""
    raw = raw.strip()
    try:
        if kind is bool:
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind is list:
            return [x.strip() for x in raw.split(",") if x.strip()]
        return kind(raw)
    except ValueError as e:
        what = {bool: "true or false", int: "a whole number", float: "a number"}.get(kind, "a value")
        raise ConfigError(f"{spelled}={raw!r} is not {what}") from e


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def read_file(path: Path) -> dict:
    """The top-level keys of a YAML configuration file."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"--config {path}: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected `key: value` lines, got {type(data).__name__}")
    return data


def gather(cls, *, file: Path | None = None, environ: Mapping[str, str] | None = None,
           flags: Mapping[str, object] | None = None, keys=None, strict_file: bool = True):
    """The values and their sources (default < file < environment < flags) for `cls`'s
    settings, limited to `keys` when given. Returns ({key: value}, {key: source}, spellings)."""
    environ = os.environ if environ is None else environ
    kinds = value_types(cls)
    wanted = [f for f in settings(cls) if keys is None or f.name in keys]
    values = {f.name: default_of(f) for f in wanted}
    sources = dict.fromkeys(values, "default")
    spelled = {k: k for k in values}
    if file is not None:
        data = read_file(file)
        if strict_file and (unknown := sorted(set(data) - {f.name for f in settings(cls)})):
            raise ConfigError(f"--config {file}: unknown keys {', '.join(unknown)}; `brushwork config show` "
                              "lists every key")
        for k in values.keys() & data.keys():
            values[k], sources[k], spelled[k] = data[k], "file", f"{k} (in {file})"
    for f in wanted:
        for name in (env_name(f.name), *f.metadata["env_aliases"]):
            if environ.get(name, "").strip():
                if name != env_name(f.name):
                    warn(f"{name} is deprecated; set {env_name(f.name)}")
                values[f.name] = parse(kinds[f.name], environ[name], name)
                sources[f.name], spelled[f.name] = "environment", name
                break
    for k, v in (flags or {}).items():
        if v is not None and k in values:
            values[k], sources[k], spelled[k] = v, "flag", flag(k)
    return values, sources, spelled


def load(cls, *, file=None, environ=None, flags=None, keys=None, strict_file=True):
    """`cls` (a settings class) from defaults, a YAML file, `BRUSHWORK_*` variables and flags.
    Returns (instance, {key: source}); a bad value's error names it as its source spelled it."""
    values, sources, spelled = gather(cls, file=file, environ=environ, flags=flags, keys=keys,
                                      strict_file=strict_file)
    try:
        return cls(**values), sources
    except SettingError as e:
        raise e.spelled(spelled.get(e.key, e.key)) from None
