"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from chinchon.i18n import set_language

if TYPE_CHECKING:
    from chinchon.tui.app import ChinchonApp


@pytest.fixture
def english() -> Iterator[None]:
    """The test starts and ends in English, whatever the environment says."""
    set_language("en")
    yield
    set_language("en")


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database of each kind (PostgreSQL's from ``CHINCHON_TEST_POSTGRES``; see ``tests/server_support.py``)."""
    from tests.server_support import database_url

    return database_url(request.param, tmp_path)


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[ChinchonApp]:
    """The apps ``chinchon play`` would run, caught instead of run (as if at a terminal)."""
    from chinchon import cli
    from chinchon.tui.app import ChinchonApp

    apps: list[ChinchonApp] = []

    def catch(self: ChinchonApp, *args: Any, **kwargs: Any) -> None:
        apps.append(self)

    monkeypatch.setattr(ChinchonApp, "run", catch)
    monkeypatch.setattr(cli, "has_terminal", lambda: True)
    return apps
