"""Observations hold all a seat may know and nothing more.

The invariant of DESIGN.md: two positions with the same public history that
differ only in cards hidden from a seat give that seat equal observations.
The test deals the hidden cards (other hands' unknown cards, the stock, the
closer's face-down card) anew in random ways and compares.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chinchon import Card, Rules
from chinchon.actions import Close, Draw
from chinchon.deal import Deal
from chinchon.match import Match
from chinchon.observation import Phase

PRESETS = {
    "fournier": Rules(),
    "clasico": Rules.preset("clasico"),
    "online-jokers": Rules.preset("online", jokers=2),
    "polaco-two-decks": Rules.preset("polaco", decks=2),
}


def play_to_random_point(rules: Rules, players: int, seed: int, steps: int) -> Match:
    rng = random.Random(seed)
    match = Match(players, rules, seed=seed)
    for _ in range(steps):
        if match.over:
            break
        actions = match.legal_actions()
        closes = [a for a in actions if isinstance(a, Close)]
        match.apply(closes[0] if closes and rng.random() < 0.7 else rng.choice(actions))
    return match


def replay_taken(deal: Deal) -> Iterator[tuple[Deal, list[list[Card]], list[list[Card]]]]:
    """The deal played again from its own deck, stock rebuilds and history, after each action: the replay,
    each seat's draws from the discard pile (the pile's top card each time), and those it still holds.

    A card a seat drew from the pile stays known until it leaves the hand (a
    discard, a meld, a lay-off); a closer's face-down card stays until the
    deal is over. None of it is read from an observation.
    """
    orders = iter(deal.reshuffles)
    replay = Deal.new(
        deal.rules,
        deal.players,
        deal.first,
        deck=deal.deck,
        reshuffle=lambda cards: list(next(orders)),
        seats=deal.seats,
        decks=deal.decks,
    )
    seats = range(deal.players)
    drawn: list[list[Card]] = [[] for _ in seats]
    known: list[list[Card]] = [[] for _ in seats]
    face_down: tuple[int, Card] | None = None
    yield replay, drawn, known
    # The engine plays forced showdown decisions itself: the replay does too, and skips them.
    while len(replay.history) < len(deal.history):
        who, action = deal.history[len(replay.history)]
        before = [Counter(replay.hand(s)) for s in seats]
        if action == Draw("discard"):
            top = replay.discard_pile[-1]
            drawn[who].append(top)
            known[who].append(top)
        replay.apply(action)
        if isinstance(action, Close):
            face_down = (who, action.discard)
        for s in seats:
            gone = before[s] - Counter(replay.hand(s))
            if face_down is not None and face_down[0] == s and isinstance(action, Close):
                gone[face_down[1]] -= 1
            for card in gone.elements():
                if card in known[s]:
                    known[s].remove(card)
        if face_down is not None and replay.phase is Phase.OVER:
            if face_down[1] in known[face_down[0]]:
                known[face_down[0]].remove(face_down[1])
            face_down = None
        yield replay, drawn, known
    assert replay.history == deal.history


def known_from_history(deal: Deal) -> tuple[list[list[Card]], list[list[Card]]]:
    """Each seat's draws from the discard pile and the cards it is known to hold, from the deal's history."""
    *_, (_, drawn, known) = replay_taken(deal)
    return drawn, known


def redeal_hidden(deal: Deal, seat: int, rng: random.Random) -> Deal:
    """The same deal with the cards hidden from ``seat`` dealt anew.

    The cards each seat is known to hold come from the deal's history, not
    from the ``taken`` under test: a deal with the same public history holds
    them, and the redealt deal must list them as taken.
    """
    _, known = known_from_history(deal)
    taken = {s: Counter(cards) for s, cards in enumerate(known)}
    hidden: list[Card] = []
    counts: dict[int, int] = {}
    for s in range(deal.players):
        if s == seat or deal.phase is Phase.OVER:
            # Once the deal is over every hand is shown.
            continue
        unknown = Counter(deal.hand(s)) - taken[s]
        counts[s] = sum(unknown.values())
        hidden.extend(unknown.elements())
    stock_size = len(deal.stock)
    hidden.extend(deal.stock)
    face_down = deal.face_down
    if face_down is not None:
        hidden.append(face_down)
    rng.shuffle(hidden)
    hands = {
        s: list((Counter(deal.hand(s)) & taken[s]).elements()) + [hidden.pop() for _ in range(count)]
        for s, count in counts.items()
    }
    stock = hidden[:stock_size]
    hidden = hidden[stock_size:]
    new_face_down = hidden.pop() if face_down is not None else None
    assert not hidden
    other = deal.redeal(hands, stock, new_face_down)
    # The cards each seat is known to hold are those the history says, whatever the deal lists as taken.
    assert [list(cards) for cards in other.observation(seat).taken] == [list(cards) for cards in known]
    return other


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 400), players=st.integers(2, 4), data=st.data())
def test_hidden_cards_do_not_change_the_observation(
    preset: str, seed: int, steps: int, players: int, data: st.DataObject
) -> None:
    rules = PRESETS[preset]
    match = play_to_random_point(rules, players, seed, steps)
    deal = match.deal
    seat = data.draw(st.integers(0, players - 1))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    before = deal.observation(seat)
    for _ in range(3):
        changed = redeal_hidden(deal, seat, rng)
        assert changed.observation(seat) == before


def test_the_redeal_really_moves_hidden_cards() -> None:
    """Guard the test above: the redistribution changes what the other seats hold."""
    match = play_to_random_point(Rules(), 3, 11, 30)
    deal = match.deal
    rng = random.Random(3)
    moved = any(redeal_hidden(deal, 0, rng).hand(1) != deal.hand(1) for _ in range(5))
    assert moved


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_an_observation_shows_only_visible_cards(preset: str) -> None:
    rules = PRESETS[preset]
    known_cards = 0
    for seed in range(30):
        match = play_to_random_point(rules, 3, seed, 5 + seed * 7)
        deal = match.deal
        # What each seat took face up from the discard pile and has not played since, from the history.
        drawn, known = known_from_history(deal)
        for seat in range(3):
            observation = match.observation(seat)
            assert list(observation.hand) == deal.hand(seat)
            assert observation.stock_size == len(deal.stock)
            assert list(observation.discard_pile) == deal.discard_pile
            assert observation.hand_sizes == tuple(deal.hand_size(s) for s in range(3))
            if deal.phase is not Phase.OVER:
                assert observation.revealed == ()
            # Every card in ``taken`` was the top of the discard pile when that seat drew from it.
            assert len(observation.taken) == 3
            for s, taken in enumerate(observation.taken):
                assert Counter(taken) <= Counter(drawn[s])
                assert list(taken) == known[s]
        known_cards += sum(map(len, known))
    assert known_cards >= 10


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_taken_follows_the_history_of_whole_deals(preset: str) -> None:
    """At every action of finished deals, showdowns included, ``taken`` is what the history shows."""
    rules = PRESETS[preset]
    phases: set[Phase] = set()
    for seed in range(8):
        match = play_to_random_point(rules, 3, seed, 300)
        for deal in match.deals[:-1]:
            for replay, drawn, known in replay_taken(deal):
                phases.add(replay.phase)
                for seat in range(3):
                    taken = replay.observation(seat).taken
                    assert [list(cards) for cards in taken] == known
                    assert all(Counter(cards) <= Counter(drawn[s]) for s, cards in enumerate(taken))
    # Without lay-offs a close ends the deal at once.
    assert phases == set(Phase) - (set() if rules.layoffs else {Phase.SHOWDOWN})


def test_others_see_a_close_without_its_face_down_card() -> None:
    from chinchon.cards import parse_cards
    from chinchon.deal import stack_deck

    rules = Rules()
    hands = [parse_cards("3♥ 4♥ 5♥ 6♥ 7♣ 7♦ 7♠"), parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")]
    deal = Deal.new(rules, 2, deck=stack_deck(rules, hands, stock=[Card.parse("K♥")]))
    deal.apply(deal.legal_actions()[0])
    deal.apply(Close(Card.parse("K♥")))
    seen_by_other = deal.observation(1)
    assert (0, "close [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]") in seen_by_other.history
    assert all("K♥" not in text for _, text in seen_by_other.history)
    assert (0, "close K♥ [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]") in deal.observation(0).history


def test_a_face_down_card_taken_from_the_pile_does_not_leave_taken_before_the_deal_is_over() -> None:
    from chinchon.actions import Draw, LayOff, Pass
    from chinchon.cards import parse_cards
    from chinchon.deal import stack_deck

    rules = Rules()
    hands = [parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 2♣"), parse_cards("Q♦ Q♠ Q♣ J♦ J♠ K♦ K♠")]
    deck = stack_deck(rules, hands, discard=Card.parse("5♣"))
    seen = {}
    for face_down in ("5♣", "2♣"):
        deal = Deal.new(rules, 2, deck=deck)
        deal.apply(Draw("discard"))
        deal.apply(Close(Card.parse(face_down)))
        assert deal.phase is Phase.SHOWDOWN
        seen[face_down] = deal.observation(1)
        # Once the deal is over the hands are shown, and the face-down card is no longer held.
        while deal.phase is Phase.SHOWDOWN:
            actions = deal.legal_actions()
            deal.apply(next((a for a in actions if not isinstance(a, LayOff | Pass)), actions[-1]))
        assert deal.phase is Phase.OVER
        assert Card.parse(face_down) not in deal.observation(1).taken[0]
    # Which of the closer's two unmelded cards went face down is hidden from the other seat.
    assert seen["5♣"] == seen["2♣"]
    assert seen["5♣"].taken[0] == (Card.parse("5♣"),)


def test_match_observation_carries_the_match() -> None:
    match = Match(["Ana", "Bea", "Carla"], Rules(), seed=5, scores=[10, 20, 30])
    observation = match.observation(1)
    assert observation.scores == (10, 20, 30)
    assert observation.names == ("Ana", "Bea", "Carla")
    assert observation.active == (0, 1, 2)
    assert observation.dealer == match.dealer
    assert observation.to_move == match.to_move
    assert (observation.legal_actions != ()) == (match.to_move == 1)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_sampled_deal_agrees_with_the_observation(preset: str) -> None:
    from collections import Counter
    from dataclasses import replace

    rules = PRESETS[preset]
    rng = random.Random(preset)
    for seed in range(25):
        match = play_to_random_point(rules, 3, seed, rng.randrange(200))
        deal = match.deal
        if deal.phase not in (Phase.DRAW, Phase.DISCARD):
            continue
        seat = rng.randrange(3)
        observed = deal.observation(seat)
        sample = Deal.sample(observed, rng)
        assert replace(sample.observation(seat), history=()) == replace(observed, history=())
        every: Counter[Card] = Counter()
        for s in range(3):
            every.update(sample.hand(s))
        every.update(sample.stock)
        every.update(sample.discard_pile)
        assert every == Counter(rules.cards(decks=deal.decks))
        # The sample plays on like a real deal.
        for _ in range(30):
            moves = sample.moves()
            if not moves:
                break
            sample.play(rng.choice(moves))


def _history_afresh(deal: Deal, seat: int) -> tuple[tuple[int, str], ...]:
    """The history an observation shows, formatted from the deal's actions one by one."""
    from chinchon.observation import TableMeld

    out = []
    for who, action in deal.history:
        if isinstance(action, Close) and who != seat:
            out.append((who, " ".join(["close", *(str(TableMeld(who, m)) for m in action.melds or ())])))
        else:
            out.append((who, str(action)))
    return tuple(out)


def _discards_afresh(deal: Deal) -> list[tuple[int, Card]]:
    from chinchon.actions import Discard

    return [(who, action.card) for who, action in deal.history if isinstance(action, Discard)]


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_observations_keep_up_with_the_deal_and_its_copies(seed: int) -> None:
    rng = random.Random(seed)
    deal = Deal.new(Rules(), 3, rng=random.Random(seed))
    copies: list[Deal] = []
    while deal.phase is not Phase.OVER:
        for seat in range(3) if len(deal.history) % 5 == 0 else ():
            observed = deal.observation(seat)
            assert observed.history == _history_afresh(deal, seat)
            assert list(observed.discards) == _discards_afresh(deal)
        if len(deal.history) % 7 == 3:
            copies.append(deal.copy(history=len(copies) % 2 == 0))
        deal.apply(rng.choice(deal.legal_actions()))
    for copy in copies:
        while copy.phase is not Phase.OVER:
            copy.apply(rng.choice(copy.legal_actions()))
        for seat in range(3):
            assert copy.observation(seat).history == _history_afresh(copy, seat)
            assert list(copy.observation(seat).discards) == _discards_afresh(copy)
    for seat in range(3):
        assert deal.observation(seat).history == _history_afresh(deal, seat)
