"""The node's GPU services as processes that need no GPU, for `brushwork node up` in tests:

    python tests/node_standins.py judge --port P   # OpenAI-compatible judge (FakeVLMJudge: schema-bound)
    python tests/node_standins.py hpsv3 --port P   # the real `serve-hpsv3` app with a stand-in inferencer

Each is the same stand-in the judge and HPSv3 tests use, served by uvicorn on 127.0.0.1 with the
health path node up waits for (vLLM's /health; serve-hpsv3's own).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def judge_app():
    from fastapi.responses import JSONResponse
    from servers import FakeVLMJudge, openai_judge_app

    app = openai_judge_app(FakeVLMJudge())

    @app.get("/health")
    async def health():
        return JSONResponse({})      # vLLM answers 200 with an empty body

    return app


def hpsv3_app():
    from test_hpsv3 import FakeHPSv3Inferencer

    from brushwork.score.hpsv3_service import create_app

    return create_app(loader=lambda **_: FakeHPSv3Inferencer(), preload=True)


if __name__ == "__main__":
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("service", choices=["judge", "hpsv3"])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = judge_app() if args.service == "judge" else hpsv3_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


def fake_hpsv3_loader(**_):
    """For `brushwork.score.ray_serve:hpsv3_app`'s `loader` arg: the HPSv3 tests' stand-in."""
    from test_hpsv3 import FakeHPSv3Inferencer

    return FakeHPSv3Inferencer()
