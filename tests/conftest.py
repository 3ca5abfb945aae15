"""Shared fixtures: one real renderer (real Chromium, real p5.brush) per test session, a
private cache folder for everything brushwork caches, the example pool and the tiny models."""

from __future__ import annotations

import faulthandler
import inspect
import os
import sys
from pathlib import Path

import pytest

from brushwork.render import RenderConfig, SyncRenderer

# A test's timeout (pyproject: `timeout`, `timeout_func_only`) times the test function alone: shared
# setup (the example pool's renders, a tiny model, a module's training run) is built once and a busy
# machine builds it slowly, so a deadline there would catch slowness, not hangs. Setup has its own
# guard against a hang: past FIXTURE_HANG_S in one fixture, every thread's stack is printed and the
# run stops (a hang would otherwise last until CI kills the job, saying nothing).
FIXTURE_HANG_S = 2400
_setting_up = 0
_hang_report = sys.stderr


def pytest_configure(config):
    """The hang report goes to the terminal's stderr, taken while pytest's capture is paused (a
    fixture's own stderr is captured, and lost when the run stops)."""
    global _hang_report
    _hang_report = os.fdopen(os.dup(sys.stderr.fileno()), "w")


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    global _setting_up
    if _setting_up == 0:
        faulthandler.dump_traceback_later(FIXTURE_HANG_S, exit=True, file=_hang_report)
    _setting_up += 1
    try:
        return (yield)
    finally:
        _setting_up -= 1
        if _setting_up == 0:
            faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory):
    """Renders, pools, taste models and judge verdicts go to a folder of this test session."""
    path = tmp_path_factory.mktemp("brushwork-cache")
    old = os.environ.get("BRUSHWORK_CACHE")
    os.environ["BRUSHWORK_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("BRUSHWORK_CACHE", None)
    else:
        os.environ["BRUSHWORK_CACHE"] = old


@pytest.fixture(scope="session")
def renderer(private_cache):
    """A warm SyncRenderer (two workers, like CI's two cores) with the product's render deadline:
    a sketch that spins is stopped by its CPU budget, whatever the load, and a deadline tighter
    than the product's would fail honest renders on a busy machine."""
    config = RenderConfig(workers=2, cache_dir=private_cache / "renders")
    with SyncRenderer(config) as r:
        yield r


@pytest.fixture(scope="session")
def example_pool(renderer):
    """The bundled example pool, rendered once from its sources by the session's renderer, with its
    taste model fitted into the session's cache (`load_or_fit`): the commands and Pipelines that
    score on the default pool then read both, and no test's timeout holds the renders or the fit
    (seconds on a quiet machine, past twenty minutes at load 20 on two cores)."""
    from brushwork.pool import example_pool_dir, load_pool
    from brushwork.score.taste.model import load_or_fit

    pool = load_pool(example_pool_dir(), renderer=renderer)
    load_or_fit(pool)
    return pool


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """`tiny_model(spec)`: the folder of the tiny model of a `TinySpec`, built once per session
    (training its tokenizer is most of the cost). Shared: a test that writes to it copies it."""
    from brushwork.train.tiny import build_tiny

    root = tmp_path_factory.mktemp("tiny-models")
    return lambda spec: build_tiny(spec, root / spec.key)


@pytest.fixture(scope="session")
def reciting_model(tmp_path_factory) -> Path:
    """The tiny model fine-tuned to write one procedural sketch whatever the hibiscus prompt: its
    paintings pass the gate at every step, and render once (the cache). Built once per session
    (a few CPU-seconds on a quiet machine, minutes on a busy one) and only read by the tests."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    from brushwork.env.tasks import dataset_rows
    from brushwork.train.policy import load_policy
    from brushwork.train.tiny import TinySpec, build_tiny, warmup_rows

    folder = tmp_path_factory.mktemp("reciting-model")
    model, tokenizer = load_policy(str(build_tiny(TinySpec(), folder / "tiny")))
    sketch = warmup_rows(1, seed=1, domains=["hibiscus"])[0]["completion"]
    rows = [{"prompt": row["prompt"], "completion": sketch} for row in dataset_rows(["hibiscus"], 1, 0)]
    config = SFTConfig(output_dir=str(folder / "sft"), num_train_epochs=20, per_device_train_batch_size=1,
                       learning_rate=5e-3, lr_scheduler_type="cosine", warmup_steps=10, save_strategy="no",
                       report_to="none", max_length=tokenizer.model_max_length, use_cpu=True, bf16=False,
                       disable_tqdm=True)
    trainer = SFTTrainer(model=model, args=config, train_dataset=Dataset.from_list(rows), processing_class=tokenizer)
    trainer.train()
    trainer.save_model(str(folder / "base"))
    tokenizer.save_pretrained(str(folder / "base"))
    return folder / "base"


# -- what a test needs ------------------------------------------------------------------------------
# `make test-fast` deselects the tests marked chromium, ray or torch. A test is marked by what it
# reaches: the fixtures it uses (the whole fixture closure) and the code of the test, its fixtures
# and the test module's own helpers they call (names read off the code objects, followed through
# the module's functions). A test that needs one where none of that shows it (a CLI command, a
# subprocess) is named in `UNSEEN_NEEDS`, or marked in its own file (`@pytest.mark.chromium`).
CHROMIUM_FIXTURES = frozenset({"renderer", "example_pool"})
CHROMIUM_NAMES = frozenset({"Renderer", "SyncRenderer", "Pipeline", "shared_pipeline", "ChromiumBackend",
                            "BrowserPool", "load_pool", "render_pool"})
# brushwork.train is the training stack: what it imports needs torch, trl and transformers.
NEEDS_MODULES = {"torch": ("torch", "trl", "transformers", "peft", "accelerate", "brushwork.train"), "ray": ("ray",)}

# What the code does not show: tests that need these in a subprocess or through a CLI command
# (test module, test function) -> marks.
UNSEEN_NEEDS = {
    ("test_errors.py", "test_every_exception_class_lives_in_errors"): {"torch"},    # imports every module
    ("test_eval.py", "test_errors_say_what_to_do"): {"chromium"},                     # the CLI looks for Chromium
    ("test_render_ray.py", "test_no_cluster_is_a_clear_error"): {"ray"},              # Ray in a subprocess
    ("test_train.py", "test_train_command_line_errors_and_help"): {"torch"},          # `brushwork train`
}


def _code_names(code, seen: set) -> set[str]:
    """Every name and attribute a code object (and the code nested in it) reads."""
    if code in seen:
        return set()
    seen.add(code)
    names = set(code.co_names) | set(code.co_varnames)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const, seen)
    return names


def _reach(functions, module_globals: dict) -> set[str]:
    """Names the functions read, following calls into other functions of the test module."""
    names: set[str] = set()
    todo, seen_code, seen_fn = list(functions), set(), set()
    while todo:
        fn = inspect.unwrap(todo.pop())
        code = getattr(fn, "__code__", None)
        if code is None or fn in seen_fn:
            continue
        seen_fn.add(fn)
        found = _code_names(code, seen_code)
        names |= found
        globals_ = getattr(fn, "__globals__", module_globals)
        todo += [globals_[n] for n in found if inspect.isfunction(globals_.get(n))
                 and globals_[n].__module__ == fn.__module__]
    return names


def _modules(names: set[str], module_globals: dict) -> set[str]:
    """The modules (and their parent packages) that the names a test reaches were imported from,
    with the modules its code imports itself (`import x.y` inside a function)."""
    found = set(names)
    for name in names:
        v = module_globals.get(name)
        if inspect.ismodule(v):
            found.add(v.__name__)
        elif inspect.isclass(v) or inspect.isfunction(v):
            found.add(v.__module__ or "")
    return {".".join(n.split(".")[:i + 1]) for n in found for i in range(n.count(".") + 1)}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        defs = [d for fixturedefs in item._fixtureinfo.name2fixturedefs.values() for d in fixturedefs]
        names = _reach([item.function, *(d.func for d in defs)], vars(item.module))
        needs = set(UNSEEN_NEEDS.get((item.path.name, item.originalname), ()))
        if CHROMIUM_FIXTURES & set(item.fixturenames) or CHROMIUM_NAMES & names:
            needs.add("chromium")
        modules = _modules(names, vars(item.module))
        for mark, packages in NEEDS_MODULES.items():
            if set(packages) & modules:
                needs.add(mark)
        for mark in sorted(needs - {m.name for m in item.iter_markers()}):
            item.add_marker(mark)
