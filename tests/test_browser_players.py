"""The players' pages in a real browser: an account's seat from a second browser, a guest who registers, the
player's page, and a replay stepped through a whole match."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Coroutine, Iterator
from typing import Any

import httpx
import pytest

from tests.players_support import create_room, play_to_the_end, register, socket_for
from tests.server_support import Running, running_server, start_match
from tests.test_browser import DESKTOP, PHONE, Person, _no_console_errors

RULES = {"preset": "fournier", "options": {"limit": 20, "close_on_first_turn": False}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("players")
    with running_server(
        f"sqlite+aiosqlite:///{folder / 'server.db'}", rooms_per_minute=1000.0, lookups_per_minute=1000.0
    ) as running:
        running.app.state.accounts.limits.registrations_per_address = 1000.0
        running.app.state.accounts.limits.logins_per_address = 1000.0
        yield running


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to its end in a thread of its own (Playwright's loop runs in this one)."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coroutine))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(600)
    if errors:
        raise errors[0]
    return result[0]


def _register(person: Person, name: str, password: str = "a good password") -> None:
    person.open("/#/account")
    person.page.fill("input[name=register-name]", name)
    person.page.fill("input[name=register-password]", password)
    person.page.fill("input[name=register-again]", password)
    person.page.click("[data-action=register]")
    person.page.wait_for_selector(f"[data-account='{name}']")


def _log_in(person: Person, name: str, password: str = "a good password") -> None:
    person.open("/#/account")
    person.page.fill("input[name=login-name]", name)
    person.page.fill("input[name=login-password]", password)
    person.page.click("[data-action=login]")
    person.page.wait_for_selector(f"[data-account='{name}']")


def test_an_accounts_seat_opens_in_a_second_browser_after_logging_in_there(server: Running, browser: Any) -> None:
    phone = Person(browser, server.base, PHONE)
    laptop = Person(browser, server.base, DESKTOP)
    try:
        _register(phone, "Lola")
        phone.page.click("a.brand")
        phone.page.wait_for_selector(".playing-as")
        phone.page.click("[data-action=create]")
        link = phone.page.wait_for_selector("input[name=invite]").input_value()
        code = link.rsplit("/", 1)[1]
        room = server.manager.rooms[code]
        assert room.seats[0].name == "Lola" and room.seats[0].account is not None
        # The second browser has no token for the room: after logging in, the account's seat is its own.
        _log_in(laptop, "Lola")
        laptop.page.goto(link)
        laptop.page.wait_for_selector(".seats li.me:has-text('Lola')")
        assert laptop.page.query_selector("[data-action=take-seat]") is None
        assert laptop.page.evaluate(f"localStorage.getItem('chinchon.seat.{code}')") is None
        assert laptop.page.query_selector("[data-action=start]") is not None  # the creator's own controls
        # Both browsers' sockets count once their hello is through; the pages may show the room just before.
        deadline = time.monotonic() + 10
        while room.seats[0].connections < 2 and time.monotonic() < deadline:
            laptop.page.wait_for_timeout(50)
        assert room.seats[0].connections == 2
        _no_console_errors(phone, laptop)
    finally:
        phone.close()
        laptop.close()


def test_a_guest_who_registers_keeps_the_seat(server: Running, browser: Any) -> None:
    guest = Person(browser, server.base, PHONE)
    try:
        guest.open("/")
        guest.page.fill("input[name=name]", "Guest")
        guest.page.click("[data-action=create]")
        link = guest.page.wait_for_selector("input[name=invite]").input_value()
        code = link.rsplit("/", 1)[1]
        room = server.manager.rooms[code]
        assert room.seats[0].account is None
        _register(guest, "Mario")
        assert room.seats[0].account is not None and room.seats[0].name == "Guest"
        guest.page.goto(link)
        guest.page.wait_for_selector(".seats li.me")
        _no_console_errors(guest)
    finally:
        guest.close()


async def _finished_game(server: Running, name: str) -> tuple[str, dict[str, Any]]:
    """An account plays a whole match against a bot (random legal moves); the game's id and its replay."""
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        await register(http, name)
        room = await create_room(http, seats=2, rules=RULES, bot_level="easy")
        client = socket_for(server.ws, http)
        await client.connect(room=room["code"])
        await start_match(client)
        await play_to_the_end([client], random.Random(11))
        await client.close()
        for _ in range(100):
            games = (await http.get(f"/api/players/{name}/games")).json()["games"]
            if games:
                break
            await asyncio.sleep(0.1)
        game_id = games[0]["id"]
        replay = (await http.get(f"/api/games/{game_id}/replay", params={"lang": "en"})).json()
        return game_id, replay


def test_the_replay_page_steps_through_a_whole_match(server: Running, browser: Any) -> None:
    game_id, replay = _run(_finished_game(server, "Nora"))
    steps = replay["steps"]
    person = Person(browser, server.base, DESKTOP)
    try:
        # From the player's page: the match in the history, its replay one click away.
        person.open("/#/player/Nora")
        person.page.wait_for_selector(f"[data-game='{game_id}']")
        assert person.page.locator("[data-link=download]").first.get_attribute("href") == f"/api/games/{game_id}/record"
        person.page.click(f"[data-game='{game_id}'] [data-link=replay]")
        person.page.wait_for_selector("[data-action=replay-next]")
        seen = 0
        while True:
            counter = person.page.locator(".step-count")
            index = int(counter.get_attribute("data-step") or -1)
            assert index == seen and int(counter.get_attribute("data-steps") or 0) == len(steps)
            step = steps[index]
            # Every hand shown, as the server's step has it, and the step's text.
            for seat, hand in enumerate(step["hands"]):
                shown = person.page.evaluate(
                    f"[...document.querySelectorAll('.replay-seat[data-seat=\"{seat}\"] > .cards .card')]"
                    ".map((c) => c.dataset.card)"
                )
                assert shown == hand, (index, seat)
            assert step["text"] in person.page.inner_text(".replay-text")
            if index == len(steps) - 1:
                break
            person.page.click("[data-action=replay-next]")
            person.page.wait_for_selector(f".step-count[data-step='{index + 1}']")
            seen += 1
        assert person.page.locator("[data-action=replay-next]").is_disabled()
        assert person.page.query_selector("[data-over]") is not None
        totals = person.page.locator(".replay-seat .total").all_inner_texts()
        assert [int(t.split()[0]) for t in totals] == replay["scores"]
        # The deal buttons jump between deals' starts; the first step is the first deal's.
        person.page.click("[data-action=replay-first]")
        person.page.wait_for_selector(".step-count[data-step='0']")
        deals = sorted({s["deal"] for s in steps})
        if len(deals) > 1:
            person.page.click("[data-action=replay-next-deal]")
            second = next(i for i, s in enumerate(steps) if s["deal"] == deals[1])
            person.page.wait_for_selector(f".step-count[data-step='{second}']")
        _no_console_errors(person)
    finally:
        person.close()


def test_the_players_page_and_the_leaderboard_show_ratings(server: Running, browser: Any) -> None:
    async def rated() -> None:
        https = [httpx.AsyncClient(base_url=server.base, timeout=30) for _ in range(2)]
        for http, name in zip(https, ("Olga", "Pau"), strict=True):
            await register(http, name)
        room = await create_room(https[0], seats=2, rules=RULES, rated=True)
        answer = await https[1].post(
            f"/api/rooms/{room['code']}/join",
            json={"name": "?"},
            headers={"X-CSRF-Token": https[1].cookies["chinchon_csrf"]},
        )
        assert answer.status_code == 201
        clients = [socket_for(server.ws, http) for http in https]
        for client in clients:
            await client.connect(room=room["code"])
        await start_match(clients[0])

        await play_to_the_end(clients, random.Random(5))
        for client in clients:
            await client.close()
        for http in https:
            await http.aclose()

    _run(rated())
    person = Person(browser, server.base, PHONE)
    try:
        person.open("/#/player/Olga")
        person.page.wait_for_selector("[data-player='Olga']")
        person.page.wait_for_selector(".rating-chart svg circle")
        assert "rated" in person.page.inner_text(".games")
        person.open("/#/leaderboard")
        # The player's page has a table of the same class, linking to leaderboards: wait for links to players.
        person.page.wait_for_selector(".board tbody td a[href^='#/player/']")
        names = person.page.locator(".board tbody td a[href^='#/player/']").all_inner_texts()
        assert sorted(names) == ["Olga", "Pau"]
        width = person.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the leaderboard scrolls sideways: {width} px"
        _no_console_errors(person)
    finally:
        person.close()
