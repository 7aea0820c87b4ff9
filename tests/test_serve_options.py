"""``chinchon serve``'s options reach the server's settings (Uvicorn itself is not started)."""

from __future__ import annotations

from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

import chinchon.server.app
import chinchon.server.logs
from chinchon.cli import app
from chinchon.server.rooms import ServerSettings


def serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, *options: str) -> tuple[int, list[ServerSettings]]:
    """Run ``chinchon serve`` with Uvicorn and the application replaced; the exit code and the settings given."""
    given: list[ServerSettings] = []

    def fake_app(settings: ServerSettings) -> object:
        given.append(settings)
        return object()

    monkeypatch.setattr(chinchon.server.app, "create_app", fake_app)
    monkeypatch.setattr(chinchon.server.logs, "setup_logging", lambda *args: None)
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    db = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    result = CliRunner().invoke(app, ["serve", "--db", db, *options])
    return result.exit_code, given


def test_rate_limits_are_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    code, given = serve(monkeypatch, tmp_path, "--rooms-per-minute", "600", "--lookups-per-minute", "900.5")
    assert code == 0
    assert [(s.rooms_per_minute, s.lookups_per_minute) for s in given] == [(600.0, 900.5)]


def test_rate_limits_default_to_the_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    code, given = serve(monkeypatch, tmp_path)
    assert code == 0
    defaults = ServerSettings()
    assert [(s.rooms_per_minute, s.lookups_per_minute) for s in given] == [
        (defaults.rooms_per_minute, defaults.lookups_per_minute)
    ]


@pytest.mark.parametrize("option", ["--rooms-per-minute", "--lookups-per-minute"])
def test_a_rate_limit_must_be_positive(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, option: str) -> None:
    code, given = serve(monkeypatch, tmp_path, option, "0")
    assert code == 2
    assert given == []


def test_house_rules_are_the_default_rules_of_new_rooms(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from chinchon.rules import Rules

    code, given = serve(monkeypatch, tmp_path, "--rules", "clasico", "--rule", "limit=50", "--rule", "score_floor=-20")
    assert code == 0
    assert [s.default_rules for s in given] == [Rules.preset("clasico", limit=50, score_floor=-20)]


@pytest.mark.parametrize(
    "options", [["--rule", "limit=lots"], ["--rule", "nonsense=1"], ["--rules", "nowhere"], ["--port", "0"]]
)
def test_bad_serve_options_are_one_line_and_status_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, options: list[str]
) -> None:
    code, given = serve(monkeypatch, tmp_path, *options)
    assert code == 2
    assert given == []


def test_a_room_made_without_rules_gets_the_servers_own(tmp_path: Any) -> None:
    import asyncio

    import httpx

    from chinchon.rules import Rules
    from chinchon.server.client import create_room
    from tests.server_support import database_url, running_server

    house = Rules.preset("clasico", limit=50)
    with running_server(database_url("sqlite", tmp_path), default_rules=house) as server:
        plain = asyncio.run(create_room(server.base, name="Ana"))
        chosen = asyncio.run(create_room(server.base, name="Bea", rules={"preset": "polaco"}))
        rooms = {r["code"]: r for r in httpx.get(f"{server.base}/api/lobby").json()}
    assert Rules.from_dict(rooms[plain["code"]]["rules"]) == house
    assert (rooms[plain["code"]]["preset"], rooms[plain["code"]]["options"]) == ("clasico", ["limit=50"])
    assert Rules.from_dict(rooms[chosen["code"]]["rules"]) == Rules.preset("polaco")
    assert (rooms[chosen["code"]]["preset"], rooms[chosen["code"]]["options"]) == ("polaco", [])


def test_a_rooms_options_may_be_given_as_text_as_on_the_command_line() -> None:
    from chinchon.rules import Rules
    from chinchon.server.rooms import Refused, build_rules

    assert build_rules("clasico", {"limit": "50", "wild_ace_of_oros": "true", "score_floor": "none"}) == Rules.preset(
        "clasico", limit=50, wild_ace_of_oros=True, score_floor=None
    )
    with pytest.raises(Refused, match="limit") as refused:
        build_rules("clasico", {"limit": "lots"})
    assert refused.value.code == "bad_rules"


def test_serve_says_which_address_to_open_once_it_listens(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys
    import threading

    from tests.server_support import free_port

    port = free_port()
    command = [sys.executable, "-m", "chinchon", "serve", "--port", str(port), "--lang", "es"]
    command += ["--db", f"sqlite+aiosqlite:///{tmp_path / 'server.db'}", "--log-level", "warning"]
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
    watchdog = threading.Timer(90, server.kill)  # a server that never says it would leave readline waiting
    watchdog.start()
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
    finally:
        watchdog.cancel()
        server.terminate()
        server.wait(60)
    assert line.strip() == f"Abre http://127.0.0.1:{port} en un navegador para jugar."


def test_connection_limits_are_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    options = ("--request-timeout", "7.5", "--hello-timeout", "3", "--connections-per-address", "0")
    code, given = serve(monkeypatch, tmp_path, *options)
    assert code == 0
    assert [(s.request_timeout, s.hello_timeout, s.connections_per_address) for s in given] == [(7.5, 3.0, 0)]
    code, given = serve(monkeypatch, tmp_path)
    defaults = ServerSettings()
    assert [(s.request_timeout, s.hello_timeout, s.connections_per_address) for s in given] == [
        (defaults.request_timeout, defaults.hello_timeout, defaults.connections_per_address)
    ]
    assert (defaults.request_timeout, defaults.hello_timeout, defaults.connections_per_address) == (10.0, 5.0, 100)


@pytest.mark.parametrize(
    "options", [["--request-timeout", "0"], ["--hello-timeout", "0.5"], ["--connections-per-address", "-1"]]
)
def test_a_connection_limit_out_of_range_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, options: list[str]
) -> None:
    code, given = serve(monkeypatch, tmp_path, *options)
    assert code == 2
    assert given == []


def test_https_is_an_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    code, given = serve(monkeypatch, tmp_path, "--https")
    assert code == 0 and [s.https for s in given] == [True]
    code, given = serve(monkeypatch, tmp_path)
    assert code == 0 and [s.https for s in given] == [False]


def test_the_collectors_thaw_is_an_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    code, given = serve(monkeypatch, tmp_path, "--gc-thaw", "30")
    assert code == 0 and [s.gc_thaw for s in given] == [30.0]
    code, given = serve(monkeypatch, tmp_path)
    assert code == 0 and [s.gc_thaw for s in given] == [ServerSettings().gc_thaw] == [600.0]
    code, given = serve(monkeypatch, tmp_path, "--gc-thaw", "-1")
    assert code == 2 and given == []


def test_the_bots_priority_is_an_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    code, given = serve(monkeypatch, tmp_path, "--bot-nice", "3")
    assert code == 0 and [s.bot_nice for s in given] == [3]
    code, given = serve(monkeypatch, tmp_path)
    assert code == 0 and [s.bot_nice for s in given] == [ServerSettings().bot_nice] == [10]
    for bad in ("-1", "20"):
        code, given = serve(monkeypatch, tmp_path, "--bot-nice", bad)
        assert code == 2 and given == []
