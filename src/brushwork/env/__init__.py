"""The OpenEnv environment: tasks, episodes, the wire types, the server and its client.

    brushwork serve --port 8000                         # the server (brushwork.env.server)
    from brushwork.env import BrushworkEnv, PaintAction  # the client (never imports the server)
    from brushwork.env import EpisodeRunner              # episodes in-process, without a server

Names are imported on first use: `brushwork tasks export` needs neither OpenEnv nor a browser.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "BrushworkEnv": "brushwork.env.client",
    "EnvConnectionError": "brushwork.env.client",
    "EnvServerError": "brushwork.env.client",
    "decode_image": "brushwork.env.client",
    "PaintAction": "brushwork.env.models",
    "PaintObservation": "brushwork.env.models",
    "PaintState": "brushwork.env.models",
    "Episode": "brushwork.env.episode",
    "EpisodeConfig": "brushwork.env.episode",
    "EpisodeRunner": "brushwork.env.episode",
    "Turn": "brushwork.env.episode",
    "Task": "brushwork.env.tasks",
    "make_task": "brushwork.env.tasks",
    "ServerSettings": "brushwork.env.settings",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
