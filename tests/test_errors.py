"""One error vocabulary: every exception class brushwork defines lives in `brushwork.errors`,
derives from `BrushworkError`, and its messages say what to do next."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
from pathlib import Path

import httpx
import pytest

import brushwork
from brushwork import errors
from brushwork.core.chat import ChatClient, Retry, post_json
from brushwork.errors import (
    ActionError,
    BrushworkError,
    ConfigError,
    DependencyNotInstalled,
    EnvConnectionError,
    EnvServerError,
    EpisodeError,
    JudgeUnavailable,
    ModelUnavailable,
    ScorerUnavailable,
    ServiceUnavailable,
    SessionClosed,
)

SRC = Path(brushwork.__file__).parent
ERROR_NAMES = {name for name, obj in vars(errors).items() if inspect.isclass(obj) and issubclass(obj, BaseException)}
BUILTIN_ERRORS = {name for name, obj in vars(builtins).items() if inspect.isclass(obj) and
                  issubclass(obj, BaseException)}


def brushwork_modules():
    for info in pkgutil.walk_packages(brushwork.__path__, "brushwork."):
        if info.name.rsplit(".", 1)[-1] != "__main__":   # __main__ runs the CLI
            yield info.name


def test_every_exception_class_lives_in_errors():
    misplaced = []
    for name in brushwork_modules():
        module = importlib.import_module(name)
        for cls_name, cls in vars(module).items():
            if cls_name.startswith("_") or not inspect.isclass(cls) or not issubclass(cls, BaseException):
                continue
            if cls.__module__.startswith("brushwork") and cls.__module__ != "brushwork.errors":
                misplaced.append(f"{cls.__module__}.{cls_name}")
    assert not misplaced, f"define these in brushwork.errors: {sorted(set(misplaced))}"


def test_no_module_defines_an_exception_class_outside_errors():
    """The same check from the source, so a module that cannot be imported here is covered too."""
    bases = ERROR_NAMES | BUILTIN_ERRORS
    misplaced = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                names = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if names & bases:
                    misplaced.append(f"{path.relative_to(SRC)}:{node.name}")
    assert not misplaced, f"define these in brushwork.errors: {misplaced}"


def test_every_error_is_a_documented_brushwork_error():
    for name in ERROR_NAMES:
        cls = getattr(errors, name)
        assert issubclass(cls, BrushworkError), name
        assert cls.__doc__ and cls.__doc__.strip(), f"{name} needs a docstring"


def test_the_hierarchy():
    for cls in (JudgeUnavailable, ScorerUnavailable, ModelUnavailable, EnvConnectionError):
        assert issubclass(cls, ServiceUnavailable)
    assert issubclass(SessionClosed, EpisodeError) and issubclass(ActionError, BrushworkError)
    # An episode used out of order, or a malformed action, is not a bad value: no `except ValueError` takes it.
    assert not issubclass(EpisodeError, ValueError) and not issubclass(ActionError, ValueError)
    assert issubclass(ConfigError, ValueError)
    assert not issubclass(EnvServerError, ServiceUnavailable)   # the server answered


def test_old_homes_still_name_the_same_classes():
    from brushwork.env.client import EnvConnectionError as a
    from brushwork.env.client import EnvServerError as b
    from brushwork.env.episode import EpisodeError as c
    from brushwork.pool.generate import ModelUnavailable as d
    from brushwork.score.backends import JudgeUnavailable as e
    from brushwork.score.backends import ScorerUnavailable as f
    from brushwork.score.judge import JudgeUnavailable as g

    assert (a, b, c, d, e, f, g) == (EnvConnectionError, EnvServerError, EpisodeError, ModelUnavailable,
                                     JudgeUnavailable, ScorerUnavailable, JudgeUnavailable)


def test_dependency_not_installed_names_the_extra():
    message = str(DependencyNotInstalled("torch", "train"))
    assert "torch" in message and "pip install 'brushwork[train]'" in message


def test_env_server_error_keeps_the_code():
    e = EnvServerError("too many sessions", "CAPACITY_REACHED")
    assert e.code == "CAPACITY_REACHED" and "(code: CAPACITY_REACHED)" in str(e)


def client_answering(status: int, body) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body) if not isinstance(body, str) else httpx.Response(status, text=body)
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_a_refusal_says_what_to_check_and_hides_the_key():
    chat = ChatClient("http://judge.test/v1", "m", api_key="sk-secret-123", retry=Retry(2, 0.0, 1),
                      error_cls=JudgeUnavailable)
    async with client_answering(401, {"error": "bad key"}) as client:
        with pytest.raises(JudgeUnavailable, match="check the URL, model name and API key") as info:
            await chat.complete([{"role": "user", "content": "hi"}], client=client)
    assert "sk-secret-123" not in str(info.value) and "sk-secret-123" not in repr(chat)


async def test_an_outage_says_what_to_do_after_every_attempt():
    async with client_answering(503, {"error": "overloaded"}) as client:
        with pytest.raises(ScorerUnavailable, match="unreachable after 3 attempts") as info:
            await post_json(client, "http://hpsv3.test/score", {}, {}, Retry(3, 0.0, 1), "HPSv3", ScorerUnavailable)
    assert "HTTP 503" in str(info.value) and "running at that URL" in str(info.value)


async def test_chat_client_reads_the_message():
    body = {"choices": [{"message": {"content": "hello"}}], "usage": {"total_tokens": 7}}
    async with client_answering(200, body) as client:
        answer = await ChatClient("http://m.test/v1", "m").complete([], client=client)
    assert (answer.text, answer.tokens) == ("hello", 7)
    async with client_answering(200, {"choices": []}) as client:
        assert (await ChatClient("http://m.test/v1", "m").complete([], client=client)).text is None


async def test_a_model_without_a_message_says_what_to_check():
    from brushwork.pool.generate import ChatEndpoint

    async with client_answering(200, {"object": "error"}) as client:
        with pytest.raises(ModelUnavailable, match="OpenAI-compatible"):
            await ChatEndpoint("http://m.test/v1", "m").chat(client, [])


# -- no built-in exception raised on purpose -----------------------------------------------------
# A raise of a built-in exception is allowed only where the language asks for that type:
PROTOCOL = {
    "NotImplementedError": None,                       # an abstract method, anywhere
    "AttributeError": {"__getattr__", "__setattr__", "__delattr__", "__getattribute__"},   # attribute lookup
    "StopIteration": {"__next__"},                     # the iterator protocol
    "ValueError": {"<validator>"},                     # pydantic's validators: it wraps it in a ValidationError
}
# Raises that are right as they are, each with its reason.
ALLOWED = {
    ("render/chromium.py", "TimeoutError"): "the render deadline inside `_watched`, caught by its caller beside "
                                            "asyncio's own timeouts and turned into a timeout RenderResult",
    ("score/rollout.py", "AttributeError"): "a `Wraps` record that reads a field `Rollout` lacks, or a Rollout "
                                            "field no ReadThrough reads: a slip in brushwork's own code, "
                                            "stopped when the class is defined or the module imported, as "
                                            "Python stops a misspelt attribute",
}

def _builtin_raises(tree: ast.AST):
    """(line, exception name, enclosing function, caught where raised) for each `raise X(...)` of a
    built-in X; a bare `raise` (re-raise) is not one."""
    found = []

    def name_of(function) -> str:
        decorators = getattr(function, "decorator_list", [])
        called = [d.func if isinstance(d, ast.Call) else d for d in decorators]
        if any(getattr(d, "id", getattr(d, "attr", "")).endswith("_validator") for d in called):
            return "<validator>"
        return getattr(function, "name", "<lambda>")

    def walk(node, function, catching):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                walk(child, name_of(child), frozenset())
                continue
            if isinstance(child, ast.Try):
                names = set()
                for handler in child.handlers:
                    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                    names |= {getattr(k, "id", getattr(k, "attr", None)) for k in kinds if k is not None}
                for stmt in child.body:
                    walk_one(stmt, function, catching | names)
                for rest in (*child.handlers, *child.orelse, *child.finalbody):
                    walk_one(rest, function, catching)
                continue
            walk_one(child, function, catching)

    def walk_one(node, function, catching):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = target.id if isinstance(target, ast.Name) else None
            if name in BUILTIN_ERRORS:
                found.append((node.lineno, name, function, name in catching or "Exception" in catching))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            walk(node, name_of(node), frozenset())
        else:
            walk(node, function, catching)

    walk(tree, None, frozenset())
    return found


def builtin_raises() -> dict[tuple[str, str], list[str]]:
    """(file, exception) -> ["file:line in function"] for every built-in exception src/ raises on
    purpose, less the language's protocols and raises caught in the function that raises them."""
    out: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for line, name, function, caught in _builtin_raises(ast.parse(path.read_text(encoding="utf-8"))):
            if name in PROTOCOL and (PROTOCOL[name] is None or function in PROTOCOL[name]):
                continue
            if not caught:
                out.setdefault((rel, name), []).append(f"{rel}:{line} in {function}")
    return out


def test_no_builtin_exception_is_raised_on_purpose():
    """A caller cannot tell `ValueError("...")` from a bug's ValueError: brushwork raises its own
    types (brushwork.errors), whose messages say what to fix."""
    raises = builtin_raises()
    unexpected = {key: where for key, where in raises.items() if key not in ALLOWED}
    assert not unexpected, ("raise a brushwork.errors type (ConfigError, SetupError, ...) instead: "
                            + "; ".join(w for where in unexpected.values() for w in where))
    stale = sorted(set(ALLOWED) - set(raises))
    assert not stale, f"no longer raised, drop from ALLOWED: {stale}"


def test_the_raise_finder_sees_what_it_must():
    """The walker itself: a raise it must report, the protocol cases and a locally caught one."""
    source = ("def f(x):\n    raise ValueError(x)\n"
              "def g():\n    try:\n        raise KeyError\n    except KeyError:\n        pass\n"
              "def h():\n    try:\n        pass\n    except OSError:\n        raise RuntimeError('no')\n"
              "class C:\n    def __getattr__(self, n):\n        raise AttributeError(n)\n"
              "def i():\n    raise\n"
              "class M:\n    @model_validator(mode='after')\n    def check(self):\n        raise ValueError('x')\n")
    found = {(line, name, function, caught) for line, name, function, caught in _builtin_raises(ast.parse(source))}
    assert found == {(2, "ValueError", "f", False), (5, "KeyError", "g", True), (12, "RuntimeError", "h", False),
                     (15, "AttributeError", "__getattr__", False), (21, "ValueError", "<validator>", False)}


# -- comments say the fact, never a section of a document outside the repository -------------------
def test_no_file_cites_a_spec_section():
    root = SRC.parent.parent
    cited = [f"{path.relative_to(root)}:{n}" for folder in (root / "src", root / "tests")
             for path in folder.rglob("*") if path.is_file() and path.suffix in (".py", ".yaml", ".md", ".js", ".txt")
             and path.name != Path(__file__).name
             for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if "SPEC \u00a7" in line]
    assert not cited, f"say the fact itself instead of citing a SPEC section: {cited}"

