"""HPSv3 as a Ray Serve application, for a Ray cluster's GPU workers (deploy/kuberay-rayservice.yaml).

The same FastAPI app as `brushwork serve-hpsv3` (`hpsv3_service.create_app`: the task's prompt per
painting, batched requests, one forward pass at a time in each replica) behind Ray Serve's HTTP
proxy, so `--aesthetic hpsv3 --hpsv3-url http://HEAD:8000/hpsv3` reaches it like the plain service.
Ray Serve builds it from its import path with the application's `args`:

    import_path: brushwork.score.ray_serve:hpsv3_app
    args: {device: cuda, num_gpus: 1, replicas: 1, checkpoint: null, loader: null}

`loader` ("package.module:function", called with device= and checkpoint=) replaces the real HPSv3
loader: a stand-in in tests, a loader of your own elsewhere. Needs `pip install 'brushwork[serve]'`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from brushwork.core.imports import import_spec
from brushwork.errors import ConfigError, SetupError


class HPSv3AppArgs(BaseModel):
    """The application's `args` in a Serve config; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")

    device: str = "cuda"
    checkpoint: str | None = None
    num_gpus: float = Field(1.0, ge=0, description="GPUs each replica holds (0: a CPU replica)")
    replicas: int = Field(1, ge=1)
    loader: str | None = Field(None, description="package.module:function that loads the inferencer")


def hpsv3_app(args: dict | None = None):
    """The Serve application (an app builder: Ray Serve calls it with the config's `args`)."""
    try:
        from ray import serve
    except ImportError as e:
        raise SetupError("Ray Serve is not installed: pip install 'brushwork[serve]'") from e
    from brushwork.score.hpsv3_service import create_app, load_hpsv3

    try:
        options = HPSv3AppArgs.model_validate(args or {})
    except ValidationError as e:
        first = e.errors()[0]
        raise ConfigError(f"hpsv3_app args: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    loader = import_spec(options.loader, "loader", "package.module:function") if options.loader else load_hpsv3
    app = create_app(loader=loader, preload=True, device=options.device, checkpoint=options.checkpoint)

    @serve.deployment(name="hpsv3", num_replicas=options.replicas,
                      ray_actor_options={"num_gpus": options.num_gpus})
    @serve.ingress(app)
    class HPSv3:
        """One replica: the model loads at start, forward passes one at a time."""

    return HPSv3.bind()
