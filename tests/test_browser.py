"""The browser client in a real browser (Debian's chromium through Playwright): pages, a match, two people, a reload."""

from __future__ import annotations

import asyncio
import itertools
import json
import queue
import re
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chinchon.bots.levels import LADDER, LEVELS, RETIRED
from chinchon.cards import Card, parse_cards
from chinchon.match import Match
from chinchon.rules import Rules
from chinchon.server import client, rooms
from chinchon.server.hub import Connection, frame
from chinchon.tui.rules_text import rules_paragraphs
from tests.server_support import ACTED, Running, acted, action_text, has_options, running_server, start_match
from tests.test_server_leak import LeakWatch, cards_in

PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
WAIT_MS = 60_000
# No card moving on the page (motion.js names its animations; the page's CSS ones go on for ever).
NO_MOTION = "() => !document.getAnimations().some((a) => a.id === 'motion')"
MATCH_SECONDS = 240.0
ACT_SECONDS = 15.0
"""How long a move the page sent may take to show before the person looks again."""
OFFERED_BY_MISTAKE = {"not_your_turn", "illegal_action", "bad_action", "wrong_status"}
"""The server's refusals of a move the page should not have offered (a stale one is the table moving on)."""
# Rule options for a match whose first round nobody may close: each person's first decision is a draw of the
# first deal (else a bot moving first could close at once and leave the person a showdown, a new deal, or, in a
# short match, the match over before the person drew).
FIRST_ROUND_OPEN: dict[str, object] = {"close_on_first_turn": False}
EVERYONE_PLAYS_TO_20: dict[str, object] = {**FIRST_ROUND_OPEN, "limit": 20}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("browser")
    with running_server(
        f"sqlite+aiosqlite:///{folder / 'server.db'}", rooms_per_minute=1000.0, lookups_per_minute=1000.0
    ) as running:
        yield running


# What a returning player has chosen, unless a test chooses otherwise: no tips of a first match (they take the place
# of the last moves), and the bots' moves shown as fast as they come (the tests' server has no bot delay).
RETURNING = """
(() => {
  for (const [key, value] of [["tipsOff", "true"], ["pace", '"fast"']]) {
    if (localStorage.getItem("chinchon." + key) === null) localStorage.setItem("chinchon." + key, value);
  }
})();
"""


class Person:
    """A browser context and its page, with the console errors it printed.

    A person is a returning player (no tips, the bots' moves as fast as they come) unless ``newcomer``.
    """

    def __init__(
        self,
        browser: Any,
        base: str,
        viewport: dict[str, int],
        locale: str = "en-US",
        *,
        newcomer: bool = False,
        reduced_motion: str = "no-preference",
    ) -> None:
        self.context = browser.new_context(viewport=viewport, locale=locale, reduced_motion=reduced_motion)
        if not newcomer:
            self.context.add_init_script(RETURNING)
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.base = base
        self.errors: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.refusals: list[str] = []
        self.page.on("websocket", self._watch)
        self.timeout_error: type[Exception] = pytest.importorskip("playwright.sync_api").TimeoutError

    def _watch(self, socket: Any) -> None:
        """Keep the codes of the errors the server sends the page."""

        def received(payload: str | bytes) -> None:
            if isinstance(payload, str) and '"error"' in payload:
                message = json.loads(payload)
                if message.get("type") == "error":
                    self.refusals.append(str(message.get("code")))

        socket.on("framereceived", received)

    def open(self, path: str = "/") -> None:
        self.page.goto(self.base + path)

    def close(self) -> None:
        self.context.close()

    def state(self) -> int:
        return int(self.page.get_attribute(".status", "data-state") or -1)

    def hand(self) -> list[str]:
        cards = self.page.evaluate("[...document.querySelectorAll('.hand .card')].map((c) => c.dataset.card || '')")
        return [str(card) for card in cards]

    def visible(self, selector: str) -> bool:
        """Whether the element is on the page, shown and enabled, read at one instant (a view may replace it
        between two separate reads, and a read of a detached element raises)."""
        return bool(
            self.page.evaluate(
                """(selector) => {
                  const e = document.querySelector(selector);
                  if (!e) return false;
                  const box = e.getBoundingClientRect();
                  return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility !== "hidden" && !e.disabled;
                }""",
                selector,
            )
        )

    def step(self) -> str | None:
        """Make the move the page offers, if any; what was done."""
        page = self.page
        if self.visible("[data-over]"):
            return "over"
        # A button seen a moment ago may be gone by the click (the match-over panel replaces a deal's results):
        # then nothing is done, and the loop looks again.
        if self.visible("[data-action=continue]"):
            return "continue" if self._click("[data-action=continue]") else None
        for choice in ("reenter-no", "show", "layoff", "pass"):
            if self.visible(f"[data-action={choice}]"):
                return self._act(f"[data-action={choice}]")
        if page.get_attribute(".status", "data-mine") != "1":
            return None
        if self.visible("[data-action=draw-stock].live"):
            return self._act("[data-action=draw-stock]")
        if self.visible("[data-action=close]"):
            return self._act("[data-action=close-option]") if self._click("[data-action=close]") else None
        if page.get_attribute(".status", "data-phase") == "discard":
            # Locators, not element handles: a view that comes meanwhile may replace the cards.
            loose = page.locator(".hand button.card:not(.meld)")
            last = (loose if loose.count() else page.locator(".hand button.card")).last
            try:
                if last.get_attribute("aria-pressed", timeout=3000) != "true":
                    last.click(timeout=3000)
                page.wait_for_selector("[data-action=discard]", timeout=3000)
            except self.timeout_error:
                return None
            return self._act("[data-action=discard]")
        return None

    def _click(self, selector: str) -> bool:
        """Click the element if it is there within 3 s; whether it was."""
        try:
            self.page.click(selector, timeout=3000)
        except self.timeout_error:
            return False
        return True

    def _act(self, selector: str) -> str | None:
        before, refused = self.state(), len(self.refusals)
        # A deal's results may open over the table just now: then the loop comes back to it.
        if not self._click(selector):
            return None
        # The state the move made shows, or the deal's results it ended come in front of the table (the next deal
        # waits behind them), or the match is over. A click the page could not send (its socket closing just then:
        # it says so and reconnects) changes nothing: then nothing was done, and the loop looks again.
        try:
            self.page.wait_for_function(
                "([before]) => { const s = document.querySelector('.status'); "
                "return !s || Number(s.dataset.state) !== before"
                " || document.querySelector('[data-over], .sheet.result'); }",
                arg=[before],
                timeout=ACT_SECONDS * 1000,
            )
        except self.timeout_error:
            wrong = [code for code in self.refusals[refused:] if code in OFFERED_BY_MISTAKE]
            assert not wrong, f"the server refused the move the page offered ({selector}): {wrong}"
            return None
        return selector


def _fill_home_form(person: Person, name: str, form: dict[str, str]) -> None:
    """The person opens the home page and gives a name and the form's choices."""
    person.open("/")
    person.page.fill("input[name=name]", name)
    for field, value in form.items():
        if person.page.locator(f"details:not([open]) select[name={field}]").count():
            person.page.click("details.more summary")  # the limit and the timer of "Play now"
        person.page.select_option(f"select[name={field}]", value)


# The room form's fields, as "Play now" names them (it asks for the opponents, not the seats).
PLAY_NOW_FIELDS = {"bot_level": "play_level", "preset": "play_preset", "limit": "play_limit", "turn": "play_turn"}


def _play_now(person: Person, name: str, **form: str) -> None:
    """The person plays now against bots: ``seats`` is the person and the opponents, the rest as for a room."""
    play = {PLAY_NOW_FIELDS.get(field, field): value for field, value in form.items() if field != "seats"}
    if "seats" in form:
        play["opponents"] = str(int(form["seats"]) - 1)
    _fill_home_form(person, name, play)
    person.page.click("[data-action=play-now]")
    person.page.wait_for_selector(".hand .card")


def _create_room(person: Person, name: str, **form: str) -> str:
    """The person creates a room from the home page with the form's choices; its invite link."""
    _fill_home_form(person, name, form)
    person.page.click("[data-action=create]")
    return str(person.page.wait_for_selector("input[name=invite]").input_value())


def _take_seat(person: Person, link: str, name: str) -> None:
    """The person opens an invite link and takes a seat under that name."""
    person.page.goto(link)
    person.page.fill("input[name=name]", name)
    person.page.click("[data-action=take-seat]")


def _a_persons_turn(*people: Person) -> None:
    """Wait until one of the people is to move, with nothing over any of their tables, going past a deal's results.

    Nothing changes in the room then until that person moves (the tests' rooms have no turn timer unless they
    ask for one). Until then a hand can change under a test, and a deal's results can open over a panel it is
    using: the bot may play first, and even close the first deal (CI saw a new hand come in the middle of a drag).
    """
    deadline = time.monotonic() + MATCH_SECONDS
    while not any(person.page.get_attribute(".status", "data-mine") == "1" for person in people):
        assert time.monotonic() < deadline, "no person's turn came"
        for person in people:
            if person.visible("[data-action=continue]"):
                person._click("[data-action=continue]")
        people[0].page.wait_for_timeout(50)
    for person in people:
        while person.visible(".backdrop"):
            assert time.monotonic() < deadline, "a panel stayed over the table"
            if not (person.visible("[data-action=continue]") and person._click("[data-action=continue]")):
                person.page.keyboard.press("Escape")
            person.page.wait_for_timeout(50)


def _room_of(server: Running, person: Person) -> Any:
    """The server's room that the person's page shows."""
    return server.manager.rooms[person.page.url.rsplit("/", 1)[-1]]


def _keep_options(person: Person, options: dict[str, object]) -> None:
    """The person opens the home page with these rule options kept in its forms (a room's and "Play now"'s), as a
    last visit leaves them."""
    person.open("/")
    person.page.evaluate(
        "(form) => { localStorage.setItem('chinchon.form', form); localStorage.setItem('chinchon.play', form); }",
        json.dumps({"options": options}),
    )


def _next_action(server: Running, person: Person, since: int) -> str:
    """The text of the first event of the person's seat (the room's one person) after event ``since``, once the
    server has it.

    A test checks a move here, not in the hand afterwards: a bot may close the deal just after the person's
    discard, and the next deal's hand may hold the same card again (CI saw it).
    """
    room = _room_of(server, person)
    seat = next(s.index for s in room.seats if s.kind == "person")
    deadline = time.monotonic() + MATCH_SECONDS
    while not (mine := [e.event for e in room.kept() if e.n > since and acted(e.message(None, "en"), seat)]):
        assert time.monotonic() < deadline, "the person's move never reached the server"
        time.sleep(0.05)
    return action_text(mine[0])


def _english_suit(card: str) -> str:
    return {"♦": "coins", "♥": "cups", "♠": "swords", "♣": "clubs"}[card[-1]]


def _hand_fits(person: Person, width: int) -> None:
    """Every card of the hand is wholly on screen, and the page does not scroll sideways."""
    boxes = person.page.evaluate(
        "[...document.querySelectorAll('.hand .card')].map((c) => { const b = c.getBoundingClientRect(); "
        "return [b.left, b.right]; })"
    )
    assert boxes
    for left, right in boxes:
        assert left >= 0 and right <= width, (left, right)
    assert person.page.evaluate("document.documentElement.scrollWidth") <= width


def _no_console_errors(*people: Person) -> None:
    for person in people:
        assert person.errors == [], person.errors


def test_the_page_its_modules_and_its_messages_are_served(server: Running) -> None:
    def get(path: str) -> tuple[str, str]:
        with urllib.request.urlopen(server.base + path, timeout=30) as response:
            return response.headers.get("content-type", ""), response.read().decode("utf-8")

    kind, page = get("/")
    assert kind.startswith("text/html") and re.search(
        r'<script type="module" src="/static/v-[0-9a-f]{12}/app\.js">', page
    )
    modules, seen = ["app.js"], set()
    while modules:
        name = modules.pop()
        if name in seen:
            continue
        seen.add(name)
        kind, text = get(f"/static/{name}")
        assert "javascript" in kind, (name, kind)
        modules += re.findall(r'from "\./([\w.]+\.js)"', text)
    assert seen == {
        "app.js",
        "dom.js",
        "i18n.js",
        "render.js",
        "cards.js",
        "ui.js",
        "table.js",
        "help.js",
        "sound.js",
        "account.js",
        "pages.js",
        "state.js",
        "motion.js",
        "analysis.js",
    }
    arabic = json.loads(get("/api/i18n/ar")[1])
    assert arabic["_dir"] == "rtl" and arabic["_lang"] == "ar"
    assert arabic["Play now against bots"] not in ("", "Play now against bots")
    assert arabic["Spanish deck\x04{rank} of coins"] != "{rank} of coins"
    for lang, needs, direction in (("es", "Este juego necesita JavaScript.", "ltr"), ("ar", None, "rtl")):
        asked = urllib.request.Request(server.base + "/", headers={"Accept-Language": f"{lang}-XX,en;q=0.5"})
        with urllib.request.urlopen(asked, timeout=30) as response:
            translated = response.read().decode("utf-8")
        assert f'<html lang="{lang}" dir="{direction}">' in translated
        shown = re.search("<noscript>(.*)</noscript>", translated)
        assert shown is not None and shown.group(1) != "This game needs JavaScript."
        assert needs is None or shown.group(1) == needs
    unknown = json.loads(get("/api/i18n/xx")[1])
    assert unknown["_lang"] == "en" and unknown["_dir"] == "ltr"
    assert unknown["Play now against bots"] == "Play now against bots"


def test_the_client_offers_the_servers_presets_seats_and_levels() -> None:
    source = (Path(__file__).resolve().parent.parent / "chinchon/server/static/render.js").read_text(encoding="utf-8")
    presets = re.search(r"export const PRESETS = \[([^\]]*)\]", source)
    levels = re.search(r"export const LEVELS = \[([^\]]*)\]", source)
    seats = re.search(r"export const MAX_SEATS = \{([^}]*)\}", source)
    assert presets and levels and seats
    names = re.findall(r'"(\w+)"', presets.group(1))
    assert re.findall(r'"(\w+)"', levels.group(1)) == list(LEVELS)
    retired = re.search(r"const RETIRED_LEVELS = \{([^}]*)\}", source)
    assert retired and dict(re.findall(r'(\w+): "(\w+)"', retired.group(1))) == RETIRED
    # Each level's line in the room form is the message the Python side translates (one catalog entry).
    for level in LADDER:
        assert f'{level.name}: _("{level.description}")' in source
    assert {name: int(n) for name, n in re.findall(r"(\w+): (\d+)", seats.group(1))} == {
        name: Rules.preset(name).max_players for name in names
    }


@pytest.mark.parametrize(
    ("locale", "lang", "direction", "english"),
    [
        ("en-US", "en", "ltr", True),
        ("es-ES", "es", "ltr", False),
        ("pt-BR", "pt", "ltr", False),
        ("fr-FR", "fr", "ltr", False),
        ("pl-PL", "pl", "ltr", False),
        ("ar", "ar", "rtl", False),
    ],
)
def test_home_page_in_every_language(
    server: Running, browser: Any, locale: str, lang: str, direction: str, english: bool
) -> None:
    person = Person(browser, server.base, PHONE, locale)
    try:
        person.open("/")
        button = person.page.wait_for_selector("[data-action=play-now]")
        assert person.page.get_attribute("html", "lang") == lang
        assert person.page.get_attribute("html", "dir") == direction
        assert (button.inner_text().strip() == "Play now against bots") is english
        width = person.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the home page scrolls sideways: {width} px"
        _no_console_errors(person)
    finally:
        person.close()


def test_language_can_be_changed(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        person.open("/")
        person.page.wait_for_selector("[data-action=play-now]")
        # The words and the direction change together: the text seen when dir changes is Arabic.
        person.page.evaluate(
            """() => {
              window.__seenAtDir = [];
              new MutationObserver(() => {
                const button = document.querySelector('[data-action=play-now]');
                window.__seenAtDir.push([document.documentElement.dir, button && button.innerText.trim()]);
              }).observe(document.documentElement, { attributes: true, attributeFilter: ['dir'] });
            }"""
        )
        person.page.select_option("header select", "ar")
        person.page.wait_for_function("() => document.documentElement.dir === 'rtl'")
        assert person.page.inner_text("[data-action=play-now]").strip() != "Play now against bots"
        seen = person.page.evaluate("window.__seenAtDir")
        assert seen and all(text != "Play now against bots" for _, text in seen), seen
        person.page.reload()
        person.page.wait_for_selector("[data-action=play-now]")
        assert person.page.get_attribute("html", "lang") == "ar"
        _no_console_errors(person)
    finally:
        person.close()


def test_the_level_select_says_how_each_level_plays_and_reads_an_old_saved_level(server: Running, browser: Any) -> None:
    from chinchon.i18n import translation

    spanish = translation("es")
    person = Person(browser, server.base, DESKTOP, "es-ES")
    try:
        # A form saved before the ladder holds an old level's name: the level it became is chosen.
        person.open("/")
        person.page.evaluate(
            "(form) => localStorage.setItem('chinchon.form', form)", json.dumps({"bot_level": "medium"})
        )
        person.page.reload()
        assert person.page.wait_for_selector("select[name=bot_level]").input_value() == "strong"
        options = person.page.eval_on_selector_all(
            "select[name=bot_level] option", "(options) => options.map((o) => [o.value, o.textContent])"
        )
        assert [value for value, _ in options] == list(LEVELS)
        assert dict(options) == {level: spanish.pgettext("bot level", level) for level in LEVELS}
        for level in LADDER:
            person.page.select_option("select[name=bot_level]", level.name)
            line = person.page.wait_for_selector(f"[data-level-description={level.name}]")
            assert line.inner_text().strip() == spanish.gettext(level.description) != level.description
        _no_console_errors(person)
    finally:
        person.close()


# An AudioContext that makes no sound and keeps the frequency of each note the page plays, in ``chinchonNotes``.
FAKE_AUDIO = """
(() => {
  window.chinchonNotes = [];
  const param = () => ({ setValueAtTime() {}, exponentialRampToValueAtTime() {} });
  window.AudioContext = class {
    constructor() { this.currentTime = 0; this.state = "running"; this.destination = {}; }
    resume() {}
    createGain() { return { gain: param(), connect: (next) => next }; }
    createOscillator() {
      const frequency = { set value(v) { window.chinchonNotes.push(v); } };
      return { type: "", frequency, connect: (next) => next, start() {}, stop() {} };
    }
  };
})();
"""
# The notes of each sound (sound.js): your turn, a close, the end of the match.
NOTES = {"turn": [660, 880], "close": [523, 659, 784], "end": [523, 659, 784, 1047]}


def test_a_whole_match_against_a_bot_on_a_phone(server: Running, browser: Any, tmp_path: Path) -> None:
    person = Person(browser, server.base, PHONE)
    try:
        person.context.add_init_script(FAKE_AUDIO)
        _keep_options(person, EVERYONE_PLAYS_TO_20)
        _play_now(person, "Ana", bot_level="beginner", seats="2")
        has_options(_room_of(server, person).rules, EVERYONE_PLAYS_TO_20)
        # Sounds are off until the player turns them on (which plays the turn's sound once, to hear it).
        assert person.page.evaluate("window.chinchonNotes") == []
        person.page.click("[data-action=settings]")
        person.page.check("input[name=sound]")
        person.page.keyboard.press("Escape")
        person.page.wait_for_selector(".sheet.settings", state="detached")
        assert person.page.evaluate("window.chinchonNotes.length") == 2
        width = person.page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the table scrolls sideways: {width} px"
        done: list[str] = []
        fitted = False
        deadline = time.monotonic() + MATCH_SECONDS
        while time.monotonic() < deadline:
            if not fitted and len(person.hand()) == 8:
                _hand_fits(person, PHONE["width"])
                fitted = True
            move = person.step()
            if move == "over":
                break
            if move is None:
                person.page.wait_for_timeout(50)
            else:
                done.append(move)
        else:
            pytest.fail(f"the match did not end in {MATCH_SECONDS} s; moves: {done[-10:]}")
        assert fitted, "the hand never held 8 cards"
        assert "[data-action=draw-stock]" in done
        assert "[data-action=discard]" in done or "[data-action=close-option]" in done
        person.page.screenshot(path=str(tmp_path / "over.png"))
        notes = person.page.evaluate("window.chinchonNotes")[2:]
        # The player's turns, a close at least and the end of the match (last) were heard.
        assert notes.count(NOTES["turn"][0]) >= 2 and notes[-4:] == NOTES["end"], notes
        assert notes.count(NOTES["close"][0]) >= 2, notes
        person.page.click("[data-action=rematch]")
        person.page.wait_for_selector("[data-over]", state="detached")
        person.page.wait_for_selector(".hand .card")
        assert person.page.inner_text(".table-bar").startswith("Deal 1")
        _no_console_errors(person)
    finally:
        person.close()


def test_a_rematch_clears_the_last_matchs_moves_even_when_its_event_is_missed(server: Running, browser: Any) -> None:
    """The page leaves the last match's moves behind at the next match, rematch event or not: an event lost (a gap
    in the numbers) makes the page ask for the whole view again, as it does when the server keeps the events
    missed no more (a restart, or too many of them)."""
    person = Person(browser, server.base, DESKTOP)
    dropped: list[str] = []
    views: list[int] = []

    def without_rematch_events(page_side: Any) -> None:
        server_side = page_side.connect_to_server()

        def forward(message: str | bytes) -> None:
            event = json.loads(message)
            if event.get("type") == "event" and event["event"]["kind"] == "rematch":
                dropped.append(event["event"]["kind"])
            else:
                if event.get("type") == "view":
                    views.append(event["state"])
                page_side.send(message)

        server_side.on_message(forward)

    try:
        person.page.route_web_socket("**/ws", without_rematch_events)
        _keep_options(person, EVERYONE_PLAYS_TO_20)
        _play_now(person, "Ana", bot_level="beginner", seats="2")
        room = _room_of(server, person)
        has_options(room.rules, EVERYONE_PLAYS_TO_20)
        deadline = time.monotonic() + MATCH_SECONDS
        while person.step() != "over":
            assert time.monotonic() < deadline, f"the match did not end in {MATCH_SECONDS} s"
            person.page.wait_for_timeout(50)
        person.page.click("[data-action=rematch]")
        person.page.wait_for_selector("[data-over]", state="detached")
        _a_persons_turn(person)
        assert dropped == ["rematch"]
        rematch = max(e.n for e in room.kept() if e.event["kind"] == "rematch")
        # The moves told after the whole view the page asked for (those before it are in that view's state).
        resynced = views[-1]
        assert resynced > rematch
        since = [e for e in room.kept() if e.n > resynced and e.event["kind"] in ACTED]
        person.page.click("[data-action=history]")
        person.page.wait_for_selector("[role=dialog]")
        shown = person.page.locator("ol.log li:not(.note)").count()
        assert shown == len(since), f"{shown} moves listed, {len(since)} made in this match"
        _no_console_errors(person)
    finally:
        person.close()


def test_two_people_join_by_the_invite_link_and_play_a_turn_each(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, PHONE)
    bea = Person(browser, server.base, DESKTOP)
    try:
        link = _create_room(ana, "Ana", seats="3", bot_level="beginner")
        code = link.rsplit("/", 1)[1]
        assert "token" not in link and len(code) >= 6
        assert ana.page.evaluate(f"JSON.parse(localStorage.getItem('chinchon.seat.{code}')).token")
        _take_seat(bea, link, "Bea")
        bea.page.wait_for_selector("input[name=invite]")
        ana.page.wait_for_selector(".seats li:has-text('Bea')")
        ana.page.click("[data-action=start]")
        ana.page.wait_for_selector(".hand .card")
        bea.page.wait_for_selector(".hand .card")
        acted = {"Ana": 0, "Bea": 0}
        deadline = time.monotonic() + MATCH_SECONDS
        while min(acted.values()) < 2 and time.monotonic() < deadline:
            moved = False
            for name, person in (("Ana", ana), ("Bea", bea)):
                if acted[name] < 2 and person.step() is not None:
                    acted[name] += 1
                    moved = True
            if not moved:
                ana.page.wait_for_timeout(50)
        assert acted == {"Ana": 2, "Bea": 2}, acted
        _a_persons_turn(ana, bea)  # else the bot may end the deal, and its results take the chat's place
        ana.page.click("[data-action=chat]")
        ana.page.fill("input[name=chat]", "¡hola, Bea!")
        ana.page.press("input[name=chat]", "Enter")
        bea.page.click("[data-action=chat]")
        bea.page.wait_for_selector(".chat li:has-text('¡hola, Bea!')")
        assert ana.page.locator(".opponent:has-text('Bea')").count() == 1
        assert bea.page.locator(".opponent:has-text('Ana')").count() == 1
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_two_people_and_a_bot_play_a_whole_match_in_two_browsers(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, PHONE)
    bea = Person(browser, server.base, DESKTOP)
    try:
        _keep_options(ana, EVERYONE_PLAYS_TO_20)
        link = _create_room(ana, "Ana", seats="3", bot_level="beginner")
        has_options(server.manager.rooms[link.rsplit("/", 1)[1]].rules, EVERYONE_PLAYS_TO_20)
        _take_seat(bea, link, "Bea")
        ana.page.wait_for_selector(".seats li:has-text('Bea')")
        ana.page.click("[data-action=start]")
        moves: dict[str, list[str]] = {"Ana": [], "Bea": []}
        over: set[str] = set()
        deadline = time.monotonic() + 2 * MATCH_SECONDS
        while len(over) < 2 and time.monotonic() < deadline:
            moved = False
            for name, person in (("Ana", ana), ("Bea", bea)):
                if name in over:
                    continue
                move = person.step()
                if move == "over":
                    over.add(name)
                elif move is not None:
                    moves[name].append(move)
                    moved = True
            if not moved:
                ana.page.wait_for_timeout(50)
        assert over == {"Ana", "Bea"}, f"the match did not end for both: {moves}"
        for name, done in moves.items():
            assert "[data-action=draw-stock]" in done, (name, done)
            assert "[data-action=discard]" in done or "[data-action=close-option]" in done, (name, done)
        # Each page names the server's winner: "You" for the winner's own page.
        match = server.manager.rooms[link.rsplit("/", 1)[1]].match
        assert match is not None and match.over and match.winner is not None
        winner = match.names[match.winner]
        for name, person in (("Ana", ana), ("Bea", bea)):
            said = person.page.inner_text("[data-over]").split("\n")[0]
            assert said.startswith("You won") if winner == name else winner in said, (name, winner, said)
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_a_reload_keeps_the_seat_and_the_hand(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, PHONE)
    try:
        # The loop below plays only a draw: the person's first decision must be one.
        _keep_options(person, FIRST_ROUND_OPEN)
        _play_now(person, "Ana", bot_level="beginner")
        has_options(_room_of(server, person).rules, FIRST_ROUND_OPEN)
        deadline = time.monotonic() + MATCH_SECONDS
        status = person.page.locator(".status")
        while not (status.get_attribute("data-mine") == "1" and status.get_attribute("data-phase") == "discard"):
            assert time.monotonic() < deadline, "no turn came"
            if person.visible("[data-action=draw-stock].live"):
                person.page.keyboard.press("s")  # the terminal game's key
            person.page.wait_for_timeout(50)
        before = sorted(person.hand())
        url = person.page.url
        assert len(before) == 8
        person.page.reload()
        person.page.wait_for_selector(".hand .card")
        assert person.page.url == url
        assert sorted(person.hand()) == before
        assert person.page.get_attribute(".status", "data-mine") == "1"
        first = person.hand()[0]
        since = _room_of(server, person).n
        person.page.keyboard.press("1")
        person.page.wait_for_selector(".hand .card.selected[data-index='0']")
        assert (person.page.get_attribute("[data-action=discard]", "aria-label") or "").endswith(
            "of " + _english_suit(first)
        )
        person.page.keyboard.press("Enter")
        assert _next_action(server, person, since) == f"discard {first}"
        _no_console_errors(person)
    finally:
        person.close()


def _chart_points(person: Person) -> int:
    """How many deals the chart of the last deal's results draws (it is shown from the second total on)."""
    person.page.click("[data-action=last-deal]")
    line = person.page.wait_for_selector(".result .chart polyline")
    assert line is not None
    count = len((line.get_attribute("points") or "").split())
    person.page.click(".result [data-action=continue]")
    return count


def test_the_chart_outlives_a_reload_and_a_player_leaves_during_the_match(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        _keep_options(person, {"limit": 100})
        _play_now(person, "Ana", bot_level="beginner", seats="2")
        deadline = time.monotonic() + MATCH_SECONDS
        while person.step() != "continue" or not person.visible("[data-action=last-deal]"):
            assert time.monotonic() < deadline, "the first deal did not end"
            assert not person.visible("[data-over]"), "the match ended in one deal"
            person.page.wait_for_timeout(50)
        _a_persons_turn(person)  # the second deal cannot end (and add a point) until the person plays
        before = _chart_points(person)
        assert before >= 2
        person.page.reload()
        person.page.wait_for_selector("[data-action=last-deal]")
        assert _chart_points(person) == before
        code = person.page.url.rsplit("/", 1)[-1]

        def names() -> list[str] | None:
            """The people seated in the room; None once it is closed."""
            try:
                with urllib.request.urlopen(f"{server.base}/api/rooms/{code}", timeout=30) as response:
                    return list(json.loads(response.read())["names"])
            except urllib.error.HTTPError as error:
                assert error.code == 404
                return None

        assert names() == ["Ana"]
        person.page.on("dialog", lambda dialog: dialog.accept())
        person.page.click("[data-action=leave]")
        person.page.wait_for_selector("[data-action=play-now]")
        assert person.page.evaluate(f"localStorage.getItem('chinchon.seat.{code}')") is None
        assert names() in ([], None)
        closing = time.monotonic() + 30
        while names() is not None:  # nobody is left: the room closes
            assert time.monotonic() < closing, "the room stayed open with nobody in it"
            time.sleep(0.1)
        _no_console_errors(person)
    finally:
        person.close()


def test_a_lost_connection_comes_back_by_itself(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, PHONE)
    routes: list[Any] = []

    def through(route: Any) -> None:
        route.connect_to_server()
        routes.append(route)

    try:
        person.page.route_web_socket("**/ws", through)
        _play_now(person, "Ana", bot_level="beginner")
        person.page.wait_for_selector(".conn.open")
        _a_persons_turn(person)
        before = sorted(person.hand())
        opened = len(routes)
        routes[-1].close(code=4000, reason="the network went away")
        person.page.wait_for_function("() => !document.querySelector('.conn.open')")
        person.page.wait_for_selector(".conn.open")
        assert len(routes) == opened + 1, "the page did not open a new connection"
        person.page.wait_for_selector(".hand .card")
        assert sorted(person.hand()) == before  # the player has not moved: the same seat, the same hand
        moves = 0
        deadline = time.monotonic() + MATCH_SECONDS
        while moves < 2 and time.monotonic() < deadline:
            if person.step() is None:
                person.page.wait_for_timeout(50)
            else:
                moves += 1
        assert moves == 2
        _no_console_errors(person)
    finally:
        person.close()


def test_the_creator_removes_a_player(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, DESKTOP)
    bea = Person(browser, server.base, PHONE)
    try:
        link = _create_room(ana, "Ana", seats="3")
        code = link.rsplit("/", 1)[1]
        _take_seat(bea, link, "Bea")
        bea.page.wait_for_selector(".seats li.me:has-text('Bea')")
        assert bea.page.query_selector("[data-action=kick-0]") is None  # only the creator removes
        ana.page.click("[data-action=kick-1]")
        ana.page.wait_for_selector(".seats li:has-text('Bea')", state="detached")
        bea.page.wait_for_selector(".toast")
        bea.page.wait_for_selector(".seats li.me", state="detached")
        assert bea.page.evaluate(f"localStorage.getItem('chinchon.seat.{code}')") is None
        assert server.manager.rooms[code].seats[1].kind == "open"
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def _drag(person: Person, source: str, target: str) -> None:
    """Drag with the mouse from the middle of one element to the middle of another (once no card moves)."""
    page = person.page
    page.wait_for_function(NO_MOTION)
    start, end = page.locator(source).bounding_box(), page.locator(target).bounding_box()
    assert start is not None and end is not None
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(
            start["x"] + start["width"] / 2 + (end["x"] - start["x"]) * k / 5,
            start["y"] + start["height"] / 2 + (end["y"] - start["y"]) * k / 5,
        )
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2)
    page.mouse.up()


def test_cards_are_dragged_to_reorder_and_onto_the_pile(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, PHONE)
    try:
        # The person's turn below is a draw of the first deal, not a showdown after a bot's close: the cards are
        # dragged, and then the loop only draws.
        _keep_options(person, FIRST_ROUND_OPEN)
        _play_now(person, "Ana", bot_level="beginner", turn="30")
        has_options(_room_of(server, person).rules, FIRST_ROUND_OPEN)
        _a_persons_turn(person)
        before = person.hand()
        _drag(person, ".hand .card[data-index='0']", ".hand .card[data-index='3']")
        person.page.wait_for_function(f"() => document.querySelector('.hand .card').dataset.card !== {before[0]!r}")
        after = person.hand()
        assert after == [*before[1:4], before[0], *before[4:]], (before, after)
        assert person.page.query_selector(".hand .card.selected") is None  # a drag is not a tap
        deadline = time.monotonic() + MATCH_SECONDS
        status = person.page.locator(".status")
        while not (status.get_attribute("data-mine") == "1" and status.get_attribute("data-phase") == "discard"):
            assert time.monotonic() < deadline, "no turn came"
            if person.visible("[data-action=draw-stock].live"):
                person._act("[data-action=draw-stock]")
            person.page.wait_for_timeout(50)
        left = int(person.page.inner_text("[role=timer]"))
        assert 0 <= left <= 30
        since = _room_of(server, person).n
        dragged = person.hand()[1]
        _drag(person, ".hand .card[data-index='1']", "[data-action=draw-discard]")
        assert _next_action(server, person, since) == f"discard {dragged}", left
        _no_console_errors(person)
    finally:
        person.close()


def test_the_lobby_lists_public_rooms_live_and_chats(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, PHONE)
    bea = Person(browser, server.base, DESKTOP)
    try:
        for person, name in ((ana, "Ana"), (bea, "Bea")):
            person.open("/")
            person.page.fill("input[name=name]", name)
        ana.page.fill("input[name=chat]", "¿alguien juega?")
        ana.page.press("input[name=chat]", "Enter")
        bea.page.wait_for_selector(".chat li:has-text('¿alguien juega?')")
        bea.page.check("input[name=public]")  # a room for friends is private unless listed
        bea.page.click("[data-action=create]")
        link = bea.page.wait_for_selector("input[name=invite]").input_value()
        code = link.rsplit("/", 1)[1]
        # A locator, not an element handle: the list is redrawn as other rooms open and close (earlier tests'
        # rooms close once empty), and a row found now may be replaced by the time of the click.
        row = ana.page.locator(f".lobby li:has-text('{code}')")
        assert "Bea" in row.inner_text()
        row.locator("button").click()
        ana.page.click("[data-action=take-seat]")
        bea.page.wait_for_selector(".seats li:has-text('Ana')")
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


RECORD_FRAMES = """
(() => {
  const Native = window.WebSocket;
  window.chinchonFrames = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      // Added before the page's own onmessage: a frame is recorded before the page acts on it.
      this.addEventListener("message", (e) => window.chinchonFrames.push(e.data));
    }
  };
})();
"""
"""Kept before the page's scripts run: every WebSocket frame the page receives, in order, in ``chinchonFrames``."""


class SpectatorFrames:
    """A hub observer: each message queued for a room's spectators, checked against the room as it was made from.

    The check is the leak test's (:class:`tests.test_server_leak.LeakWatch`), in the server's loop, while the
    match is in the state the message describes; ``checked`` keeps the frames' texts, to compare with the page's.
    """

    def __init__(self, server: Running, code: str) -> None:
        self.watch = LeakWatch(server.manager)
        self.code = code
        self.checked: list[str] = []

    def __call__(self, connection: Connection, message: dict[str, Any]) -> None:
        if connection.room == self.code and connection.role == "spectator":
            self.watch(connection, message)
            self.checked.append(frame(message))


def test_a_spectator_never_sees_a_hidden_card(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, PHONE)
    watcher = Person(browser, server.base, DESKTOP)
    hub = server.app.state.hub
    frames: SpectatorFrames | None = None
    try:
        watcher.page.add_init_script(RECORD_FRAMES)
        _play_now(ana, "Ana", bot_level="beginner")
        code = ana.page.inner_text(".room-code").strip()
        frames = SpectatorFrames(server, code)
        hub.observers.append(frames)
        watcher.open(f"/#/room/{code}")
        watcher.page.click("[data-action=watch]")
        watcher.page.wait_for_selector(".opponent")
        assert watcher.page.query_selector(".hand") is None
        # Until the page has seen a deal end and the next one dealt (the riskiest moment), or the match end.
        samples, next_deal = 0, False
        deadline = time.monotonic() + MATCH_SECONDS
        while not (samples >= 6 and next_deal) and time.monotonic() < deadline:
            move = ana.step()
            if move == "over":
                break
            if move is None:
                ana.page.wait_for_timeout(50)
                continue
            drawn, cards, received = watcher.page.evaluate(
                "() => [[...document.querySelectorAll('[data-state]')].map((e) => e.dataset.state),"
                " [...document.querySelectorAll('[data-card]')].map((c) => c.dataset.card), window.chinchonFrames]"
            )
            told = [m for m in map(json.loads, received) if m["type"] in ("view", "event")]
            next_deal = next_deal or any(
                m["type"] == "event" and m["event"]["kind"] == "deal_started" and m["event"]["number"] >= 2
                for m in told
            )
            if not drawn:
                continue
            # The page shows cards it was told of (each frame checked below), and no other.
            named = {str(card) for card in cards_in(told)}
            assert set(cards) - {"back"} <= named, set(cards) - {"back"} - named
            assert len(watcher.page.query_selector_all(".opponent")) == 2
            samples += 1
        assert samples >= 6 and (next_deal or watcher.visible("[data-over]")), (samples, next_deal)
        received = watcher.page.evaluate("window.chinchonFrames")
        # Every frame the page received was checked, against the state it was made from, and none named a hidden card.
        assert received and not Counter(received) - Counter(frames.checked)
        assert frames.watch.cards > 0 and frames.watch.hidden_seen > 0
        assert not frames.watch.failures, "\n".join(frames.watch.failures[:5])
        _no_console_errors(ana, watcher)
    finally:
        if frames is not None:
            hub.observers.remove(frames)
        ana.close()
        watcher.close()


def test_a_tap_on_take_a_seat_counts_while_the_rooms_details_arrive(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, DESKTOP)
    bea = Person(browser, server.base, PHONE)
    held: list[Any] = []
    try:
        ana.open("/")
        ana.page.fill("input[name=name]", "Ana")
        ana.page.click("[data-action=create]")
        link = ana.page.wait_for_selector("input[name=invite]").input_value()
        code = link.rsplit("/", 1)[1]
        bea.page.route(f"**/api/rooms/{code}", lambda route: held.append(route))
        bea.page.goto(link)
        bea.page.fill("input[name=name]", "Bea")
        name = bea.page.query_selector("input[name=name]")
        take = bea.page.wait_for_selector("[data-action=take-seat]")
        assert name is not None and take is not None
        box = take.bounding_box()
        assert box is not None
        # The room's details come between the press and the release of a tap.
        bea.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        bea.page.mouse.down()
        bea.page.wait_for_function("() => true")
        assert len(held) == 1
        held[0].continue_()
        bea.page.wait_for_selector(f"main:has-text('{code}'):has-text('Ana')")
        # The same button and input, where they were: the release completes the tap.
        assert take.evaluate("(e) => e.isConnected") and name.evaluate("(e) => e.isConnected")
        assert take.bounding_box() == box
        bea.page.mouse.up()
        ana.page.wait_for_selector(".seats li:has-text('Bea')")
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_the_hand_stays_in_place_while_the_others_moves_come_in(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, DESKTOP)
    bea = Person(browser, server.base, PHONE)
    try:
        # The first mover may not close at its first turn (1.2% of deals would let it): its second move is a discard.
        _keep_options(ana, FIRST_ROUND_OPEN)
        link = _create_room(ana, "Ana", seats="2")
        has_options(server.manager.rooms[link.rsplit("/", 1)[1]].rules, FIRST_ROUND_OPEN)
        _take_seat(bea, link, "Bea")
        ana.page.wait_for_selector(".seats li:has-text('Bea')")
        ana.page.click("[data-action=start]")
        ana.page.wait_for_selector(".hand .card")
        bea.page.wait_for_selector(".hand .card")
        first, second = (ana, bea) if ana.page.get_attribute(".status", "data-mine") == "1" else (bea, ana)
        hand = "(() => document.querySelector('.hand').getBoundingClientRect().top)()"
        seen = "document.querySelectorAll('.moves li').length"
        where = [(second.page.evaluate(seen), second.page.evaluate(hand))]
        # The first mover draws, then discards: each move comes into the other's list of last moves.
        for count in (1, 2):
            assert first.step() is not None
            second.page.wait_for_function(f"() => {seen} === {count}")
            where.append((second.page.evaluate(seen), second.page.evaluate(hand)))
        assert [count for count, _ in where] == [0, 1, 2]
        tops = {top for _, top in where}
        assert len(tops) == 1, f"the hand moved as the moves came in: {where}"
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_a_child_that_comes_or_goes_leaves_the_elements_after_it_in_place(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, PHONE)
    try:
        person.open("/")
        person.page.wait_for_selector("[data-action=play-now]")
        kept = person.page.evaluate(
            """async () => {
              const { h, patch } = await import("/static/dom.js");
              const box = document.createElement("div");
              const tree = (note, extra) => h("main", null, note ? h("p", null, "note") : null,
                h("input", { name: "x" }), extra && h("span", null, "extra"), h("button", null, "go"));
              let shown = patch(box, tree(false, false), null);
              const input = box.querySelector("input"), button = box.querySelector("button");
              const same = [];
              for (const [note, extra] of [[true, false], [true, true], [false, true], [false, false]]) {
                shown = patch(box, tree(note, extra), shown);
                same.push(box.querySelector("input") === input && box.querySelector("button") === button
                  && Boolean(box.querySelector("p")) === note && Boolean(box.querySelector("span")) === extra);
              }
              return same;
            }"""
        )
        assert kept == [True, True, True, True]
        _no_console_errors(person)
    finally:
        person.close()


# -- dealt hands: a test's own deal, not chance's ----------------------------------------------------------------


def _deck(rules: Rules, hands: list[str], up: str, stock: str = "") -> list[Card]:
    """A deck order that deals these hands (in playing order from the first to move), turns ``up`` face up and puts
    ``stock`` on top of the stock; the rest of the deck follows in the rules' order."""
    dealt = [parse_cards(hand) for hand in hands]
    order = [dealt[seat][i] for i in range(rules.hand_size) for seat in range(len(dealt))]
    order += parse_cards(f"{up} {stock}")
    rest = list(rules.cards())
    for card in order:
        rest.remove(card)
    return order + rest


def _deal_next_matches(
    monkeypatch: pytest.MonkeyPatch, deck: list[Card], first: int = 0, scores: list[int] | None = None
) -> None:
    """The server (in this process) deals the first deal of the matches it starts from ``deck``, ``first`` moving
    first and ``scores`` the starting totals; later deals come from the match's seeded shuffle."""

    def dealt(names: list[str], rules: Rules, seed: int | None = None) -> Match:
        return Match(names, rules, seed=seed, decks=[deck], first=first, scores=scores)

    monkeypatch.setattr(rooms, "Match", dealt)


def _seat_actions(room: Any, seat: int, since: int, count: int) -> list[str]:
    """The texts of the first ``count`` actions of a seat after event ``since``, once the server has them."""
    deadline = time.monotonic() + MATCH_SECONDS
    while len(done := [_told(e.event) for e in room.kept(since) if acted(e.message(None, "en"), seat)]) < count:
        assert time.monotonic() < deadline, f"the seat's moves never reached the server: {done}"
        time.sleep(0.05)
    return done[:count]


def _told(event: dict[str, Any]) -> str:
    """An action's text as an event tells it, a close's and a show's melds with it (``close [3♥ 4♥ 5♥]``)."""
    text = action_text(event)
    if event["kind"] in ("closed", "showed"):
        text = " ".join([text, *("[" + " ".join(meld) + "]" for meld in event["melds"])])
    return text


def _two_people(
    browser: Any,
    server: Running,
    viewports: tuple[dict[str, int], dict[str, int]],
    newcomers: bool = False,
    **form: str,
) -> tuple[Person, Person, Any]:
    """Ana makes a room with the form's choices, Bea takes its second seat, Ana starts: (Ana, Bea, the room)."""
    ana = Person(browser, server.base, viewports[0], newcomer=newcomers)
    bea = Person(browser, server.base, viewports[1], newcomer=newcomers)
    link = _create_room(ana, "Ana", seats="2", **form)
    _take_seat(bea, link, "Bea")
    ana.page.wait_for_selector(".seats li:has-text('Bea')")
    ana.page.click("[data-action=start]")
    ana.page.wait_for_selector(".hand .card")
    bea.page.wait_for_selector(".hand .card")
    return ana, bea, server.manager.rooms[link.rsplit("/", 1)[1]]


SUITS = re.compile("[♦♥♠♣]")
# Ana (seat 0, first to move) holds a run and a set and draws the card that lets her close (the 2 of swords, or the
# ace of swords face down); Bea holds three cards that lay off on Ana's melds and nothing that melds.
ANA_CLOSES = ["3♦ 4♦ 5♦ K♥ K♠ K♣ A♠", "6♦ 2♦ K♦ 7♣ 5♣ 4♥ J♥"]


def test_a_close_and_its_showdown_between_two_people(
    server: Running, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close sheet scores each option; the showdown names cards as the Spanish deck draws them, suggests and lays
    off all, and fits a desktop's screen; the deal's results stay in front of the next deal until each continues."""
    _deal_next_matches(monkeypatch, _deck(Rules(), ANA_CLOSES, up="7♥", stock="2♠"))
    ana, bea, room = _two_people(browser, server, (DESKTOP, DESKTOP), preset="fournier")
    try:
        ana.page.wait_for_selector("[data-action=draw-stock].live")
        ana._act("[data-action=draw-stock]")
        ana.page.click("[data-action=close]")
        ana.page.wait_for_selector("[data-action=close-option]")
        options = ana.page.eval_on_selector_all(
            "[data-action=close-option]",
            "(all) => all.map((o) => [o.dataset.points, o.querySelector('.loose-cards').dataset.loose, o.className])",
        )
        # Each close says what it leaves loose and scores: the ace of swords loose (1 point) first, as suggested.
        assert [option[:2] for option in options] == [["1", "A♠"], ["2", "2♠"]], options
        assert "suggested" in options[0][2]
        ana.page.click("[data-action=keep-playing]")
        ana.page.wait_for_selector("[data-action=close-option]", state="detached")
        assert ana.visible("[data-action=close]") and ana.page.get_attribute(".status", "data-mine") == "1"
        since = room.n
        for person in (ana, bea):
            person.page.evaluate(f"() => {{ {MOVES} }}")
        ana.page.click("[data-action=close]")
        ana.page.click("[data-action=close-option] >> nth=0")
        # The close's public text leaves the face-down card out: the scores say which close it was (below).
        assert _seat_actions(room, 0, since, 1)[0].startswith("close [")

        # Bea reads Ana's close with the deck's suits, never the French ♦ ♥ ♠ ♣, each card named for a screen reader.
        # (Bea has no melds to show: the engine shows her hand; her decisions are the lay-offs.)
        bea.page.wait_for_selector("[data-action=layoff]")
        bea.page.wait_for_selector(".moves li:has-text('Ana closed')")
        closed = bea.page.eval_on_selector_all(".moves li:last-child .ctext", "(all) => all.map((c) => c.dataset.card)")
        assert sorted(closed) == sorted(["3♦", "4♦", "5♦", "K♥", "K♠", "K♣"])
        # The melds went down on the table: from Ana's hand on her page, from her seat on Bea's.
        for person in (ana, bea):
            moved = person.page.evaluate("window.chinchonMoves")
            down = sorted(m["card"] for m in moved if not m["hand"] and m["running"] and m["id"] == "motion")
            assert down == sorted(closed), moved
        assert "king of cups" in bea.page.eval_on_selector_all(
            ".moves .ctext", "(all) => all.map((c) => c.getAttribute('aria-label')).join()"
        )
        since = room.n
        text = bea.page.inner_text("main")
        assert not SUITS.search(text), text
        offered = bea.page.eval_on_selector_all(
            "[data-action=layoff] .ctext", "(all) => all.map((c) => c.dataset.card)"
        )
        assert sorted(offered) == ["2♦", "6♦", "K♦"]
        # On a desktop the showdown fits the screen: nothing to scroll to.
        assert bea.page.evaluate("document.documentElement.scrollHeight <= innerHeight"), bea.page.evaluate(
            "[document.documentElement.scrollHeight, innerHeight]"
        )
        bea.page.click("[data-action=suggest]")
        bea.page.wait_for_selector("[data-action=layoff].suggested")
        assert bea.page.eval_on_selector("[data-action=layoff].suggested .ctext", "(c) => c.dataset.card") == "K♦"
        bea.page.click("[data-action=layoff-all]")
        done = _seat_actions(room, 1, since, 3)
        assert [move.split()[:2] for move in done] == [["layoff", "K♦"], ["layoff", "6♦"], ["layoff", "2♦"]], done
        # With nothing left to lay off the deal ends by itself, or Bea passes.
        bea.page.wait_for_selector(".sheet.result, .table:not(:has([data-action=layoff])) [data-action=pass]")
        if not bea.visible(".sheet.result"):
            bea._act("[data-action=pass]")

        # The deal's results stay in front: whoever moves first in the next deal continues and draws; the other's
        # page keeps the results and the last deal's table until it continues, then shows that draw.
        for person in (ana, bea):
            person.page.wait_for_selector(".sheet.result [data-action=continue]")
        # Ana kept the ace of swords loose (1 point); Bea laid off three cards and kept 7♣ 5♣ 4♥ J♥ (24 points).
        assert room.match is not None and len(room.match.deals) == 2 and room.match.scores == [1, 24]
        mover, other = (ana, bea) if room.match.to_move == 0 else (bea, ana)
        mover.page.click("[data-action=continue]")
        mover.page.wait_for_selector(".status[data-mine='1']")
        mover._act("[data-action=draw-stock]")
        held = room.n
        assert other.visible(".sheet.result") and other.page.inner_text(".deal-no") == "Deal 1"
        assert other.state() < held
        other.page.click("[data-action=continue]")
        other.page.wait_for_selector(".sheet.result", state="detached")
        other.page.wait_for_function(f"() => Number(document.querySelector('.status').dataset.state) === {held}")
        assert other.page.inner_text(".deal-no") == "Deal 2"
        name = "Ana" if mover is ana else "Bea"
        assert other.page.inner_text(".moves li:last-child") == f"{name} drew from the stock"
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_a_player_over_the_limit_is_asked_to_re_enter_not_told_the_match_is_over(
    server: Running, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = Rules.preset("clasico", limit=50)
    # Bea moves first and closes at once; Ana, at 50, holds only loose cards, none of which lays off: she goes over.
    deck = _deck(rules, ["3♦ 4♦ 5♦ K♥ K♠ K♣ A♠", "7♣ 5♣ 4♥ J♥ 9♠ 2♥ 8♦"], up="6♥", stock="2♠")
    _deal_next_matches(monkeypatch, deck, first=1, scores=[50, 0])
    ana, bea, room = _two_people(browser, server, (PHONE, DESKTOP), preset="clasico", limit="50")
    try:
        has_options(room.rules, {"limit": 50, "reentry": "once"})
        bea.page.wait_for_selector("[data-action=draw-stock].live")
        bea._act("[data-action=draw-stock]")
        bea.page.click("[data-action=close]")
        bea.page.click("[data-action=close-option] >> nth=0")
        deadline = time.monotonic() + MATCH_SECONDS
        while not (ana.visible("[data-action=reenter-yes]") or ana.visible("[data-over]")):
            assert time.monotonic() < deadline, "Ana was never asked"
            for choice in ("show", "pass"):
                if ana.visible(f"[data-action={choice}]"):
                    ana._act(f"[data-action={choice}]")
            ana.page.wait_for_timeout(50)
        assert room.status == "playing" and room.match is not None and room.match.legal_actions()
        assert not ana.visible("[data-over]"), "the page said the match is over while it waits for Ana"
        assert ana.visible("[data-action=reenter-no]") and not ana.visible("[data-action=rematch]")
        since = room.n
        ana.page.click("[data-action=reenter-yes]")
        assert _seat_actions(room, 0, since, 1) == ["reenter yes"]
        ana.page.wait_for_selector("[data-reentry]", state="detached")
        ana.page.wait_for_function("() => document.querySelector('.deal-no')?.textContent === 'Deal 2'")
        assert not ana.visible("[data-over]")
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_cards_are_drawn_left_to_right_in_arabic(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, PHONE, "ar")
    try:
        _play_now(person, "Ana", bot_level="beginner")
        assert person.page.get_attribute("html", "dir") == "rtl"
        # A card still moving (the deal, a bot's move) is between two places: read them once they are still.
        person.page.wait_for_function(NO_MOTION)
        cards = person.page.evaluate(
            """() => [...document.querySelectorAll('.hand .card')].map((c) => {
              const box = c.querySelector('svg').getBoundingClientRect();
              return { index: Number(c.dataset.index), box: [box.left, box.right, box.top, box.bottom],
                       corners: [...c.querySelectorAll('text')].map((t) => { const r = t.getBoundingClientRect();
                         return [r.left, r.right, r.top, r.bottom]; }) };
            })"""
        )
        assert len(cards) >= 7
        for card in cards:
            left, right, top, bottom = card["box"]
            assert len(card["corners"]) == 2, card
            for c_left, c_right, c_top, c_bottom in card["corners"]:
                # Each corner's rank is inside its card (right to left it was drawn off the card's edge and cut).
                assert (
                    left - 0.5 <= c_left and c_right <= right + 0.5 and top - 0.5 <= c_top and c_bottom <= bottom + 0.5
                ), card
        # The hand reads left to right: its first card is the leftmost.
        lefts = [card["box"][0] for card in sorted(cards, key=lambda c: c["index"])]
        assert lefts == sorted(lefts), lefts
        _no_console_errors(person)
    finally:
        person.close()


def test_the_chart_has_axes_a_named_limit_a_legend_and_room_below_zero(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        person.open("/")
        person.page.wait_for_selector("[data-action=play-now]")
        # Ana closed with every card matched (−10), then lost some; Bea went up.
        drawn = person.page.evaluate(
            """async () => {
              const { chart } = await import("/static/table.js");
              const { patch } = await import("/static/dom.js");
              const s = { dealTotals: [[0, 0], [-10, 7], [-3, 30]],
                          view: { rules: { limit: 50 }, seats: [{ seat: 0, name: "Ana" }, { seat: 1, name: "Bea" }] } };
              const box = document.createElement("div");
              document.body.appendChild(box);
              patch(box, chart(s), null);
              const view = box.querySelector("svg").viewBox.baseVal;
              return {
                view: [view.x, view.y, view.width, view.height],
                points: [...box.querySelectorAll("polyline")].flatMap((l) => [...l.points].map((p) => [p.x, p.y])),
                ticks: [...box.querySelectorAll(".tick text")].map((t) => Number(t.textContent)),
                grid: [...box.querySelectorAll(".tick line")].map((l) => l.y1.baseVal.value),
                deals: [...box.querySelectorAll("text.deal")].map((t) => t.textContent),
                limit: box.querySelector(".limit-label").textContent,
                legend: [...box.querySelectorAll(".legend li")].map((l) => l.textContent),
              };
            }"""
        )
        x, _y, width, _height = drawn["view"]
        assert len(drawn["points"]) == 6
        # Every total is drawn within the chart's axes: between its lowest and its highest marked value.
        for px, py in drawn["points"]:
            assert x <= px <= x + width and min(drawn["grid"]) <= py <= max(drawn["grid"]), drawn
        assert min(drawn["ticks"]) < 0 <= max(drawn["ticks"]) and max(drawn["ticks"]) >= 50
        assert drawn["deals"] == ["0", "1", "2"]
        assert drawn["limit"] == "limit 50" and drawn["legend"] == ["Ana", "Bea"]
        _no_console_errors(person)
    finally:
        person.close()


def test_a_first_match_teaches_one_rule_at_a_time_and_remembers_it(
    server: Running, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _deal_next_matches(monkeypatch, _deck(Rules(), ANA_CLOSES, up="7♥", stock="2♠"))
    ana, bea, room = _two_people(browser, server, (DESKTOP, PHONE), newcomers=True, preset="fournier")
    try:

        def learns(person: Person, tip: str) -> str:
            """The person sees this tip, alone, and says "Got it"; its words."""
            person.page.wait_for_selector(f"[data-tip={tip}]")
            assert person.page.locator("[data-tip]").count() == 1
            words = str(person.page.inner_text(f"[data-tip={tip}] p"))
            person.page.click(f"[data-tip={tip}] [data-action=tip-seen]")
            person.page.wait_for_selector(f"[data-tip={tip}]", state="detached")
            return words

        # Ana's first turn: the draw, then (her hand holds a run and a set) what a meld is.
        assert "stock" in learns(ana, "draw")
        learns(ana, "meld")
        assert not ana.visible("[data-tip]")
        ana._act("[data-action=draw-stock]")
        # With the 2 of swords she may close: the close limit of the room's rules, as it comes up.
        assert f"{room.rules.close_limit} points" in learns(ana, "close")
        # The next (what a discard is) she has no need of: "No more tips" turns them all off.
        ana.page.wait_for_selector("[data-tip=discard]")
        ana.page.click("[data-action=tips-off]")
        ana.page.wait_for_selector("[data-tip]", state="detached")
        assert ana.page.evaluate("localStorage.getItem('chinchon.tipsOff')") == "true"
        ana.page.click("[data-action=close]")
        ana.page.click("[data-action=close-option] >> nth=0")
        # Bea meets the showdown, then lay-offs.
        assert "Ana closed" in learns(bea, "showdown")
        assert "Lay off" in learns(bea, "layoff")
        # Seen once, a tip does not come back: not after a reload either.
        bea.page.reload()
        bea.page.wait_for_selector("[data-action=layoff]")
        assert not bea.visible("[data-tip]")
        seen = json.loads(bea.page.evaluate("localStorage.getItem('chinchon.tipsSeen')"))
        assert seen == ["showdown", "layoff"], seen
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


LOCALES = [("en-US", "en"), ("es-ES", "es"), ("pt-BR", "pt"), ("fr-FR", "fr"), ("pl-PL", "pl"), ("ar", "ar")]


@pytest.mark.parametrize(("locale", "lang"), LOCALES)
def test_how_to_play_in_every_language(server: Running, browser: Any, locale: str, lang: str) -> None:
    person = Person(browser, server.base, PHONE, locale)
    try:
        person.open("/")
        person.page.click("[data-action=rules]")
        person.page.wait_for_selector(".how .rule")
        person.page.select_option("select[name=rules_preset]", "clasico")
        rules = Rules.preset("clasico")
        # The engine's words for these rules, in the page's language (suits drawn as icons, so left out here).
        expected = [" ".join(SUITS.sub("", text).split()) for text in rules_paragraphs(rules, lang)]
        person.page.wait_for_function(
            "(first) => document.querySelector('.how .rule')?.textContent.split(/\\s+/).join(' ').trim() === first",
            arg=expected[0],
        )
        shown = person.page.eval_on_selector_all(".how .rule", "(all) => all.map((p) => p.textContent)")
        assert [" ".join(text.split()) for text in shown] == expected
        # The values of one suit's cards in these rules, the close limit and the points limit.
        values = person.page.eval_on_selector_all(
            ".values li",
            "(all) => all.map((l) => [l.querySelector('.card').dataset.card,"
            " Number(l.querySelector('.value').textContent)])",
        )
        coins = [card for card in rules.cards() if str(card).endswith("♦")]
        assert values == [[str(card), rules.value(card)] for card in coins]
        assert person.page.get_attribute("[data-close-limit]", "data-close-limit") == str(rules.close_limit)
        assert person.page.get_attribute("[data-limit]", "data-limit") == str(rules.limit)
        assert person.page.locator(".how .keys tr").count() == 11
        assert person.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        _no_console_errors(person)
    finally:
        person.close()


def test_play_now_asks_and_keeps_the_choices_and_a_name_missing_is_said_by_its_field(
    server: Running, browser: Any
) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        person.open("/")
        person.page.click("[data-action=play-now]")
        error = person.page.wait_for_selector(".field.invalid .field-error")
        assert error is not None and error.inner_text() == "Give your name first."
        assert person.page.evaluate("document.activeElement.name") == "name"
        assert not person.visible(".toast")
        person.page.fill("input[name=name]", "Ana")
        person.page.wait_for_selector(".field-error", state="detached")
        _play_now(person, "Ana", seats="3", bot_level="beginner", preset="clasico")
        room = _room_of(server, person)
        assert (len(room.seats), room.bot_level, room.preset, room.public) == (3, "beginner", "clasico", False)
        _a_persons_turn(person)  # a bot may play first and close the deal: its results' panel would take the click
        person.page.click(".brand")
        person.page.wait_for_selector("[data-action=play-now]")
        kept = [person.page.input_value(f"select[name={name}]") for name in ("opponents", "play_level", "play_preset")]
        assert kept == ["2", "beginner", "clasico"]
        # A room for friends is private unless its creator lists it.
        assert not person.page.is_checked("input[name=public]")
        code = _create_room(person, "Ana").rsplit("/", 1)[1]
        assert server.manager.rooms[code].public is False
        _no_console_errors(person)
    finally:
        person.close()


def test_the_invite_page_shows_the_rooms_rules_before_one_sits_down(server: Running, browser: Any) -> None:
    ana = Person(browser, server.base, DESKTOP)
    bea = Person(browser, server.base, PHONE)
    try:
        link = _create_room(ana, "Ana", seats="3", preset="clasico", limit="50", turn="60")
        bea.page.goto(link)
        bea.page.wait_for_selector(".room-info[data-rules='1']")
        said = bea.page.inner_text(".room-info")
        for words in ("Classic", "limit 50", "close with 5 points or less", "60 s a turn", "1/3 seats", "Ana"):
            assert words in said, (words, said)
        bea.page.click("[data-action=help]")
        bea.page.wait_for_selector(".sheet.help [data-limit='50']")
        bea.page.keyboard.press("Escape")
        bea.page.wait_for_selector(".sheet.help", state="detached")
        bea.page.fill("input[name=name]", "Bea")
        bea.page.click("[data-action=take-seat]")
        ana.page.wait_for_selector(".seats li:has-text('Bea')")
        _no_console_errors(ana, bea)
    finally:
        ana.close()
        bea.close()


def test_a_seats_choice_survives_a_rules_choice_made_before_the_page_is_drawn_again(
    server: Running, browser: Any
) -> None:
    person = Person(browser, server.base, DESKTOP)
    try:
        person.open("/")
        person.page.wait_for_selector("select[name=seats]")
        # Both choices in one task: no frame is drawn between them (a fast hand, or a test, does that).
        person.page.evaluate(
            """() => {
              for (const [name, value] of [["seats", "3"], ["preset", "clasico"]]) {
                const field = document.querySelector(`select[name=${name}]`);
                field.value = value;
                field.dispatchEvent(new Event("change", { bubbles: true }));
              }
            }"""
        )
        person.page.wait_for_function("document.querySelector('select[name=preset]').value === 'clasico'")
        assert person.page.input_value("select[name=seats]") == "3"
        _no_console_errors(person)
    finally:
        person.close()


def _controls_fit(person: Person) -> list[str]:
    """What is wrong with the table's controls on the screen: a control cut, off the screen or on two lines, the
    bar's controls on two rows."""
    problems: list[str] = person.page.evaluate(
        """() => {
          const out = [];
          const width = innerWidth;
          for (const b of document.querySelectorAll('main.table button, .top button, .top select, .top a')) {
            const r = b.getBoundingClientRect();
            if (!r.width || b.closest('.sheet') || b.matches('.card, .pile-button')) continue;
            const name = b.dataset.action || b.textContent.trim().slice(0, 20);
            if (r.left < -0.5 || r.right > width + 0.5) out.push(`${name} off the screen`);
            if (b.scrollWidth > b.clientWidth + 1) out.push(`${name} cut`);
            if (r.height > 50) out.push(`${name} on two lines (${r.height} px)`);
          }
          const tops = [...document.querySelectorAll('.table-bar > *')].filter((e) => e.getBoundingClientRect().width)
            .map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2));
          if (Math.max(...tops) - Math.min(...tops) > 4) out.push(`the bar on two rows: ${tops}`);
          if (document.documentElement.scrollWidth > width) out.push('the page scrolls sideways');
          return out;
        }"""
    )
    return problems


def test_the_table_fits_a_small_phone_in_every_language(
    server: Running, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 360 px no control of the table wraps or is cut, "Leave" beside "Last deal"; the dealer is named in the
    page's language; the keys show on "?", the room's rules from the table."""
    _deal_next_matches(monkeypatch, _deck(Rules(), ANA_CLOSES, up="7♥", stock="2♠"))
    _keep_options(person := Person(browser, server.base, PHONE), {"limit": 50})
    try:
        _play_now(person, "Ana", bot_level="beginner", seats="2")
        room = _room_of(server, person)
        has_options(room.rules, {"limit": 50})
        translations = {
            lang: json.loads(urllib.request.urlopen(f"{server.base}/api/i18n/{lang}").read()) for _, lang in LOCALES
        }
        # Ana deals first: the bot is the dealer.
        for _, lang in LOCALES:
            person.page.select_option("header select", lang)
            person.page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
            assert person.page.inner_text("[data-dealer]") == translations[lang]["dealer"]
            assert _controls_fit(person) == [], lang
        person.page.select_option("header select", "en")
        person.page.keyboard.press("?")
        person.page.wait_for_selector(".keys-sheet .keys tr")
        assert person.page.locator(".keys-sheet .keys tr").count() == 11
        person.page.keyboard.press("Escape")
        person.page.wait_for_selector(".keys-sheet", state="detached")
        person.page.click("[data-action=help]")
        person.page.wait_for_selector(".sheet.help [data-limit='50']")
        person.page.keyboard.press("Escape")
        # Ana closes the first deal; in the next, "Last deal" and "Leave" share the bar with the rest.
        person._act("[data-action=draw-stock]")
        person.page.click("[data-action=close]")
        person.page.click("[data-action=close-option] >> nth=0")
        deadline = time.monotonic() + MATCH_SECONDS
        while not person.visible("[data-action=last-deal]"):
            assert time.monotonic() < deadline, "the first deal did not end"
            if person.visible("[data-action=continue]"):
                person._click("[data-action=continue]")
            person.page.wait_for_timeout(50)
        _a_persons_turn(person)
        for _, lang in LOCALES:
            person.page.select_option("header select", lang)
            person.page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
            assert _controls_fit(person) == [], lang
            bar = person.page.evaluate(
                "['last-deal', 'leave']"
                ".map((a) => document.querySelector(`[data-action=${a}]`).getBoundingClientRect().top)"
            )
            assert bar[0] == bar[1], (lang, bar)
            _hand_fits(person, PHONE["width"])
        _no_console_errors(person)
    finally:
        person.close()


# Records, in the page, when each line of the last moves first shows (those on the table already, at 0).
WATCH_MOVES = """
(() => {
  window.chinchonShown = [...document.querySelectorAll('.moves li')]
    .map((li) => [li.dataset.key + li.textContent, 0, li.textContent]);
  new MutationObserver(() => {
    for (const li of document.querySelectorAll('.moves li')) {
      const text = li.textContent;
      const key = li.dataset.key + text;
      if (!window.chinchonShown.some(([k]) => k === key)) window.chinchonShown.push([key, Date.now(), text]);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


def test_the_bots_moves_come_at_the_chosen_pace_and_the_last_ones_stay_readable(
    server: Running, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ana moves first, and nobody may close in the first round: after her discard both bots draw and discard.
    _deal_next_matches(monkeypatch, list(Rules().cards()), first=0)
    person = Person(browser, server.base, DESKTOP)
    try:
        _keep_options(person, FIRST_ROUND_OPEN)
        person.page.evaluate("localStorage.setItem('chinchon.pace', JSON.stringify('slow'))")
        _play_now(person, "Ana", bot_level="beginner", seats="3")
        _a_persons_turn(person)
        person._act("[data-action=draw-stock]")
        person.page.evaluate(WATCH_MOVES)
        person.step()  # the discard: the two bots play next, four moves (the server plays them at once)
        person.page.wait_for_function(
            "() => window.chinchonShown.filter(([, at, t]) => at && t.startsWith('Bot')).length >= 4",
            timeout=MATCH_SECONDS * 1000,
        )
        shown = [
            (at, text)
            for _key, at, text in person.page.evaluate("window.chinchonShown")
            if at and text.startswith("Bot")
        ]
        gaps = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(shown)][:3]
        # "slowly" is 1.5 s between two of the bots' moves (a timer may fire a little early).
        assert all(gap >= 1450 for gap in gaps), shown
        # The last three of the others' moves stay on the table.
        assert person.page.locator(".moves li").count() == 3
        _no_console_errors(person)
    finally:
        person.close()


def test_the_page_says_times_up_when_the_timer_plays_for_the_player(server: Running, browser: Any) -> None:
    person = Person(browser, server.base, PHONE)
    try:
        person.open("/")
        person.page.evaluate(
            "(play) => localStorage.setItem('chinchon.play', play)",
            json.dumps({"turn": "5", "options": FIRST_ROUND_OPEN}),
        )
        _play_now(person, "Ana", bot_level="beginner", seats="2")
        room = _room_of(server, person)
        assert room.turn_seconds == 5
        _a_persons_turn(person)
        since = room.n
        # Ana does nothing: after 5 s her seat's bot draws for her, and the page says why.
        person.page.wait_for_selector(".moves li.note", timeout=30_000)
        assert person.page.inner_text(".moves li.note") == "Time's up: a bot played your turn."
        assert _seat_actions(room, 0, since, 1)[0].startswith("draw")
        _no_console_errors(person)
    finally:
        person.close()


def test_a_new_stock_is_said_when_the_discard_pile_is_shuffled_into_it(server: Running, browser: Any) -> None:
    """Two players (this test's clients) draw from the stock and discard until it runs out; the page watching says
    the discard pile became the new stock."""
    watcher = Person(browser, server.base, DESKTOP)
    codes: queue.Queue[str] = queue.Queue()
    watching = threading.Event()
    failures: list[BaseException] = []

    async def play() -> None:
        created = await client.create_room(server.base, name="Ana", seats=2, public=False)
        joined = await client.join_room(server.base, created["code"], "Bea")
        players = [client.Client(server.ws), client.Client(server.ws)]
        for player, seat in zip(players, (created, joined), strict=True):
            await player.connect(room=created["code"], token=seat["token"])
        try:
            await start_match(players[0])
            codes.put(created["code"])
            await asyncio.to_thread(watching.wait, 60)
            rebuilt = False
            while not rebuilt:
                for player in players:
                    if not player.my_turn():
                        continue
                    assert player.view is not None
                    legal = player.view["game"]["legal_actions"]
                    stock = player.view["game"]["stock_size"]
                    move = "draw stock" if "draw stock" in legal else next(a for a in legal if a.startswith("discard"))
                    answer = await player.act(move)
                    if answer["type"] == "error":
                        await asyncio.sleep(1)
                        continue
                    made = int(answer["state"])

                    view = await player.wait_state(made)
                    rebuilt = move == "draw stock" and view["game"]["stock_size"] > stock
                    if rebuilt:
                        break
                await asyncio.sleep(0.01)
        finally:
            for player in players:
                await player.close()

    def run() -> None:
        try:
            asyncio.run(play())
        except BaseException as error:  # the test reports it
            failures.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        code = codes.get(timeout=60)
        watcher.open(f"/#/room/{code}")
        watcher.page.click("[data-action=watch]")
        watcher.page.wait_for_selector(".opponent")
        watching.set()
        watcher.page.wait_for_selector(".moves li.note", timeout=MATCH_SECONDS * 1000)
        assert "new stock" in watcher.page.inner_text(".moves li.note")
        thread.join(60)
        assert not failures, failures
        _no_console_errors(watcher)
    finally:
        watching.set()
        watcher.close()


def test_the_page_stays_under_200_kb(server: Running) -> None:
    static = Path(__file__).resolve().parent.parent / "chinchon/server/static"
    total = 0
    for url in ["/", *(f"/static/{path.name}" for path in static.iterdir() if path.is_file())]:
        with urllib.request.urlopen(server.base + url, timeout=30) as response:
            total += len(response.read())
    assert total < 200_000, total


CSP_WATCH = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""
"""Kept before the page's scripts run: every CSP violation the page meets, in ``cspViolations``."""
POLICY_WORDS = ("Content Security Policy", "Content-Security-Policy", "Permissions-Policy", "Refused to")


class Watched(Person):
    """A person whose page records its CSP violations and every console message about a policy, of any level."""

    def __init__(self, browser: Any, base: str, viewport: dict[str, int], locale: str) -> None:
        super().__init__(browser, base, viewport, locale)
        self.policy_messages: list[str] = []
        self.page.add_init_script(CSP_WATCH)
        self.page.on(
            "console",
            lambda m: self.policy_messages.append(m.text) if any(w in m.text for w in POLICY_WORDS) else None,
        )
        self.screens: set[str] = set()

    def seen(self, screen: str) -> None:
        """The screen is on the page: none of its elements, scripts or styles broke the policy so far."""
        violations = self.page.evaluate("window.cspViolations")
        assert violations == [] and self.policy_messages == [], (screen, violations, self.policy_messages)
        self.screens.add(screen)


@pytest.mark.parametrize("locale", ["en-US", "es-ES", "pt-BR", "fr-FR", "pl-PL", "ar"])
def test_every_screen_keeps_to_the_content_security_policy(server: Running, browser: Any, locale: str) -> None:
    ana = Watched(browser, server.base, DESKTOP, locale)
    bea = Watched(browser, server.base, PHONE, locale)
    watcher = Watched(browser, server.base, DESKTOP, locale)
    try:
        answer = ana.page.goto(server.base + "/")
        assert answer is not None and "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        ana.page.wait_for_selector("[data-action=play-now]")
        ana.page.fill("input[name=name]", "Ana")
        ana.page.fill("input[name=chat]", "hola")
        ana.page.press("input[name=chat]", "Enter")
        ana.page.wait_for_selector(".chat li:has-text('hola')")
        ana.seen("home and the lobby")
        _keep_options(ana, EVERYONE_PLAYS_TO_20)
        link = _create_room(ana, "Ana", bot_level="beginner", seats="3")
        ana.seen("a room that waits")
        bea.page.goto(link)
        bea.page.wait_for_selector("[data-action=take-seat]")
        bea.seen("a room's invitation")
        bea.page.fill("input[name=name]", "Bea")
        bea.page.click("[data-action=take-seat]")
        ana.page.wait_for_selector(".seats li:has-text('Bea')")
        ana.page.click("[data-action=start]")
        for person in (ana, bea):
            person.page.wait_for_selector(".hand .card")
            person.seen("a match being played")
        watcher.open(f"/#/room/{link.rsplit('/', 1)[1]}")
        watcher.page.click("[data-action=watch]")
        watcher.page.wait_for_selector(".opponent")
        watcher.seen("the spectator's view")
        _a_persons_turn(ana, bea)
        mover = ana if ana.page.get_attribute(".status", "data-mine") == "1" else bea
        for panel in ("history", "chat"):
            mover.page.click(f"[data-action={panel}]")
            mover.page.wait_for_selector(".sheet")
            mover.seen(f"the {panel} panel")
            mover.page.keyboard.press("Escape")
            mover.page.wait_for_selector(".sheet", state="detached")
        if locale == "ar":
            # The whole match in one language: each deal's results (unless the first deal ends it), the match's end.
            deadline = time.monotonic() + MATCH_SECONDS
            while not ana.visible("[data-over]"):
                assert time.monotonic() < deadline, "the match did not end"
                for person in (ana, bea):
                    if person.visible("[data-action=continue]"):
                        person.seen("a deal's results")
                    person.step()
                ana.page.wait_for_timeout(50)
            for person in (ana, bea, watcher):
                person.page.wait_for_selector("[data-over]")
                person.seen("the match's end")
        for person in (ana, bea, watcher):
            person.seen("at the end")
        _no_console_errors(ana, bea, watcher)
    finally:
        for person in (ana, bea, watcher):
            person.close()


# Every animation the page starts, with the element it moves: its card, whether in the hand, whether it runs then.
MOVES = """
window.chinchonMoves = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const animation = animate.call(this, keyframes, options);
  window.chinchonMoves.push({ card: this.dataset.card ?? null, hand: Boolean(this.closest(".hand")),
    ghost: this.classList.contains("ghost"), running: this.getAnimations().includes(animation), id: animation.id });
  return animation;
};
"""


def test_cards_move_with_the_events_and_stay_still_with_reduced_motion(
    server: Running, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deal, a draw from the stock, a discard and the bot's moves move cards on a page with normal motion, and
    nothing moves with reduced motion; once the moves end, both pages show the same table, card for card and place
    for place."""
    hand, bot = ANA_CLOSES
    _deal_next_matches(monkeypatch, _deck(Rules(), [hand, bot], up="7♥", stock="2♠"))
    moving = Person(browser, server.base, DESKTOP)
    still = Person(browser, server.base, DESKTOP, reduced_motion="reduce")
    try:
        for person in (moving, still):
            person.page.add_init_script(MOVES)
            # The bot's moves one at a time (the bots of the tests' server play at once).
            person.page.add_init_script("localStorage.setItem('chinchon.pace', '\"normal\"')")
            _play_now(person, "Ana", bot_level="beginner")
            person.page.wait_for_selector("[data-action=draw-stock].live")
        dealt = moving.page.evaluate("window.chinchonMoves")
        # Each card of the hand came from the stock, one after the other.
        assert sorted(m["card"] for m in dealt if m["hand"]) == sorted(hand.split()), dealt
        assert all(m["running"] and m["id"] == "motion" for m in dealt), dealt
        for person in (moving, still):
            person.page.wait_for_function(NO_MOTION)
            person.page.evaluate("window.chinchonMoves = []")
            person._act("[data-action=draw-stock]")
            person.page.wait_for_function("() => document.querySelectorAll('.hand .card').length === 8")
        drawn = moving.page.evaluate("window.chinchonMoves")
        assert [m for m in drawn if m["card"] == "2♠" and m["hand"]] == [
            {"card": "2♠", "hand": True, "ghost": False, "running": True, "id": "motion"}
        ], drawn
        # The discard goes onto the pile; the bot's draw crosses the table to its seat; its discard lands on the pile.
        for person in (moving, still):
            person.page.wait_for_function(NO_MOTION)
            person.page.evaluate("window.chinchonMoves = []")
            person._click(".hand .card[data-card='A♠']")
            person._act("[data-action=discard]")
            person.page.wait_for_selector("[data-action=draw-stock].live")
        played = moving.page.evaluate("window.chinchonMoves")
        assert {"card": "A♠", "hand": False, "ghost": False, "running": True, "id": "motion"} in played, played
        assert any(m["ghost"] and m["running"] for m in played), played
        bot_discard = _seat_actions(_room_of(server, moving), 1, 0, 2)[1].split()[1]
        assert any(m["card"] == bot_discard and not m["hand"] and m["running"] for m in played), (bot_discard, played)
        assert still.page.evaluate("window.chinchonMoves") == []
        assert not still.page.evaluate("document.getAnimations().some((a) => a.id === 'motion')")

        def table(person: Person) -> Any:
            person.page.wait_for_function(NO_MOTION)
            return person.page.evaluate(
                """() => [...document.querySelectorAll('.table [data-card]')].map((c) => {
                  const box = c.getBoundingClientRect();
                  return [c.dataset.card, Math.round(box.x), Math.round(box.y), getComputedStyle(c).transform];
                })"""
            )

        after = table(moving)
        assert after == table(still) and "2♠" in [c[0] for c in after], after
        _no_console_errors(moving, still)
    finally:
        moving.close()
        still.close()
