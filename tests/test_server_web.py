"""The web surface: security headers on every answer of every route, no CORS, JSON bodies only, compression, caching.

A real server; each route of the application's own route table is asked,
with its errors (404, 405, 415, 422, 500) and the WebSocket's refusal.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from starlette.routing import Mount, Route, WebSocketRoute

from chinchon.i18n import translation
from chinchon.server.app import STATIC_DIR
from chinchon.server.client import create_room
from chinchon.server.web import COMPRESS_FROM, static_version
from tests.server_support import Running, database_url, running_server

SAMPLES = {"code": "", "lang": "es", "n": "7", "name": "Nobody", "pool": "fournier", "game_id": "nosuchgame"}
"""A value for each path parameter of the routes (``code``: a real room's, filled in by the test)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """A server with two routes of the test's own: one that fails (500), one that validates its parameter (422)."""
    folder = tmp_path_factory.mktemp("web")
    with running_server(database_url("sqlite", folder), rooms_per_minute=1000, lookups_per_minute=1000) as running:

        async def boom() -> None:
            raise RuntimeError("a failing route (the test's)")

        async def number(n: int) -> dict[str, int]:
            return {"n": n}

        running.app.add_api_route("/test/boom", boom)
        running.app.add_api_route("/test/number/{n}", number)
        yield running


def fetch(url: str, method: str = "GET", headers: dict[str, str] | None = None, body: bytes | None = None) -> Any:
    """An answer as it came (not decompressed, errors included): status, headers, bytes."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def hardened(headers: Any, where: str, https: bool = False) -> None:
    """The headers every answer carries."""
    policy = headers.get("content-security-policy", "")
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    assert directives.get("default-src") == ["'self'"], (where, policy)
    for name in ("script-src", "style-src", "img-src"):
        assert directives.get(name) == ["'self'"], (where, name, policy)
    assert directives.get("frame-ancestors") == ["'none'"] and directives.get("object-src") == ["'none'"], where
    connect = directives.get("connect-src", [])
    assert connect[0] == "'self'" and all(re.fullmatch(r"wss?://127\.0\.0\.1:\d+", s) for s in connect[1:]), connect
    assert "unsafe" not in policy, (where, policy)
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("x-frame-options") == "DENY", where
    assert headers.get("referrer-policy") == "no-referrer", where
    assert headers.get("cross-origin-opener-policy") == "same-origin", where
    features = dict(part.strip().split("=") for part in headers.get("permissions-policy", "").split(","))
    assert all(features.get(name) == "()" for name in ("camera", "microphone", "geolocation", "payment", "usb")), where
    assert "clipboard-write" not in features, where  # the table copies its invite link
    assert ("strict-transport-security" in headers) == https, where
    assert not any(name.lower().startswith("access-control-") for name in headers), where


def test_every_route_and_every_error_carries_the_security_headers(server: Running) -> None:
    room = asyncio.run(create_room(server.base, name="Ana"))
    samples = {**SAMPLES, "code": room["code"]}
    asked: list[tuple[str, str, int]] = []
    routes = server.app.routes
    for route in routes:
        if isinstance(route, Route):
            path = route.path.format(**samples)
            for method in sorted(route.methods or ()):
                body = json.dumps({"name": "Bea"}).encode() if method == "POST" else None
                status, headers, _ = fetch(server.base + path, method, {"Content-Type": "application/json"}, body)
                hardened(headers, f"{method} {path}")
                asked.append((method, path, status))
        elif isinstance(route, Mount):
            version = static_version(STATIC_DIR)
            for path in (f"{route.path}/app.js", f"{route.path}/v-{version}/style.css", f"{route.path}/nothing.js"):
                status, headers, _ = fetch(server.base + path)
                hardened(headers, path)
                asked.append(("GET", path, status))
        elif isinstance(route, WebSocketRoute):
            # Refused for its origin, with an HTTP answer: it carries the headers too, and a typed error.
            async def refused_socket() -> None:
                await websockets.connect(server.ws, origin=websockets.Origin("http://evil.example"), open_timeout=10)

            with pytest.raises(websockets.InvalidStatus) as refused:
                asyncio.run(refused_socket())
            answer = refused.value.response
            hardened(answer.headers, "the WebSocket's refusal")
            assert json.loads(answer.body)["error"]["code"] == "bad_origin"
            asked.append(("GET", route.path, answer.status_code))
        else:
            pytest.fail(f"a route of an unknown kind: {route!r}: teach this test to ask it")
    assert len({path for _, path, _ in asked}) >= len(routes)
    statuses = {status for _, _, status in asked}
    # The routes' answers and errors: 404 (no such file, no finished match), 403 (the WebSocket's refusal), 500.
    assert {200, 201, 403, 404, 500} <= statuses, asked
    # And Starlette's own errors: no route, a method no route takes, a parameter that fails validation.
    for method, path in (("GET", "/nowhere"), ("DELETE", "/api/lobby"), ("GET", "/test/number/x"), ("GET", "/")):
        status, headers, _ = fetch(server.base + path, method)
        hardened(headers, f"{method} {path}")
        assert status == {"/nowhere": 404, "/api/lobby": 405, "/test/number/x": 422, "/": 200}[path]


def test_with_https_the_answers_ask_for_https_for_a_year(tmp_path: Path) -> None:
    with running_server(database_url("sqlite", tmp_path), https=True) as secure:
        for path in ("/", "/api/lobby", "/nowhere"):
            _, headers, _ = fetch(secure.base + path)
            hardened(headers, path, https=True)
            assert headers["strict-transport-security"] == "max-age=31536000"


def test_the_api_answers_no_cross_origin_request(server: Running) -> None:
    foreign = {"Origin": "http://evil.example"}
    preflight = {**foreign, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    status, headers, _ = fetch(server.base + "/api/rooms", "OPTIONS", preflight)
    assert status == 405 and not any(name.lower().startswith("access-control-") for name in headers)
    for path in ("/api/lobby", "/api/i18n/es", "/healthz"):
        status, headers, _ = fetch(server.base + path, "GET", foreign)
        assert status == 200 and "access-control-allow-origin" not in headers, path


def test_a_body_in_another_type_than_json_is_refused_with_415(server: Running) -> None:
    spanish = translation("es")
    before = len(server.manager.rooms)
    body = json.dumps({"name": "Ana"}).encode()
    template = spanish.gettext("send the request's body as JSON (Content-Type: application/json), not {type}")
    assert template != "send the request's body as JSON (Content-Type: application/json), not {type}"
    with httpx.Client(base_url=server.base) as http:
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
            headers = {"Accept-Language": "es"} | ({"Content-Type": kind} if kind else {})
            for path in ("/api/rooms", "/api/rooms/ZZZZZZZ/join"):
                answer = http.post(path, content=body, headers=headers)
                error = answer.json()["error"]
                assert answer.status_code == 415 and error["code"] == "unsupported_media_type", (kind, answer.text)
                assert error["message"] == template.format(type=(kind or "?").split(";")[0]), error
                hardened(answer.headers, f"415 for {kind}")
    assert len(server.manager.rooms) == before
    # JSON, with its charset or as a +json type, is read.
    for kind in ("application/json", "application/json; charset=utf-8", "application/merge-patch+json"):
        status, _, answer = fetch(server.base + "/api/rooms", "POST", {"Content-Type": kind}, body)
        assert status == 201, (kind, answer)


def static_paths(server: Running) -> list[str]:
    """The page's own files as the page names them, and the modules they import."""
    _, _, page = fetch(server.base + "/")
    named = re.findall(r'"(/static/v-[0-9a-f]{12}/[\w./-]+)"', page.decode())
    assert {name.rsplit("/", 1)[1] for name in named} >= {"app.js", "style.css", "favicon.svg"}, named
    modules = [name for name in named if name.endswith(".js")]
    seen: set[str] = set()
    while modules:
        path = modules.pop()
        if path in seen:
            continue
        seen.add(path)
        _, _, text = fetch(server.base + path)
        folder = path.rsplit("/", 1)[0]
        modules += [f"{folder}/{name}" for name in re.findall(r'from "\./([\w.]+\.js)"', text.decode())]
    return sorted(seen | set(named))


def test_answers_are_compressed_and_decompress_to_the_same_bytes(server: Running) -> None:
    paths = ["/", *static_paths(server), "/api/i18n/ar", "/api/i18n/es", "/api/lobby"]
    compressed = 0
    for path in paths:
        _, plain_headers, plain = fetch(server.base + path, headers={"Accept-Encoding": "identity"})
        _, headers, packed = fetch(server.base + path, headers={"Accept-Encoding": "gzip, br"})
        assert "content-encoding" not in plain_headers, path
        if len(plain) < COMPRESS_FROM:
            assert "content-encoding" not in headers and packed == plain, path
            continue
        assert headers["content-encoding"] == "gzip" and "Accept-Encoding" in headers["vary"], path
        assert gzip.decompress(packed) == plain and len(packed) < len(plain), path
        assert int(headers["content-length"]) == len(packed), path
        compressed += 1
    assert compressed >= 6
    # A small answer goes out as it is.
    _, headers, health = fetch(server.base + "/healthz", headers={"Accept-Encoding": "gzip"})
    assert len(health) < COMPRESS_FROM and "content-encoding" not in headers and json.loads(health)["status"] == "ok"


def test_the_websocket_is_not_compressed_by_the_middleware(server: Running) -> None:
    async def go() -> None:
        async with websockets.connect(server.ws, additional_headers={"Accept-Encoding": "gzip"}) as socket:
            assert socket.response is not None and "content-encoding" not in socket.response.headers
            await socket.send(json.dumps({"type": "hello", "version": 2}))
            welcome = json.loads(await socket.recv())
            assert welcome["type"] == "welcome" and welcome["role"] == "lobby"

    asyncio.run(asyncio.wait_for(go(), 30))


def test_the_clients_files_are_cached_by_version_and_the_page_never(server: Running) -> None:
    _, headers, _ = fetch(server.base + "/")
    assert headers["cache-control"] == "no-cache"
    version = static_version(STATIC_DIR)
    for path in static_paths(server):
        assert f"/static/v-{version}/" in path
        status, headers, _ = fetch(server.base + path, headers={"Accept-Encoding": "gzip"})
        assert status == 200 and headers["cache-control"] == "public, max-age=31536000, immutable", path
        etag = headers["etag"]
        status, headers, body = fetch(server.base + path, headers={"If-None-Match": etag})
        assert status == 304 and body == b"", path
    # The plain URL, and another version's (a page from before an upgrade), are revalidated, never kept.
    for path in ("/static/app.js", "/static/v-000000000000/app.js"):
        status, headers, body = fetch(server.base + path)
        assert status == 200 and headers["cache-control"] == "no-cache" and headers["etag"], path
        assert body == (STATIC_DIR / "app.js").read_bytes()
        status, _, _ = fetch(server.base + path, headers={"If-None-Match": headers["etag"]})
        assert status == 304


def test_a_new_version_of_the_clients_files_is_a_new_url(tmp_path: Path) -> None:
    copy = tmp_path / "static"
    shutil.copytree(STATIC_DIR, copy)
    before = static_version(copy)
    assert before == static_version(STATIC_DIR)
    (copy / "app.js").write_text((copy / "app.js").read_text() + "\n// upgraded\n")
    static_version.cache_clear()
    assert static_version(copy) != before


def test_the_interactive_api_pages_are_gone_but_the_description_stays(server: Running) -> None:
    # Swagger's and ReDoc's pages load scripts from a CDN: in the table's origin, that is what the CSP forbids.
    with httpx.Client(base_url=server.base) as http:
        assert http.get("/api/docs").status_code == 404 and http.get("/redoc").status_code == 404
        assert http.get("/api/openapi.json").json()["info"]["title"] == "chinchon"
