"""Shared fixtures: one real renderer (real Chromium, real p5.brush) per test session."""

from __future__ import annotations

import pytest

from brushwork.render import RenderConfig, SyncRenderer


@pytest.fixture(scope="session")
def renderer(tmp_path_factory):
    """A warm SyncRenderer with a private cache folder (two workers, like CI's two cores)."""
    config = RenderConfig(workers=2, timeout_s=45, cache_dir=tmp_path_factory.mktemp("render-cache"))
    with SyncRenderer(config) as r:
        yield r
