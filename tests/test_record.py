"""Game records: round trips, the JSON Schema, and tampered records."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from importlib import resources
from typing import Any

import jsonschema
import pytest

from chinchon import Rules
from chinchon.actions import Close
from chinchon.match import Match
from chinchon.record import RecordError, dumps, loads, replay


def play(rules: Rules, players: int, seed: int, max_steps: int = 20_000) -> Match:
    rng = random.Random(seed)
    match = Match(players, rules, seed=seed)
    for _ in range(max_steps):
        if match.over:
            break
        actions = match.legal_actions()
        closes = [a for a in actions if isinstance(a, Close)]
        match.apply(closes[0] if closes else rng.choice(actions))
    return match


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    text = resources.files("chinchon").joinpath("schemas/record.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


@pytest.fixture(scope="module")
def finished() -> dict[str, Any]:
    return play(Rules.preset("polaco"), 3, 4).record()


@pytest.mark.parametrize("preset", Rules.presets())
def test_records_replay_to_the_same_match(preset: str, schema: dict[str, Any]) -> None:
    rules = Rules.preset(preset)
    for seed in range(3):
        match = play(rules, 3, seed)
        record = match.record()
        jsonschema.validate(record, schema)
        again = replay(loads(dumps(record)))
        assert again.record() == record
        assert again.scores == match.scores
        assert again.winner == match.winner
        assert [d.hand(0) for d in again.deals] == [d.hand(0) for d in match.deals]
        assert again.events() == match.events() and again.all_events() == match.all_events()


def test_a_version_2_record_names_its_log_events_and_still_replays(schema: dict[str, Any]) -> None:
    match = play(Rules.preset("clasico"), 3, 1)
    old = match.record()
    old["version"] = 2
    old["events"] = old.pop("log")
    jsonschema.validate(old, schema)
    again = replay(old)
    assert again.scores == match.scores and again.events() == match.events()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**old, "version": 3}, schema)
    with pytest.raises(RecordError, match="record: log is missing or malformed"):
        replay({**old, "version": 3})


def test_same_seed_same_record() -> None:
    assert play(Rules(), 2, 99).record() == play(Rules(), 2, 99).record()
    assert play(Rules(), 2, 99).record() != play(Rules(), 2, 98).record()


def test_an_unfinished_match_replays_where_it_stands() -> None:
    match = play(Rules(), 2, 3, max_steps=57)
    again = replay(match.record())
    assert again.to_move == match.to_move
    assert again.deal.hand(0) == match.deal.hand(0)
    assert again.deal.stock == match.deal.stock


def test_a_record_holds_no_clock_or_random_id(finished: dict[str, Any]) -> None:
    text = dumps(finished)
    assert text == dumps(replay(finished).record())
    assert set(finished) == {"format", "version", "rules", "seats", "scores", "first_given", "log", "result", "seed"}


def deal_event(record: dict[str, Any], number: int = 1) -> dict[str, Any]:
    event: dict[str, Any] = [e for e in record["log"] if "deck" in e][number - 1]
    return event


def first_action(record: dict[str, Any], text_start: str) -> dict[str, Any]:
    return next(e for e in record["log"] if "action" in e and e["action"].startswith(text_start))


TAMPERINGS: dict[str, tuple[Callable[[dict[str, Any]], object], str]] = {
    "unknown version": (lambda r: r.update(version=4), "unknown version 4"),
    "not a record": (lambda r: r.update(format="pgn"), "not a chinchon record"),
    "missing card": (lambda r: deal_event(r)["deck"].pop(), "missing"),
    "duplicated card": (lambda r: deal_event(r)["deck"].__setitem__(0, deal_event(r)["deck"][1]), "2 times"),
    "foreign card": (lambda r: deal_event(r)["deck"].__setitem__(0, "9♥"), "does not have"),
    "not a card": (lambda r: deal_event(r)["deck"].__setitem__(0, "XX"), "not a card"),
    "illegal action": (lambda r: first_action(r, "discard").update(action="discard 🃏"), "not in your hand"),
    "wrong seat": (lambda r: first_action(r, "draw").update(seat=first_action(r, "draw")["seat"] + 1), "turn"),
    "garbled action": (lambda r: first_action(r, "draw").update(action="draw twice"), "not an action"),
    "tampered result": (lambda r: r["result"].update(winner=(r["result"]["winner"] + 1) % 3), "result"),
    "tampered dealer": (lambda r: deal_event(r).update(dealer=(deal_event(r)["dealer"] + 1) % 3), "event"),
    "bad rules": (lambda r: r["rules"].update(close_limit=99), "close_limit"),
    "unknown option": (lambda r: r["rules"].update(colour="red"), "colour"),
    "missing log": (lambda r: r.pop("log"), "log"),
    "dropped deal": (lambda r: r["log"].remove(deal_event(r, 2)), "event"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_tampered_records_are_refused(name: str, finished: dict[str, Any]) -> None:
    record = copy.deepcopy(finished)
    tamper, words = TAMPERINGS[name]
    tamper(record)
    with pytest.raises(ValueError, match="record") as caught:
        replay(record)
    assert isinstance(caught.value, RecordError)
    assert words in str(caught.value)


def test_the_refusal_says_where(finished: dict[str, Any]) -> None:
    record = copy.deepcopy(finished)
    event = first_action(record, "discard")
    index = record["log"].index(event)
    event["action"] = "discard 🃏"
    with pytest.raises(RecordError, match=f"event {index} \\(deal 1\\): seat {event['seat']}"):
        replay(record)


def test_loads_refuses_what_is_not_a_json_object() -> None:
    with pytest.raises(RecordError):
        loads("[1, 2]")
    with pytest.raises(RecordError):
        loads("{not json")


def test_replay_plays_each_recorded_action_through_play_when_given() -> None:
    match = play(Rules(), 2, 5, max_steps=120)
    seen: list[tuple[int | None, str, object, int]] = []

    def step(replayed: Match, action: Any, seat: object) -> None:
        seen.append((replayed.to_move, str(action), seat, len(replayed.log)))
        replayed.apply(action, seat)

    again = Match.replay(match.record(), play=step)
    assert again.record() == match.record()
    moves = [e for e in match.log if "action" in e]
    assert [(s, a) for _, a, s, _ in seen] == [(e["seat"], e["action"]) for e in moves]
    # Each call sees the match as it stood before the action: the mover is the recorded seat.
    assert all(mover == seat for mover, _, seat, _ in seen)
    assert [n for *_, n in seen] == sorted({n for *_, n in seen})
