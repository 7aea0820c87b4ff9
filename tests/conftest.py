"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium under Playwright, one a test module; in CI its absence fails the test, elsewhere it skips it."""
    from chinchon.server.client import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: CI must run the browser tests (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True)
        try:
            yield chromium
        finally:
            chromium.close()
