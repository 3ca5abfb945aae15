"""What brushwork uses of OpenEnv, imported in one place.

OpenEnv is the `env` extra (`pip install 'brushwork[env]'`; `[train]` includes it): a base
install gates, renders and scores without it. Every module of this layer that needs OpenEnv
imports it from here, with the WebSocket library its client speaks through, so a missing extra
is one clear error naming the install line, wherever it is first needed (the server, the
client, the wire types).
"""

from __future__ import annotations

from brushwork.errors import DependencyNotInstalled

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, ConcurrencyConfig, EnvironmentMetadata, Observation, State
    from websockets.exceptions import ConnectionClosed, InvalidHandshake
except ModuleNotFoundError as e:
    if not (e.name or "").startswith(("openenv", "websockets")):
        raise
    raise DependencyNotInstalled(f"{e.name.split('.')[0]} (the OpenEnv server and client)", "env") from e

__all__ = ["Action", "ConcurrencyConfig", "ConnectionClosed", "EnvClient", "Environment", "EnvironmentMetadata",
           "InvalidHandshake", "Observation", "State", "StepResult", "create_app"]
