"""The events a match tells: folding a seat's events rebuilds its observation, and the spectator's from the public ones.

The fold below is a client's: it knows the events and the card order, and no
rule of the game (no rules are read but ``hand_size`` at a deal's start).
Random matches are played under every preset and under house rules that make
re-entries, void deals, rebuilt stocks, lay-offs and wild cards happen; after
every action each seat's fold and the spectator's are compared with the
engine's observations, field by field, but ``legal_actions`` (the engine's
to give, not the fold's).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest

from chinchon.actions import Close, Draw, LayOff, Show
from chinchon.cards import Card
from chinchon.events import (
    PRIVATE_EVENTS,
    PUBLIC_EVENTS,
    Closed,
    DealEnded,
    DealStarted,
    Discarded,
    Drew,
    Event,
    EventError,
    LaidOff,
    MatchEnded,
    MatchStarted,
    Passed,
    PrivateEvent,
    ReEntered,
    ReEntryAsked,
    Showed,
    StockRebuilt,
    YouDrew,
    YouPutFaceDown,
    YouWereDealt,
    event_from_dict,
)
from chinchon.match import Match
from chinchon.observation import Observation, Phase, PublicObservation, TableMeld
from chinchon.rules import Rules

NOT_FOLDED = {"legal_actions"}
"""The observation's fields the fold does not rebuild: the engine gives the legal actions."""


class Fold:
    """What one seat (or, with ``None``, anyone watching) knows, folded from the events it is told."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.state: dict[str, Any] = {}
        self.hand: Counter[Card] = Counter()

    def _remove(self, seat: int, cards: tuple[Card, ...] | list[Card]) -> None:
        s = self.state
        s["hand_sizes"][seat] -= len(cards)
        for card in cards:
            if card in s["taken"][seat]:
                s["taken"][seat].remove(card)
            if seat == self.seat:
                self.hand[card] -= 1

    def _next(self, seat: int) -> int:
        seats: tuple[int, ...] = self.state["seats"]
        return seats[(seats.index(seat) + 1) % len(seats)]

    def fold(self, event: Event) -> None:
        s = self.state
        if isinstance(event, PrivateEvent):
            assert event.seat == self.seat, "a private event told to another seat"
        if isinstance(event, MatchStarted):
            s.update(
                names=event.names,
                rules=event.rules,
                players=len(event.names),
                scores=list(event.scores),
                active=list(event.active),
                decks=event.decks,
                pot=event.pot,
                previous_result=None,
                reentry_pending=[],
                match_over=False,
                winner=None,
            )
        elif isinstance(event, DealStarted):
            assert list(event.scores) == s["scores"]
            players = s["players"]
            s.update(
                deal_number=event.number,
                dealer=event.dealer,
                first=event.first,
                seats=event.seats,
                phase=Phase.DRAW,
                to_move=event.first,
                turn=0,
                hand_sizes=[s["rules"].hand_size if seat in event.seats else 0 for seat in range(players)],
                stock_size=event.stock,
                rebuilds=0,
                discard_pile=[event.discard],
                discards=[],
                taken=[[] for _ in range(players)],
                last_draw=None,
                closer=None,
                table=[],
                revealed=(),
                result=None,
                history=[],
                reentry_pending=[],
            )
            self.hand = Counter()
        elif isinstance(event, YouWereDealt):
            self.hand = Counter(event.hand)
        elif isinstance(event, StockRebuilt):
            s["stock_size"] = event.stock
            s["discard_pile"] = s["discard_pile"][-1:]
            s["rebuilds"] += 1
        elif isinstance(event, Drew):
            s["phase"] = Phase.DISCARD
            s["last_draw"] = event.source
            s["hand_sizes"][event.seat] += 1
            s["history"].append((event.seat, f"draw {event.source}"))
            if event.source == "stock":
                assert event.card is None, "a card drawn from the stock told to everyone"
                s["stock_size"] -= 1
            else:
                assert event.card is not None and s["discard_pile"][-1] == event.card
                s["discard_pile"].pop()
                s["taken"][event.seat].append(event.card)
                if event.seat == self.seat:
                    self.hand[event.card] += 1
        elif isinstance(event, YouDrew):
            self.hand[event.card] += 1
        elif isinstance(event, Discarded):
            self._remove(event.seat, [event.card])
            s["discard_pile"].append(event.card)
            s["discards"].append((event.seat, event.card))
            s["history"].append((event.seat, f"discard {event.card}"))
            s["turn"] += 1
            s["phase"] = Phase.DRAW
            s["to_move"] = self._next(event.seat)
        elif isinstance(event, Closed):
            cards = [card for meld in event.melds for card in meld]
            self._remove(event.seat, cards)
            s["hand_sizes"][event.seat] -= 1  # the card put face down
            s["closer"] = event.seat
            s["table"] = [TableMeld(event.seat, meld, event.open) for meld in event.melds]
            s["turn"] += 1
            s["phase"] = Phase.SHOWDOWN
            s["to_move"] = event.to_move
            s["history"].append((event.seat, " ".join(["close", *(str(TableMeld(0, m)) for m in event.melds)])))
        elif isinstance(event, YouPutFaceDown):
            self.hand[event.card] -= 1
            melds = tuple(meld.cards for meld in s["table"] if meld.owner == event.seat)
            s["history"][-1] = (event.seat, str(Close(event.card, melds)))
        elif isinstance(event, Showed):
            self._remove(event.seat, [card for meld in event.melds for card in meld])
            s["table"].extend(TableMeld(event.seat, meld, True) for meld in event.melds)
            s["history"].append((event.seat, str(Show(event.melds))))
            s["to_move"] = event.to_move
        elif isinstance(event, LaidOff):
            self._remove(event.seat, [event.card])
            before = s["table"][event.meld_index]
            assert before.owner == event.owner
            s["table"][event.meld_index] = TableMeld(event.owner, event.meld, before.open)
            s["history"].append((event.seat, str(LayOff(event.card, event.meld_index))))
            s["to_move"] = event.to_move
        elif isinstance(event, Passed):
            s["history"].append((event.seat, "pass"))
            s["to_move"] = event.to_move
        elif isinstance(event, DealEnded):
            assert event.seats == s["seats"]
            result = event.result
            s.update(phase=Phase.OVER, to_move=None, result=result, previous_result=result)
            s["revealed"] = result.loose
            s["scores"] = list(event.scores)
            s["active"] = [seat for seat in s["active"] if seat not in event.out]
            # Where the rules show the hands by themselves (no lay-offs) the end tells the table and what is left;
            # and the card put face down leaves the cards taken from the pile: what is still taken is still held.
            s["table"] = list(result.table) if result.closer is not None else s["table"]
            s["hand_sizes"] = [len(loose) for loose in result.loose]
            for seat, loose in enumerate(result.loose):
                left = Counter(loose)
                kept = []
                for card in s["taken"][seat]:
                    if left[card] > 0:
                        left[card] -= 1
                        kept.append(card)
                s["taken"][seat] = kept
                if seat == self.seat:
                    self.hand = Counter(loose)
        elif isinstance(event, ReEntryAsked):
            s["reentry_pending"] = list(event.seats)
            s["to_move"] = event.seats[0]
        elif isinstance(event, ReEntered):
            assert s["reentry_pending"][0] == event.seat
            s["reentry_pending"].pop(0)
            s["scores"][event.seat] = event.score
            s["pot"] = event.pot
            if event.accept:
                s["active"] = sorted([*s["active"], event.seat])
            s["to_move"] = s["reentry_pending"][0] if s["reentry_pending"] else None
        elif isinstance(event, MatchEnded):
            s.update(match_over=True, winner=event.winner, to_move=None, reentry_pending=[], pot=event.pot)
            s["scores"] = list(event.scores)
        else:  # pragma: no cover - a kind of event the fold does not know
            raise AssertionError(f"unknown event {event!r}")

    def observation(self) -> dict[str, Any]:
        """The folded state, by observation field, as tuples (the engine's types)."""
        s = self.state
        hand = tuple(sorted(self.hand.elements())) if self.seat is not None else ()
        return {
            "seat": self.seat,
            "players": s["players"],
            "rules": s["rules"],
            "seats": s["seats"],
            "decks": s["decks"],
            "phase": s["phase"],
            "to_move": s["to_move"],
            "first": s["first"],
            "turn": s["turn"],
            "hand": hand,
            "hand_sizes": tuple(s["hand_sizes"]),
            "stock_size": s["stock_size"],
            "discard_pile": tuple(s["discard_pile"]),
            "discards": tuple(s["discards"]),
            "taken": tuple(tuple(taken) for taken in s["taken"]),
            "last_draw": s["last_draw"],
            "closer": s["closer"],
            "table": tuple(s["table"]),
            "revealed": tuple(s["revealed"]),
            "result": s["result"],
            "history": tuple(s["history"]),
            "scores": tuple(s["scores"]),
            "active": tuple(s["active"]),
            "dealer": s["dealer"],
            "deal_number": s["deal_number"],
            "reentry_pending": tuple(s["reentry_pending"]),
            "match_over": s["match_over"],
            "winner": s["winner"],
            "pot": s["pot"],
            "names": s["names"],
            "previous_result": s["previous_result"],
            "rebuilds": s["rebuilds"],
        }


def engine_state(observation: PublicObservation) -> dict[str, Any]:
    """The observation's fields that are state (all but the legal actions)."""
    return {f.name: getattr(observation, f.name) for f in dataclasses.fields(observation) if f.name not in NOT_FOLDED}


VARIANTS: list[tuple[str, Rules]] = [
    *((preset, Rules.preset(preset)) for preset in Rules.presets()),
    # Wild cards, laid in runs, lay-offs that float them; the closer lays off in passes.
    ("jokers", Rules(jokers=2, wild_floats="anywhere", closer_lays_off=True, layoff_passes=2)),
    ("wild ace", Rules.preset("clasico", wild_ace_of_oros=True, layoffs=True, wild_floats=True)),
    # Stocks rebuilt, then void deals; re-entries at a low limit; the lowest totals tied play on.
    ("voids", Rules(max_reshuffles=1, limit=30, reentry="once")),
    (
        "two decks",
        Rules.preset("polaco", decks=2, set_distinct_suits=False, limit=40, layoff_one_per_run_per_round=True),
    ),
    ("house", Rules(forbid_rediscard=True, close_on_first_turn=False, layoffs_on_clean_close=True, limit=40)),
]


def choose(match: Match, rng: random.Random, eager: float) -> Any:
    """A random legal action; a close at once with probability ``eager`` (else deals last and stocks run out)."""
    legal = match.legal_actions()
    closes = [a for a in legal if isinstance(a, Close)]
    if closes and rng.random() < eager:
        return rng.choice(closes)
    if any(isinstance(a, Draw) for a in legal) and rng.random() < 0.3:
        return Draw("discard") if Draw("discard") in legal else legal[0]
    return rng.choice(legal)


def play_and_fold(rules: Rules, players: int, seed: int, most: int = 1200) -> tuple[Match, Counter[str]]:
    """Play a random match, folding every seat's events and the public ones after every action."""
    rng = random.Random(seed)
    match = Match(players, rules, seed=seed)
    folds: dict[int | None, Fold] = {seat: Fold(seat) for seat in range(players)}
    folds[None] = Fold(None)
    seen: dict[int | None, int] = dict.fromkeys(folds, 0)
    kinds: Counter[str] = Counter()
    eager = rng.choice([0.2, 0.6, 1.0])
    for _ in range(most):
        for seat, fold in folds.items():
            new = match.events(seen[seat]) if seat is None else match.events_for(seat, seen[seat])
            for event in new:
                fold.fold(event)
                kinds[event.kind] += seat is None or isinstance(event, PrivateEvent)
            seen[seat] = len(match.events())
            expected = engine_state(match.observation(seat) if seat is not None else match.observation(None))
            got = fold.observation()
            mismatched = {key for key in expected if expected[key] != got[key]}
            assert not mismatched, (seat, {key: (expected[key], got[key]) for key in mismatched})
        if match.over:
            break
        match.apply(choose(match, rng, eager))
    return match, kinds


CASES = [(name, players, seed) for name, _ in VARIANTS for players in (2, 3, 4) for seed in (1, 2)]


@pytest.mark.parametrize(("name", "players", "seed"), CASES)
def test_folding_a_seats_events_rebuilds_its_observation(name: str, players: int, seed: int) -> None:
    rules = dict(VARIANTS)[name]
    if not rules.min_players <= players <= rules.max_players:
        pytest.skip(f"{name} plays {rules.min_players}-{rules.max_players}")
    match, _ = play_and_fold(rules, players, seed)
    assert Match.replay(match.record()).events() == match.events()


def test_the_folded_matches_had_everything_told() -> None:
    """The random matches above tell every kind of event, re-entry, void deals and lay-offs among them."""
    kinds: Counter[str] = Counter()
    voids = reentries = wild_layoffs = 0
    for _, rules in VARIANTS:
        for players in (2, 3, 4):
            if not rules.min_players <= players <= rules.max_players:
                continue
            match, told = play_and_fold(rules, players, 1)
            kinds += told
            voids += sum(1 for e in match.events() if isinstance(e, DealEnded) and e.result.void)
            reentries += sum(1 for e in match.events() if isinstance(e, ReEntered) and e.accept)
            wild_layoffs += sum(
                1 for e in match.events() if isinstance(e, LaidOff) and any(rules.is_wild(c) for c in e.meld)
            )
    assert set(kinds) == {cls.kind for cls in (*PUBLIC_EVENTS, *PRIVATE_EVENTS)}
    assert voids and reentries and wild_layoffs


def test_every_event_goes_to_json_and_back() -> None:
    match, _ = play_and_fold(Rules(max_reshuffles=1, limit=30, reentry="once", jokers=2), 3, 5)
    events = match.all_events()
    assert len({e.kind for e in events}) >= 12
    for event in events:
        data = json.loads(json.dumps(event.to_dict(), ensure_ascii=False))
        assert data["kind"] == event.kind
        assert event_from_dict(data) == event
        assert type(event).from_dict(data) == event


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "drew", "seat": 0, "source": "pile", "card": None}, "event drew: source is missing or malformed"),
        ({"kind": "drew", "seat": 0, "source": "stock"}, "event drew: card is missing or malformed"),
        ({"kind": "discarded", "seat": "0", "card": "5♦"}, "event discarded: seat is missing or malformed"),
        ({"kind": "discarded", "seat": 0, "card": "5x"}, "event discarded: card is missing or malformed"),
        ({"kind": "exploded"}, "is not an event"),
        ({"seat": 0}, "is not an event"),
    ],
)
def test_a_malformed_event_is_refused_naming_the_field(data: dict[str, Any], message: str) -> None:
    with pytest.raises(EventError, match=message):
        event_from_dict(data)


def test_private_events_go_to_their_seat_alone_and_public_ones_hide_the_stock() -> None:
    match, _ = play_and_fold(Rules(), 3, 3, most=300)
    public = match.events()
    assert not any(isinstance(e, PrivateEvent) for e in public)
    assert all(e.card is None for e in public if isinstance(e, Drew) and e.source == "stock")
    for seat in range(3):
        mine = match.events_for(seat)
        assert [e for e in mine if not isinstance(e, PrivateEvent)] == public
        assert all(e.seat == seat for e in mine if isinstance(e, PrivateEvent))
        # A private event follows the public event it goes with.
        for before, event in itertools.pairwise(mine):
            if isinstance(event, YouDrew):
                assert isinstance(before, Drew) and before.seat == seat
            if isinstance(event, YouPutFaceDown):
                assert isinstance(before, Closed) and before.seat == seat
    everything = match.all_events()
    assert Counter(map(type, everything)) == Counter(map(type, public)) + sum(
        (Counter(type(e) for e in match.events_for(seat) if isinstance(e, PrivateEvent)) for seat in range(3)),
        Counter(),
    )


def test_events_after_a_number() -> None:
    match, _ = play_and_fold(Rules(), 2, 4, most=100)
    public = match.events()
    assert isinstance(public[0], MatchStarted) and isinstance(public[1], DealStarted)
    assert match.events(5) == public[5:] and match.events(len(public)) == [] and match.events(10**6) == []
    mine = match.events_for(0, 5)
    assert [e for e in mine if not isinstance(e, PrivateEvent)] == public[5:]
    assert match.events_for(0)[: len(match.events_for(0)) - len(mine)] == match.events_for(0)[: -len(mine) or None]
    for bad in (-1, "3", 1.5):
        with pytest.raises(ValueError, match="since: expected an event number from 0"):
            match.events(bad)
    with pytest.raises(ValueError, match="seat 2 is not one of the 2 seats"):
        match.events_for(2)


def test_the_public_observation_is_built_from_public_facts() -> None:
    match, _ = play_and_fold(Rules(), 3, 6, most=40)
    public = match.observation(None)
    assert type(public) is PublicObservation and not isinstance(public, Observation)
    assert public.seat is None and public.hand == () and public.legal_actions == ()
    seat = match.observation(0)
    assert isinstance(seat, Observation) and seat.hand
    # Every field of a seat's observation but its own (hand, history, legal actions) is the public one.
    own = {"seat", "hand", "history", "legal_actions"}
    for f in dataclasses.fields(PublicObservation):
        if f.name not in own:
            assert getattr(public, f.name) == getattr(seat, f.name), f.name
