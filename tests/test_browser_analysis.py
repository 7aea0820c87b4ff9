"""The analysis in a real browser: "Analyse" at a match's end and in a replay, each decision's mark, the better
move and the graph of the cost."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chinchon.analysis import Settings
from tests.server_support import Running, running_server
from tests.test_browser import (
    DESKTOP,
    EVERYONE_PLAYS_TO_20,
    MATCH_SECONDS,
    Person,
    _keep_options,
    _no_console_errors,
    _play_now,
)
from tests.test_browser_players import _finished_game, _run

PLAYOUTS = 200
"""A small budget (the test checks what the page shows), enough to find a random move's poor discards."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("analysis")
    with running_server(
        f"sqlite+aiosqlite:///{folder / 'server.db'}", rooms_per_minute=1000.0, lookups_per_minute=1000.0
    ) as running:
        running.app.state.accounts.limits.registrations_per_address = 1000.0
        running.app.state.accounts.limits.logins_per_address = 1000.0
        running.app.state.analyses.settings = Settings(playouts=PLAYOUTS)
        yield running


def _action_steps(steps: list[dict[str, Any]], decisions: list[dict[str, Any]], seat: int) -> dict[int, int]:
    """The replay's step of each decision (a step for each public event after the match's start), checked to be
    the seat's own action."""
    at = {d["number"]: d["event"] - 2 for d in decisions}
    assert all(steps[at[d["number"]]]["seat"] == seat for d in decisions)
    assert {steps[i]["kind"] for i in at.values()} <= {"drew", "discarded", "closed", "showed", "laid_off", "passed"}
    return at


ATTEMPTS = 5
"""Matches played until one has a poor decision of the seat: a short match of random moves may have none."""


def test_the_replay_shows_each_decisions_mark_the_better_move_and_the_graph(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        for attempt in range(ATTEMPTS):
            if attempt:
                person.close()
                person = Person(browser, server.base, DESKTOP)
            game_id, replay = _run(_finished_game(server, f"Lena{attempt}"))
            person.open(f"/#/replay/{game_id}")
            person.page.wait_for_selector("[data-analysis=none]")
            person.page.select_option("select[name=analysis-seat]", "0")
            person.page.click("[data-action=analyse]")
            person.page.wait_for_selector("[data-analysis=done]", timeout=120_000)
            reply = httpx.get(f"{server.base}/api/games/{game_id}/analysis", params={"seat": 0})
            analysis = reply.json()["analysis"]
            decisions = analysis["decisions"]
            assert analysis["budget"]["playouts"] == PLAYOUTS
            # The graph: one bar a decision, coloured by its mark.
            assert person.page.get_attribute("[data-graph]", "data-graph") == str(len(decisions))
            bars = person.page.evaluate(
                "[...document.querySelectorAll('.cost-bar')].map((b) => [b.getAttribute('class'), b.dataset.step])"
            )
            at = _action_steps(replay["steps"], decisions, 0)
            assert [(f"cost-bar mark-{d['mark']}", str(at[d["number"]])) for d in decisions] == [
                (cls.replace(" current", ""), step) for cls, step in bars
            ]
            assert "decisions" in person.page.inner_text("[data-summary]")
            # Every bar can be seen and clicked, a poor decision's however small its cost in points.
            heights = person.page.evaluate("[...document.querySelectorAll('.cost-bar')].map((b) => b.getBBox().height)")
            assert min(heights) >= 2
            assert all(h >= 4 for h, d in zip(heights, decisions, strict=True) if d["mark"] != "best")
            if any(d["mark"] != "best" for d in decisions):
                break
        else:
            raise AssertionError(f"none of {ATTEMPTS} matches of random moves had a poor decision")
        # A poor decision (random play makes some): a click on its bar steps there; its mark and the better move.
        poor = next(d for d in decisions if d["mark"] != "best")
        step = at[poor["number"]]
        person.page.click(f".cost-bar[data-step='{step}']")
        person.page.wait_for_selector(f".step-count[data-step='{step}']")
        shown = person.page.wait_for_selector(f".decision[data-number='{poor['number']}']")
        assert shown is not None and shown.get_attribute("data-mark") == poor["mark"]
        text = shown.inner_text()
        assert poor["mark"] in text and "Better:" in text
        best_card = poor["best"].split(" ")[1] if poor["best"].split(" ")[0] in ("discard", "close", "layoff") else ""
        assert best_card in text
        assert "current" in (person.page.get_attribute(f".cost-bar[data-step='{step}']", "class") or "")
        # A step that is no decision of the seat says so.
        person.page.click("[data-action=replay-first]")
        person.page.wait_for_selector(".step-count[data-step='0']")
        assert person.page.get_attribute(".decision", "data-mark") == ""
        _no_console_errors(person)
    finally:
        person.close()
    # In Spanish, the same analysis (done: shown at once) in the page's words.
    spanish = Person(browser, server.base, DESKTOP, locale="es-ES")
    try:
        spanish.open(f"/#/replay/{game_id}")
        spanish.page.wait_for_selector("[data-analysis=done]")
        assert spanish.page.inner_text("[data-action=analyse]") == "Analizar"
        assert "decisiones" in spanish.page.inner_text("[data-summary]")
        _no_console_errors(spanish)
    finally:
        spanish.close()


def test_analyse_at_a_matchs_end_opens_its_replay_with_the_analysis(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        _keep_options(person, EVERYONE_PLAYS_TO_20)
        _play_now(person, "Ana", bot_level="beginner", seats="2")
        deadline = time.monotonic() + MATCH_SECONDS
        while person.step() != "over":
            assert time.monotonic() < deadline, "the match did not end"
            person.page.wait_for_timeout(50)
        person.page.click("[data-action=analyse-room]")
        person.page.wait_for_selector(".replay [data-analysis]")
        assert "#/replay/" in person.page.url
        person.page.wait_for_selector("[data-analysis=done]", timeout=120_000)
        assert int(person.page.get_attribute("[data-graph]", "data-graph") or 0) > 0
        assert person.page.inner_text(".analysis b").startswith("Analysis of Ana")
        _no_console_errors(person)
    finally:
        person.close()
