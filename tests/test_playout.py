"""The bots' search helpers: sampled deals shaped by the others' play."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import pytest

from chinchon import Rules
from chinchon.actions import Close, Discard, Draw
from chinchon.bots import make_bot
from chinchon.bots.greedy import GreedyBot, completing_pairs
from chinchon.bots.playout import passed_cards, playout_move, sample_deal
from chinchon.cards import Card, parse_cards
from chinchon.deal import CLOSE, Deal, stack_deck
from chinchon.match import Match
from chinchon.melds import best_arrangement, best_discard, solver_for
from chinchon.observation import Observation, Phase
from tests.scripts import load_script


def _observed(rules: Rules, seed: int, players: int = 2) -> tuple[Deal, Observation] | None:
    """A deal some turns in, played by ``simple`` bots, and the observation of the seat to move."""
    rng = random.Random(seed)
    deal = Deal.new(rules, players, rng=random.Random(seed))
    bot = make_bot("simple")
    for _ in range(rng.randrange(6, 14)):
        if deal.phase not in (Phase.DRAW, Phase.DISCARD):
            return None
        seat = deal.to_move
        assert seat is not None
        deal.apply(bot.choose(deal.observation(seat), deal.legal_actions(), rng))
    if deal.phase not in (Phase.DRAW, Phase.DISCARD):
        return None
    seat = deal.to_move
    assert seat is not None
    return deal, deal.observation(seat)


def _fits(observation: Observation, sample: Deal, seat: int) -> bool:
    """Whether the seat's sampled hand fits its play: loose cards no dearer than its last discard, no close."""
    rules = observation.rules
    last = [card for s, card in observation.discards if s == seat][-1]
    hand = sample.hand(seat)
    loose = best_arrangement(hand, rules).loose
    closes = best_discard([*hand, last], rules).points <= rules.close_limit
    return max((rules.value(c) for c in loose), default=0) <= rules.value(last) and not closes


@pytest.mark.parametrize("players", [2, 3])
def test_a_sampled_deal_keeps_what_the_seat_knows(players: int) -> None:
    rules = Rules()
    checked = 0
    for seed in range(30):
        found = _observed(rules, seed, players)
        if found is None:
            continue
        _, observation = found
        sample = sample_deal(observation, random.Random(seed))
        again = sample.observation(observation.seat)
        assert again.hand == observation.hand
        assert again.discard_pile == observation.discard_pile
        assert again.taken == observation.taken
        assert again.hand_sizes == observation.hand_sizes
        assert again.stock_size == observation.stock_size
        cards: Counter[Card] = Counter(sample.stock)
        cards.update(sample.discard_pile)
        for seat in range(players):
            cards.update(sample.hand(seat))
            assert Counter(observation.taken[seat]) <= Counter(sample.hand(seat))
        assert cards == Counter(rules.cards())
        checked += 1
    assert checked >= 15


def _two_player_positions(rules: Rules, seeds: int) -> Iterator[tuple[int, Observation, int]]:
    """(seed, observation of the seat to move, the other seat) for the seeds that give a position."""
    for seed in range(seeds):
        found = _observed(rules, seed)
        if found is not None:
            observation = found[1]
            yield seed, observation, 1 - observation.seat


def test_sampled_hands_fit_the_others_play_where_uniform_ones_do_not() -> None:
    rules = Rules()
    shaped = uniform = total = 0
    for seed, observation, other in _two_player_positions(rules, 60):
        if not any(s == other for s, _ in observation.discards):
            continue
        for k in range(4):
            shaped += _fits(observation, sample_deal(observation, random.Random(seed * 10 + k)), other)
            uniform += _fits(observation, Deal.sample(observation, random.Random(seed * 10 + k)), other)
            total += 1
    assert total >= 100
    assert shaped >= 0.9 * total
    assert uniform <= 0.6 * total


@pytest.mark.parametrize("players", [2, 3, 4])
def test_passed_cards_are_the_tops_each_seat_left_for_the_stock(players: int) -> None:
    rules = Rules.preset("fournier")
    bot = make_bot("simple")
    checked = reshuffled = 0
    for seed in range(12):
        rng = random.Random(seed)
        deal = Deal.new(rules, players, rng=random.Random(seed))
        upcard = deal.discard_pile[0]
        buried = False
        # What each seat passed, with whether it was the turned-up card still alone on the pile: that
        # one is unknown to a seat once the pile is reshuffled into the stock.
        truth: dict[int, list[tuple[Card, bool]]] = {}
        while deal.phase in (Phase.DRAW, Phase.DISCARD):
            seat = deal.to_move
            assert seat is not None
            action = bot.choose(deal.observation(seat), deal.legal_actions(), rng)
            pile = deal.discard_pile
            first = not buried and not deal.reshuffles and pile == [upcard]
            if action == Draw("stock") and pile:
                truth.setdefault(seat, []).append((pile[-1], first))
            elif action == Draw("discard") and first:
                buried = True
            deal.apply(action)
            if deal.phase not in (Phase.DRAW, Phase.DISCARD) or deal.to_move is None:
                break
            observed = passed_cards(deal.observation(deal.to_move))
            if deal.reshuffles:
                known = {s: [card for card, first in cards if not first] for s, cards in truth.items()}
                assert observed == {s: cards for s, cards in known.items() if cards}
            else:
                assert observed == {s: [card for card, _ in cards] for s, cards in truth.items()}
            checked += 1
        reshuffled += bool(deal.reshuffles)
    assert checked >= 100
    assert reshuffled >= (players > 2)


@pytest.mark.parametrize("which", ["passes", "thrown"])
def test_sampled_hands_meld_with_no_card_the_seat_passed_or_threw(which: str) -> None:
    rules = Rules()
    kept = plain = total = 0
    for seed, observation, other in _two_player_positions(rules, 60):
        if which == "passes":
            cards = passed_cards(observation).get(other, [])[-4:]
        else:
            cards = [card for seat, card in observation.discards if seat == other][-4:]
        if not cards:
            continue
        pairs = [pair for card in cards for pair in completing_pairs(card, rules)]
        only: dict[str, Any] = {which: 4}
        for k in range(4):
            hand = set(sample_deal(observation, random.Random(seed * 10 + k), **only).hand(other))
            kept += any(all(c in hand for c in pair) for pair in pairs)
            hand = set(sample_deal(observation, random.Random(seed * 10 + k)).hand(other))
            plain += any(all(c in hand for c in pair) for pair in pairs)
            total += 1
    assert total >= 100
    assert plain >= 0.1 * total
    assert kept <= 0.02 * total


@pytest.mark.parametrize(
    "rules", [Rules.preset("online", jokers=2), Rules.preset("polaco", decks=2), Rules(wild_ace_of_oros=True)]
)
def test_with_wild_cards_or_two_decks_the_sample_is_plain(rules: Rules) -> None:
    for seed in range(10):
        found = _observed(rules, seed)
        if found is None:
            continue
        _, observation = found
        sample = sample_deal(observation, random.Random(seed))
        plain = Deal.sample(observation, random.Random(seed))
        assert [sample.hand(s) for s in range(2)] == [plain.hand(s) for s in range(2)]
        assert sample.stock == plain.stock


def _study(name: str = "decision_study") -> ModuleType:
    return load_script(name)


@pytest.mark.parametrize("decision", ["close", "draw", "discard"])
def test_the_decision_study_judges_greedys_decisions(decision: str) -> None:
    study = _study()
    job = study.Job(decision, "shaped", "greedy", 1, "t:0", 6)
    differences, groups = study._run(job)
    assert len(differences) == 12  # six boards, both seatings
    assert groups, "greedy made no decision of this kind in twelve deals"
    for features, gain, _ in groups:
        assert features and all(isinstance(f, str) for f in features)
        assert -200 < gain < 200
    # Following greedy plays greedy's own choices: the deals end as they do without the study.
    again = study._run(study.Job(decision, "uniform", "greedy", 2, "t:0", 6))[0]
    assert again == differences


@pytest.mark.parametrize("boards", ["5", "12", "0"])
def test_the_decision_study_refuses_boards_it_cannot_split(boards: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        _study().main(["--boards", boards])
    assert stopped.value.code == 2
    assert f"--boards must be a positive multiple of 8 (the boards are split in 8 parts), not {boards}" in (
        capsys.readouterr().err
    )


def test_the_departure_study_finds_no_departure_in_greedy_itself() -> None:
    study = _study("departure_study")
    tally = study._run(study.Job("greedy", "simple", 1, range(4), 2))
    assert tally.decisions > 10
    assert tally.gains == []


def test_the_departure_study_judges_a_searching_bot_the_same_for_a_seed() -> None:
    study = _study("departure_study")
    job = study.Job("ismcts:iterations=12,paired=true,anchor=0.001", "greedy", 3, range(3), 2)
    first = study._run(job)
    assert first.gains, "no departure from greedy with almost no anchor"
    assert all(-150 < gain < 150 for gain in first.gains)
    assert study._run(job) == first


def test_the_departure_study_finds_random_departures_costly(capsys: pytest.CaptureFixture[str]) -> None:
    study = _study("departure_study")
    study.main(["--bot", "random", "--opponent", "simple", "--deals", "3", "--continuations", "2", "--jobs", "1"])
    line = capsys.readouterr().out
    match = re.search(r"(\d+) departures from greedy .* gain per departure ([-+][\d.]+)", line)
    assert match, line
    assert int(match.group(1)) >= 5
    assert float(match.group(2)) < 0


def test_the_decision_study_judges_a_wait_against_the_close_greedy_would_make() -> None:
    study = _study()
    rules = Rules()
    hands = [parse_cards("3♥ 4♥ 5♥ 6♥ 7♣ 7♦ 7♠"), parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")]
    match = Match(2, rules, first=0, decks=[stack_deck(rules, hands, stock=[Card.parse("K♥")])])
    match.apply(Draw("stock"))
    observation = match.observation(0)
    legal = list(match.legal_actions())
    wait = Discard(Card.parse("3♥"))
    options = study._options("close", GreedyBot(), observation, legal, wait, random.Random(1))
    assert options is not None
    (close, waited), _ = options
    assert isinstance(close, Close) and close.discard == Card.parse("K♥")
    assert waited == wait


@pytest.mark.parametrize("preset", Rules.presets())
def test_the_fast_discard_is_the_one_the_general_solver_chooses(preset: str) -> None:
    rules = Rules.preset(preset)
    solver = solver_for(rules)
    natural = [card for card in rules.cards(decks=1) if not rules.is_wild(card)]
    rng = random.Random(preset)
    for _ in range(3000):
        mask = solver.single_mask(rng.sample(natural, rng.randrange(2, 10)))
        assert solver.discard_kind_single(mask) == solver.best_discard_key(mask, 0, 0)[1]
        # A second call answers from the cache, and must agree too.
        assert solver.discard_kind_single(mask) == solver.best_discard_key(mask, 0, 0)[1]


def _playout_positions(rules: Rules, deals: int) -> Iterator[tuple[Deal, list[int], int]]:
    """The positions of seeded playouts of the fast policy, 2 to 4 players: the deal, its moves, the policy's move.

    The move is played when the caller asks for the next position.
    """
    for players in range(2, min(4, rules.max_players) + 1):
        for k in range(deals):
            deal = Deal.new(rules, players, rng=random.Random(k))
            for _ in range(300):
                if deal.phase not in (Phase.DRAW, Phase.DISCARD):
                    break
                moves = deal.moves()
                move = playout_move(deal, moves)
                yield deal, moves, move
                deal.play(move)


@pytest.mark.parametrize("preset", Rules.presets())
def test_the_playout_policy_discards_what_the_general_solver_chooses(preset: str) -> None:
    checked = 0
    for deal, moves, move in _playout_positions(Rules.preset(preset), 12):
        if deal.phase is Phase.DISCARD and all(m < CLOSE for m in moves):
            seat = deal.to_move
            assert seat is not None
            kind = deal.tables.solver.best_discard_key(*deal.masks(seat))[1]
            if kind < 0:
                kind = deal.tables.joker if deal.held(seat)[2] else 0
            assert move == (kind if kind in moves else moves[-1])
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("preset", Rules.presets())
def test_a_playout_ends_at_a_close_with_the_rewards_of_playing_it(preset: str) -> None:
    from chinchon.bots.ismcts import IsmctsBot, _close_points, _rewards, _shares

    rules = Rules.preset(preset)
    bot = IsmctsBot(horizon=300)
    counted = fast = 0
    for deal, moves, _ in _playout_positions(rules, 40):
        for close in (m for m in moves if m >= CLOSE):
            played = deal.copy(history=False)
            played.play(close)
            expected = _rewards(played)
            points = _close_points(deal, close)
            if points is not None:
                assert _shares(deal, points) == expected
                fast += 1
            assert bot._play_out(deal.copy(history=False), close) == expected
            counted += 1
    assert counted > 50
    # The fast end serves every close of distinct natural cards under rules with lay-offs.
    assert fast > 0 if rules.layoffs else fast == 0


def _positions_with_taken_cards(rules: Rules, players: int, deals: int) -> Iterator[tuple[Deal, Observation, int]]:
    """Discard decisions of ``greedy`` players at which another seat holds cards it took from the pile."""
    for seed in range(deals):
        deal = Deal.new(rules, players, first=0, rng=random.Random(seed))
        bots = [make_bot("greedy") for _ in range(players)]
        rng = random.Random(seed)
        while deal.phase is not Phase.OVER and len(deal.history) < 300:
            seat = deal.to_move
            assert seat is not None
            observation = deal.observation(seat)
            if observation.phase is Phase.DISCARD:
                for other in range(players):
                    if other != seat and observation.taken[other]:
                        yield deal, observation, other
            deal.apply(bots[seat].choose(observation, deal.legal_actions(), rng))


@pytest.mark.parametrize("players", [2, 3])
def test_with_taken_the_cards_a_seat_took_are_melded_in_its_sampled_hand(players: int) -> None:
    rules = Rules.preset("fournier")

    def melded(hand: Sequence[Card], cards: Sequence[Card]) -> bool:
        melds = best_arrangement(list(hand), rules).melds
        return all(any(card in meld for meld in melds) for card in cards)

    kept = plain = total = 0
    for k, (deal, observation, other) in enumerate(_positions_with_taken_cards(rules, players, 40)):
        # The premise: greedy takes a discard only to meld it, and keeps the meld.
        assert melded(deal.hand(other), observation.taken[other])
        kept += melded(sample_deal(observation, random.Random(k), taken=True).hand(other), observation.taken[other])
        plain += melded(sample_deal(observation, random.Random(k)).hand(other), observation.taken[other])
        total += 1
    assert total >= 100
    assert plain <= 0.8 * total
    assert kept >= 0.9 * total
