"""The browser client's figures: its weight, how soon the table is on screen, how soon a move shows in another browser.

The script starts ``python -m chinchon serve`` on a free port of 127.0.0.1
with a temporary SQLite database and drives Debian's chromium
(``/usr/bin/chromium``, headless) through Playwright. It prints:

- the page's own files (``index.html`` and everything under
  ``chinchon/server/static``) in bytes as served, before compression and
  gzipped (as a browser that takes gzip gets them);
- the time from opening a room's address (a seat's token already in the
  page's storage, the match started) to its table on screen (the hand's
  cards drawn), ``--loads`` times: median and largest, from the
  navigation's start (``performance.now()`` in the page);
- two people in two browser contexts playing whole matches against each
  other (``--matches``, limit ``--limit``): for every move one makes, the
  time from its click to the other page showing the state it made (the
  start of the frame after the one that drew it; both pages'
  ``Date.now()``, one machine): median, 95th percentile, largest;
- a newcomer's match (``--newcomers``, each a whole match against one
  ``beginner`` bot at limit ``--limit``, the page as a first visit leaves it,
  its tips on): the clicks a player makes, per deal, playing as the tests
  do (draw from the stock, close when the page offers it, else discard the
  last loose card; at a showdown the suggested melds, every lay-off, pass;
  every tip read and dismissed).

Everything stays on 127.0.0.1 and stops by itself. Run it on an idle
machine: the figures are times.

With ``--old PATH`` (a copy of another commit: ``git worktree add
--detach /tmp/old 45c9383``, or ``git archive main | tar -x -C /tmp/old``)
the loads and the two browsers' matches alternate between this checkout's
server and that one's (each serving its own client), and the ratios of
their medians are printed.

Run: ``python bench/browser.py [--loads 10] [--matches 1] [--limit 40] [--newcomers 1] [--old PATH]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from chinchon.server import client
from chinchon.server.client import CHROMIUM, CHROMIUM_ARGS, served

# The static files of the chinchon this script imports (the one the server it starts serves).
STATIC = Path(client.__file__).resolve().parent / "static"

# Records, in the page, when each state first shows and when each click happens.
WATCH = """
window.__seen = {}; window.__clicks = [];
const MOVES = ['draw-stock', 'draw-discard', 'discard', 'close-option', 'show', 'layoff', 'pass',
  'reenter-no', 'reenter-yes'];
document.addEventListener('click', (e) => {
  const control = e.target.closest('[data-action]');
  if (!control || !MOVES.includes(control.dataset.action)) return;
  const s = document.querySelector('.status');
  window.__clicks.push([s ? Number(s.dataset.state) : -1, Date.now()]);
}, true);
// A state is on screen once the frame that drew it is done: the next frame's start (whatever the page did after
// drawing it, a card's move started or the layout it read, is counted).
new MutationObserver(() => {
  const s = document.querySelector('.status');
  if (!s || s.dataset.state in window.__seen) return;
  const state = s.dataset.state;
  window.__seen[state] = null;
  requestAnimationFrame(() => { window.__seen[state] = Date.now(); });
}).observe(document.body, {subtree: true, childList: true, attributes: true});
"""


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        result: dict[str, Any] = json.load(response)
        return result


def weight(base: str, encoding: str = "identity") -> tuple[int, list[tuple[str, int]]]:
    """The bytes of the page's own files, as served to a client that takes ``encoding`` (``gzip``: compressed)."""
    files = [("/", "index.html")] + [
        (f"/static/{path.relative_to(STATIC).as_posix()}", path.name) for path in sorted(STATIC.rglob("*"))
    ]
    sizes = []
    for url, name in files:
        if name == "index.html" and url != "/":
            continue
        request = urllib.request.Request(base + url, headers={"Accept-Encoding": encoding})
        with urllib.request.urlopen(request, timeout=30) as response:
            sizes.append((url, len(response.read())))
    return sum(size for _, size in sizes), sizes


def act(page: Any, selector: str) -> bool:
    """Click a control that makes a move and wait for the state it makes (or the deal's results it brings in front
    of the table, or the match's end); whether it was clicked."""
    before = page.get_attribute(".status", "data-state")
    try:
        page.click(selector, timeout=3000)
        page.wait_for_function(
            "([b]) => { const s = document.querySelector('.status');"
            " return !s || s.dataset.state !== b || document.querySelector('.sheet.result, [data-over]'); }",
            arg=[before],
            timeout=10_000,
        )
    except PlaywrightTimeout:
        return False
    return True


def step(page: Any) -> bool:
    """Make the move the page offers, if any (as tests/test_browser.py does); whether one was made."""
    if page.is_visible("[data-action=continue]"):
        return click(page, "continue")
    for selector in ("[data-action=reenter-no]", "[data-action=show]", "[data-action=layoff]", "[data-action=pass]"):
        if page.is_visible(selector):
            return act(page, selector)
    if page.get_attribute(".status", "data-mine") != "1":
        return False
    if page.is_visible("[data-action=draw-stock].live"):
        return act(page, "[data-action=draw-stock]")
    if page.is_visible("[data-action=close]"):
        try:
            page.click("[data-action=close]", timeout=3000)
        except PlaywrightTimeout:
            return False
        return act(page, "[data-action=close-option]")
    if page.get_attribute(".status", "data-phase") == "discard":
        cards = page.query_selector_all(".hand button.card:not(.meld)") or page.query_selector_all(".hand button.card")
        if cards[-1].get_attribute("aria-pressed") != "true":
            cards[-1].click()
        return act(page, "[data-action=discard]")
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--loads", type=int, default=10, help="times the table is opened")
    parser.add_argument("--matches", type=int, default=1, help="whole matches between two browsers")
    parser.add_argument("--limit", type=int, default=40, help="the matches' points limit")
    parser.add_argument("--newcomers", type=int, default=1, help="whole matches of a newcomer against a bot")
    parser.add_argument(
        "--old", type=Path, help="a checkout of an older chinchon: its table is opened too, load for load, interleaved"
    )
    args = parser.parse_args(argv)
    with served("--bot-delay", "0") as base, contextlib.ExitStack() as stack:
        total, sizes = weight(base)
        packed, packed_sizes = weight(base, "gzip")
        print(f"page weight: {total:,} bytes before compression, {packed:,} gzipped ({len(sizes)} files)")
        for (url, size), (_, gzipped) in zip(sizes, packed_sizes, strict=True):
            print(f"  {url}: {size:,} ({gzipped:,} gzipped)")
        old_base = serve_old(stack, args.old) if args.old is not None else None
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), headless=True)
            servers = [base] if old_base is None else [base, old_base]
            names = {base: "this checkout", old_base: str(args.old)}
            # Load for load and match for match, the servers alternate: the machine's load falls on both alike.
            loads: dict[str, list[float]] = {where: [] for where in servers}
            delays: dict[str, list[float]] = {where: [] for where in servers}
            for i in range(args.loads):
                for where in servers if i % 2 else servers[::-1]:
                    loads[where].append(load(browser, where))
            for i in range(args.matches):
                for where in servers if i % 2 else servers[::-1]:
                    delays[where] += two_browsers(browser, where, args.limit)
            for where in servers:
                took = sorted(loads[where])
                if took:
                    print(
                        f"{names[where]}: table on screen after opening its address: median "
                        f"{statistics.median(took):.0f} ms, largest {took[-1]:.0f} ms ({len(took)} loads)"
                    )
                moves = sorted(delays[where])
                if moves:
                    p95 = moves[min(len(moves) - 1, int(0.95 * len(moves)))]
                    print(
                        f"{names[where]}: a move shown in the other browser: median {statistics.median(moves):.0f} ms,"
                        f" p95 {p95:.0f} ms, largest {moves[-1]:.0f} ms ({len(moves)} moves)"
                    )
            if old_base is not None and loads[base] and loads[old_base]:
                ratio = statistics.median(loads[base]) / statistics.median(loads[old_base])
                print(f"loads, this checkout against {args.old}: {ratio:.2f} times the median")
            if old_base is not None and delays[base] and delays[old_base]:
                ratio = statistics.median(delays[base]) / statistics.median(delays[old_base])
                print(f"moves shown, this checkout against {args.old}: {ratio:.2f} times the median")
            clicks = deals = 0
            for _ in range(args.newcomers):
                made, dealt = newcomer(browser, base, args.limit)
                clicks, deals = clicks + made, deals + dealt
            if deals:
                print(f"a newcomer's match: {clicks / deals:.1f} clicks a deal ({clicks} clicks, {deals} deals)")
            browser.close()
    return 0


def load(browser: Any, base: str) -> float:
    """A room's address opened (its match started) to its table on screen, in ms from the navigation's start."""
    # (The server's own bot level: the levels' names changed between versions.)
    room = post(base + "/api/rooms", {"name": "Ana", "seats": 2, "public": False})
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(
        f"localStorage.setItem('chinchon.seat.{room['code']}', JSON.stringify({{token: '{room['token']}', seat: 0}}))"
    )
    page = context.new_page()
    page.goto(f"{base}/#/room/{room['code']}")
    page.click("[data-action=start]", timeout=60_000)
    page.wait_for_selector(".hand .card", timeout=60_000)
    page.goto("about:blank")
    page.goto(f"{base}/#/room/{room['code']}")
    page.wait_for_selector(".hand .card", timeout=60_000)
    took = float(page.evaluate("performance.now()"))
    context.close()
    return took


def serve_old(stack: contextlib.ExitStack, old: Path) -> str:
    """Start the server of an older checkout (its code: its process finds chinchon there first); its address."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(old.resolve())
    try:
        return str(stack.enter_context(served("--bot-delay", "0")))
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def two_browsers(browser: Any, base: str, limit: int) -> list[float]:
    """Two people play a whole match; the milliseconds from each move's click to the other page showing it."""
    room = post(
        base + "/api/rooms",
        {"name": "Ana", "seats": 2, "public": False, "rules": {"preset": "fournier", "options": {"limit": limit}}},
    )
    joined = post(f"{base}/api/rooms/{room['code']}/join", {"name": "Bea"})
    pages = []
    for who in (room, joined):
        context = browser.new_context(viewport={"width": 390, "height": 844})
        context.add_init_script(
            f"localStorage.setItem('chinchon.seat.{room['code']}', "
            f"JSON.stringify({{token: '{who['token']}', seat: {who['seat']}}}))"
        )
        page = context.new_page()
        page.goto(f"{base}/#/room/{room['code']}")
        page.wait_for_selector(".seats", timeout=60_000)
        pages.append(page)
    pages[0].click("[data-action=start]")
    for page in pages:
        page.wait_for_selector(".hand .card", timeout=60_000)
        page.evaluate(WATCH)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not pages[0].is_visible("[data-over]"):
        if not any(step(page) for page in pages):
            pages[0].wait_for_timeout(20)
    delays = []
    for mover, other in ((pages[0], pages[1]), (pages[1], pages[0])):
        seen = {int(k): v for k, v in other.evaluate("window.__seen").items() if v is not None}
        for state, clicked in mover.evaluate("window.__clicks"):
            later = [t for s, t in seen.items() if s > state]
            if later:
                delays.append(min(later) - clicked)
    for page in pages:
        page.context.close()
    return delays


NEWCOMER_MOVES = ("tip-seen", "continue", "reenter-no", "layoff-all", "layoff", "pass")


def newcomer(browser: Any, base: str, limit: int) -> tuple[int, int]:
    """A first visit plays a whole match against a beginner bot from the home page: the clicks it made, the deals."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(base + "/")
    play = {"options": {"limit": limit}, "bot_level": "beginner"}
    page.evaluate("(f) => localStorage.setItem('chinchon.play', f)", json.dumps(play))
    page.evaluate("(f) => localStorage.setItem('chinchon.form', f)", json.dumps({"options": {"limit": limit}}))
    page.reload()
    page.fill("input[name=name]", "Ana")
    page.click("[data-action=play-now]")
    page.wait_for_selector(".hand .card", timeout=60_000)
    clicks = 1
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and not page.is_visible("[data-over]"):
        made = 0
        for name in NEWCOMER_MOVES:
            if page.is_visible(f"[data-action={name}]"):
                made = int(
                    act(page, f"[data-action={name}]") if name not in ("tip-seen", "continue") else click(page, name)
                )
                break
        else:
            if page.is_visible("[data-action=show]"):
                suggested = ".option.suggested[data-action=show]"
                made = int(act(page, suggested if page.is_visible(suggested) else "[data-action=show]"))
            elif page.get_attribute(".status", "data-mine") == "1":
                if page.is_visible("[data-action=draw-stock].live"):
                    made = int(act(page, "[data-action=draw-stock]"))
                elif page.is_visible("[data-action=close]"):
                    made = int(click(page, "close")) + int(act(page, "[data-action=close-option]"))
                elif page.get_attribute(".status", "data-phase") == "discard":
                    cards = page.query_selector_all(".hand button.card:not(.meld)") or page.query_selector_all(
                        ".hand button.card"
                    )
                    cards[-1].click()
                    made = 1 + int(act(page, "[data-action=discard]"))
        clicks += made
        if not made:
            page.wait_for_timeout(20)
    deals = int("".join(ch for ch in page.inner_text(".table-bar span") if ch.isdigit()) or 0)
    context.close()
    return clicks, deals


def click(page: Any, action: str) -> bool:
    """Click a control that makes no move; whether it was there to click."""
    try:
        page.click(f"[data-action={action}]", timeout=3000)
    except PlaywrightTimeout:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
