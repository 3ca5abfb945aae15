"""The OpenEnv environment: tasks, episodes, the wire types, the server and its client.

    brushwork serve --port 8000                         # the server (brushwork.env.server)
    from brushwork.env import BrushworkEnv, PaintAction  # the client (never imports the server)
    from brushwork.env import EpisodeRunner              # episodes in-process, without a server

Names are imported on first use: `brushwork tasks export` needs neither OpenEnv nor a browser.
"""

from __future__ import annotations

from brushwork.lazy import lazy_exports

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

__getattr__, __all__ = lazy_exports(__name__, _EXPORTS)
