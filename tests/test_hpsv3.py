"""`brushwork serve-hpsv3` (the real FastAPI app, over a socket) and its client.

HPSv3's weights need a GPU, so the one stand-in is the inferencer (`FakeHPSv3Inferencer`):
it returns (mu, sigma) from brightness, the way HPSv3RewardInferencer.reward returns them.
"""

import base64
import math

import httpx
import numpy as np
import pytest
from servers import serve
from test_judge import painting

from brushwork.errors import SetupError
from brushwork.score.backends import HPSv3Client, Retry, ScorerUnavailable
from brushwork.score.hpsv3_service import create_app


class FakeHPSv3Inferencer:
    calls = 0

    def reward(self, prompts, image_paths):
        FakeHPSv3Inferencer.calls += 1
        assert len(prompts) == len(image_paths)
        return [[(128 - float(np.asarray(im.convert("L")).mean())) / 10, 1.0] for im in image_paths]


def test_service_scores_sigmoid_mu_over_4_and_reports_health():
    loads = []

    def loader(**kwargs):
        loads.append(kwargs)
        return FakeHPSv3Inferencer()

    with serve(create_app(loader=loader, device="cpu")) as url:
        assert httpx.get(f"{url}/health").json() == {"status": "idle", "model_loaded": False, "detail": ""}
        png = painting(20)
        r = httpx.post(f"{url}/score", json={"images": [base64.b64encode(png).decode()] * 2, "prompt": "p"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["scores"]) == 2 and body["scores"][0] == pytest.approx(1 / (1 + math.exp(-body["mu"][0] / 4)))
        assert loads == [{"device": "cpu"}]  # loaded lazily, once
        assert httpx.get(f"{url}/health").json()["model_loaded"] is True
        bad = httpx.post(f"{url}/score", json={"images": ["not base64!"]})
        assert bad.status_code == 422
        extra = httpx.post(f"{url}/score", json={"images": [], "prompt": "p"})
        assert extra.status_code == 422


async def test_client_scores_and_fails_cleanly():
    with serve(create_app(loader=lambda **kw: FakeHPSv3Inferencer())) as url:
        client = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=10))
        dark, light = await client.score(painting(28, (40, 40, 60))), await client.score(painting(4))
        assert 0 < light < dark < 1
        await client.aclose()

    def broken(**kw):
        raise RuntimeError("CUDA out of memory")

    with serve(create_app(loader=broken)) as url:
        client = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=10))
        with pytest.raises(ScorerUnavailable, match="unreachable after 2 attempts"):
            await client.score(painting(10))
        assert httpx.get(f"{url}/health").json()["status"] == "error"


def test_real_loader_names_the_missing_package():
    from brushwork.score.hpsv3_service import load_hpsv3

    with pytest.raises(SetupError, match="pip install hpsv3"):
        load_hpsv3(device="cpu")
