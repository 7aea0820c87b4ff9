"""The FastAPI application: HTTP routes, the WebSocket endpoint, ``/healthz`` and ``/metrics``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import html
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from babel.messages.extract import extract
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import ValidationError
from starlette.requests import ClientDisconnect

from chinchon.errors import N_
from chinchon.i18n import is_rtl, translation
from chinchon.rules import Rules, RulesError
from chinchon.server.accounts import SESSION_COOKIE, Accounts
from chinchon.server.analyses import AnalysisQueue
from chinchon.server.bots import BotPool
from chinchon.server.connections import WS_FRAME_MAX
from chinchon.server.help import rules_help
from chinchon.server.hub import Connection, Hub, TokenBucket
from chinchon.server.metrics import GcWatch, Metrics
from chinchon.server.player_routes import add_player_routes
from chinchon.server.players import Players
from chinchon.server.protocol import (
    PROTOCOL_VERSION,
    Ack,
    ActionMessage,
    AnalysisRequest,
    Chat,
    CreateRoom,
    ErrorMessage,
    Hello,
    JoinRoom,
    Kick,
    Leave,
    Ping,
    Pong,
    Rematch,
    Start,
    Welcome,
    client_adapter,
)
from chinchon.server.rooms import Manager, Refused, Room, ServerSettings, check_name, error_message, normal_code
from chinchon.server.store import Store
from chinchon.server.web import VersionedStatic, error_response, harden, static_version
from chinchon.server.web import accepted_language as _language

__all__ = ["create_app"]

log = logging.getLogger("chinchon.server")

STRIKES = 20
"""Bad frames in a row after which a connection is closed (1008)."""


class _Limits:
    """Per-address limits on rooms created and codes looked up."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.buckets: dict[tuple[str, str], TokenBucket] = {}

    def allow(self, kind: str, address: str) -> bool:
        per_minute = self.settings.rooms_per_minute if kind == "create" else self.settings.lookups_per_minute
        if len(self.buckets) > 100_000:
            self.buckets.clear()
        bucket = self.buckets.setdefault((kind, address), TokenBucket(per_minute / 60, per_minute))
        return bucket.take()


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    """The server's application, on the settings' database."""
    settings = settings or ServerSettings()
    metrics = Metrics()
    hub = Hub()
    store = Store(settings.db)
    pool = BotPool(settings.bot_workers, settings.bot_pool, settings.bot_nice)
    analyses = AnalysisQueue(BotPool(1, settings.bot_pool, settings.bot_nice))
    manager = Manager(settings, store, hub, pool, metrics)
    limits = _Limits(settings)
    players = Players(store.engine)
    accounts = Accounts(players, settings.origins, settings.https)

    gc_watch = GcWatch(metrics, freeze=settings.gc_thaw > 0)

    async def thaw_every(seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            gc_watch.thaw()

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await store.open()
        restored = await manager.restore()
        # What is alive once started (modules, the rules' tables, the rooms rebuilt) stays alive: out of the
        # collector's way, so that its full collections look at the rooms' churn only (they stopped the loop for
        # up to 281 ms at 500 rooms, DESIGN "The wire").
        gc.collect()
        gc.freeze()
        gc_watch.install()
        thawing = asyncio.create_task(thaw_every(settings.gc_thaw)) if settings.gc_thaw > 0 else None
        log.info("server ready", extra={"rooms_restored": restored})
        try:
            yield
        finally:
            if thawing is not None:
                thawing.cancel()
            gc_watch.remove()
            await hub.shut(1012)
            await manager.shutdown()
            await analyses.close()
            pool.close()
            await store.close()
            log.info("server stopped")

    # No /api/docs: Swagger's page would load scripts from a CDN into the table's origin (see web.py).
    app = FastAPI(title="chinchon", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    harden(app, settings)
    app.state.manager = manager
    app.state.settings = settings
    app.state.hub = hub
    app.state.metrics = metrics
    app.state.accounts = accounts
    app.state.analyses = analyses

    def refused(exc: Refused, request: Request, status: int = 400) -> JSONResponse:
        lang = _language(request.headers.get("accept-language"))
        metrics.errors.labels(exc.code).inc()
        return JSONResponse({"error": {"code": exc.code, "message": exc.text(lang)}}, status_code=status)

    def address(request: Request) -> str:
        return request.client.host if request.client else "?"

    async def body(request: Request, model: type[Any]) -> Any:
        try:
            raw = await request.body()
        except ClientDisconnect:  # a request closed halfway (by its client, or after the request timeout)
            raise Refused("bad_request", N_("bad request: {problem}"), problem="the body did not arrive") from None
        if len(raw) > settings.max_frame:
            raise Refused("too_large", N_("the request is larger than {most} bytes"), most=settings.max_frame)
        try:
            return model.model_validate_json(raw or b"{}")
        except ValidationError as exc:
            raise Refused("bad_request", N_("bad request: {problem}"), problem=_problem(exc)) from None

    @app.post("/api/rooms", status_code=201)
    async def create_room(request: Request) -> Any:
        try:
            if not limits.allow("create", address(request)):
                raise Refused("rate_limited", N_("too many rooms created; wait a minute"))
            payload = await body(request, CreateRoom)
            session = await accounts.changing(request)
            room, token = await manager.create(payload, session[0].account if session else None)
        except Refused as exc:
            return refused(
                exc, request, {"rate_limited": 429, "forbidden": 403, "login_needed": 401}.get(exc.code, 400)
            )
        return JSONResponse({"code": room.code, "seat": 0, "token": token}, status_code=201)

    @app.post("/api/rooms/{code}/join", status_code=201)
    async def join_room(code: str, request: Request) -> Any:
        try:
            if not limits.allow("lookup", address(request)):
                raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
            payload = await body(request, JoinRoom)
            session = await accounts.changing(request)
            account = session[0].account if session else None
            name = check_name(payload.name) if account is None else account.name
            room = await manager.get(code)
            if room is None:
                raise Refused("no_room", N_("there is no open room {code}"), code=normal_code(code)[:16])
            seat, token = await room.join(name, _language(request.headers.get("accept-language")), account)
        except Refused as exc:
            status = {"rate_limited": 429, "no_room": 404, "forbidden": 403, "login_needed": 401}.get(
                exc.code, 409 if exc.code != "bad_name" else 400
            )
            return refused(exc, request, status)
        return JSONResponse({"code": room.code, "seat": seat, "token": token}, status_code=201)

    @app.get("/api/rooms/{code}")
    async def room_summary(code: str, request: Request) -> Any:
        try:
            if not limits.allow("lookup", address(request)):
                raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
            room = await manager.get(code)
            if room is None:
                raise Refused("no_room", N_("there is no open room {code}"), code=normal_code(code)[:16])
        except Refused as exc:
            return refused(exc, request, 429 if exc.code == "rate_limited" else 404)
        return room.lobby_entry()

    @app.get("/api/rooms/{code}/record")
    async def room_record(code: str, request: Request) -> Any:
        try:
            if not limits.allow("lookup", address(request)):
                raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
            record = await store.record(normal_code(code)[:16])
            if record is None:
                raise Refused("not_over", N_("room {code} has no finished match"), code=normal_code(code)[:16])
        except Refused as exc:
            return refused(exc, request, 429 if exc.code == "rate_limited" else 404)
        return record

    async def room_match(code: str, request: Request) -> tuple[str, str | None, dict[str, Any]]:
        """The room's code, the id of its latest game in the history, and its latest finished match's record."""
        if not limits.allow("lookup", address(request)):
            raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
        code = normal_code(code)[:16]
        record = await store.record(code)
        if record is None:
            raise Refused("not_over", N_("room {code} has no finished match"), code=code)
        return code, await players.latest_game(code), record

    async def game_match(game_id: str, request: Request) -> tuple[str, str | None, dict[str, Any]]:
        """The room's code, the game's id, and the record of a finished match of the history."""
        found = await players.game(game_id[:16])
        if found is None or found[1] is None:
            raise Refused("no_game", N_("there is no finished match {game}"), game=game_id[:16])
        return found[0].room, found[0].id, found[1]

    Finding = Callable[[], Awaitable[tuple[str, str | None, dict[str, Any]]]]

    analysis_statuses = {
        "rate_limited": 429,
        "not_over": 404,
        "no_game": 404,
        "analysis_running": 409,
        "server_busy": 503,
    }

    async def start_analysis(request: Request, match: Finding) -> Any:
        try:
            payload = await body(request, AnalysisRequest)
            room, game, record = await match()
            status = {**analyses.start(room, payload.seat, record), "game": game}
        except Refused as exc:
            return refused(exc, request, analysis_statuses.get(exc.code, 400))
        return JSONResponse(status, status_code=200 if status["status"] == "done" else 202)

    async def read_analysis(request: Request, match: Finding, seat: str) -> Any:
        try:
            if not seat.isdigit() or len(seat) > 2:
                raise Refused("bad_seat", N_("seat {seat} is not one of the seats of the match"), seat=seat[:8])
            room, game, record = await match()
            status = {**analyses.status(room, record, int(seat)), "game": game}
        except Refused as exc:
            return refused(exc, request, analysis_statuses.get(exc.code, 400))
        return status

    @app.post("/api/rooms/{code}/analysis", status_code=202)
    async def start_room_analysis(code: str, request: Request) -> Any:
        return await start_analysis(request, lambda: room_match(code, request))

    @app.get("/api/rooms/{code}/analysis")
    async def read_room_analysis(code: str, request: Request, seat: str = "0") -> Any:
        return await read_analysis(request, lambda: room_match(code, request), seat)

    @app.post("/api/games/{game_id}/analysis", status_code=202)
    async def start_game_analysis(game_id: str, request: Request) -> Any:
        return await start_analysis(request, lambda: game_match(game_id, request))

    @app.get("/api/games/{game_id}/analysis")
    async def read_game_analysis(game_id: str, request: Request, seat: str = "0") -> Any:
        return await read_analysis(request, lambda: game_match(game_id, request), seat)

    @app.get("/api/lobby")
    async def lobby() -> Any:
        return manager.lobby()["rooms"]

    @app.get("/healthz")
    async def healthz() -> Any:
        return {"status": "ok", "rooms": len(manager.rooms), "connections": len(hub.everyone)}

    @app.get("/metrics")
    async def metrics_page() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.websocket("/ws")
    async def websocket(socket: WebSocket) -> None:
        origin = socket.headers.get("origin")
        if origin is not None and not _origin_allowed(origin, socket, settings):
            refused = Refused("bad_origin", N_("a page of another site may not open this server's WebSocket"))
            metrics.errors.labels(refused.code).inc()
            try:
                await socket.send_denial_response(error_response(refused, 403, socket.headers.get("accept-language")))
            except RuntimeError:  # a server without ASGI's denial responses answers 403 by itself
                await socket.close(code=1008)
            return
        await socket.accept()
        connection = Connection(socket, socket.client.host if socket.client else "?")
        connection.session = socket.cookies.get(SESSION_COOKIE)
        hub.start(connection)
        metrics.connections.inc()
        room: Room | None = None
        hello_timer = asyncio.get_running_loop().call_later(settings.hello_timeout, _no_hello, connection)
        try:
            while not connection.closed:
                frame = await socket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if text is None:
                    refused = Refused("bad_message", N_("bad message: send JSON in text frames"))
                    strike(connection, error_message(refused, connection.lang, _given_id(frame.get("bytes"))))
                    continue
                room = await _handle(text, connection, room)
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("connection failed")
        finally:
            hello_timer.cancel()
            metrics.connections.dec()
            hub.forget(connection)
            if room is not None:
                room.disconnect(connection)
            with contextlib.suppress(Exception):
                connection.queue.put_nowait(None)
            if connection.writer is not None:
                # What is queued (a last error, the close code) goes out before the endpoint returns.
                await asyncio.wait([connection.writer], timeout=5)

    def _no_hello(connection: Connection) -> None:
        """A connection that has not said a good ``hello`` in time is closed (1008)."""
        if connection.role is None and not connection.closed:
            late = Refused(
                "not_joined",
                N_("no hello within {seconds} seconds: the connection is closed"),
                seconds=f"{settings.hello_timeout:g}",
            )
            metrics.errors.labels(late.code).inc()
            hub.send(connection, error_message(late, connection.lang))
            hub.close(connection, 1008)

    def strike(connection: Connection, error: ErrorMessage) -> None:
        metrics.errors.labels(error.code).inc()
        hub.send(connection, error)
        connection.strikes += 1
        if connection.strikes >= STRIKES:
            hub.close(connection, 1008)

    async def _handle(text: str, connection: Connection, room: Room | None) -> Room | None:
        lang = connection.lang
        if len(text.encode("utf-8", "surrogatepass")) > settings.max_frame:
            too_large = Refused("too_large", N_("the message is larger than {most} bytes"), most=settings.max_frame)
            strike(connection, error_message(too_large, lang, _given_id(text)))
            return room
        error: Refused | None = None
        try:
            # orjson refuses nesting past 1,024 levels without recursing in Python (json.loads recursed to the
            # interpreter's limit, where a garbage collector's callback then failed), and refuses lone surrogates
            # (``"\ud800"``), which could not be sent back.
            data = orjson.loads(text)
        except ValueError:
            data = None
            error = Refused("bad_json", N_("the message is not JSON"))
        given_id = _id_of(data)
        if not connection.limiter.take():
            error = Refused("rate_limited", N_("too many messages; slow down"))
        if error is not None:
            strike(connection, error_message(error, lang, given_id))
            return room
        try:
            message = client_adapter.validate_python(data)
        except ValidationError as exc:
            refused = Refused("bad_message", N_("bad message: {problem}"), problem=_problem(exc))
            strike(connection, error_message(refused, lang, given_id))
            return room
        client_id = message.id if isinstance(message, ActionMessage) else None
        started = time.perf_counter()
        try:
            room = await _dispatch(message, connection, room)
        except Refused as exc:
            strike(connection, error_message(exc, connection.lang, client_id))
            return room
        connection.strikes = 0
        if client_id is not None:
            metrics.round_trip.observe(time.perf_counter() - started)
        return room

    async def _dispatch(message: Any, connection: Connection, room: Room | None) -> Room | None:
        if isinstance(message, Ping):
            hub.send(connection, Pong(type="pong", t=message.t, time=time.time()))
            return room
        if isinstance(message, Hello):
            return await _hello(message, connection, room)
        if connection.role is None:
            raise Refused("not_joined", N_("say hello first"))
        if isinstance(message, Chat):
            if connection.role == "lobby":
                if not connection.name:
                    raise Refused("chat_refused", N_("give a name in hello to chat in the lobby"))
                await _chat(connection, None, connection.name, None, message.text)
            elif room is not None and connection.seat is not None:
                name = room.seats[connection.seat].name or "?"
                await _chat(connection, room, name, connection.seat, message.text)
            else:
                raise Refused("not_seated", N_("only players chat in a room"))
            return room
        if room is None or connection.seat is None or room.closed:
            raise Refused("not_seated", N_("you have no seat in a room"))
        seat = connection.seat
        if isinstance(message, ActionMessage):
            n = await room.act(seat, message.id, message.state, message.action)
            hub.send(connection, Ack(type="ack", id=message.id, state=n))
        elif isinstance(message, Start):
            await room.start(seat)
        elif isinstance(message, Rematch):
            await room.rematch(seat)
        elif isinstance(message, Leave):
            await room.remove(seat, seat, "leave")
        elif isinstance(message, Kick):
            await room.remove(seat, message.seat, "kick")
        return room

    async def _chat(connection: Connection, room: Room | None, name: str, seat: int | None, text: str) -> None:
        if connection.chat_limiter is None:
            connection.chat_limiter = TokenBucket(settings.chat_per_minute / 60, 5)
        bucket = connection.chat_limiter
        if not bucket.take():
            raise Refused("rate_limited", N_("too many chat lines; wait a little"))
        await manager.chat(room, name, seat, text)

    def _leave(connection: Connection, room: Room | None) -> None:
        """A connection's hello succeeded: it leaves its seat, room or the lobby."""
        if room is not None and connection.room == room.code:
            room.disconnect(connection)
        connection.seat, connection.role = None, None

    async def _hello(message: Hello, connection: Connection, room: Room | None) -> Room | None:
        connection.lang = _language(message.lang) if message.lang else connection.lang
        if message.version != PROTOCOL_VERSION:
            raise Refused(
                "bad_version",
                N_("this server speaks version {version} of the protocol: say it in hello (reload the page)"),
                version=PROTOCOL_VERSION,
            )
        if message.room is None:
            if message.token is not None:
                raise Refused("no_room", N_("a token needs its room's code"))
            name = check_name(message.name) if message.name is not None else None
            _leave(connection, room)
            connection.name = name
            hub.join(connection, None)
            connection.role = "lobby"
            hub.send(connection, Welcome(type="welcome", room=None, seat=None, role="lobby", lang=connection.lang))
            hub.send(connection, manager.lobby())
            return None
        # Watching by code, and every failed hello, count as lookups: codes are not to be enumerated here either.
        spectating = message.token is None
        if spectating and not limits.allow("lookup", connection.address):
            raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
        # A logged-in player's hello without a token takes the seat the account holds in the room.
        account = None
        if message.token is None and connection.session is not None:
            session = await accounts.session_of(connection.session)
            account = session.account.id if session is not None else None
        # A room closing while this hello waited for its lock is looked up again (a token reopens it).
        for _attempt in range(3):
            new_room = await manager.get(message.room, message.token, account)
            if new_room is None:
                if not spectating and not limits.allow("lookup", connection.address):
                    raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
                raise Refused("no_room", N_("there is no open room {code}"), code=normal_code(message.room)[:16])
            async with new_room.lock:
                if new_room.closed:
                    continue
                seat = None
                if message.token is not None:
                    seat = new_room.seat_for(message.token)
                    if seat is None:
                        if not limits.allow("lookup", connection.address):
                            raise Refused("rate_limited", N_("too many room codes tried; wait a minute"))
                        raise Refused("bad_token", N_("this token holds no seat in room {code}"), code=new_room.code)
                elif account is not None:
                    seat = new_room.seat_of_account(account)
                _leave(connection, room)
                connection.seat, connection.role = seat, "seat" if seat is not None else "spectator"
                hub.join(connection, new_room.code)
                welcome = Welcome(
                    type="welcome",
                    room=new_room.code,
                    seat=connection.seat,
                    role=connection.role,  # type: ignore[arg-type]  # "seat" or "spectator", set above
                    lang=connection.lang,
                )
                hub.send(connection, welcome)
                new_room.connect(connection)
                new_room.resync(connection, message.last_event)
                return new_room
        raise Refused("server_busy", N_("the server could not save this; try again"))

    add_player_routes(app, manager, accounts, players, refused, body, _language)
    _static_routes(app)
    return app


# -- the browser client: its static files and its messages ------------------------------

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""The browser client's files (plain ES modules and CSS, no build step)."""


@functools.cache
def _browser_msgids() -> tuple[str, ...]:
    """The browser client's messages as pybabel extracts them from its JavaScript (``ctx\\x04msgid`` in a context)."""
    keywords: dict[str, Any] = {"_": None, "pgettext": ((1, "c"), 2)}
    found: dict[str, None] = {}
    for path in sorted(STATIC_DIR.rglob("*.js")):
        with open(path, "rb") as f:
            for _lineno, message, _comments, context in extract("javascript", f, keywords=keywords):
                if isinstance(message, str) and message:
                    found[f"{context}\x04{message}" if context else message] = None
    return tuple(found)


@functools.cache
def _index_page(lang: str) -> str:
    """The client's page in a language: its ``lang``, its direction and the line shown without JavaScript."""
    page = (STATIC_DIR / "index.html").read_text("utf-8")
    needs = html.escape(translation(lang).gettext(N_("This game needs JavaScript.")))
    page = page.replace('<html lang="en" dir="ltr">', f'<html lang="{lang}" dir="{"rtl" if is_rtl(lang) else "ltr"}">')
    # The client's files by their version's URL, cached for good: a new version is a new URL (web.VersionedStatic).
    page = page.replace('"/static/', f'"/static/v-{static_version(STATIC_DIR)}/')
    return page.replace("<noscript>This game needs JavaScript.</noscript>", f"<noscript>{needs}</noscript>")


def _static_routes(app: FastAPI) -> None:
    """``/`` (the client's page), ``/static/...`` and ``/api/i18n/{lang}`` (its messages in a language)."""

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        lang = _language(request.headers.get("accept-language"))
        return HTMLResponse(_index_page(lang), headers={"Cache-Control": "no-cache", "Vary": "Accept-Language"})

    @app.get("/api/i18n/{lang}")
    async def messages(lang: str) -> Any:
        code = _language(lang)
        catalog = translation(code)
        table: dict[str, str] = {}
        for key in _browser_msgids():
            context, _sep, msgid = key.rpartition("\x04")
            table[key] = catalog.pgettext(context, msgid) if context else catalog.gettext(msgid)
        return JSONResponse(
            {**table, "_lang": code, "_dir": "rtl" if is_rtl(code) else "ltr"},
            headers={"Cache-Control": "no-cache"},
        )

    @app.get("/api/rules/{lang}")
    async def rules_in_words(lang: str, request: Request, preset: str = "fournier") -> Any:
        """The rules of a preset with ``option=NAME=VALUE`` options (as a room's view names them), in a language."""
        code = _language(lang)
        try:
            rules = Rules.from_text(preset, request.query_params.getlist("option"))
        except RulesError as exc:
            return error_response(Refused("bad_rules", exc.template, **exc.params), 400, code)
        return rules_help(rules, preset, code)

    app.mount("/static", VersionedStatic(STATIC_DIR), name="static")


ID_MAX = 64
"""The longest ``id`` of an action (``ActionMessage.id``)."""


def _id_of(data: object) -> str | None:
    """The ``id`` a client message carries, when it is one an action may have (1 to 64 characters of text)."""
    value = data.get("id") if isinstance(data, dict) else None
    if not isinstance(value, str) or not 1 <= len(value) <= ID_MAX:
        return None
    try:
        value.encode("utf-8")  # a lone surrogate could not be sent back
    except UnicodeEncodeError:
        return None
    return value


def _given_id(raw: str | bytes | None) -> str | None:
    """The ``id`` of a frame refused before it was read (too large, or binary), so that its error names it."""
    if raw is None or len(raw) > WS_FRAME_MAX:  # (a frame over the protocol's limit is still read)
        return None
    try:
        return _id_of(orjson.loads(raw))
    except ValueError:
        return None


def _problem(exc: ValidationError) -> str:
    """A validation error in a line: where and what."""
    first = exc.errors(include_url=False, include_input=False)[0] if exc.errors() else {"loc": (), "msg": "?"}
    where = ".".join(str(part) for part in first.get("loc", ())) or "message"
    return f"{where}: {first.get('msg', '?')}"[:200]


def _origin_allowed(origin: str, socket: WebSocket, settings: ServerSettings) -> bool:
    """Whether a browser's Origin is the server's own or one of the configured origins."""
    allowed = {o.rstrip("/").lower() for o in settings.origins}
    if origin in allowed or "*" in allowed:
        return True
    host = socket.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")
