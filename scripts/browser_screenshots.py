#!/usr/bin/env python3
"""Take the screenshots of the browser client for the docs, from the real page.

Starts ``python -m chinchon serve`` on a free loopback port with a temporary
database, opens a room of three seats (the player and two bots) in Debian's
chromium through Playwright, plays until the player's turn to discard with a
card picked, and writes:

- ``table-desktop.png`` (1280 x 800, English),
- ``table-phone.png`` (390 x 844, Spanish, the four-colour cards),
- ``table-arabic.png`` (390 x 844, Arabic, right to left),
- ``home-phone.png`` (390 x 844, English),

into ``docs/images`` (``--out`` gives another folder).

Run: ``python scripts/browser_screenshots.py [--out docs/images]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import ViewportSize, sync_playwright

from chinchon.server.client import CHROMIUM, CHROMIUM_ARGS, served

ROOT = Path(__file__).resolve().parent.parent
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}


def table(browser: Any, base: str, path: Path, viewport: ViewportSize, locale: str, four: bool) -> None:
    """Open a room against two bots and photograph the player's turn to discard."""
    context = browser.new_context(viewport=viewport, locale=locale, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(base + "/")
    page.fill("input[name=name]", "Ana")
    page.select_option("select[name=seats]", "3")
    if four:
        page.click("header .toggle")
    page.click("[data-action=play-now]")
    page.wait_for_selector(".hand .card")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = page.locator(".status")
        if status.get_attribute("data-mine") == "1" and status.get_attribute("data-phase") == "discard":
            break
        if page.is_visible("[data-action=draw-stock].live"):
            page.click("[data-action=draw-stock]")
        page.wait_for_timeout(100)
    page.click("[data-action=sort-melds]")
    cards = page.query_selector_all(".hand button.card:not(.meld)") or page.query_selector_all(".hand button.card")
    cards[-1].click()
    page.wait_for_selector("[data-action=discard]")
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="the folder to write into")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with served("--bot-delay", "0.2") as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), headless=True)
        context = browser.new_context(viewport=PHONE, locale="en-US")
        page = context.new_page()
        page.goto(base + "/")
        page.wait_for_selector("[data-action=play-now]")
        page.fill("input[name=name]", "Ana")
        page.screenshot(path=str(args.out / "home-phone.png"))
        context.close()
        table(browser, base, args.out / "table-desktop.png", DESKTOP, "en-US", False)
        table(browser, base, args.out / "table-phone.png", PHONE, "es-ES", True)
        table(browser, base, args.out / "table-arabic.png", PHONE, "ar", False)
        browser.close()
    for name in ("home-phone.png", "table-desktop.png", "table-phone.png", "table-arabic.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
