"""Candidate generation against real parts: real renders in Chromium, a real SQLite pool store,
and a real HTTP server on 127.0.0.1 speaking OpenAI's chat protocol. The model behind that
server is the one stand-in (`FakeCodeModel`): a code model's and a VLM's weights cannot run here."""

import io
import re
import threading

import pytest
import pytest_asyncio
from servers import _free_port, serve

from brushwork.core.chat import Retry
from brushwork.errors import ConfigError
from brushwork.gate import Gate, GateConfig
from brushwork.painter import paint
from brushwork.pool.generate import Generation, PainterPrompts, generate_openai, generate_procedural
from brushwork.pool.store import PoolStore
from brushwork.render import RenderConfig, Renderer

GATE = Gate()   # the recipe's configuration: 600 x 600
FAST_RETRY = Retry(attempts=3, backoff_s=0.01, timeout_s=30)
CRITIQUE = "The washes bleed softly and the palette is calm. Make the leaves larger and add a deeper second glaze."
CHEAT = ("```javascript\nfunction setup() { createCanvas(600, 600, WEBGL); }\n"
         "function draw() { rect(0, 0, 99, 99); }\n```")


class FakeCodeModel:
    """Stand-in for a code model's (and a VLM critic's) weights.

    As the painter it answers with a procedural painting of the prompt's subject, fenced in
    markdown, a new seed per request so that revisions differ. As the critic (a request that
    carries an image) it answers a short critique. `fail_first` requests get HTTP 500;
    `cheat` answers with a sketch that draws with bare p5; `size` is the canvas its sketches create.
    """

    def __init__(self, fail_first: int = 0, cheat: bool = False, size: int = 600):
        self.fail_first, self.cheat, self.size = fail_first, cheat, size
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def answer(self, body: dict) -> tuple[int, dict]:
        with self.lock:
            self.requests.append(body)
            n = len(self.requests)
        if n <= self.fail_first:
            return 500, {"error": "warming up"}
        last = body["messages"][-1]["content"]
        if isinstance(last, list):   # the critic sees a render
            text = CRITIQUE
        elif self.cheat:
            text = CHEAT
        else:
            subject = re.search(r'Paint (.+) in loose watercolour|Your sketch for "(.+)"', last)
            code = at_size(paint(n, next(g for g in subject.groups() if g)).code, self.size)
            text = f"Here is my painting.\n\n```javascript\n{code}```\n"
        return 200, {"id": f"c{n}", "object": "chat.completion", "model": body["model"],
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                  "finish_reason": "stop"}]}

    def images_seen(self) -> int:
        return sum(isinstance(b["messages"][-1]["content"], list) for b in self.requests)


def at_size(code: str, size: int) -> str:
    """A procedural painting on a `size` x `size` canvas (its shapes stay where they were)."""
    assert "createCanvas(600, 600, WEBGL)" in code
    return code.replace("createCanvas(600, 600, WEBGL)", f"createCanvas({size}, {size}, WEBGL)")


@pytest.mark.parametrize("subject,phrase", [
    ("peach hibiscus", "a peach hibiscus"), ("olive branch", "an olive branch"),
    ("eucalyptus sprig", "a eucalyptus sprig"), ("red poppies", "red poppies"), ("a lotus", "a lotus"),
    ("abstract colour field", "an abstract colour field"),
])
def test_prompts_name_the_subject_with_an_article(subject, phrase):
    assert PainterPrompts.load().user_text(subject) == f"Paint {phrase} in loose watercolour."


def fake_code_model_app(model: FakeCodeModel):
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        status, payload = model.answer(await request.json())
        return JSONResponse(payload, status_code=status)

    return app


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def async_renderer(private_cache):
    async with Renderer(RenderConfig(workers=1, timeout_s=30, cache_dir=private_cache / "renders")) as r:
        yield r


@pytest.fixture
def store(tmp_path):
    return PoolStore.init(tmp_path / "pool")


@pytest.mark.chromium
def test_procedural_paintings_become_items(renderer, store):
    seen = []
    subjects = ["eucalyptus sprig", "autumn leaves", "abstract circles", "pink tulips"]
    generated = generate_procedural(store, renderer, 4, seed=5, subjects=subjects,
                                    on_progress=lambda done, total: seen.append((done, total)), gate=GATE)
    assert isinstance(generated, Generation) and len(generated) == 4 and not generated.errors
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]   # reported as each render finishes
    assert [a.subject for a in generated.attempts] == subjects
    for i, item_id in enumerate(generated):
        item = store.item(item_id)
        assert item.generator == "procedural" and item.subject == subjects[i]
        assert item.prompt == PainterPrompts.load().user_text(subjects[i])
        assert item.provenance["seed"] == 5 + i and item.provenance["params"] == paint(5 + i, subjects[i]).params
        assert store.source_text(item) == paint(5 + i, subjects[i]).code
        assert store.image_bytes(item).startswith(b"\x89PNG")


@pytest.mark.chromium
async def test_two_critique_rounds_chain_their_items(async_renderer, store):
    coder, critic = FakeCodeModel(), FakeCodeModel()
    progress = []
    with serve(fake_code_model_app(coder)) as coder_url, serve(fake_code_model_app(critic)) as critic_url:
        generated = await generate_openai(store, async_renderer, ["fern frond"], base_url=coder_url + "/v1",
                                          model="fake-coder", api_key="sk-test", rounds=2,
                                          critic_base_url=critic_url + "/v1", critic_model="fake-vlm",
                                          retry=FAST_RETRY, on_progress=lambda *done_total: progress.append(done_total),
                                          gate=GATE)
    assert len(generated) == 3 and not generated.errors, generated.errors
    items = [store.item(i) for i in generated]
    assert [it.provenance["critique_round"] for it in items] == [0, 1, 2]
    assert [it.provenance["parent"] for it in items] == [None, items[0].id, items[1].id]
    assert [it.provenance["critique"] for it in items] == [None, CRITIQUE, CRITIQUE]
    assert {it.generator for it in items} == {"openai:fake-coder"}
    assert {it.provenance["model"] for it in items} == {"fake-coder"}
    assert items[0].prompt == items[0].provenance["prompt"] == "Paint a fern frond in loose watercolour."
    assert progress == [(1, 3), (2, 3), (3, 3)]
    # the coder wrote three sketches; the critic saw two renders, as PNG data URLs, at temperature 0
    assert len(coder.requests) == 3 and coder.images_seen() == 0
    assert len(critic.requests) == 2 and critic.images_seen() == 2
    image = critic.requests[0]["messages"][-1]["content"][1]["image_url"]["url"]
    assert image.startswith("data:image/png;base64,") and critic.requests[0]["temperature"] == 0
    assert critic.requests[0]["model"] == "fake-vlm"
    # each revision sees its previous code and the critique
    revise = coder.requests[1]["messages"][-1]["content"]
    assert store.source_text(items[0]).strip() in revise and CRITIQUE in revise


@pytest.mark.chromium
async def test_a_failing_endpoint_is_retried(async_renderer, store):
    model = FakeCodeModel(fail_first=1)
    with serve(fake_code_model_app(model)) as url:
        generated = await generate_openai(store, async_renderer, ["abstract circles"], base_url=url + "/v1",
                                          model="fake-coder", rounds=0, retry=FAST_RETRY, gate=GATE)
    assert len(model.requests) == 2 and len(generated) == 1 and not generated.errors


async def test_an_unreachable_endpoint_is_a_summary_line(store):
    url = f"http://127.0.0.1:{_free_port()}/v1"   # nothing listens there
    progress = []
    generated = await generate_openai(store, renderer=None, subjects=["peach hibiscus", "seascape"], base_url=url,
                                      model="fake-coder", retry=Retry(attempts=2, backoff_s=0.01, timeout_s=2),
                                      on_progress=lambda *done_total: progress.append(done_total), gate=GATE)
    assert len(generated) == 0 and len(generated.attempts) == 2
    assert progress[-1] == (8, 8)   # each chain stopped: its remaining rounds count as settled
    assert all("unreachable" in a.error for a in generated.attempts)
    assert len(generated.errors) == 2 and store.items() == []


@pytest.mark.parametrize("kwargs,match", [
    ({"rounds": -1}, "rounds"), ({"samples_per_subject": 0}, "samples_per_subject"),
    ({"base_url": "127.0.0.1:8000/v1"}, "http://"),
])
async def test_bad_settings_say_how_to_fix_them(store, kwargs, match):
    settings = {"base_url": "http://127.0.0.1:9/v1", "model": "m"} | kwargs
    with pytest.raises(ConfigError, match=match):
        await generate_openai(store, None, ["a lotus"], **settings, gate=GATE)


async def test_gate_failures_are_reported_and_revised_without_a_render(store):
    model = FakeCodeModel(cheat=True)
    with serve(fake_code_model_app(model)) as url:
        generated = await generate_openai(store, renderer=None, subjects=["red poppies"], base_url=url + "/v1",
                                          model="fake-coder", rounds=1, retry=FAST_RETRY, gate=GATE)
    assert len(generated) == 0 and [a.critique_round for a in generated.attempts] == [0, 1]
    assert all("bare_primitive" in a.violations and a.error is None for a in generated.attempts)
    # no render, so no critic call: the gate's verdict is the critique the model revises against
    assert len(model.requests) == 2 and model.images_seen() == 0
    assert "bare_primitive" in model.requests[1]["messages"][-1]["content"]


# -- the gate of a generation is the one its configuration gives --------------------------------
SMALL = Gate(GateConfig(canvas_size=400))


@pytest.mark.chromium
async def test_generation_at_another_size_gates_and_renders_at_that_size(async_renderer, store):
    from PIL import Image

    with serve(fake_code_model_app(FakeCodeModel(size=400))) as url:
        legal = await generate_openai(store, async_renderer, ["fern frond"], base_url=url + "/v1",
                                      model="fake-coder", rounds=0, retry=FAST_RETRY, gate=SMALL)
    assert len(legal) == 1 and not legal.errors, legal.errors   # a 400 x 400 sketch is legal at 400
    assert Image.open(io.BytesIO(store.image_bytes(store.item(legal[0])))).size == (400, 400)
    with serve(fake_code_model_app(FakeCodeModel())) as url:     # the twin: the recipe's 600 x 600 canvas
        refused = await generate_openai(store, async_renderer, ["fern frond"], base_url=url + "/v1",
                                        model="fake-coder", rounds=0, retry=FAST_RETRY, gate=SMALL)
    assert len(refused) == 0 and refused.attempts[0].violations == ("canvas_size",)


@pytest.mark.chromium
def test_procedural_generation_applies_its_gates_canvas_size(renderer, store):
    refused = generate_procedural(store, renderer, 1, seed=5, gate=SMALL)   # the painter paints 600 x 600
    assert len(refused) == 0 and "canvas_size" in refused.attempts[0].violations
    assert len(generate_procedural(store, renderer, 1, seed=5, gate=GATE)) == 1   # its twin, at 600


@pytest.mark.chromium
def test_pool_generate_gates_with_its_size_option(store, tmp_path):
    from typer.testing import CliRunner

    from brushwork.cli import app

    for size, added in ((400, "1 item(s) added"), (600, "0 item(s) added")):
        with serve(fake_code_model_app(FakeCodeModel(size=400))) as url:
            result = CliRunner().invoke(app, ["pool", "generate", str(store.root), "--model", "fake-coder",
                                              "--base-url", url + "/v1", "--subjects", "fern frond", "--rounds", "0",
                                              "--size", str(size), "--workers", "1"])
        assert result.exit_code == 0 and added in result.output, (size, result.output)
