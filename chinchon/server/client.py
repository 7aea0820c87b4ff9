"""A small client of the server's protocol, version 2 (``websockets``), used by the tests and the load benchmark.

The client keeps the room's whole view as the server last sent it and
folds each event into it (:func:`fold`), as the browser's ``state.js``
does: its ``view`` is always the one the server would send now.

>>> Client.__name__
'Client'
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import websockets

from chinchon.cards import Card

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "Client", "create_room", "fold", "join_room", "served"]

VERSION = 2
"""The protocol version this client speaks."""

_ids = itertools.count(1)

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which the browser tests, the browser benchmark and the screenshots launch (headless)."""
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Chromium's flags for a machine with no network beyond loopback (it would try to reach its own services)."""


def _post(url: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(json.loads(answer.read()))
    except urllib.error.HTTPError as error:
        return error.code, dict(json.loads(error.read()))


@contextlib.contextmanager
def served(*options: str, timeout: float = 60.0) -> Iterator[str]:
    """A ``chinchon serve`` process on a free loopback port and a temporary SQLite database; its base URL.

    ``options`` go to ``chinchon serve`` as they are; the server is stopped (SIGTERM) on leaving.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "chinchon", "serve", "--port", str(port)]
        command += ["--db", f"sqlite+aiosqlite:///{folder}/server.db", "--log-level", "warning", *options]
        server = subprocess.Popen(command, cwd=folder)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.2)
            yield base
        finally:
            server.terminate()
            server.wait(30)


async def create_room(base: str, **payload: Any) -> dict[str, Any]:
    """``POST /api/rooms``: the code, seat and token (raises ``RuntimeError`` on an error)."""
    status, answer = await asyncio.to_thread(_post, f"{base}/api/rooms", payload)
    if status != 201:
        raise RuntimeError(f"{status}: {answer}")
    return answer


async def join_room(base: str, code: str, name: str) -> dict[str, Any]:
    """``POST /api/rooms/{code}/join``: the seat and token (raises ``RuntimeError`` on an error)."""
    status, answer = await asyncio.to_thread(_post, f"{base}/api/rooms/{code}/join", {"name": name})
    if status != 201:
        raise RuntimeError(f"{status}: {answer}")
    return answer


# -- folding the events into the view -----------------------------------------------------


def _melds_text(melds: list[list[str]]) -> str:
    return " ".join("[" + " ".join(meld) + "]" for meld in melds)


def _sorted(cards: list[str]) -> list[str]:
    return [str(card) for card in sorted(Card.parse(text) for text in cards)]


def _remove(game: dict[str, Any], mine: int | None, seat: int, cards: list[str]) -> None:
    game["hand_sizes"][seat] -= len(cards)
    for card in cards:
        if card in game["taken"][seat]:
            game["taken"][seat].remove(card)
        if seat == mine and card in game["hand"]:
            game["hand"].remove(card)


def _next(game: dict[str, Any], seat: int) -> int:
    seats: list[int] = game["seats"]
    return seats[(seats.index(seat) + 1) % len(seats)]


def _fold_game(view: dict[str, Any], event: dict[str, Any]) -> None:
    """Apply one of the engine's events (or a private one of the view's seat) to the view's game."""
    kind, mine, game = event["kind"], view["seat"], view["game"]
    if kind == "match_started":
        view["game"] = {
            "scores": list(event["scores"]),
            "active": list(event["active"]),
            "pot": event["pot"],
            "previous_result": None,
            "reentry_pending": [],
            "match_over": False,
            "winner": None,
        }
        return
    seat: int = event.get("seat", -1)
    if kind == "deal_started":
        players = len(game["scores"])
        game.update(
            phase="draw",
            to_move=event["first"],
            seats=list(event["seats"]),
            hand=[],
            arrangement=None,
            hand_sizes=[view["rules"]["hand_size"] if s in event["seats"] else 0 for s in range(players)],
            stock_size=event["stock"],
            discard_pile=[event["discard"]],
            discards=[],
            taken=[[] for _ in range(players)],
            last_draw=None,
            closer=None,
            table=[],
            revealed=[],
            result=None,
            history=[],
            legal_actions=[],
            scores=list(event["scores"]),
            dealer=event["dealer"],
            deal_number=event["number"],
            turn=0,
            reentry_pending=[],
        )
    elif kind == "you_were_dealt":
        game["hand"] = _sorted(event["hand"])
    elif kind == "stock_rebuilt":
        game["stock_size"] = event["stock"]
        game["discard_pile"] = game["discard_pile"][-1:]
    elif kind == "drew":
        game["phase"] = "discard"
        game["last_draw"] = event["source"]
        game["hand_sizes"][seat] += 1
        game["history"].append([seat, f"draw {event['source']}"])
        if event["source"] == "stock":
            game["stock_size"] -= 1
        else:
            game["discard_pile"].pop()
            game["taken"][seat].append(event["card"])
            if seat == mine:
                game["hand"] = _sorted([*game["hand"], event["card"]])
    elif kind == "you_drew":
        game["hand"] = _sorted([*game["hand"], event["card"]])
    elif kind == "discarded":
        _remove(game, mine, seat, [event["card"]])
        game["discard_pile"].append(event["card"])
        game["discards"].append([seat, event["card"]])
        game["history"].append([seat, f"discard {event['card']}"])
        game["turn"] += 1
        game["phase"] = "draw"
        game["to_move"] = _next(game, seat)
    elif kind == "closed":
        _remove(game, mine, seat, [card for meld in event["melds"] for card in meld])
        game["hand_sizes"][seat] -= 1  # the card put face down
        game["closer"] = seat
        game["table"] = [{"owner": seat, "cards": list(meld), "open": event["open"]} for meld in event["melds"]]
        game["turn"] += 1
        game["phase"] = "showdown"
        game["to_move"] = event["to_move"]
        game["history"].append([seat, " ".join(["close", *("[" + " ".join(m) + "]" for m in event["melds"])])])
    elif kind == "you_put_face_down":
        if event["card"] in game["hand"]:
            game["hand"].remove(event["card"])
        melds = [meld["cards"] for meld in game["table"] if meld["owner"] == seat]
        game["history"][-1] = [seat, f"close {event['card']} {_melds_text(melds) if melds else '-'}"]
    elif kind == "showed":
        _remove(game, mine, seat, [card for meld in event["melds"] for card in meld])
        game["table"].extend({"owner": seat, "cards": list(meld), "open": True} for meld in event["melds"])
        game["history"].append([seat, f"show {_melds_text(event['melds'])}" if event["melds"] else "show -"])
        game["to_move"] = event["to_move"]
    elif kind == "laid_off":
        _remove(game, mine, seat, [event["card"]])
        before = game["table"][event["meld_index"]]
        game["table"][event["meld_index"]] = {
            "owner": event["owner"],
            "cards": list(event["meld"]),
            "open": before["open"],
        }
        game["history"].append([seat, f"layoff {event['card']} {event['meld_index']}"])
        game["to_move"] = event["to_move"]
    elif kind == "passed":
        game["history"].append([seat, "pass"])
        game["to_move"] = event["to_move"]
    elif kind == "deal_ended":
        result = event["result"]
        game.update(phase="over", to_move=None, result=result, previous_result=result, revealed=result["loose"])
        game["scores"] = list(event["scores"])
        game["active"] = [s for s in game["active"] if s not in event["out"]]
        if result["closer"] is not None:
            game["table"] = result["table"]
        game["hand_sizes"] = [len(loose) for loose in result["loose"]]
        for s, loose in enumerate(result["loose"]):
            left = list(loose)
            kept = []
            for card in game["taken"][s]:
                if card in left:
                    left.remove(card)
                    kept.append(card)
            game["taken"][s] = kept
        if mine is not None:
            game["hand"] = _sorted(result["loose"][mine])
    elif kind == "reentry_asked":
        game["reentry_pending"] = list(event["seats"])
        game["to_move"] = event["seats"][0]
    elif kind == "reentered":
        game["reentry_pending"].pop(0)
        game["scores"][seat] = event["score"]
        game["pot"] = event["pot"]
        if event["accept"]:
            game["active"] = sorted([*game["active"], seat])
        game["to_move"] = game["reentry_pending"][0] if game["reentry_pending"] else None
    elif kind == "match_ended":
        game.update(match_over=True, winner=event["winner"], to_move=None, reentry_pending=[], pot=event["pot"])
        game["scores"] = list(event["scores"])
        view["status"] = "over"


def fold(view: dict[str, Any], message: dict[str, Any]) -> None:
    """Apply an ``event`` message to a whole view (a ``view`` message's form), in place: the view the server
    would send after it.

    Seats and watchers come with the ``presence`` messages that follow the room's events.
    """
    event = message["event"]
    kind = event["kind"]
    view["state"] = message["n"]
    if kind in ("start", "rematch"):
        view.update(status="playing", match=event["match"], game=None)
    elif kind not in ("join", "leave", "kick"):
        _fold_game(view, event)
        for private in message["private"]:
            _fold_game(view, private)
    game = view["game"]
    if game is not None and "phase" in game:
        game["legal_actions"] = list(message["legal_actions"])
        if message["arrangement"] is not None:
            game["arrangement"] = message["arrangement"]
        elif not game["hand"]:
            game["arrangement"] = None
    if message["settled"]:
        view["turn_deadline"] = message["turn_deadline"]


# -- the client ---------------------------------------------------------------------------


class Client:
    """One WebSocket client: it keeps every message received and the latest view (events folded into it).

    ``messages`` holds every message received; with ``snapshots``, each settled event is followed there by a
    copy of the view it made, as a ``view`` message (its index in ``folded``), and so is each ``presence``: a
    test waits for a state as it waits for a view. ``view`` is a view kept from an earlier connection, for a
    ``hello`` with ``last_event`` to go on from.
    """

    def __init__(
        self,
        url: str,
        on_message: Callable[[dict[str, Any]], None] | None = None,
        headers: dict[str, str] | None = None,
        view: dict[str, Any] | None = None,
        snapshots: bool = True,
    ) -> None:
        self.url = url
        self.snapshots = snapshots
        self.folded: set[int] = set()
        """The indices in ``messages`` of the views folded here (not sent by the server)."""
        self.headers = headers or {}
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = copy.deepcopy(view)
        self.last_event = view["state"] if view is not None else 0
        self.gaps = 0
        """Events that did not follow the view's state (each answered by a new hello for the whole view)."""
        self._hello: dict[str, Any] = {}
        self.on_message = on_message
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.closed: int | None = None

    async def connect(self, **hello: Any) -> dict[str, Any]:
        """Open the socket and say hello; the welcome (or the error) that answers."""
        self._socket = await websockets.connect(
            self.url, max_size=2**22, open_timeout=10, additional_headers=self.headers or None
        )
        self.closed = None
        self._reader = asyncio.create_task(self._read())
        start = len(self.messages)
        self._hello = {"type": "hello", "version": VERSION, **{k: v for k, v in hello.items() if v is not None}}
        await self.send(self._hello)
        return await self.wait(lambda m: m["type"] in ("welcome", "error"), start)

    async def _read(self) -> None:
        try:
            async for frame in self._socket:
                message = json.loads(frame)
                self.messages.append(message)
                self._take(message)
                if self.on_message is not None:
                    self.on_message(message)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = self._socket.close_code if self._socket.close_code is not None else 1006
            self._changed.set()

    def _take(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "view":
            self.view = copy.deepcopy(message)
            self.last_event = message["state"]
        elif kind == "event":
            view = self.view
            if view is not None and message["n"] != view["state"] + 1:
                # A gap: the whole view again (a hello without last_event).
                self.gaps += 1
                self.view = None
                hello = {k: v for k, v in self._hello.items() if k != "last_event"}
                asyncio.get_running_loop().create_task(self.send(hello))
            elif view is not None:
                fold(view, message)
                if self.snapshots and message["settled"]:
                    self.folded.add(len(self.messages))
                    self.messages.append(copy.deepcopy(view))
            self.last_event = message["n"]
        elif kind == "presence" and self.view is not None and self.view["room"] == message["room"]:
            self.view["seats"] = message["seats"]
            self.view["watchers"] = message["watchers"]
            if self.snapshots:
                self.folded.add(len(self.messages))
                self.messages.append(copy.deepcopy(self.view))

    async def send(self, message: dict[str, Any] | str) -> None:
        """Send a message (a dict as JSON, a string as it is)."""
        await self._socket.send(message if isinstance(message, str) else json.dumps(message))

    async def wait(
        self, test: Callable[[dict[str, Any]], bool], start: int = 0, timeout: float = 20.0
    ) -> dict[str, Any]:
        """The first message from index ``start`` on that passes ``test``."""
        deadline = asyncio.get_running_loop().time() + timeout
        index = start
        while True:
            while index < len(self.messages):
                if test(self.messages[index]):
                    return self.messages[index]
                index += 1
            if self.closed is not None:
                raise ConnectionError(f"closed with {self.closed}")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError("no such message")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def wait_view(self, test: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
        """The client's view once it passes ``test`` (the events folded into it so far)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            if self.view is not None and test(self.view):
                return self.view
            if self.closed is not None:
                raise ConnectionError(f"closed with {self.closed}")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError("no such view")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def wait_state(self, state: int, timeout: float = 20.0) -> dict[str, Any]:
        """The client's view once it reached event number ``state``."""
        return await self.wait_view(lambda view: view["state"] >= state, timeout)

    async def act(self, action: str, state: int | None = None) -> dict[str, Any]:
        """Send an action (in the state of the latest view); the ack or error that answers it."""
        client_id = f"a{next(_ids)}"
        start = len(self.messages)
        assert self.view is not None
        await self.send(
            {
                "type": "action",
                "id": client_id,
                "state": self.view["state"] if state is None else state,
                "action": action,
            }
        )
        return await self.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == client_id, start)

    def my_turn(self) -> bool:
        """Whether the latest view waits for this client's seat."""
        view = self.view
        return bool(
            view
            and view["game"]
            and view["status"] == "playing"
            and view["game"].get("legal_actions")
            and view["game"]["to_move"] == view["seat"]
        )

    async def play_randomly(self, rng: random.Random, until: Callable[[], bool], think: float = 0.0) -> int:
        """Play random legal actions whenever it is this seat's turn, until ``until()``; the actions played."""
        played = 0
        while not until() and self.closed is None:
            if self.my_turn():
                assert self.view is not None
                if think:
                    await asyncio.sleep(think)
                answer = await self.act(rng.choice(self.view["game"]["legal_actions"]))
                if answer["type"] == "ack":
                    played += 1
                    # (The events of the action came before its ack.)
                    await self.wait_state(answer["state"])
                    continue
                if answer.get("code") == "rate_limited":
                    await asyncio.sleep(1)
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.5)
        return played

    async def close(self) -> None:
        """Close the socket."""
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader
