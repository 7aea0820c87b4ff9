"""The wire's envelopes: self-contained (the same frames after a trip through JSON, as a relay between nodes would
carry them), fitting the protocol's models, and each frame made once for every member of a seat and language."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from chinchon.actions import Close
from chinchon.events import PrivateEvent
from chinchon.match import Match
from chinchon.server.hub import Connection, Envelope, Hub
from chinchon.server.protocol import Event


def envelopes(seed: int, players: int = 3) -> list[Envelope]:
    """The envelopes of a random match's events, as a room tells them (every seat a person's)."""
    rng = random.Random(seed)
    match = Match(players, seed=seed)
    told = [match.all_events()]
    while not match.over and len(match.events()) < 3000:
        since = len(match.events())
        legal = match.legal_actions()
        closes = [a for a in legal if isinstance(a, Close)]
        match.apply(rng.choice(closes) if closes else rng.choice(legal))
        told.append(match.all_events(since))
    out: list[Envelope] = []
    for batch in told:
        groups: list[tuple[Any, dict[int, list[Any]]]] = []
        for event in batch:
            if isinstance(event, PrivateEvent):
                groups[-1][1].setdefault(event.seat, []).append(event)
            else:
                groups.append((event, {}))
        for public, private in groups:
            out.append(
                Envelope(
                    "ROOMXYZ",
                    len(out) + 1,
                    public.to_dict(),
                    match.names,
                    {seat: [e.to_dict() for e in events] for seat, events in private.items()},
                    told=(public, private),
                )
            )
        out[-1].settled = True
        out[-1].legal = {0: ["draw stock"]}
    return out


def test_an_envelope_makes_the_same_frames_after_a_trip_through_json() -> None:
    made = envelopes(3)
    kinds = {e.event["kind"] for e in made}
    assert {"match_started", "deal_started", "drew", "discarded", "closed", "deal_ended"} <= kinds
    for envelope in made:
        again = Envelope.from_dict(json.loads(json.dumps(envelope.to_dict())))
        assert again.told is None
        for seat in (None, 0, 1, 2):
            for lang in ("en", "es", "ar"):
                frame = envelope.frame(seat, lang)
                assert again.frame(seat, lang) == frame
                message = json.loads(frame)
                Event.model_validate(message)
                if seat is None:
                    assert message["private"] == [] and message["legal_actions"] == []
                else:
                    assert all(e["seat"] == seat for e in message["private"])


def test_a_seat_is_told_its_own_draw_in_its_language_and_the_others_are_not() -> None:
    drawn = next(e for e in envelopes(5) if e.event["kind"] == "drew" and e.event["source"] == "stock")
    seat = drawn.event["seat"]
    card = drawn.private[seat][0]["card"]
    mine, theirs = json.loads(drawn.frame(seat, "es")), json.loads(drawn.frame((seat + 1) % 3, "es"))
    assert card in mine["text"] and mine["private"] == [{"kind": "you_drew", "seat": seat, "card": card}]
    assert card not in json.dumps(theirs, ensure_ascii=False) and theirs["private"] == []


class Socket:
    """A WebSocket that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def test_the_hub_makes_each_frame_once_for_a_seat_and_a_language() -> None:
    async def go() -> list[Connection]:
        hub = Hub()
        members = [
            Connection(Socket(), "a", lang, seat=seat) for seat, lang in ((0, "en"), (0, "en"), (0, "es"), (None, "en"))
        ]
        for connection in members:
            hub.join(connection, "ROOMXYZ")
        for envelope in envelopes(7)[:30]:
            hub.publish(envelope)
            queued = [c.queue.get_nowait() for c in members]
            assert queued[0] is queued[1]  # the same text: made once
            assert queued[0] != queued[3] or (not envelope.private.get(0) and not envelope.legal.get(0))
            assert len(envelope.frames) <= 3
        return members

    members = asyncio.run(go())
    assert all(not c.closed for c in members)


def test_a_slow_client_is_dropped_past_the_bytes_its_queue_holds() -> None:
    async def go() -> Connection:
        hub = Hub()
        slow = Connection(Socket(), "a", "en", seat=None)
        hub.join(slow, "ROOMXYZ")
        big = {"type": "chat", "room": "ROOMXYZ", "name": "Ana", "seat": 0, "text": "x" * 4000, "time": 0.0}
        for _ in range(300):  # 1.2 MB, in fewer frames than the queue holds
            hub.send(slow, big)
        return slow

    slow = asyncio.run(go())
    assert slow.closed and slow.close_code == 1013
