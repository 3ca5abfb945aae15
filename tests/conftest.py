"""Shared fixtures: one real renderer (real Chromium, real p5.brush) per test session, a
private cache folder for everything brushwork caches, and the example pool."""

from __future__ import annotations

import os

import pytest

from brushwork.render import RenderConfig, SyncRenderer


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
    """A warm SyncRenderer (two workers, like CI's two cores)."""
    config = RenderConfig(workers=2, timeout_s=20, cache_dir=private_cache / "renders")
    with SyncRenderer(config) as r:
        yield r


@pytest.fixture(scope="session")
def example_pool(renderer):
    """The bundled example pool, rendered once from its sources by the session's renderer."""
    from brushwork.pool import example_pool_dir, load_pool

    return load_pool(example_pool_dir(), renderer=renderer)
