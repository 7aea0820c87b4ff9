"""The text of every event in every language (chinchon.narration), and a match told from its events."""

from __future__ import annotations

import random

import pytest

from chinchon.actions import Close, Draw, ReEnter
from chinchon.cards import Card, parse_cards
from chinchon.deal import stack_deck
from chinchon.events import PRIVATE_EVENTS, PUBLIC_EVENTS, Event
from chinchon.i18n import LANGUAGES
from chinchon.match import Match
from chinchon.narration import describe, tell
from chinchon.rules import Rules

E1 = parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦")
OTHER = parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")


def e1_match() -> Match:
    rules = Rules()
    deck = stack_deck(rules, [E1, OTHER], discard=Card.parse("4♣"), stock=[Card.parse("6♥")])
    match = Match(["Ana", "Bea"], rules, seed=1, first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(Card.parse("A♦")))
    return match


def test_a_deal_told_from_its_events() -> None:
    match = e1_match()
    assert tell(match.all_events(), "en", you=1)[:10] == [
        "Match: Ana, Bea",
        "Deal 1: Ana plays first",
        "Ana was dealt A♦ 7♦ 3♥ 4♥ 5♥ 7♠ 7♣",
        "You were dealt Q♦ 2♠ 6♠ K♠ 2♣ 6♣ K♣",
        "Ana drew 6♥ from the stock",
        "Ana closed, putting A♦ face down: [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]",
        "You showed no melds",
        "Ana closed with every card matched (-10)",
        "Points: Ana -10, Bea +45",
        "Deal 2: you play first",
    ]
    # What Bea was told: the close without the face-down card, and no card drawn from the stock.
    hers = tell(match.events_for(1), "en", you=1)
    assert "Ana drew from the stock" in hers and "Ana closed: [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]" in hers
    assert not any("A♦ face down" in line for line in hers)
    assert tell(match.events(), "es", you=0)[2:4] == ["Robaste del mazo", "Cerraste: [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]"]
    # Ana's own: the card drawn and the card put face down, each in the line of its public event.
    mine = tell(match.events_for(0), "en", you=0)
    assert mine[3:5] == ["You drew 6♥ from the stock", "You closed, putting A♦ face down: [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]"]


def _varied_events() -> list[Event]:
    """The events of random matches that between them tell every kind of event."""
    rules = Rules(max_reshuffles=1, limit=30, reentry="once", jokers=2)
    events: list[Event] = []
    for seed in range(4):
        rng = random.Random(seed)
        match = Match(["Ana", "Bea", "Cai"], rules, seed=seed)
        while not match.over and len(match.log) < 2000:
            legal = match.legal_actions()
            closes = [a for a in legal if isinstance(a, Close)]
            if ReEnter(True) in legal:
                match.apply(ReEnter(rng.random() < 0.7))
            else:
                match.apply(closes[0] if closes and rng.random() < 0.5 else rng.choice(legal))
        events += match.all_events()
    return events


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_event_has_a_text_in_every_language(lang: str) -> None:
    events = _varied_events()
    assert {type(e) for e in events} == {*PUBLIC_EVENTS, *PRIVATE_EVENTS}
    names = ("Ana", "Bea", "Cai")
    english = {}
    for event in events:
        for you in (None, 0):
            text = describe(event, lang, names=names, you=you)
            assert text and "{" not in text and "}" not in text, (event, text)
            if lang != "en":
                english[(event, you)] = (text, describe(event, "en", names=names, you=you))
    if lang != "en":
        # Every kind of event is told in the language, not in English (a card alone reads the same).
        for kind in {type(e) for e in events}:
            pairs = [pair for (event, _), pair in english.items() if type(event) is kind]
            assert any(text != en for text, en in pairs), (lang, kind.__name__)


def test_the_seat_told_as_you_is_you_in_every_sentence_about_it() -> None:
    """A lay-off on your meld, your chinchón, your re-entry question, and the names given for the seats."""
    from chinchon.events import DealEnded, LaidOff, MatchStarted, ReEntryAsked
    from chinchon.observation import DealResult

    names = ("You", "Bot 1")
    run = tuple(parse_cards("4♥ 5♥ 6♥ 7♥"))
    on_yours = LaidOff(1, Card.parse("7♥"), 0, run, 0, None)
    assert describe(on_yours, "en", names=names, you=0) == "Bot 1 laid off 7♥ on your meld: [4♥ 5♥ 6♥ 7♥]"
    assert describe(on_yours, "es", names=names, you=0) == "Bot 1 colocó 7♥ en tu combinación: [4♥ 5♥ 6♥ 7♥]"
    assert describe(on_yours, "en", names=("Ana", "Bea")) == "Bea laid off 7♥: [4♥ 5♥ 6♥ 7♥] (Ana)"
    own = LaidOff(0, Card.parse("7♥"), 0, run, 0, None)
    assert describe(own, "en", names=names, you=0) == "You laid off 7♥ on your meld: [4♥ 5♥ 6♥ 7♥]"
    result = DealResult(0, (-10, 30), (), ((), ()), chinchon=True, clean=True)
    ended = DealEnded(1, (0, 1), result, (-10, 30), ())
    assert "You made a chinchón!" in describe(ended, "en", names=names, you=0).splitlines()
    assert "Ana made a chinchón!" in describe(ended, "en", names=("Ana", "Bea"), you=1).splitlines()
    asked = ReEntryAsked((0,), 80)
    assert describe(asked, "en", names=names, you=0) == "Over the limit, you may re-enter with 80 points"
    assert describe(asked, "fr", names=names, you=0).startswith("Au-delà de la limite, vous pouvez revenir")
    assert describe(asked, "en", names=names, you=1) == "Over the limit, You may re-enter with 80 points"
    started = MatchStarted(("Ana\x1b", "Bea"), Rules(), (0, 0), (0, 1), 1, 0)
    assert describe(started, "en", names=("Ana?", "Bea")) == "Match: Ana?, Bea"
