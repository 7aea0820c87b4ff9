#!/usr/bin/env python3
"""Take the screenshots of the browser client, from the real page: the docs' pictures, or every screen.

Runs the server in this process (a temporary SQLite database, a free
loopback port) and drives Debian's chromium through Playwright. The deals
are this script's own (the first deal of each match from a deck order it
chooses), so that the pictures are the same from one run to the next.

By default it writes the docs' pictures into ``docs/images`` (``--out``
gives another folder):

- ``table-desktop.png`` (1280 x 800, English: the player's turn to discard, a card picked),
- ``table-phone.png`` (390 x 844, Spanish, the four-colour cards),
- ``table-arabic.png`` (390 x 844, Arabic, right to left),
- ``home-phone.png`` (390 x 844, English).

With ``--tour FOLDER`` it writes every screen (home, how to play,
settings, the invite page, the waiting room, the table with its tips, the
close sheet, a showdown with lay-offs, a deal's results, the keys, the
help, a re-entry question, the end of a match) at 360 x 640, 390 x 844 and
1280 x 800 in the six languages, and one contact sheet a screen and a size
(``sheet-SCREEN-WIDTHxHEIGHT.png``, the six languages side by side) to look
them over.

Run: ``python scripts/browser_screenshots.py [--out docs/images] [--tour FOLDER]``.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import html
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import uvicorn
from playwright.sync_api import ViewportSize, sync_playwright

from chinchon.cards import Card, parse_cards
from chinchon.match import Match
from chinchon.rules import Rules
from chinchon.server import rooms
from chinchon.server.app import create_app
from chinchon.server.client import CHROMIUM, CHROMIUM_ARGS
from chinchon.server.rooms import ServerSettings

ROOT = Path(__file__).resolve().parent.parent
PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL: ViewportSize = {"width": 360, "height": 640}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
LOCALES = {"en": "en-US", "es": "es-ES", "pt": "pt-BR", "fr": "fr-FR", "pl": "pl-PL", "ar": "ar"}
# Ana (moving first) holds a run and a set and draws the card that lets her close; Bea holds three cards that lay
# off on them. In the second deck Bea moves first and closes at once, and Ana, at the limit, goes over.
ANA_CLOSES = ["3♦ 4♦ 5♦ K♥ K♠ K♣ A♠", "6♦ 2♦ K♦ 7♣ 5♣ 4♥ J♥"]
BEA_CLOSES = ["3♦ 4♦ 5♦ K♥ K♠ K♣ A♠", "7♣ 5♣ 4♥ J♥ 9♠ 2♥ 8♦"]
RETURNING = "localStorage.setItem('chinchon.tipsOff', 'true'); localStorage.setItem('chinchon.pace', '\"fast\"');"


def deck(rules: Rules, hands: list[str], up: str, stock: str) -> list[Card]:
    """A deck order dealing these hands (in playing order), turning ``up`` up, with ``stock`` on top of the stock."""
    dealt = [parse_cards(hand) for hand in hands]
    order = [dealt[seat][i] for i in range(rules.hand_size) for seat in range(len(dealt))]
    order += parse_cards(f"{up} {stock}")
    rest = list(rules.cards())
    for card in order:
        rest.remove(card)
    return order + rest


@contextlib.contextmanager
def dealt(cards: list[Card], first: int = 0, scores: list[int] | None = None) -> Iterator[None]:
    """The server deals the first deal of the matches it starts meanwhile from ``cards``."""

    def match(names: list[str], rules: Rules, seed: int | None = None) -> Match:
        return Match(names, rules, seed=seed, decks=[cards], first=first, scores=scores)

    with mock.patch.object(rooms, "Match", match):
        yield


@contextlib.contextmanager
def serving(bot_delay: float) -> Iterator[str]:
    """The server in a thread of this process; its base URL."""
    with tempfile.TemporaryDirectory() as folder:
        settings = ServerSettings(db=f"sqlite+aiosqlite:///{folder}/server.db", bot_pool="thread", bot_delay=bot_delay)
        settings.rooms_per_minute = settings.lookups_per_minute = 10_000.0
        server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=0, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(30)


def page_for(browser: Any, viewport: ViewportSize, lang: str, newcomer: bool = False, four: bool = False) -> Any:
    # Reduced motion: a screen is taken as it settles, never with a card on its way.
    context = browser.new_context(
        viewport=viewport, locale=LOCALES[lang], device_scale_factor=1, reduced_motion="reduce"
    )
    script = "" if newcomer else RETURNING
    if four:
        script += "localStorage.setItem('chinchon.fourColour', 'true');"
    if script:
        context.add_init_script(
            f"if (!sessionStorage.getItem('set')) {{ {script} sessionStorage.setItem('set', '1'); }}"
        )
    page = context.new_page()
    page.set_default_timeout(60_000)
    return page


def settle(page: Any) -> None:
    """Wait until the page has drawn what it has (two frames) and its short animations are over (a tip rising)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_function(
        "() => document.getAnimations()"
        ".every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)"
    )


def act(page: Any, selector: str) -> None:
    """Click a move and wait for the state it makes (or the results it brings in front)."""
    before = page.get_attribute(".status", "data-state")
    page.click(selector)
    page.wait_for_function(
        "([b]) => { const s = document.querySelector('.status');"
        " return !s || s.dataset.state !== b || document.querySelector('.sheet.result, [data-over]'); }",
        arg=[before],
    )


def two_people(browser: Any, base: str, viewport: ViewportSize, lang: str, shots: dict[str, Any], **form: str) -> Any:
    """Ana makes a room, Bea comes by its link, Ana starts: their pages (the invite and waiting room pictured)."""
    ana = page_for(browser, viewport, lang, newcomer=True)
    bea = page_for(browser, viewport, lang)
    ana.goto(base + "/")
    ana.fill("input[name=name]", "Ana")
    for name, value in form.items():
        ana.select_option(f"select[name={name}]", value)
    ana.click("[data-action=create]")
    link = ana.wait_for_selector("input[name=invite]").input_value()
    bea.goto(link)
    bea.wait_for_selector(".room-info[data-rules='1']")
    bea.fill("input[name=name]", "Bea")
    shots["invite"](bea)
    bea.click("[data-action=take-seat]")
    ana.wait_for_selector(".seats li:has-text('Bea')")
    shots["waiting"](ana)
    ana.click("[data-action=start]")
    for page in (ana, bea):
        page.wait_for_selector(".hand .card")
    return ana, bea


def tour(browser: Any, base: str, out: Path, viewport: ViewportSize, lang: str) -> list[str]:
    """Every screen in one size and language; the names of the pictures."""
    size = f"{viewport['width']}x{viewport['height']}"
    names: list[str] = []

    def shot(name: str) -> Any:
        def take(page: Any) -> None:
            settle(page)
            page.screenshot(path=str(out / f"{name}-{size}-{lang}.png"))
            names.append(name)

        return take

    home = page_for(browser, viewport, lang)
    home.goto(base + "/")
    home.wait_for_selector("[data-action=play-now]")
    home.click("[data-action=play-now]")
    home.wait_for_selector(".field-error")
    shot("home")(home)
    home.click("[data-action=settings]")
    shot("settings")(home)
    home.keyboard.press("Escape")
    home.click("[data-action=rules]")
    home.wait_for_selector(".how .rule")
    shot("rules")(home)
    home.context.close()

    with dealt(deck(Rules(), ANA_CLOSES, "7♥", "2♠")):
        ana, bea = two_people(browser, base, viewport, lang, {"invite": shot("invite"), "waiting": shot("waiting")})
    ana.wait_for_selector("[data-tip=draw]")
    shot("table-tip")(ana)
    ana.click("[data-action=tips-off]")
    act(ana, "[data-action=draw-stock]")
    ana.click(".hand button.card:not(.meld)")
    ana.wait_for_selector("[data-action=discard]")
    shot("table-discard")(ana)
    ana.keyboard.press("?")
    shot("keys")(ana)
    ana.keyboard.press("Escape")
    ana.click("[data-action=help]")
    ana.wait_for_selector(".sheet.help .rule")
    shot("help")(ana)
    ana.keyboard.press("Escape")
    ana.click("[data-action=close]")
    ana.wait_for_selector("[data-action=close-option]")
    shot("close-sheet")(ana)
    ana.click("[data-action=close-option] >> nth=0")
    bea.wait_for_selector("[data-action=layoff]")
    bea.click("[data-action=suggest]")
    bea.wait_for_selector("[data-action=layoff].suggested")
    shot("showdown")(bea)
    bea.click("[data-action=layoff-all]")
    ana.wait_for_selector(".sheet.result")
    shot("results")(ana)
    ana.context.close()
    bea.context.close()

    with dealt(deck(Rules.preset("clasico", limit=50), BEA_CLOSES, "6♥", "2♠"), first=1, scores=[50, 0]):
        ana, bea = two_people(
            browser,
            base,
            viewport,
            lang,
            {"invite": lambda page: None, "waiting": lambda page: None},
            preset="clasico",
            limit="50",
        )
    ana.evaluate("localStorage.setItem('chinchon.tipsOff', 'true')")
    act(bea, "[data-action=draw-stock]")
    bea.click("[data-action=close]")
    bea.click("[data-action=close-option] >> nth=0")
    deadline = time.monotonic() + 60
    while not ana.is_visible("[data-action=reenter-yes]") and time.monotonic() < deadline:
        if ana.is_visible("[data-action=pass]"):
            act(ana, "[data-action=pass]")
        ana.wait_for_timeout(50)
    shot("reentry")(ana)
    ana.click("[data-action=reenter-no]")
    ana.wait_for_selector("[data-over]")
    shot("over")(ana)
    ana.context.close()
    bea.context.close()
    return names


def contact_sheets(browser: Any, out: Path, sizes: list[ViewportSize], screens: list[str]) -> None:
    """One picture a screen and a size: the six languages side by side."""
    for viewport in sizes:
        size = f"{viewport['width']}x{viewport['height']}"
        scale = 0.5 if viewport["width"] > 1000 else 1.0
        width = round(viewport["width"] * scale)
        page = browser.new_page(viewport={"width": len(LOCALES) * (width + 8) + 8, "height": 400})
        for screen in screens:
            cells = "".join(
                f'<figure><img src="data:image/png;base64,{base64.b64encode(picture.read_bytes()).decode()}" '
                f'width="{width}"><figcaption>{html.escape(lang)}</figcaption></figure>'
                for lang in LOCALES
                if (picture := out / f"{screen}-{size}-{lang}.png").exists()
            )
            page.set_content(
                "<style>body{margin:4px;display:flex;gap:6px;font:14px sans-serif}"
                f"figure{{margin:0}}img{{border:1px solid #999;display:block}}</style>{cells}"
            )
            page.screenshot(path=str(out / f"sheet-{screen}-{size}.png"), full_page=True)
        page.close()


def docs_pictures(browser: Any, base: str, out: Path) -> None:
    """The docs' pictures: the home page, the table on a desktop, in Spanish with four colours, in Arabic."""
    page = page_for(browser, PHONE, "en")
    page.goto(base + "/")
    page.wait_for_selector("[data-action=play-now]")
    page.fill("input[name=name]", "Ana")
    settle(page)
    page.screenshot(path=str(out / "home-phone.png"))
    page.context.close()
    for name, viewport, lang, four in (
        ("table-desktop.png", DESKTOP, "en", False),
        ("table-phone.png", PHONE, "es", True),
        ("table-arabic.png", PHONE, "ar", False),
    ):
        with dealt(deck(Rules(), ["3♦ 4♦ 5♦ K♥ K♠ A♠ 7♣", "2♥ 5♣ J♥ 2♣ 6♠ Q♣ 4♥", "A♥ 6♣ J♠ 3♣ Q♥ 7♥ 4♠"], "Q♦", "K♣")):
            page = page_for(browser, viewport, lang, four=four)
            page.goto(base + "/")
            page.fill("input[name=name]", "Ana")
            page.select_option("select[name=opponents]", "2")
            page.click("[data-action=play-now]")
            page.wait_for_selector(".hand .card")
        act(page, "[data-action=draw-stock]")
        page.keyboard.press("o")  # by rank
        page.keyboard.press("o")  # melds first
        # The last loose card picked by its key (a click could land on its neighbour as the table settles).
        page.keyboard.press(str(int(page.get_attribute(".hand button.card:not(.meld) >> nth=-1", "data-index")) + 1))
        page.wait_for_selector("[data-action=discard]")
        settle(page)
        page.screenshot(path=str(out / name))
        page.context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="the folder of the docs' pictures")
    parser.add_argument("--tour", type=Path, help="write every screen, in every size and language, into this folder")
    args = parser.parse_args(argv)
    with serving(0.05) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), headless=True)
        if args.tour:
            args.tour.mkdir(parents=True, exist_ok=True)
            screens: list[str] = []
            for viewport in (SMALL, PHONE, DESKTOP):
                for lang in LOCALES:
                    screens = tour(browser, base, args.tour, viewport, lang)
                    print(f"{viewport['width']}x{viewport['height']} {lang}: {len(screens)} screens", flush=True)
            contact_sheets(browser, args.tour, [SMALL, PHONE, DESKTOP], screens)
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            docs_pictures(browser, base, args.out)
            for name in ("home-phone.png", "table-desktop.png", "table-phone.png", "table-arabic.png"):
                print(args.out / name)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
