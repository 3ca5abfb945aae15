"""A configuration setting, declared once: `setting(default, help, *, bounds...)`, and the one
loader that reads every setting of every command.

Each setting is a field of a frozen dataclass section (render, gate, reward, judge, server,
training) whose name is its one key everywhere: `render_timeout_s` in YAML, Python and
TRL, `--render-timeout-s` on a command line, `BRUSHWORK_RENDER_TIMEOUT_S` in the
environment. Its annotation is its type, checked (pydantic) whatever the source. `check`
validates a section against its fields' bounds and choices; `load` fills one from defaults,
a YAML file, the environment and flags, remembering where each value came from, and names a
bad value, and the type it takes, the way its source spelled it.
"""

from __future__ import annotations

import difflib
import functools
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
    """Every setting of `obj` against its declared type and bounds, so a section built in
    Python is as typed as one loaded (`workers="2"` is stored as 2; `workers="many"` is
    refused); the first bad one is a SettingError."""
    hints = type_hints(type(obj))
    for f in settings(type(obj)):
        value = getattr(obj, f.name)
        if (typed := coerce(f.name, hints[f.name], value, f.name)) is not value:
            object.__setattr__(obj, f.name, typed)
        if (p := problem(f, typed)) is not None:
            raise SettingError(f.name, p)


@functools.cache
def type_hints(cls) -> dict[str, object]:
    """Each setting's declared type (`int`, `float | None`, `list[str] | None`, ...)."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in settings(cls)}


def _base(hint) -> type:
    """A declared type with `| None` dropped, reduced to its class (int, float, bool, str, Path, list)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and args:
        hint = args[0]
    return typing.get_origin(hint) or hint


def value_types(cls) -> dict[str, type]:
    """Each setting's value type, with `| None` dropped (int, float, bool, str, Path, list)."""
    return {k: _base(hint) for k, hint in type_hints(cls).items()}


KINDS = {bool: "true or false (bool)", int: "a whole number (int)", float: "a number (float)", str: "text (str)",
         Path: "a file path (text)", list: "a list (YAML [a, b]; in a variable or flag: a,b)",
         dict: "a mapping (YAML {key: value})"}


def expected(hint) -> str:
    """What a declared type accepts, in words: `a whole number (int), or null`."""
    optional = type(None) in typing.get_args(hint)
    kinds = [a for a in typing.get_args(hint) if a is not type(None)] \
        if typing.get_origin(hint) in (typing.Union, types.UnionType) else [hint]
    words = list(dict.fromkeys(KINDS.get(typing.get_origin(k) or k, getattr(k, "__name__", str(k))) for k in kinds))
    return " or ".join(words) + (", or null" if optional else "")


@functools.cache
def _adapter(hint):
    from pydantic import ConfigDict, TypeAdapter

    # a number where text is declared (`snapshot: 20261201`) is that text
    return TypeAdapter(hint, config=ConfigDict(coerce_numbers_to_str=True))


def coerce(key: str, hint, value, spelled: str):
    """`value` as the type `hint` declares (text from a variable or a flag is parsed; a list in
    text is comma-separated), else a SettingError naming the setting as `spelled` (`workers (in
    run.yaml)`, `BRUSHWORK_WORKERS`, `--workers`) and the type it takes."""
    from pydantic import ValidationError

    kind = _base(hint)
    if kind is list and isinstance(value, str):
        value = [x.strip() for x in value.split(",") if x.strip()]
    if isinstance(value, str) and kind is not str:
        value = value.strip()
    bad = isinstance(value, bool) and kind is not bool     # YAML's `yes` is no count of workers
    if not bad:
        try:
            return _adapter(hint).validate_python(value)
        except ValidationError:
            pass
    raise SettingError(key, f"must be {expected(hint)}, got {value!r}", spelled)


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def read_file(path: Path) -> dict:
    """The top-level keys of a YAML configuration file."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"--config {path}: {' '.join(str(e).split())}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected `key: value` lines, got {type(data).__name__}")
    return data


def closest(key: str, candidates) -> str:
    """` (did you mean workers?)` for a mistyped key, or nothing when no key is close."""
    near = difflib.get_close_matches(key, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {near[0]}?)" if near else ""


def refuse_unknown(unknown, file: Path, candidates, where: str = "brushwork setting") -> None:
    """A ConfigError naming each unknown key of `file` with the valid key closest to it."""
    if unknown:
        named = ", ".join(f"{k}{closest(str(k), candidates)}" for k in sorted(map(str, unknown)))
        raise ConfigError(f"--config {file}: unknown key{'s' if len(unknown) > 1 else ''} {named}: not a {where}; "
                          "`brushwork config show` lists every key")


def file_values(cls, file: Path, strict: bool = True) -> dict:
    """The settings of `cls` in a YAML file, each checked against its declared type; with
    `strict`, a key that is no setting of `cls` is refused with the closest one named."""
    data = read_file(file)
    hints = type_hints(cls)
    if strict:
        refuse_unknown(set(data) - set(hints), file, hints)
    return {k: coerce(k, hints[k], v, f"{k} (in {file})") for k, v in data.items() if k in hints}


def gather(cls, *, file: Path | None = None, environ: Mapping[str, str] | None = None,
           flags: Mapping[str, object] | None = None, keys=None, known=None, strict_file: bool = True,
           flag_spelling: Callable[[str], str] = flag):
    """The values and their sources (default < file < environment < flags) for `cls`'s
    settings, limited to `keys` when given. A file may hold any setting of `known` (default
    `cls`: one file serves every command), each checked whether or not this command reads it.
    Every value is checked against its declared type, its error naming the source: the file,
    the variable, or the flag as `flag_spelling` spells it. Returns ({key: value}, {key: source},
    spellings)."""
    environ = os.environ if environ is None else environ
    hints = type_hints(cls)
    wanted = [f for f in settings(cls) if keys is None or f.name in keys]
    values = {f.name: default_of(f) for f in wanted}
    sources = dict.fromkeys(values, "default")
    spelled = {k: k for k in values}
    if file is not None:
        for k, v in file_values(known or cls, file, strict=strict_file).items():
            if k in values:
                values[k], sources[k], spelled[k] = v, "file", f"{k} (in {file})"
    for f in wanted:
        for name in (env_name(f.name), *f.metadata["env_aliases"]):
            if environ.get(name, "").strip():
                if name != env_name(f.name):
                    warn(f"{name} is deprecated; set {env_name(f.name)}")
                values[f.name] = coerce(f.name, hints[f.name], environ[name], name)
                sources[f.name], spelled[f.name] = "environment", name
                break
    for k, v in (flags or {}).items():
        if v is not None and k in values:
            values[k] = coerce(k, hints[k], v, flag_spelling(k))
            sources[k], spelled[k] = "flag", flag_spelling(k)
    return values, sources, spelled


def load(cls, *, file=None, environ=None, flags=None, keys=None, known=None, strict_file=True,
         flag_spelling=flag):
    """`cls` (a settings class) from defaults, a YAML file, `BRUSHWORK_*` variables and flags:
    the one loader of every command, `brushwork train` included. Returns (instance, {key:
    source}); a bad value's error names it as its source spelled it."""
    values, sources, spelled = gather(cls, file=file, environ=environ, flags=flags, keys=keys, known=known,
                                      strict_file=strict_file, flag_spelling=flag_spelling)
    try:
        return cls(**values), sources
    except SettingError as e:
        raise e.spelled(spelled.get(e.key, e.key)) from None
