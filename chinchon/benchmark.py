"""The engine's own speed: solver, random play, copies, search.

:func:`own_figures` measures each figure for about ``seconds`` and returns
``(name, value, unit)`` rows; ``chinchon bench`` prints each as :func:`measure_figures`
gives it. The play loops
(:func:`play_hand`, :func:`play_hand_fast`, :func:`play_match`) are the ones
``bench/peers.py`` times beside the peer engines: each seat closes whenever
it may and otherwise draws and discards at random.

Times are the CPU time of this process (:func:`time.process_time`), not the
wall clock, so that other work on the machine disturbs them less; each
measure runs for about ``seconds`` of it.

Pure standard library and ``chinchon``: nothing here needs the peers.
"""

from __future__ import annotations

import random
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from functools import partial

from chinchon.actions import Action, Close, Discard, Draw
from chinchon.bots.ismcts import IsmctsBot
from chinchon.cards import Card
from chinchon.deal import CLOSE, Deal
from chinchon.i18n import _
from chinchon.match import Match
from chinchon.melds import best_arrangement, best_discard, closing_options, loose_points
from chinchon.observation import Phase
from chinchon.rules import Rules

__all__ = [
    "MEASURES",
    "Figure",
    "copy_bytes",
    "discard_observation",
    "ismcts_rate",
    "loop_floor",
    "measure_figures",
    "own_figures",
    "play_hand",
    "play_hand_fast",
    "play_match",
    "rate",
    "solver_us",
]

Figure = tuple[str, float, str]
"""One measurement: its name, its value and its unit, in the current language."""


def play_hand(rules: Rules, players: int, rng: random.Random) -> int:
    """One random hand through the public API (``legal_actions``/``apply``); the number of actions.

    A seat closes when it may (the last legal action is a ``Close``),
    otherwise it plays a random legal action.
    """
    return _random_play(Deal.new(rules, players, rng=rng), rng)


def _random_play(deal: Deal | _StubDeal, rng: random.Random) -> int:
    """Play a deal out at random through ``legal_actions``/``apply``, closing when possible; the number of actions.

    The loop of :func:`play_hand`, shared with :func:`loop_floor` so that the floor times the very same loop.
    """
    actions = 0
    over, showdown = Phase.OVER, Phase.SHOWDOWN
    while deal.phase is not over:
        legal = deal.legal_actions()
        last = legal[-1]
        deal.apply(last if isinstance(last, Close) else rng.choice(legal))
        if deal.phase is showdown:
            deal.resolve_showdown()
        actions += 1
    return actions


def play_hand_fast(rules: Rules, players: int, rng: random.Random) -> int:
    """The same hand through the integer fast path (``moves``/``play``); the number of moves.

    Moves from ``CLOSE`` up are closes: the first of them is played when
    there is one, otherwise a random move.
    """
    deal = Deal.new(rules, players, rng=rng)
    actions = 0
    choice = rng.choice
    over, showdown = Phase.OVER, Phase.SHOWDOWN
    while True:
        phase = deal.phase
        if phase is over:
            return actions
        if phase is showdown:
            deal.resolve_showdown()
            continue
        moves = deal.moves()
        move = moves[-1]
        if move >= CLOSE:
            for move in moves:
                if move >= CLOSE:
                    break
        else:
            move = choice(moves)
        deal.play(move)
        actions += 1


def play_match(rules: Rules, players: int, rng: random.Random, seed: int) -> int:
    """One random match through the public API; the number of actions."""
    match = Match(players, rules, seed=seed)
    actions = 0
    while not match.over:
        legal = match.legal_actions()
        last = legal[-1]
        match.apply(last if isinstance(last, Close) else rng.choice(legal))
        actions += 1
    return actions


def rate(seconds: float, run: Callable[[], int]) -> tuple[float, float, int]:
    """Call ``run`` for about ``seconds``: (calls per second, units per second, calls).

    ``run`` returns how many units (actions, say) one call did.
    """
    count = units = 0
    clock = time.process_time
    start = clock()
    while True:
        units += run()
        count += 1
        elapsed = clock() - start
        if elapsed >= seconds:
            return count / elapsed, units / elapsed, count


def solver_us(
    function: Callable[[Sequence[Card], Rules], object],
    size: int,
    rules: Rules,
    rng: random.Random,
    seconds: float,
) -> float:
    """Microseconds per call of a solver function on random hands of ``size`` cards.

    Hands are dealt in batches outside the timing; each is solved once, after
    a short warm-up.
    """
    deck = rules.cards()
    for _warm in range(200):
        function(rng.sample(deck, size), rules)
    clock = time.process_time_ns
    spent = calls = 0
    budget = int(seconds * 1e9)
    while spent < budget:
        hands = [rng.sample(deck, size) for _ in range(500)]
        start = clock()
        for hand in hands:
            function(hand, rules)
        spent += clock() - start
        calls += len(hands)
    return spent / calls / 1000


RANDOM_HAND_ACTIONS = 252
"""The mean number of actions of a random 2-player hand (fournier rules, closing when possible): 252 ± 3 over
8,000 seeded hands of :func:`play_hand_fast`."""


class _StubDeal:
    """A deal that does nothing: it offers a draw and a discard decision in turn and ends after ``length`` actions."""

    __slots__ = ("_left", "_offers", "phase")

    def __init__(self, length: int, offers: tuple[list[Action], list[Action]]) -> None:
        self._left = length
        self._offers = offers
        self.phase = Phase.DRAW

    def legal_actions(self) -> list[Action]:
        return self._offers[self._left & 1]

    def apply(self, action: Action) -> None:
        self._left -= 1
        if not self._left:
            self.phase = Phase.OVER

    def resolve_showdown(self) -> None:
        """Never called: the stub has no showdown."""


def loop_floor(rng: random.Random, length: int = RANDOM_HAND_ACTIONS) -> int:
    """The loop of :func:`play_hand` against a do-nothing deal of ``length`` actions; the number of actions.

    Offers alternate between the two draws and eight discards, the sizes of a
    real hand's decisions. Its rate is the most hands per second that the
    loop, the method calls and ``random.choice`` allow, whatever the engine.
    """
    cards = Rules().cards()[:8]
    return _random_play(_StubDeal(length, ([Draw("stock"), Draw("discard")], [Discard(card) for card in cards])), rng)


def _midgame(rules: Rules, players: int, seed: int, actions: int) -> Deal:
    """A deal after ``actions`` random actions (or fewer, if it ends sooner: then a fresh one)."""
    rng = random.Random(seed)
    while True:
        deal = Deal.new(rules, players, rng=rng)
        for _step in range(actions):
            if deal.phase is not Phase.DRAW and deal.phase is not Phase.DISCARD:
                break
            legal = deal.legal_actions()
            choices = [a for a in legal if not isinstance(a, Close)] or legal
            deal.apply(rng.choice(choices))
        if deal.phase in (Phase.DRAW, Phase.DISCARD):
            return deal


def copy_bytes(deal: Deal, history: bool = True, copies: int = 200) -> float:
    """Bytes allocated per ``deal.copy(history)``, measured with :mod:`tracemalloc`."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        deal.copy(history)  # any lazy tables are built before the measure
        before = tracemalloc.get_traced_memory()[0]
        kept = [deal.copy(history) for _ in range(copies)]
        after = tracemalloc.get_traced_memory()[0]
        del kept
    finally:
        if not was_tracing:
            tracemalloc.stop()
    # The list holding the copies is counted too: take off its share.
    return (after - before) / copies - 8


def discard_observation(players: int, seed: int) -> tuple[Match, int]:
    """A match at its first discard decision (the seat to move drew from the stock)."""
    match = Match(players, seed=seed)
    seat = match.to_move
    assert seat is not None
    match.apply(Draw("stock"))
    return match, seat


def ismcts_rate(seconds: float, iterations: int = 300, seed: int = 2026) -> tuple[float, int]:
    """ISMCTS iterations per second on discard decisions of fresh 2-player matches: (rate, searches)."""
    bot = IsmctsBot(iterations=iterations)
    rng = random.Random(seed)
    spent = 0.0
    done = searches = 0
    clock = time.process_time
    while spent < seconds:
        match, seat = discard_observation(2, seed + searches)
        observation = match.observation(seat)
        start = clock()
        bot.search(observation, rng)
        spent += clock() - start
        done += bot.last_iterations
        searches += 1
    return done / spent, searches


MEASURES = 12
"""How many measures :func:`measure_figures` takes, each for about ``seconds`` (a measure may give two figures)."""


def own_figures(seconds: float = 2.0) -> list[Figure]:
    """Our own speed, each figure measured for about ``seconds``: ``(name, value, unit)`` rows."""
    return list(measure_figures(seconds))


def measure_figures(seconds: float = 2.0) -> Iterator[Figure]:
    """The figures of :func:`own_figures`, each as soon as it is measured."""
    rules = Rules()
    rng = random.Random(2026)
    for name, function, size in (
        ("best_arrangement", best_arrangement, 7),
        ("best_discard", best_discard, 8),
        ("closing_options", closing_options, 8),
        ("loose_points", loose_points, 7),
    ):
        yield (
            _("solver: {function}, {size} cards").format(function=name, size=size),
            solver_us(function, size, rules, rng, seconds),
            _("µs/hand"),
        )
    hands_unit, actions_unit = _("hands/s"), _("actions/s")
    for players in (2, 4):
        hands, actions, _count = rate(seconds, partial(play_hand, rules, players, rng))
        label = _("random play, {players} players ({api})").format(players=players, api="legal_actions/apply")
        yield (label, hands, hands_unit)
        yield (label, actions, actions_unit)
    hands, actions, _count = rate(seconds, lambda: play_hand_fast(rules, 2, rng))
    label = _("random play, {players} players ({api})").format(players=2, api="moves/play")
    yield (label, hands, hands_unit)
    yield (label, actions, actions_unit)
    hands, actions, _count = rate(seconds, partial(loop_floor, rng))
    floor = _("loop floor: the public-API loop, a do-nothing deal, {actions} actions a hand").format(
        actions=RANDOM_HAND_ACTIONS
    )
    yield (floor, hands, hands_unit)
    yield (floor, actions, actions_unit)
    seeds = iter(range(1 << 62))
    matches, _per_second, _runs = rate(seconds, lambda: play_match(rules, 2, rng, next(seeds)))
    yield (_("random play, 2-player matches"), matches, _("matches/s"))
    deal = _midgame(rules, 2, 2026, 40)
    for history in (True, False):

        def copy(history: bool = history) -> int:
            for _copy in range(100):
                deal.copy(history)
            return 100

        _hands, copies, _count = rate(seconds, copy)
        call = "Deal.copy()" if history else "Deal.copy(history=False)"
        label = _("{call}, 2 players, {actions} actions in").format(call=call, actions=40)
        yield (label, copies, _("copies/s"))
        yield (label, copy_bytes(deal, history), _("bytes/copy"))
    iterations, _searches = ismcts_rate(seconds)
    yield (
        _("ismcts search ({iterations} iterations, 2 players)").format(iterations=300),
        iterations,
        _("iterations/s"),
    )
