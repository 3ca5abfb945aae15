"""HPSv3 as a Ray Serve application (what the KubeRay GPU group serves), on a local Ray cluster
with the HPSv3 tests' stand-in inferencer (no GPU here), reached by brushwork's own HPSv3 client
over Serve's HTTP proxy; and the RayService manifest that deploys it beside the judge."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from servers import _free_port

from brushwork.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "deploy" / "kuberay-rayservice.yaml"

pytestmark = pytest.mark.ray


@pytest.mark.slow
@pytest.mark.timeout(600)
async def test_hpsv3_on_ray_serve_scores_each_painting_for_its_prompt():
    ray = pytest.importorskip("ray")
    serve = pytest.importorskip("ray.serve")
    import httpx
    from test_judge import painting

    from brushwork.score.backends import HPSv3Client, Retry
    from brushwork.score.ray_serve import hpsv3_app

    port = _free_port()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(ROOT / "tests")}})
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        serve.run(hpsv3_app({"num_gpus": 0, "device": "cpu", "loader": "node_standins:fake_hpsv3_loader"}),
                  name="hpsv3", route_prefix="/hpsv3")
        url = f"http://127.0.0.1:{port}/hpsv3"
        health = httpx.get(f"{url}/health", timeout=30).json()
        client = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.1, timeout_s=60))
        small = await client.score(painting(4), subject="a red hibiscus")
        large = await client.score(painting(20), subject="a misty lake")
        await client.aclose()
    finally:
        serve.shutdown()
        ray.shutdown()
    assert health["status"] in ("ok", "loading")
    assert 0 < small < large < 1             # the stand-in pays more paint more: each painting its own score


def test_the_app_refuses_unknown_args_and_a_loader_it_cannot_import():
    pytest.importorskip("ray.serve")
    from brushwork.score.ray_serve import hpsv3_app

    with pytest.raises(ConfigError, match="hpsv3_app args: gpus: Extra inputs"):
        hpsv3_app({"gpus": 1})
    with pytest.raises(ConfigError, match="cannot import no.such:thing \\(loader\\).*give package.module:function"):
        hpsv3_app({"loader": "no.such:thing"})


def test_the_rayservice_gives_the_judge_and_hpsv3_a_gpu_group():
    docs = list(yaml.safe_load_all(MANIFEST.read_text()))
    service = next(d for d in docs if d["kind"] == "RayService")
    apps = {a["name"]: a for a in yaml.safe_load(service["spec"]["serveConfigV2"])["applications"]}
    assert apps["hpsv3"]["import_path"] == "brushwork.score.ray_serve:hpsv3_app"
    assert apps["hpsv3"]["route_prefix"] == "/hpsv3" and apps["judge"]["route_prefix"] == "/judge"
    judge_model = apps["judge"]["args"]["llm_configs"][0]["model_loading_config"]["model_id"]
    assert judge_model == "Qwen/Qwen3-VL-30B-A3B-Instruct"
    groups = {g["groupName"]: g for g in service["spec"]["rayClusterConfig"]["workerGroupSpecs"]}
    gpu = groups["gpu"]["template"]["spec"]["containers"][0]["resources"]
    assert gpu["limits"]["nvidia.com/gpu"] >= 2       # the judge's GPU and HPSv3's
    from brushwork.score.ray_serve import HPSv3AppArgs

    HPSv3AppArgs.model_validate(apps["hpsv3"]["args"])      # the manifest's args are the app's
