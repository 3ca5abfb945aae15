"""Where brushwork keeps its caches ($BRUSHWORK_CACHE, else $XDG_CACHE_HOME/brushwork, else
~/.cache/brushwork) and its bundled example replies."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    env = os.environ.get("BRUSHWORK_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "brushwork"


def example_files() -> list[Path]:
    """The bundled example replies (src/brushwork/examples/*.md), by name."""
    from importlib import resources

    folder = resources.files("brushwork").joinpath("examples")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".md"))
