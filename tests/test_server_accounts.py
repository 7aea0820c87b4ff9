"""Accounts on the server: registration, login and logout, sessions, CSRF, login limits, names, owned seats."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chinchon.server.accounts import check_account_name, name_key
from chinchon.server.client import Client
from chinchon.server.rooms import Refused
from tests.players_support import PASSWORD, create_room, csrf, join_room, login, register, socket_for
from tests.server_support import Running, database_url, running_server


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Running]:
    with running_server(database_url(request.param, tmp_path)) as running:
        yield running


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Running]:
    with running_server(database_url("sqlite", tmp_path)) as running:
        yield running


def _http(server: Running) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.base, timeout=30)


def test_register_log_in_log_out_and_log_out_everywhere(server: Running) -> None:
    async def run() -> None:
        async with _http(server) as phone, _http(server) as laptop, _http(server) as guest:
            assert (await guest.get("/api/account")).json() == {"account": None}
            answer = await register(phone, "Ana")
            assert answer.json() == {"account": {"name": "Ana"}}
            cookie = answer.headers.get_list("set-cookie")
            session_cookie = next(c for c in cookie if c.startswith("chinchon_session="))
            assert "HttpOnly" in session_cookie and "SameSite=lax" in session_cookie and "Secure" not in session_cookie
            csrf_cookie = next(c for c in cookie if c.startswith("chinchon_csrf="))
            assert "HttpOnly" not in csrf_cookie
            assert (await phone.get("/api/account")).json() == {"account": {"name": "Ana"}}
            # Served over HTTPS (here behind a proxy on the same machine, which says so), the cookies are Secure.
            https = await guest.post(
                "/api/account/login",
                json={"name": "Ana", "password": PASSWORD},
                headers={"X-Forwarded-Proto": "https"},
            )
            assert https.status_code == 200
            assert all("; Secure" in c for c in https.headers.get_list("set-cookie")), https.headers
            guest.cookies.clear()

            # Names are unique whatever their case or Unicode form.
            for taken in ("ana", "ＡＮＡ", " Ana "):
                again = await guest.post("/api/account/register", json={"name": taken, "password": PASSWORD})
                assert again.status_code == 409 and again.json()["error"]["code"] == "name_taken", again.text

            answer = await login(laptop, "ANA")
            assert answer.status_code == 200 and answer.json() == {"account": {"name": "Ana"}}
            assert (await laptop.get("/api/account")).json()["account"] == {"name": "Ana"}

            # Logging out ends this session only.
            out = await phone.post("/api/account/logout", headers=csrf(phone))
            assert out.status_code == 200 and out.json() == {"account": None}
            assert (await phone.get("/api/account")).json() == {"account": None}
            assert (await laptop.get("/api/account")).json()["account"] == {"name": "Ana"}

            await login(phone, "Ana")
            ended = await laptop.post("/api/account/logout-everywhere", headers=csrf(laptop))
            assert ended.status_code == 200 and ended.json() == {"account": None, "ended": 3}
            assert (await phone.get("/api/account")).json() == {"account": None}
            assert (await laptop.get("/api/account")).json() == {"account": None}

    asyncio.run(run())


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(sqlite_server: Running) -> None:
    async def run() -> None:
        async with _http(sqlite_server) as http:
            await register(http, "Bea")
            await http.post("/api/account/logout", headers=csrf(http))
            wrong = await login(http, "Bea", "not the password")
            unknown = await login(http, "Nobody", PASSWORD)
            for answer in (wrong, unknown):
                assert answer.status_code == 401
                assert "set-cookie" not in answer.headers
            assert (
                wrong.json() == unknown.json() == {"error": {"code": "bad_login", "message": "wrong name or password"}}
            )
            assert (await http.get("/api/account")).json() == {"account": None}
            spanish = await http.post(
                "/api/account/login", json={"name": "Bea", "password": "x" * 9}, headers={"Accept-Language": "es"}
            )
            assert spanish.json()["error"]["message"] not in ("", "wrong name or password")
            assert (await login(http, "Bea")).status_code == 200

    asyncio.run(run())


def test_login_attempts_are_limited_per_name_and_per_address(sqlite_server: Running) -> None:
    limits = sqlite_server.app.state.accounts.limits
    # Few enough per address that the argon2 checks' time (a second each on a loaded machine) refills little.
    limits.logins_per_address = 8.0

    async def run() -> None:
        async with _http(sqlite_server) as http:
            await register(http, "Cid")
            codes = [(await login(http, "Cid", f"wrong {i}")).status_code for i in range(int(limits.logins_per_name))]
            assert codes == [401] * int(limits.logins_per_name)
            # The next attempt on this name is refused even with the right password; another name is not.
            limited = await login(http, "Cid")
            assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
            assert (await login(http, "Someone else", "whatever1")).status_code == 401
            # Per address: a burst of names from one address runs out too.
            statuses = [(await login(http, f"name {i}", "whatever1")).status_code for i in range(10)]
            assert statuses.count(429) >= 5 and set(statuses) <= {401, 429}, statuses

    asyncio.run(run())


def test_a_cookie_authenticated_change_needs_its_csrf_token_and_the_servers_origin(sqlite_server: Running) -> None:
    async def run() -> None:
        async with _http(sqlite_server) as http:
            await register(http, "Dan")
            good = csrf(http)
            for headers in ({}, {"X-CSRF-Token": "forged"}, {**good, "Origin": "https://evil.example"}):
                for path in ("/api/account/logout", "/api/account/logout-everywhere"):
                    answer = await http.post(path, headers=headers)
                    assert answer.status_code == 403, (path, headers, answer.text)
                    assert answer.json()["error"]["code"] == "forbidden"
                refused = await http.post(
                    "/api/account/password", json={"old": PASSWORD, "new": "another password"}, headers=headers
                )
                assert refused.status_code == 403
                made = await http.post("/api/rooms", json={"name": "Dan"}, headers=headers)
                assert made.status_code == 403 and made.json()["error"]["code"] == "forbidden"
            assert (await http.get("/api/account")).json()["account"] == {"name": "Dan"}
            # A login from another site's page is refused too (no login forgery).
            assert (
                await http.post(
                    "/api/account/login",
                    json={"name": "Dan", "password": PASSWORD},
                    headers={"Origin": "https://evil.example"},
                )
            ).status_code == 403
            room = await create_room(http)
            assert sqlite_server.manager.rooms[room["code"]].seats[0].name == "Dan"
            same_origin = await http.post("/api/account/logout", headers={**good, "Origin": sqlite_server.base})
            assert same_origin.status_code == 200

    asyncio.run(run())


def test_a_login_gives_a_new_session_id_and_ends_the_one_before(sqlite_server: Running) -> None:
    async def run() -> None:
        async with _http(sqlite_server) as http:
            answer = await register(http, "Eva")
            before = answer.cookies.get("chinchon_session")
            csrf_before = answer.cookies.get("chinchon_csrf")
            assert before and csrf_before
        # The browser holds a session id that someone else knows (planted, or read before): a login replaces it.
        async with httpx.AsyncClient(
            base_url=sqlite_server.base, cookies={"chinchon_session": before}, timeout=30
        ) as victim:
            assert (await victim.get("/api/account")).json() == {"account": {"name": "Eva"}}
            answer = await login(victim, "Eva")
            assert answer.status_code == 200
            after = answer.cookies.get("chinchon_session")
            assert after and after != before and answer.cookies.get("chinchon_csrf") != csrf_before
        async with httpx.AsyncClient(base_url=sqlite_server.base, cookies={"chinchon_session": before}) as attacker:
            assert (await attacker.get("/api/account")).json() == {"account": None}
        async with httpx.AsyncClient(base_url=sqlite_server.base, cookies={"chinchon_session": after}) as victim:
            assert (await victim.get("/api/account")).json() == {"account": {"name": "Eva"}}
        # An id the server never made is no session, and a login does not take it.
        async with httpx.AsyncClient(
            base_url=sqlite_server.base, cookies={"chinchon_session": "chosen-by-an-attacker"}, timeout=30
        ) as victim:
            assert (await victim.get("/api/account")).json() == {"account": None}
            answer = await login(victim, "Eva")
            assert answer.cookies.get("chinchon_session") not in (None, "chosen-by-an-attacker", before, after)

    asyncio.run(run())


def test_changing_the_password_ends_the_other_sessions(sqlite_server: Running) -> None:
    async def run() -> None:
        async with _http(sqlite_server) as phone, _http(sqlite_server) as laptop:
            await register(phone, "Fer")
            await login(laptop, "Fer")
            wrong = await phone.post(
                "/api/account/password", json={"old": "not it at all", "new": "a new password"}, headers=csrf(phone)
            )
            assert wrong.status_code == 401
            short = await phone.post(
                "/api/account/password", json={"old": PASSWORD, "new": "short"}, headers=csrf(phone)
            )
            assert short.status_code == 400 and short.json()["error"]["code"] == "bad_password"
            changed = await phone.post(
                "/api/account/password", json={"old": PASSWORD, "new": "a new password"}, headers=csrf(phone)
            )
            assert changed.status_code == 200, changed.text
            assert (await phone.get("/api/account")).json()["account"] == {"name": "Fer"}
            assert (await laptop.get("/api/account")).json() == {"account": None}
            assert (await login(laptop, "Fer")).status_code == 401
            assert (await login(laptop, "Fer", "a new password")).status_code == 200

    asyncio.run(run())


def test_a_password_is_never_in_the_database_or_the_logs_in_clear(
    server: Running, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    first, second = "Secret-Passphrase-1", "Other-Secret-Passphrase-2"
    caplog.set_level(logging.DEBUG)

    async def run() -> str:
        async with _http(server) as http:
            await register(http, "Gil", first)
            await login(http, "Gil", "Wrong-Passphrase-3")
            await login(http, "Gil", first)
            await http.post("/api/account/password", json={"old": first, "new": second}, headers=csrf(http))
            await login(http, "Gil", second)
            return http.cookies.get("chinchon_session") or ""

    session = asyncio.run(run())
    stored = asyncio.run(_dump_database(server))
    # The server's log lines at every level (the test's own HTTP client logs the cookies it receives: not those).
    logged = "\n".join(
        f"{r.name} {r.getMessage()} {r.__dict__}"
        for r in caplog.records
        if not r.name.startswith(("httpx", "httpcore"))
    )
    assert "aiosqlite" in logged or "asyncpg" in logged or "chinchon" in logged
    assert "$argon2id$" in stored
    for secret in (first, second, "Wrong-Passphrase-3", session):
        assert secret not in stored
        assert secret not in logged
    assert "Gil" in stored  # the dump does hold the tables' rows
    if server.manager.store.url.startswith("sqlite"):
        raw = b"".join(p.read_bytes() for p in tmp_path.glob("server.db*"))
        for secret in (first, second, session):
            assert secret.encode() not in raw


async def _dump_database(server: Running) -> str:
    from sqlalchemy import select
    from sqlalchemy.ext.asyncio import create_async_engine

    from chinchon.server.store import metadata

    engine = create_async_engine(server.manager.store.url)
    parts = []
    try:
        async with engine.connect() as connection:
            for table in metadata.sorted_tables:
                for row in await connection.execute(select(table)):
                    parts.append(repr(tuple(row)))
    finally:
        await engine.dispose()
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Аna", "alphabet"),  # a Cyrillic A
        ("Pаblo", "alphabet"),  # a Cyrillic a inside Latin letters
        ("Jоsé", "alphabet"),  # a Cyrillic o
        ("ana٣1", "digits"),  # Arabic-Indic and Latin digits
        ("x" * 25, "at most"),
        ("   ", "empty"),
        ("a\u200bb", "control"),
    ],
)
def test_names_that_could_pass_for_others_are_refused(name: str, problem: str) -> None:
    with pytest.raises(Refused) as refused:
        check_account_name(name)
    assert refused.value.code == "bad_name" and problem in str(refused.value), str(refused.value)


def test_names_in_one_script_pass_and_compare_by_their_key() -> None:
    for name in ("Ana", "José Luis", "Łukasz", "Παύλος", "Алёна", "محمد", "山田たろう", "김민준", "R2-D2"):
        assert check_account_name(name) == name
    assert name_key("ANA") == name_key("ana") == name_key("ＡＮＡ") == name_key("Ana  ")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("Ana") != name_key("Аna")  # different letters: and the second is refused anyway


def test_an_accounts_seat_opens_from_another_device_and_a_guest_who_registers_keeps_theirs(server: Running) -> None:
    async def run() -> None:
        async with _http(server) as phone, _http(server) as laptop, _http(server) as guest_http:
            await register(phone, "Hugo")
            room = await create_room(phone, seats=3)
            code = room["code"]
            await login(laptop, "Hugo")
            seats = (await laptop.get("/api/account/seats")).json()
            assert seats == {"seats": [{"code": code, "seat": 0, "status": "waiting"}]}
            second = socket_for(server.ws, laptop)
            welcome = await second.connect(room=code)
            assert welcome["type"] == "welcome" and welcome["role"] == "seat" and welcome["seat"] == 0, welcome
            await second.close()
            # Without the account's cookie, the same hello only watches.
            stranger = Client(server.ws)
            assert (await stranger.connect(room=code))["role"] == "spectator"
            await stranger.close()
            # The account joins a room once.
            again = await laptop.post(f"/api/rooms/{code}/join", json={"name": "x"}, headers=csrf(laptop))
            assert again.status_code == 409 and again.json()["error"]["code"] == "already_seated"

            # A guest's seat, then an account: the seat comes along.
            guest = (await guest_http.post(f"/api/rooms/{code}/join", json={"name": "Ines"})).json()
            await register(guest_http, "Ines", seats=[{"code": code, "token": guest["token"]}])
            assert server.manager.rooms[code].seats[guest["seat"]].account is not None
            async with _http(server) as other:
                await login(other, "Ines")
                sock = socket_for(server.ws, other)
                welcome = await sock.connect(room=code)
                assert welcome["role"] == "seat" and welcome["seat"] == guest["seat"], welcome
                await sock.close()
            # The guest's token still works too.
            by_token = Client(server.ws)
            assert (await by_token.connect(room=code, token=guest["token"]))["seat"] == guest["seat"]
            await by_token.close()

    asyncio.run(run())


def test_rated_rooms_take_logged_in_players_only(sqlite_server: Running) -> None:
    async def run() -> None:
        async with _http(sqlite_server) as ana, _http(sqlite_server) as guest:
            refused = await guest.post("/api/rooms", json={"name": "Guest", "rated": True})
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "login_needed"
            await register(ana, "Jana")
            room = await create_room(ana, seats=2, rated=True)
            joined = await guest.post(f"/api/rooms/{room['code']}/join", json={"name": "Guest"})
            assert joined.status_code == 401 and joined.json()["error"]["code"] == "login_needed"
            client = socket_for(sqlite_server.ws, ana)
            await client.connect(room=room["code"], token=room["token"])
            at = len(client.messages)
            await client.send({"type": "start"})
            error = await client.wait(lambda m: m["type"] == "error", at)
            assert error["code"] == "rated_seats"
            assert sqlite_server.manager.rooms[room["code"]].status == "waiting"
            assert [s.kind for s in sqlite_server.manager.rooms[room["code"]].seats] == ["person", "open"]
            await register(guest, "Kai")
            await join_room(guest, room["code"])
            view = await _start(client)
            assert view["rated"] is True
            await client.close()

    asyncio.run(run())


async def _start(client: Client) -> dict[str, Any]:
    from tests.server_support import start_match

    return await start_match(client)


def test_a_closed_room_opens_again_for_the_account_holding_a_seat(tmp_path: Path) -> None:
    with running_server(database_url("sqlite", tmp_path), grace=0.2) as server:

        async def run() -> None:
            async with _http(server) as http:
                await register(http, "Lia")
                room = await create_room(http, seats=2)
                code = room["code"]
                first = socket_for(server.ws, http)
                assert (await first.connect(room=code))["role"] == "seat"
                await first.close()
                for _ in range(200):
                    if code not in server.manager.rooms:
                        break
                    await asyncio.sleep(0.05)
                assert code not in server.manager.rooms, "the empty room did not close"
                stranger = Client(server.ws)
                refused = await stranger.connect(room=code)
                assert refused["type"] == "error" and refused["code"] == "no_room"
                await stranger.close()
                again = socket_for(server.ws, http)
                welcome = await again.connect(room=code)
                assert welcome["role"] == "seat" and welcome["seat"] == 0, welcome
                assert code in server.manager.rooms
                await again.close()

        asyncio.run(run())
