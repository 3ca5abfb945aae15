"""The rating web page, for real: a pool store in tmp_path, the app on 127.0.0.1 (uvicorn in a
thread, or a subprocess for the durability test), real HTTP, real headless Chromium."""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageDraw, ImageFilter
from servers import _free_port, serve

from brushwork.pool.store import PoolStore
from brushwork.pool.web import create_app

SOURCES = sorted((Path(__file__).parents[1] / "src/brushwork/examples/pool/sources").glob("*.js"))
SCREENSHOT = Path(tempfile.gettempdir()) / "brushwork-pool-rate.png"
BROWSER_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"]


def painting(seed: int, size: int = 480) -> bytes:
    """A soft, varied PNG: blurred washes of colour on warm paper."""
    rng = random.Random(seed)
    image = Image.new("RGB", (size, size), (247, 243, 233))
    draw = ImageDraw.Draw(image)
    for _ in range(9):
        x, y, r = rng.uniform(0.15, 0.85) * size, rng.uniform(0.15, 0.85) * size, rng.uniform(0.07, 0.24) * size
        draw.ellipse((x - r, y - 0.7 * r, x + r, y + 0.7 * r),
                     fill=(rng.randint(120, 240), rng.randint(60, 180), rng.randint(70, 170)))
    buffer = io.BytesIO()
    image.filter(ImageFilter.GaussianBlur(size / 90)).save(buffer, "PNG")
    return buffer.getvalue()


def make_store(root: Path, n: int = 6) -> PoolStore:
    store = PoolStore.init(root)
    for k in range(n):
        store.add_item(painting(k), source=SOURCES[k % len(SOURCES)].read_text(), subject=f"hibiscus study {k + 1}",
                       prompt="a coral hibiscus on ivory paper, loose washes", generator="test-model",
                       provenance={"model": "test-model", "critique_round": k % 2})
    return store


@pytest.fixture
def store(tmp_path) -> PoolStore:
    return make_store(tmp_path / "pool")


@pytest.fixture
def url(store):
    with serve(create_app(store)) as base:
        yield base


@pytest.fixture
def client(url):
    with httpx.Client(base_url=url, timeout=30) as c:
        yield c


# -- the page, in Chromium ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    from brushwork.render.browser import find_chromium

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=find_chromium(), args=BROWSER_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    yield context.new_page()
    context.close()


def as_rater(page, name: str = "ana"):
    page.context.add_init_script(f"localStorage.setItem('brushwork.rater', {name!r})")


def wait_for(page, item: str):
    """Wait until the page shows `item` and takes keys again."""
    page.wait_for_function("([id]) => document.body.dataset.item === id && document.body.dataset.state === 'ready'",
                           arg=[item])


def press(page, key: str, expect: str):
    page.keyboard.press(key)
    wait_for(page, expect)


@pytest.mark.chromium
def test_rate_by_keyboard_skip_undo_reload(page, store, url):
    ids = [item.id for item in store.items()]
    page.goto(url + "/")
    page.fill("#who-name", "ana")
    page.press("#who-name", "Enter")
    wait_for(page, ids[0])
    assert page.text_content("#rater") == "ana"
    assert [b.inner_text().split() for b in page.locator("#tier-buttons button").all()] == \
        [["1", "love"], ["2", "okay"], ["3", "nope"]]
    assert page.locator("#code .token.keyword").count() > 0, "the code panel is highlighted by Prism"
    assert page.locator("#code .token.function").count() > 0
    assert "test-model" not in page.text_content("#facts"), "blind by default: the generator is hidden"
    page.screenshot(path=str(SCREENSHOT))

    press(page, "1", ids[1])
    press(page, "3", ids[2])
    press(page, "2", ids[3])
    assert page.text_content("#progress-text").startswith("3 / 6")
    press(page, "s", ids[4])
    press(page, "u", ids[2])  # the last rating (okay on the third painting) is undone, and we go back to it
    assert [(r.item, r.tier) for r in store.ratings(rater="ana")] == [(ids[0], "love"), (ids[1], "nope")]

    page.reload()
    wait_for(page, ids[2])
    assert page.text_content("#progress-text").startswith("2 / 6")
    assert store.tier_of(ids[0]) == "love" and store.tier_of(ids[1]) == "nope" and store.tier_of(ids[2]) is None


@pytest.mark.chromium
def test_earlier_ratings_hidden_until_asked_for(page, store, url):
    first = store.items()[0].id
    store.rate(first, "ben", "okay")
    as_rater(page)
    page.goto(url + "/")
    wait_for(page, first)
    assert page.text_content("#ratings") == "" and "test-model" not in page.text_content("#facts")
    assert not page.is_checked("#show")
    page.click("#show")
    page.wait_for_function("() => document.querySelector('#ratings').textContent === 'ben: okay'")
    assert "test-model" in page.text_content("#facts")
    assert page.text_content("#subject") == "hibiscus study 1"
    page.click("#show")
    page.wait_for_function("() => document.querySelector('#facts').textContent.indexOf('test-model') < 0")
    assert page.text_content("#ratings") == ""


def test_earlier_ratings_appear_once_the_rater_has_rated(client, store):
    first = store.items()[0].id
    store.rate(first, "ben", "okay")
    before = client.get(f"/api/item/{first}", params={"rater": "ana"}).json()
    assert before["ratings"] is None and before["generator"] is None and before["provenance"] is None
    client.post("/api/rate", json={"item": first, "rater": "ana", "tier": "love"}).raise_for_status()
    after = client.get(f"/api/item/{first}", params={"rater": "ana"}).json()
    assert [(r["rater"], r["tier"]) for r in after["ratings"]] == [("ben", "okay"), ("ana", "love")]
    assert after["generator"] == "test-model"
    asked = client.get("/api/next", params={"rater": "cy", "show": "1"}).json()["item"]
    assert asked["id"] == first and asked["ratings"] is not None   # the twin: asked for, shown before rating


@pytest.mark.chromium
def test_blind_server_hides_generator(page, tmp_path):
    store = make_store(tmp_path / "blind")
    first = store.items()[0].id
    store.rate(first, "ben", "love")
    with serve(create_app(store, blind=True)) as base:
        as_rater(page)
        page.goto(base + "/")
        wait_for(page, first)
        assert "test-model" not in page.content()
        assert page.text_content("#ratings") == ""
        assert page.is_disabled("#show") and not page.is_checked("#show")
        shown = httpx.get(f"{base}/api/item/{first}", params={"show": "1", "rater": "ben"}).json()
        assert shown["generator"] is None and shown["provenance"] is None and shown["ratings"] is None


@pytest.mark.chromium
def test_pairwise_mode_records_a_preference(page, store, url):
    as_rater(page)
    page.goto(url + "/?mode=pair")
    page.wait_for_function("() => document.body.dataset.state === 'ready' && "
                           "(document.body.dataset.item || '').includes('|')")
    a, b = page.evaluate("document.body.dataset.item").split("|")
    page.screenshot(path=str(SCREENSHOT.with_name("brushwork-pool-pair.png")))
    page.keyboard.press("a")
    page.wait_for_function("([shown]) => document.body.dataset.item !== shown && "
                           "document.body.dataset.state === 'ready'", arg=[f"{a}|{b}"])
    [pref] = store.preferences()
    assert (pref.a, pref.b, pref.rater, pref.winner) == (a, b, "ana", "a")
    assert page.text_content("#progress-text") == "1 comparison by ana"

    page.keyboard.press("u")   # undo in compare mode: the preference goes, the same pair comes back
    wait_for(page, f"{a}|{b}")
    assert store.preferences() == [] and page.text_content("#progress-text") == "0 comparisons by ana"
    page.click("[data-winner='tie']")
    page.wait_for_function("() => document.body.dataset.state === 'ready' && "
                           "document.querySelector('#progress-text').textContent === '1 comparison by ana'")
    assert [(p.a, p.b, p.winner) for p in store.preferences()] == [(a, b, "tie")]


# -- the API -------------------------------------------------------------------------------------------------
def test_queue_puts_unrated_first_in_a_stable_order(client, store):
    ids = [item.id for item in store.items()]
    store.rate(ids[0], "ana", "love")
    store.rate(ids[2], "ana", "nope")
    seen, after = [], None
    for _ in range(5):
        data = client.get("/api/next", params={"rater": "ana", **({"after": after} if after else {})}).json()
        after = data["item"]["id"]
        seen.append(after)
    assert seen == [ids[1], ids[3], ids[4], ids[5], ids[1]]  # skipping wraps round the unrated ones
    assert client.get("/api/next", params={"rater": "bo"}).json()["item"]["id"] == ids[0]
    assert client.get("/api/progress", params={"rater": "ana"}).json() == {"rated": 2, "total": 6, "compared": 0}


def test_queue_goes_round_again_when_everything_is_rated(client, store):
    ids = [item.id for item in store.items()]
    for i in ids:
        store.rate(i, "ana", "okay")
    data = client.get("/api/next", params={"rater": "ana", "after": ids[2]}).json()
    assert data["done"] and data["item"]["id"] == ids[3]


def test_undo_takes_a_receipt_back_once(client, store):
    ids = [item.id for item in store.items()]
    receipt = client.post("/api/rate", json={"item": ids[4], "rater": "ana", "tier": "nope"}).json()["receipt"]
    data = client.post("/api/undo", json={"receipt": receipt}).json()
    assert data["undone"]["tier"] == "nope" and data["item"]["id"] == ids[4] and data["progress"]["rated"] == 0
    assert store.ratings() == []
    again = client.post("/api/undo", json={"receipt": receipt})
    assert again.status_code == 409 and "already undone" in again.json()["error"]


def test_pairs_differ_after_a_skip_and_repeat_on_reload(client):
    get = lambda skip: [i["id"] for i in client.get("/api/next", params={  # noqa: E731
        "rater": "ana", "mode": "pair", "skip": skip}).json()["pair"]]
    assert get(0) == get(0)
    assert len(set(get(0))) == 2
    assert any(get(k) != get(0) for k in range(1, 4))


def test_images_are_immutable_by_content_hash(client, store):
    item = store.items()[0]
    response = client.get(f"/img/{item.id}")
    assert response.content == store.image_bytes(item)
    assert response.headers["etag"] == f'"{item.image}"'
    assert "immutable" in response.headers["cache-control"]
    assert client.get(f"/img/{item.id}", headers={"If-None-Match": response.headers["etag"]}).status_code == 304
    assert client.get("/img/0000000000000000").status_code == 404


def test_page_is_served_locally_behind_a_csp(client):
    page = client.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'src="/vendor/prism.js"' in page.text and "http" not in page.text.replace("http-equiv", "")
    assert "Prism" in client.get("/vendor/prism.js").text


# Each bad request next to the valid one it differs from.
VALID_RATE = {"item": None, "rater": "ana", "tier": "love"}
BAD_REQUESTS = [
    # (method, path, body or params, status, words the message must contain)
    ("post", "/api/rate", {"rater": "ana", "tier": "love"}, 422, ["item", "Field required"]),
    ("post", "/api/rate", {**VALID_RATE, "rater": "   "}, 422, ["rater", "at least 1 character"]),
    ("post", "/api/rate", {**VALID_RATE, "stars": 5}, 422, ["stars", "Extra inputs are not permitted"]),
    ("post", "/api/rate", {**VALID_RATE, "tier": "meh"}, 400, ["'meh'", "love, okay, nope"]),
    ("post", "/api/rate", {**VALID_RATE, "item": "no-such-item"}, 404, ["no item 'no-such-item'"]),
    ("post", "/api/undo", {}, 422, ["receipt", "Field required"]),
    ("post", "/api/prefer", {"a": None, "b": None, "rater": "ana", "winner": "left"}, 422,
     ["winner", "'a', 'b' or 'tie'"]),
    ("post", "/api/prefer", {"a": None, "b": "SAME", "rater": "ana", "winner": "a"}, 400, ["two different items"]),
    ("get", "/api/next", {"rater": "ana", "mode": "stars"}, 422, ["mode", "'tier' or 'pair'"]),
    ("get", "/api/next", {}, 422, ["rater", "Field required"]),
    ("get", "/api/next", {"rater": "ana", "after": "nope"}, 404, ["no item 'nope'"]),
]


@pytest.mark.parametrize("method, path, payload, status, words", BAD_REQUESTS)
def test_bad_input_gets_a_clear_error(client, store, method, path, payload, status, words):
    ids = [item.id for item in store.items()]
    payload = {k: ({None: ids[0], "SAME": ids[0]}.get(v, v) if k in ("item", "a", "b") else v)
               for k, v in payload.items()}
    response = client.post(path, json=payload) if method == "post" else client.get(path, params=payload)
    assert response.status_code == status, response.text
    for word in words:
        assert word in response.json()["error"]
    assert store.ratings() == [] and store.preferences() == []


def test_valid_requests_next_to_the_bad_ones_pass(client, store):
    ids = [item.id for item in store.items()]
    assert client.post("/api/rate", json={**VALID_RATE, "item": ids[0], "rater": "  ana "}).status_code == 200
    preference = {"a": ids[0], "b": ids[1], "rater": "ana", "winner": "tie"}
    assert client.post("/api/prefer", json=preference).status_code == 200
    assert [r.rater for r in store.ratings()] == ["ana"]


# -- safety: concurrency and crashes ------------------------------------------------------------------------
def test_raters_posting_at_once_all_land(client, store):
    ids = [item.id for item in store.items()]
    raters = [f"rater{k}" for k in range(4)]
    errors: list[str] = []

    def rate_all(rater: str):
        with httpx.Client(base_url=str(client.base_url), timeout=30) as c:
            for round_ in range(3):
                for i, item in enumerate(ids):
                    r = c.post("/api/rate", json={"item": item, "rater": rater, "tier": store.tiers[(i + round_) % 3]})
                    if r.status_code != 200:
                        errors.append(r.text)

    threads = [threading.Thread(target=rate_all, args=(r,)) for r in raters]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for rater in raters:
        assert len(store.ratings(rater=rater)) == 3 * len(ids)
        assert client.get("/api/progress", params={"rater": rater}).json()["rated"] == len(ids)


def test_acknowledged_rating_survives_kill_9(tmp_path):
    store = make_store(tmp_path / "pool", n=3)
    item = store.items()[1].id
    store.close()
    port = _free_port()
    code = f"from brushwork.pool.web import serve; serve({str(tmp_path / 'pool')!r}, port={port})"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/api/config", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        response = httpx.post(f"{base}/api/rate", json={"item": item, "rater": "ana", "tier": "love"}, timeout=10)
        assert response.status_code == 200
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    [rating] = PoolStore(tmp_path / "pool").ratings()
    assert (rating.id, rating.item, rating.rater, rating.tier) == (response.json()["rating"], item, "ana", "love")


# -- active rating: the page asks what an injected chooser picks (`pool serve --active`) -------------------
def active_store(root: Path) -> PoolStore:
    """Four paintings of one subject first, then three of others: the plain queue asks the four first."""
    store = PoolStore.init(root)
    for k, subject in enumerate(["coral hibiscus"] * 4 + ["red poppies", "pink tulips", "misty hills"]):
        store.add_item(painting(10 + k), source=SOURCES[k % len(SOURCES)].read_text(), subject=subject,
                       prompt="a watercolour", generator="test-model")
    return store


@pytest.fixture
def active(tmp_path):
    from brushwork.score.taste.active import ActiveChooser

    store = active_store(tmp_path / "active")
    chooser = ActiveChooser(store)
    with serve(create_app(store, choose_next=chooser)) as base:
        yield store, chooser, base
    chooser.close()


def shown_why(page) -> str:
    return page.text_content("#why") if page.is_visible("#why") else ""


@pytest.mark.chromium
def test_active_page_follows_the_chooser_and_says_why(page, active):
    store, chooser, base = active
    plain = [item.id for item in store.items()]
    as_rater(page)
    page.goto(base + "/")
    first = chooser.next_item("ana").ids[0]
    wait_for(page, first)
    assert page.is_visible("#active-badge")
    assert shown_why(page).startswith("cold start (no ratings in two tiers yet): spreading over subjects")

    # one tier rated: the model cannot be fit yet, the cold-start rule asks (seeded by rater and count,
    # so this is the answer the page gets once its rating lands)
    rating = store.rate(first, "ana", "love")
    second = chooser.next_item("ana", after=first).ids[0]
    store.delete_rating(rating)
    press(page, "1", second)
    assert chooser.settle()                                   # the refit the page asked for (one tier: none)
    page.keyboard.press("3")
    page.wait_for_function("([shown]) => document.body.dataset.item !== shown && "
                           "document.body.dataset.state === 'ready'", arg=[second])
    third = page.evaluate("document.body.dataset.item")
    assert shown_why(page).startswith("cold start"), "the first fit on two tiers is not awaited"
    served = [first, second, third]
    assert len({store.item(i).subject for i in served}) == 3, "spread over subjects"
    assert served != plain[:3], "the plain queue asks three coral hibiscus first"
    assert [(r.item, r.tier) for r in store.ratings(rater="ana")] == [(first, "love"), (second, "nope")]

    # two tiers rated: the background fit lands, and the next question is the model's
    assert chooser.settle()
    expected = chooser.next_item("ana", after=third)
    assert expected.why.startswith("the model is unsure: love 0.")
    press(page, "s", expected.ids[0])
    assert shown_why(page) == expected.why
    assert "nope 0." in shown_why(page)
    page.screenshot(path=str(SCREENSHOT.with_name("brushwork-pool-active.png")))


@pytest.mark.chromium
def test_active_pair_mode_shows_why_and_records_the_preference(page, active):
    store, chooser, base = active
    as_rater(page)
    page.goto(base + "/?mode=pair")
    page.wait_for_function("() => document.body.dataset.state === 'ready' && "
                           "(document.body.dataset.item || '').includes('|')")
    a, b = page.evaluate("document.body.dataset.item").split("|")
    assert (a, b) == chooser.next_pair("ana").ids
    assert store.item(a).subject != store.item(b).subject
    assert page.text_content("#pair-why").startswith("cold start (nothing to fit on yet)")
    page.keyboard.press("b")
    page.wait_for_function("([shown]) => document.body.dataset.item !== shown && "
                           "document.body.dataset.state === 'ready'", arg=[f"{a}|{b}"])
    [pref] = store.preferences()
    assert (pref.a, pref.b, pref.rater, pref.winner) == (a, b, "ana", "b")


def test_active_api_says_why_and_plain_api_does_not(active, client):
    store, chooser, base = active
    config = httpx.get(f"{base}/api/config").json()
    assert config["active"] is True and client.get("/api/config").json()["active"] is False
    data = httpx.get(f"{base}/api/next", params={"rater": "ana"}).json()
    assert data["item"]["id"] == chooser.next_item("ana").ids[0] and data["why"].startswith("cold start")
    assert client.get("/api/next", params={"rater": "ana"}).json()["why"] is None
    assert httpx.get(f"{base}/api/next", params={"rater": "ana", "after": "nope"}).status_code == 404


def test_active_mode_keeps_a_stores_fixed_pairs_and_hands_back_when_all_are_rated(tmp_path):
    from brushwork.score.taste.active import ActiveChooser

    store = active_store(tmp_path / "fixed")
    ids = [item.id for item in store.items()]
    store.set_pairs([(ids[5], ids[0])])
    chooser = ActiveChooser(store, background=False)
    with serve(create_app(store, choose_next=chooser)) as base:
        pair = httpx.get(f"{base}/api/next", params={"rater": "ana", "mode": "pair"}).json()
        assert [v["id"] for v in pair["pair"]] == [ids[5], ids[0]] and pair["why"] is None
        for item in ids:
            store.rate(item, "ana", "okay")
        data = httpx.get(f"{base}/api/next", params={"rater": "ana", "after": ids[2]}).json()
        assert data["done"] and data["item"]["id"] == ids[3] and data["why"] is None


def test_cli_serve_active_injects_the_chooser(tmp_path):
    store = active_store(tmp_path / "cli")
    store.close()
    port = _free_port()
    cli = Path(sys.executable).with_name("brushwork")
    proc = subprocess.Popen([str(cli), "pool", "serve", str(tmp_path / "cli"), "--active", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                config = httpx.get(f"{base}/api/config", timeout=1).json()
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        assert config["active"] is True
        assert httpx.get(f"{base}/api/next", params={"rater": "ana"}, timeout=10).json()["why"].startswith("cold start")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


# -- the layout, phone to desktop --------------------------------------------------------------------------
def layout_problems(page) -> list[str]:
    """What a rater could not reach: a horizontal scroll, or a visible button cut off the screen."""
    return page.evaluate("""() => {
        const problems = [];
        const width = document.documentElement.clientWidth;
        const scrolled = document.documentElement.scrollWidth;
        if (scrolled > width) problems.push(`page ${scrolled} > ${width}`);
        for (const b of document.querySelectorAll('.keys:not([hidden]) button')) {
            const r = b.getBoundingClientRect();
            if (r.left < 0 || r.right > width || r.top < 0 || r.bottom > window.innerHeight || r.width < 40)
                problems.push(`${b.textContent.trim()} at ${Math.round(r.left)}..${Math.round(r.right)}, `
                              + `${Math.round(r.top)}..${Math.round(r.bottom)}`);
        }
        return problems;
    }""")


@pytest.mark.chromium
@pytest.mark.parametrize("width, height", [(390, 844), (1400, 900)])
def test_every_button_is_on_screen_from_phone_to_desktop(browser, store, url, tmp_path, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        as_rater(page, "a rater with a long name")
        first = store.items()[0].id
        page.goto(url + "/")
        wait_for(page, first)
        assert page.locator("#tier-buttons button").count() == 3
        assert layout_problems(page) == []
        page.screenshot(path=str(tmp_path / f"rate-{width}.png"))
        press(page, "2", store.items()[1].id)     # and it still rates by key at this width
        page.goto(url + "/?mode=pair")
        page.wait_for_function("() => document.body.dataset.state === 'ready' && "
                               "(document.body.dataset.item || '').includes('|')")
        assert page.locator("#pair-keys button").count() == 5
        assert layout_problems(page) == []
        page.screenshot(path=str(tmp_path / f"pair-{width}.png"))
    finally:
        context.close()
