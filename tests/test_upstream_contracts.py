"""The private parts of OpenEnv, TRL and Ray that brushwork leans on, one test each.

pyproject.toml bounds these packages below the next minor release; when a bound is raised, these
tests say which hook moved and in which version, before a training run or a reconnect finds out.
Each checks what brushwork relies on (the hook's presence, kind and parameters) with `inspect`,
and fails with the hook's name, what changed and the installed version of the package.
"""

from __future__ import annotations

import inspect
from importlib.metadata import version

import pytest


def _contract(package: str, hook: str, holds: bool, what: str) -> None:
    assert holds, (f"upstream contract broken: {hook} ({package} {version(package)}) {what}; "
                   f"brushwork uses it (grep the name in src/brushwork), so adapt that code or keep "
                   f"{package} below this version in pyproject.toml")


def _params(fn) -> list[str]:
    return list(inspect.signature(fn).parameters)


# -- OpenEnv: the client's reconnect and replay (brushwork/env/client.py) -----------------------------------
@pytest.fixture(scope="module")
def env_client():
    pytest.importorskip("openenv", reason="the env extra is not installed")
    from openenv.core.env_client import EnvClient

    return EnvClient


@pytest.mark.parametrize("hook,params", [
    ("_reset_async", ["self", "kwargs"]),
    ("_step_async", ["self", "action", "kwargs"]),
    ("_state_async", ["self"]),
    ("_connect_async", ["self"]),
])
def test_openenv_async_calls_are_coroutines_with_these_parameters(env_client, hook, params):
    fn = getattr(env_client, hook, None)
    _contract("openenv", f"EnvClient.{hook}", fn is not None, "is gone")
    _contract("openenv", f"EnvClient.{hook}", inspect.iscoroutinefunction(fn), "is no longer a coroutine function")
    _contract("openenv", f"EnvClient.{hook}", _params(fn) == params, f"takes {_params(fn)}, not {params}")


def test_openenv_schedule_socket_close_takes_the_socket_and_notify_server(env_client):
    fn = getattr(env_client, "_schedule_socket_close", None)
    _contract("openenv", "EnvClient._schedule_socket_close", fn is not None, "is gone")
    sig = inspect.signature(fn)
    ok = list(sig.parameters)[:2] == ["self", "ws"] and "notify_server" in sig.parameters \
        and sig.parameters["notify_server"].kind is inspect.Parameter.KEYWORD_ONLY
    _contract("openenv", "EnvClient._schedule_socket_close", ok,
              f"has the signature {sig}, not (self, ws, *, notify_server=...)")


def test_openenv_client_keeps_its_socket_loop_url_and_timeout_in_these_attributes(env_client):
    from brushwork.env.client import BrushworkEnv

    client = BrushworkEnv("http://127.0.0.1:9", message_timeout_s=7.0)   # nothing is connected
    for name in ("_ws", "_ws_loop", "_base_url", "_message_timeout"):
        _contract("openenv", f"EnvClient.{name}", hasattr(client, name), "is no longer set by EnvClient.__init__")
    _contract("openenv", "EnvClient._message_timeout", client._message_timeout == 7.0,
              "no longer holds message_timeout_s")
    _contract("openenv", "EnvClient._base_url", client._base_url == "http://127.0.0.1:9",
              f"holds {client._base_url!r} for base_url http://127.0.0.1:9")


# -- TRL: the render prefetch after each generation (brushwork/train/tool_env.py) ----------------------------
@pytest.fixture(scope="module")
def grpo_trainer():
    pytest.importorskip("trl", reason="the train extra is not installed")
    from trl import GRPOTrainer

    return GRPOTrainer


@pytest.mark.torch
def test_trl_generate_single_turn_takes_prompt_ids_first(grpo_trainer):
    fn = getattr(grpo_trainer, "_generate_single_turn", None)
    _contract("trl", "GRPOTrainer._generate_single_turn", fn is not None, "is gone")
    params = _params(fn)
    _contract("trl", "GRPOTrainer._generate_single_turn", params[:2] == ["self", "prompt_ids"],
              f"takes {params}; brushwork's override reads prompt_ids first")
    # brushwork reads the completion ids as the first item of what it returns
    source = inspect.getsource(fn)
    _contract("trl", "GRPOTrainer._generate_single_turn", "return completion_ids, logprobs" in source,
              "no longer returns (completion_ids, logprobs)")
    callers = inspect.getsource(grpo_trainer)
    _contract("trl", "GRPOTrainer._generate_single_turn", callers.count("self._generate_single_turn(") >= 2,
              "is no longer what generation and tool-call turns call")


@pytest.mark.torch
def test_trl_trainer_exposes_processing_class_tools_and_environments(grpo_trainer):
    source = inspect.getsource(grpo_trainer.__init__)
    for name in ("tools", "environments"):
        _contract("trl", f"GRPOTrainer.{name}", f"self.{name} =" in source, "is no longer set by GRPOTrainer.__init__")
    from transformers import Trainer

    # tool_env reads the tokenizer off processing_class (a VLM's processor holds it), as TRL does
    _contract("transformers", "Trainer.processing_class", "self.processing_class = processing_class"
              in inspect.getsource(Trainer.__init__), "is no longer kept by Trainer.__init__")



@pytest.mark.torch
def test_trl_parse_response_reads_ids_with_prefix_and_tools(grpo_trainer):
    from trl import chat_template_utils

    fn = getattr(chat_template_utils, "parse_response", None)
    _contract("trl", "trl.chat_template_utils.parse_response", fn is not None, "is gone")
    params = _params(fn)
    ok = params[:2] == ["tokenizer", "ids"] and {"prefix", "tools"} <= set(params)
    _contract("trl", "trl.chat_template_utils.parse_response", ok,
              f"takes {params}, not (tokenizer, ids, prefix, tools)")


# -- Ray: the address check before ray.init (brushwork/render/ray_pool.py) -----------------------------------
@pytest.mark.ray
def test_ray_resolves_a_bootstrap_address_as_ray_init_does():
    pytest.importorskip("ray", reason="the ray extra is not installed")
    try:
        from ray._private.services import canonicalize_bootstrap_address_or_die as fn
    except ImportError:
        fn = None
    # ray_pool skips its early check when this is gone (ray.init alone decides): degraded, not broken
    _contract("ray", "ray._private.services.canonicalize_bootstrap_address_or_die", fn is not None, "is gone")
    params = _params(fn)
    _contract("ray", "ray._private.services.canonicalize_bootstrap_address_or_die", params[:1] == ["addr"],
              f"takes {params}, not (addr, ...)")
    resolved = fn("127.0.0.1:6379")    # a local address comes back as this node's IP, same port
    _contract("ray", "ray._private.services.canonicalize_bootstrap_address_or_die",
              isinstance(resolved, str) and resolved.rpartition(":")[2] == "6379",
              f"returns {resolved!r} for 127.0.0.1:6379, not host:6379")


# -- the bounds ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("package", ["openenv", "trl", "transformers", "ray"])
def test_each_package_with_a_hook_is_bounded_above_and_the_installed_one_is_inside(package):
    import tomllib
    from importlib.metadata import PackageNotFoundError
    from pathlib import Path

    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    specs = [Requirement(d) for deps in project["optional-dependencies"].values() for d in deps]
    specs = [r.specifier for r in specs if r.name == package]
    assert specs and all(any(s.operator in ("<", "<=", "==", "~=") for s in spec) for spec in specs), \
        f"pyproject.toml: give {package} an upper bound (the hooks in this file are private)"
    try:
        installed = version(package)
    except PackageNotFoundError:
        pytest.skip(f"{package} is not installed")
    outside = [str(s) for s in specs if installed not in s]
    assert not outside, f"{package} {installed} is outside {outside}: run this file, then move the bound"
