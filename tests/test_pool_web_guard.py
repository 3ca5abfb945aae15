"""The rating page's defences, over real HTTP on 127.0.0.1: a foreign Host (DNS rebinding) or
Origin (a cross-site page) is refused, bodies are bounded and never echoed, and a vote can be
undone only with the receipt its maker got. Each attack sits next to its legal twin."""

from __future__ import annotations

import httpx
import pytest
from servers import serve
from test_pool_web import make_store

from brushwork.pool.web import create_app


@pytest.fixture
def store(tmp_path):
    return make_store(tmp_path / "pool", n=4)


@pytest.fixture
def url(store):
    with serve(create_app(store)) as base:
        yield base


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def rate(url, store, headers=None, **body):
    payload = {"item": store.items()[0].id, "rater": "ana", "tier": "love", **body}
    return httpx.post(f"{url}/api/rate", json=payload, headers=headers or {}, timeout=30)


# -- Host: DNS rebinding -------------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}", "", "[::"])
def test_a_foreign_host_is_refused(url, store, host):
    response = rate(url, store, headers={"Host": host.format(port=port_of(url))})
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error.startswith("refused: Host") and "127.0.0.1" in error and "--host" in error
    assert httpx.get(f"{url}/", headers={"Host": "evil.example"}).status_code == 403
    assert store.ratings() == []


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "127.0.0.1"])
def test_the_local_names_are_served(url, store, host):
    assert rate(url, store, headers={"Host": host.format(port=port_of(url))}).status_code == 200
    assert len(store.ratings()) == 1


def test_the_bound_name_is_served_and_any_ip_only_behind_0_0_0_0(store):
    with serve(create_app(store, host="studio.lan")) as base:
        assert rate(base, store, headers={"Host": "studio.lan:8200"}).status_code == 200
        assert rate(base, store, headers={"Host": "192.168.1.20:8200"}).status_code == 403
    with serve(create_app(store, host="0.0.0.0")) as base:
        assert rate(base, store, headers={"Host": "192.168.1.20:8200"}).status_code == 200
        refused = rate(base, store, headers={"Host": "rebound.evil.example:8200"})
        assert refused.status_code == 403 and "any IP address" in refused.json()["error"]
    assert len(store.ratings()) == 2


# -- Origin: a cross-site page -------------------------------------------------------------------------
@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1.evil.example"])
def test_a_foreign_origin_is_refused(url, store, origin):
    response = rate(url, store, headers={"Origin": origin})
    assert response.status_code == 403
    assert response.json()["error"].startswith(f"refused: a page from {origin!r}")
    assert store.ratings() == []


def test_the_pages_own_origin_is_served(url, store):
    assert rate(url, store, headers={"Origin": url}).status_code == 200
    assert rate(url, store, headers={"Origin": f"http://localhost:{port_of(url)}"}).status_code == 200
    assert len(store.ratings()) == 2


# -- bodies: bounded, never echoed ---------------------------------------------------------------------
def test_a_huge_body_is_refused_unread_and_not_echoed(url, store):
    junk = "x" * (20 * 1024 * 1024)
    response = rate(url, store, note=junk)
    assert response.status_code == 413 and "small JSON object" in response.json()["error"]
    assert len(response.content) < 500
    assert store.ratings() == []


def test_a_bad_body_under_the_limit_is_named_not_echoed(url, store):
    marker = "SECRET-" + "y" * 3000
    response = rate(url, store, stars=marker)
    assert response.status_code == 422
    assert "stars" in response.json()["error"] and "Extra inputs" in response.json()["error"]
    assert "SECRET" not in response.text and "input" not in response.json()["detail"][0]
    broken = httpx.post(f"{url}/api/rate", content=b'{"item": "' + marker.encode(),
                        headers={"content-type": "application/json"})
    assert broken.status_code == 422 and "SECRET" not in broken.text
    long_id = httpx.get(f"{url}/api/item/{marker}")
    assert long_id.status_code == 422 and "SECRET" not in long_id.text
    # the twin: the same request without the stray field lands, with a note of the same size
    assert rate(url, store, note="z" * 1999).status_code == 200


# -- undo: only with the receipt -----------------------------------------------------------------------
def test_a_rater_cannot_undo_anothers_rating(url, store):
    ana = rate(url, store).json()["receipt"]
    named = httpx.post(f"{url}/api/undo", json={"rater": "ana"})
    assert named.status_code == 422 and "receipt" in named.json()["error"]   # a name undoes nothing
    kind, vote, _ = ana.split(".")
    for forged in (f"{kind}.{vote}.{'0' * 32}", f"rating.{int(vote) + 1}.{ana.split('.')[2]}", "rating.1", "x"):
        refused = httpx.post(f"{url}/api/undo", json={"receipt": forged})
        assert refused.status_code == 403 and "only the page that made a rating" in refused.json()["error"]
    assert [r.rater for r in store.ratings()] == ["ana"]
    # the twin: the receipt ana's page got undoes it
    undone = httpx.post(f"{url}/api/undo", json={"receipt": ana}).json()
    assert undone["undone"]["rater"] == "ana" and store.ratings() == []


def test_receipts_outlive_a_restart_of_the_server(store):
    with serve(create_app(store)) as base:
        receipt = rate(base, store).json()["receipt"]
    with serve(create_app(store)) as base:
        assert httpx.post(f"{base}/api/undo", json={"receipt": receipt}).status_code == 200
    assert store.ratings() == []


def test_a_preference_is_undone_by_its_receipt_and_its_pair_comes_back(url, store):
    a, b = (item.id for item in store.items()[:2])
    made = httpx.post(f"{url}/api/prefer", json={"a": a, "b": b, "rater": "ana", "winner": "b"}).json()
    data = httpx.post(f"{url}/api/undo", json={"receipt": made["receipt"]}).json()
    assert data["preference"] == {"a": a, "b": b, "rater": "ana", "winner": "b"}
    assert [v["id"] for v in data["pair"]] == [a, b] and data["progress"]["compared"] == 0
    assert store.preferences() == []
