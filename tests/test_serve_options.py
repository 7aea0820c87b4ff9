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
