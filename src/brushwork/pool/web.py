"""The rating web page (`brushwork pool serve`): one HTML page and a small JSON API over a PoolStore.

The server keeps no rater state in memory. The queue and progress are read back from the
store on every request, and every rating or preference is one INSERT that the store commits
(WAL, synchronous=FULL) before the endpoint answers. So several raters, the CLI and a crash in
the middle leave the pool consistent, and a 200 means the vote is on disk.

Undo is tied to whoever made the vote, not to a name: each rating or preference is answered
with a receipt (its id, signed with a key kept in the store), and /api/undo takes a receipt.
Names are typed by raters and prove nothing, so knowing a rater's name undoes nothing of theirs.

Blind by default: a painting's generator, provenance and earlier ratings stay hidden until the
rater has rated it, unless the page asks to show them (`show`); `blind=True` (`pool serve
--blind`, the A/B test) hides them always. Pairs are always shown blind. `brushwork.pool.guard`
refuses foreign Host and Origin headers and bounds request bodies before this app runs.

With a `choose_next` hook (`brushwork pool serve --active` passes the taste model's active
chooser) the page asks about what the hook picks, and says why; without one, or when the hook
has nothing to pick, it follows the plain queue below. A store's fixed pairs are never reordered.

Endpoints: GET / (the page), GET /api/config, GET /api/next, GET /api/item/{id},
GET /api/progress, POST /api/rate, POST /api/undo, POST /api/prefer, GET /img/{id}.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import socket
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from brushwork.errors import ConfigError, SetupError
from brushwork.pool.choice import Choice, ChooseNext
from brushwork.pool.guard import Guard, bind
from brushwork.pool.store import Item, PoolStore
from brushwork.pool.wire import (
    ConfigOut,
    ItemId,
    ItemView,
    NextOut,
    PreferenceView,
    PreferIn,
    PreferOut,
    Progress,
    RateIn,
    RateOut,
    Rater,
    RatingView,
    UndoIn,
    UndoOut,
)

# The page loads nothing from outside 127.0.0.1; sketch sources are shown as text, never run.
CSP = ("default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'; form-action 'none'")
IMMUTABLE = "public, max-age=31536000, immutable"


# -- the queue, read from the store on every request ------------------------------------------
# NOT IN builds the rater's set once; a correlated NOT EXISTS rescanned it per item (O(items x rated)).
UNRATED_AFTER = """SELECT id FROM items WHERE (created, id) > (?, ?)
    AND id NOT IN (SELECT item FROM ratings WHERE rater = ?) ORDER BY created, id LIMIT 1"""
ANY_AFTER = "SELECT id FROM items WHERE (created, id) > (?, ?) ORDER BY created, id LIMIT 1"
START = (-1.0, "")


def _get_item(store: PoolStore, item_id: str) -> Item:
    try:
        return store.item(item_id)
    except ConfigError as e:
        raise HTTPException(404, f"no item {item_id!r} in this pool") from e


def next_item(store: PoolStore, rater: str, after: str | None) -> tuple[str | None, bool]:
    """The item after `after` in the rater's queue: unrated items first in a stable order (created,
    id), wrapping round; once every item is rated, all items again. Returns (id, all rated)."""
    start = START
    if after:
        item = _get_item(store, after)
        start = (item.created, item.id)
    for query, args in ((UNRATED_AFTER, (rater,)), (ANY_AFTER, ())):
        for position in (start, START):
            row = store.db.execute(query, (*position, *args)).fetchone()
            if row:
                return row[0], query is ANY_AFTER
    return None, True


def next_pair(store: PoolStore, rater: str, skip: int) -> tuple[str, str] | None:
    """Two paintings for the rater to compare. When the store fixes its pairs, the next of them
    the rater has not judged, in order, sides as stored (None once all are judged). Otherwise one
    they have compared least, against a partner they have not yet seen it beside, seeded by
    (rater, their preference count, skips), so a reload shows the same pair and a skip another."""
    fixed = store.pairs()
    if fixed:
        return _next_fixed(store, fixed, rater, skip)
    ids = [row[0] for row in store.db.execute("SELECT id FROM items ORDER BY created, id")]
    if len(ids) < 2:
        return None
    seen = [tuple(row) for row in store.db.execute("SELECT a, b FROM preferences WHERE rater=?", (rater,))]
    counts = Counter(x for pair in seen for x in pair)
    paired = {frozenset(pair) for pair in seen}
    rng = random.Random(f"{rater}\n{len(seen)}\n{skip}")
    first = rng.choice(_fewest(ids, counts))
    partners = [i for i in ids if i != first and frozenset((first, i)) not in paired]
    second = rng.choice(_fewest(partners or [i for i in ids if i != first], counts))
    return (first, second) if rng.random() < 0.5 else (second, first)


def _next_fixed(store: PoolStore, fixed: list[tuple[str, str]], rater: str, skip: int) -> tuple[str, str] | None:
    judged = Counter(frozenset(row) for row in store.db.execute("SELECT a, b FROM preferences WHERE rater=?",
                                                                 (rater,)))
    open_ = []
    for pair in fixed:
        if judged[frozenset(pair)] > 0:
            judged[frozenset(pair)] -= 1
        else:
            open_.append(pair)
    return open_[skip % len(open_)] if open_ else None


def _fewest(ids: list[str], counts: Counter) -> list[str]:
    low = min(counts[i] for i in ids)
    return [i for i in ids if counts[i] == low]


def progress(store: PoolStore, rater: str) -> Progress:
    one = lambda q, *args: store.db.execute(q, args).fetchone()[0]  # noqa: E731
    return Progress(rated=one("SELECT COUNT(DISTINCT item) FROM ratings WHERE rater=?", rater),
                    total=one("SELECT COUNT(*) FROM items"),
                    compared=one("SELECT COUNT(*) FROM preferences WHERE rater=?", rater))


def item_view(store: PoolStore, item: Item, reveal: bool, with_source: bool = True) -> ItemView:
    view = ItemView(id=item.id, image=f"/img/{item.id}", subject=item.subject, prompt=item.prompt,
                    source=store.source_text(item) if with_source else None)
    if not reveal:
        return view
    ratings = [RatingView(rater=r.rater, tier=r.tier, created=r.created) for r in store.ratings(item.id)]
    return view.model_copy(update={"generator": item.generator, "provenance": item.provenance, "ratings": ratings})


def has_rated(store: PoolStore, rater: str, item_id: str) -> bool:
    return store.db.execute("SELECT 1 FROM ratings WHERE rater=? AND item=? LIMIT 1",
                            (rater.strip(), item_id)).fetchone() is not None


# -- undo receipts --------------------------------------------------------------------------------------
class Receipts:
    """Signed vote ids: `rating.<id>.<mac>` or `preference.<id>.<mac>`. The key lives in the
    store's meta table, so receipts outlive a restart of the server and nobody forges one
    without the pool folder (whoever has that can edit the votes anyway)."""

    def __init__(self, store: PoolStore):
        store.db.execute("INSERT OR IGNORE INTO meta VALUES ('undo_key', ?)", (secrets.token_hex(32),))
        self._key = bytes.fromhex(store.db.execute("SELECT value FROM meta WHERE key='undo_key'").fetchone()[0])

    def _mac(self, kind: str, vote: int) -> str:
        return hmac.new(self._key, f"{kind}:{vote}".encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self, kind: str, vote: int) -> str:
        return f"{kind}.{vote}.{self._mac(kind, vote)}"

    def read(self, receipt: str) -> tuple[str, int]:
        kind, _, rest = receipt.partition(".")
        vote, _, mac = rest.partition(".")
        if kind not in ("rating", "preference") or not vote.isdigit() \
                or not hmac.compare_digest(mac, self._mac(kind, int(vote))):
            raise HTTPException(403, "not a receipt this pool issued: only the page that made a rating can undo "
                                     "it (rate the painting again to change your rating)")
        return kind, int(vote)


# -- static files --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str

    @property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.body).hexdigest()[:32]}"'


def load_assets() -> dict[str, Asset]:
    """The page's files and Prism, all package data (scripts/vendor_libs.py copies Prism in)."""
    from brushwork.render.assets import PACKAGE_LIBS

    static = resources.files("brushwork.pool").joinpath("static")
    assets = {f"/static/{name}": Asset(static.joinpath(name).read_bytes(), media)
              for name, media in (("rate.js", "text/javascript"), ("rate.css", "text/css"))}
    assets["/"] = Asset(static.joinpath("rate.html").read_bytes(), "text/html; charset=utf-8")
    prism = PACKAGE_LIBS / "prism.js"
    try:
        assets["/vendor/prism.js"] = Asset(prism.read_bytes(), "text/javascript")
    except OSError as e:
        raise SetupError(f"Prism is missing from the package ({prism}): reinstall brushwork (every wheel carries "
                         "it), or in a checkout run `make setup` (scripts/vendor_libs.py copies it in)") from e
    return assets


def _fresh(request: Request, etag: str) -> bool:
    """The browser's cached copy is current (If-None-Match names this ETag)."""
    tags = request.headers.get("if-none-match", "")
    return any(t.strip().removeprefix("W/") in (etag, "*") for t in tags.split(","))


def _cached(request: Request, body: bytes | None, media_type: str, etag: str, cache: str,
            extra: dict | None = None) -> Response:
    headers = {"ETag": etag, "Cache-Control": cache, "X-Content-Type-Options": "nosniff", **(extra or {})}
    if _fresh(request, etag) or body is None:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


# -- the app -----------------------------------------------------------------------------------------
def _problems(exc: RequestValidationError) -> list[dict]:
    """Where and what, never the input: a request's body is not sent back to it."""
    return [{"loc": [str(p) for p in error["loc"]][:8], "msg": str(error["msg"])[:200]} for error in exc.errors()[:20]]


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        problems = _problems(exc)
        said = "; ".join(f"{'.'.join(p['loc'][1:]) or p['loc'][0]}: {p['msg']}" for p in problems)
        return JSONResponse({"error": f"invalid request: {said}", "detail": problems}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


def _chosen(store: PoolStore, choose_next: ChooseNext | None, rater: str, mode: str, after: str | None,
            skip: int) -> Choice | None:
    """The hook's pick, when there is a hook, it picks, and the store does not fix its pairs."""
    if choose_next is None or (mode == "pair" and store.pairs()):
        return None
    choice = choose_next(rater, mode, after, skip)
    if choice is not None:
        for item_id in choice.ids:
            store.item(item_id)   # a hook naming an unknown item is a bug in the hook: fail loudly
    return choice


def create_app(store: PoolStore, blind: bool = False, choose_next: ChooseNext | None = None,
               host: str = "127.0.0.1") -> FastAPI:
    """The rating page and its API over `store`, behind `brushwork.pool.guard.Guard` (`host`: the
    name or address it is bound to, which Host headers may name besides 127.0.0.1 and localhost).
    `blind` hides generators, provenance and earlier ratings from every client, always.
    `choose_next` picks what the page asks next (active rating; see brushwork.pool.choice)."""
    assets, receipts = load_assets(), Receipts(store)
    app = FastAPI(title="brushwork pool", docs_url=None, redoc_url=None)
    app.add_middleware(Guard, bound_host=host)
    _install_error_handlers(app)
    tiers = ", ".join(store.tiers)

    def reveal(rater: str | None, item_id: str, show: bool) -> bool:
        return not blind and (show or (rater is not None and has_rated(store, rater, item_id)))

    @app.get("/", include_in_schema=False)
    @app.get("/static/{name}", include_in_schema=False)
    @app.get("/vendor/prism.js", include_in_schema=False)
    def static(request: Request) -> Response:
        asset = assets.get(request.url.path)
        if asset is None:
            raise HTTPException(404, "no such file")
        extra = {"Content-Security-Policy": CSP} if request.url.path == "/" else None
        return _cached(request, asset.body, asset.media_type, asset.etag, "no-cache", extra)

    @app.get("/img/{item_id}", include_in_schema=False)
    def image(item_id: Annotated[ItemId, PathParam()], request: Request) -> Response:
        item = _get_item(store, item_id)
        etag = f'"{item.image}"'
        body = None if _fresh(request, etag) else store.image_bytes(item)
        return _cached(request, body, "image/png", etag, IMMUTABLE)

    @app.get("/api/config")
    def config() -> ConfigOut:
        return ConfigOut(tiers=list(store.tiers), blind=blind, active=choose_next is not None,
                         total=store.db.execute("SELECT COUNT(*) FROM items").fetchone()[0])

    @app.get("/api/next")
    def next_(rater: Annotated[Rater, Query()], mode: Literal["tier", "pair"] = "tier",
              after: Annotated[ItemId | None, Query(description="the item shown now (tier mode)")] = None,
              skip: Annotated[int, Query(ge=0, le=1_000_000, description="pairs skipped (pair mode)")] = 0,
              show: Annotated[bool, Query(description="show earlier ratings before rating")] = False) -> NextOut:
        if after:
            _get_item(store, after)
        choice = _chosen(store, choose_next, rater, mode, after, skip)
        why = choice.why if choice else None
        if mode == "pair":
            pair = choice.ids if choice else next_pair(store, rater, skip)
            views = [item_view(store, store.item(i), False, with_source=False) for i in pair] if pair else None
            return NextOut(mode="pair", pair=views, done=pair is None and bool(store.pairs()), why=why,
                           progress=progress(store, rater))
        item_id, done = (choice.ids[0], False) if choice else next_item(store, rater, after)
        view = item_view(store, store.item(item_id), reveal(rater, item_id, show)) if item_id else None
        return NextOut(mode="tier", item=view, done=done, why=why, progress=progress(store, rater))

    @app.get("/api/item/{item_id}")
    def item(item_id: Annotated[ItemId, PathParam()], rater: Annotated[Rater | None, Query()] = None,
             show: bool = False) -> ItemView:
        found = _get_item(store, item_id)
        return item_view(store, found, reveal(rater, found.id, show))

    @app.get("/api/progress")
    def progress_(rater: Annotated[Rater, Query()]) -> Progress:
        return progress(store, rater)

    @app.post("/api/rate")
    def rate(body: RateIn) -> RateOut:
        if body.tier not in store.tiers:
            raise HTTPException(400, f"unknown tier {body.tier!r}: the tiers are {tiers}")
        _get_item(store, body.item)
        rating = store.rate(body.item, body.rater, body.tier, body.note)  # committed when it returns
        return RateOut(rating=rating, receipt=receipts.issue("rating", rating), progress=progress(store, body.rater))

    @app.post("/api/undo")
    def undo(body: UndoIn, show: bool = False) -> UndoOut:
        kind, vote = receipts.read(body.receipt)
        if kind == "preference":
            gone = store.delete_preference(vote)
            if gone is None:
                raise HTTPException(409, "that preference is already undone")
            pair = [item_view(store, store.item(i), False, with_source=False) for i in (gone.a, gone.b)]
            return UndoOut(preference=PreferenceView(a=gone.a, b=gone.b, rater=gone.rater, winner=gone.winner),
                           pair=pair, progress=progress(store, gone.rater))
        undone = store.delete_rating(vote)
        if undone is None:
            raise HTTPException(409, "that rating is already undone")
        view = item_view(store, store.item(undone.item), reveal(undone.rater, undone.item, show))
        return UndoOut(undone=RatingView(rater=undone.rater, tier=undone.tier, created=undone.created),
                       item=view, progress=progress(store, undone.rater))

    @app.post("/api/prefer")
    def prefer(body: PreferIn) -> PreferOut:
        if body.a == body.b:
            raise HTTPException(400, "a preference needs two different items")
        _get_item(store, body.a), _get_item(store, body.b)
        preference = store.prefer(body.a, body.b, body.rater, body.winner)
        return PreferOut(preference=preference, receipt=receipts.issue("preference", preference),
                         progress=progress(store, body.rater))

    return app


def serve(root: Path | str, host: str = "127.0.0.1", port: int = 8200, blind: bool = False,
          choose_next: ChooseNext | None = None, announce=None, sock: socket.socket | None = None) -> None:
    """Serve the rating page for the pool store at `root` until interrupted, on `sock` when given
    (`brushwork.pool.guard.bind`), else on a socket bound here. The port is taken and the page's
    files are read before `announce(url)` is called, so a printed URL works."""
    import uvicorn

    sock = sock or bind(host, port)
    try:
        app = create_app(PoolStore(root), blind=blind, choose_next=choose_next, host=host)
        shown = f"[{host}]" if ":" in host else host
        if announce is not None:
            announce(f"http://{shown}:{sock.getsockname()[1]}/")
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
        server.run(sockets=[sock])
    finally:
        sock.close()
