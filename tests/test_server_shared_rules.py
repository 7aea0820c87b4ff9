"""Rooms with equal rules share one ``Rules`` object (the engine's tables are kept on it, once)."""

from __future__ import annotations

from chinchon.rules import Rules
from chinchon.server.bots import BotPool
from chinchon.server.hub import Hub
from chinchon.server.rooms import Manager, ServerSettings, build_rules
from chinchon.server.store import RoomRow, SeatRow, Store


def test_equal_rules_are_one_object() -> None:
    first = build_rules("fournier", {})
    assert build_rules("fournier", {}) is first
    assert build_rules("fournier", {"reentry": "unlimited"}) is build_rules("fournier", {"reentry": "unlimited"})
    assert build_rules("fournier", {"reentry": "unlimited"}) is not first
    assert build_rules("clasico", {}) is not first


def test_a_rebuilt_room_shares_the_rules_of_new_rooms() -> None:
    manager = Manager(ServerSettings(), Store("sqlite+aiosqlite:///:memory:"), Hub(), BotPool(1, "thread"))
    rules = Rules.preset("fournier")
    row = RoomRow(
        code="ABCDEFG",
        created=1.0,
        public=False,
        status="waiting",
        preset="fournier",
        rules=rules.to_dict(),
        seats=2,
        bot_level="easy",
        turn_seconds=None,
        creator=0,
        match=0,
        seed=None,
        last_event=0,
        seat_rows=[SeatRow(0, "Ana", "person", None, "a" * 64), SeatRow(1, None, "open", None, None)],
    )
    room = manager.rebuild(row)
    assert room.rules == rules
    assert room.rules is build_rules("fournier", {})
