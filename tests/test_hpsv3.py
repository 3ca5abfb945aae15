"""`brushwork serve-hpsv3` (the real FastAPI app, over a socket) and its client.

HPSv3's weights need a GPU, so the one stand-in is the inferencer (`FakeHPSv3Inferencer`):
it returns (mu, sigma) from brightness, the way HPSv3RewardInferencer.reward returns them,
and records the prompts of every call and how many calls ever ran at once.
"""

import asyncio
import base64
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
from servers import serve
from test_judge import painting

from brushwork.errors import ConfigError, SetupError
from brushwork.score.backends import HPSv3Client, Retry, ScorerUnavailable
from brushwork.score.build import Wiring
from brushwork.score.hpsv3_service import create_app
from brushwork.score.options import ScoringOptions
from brushwork.score.reward import RewardConfig
from brushwork.score.terms import AestheticTerm, Canvas


class FakeHPSv3Inferencer:
    """(mu, sigma) from brightness; records every call's prompts and the most calls at once."""

    def __init__(self, delay_s: float = 0.0):
        self.delay_s = delay_s
        self.calls: list[list[str]] = []
        self.running = self.most_running = 0
        self.lock = threading.Lock()

    def reward(self, prompts, image_paths):
        assert len(prompts) == len(image_paths)
        with self.lock:
            self.calls.append(list(prompts))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        time.sleep(self.delay_s)   # a forward pass takes a while: overlapping calls would show
        with self.lock:
            self.running -= 1
        return [[(128 - float(np.asarray(im.convert("L")).mean())) / 10, 1.0] for im in image_paths]


def b64(png: bytes) -> str:
    return base64.b64encode(png).decode()


def test_service_scores_sigmoid_mu_over_4_and_reports_health():
    loads = []
    fake = FakeHPSv3Inferencer()

    def loader(**kwargs):
        loads.append(kwargs)
        return fake

    with serve(create_app(loader=loader, device="cpu")) as url:
        assert httpx.get(f"{url}/health").json() == {"status": "idle", "model_loaded": False, "detail": ""}
        png = painting(20)
        r = httpx.post(f"{url}/score", json={"images": [b64(png)] * 2, "prompts": ["p", "q"]})
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["scores"]) == 2 and body["scores"][0] == pytest.approx(1 / (1 + math.exp(-body["mu"][0] / 4)))
        assert fake.calls == [["p", "q"]]   # each image with its own prompt, in one call
        assert loads == [{"device": "cpu"}]  # loaded lazily, once
        assert httpx.get(f"{url}/health").json()["model_loaded"] is True
        for bad in ({"images": ["not base64!"], "prompts": ["p"]}, {"images": [], "prompts": []},
                    {"images": [b64(png)] * 2, "prompts": ["p"]}, {"images": [b64(png)]},
                    {"images": [b64(png)], "prompt": "p"}, {"images": [b64(png)], "prompts": ["x" * 2001]}):
            assert httpx.post(f"{url}/score", json=bad).status_code == 422, bad
        one_each = httpx.post(f"{url}/score", json={"images": [b64(png)] * 2, "prompts": ["p"]})
        assert "one prompt per image" in one_each.text


def test_the_service_runs_one_forward_pass_at_a_time():
    """Requests are served in threads; the forward passes never overlap."""
    fake = FakeHPSv3Inferencer(delay_s=0.05)
    with serve(create_app(loader=lambda **kw: fake)) as url:
        def post(n):
            return httpx.post(f"{url}/score", json={"images": [b64(painting(4 + n))], "prompts": [f"p{n}"]},
                              timeout=30)

        with ThreadPoolExecutor(6) as pool:
            assert all(r.status_code == 200 for r in pool.map(post, range(6)))
    assert len(fake.calls) == 6 and fake.most_running == 1


async def test_client_batches_concurrent_paintings_each_with_its_task_prompt():
    fake = FakeHPSv3Inferencer()
    subjects = ["a peach hibiscus", "a lake at dusk", "", "a yellow hibiscus", "a loose watercolour flower"]
    with serve(create_app(loader=lambda **kw: fake)) as url:
        client = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=10))
        scores = await asyncio.gather(*(client.score(painting(4 + 5 * n), subject=s) for n, s in enumerate(subjects)))
        alone = await client.score(painting(4 + 5 * 3), subject="a yellow hibiscus")
        small = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=10), max_batch=2)
        await asyncio.gather(*(small.score(painting(10), subject=s) for s in subjects))
        await client.aclose()
        await small.aclose()
    assert fake.calls[0] == ["a loose watercolour painting of a peach hibiscus",
                             "a loose watercolour painting of a lake at dusk", "a loose watercolour flower",
                             "a loose watercolour painting of a yellow hibiscus", "a loose watercolour flower"]
    assert scores == sorted(set(scores)) and alone == scores[3]   # each its own: more paint scores higher
    assert fake.calls[1] == ["a loose watercolour painting of a yellow hibiscus"]
    assert [len(c) for c in fake.calls[2:]] == [2, 2, 1]
    with pytest.raises(ConfigError, match="max_batch"):
        HPSv3Client(url, max_batch=65)


async def test_the_aesthetic_term_sends_the_task_subject():
    fake = FakeHPSv3Inferencer()
    with serve(create_app(loader=lambda **kw: fake)) as url:
        client = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=10))
        term = AestheticTerm(Wiring(ScoringOptions(), RewardConfig(), given={"aesthetic": client}))
        value = await term(Canvas(code="", png=painting(12), render=None, subject="a coral hibiscus"))
        await client.aclose()
    assert 0 < value.value < 1 and value.remote and fake.calls == [["a loose watercolour painting of a coral hibiscus"]]
    down = HPSv3Client("http://127.0.0.1:9", retry=Retry(attempts=2, backoff_s=0.01, timeout_s=2))   # nothing listens
    term = AestheticTerm(Wiring(ScoringOptions(), RewardConfig(), given={"aesthetic": down}))
    outage = await term(Canvas(code="", png=painting(12), render=None, subject="a coral hibiscus"))
    await down.aclose()
    assert outage.value is None and "unreachable after 2 attempts" in outage.error   # our failure: None, not 0


async def test_client_fails_every_caller_of_a_failed_request_cleanly():
    def broken(**kw):
        raise RuntimeError("CUDA out of memory")

    with serve(create_app(loader=broken)) as url:
        client = HPSv3Client(url, retry=Retry(attempts=2, backoff_s=0.01, timeout_s=10))
        results = await asyncio.gather(client.score(painting(10)), client.score(painting(12), subject="a lake"),
                                       return_exceptions=True)
        assert all(isinstance(r, ScorerUnavailable) and "unreachable after 2 attempts" in str(r) for r in results)
        assert httpx.get(f"{url}/health").json()["status"] == "error"
        await client.aclose()

    def wrong_count(**kw):   # a service that answers with fewer scores than images
        class Short(FakeHPSv3Inferencer):
            def reward(self, prompts, image_paths):
                return super().reward(prompts, image_paths)[:1]
        return Short()

    with serve(create_app(loader=wrong_count)) as url:
        client = HPSv3Client(url, retry=Retry(attempts=1, backoff_s=0.01, timeout_s=10))
        with pytest.raises(ScorerUnavailable, match="one score per image"):
            await asyncio.gather(client.score(painting(10)), client.score(painting(12)))
        await client.aclose()


def test_real_loader_names_the_missing_package():
    from brushwork.score.hpsv3_service import load_hpsv3

    with pytest.raises(SetupError, match="pip install hpsv3"):
        load_hpsv3(device="cpu")
