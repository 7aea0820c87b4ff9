"""Every decision of a seat rated by the search: the analysis of a recorded match.

For each decision of one seat (the pile to draw from, the card to discard,
whether and how to close, what to show and lay off, whether to re-enter)
the analysis gives the action played, the best action found, and what the
difference cost, judged from what the seat could know when it decided: its
:class:`~chinchon.observation.Observation`, the hidden cards dealt again as
the search bots deal them (:func:`chinchon.bots.playout.sample_deal`), never
the true hands. A second column says what hindsight shows: the same
playouts on the true cards, the showdown played by the engine.

**How a decision is judged.** A draw and a discard (or close) are judged by
paired playouts: on each sampled deal every candidate move is played, then
every seat plays :func:`~chinchon.bots.playout.playout_move` to the end of
the deal, which is counted as the search bots count it
(:func:`~chinchon.bots.ismcts.playout_points`). A move's value in a deal is
the seat's *margin*: the others' mean points less its own (the deal's
points decide the match; a higher margin is better). The candidates are
both draws; after drawing, every close, the ``width`` discards the
``greedy`` bot likes best, and the move played. The cost of a decision is
the mean gain in margin of the best candidate over the move played, when
that gain is more than :data:`Z` standard errors above nothing; otherwise
the move played is taken as best and costs nothing. Candidates that are
clearly not the best are dropped from the playouts as they go.

**Exact decisions.** What the solver settles is not estimated: a close that
leaves the closer more points than another close of the same hand (where the
others cannot do better against the better close: no lay-offs, or the better
close matched all 7 and takes none), a show or a lay-off (or a pass) that
leaves the seat more loose points than another choice
(:func:`~chinchon.bots.showdown.own_showdown_points`: the seat's own moves,
counting on nothing from the others). Their cost is the exact difference in
the seat's own points, and any such cost is at least a mistake.

**The match.** Where a seat may go over the limit in the deal (some playout
puts a total past it), each outcome is also valued by the seat's chance to
win the match from the totals it leaves (:func:`~chinchon.bots.odds.win_chances`),
and the decision has a cost in that chance too; the best move is then the one
with the best chance. Re-entry is judged by
:func:`~chinchon.bots.greedy.reentry_gain`.

**Marks.** A decision is ``best``, an ``inaccuracy``, a ``mistake`` or a
``blunder`` by its cost in points (:data:`POINT_MARKS`) or, where the match
is at stake, in chance (:data:`CHANCE_MARKS`), whichever is worse.

**Determinism and budget.** Each decision's playouts come from a random
source seeded by the analysis seed and the decision's number, so the
analysis is the same for a seed however its work is split (``jobs``, a
Dask cluster); the budget is ``playouts`` a decision (a playout is one
candidate played out on one sampled deal), not time. ``seconds`` caps each decision's time on top; an analysis that hits
that cap may differ from run to run, and says so.

>>> from chinchon import Match, Rules
>>> from chinchon.bots import make_bot
>>> import random
>>> match = Match(["Ana", "Bea"], Rules.preset("fournier", limit=10), seed=3)
>>> bots, rng = [make_bot("simple"), make_bot("greedy")], random.Random(3)
>>> while not match.over:
...     seat = match.to_move
...     match.apply(bots[seat].choose(match.observation(seat), match.legal_actions(), rng))
>>> analysis = analyse(match.record(), seat=0, settings=Settings(playouts=40))
>>> analysis.decisions[0].mark in MARKS, analysis.summary()["decisions"] == len(analysis.decisions)
(True, True)
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from chinchon.actions import Action, Close, Discard, Draw, LayOff, Pass, ReEnter, Show, parse_action
from chinchon.bots.greedy import GreedyBot, reentry_gain, unseen_cards
from chinchon.bots.ismcts import playout_points
from chinchon.bots.odds import headroom, win_chances
from chinchon.bots.playout import sample_deal
from chinchon.bots.showdown import own_showdown_points
from chinchon.cards import Card
from chinchon.deal import CLOSE, MOVE_DISCARD_PILE, MOVE_STOCK, Deal
from chinchon.errors import N_, ChinchonError
from chinchon.i18n import _, for_terminal, is_rtl, ngettext, pgettext
from chinchon.match import Match
from chinchon.melds import best_arrangement, is_chinchon
from chinchon.observation import Observation, Phase
from chinchon.processes import worker_pool
from chinchon.record import RecordError
from chinchon.rules import Rules
from chinchon.tables import tables_for

__all__ = [
    "CHANCE_MARKS",
    "FORMAT",
    "KINDS",
    "MARKS",
    "PLAYOUTS",
    "POINT_MARKS",
    "VERSION",
    "WIDTH",
    "Analysis",
    "AnalysisError",
    "Candidate",
    "Decision",
    "Position",
    "Settings",
    "Unit",
    "Z",
    "action_text",
    "analyse",
    "analyse_many",
    "analyse_position",
    "assemble",
    "closer_points",
    "mark_for",
    "mark_text",
    "plan",
    "positions",
    "print_analysis",
    "run_unit",
]

FORMAT = "chinchon-analysis"
"""The ``format`` field of an analysis document."""
VERSION = 1
"""The ``version`` field of an analysis document."""
PLAYOUTS = 300
"""The default budget: playouts (one candidate move played out on one sampled deal) a decision."""
WIDTH = 3
"""How many of the ``greedy`` bot's favourite discards are candidates, besides every close and the move played."""
Z = 2.0
"""How many standard errors a gain must clear to count: below it, the move played is as good as the search can tell."""
MARKS = ("best", "inaccuracy", "mistake", "blunder")
"""The marks, from the best to the worst."""
POINT_MARKS: tuple[tuple[str, float], ...] = (("inaccuracy", 1.0), ("mistake", 3.0), ("blunder", 6.0))
"""A cost in points of the deal from which each mark starts (a cost below the first is ``best``)."""
CHANCE_MARKS: tuple[tuple[str, float], ...] = (("inaccuracy", 0.02), ("mistake", 0.05), ("blunder", 0.10))
"""A cost in the chance to win the match (0 to 1) from which each mark starts, where the match is at stake."""
KINDS = ("draw", "discard", "close", "show", "layoff", "pass", "reentry")
"""The kinds of decision, named by the action played."""

_PRUNE_FROM = 16
_PRUNE_EVERY = 8


class AnalysisError(ChinchonError):
    """An analysis that cannot be made: a seat not in the match, a bad budget; the message says which."""


@dataclass(frozen=True)
class Settings:
    """How hard the analysis looks: ``playouts`` a decision, at most ``seconds`` a decision (0: no cap),
    ``width`` of ``greedy``'s discards among the candidates, and the ``seed`` of its random sources."""

    playouts: int = PLAYOUTS
    seconds: float = 0.0
    seed: int = 1
    width: int = WIDTH

    def check(self) -> None:
        """Raise :class:`AnalysisError` naming the first setting out of range."""
        if isinstance(self.playouts, bool) or not isinstance(self.playouts, int) or self.playouts < 1:
            raise AnalysisError(N_("playouts: expected a whole number of at least 1, got {value}"), value=self.playouts)
        if not isinstance(self.seconds, int | float) or not 0 <= self.seconds < math.inf:
            raise AnalysisError(
                N_("budget: expected a number of seconds of 0 or more, got {value}"), value=self.seconds
            )
        if isinstance(self.width, bool) or not isinstance(self.width, int) or self.width < 0:
            raise AnalysisError(N_("width: expected a whole number of 0 or more, got {value}"), value=self.width)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise AnalysisError(N_("seed: expected a whole number, got {value}"), value=self.seed)


@dataclass(frozen=True)
class Candidate:
    """A move weighed for a decision: its ``gain`` in points over the move played (positive: better),
    the gain's standard error (``None`` when exact), the sampled deals it was played on (0 when exact),
    and its gain in the chance to win the match where the match is at stake."""

    action: str
    gain: float
    error: float | None = None
    deals: int = 0
    chance_gain: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The candidate as JSON."""
        return {
            "action": self.action,
            "gain": _round(self.gain),
            "error": _round(self.error),
            "deals": self.deals,
            "chance_gain": _round(self.chance_gain, 4),
        }


@dataclass(frozen=True)
class Decision:
    """One decision of the seat, rated.

    ``number`` is the action's number in the match (from 1, every seat's
    actions counted), ``event`` the number of the public event that tells it
    (:meth:`~chinchon.match.Match.events`); ``played`` and ``best`` are actions as text
    (:func:`~chinchon.actions.parse_action` reads them back); ``cost`` is in
    points of the deal (``None`` for a re-entry, which is judged by the
    match alone), with its standard ``error`` (``None`` when ``exact``);
    ``chance_cost`` is in the chance to win the match, where ``at_stake``.
    ``hindsight_best`` and ``hindsight_cost`` say what the same playouts
    show on the true cards (``None`` where not judged). ``top`` is the card
    on the discard pile at a draw (``None`` elsewhere).
    """

    number: int
    event: int
    deal: int
    turn: int
    seat: int
    kind: str
    played: str
    best: str
    cost: float | None
    error: float | None
    exact: bool
    at_stake: bool
    chance_cost: float | None
    mark: str
    deals: int
    candidates: tuple[Candidate, ...] = ()
    hindsight_best: str | None = None
    hindsight_cost: float | None = None
    top: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON."""
        return {
            "number": self.number,
            "event": self.event,
            "deal": self.deal,
            "turn": self.turn,
            "kind": self.kind,
            "played": self.played,
            "best": self.best,
            "mark": self.mark,
            "cost": _round(self.cost),
            "error": _round(self.error),
            "exact": self.exact,
            "at_stake": self.at_stake,
            "chance_cost": _round(self.chance_cost, 4),
            "deals": self.deals,
            "top": self.top,
            "candidates": [candidate.to_dict() for candidate in self.candidates],
            "hindsight": None
            if self.hindsight_best is None
            else {"best": self.hindsight_best, "cost": _round(self.hindsight_cost)},
        }


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits) + 0.0


def mark_for(cost: float | None, chance_cost: float | None = None, exact: bool = False) -> str:
    """The mark of a decision costing ``cost`` points (and ``chance_cost`` in the chance to win the match).

    >>> mark_for(0.4), mark_for(1.5), mark_for(4), mark_for(15)
    ('best', 'inaccuracy', 'mistake', 'blunder')
    >>> mark_for(0.5, exact=True), mark_for(0.0, 0.06)
    ('mistake', 'mistake')
    """
    level = 0
    for marks, value in ((POINT_MARKS, cost), (CHANCE_MARKS, chance_cost)):
        if value is None:
            continue
        for index, (_name, start) in enumerate(marks, 1):
            if value >= start - 1e-9:
                level = max(level, index)
    if exact and cost is not None and cost > 0:
        level = max(level, MARKS.index("mistake"))
    return MARKS[level]


# -- the positions of a record ----------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A decision as the seat met it: what it saw, what it could do, what it did; and the true deal, for hindsight."""

    number: int
    observation: Observation
    legal: tuple[Action, ...]
    played: Action
    truth: Deal | None = field(default=None, compare=False, repr=False)
    event: int = 0


def positions(record: Mapping[str, Any], seat: int) -> tuple[Match, list[Position]]:
    """The replayed match and every decision of ``seat`` in it (a choice among two or more legal actions).

    Raises:
        RecordError: the record is malformed or tampered with.
        AnalysisError: ``seat`` is not a seat of the match.
    """
    found: list[Position] = []
    count = itertools.count(1)

    def play(match: Match, action: Action, seat: Any) -> None:
        number = next(count)
        mover = match.to_move
        met: tuple[Observation, tuple[Action, ...], Deal | None] | None = None
        if mover == wanted and not match.over:
            legal = tuple(match.legal_actions())
            if len(legal) > 1:
                met = (match.observation(mover), legal, match.deal.copy() if not match.reentry_pending else None)
        before = len(match.events())
        match.apply(action, seat)
        if met is not None:
            # The action's own event: a draw may first tell that the stock was rebuilt.
            told = match.events(before)
            first = next((i for i, e in enumerate(told) if getattr(e, "seat", None) == mover), 0)
            found.append(Position(number, met[0], met[1], action, met[2], event=before + first + 1))

    wanted = seat
    seats = record.get("seats") if isinstance(record, Mapping) else None
    if isinstance(seats, list) and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats)):
        raise AnalysisError(
            N_("seat {seat} is not one of the {players} seats of the match"), seat=seat, players=len(seats)
        )
    match = Match.replay(record, play=play)
    return match, found


# -- judging one decision -------------------------------------------------------------------------


def analyse_position(position: Position, settings: Settings) -> Decision:
    """The rated decision of one position (see the module for how it is judged)."""
    rng = random.Random(f"chinchon-analysis:{settings.seed}:{position.number}")
    observation = position.observation
    if any(isinstance(action, ReEnter) for action in position.legal):
        return _reentry(position)
    if observation.phase is Phase.SHOWDOWN:
        return _showdown(position)
    if observation.phase is Phase.DISCARD:
        exact = _exact_close(position)
        if exact is not None:
            return exact
    return _searched(position, settings, rng)


def _kind(action: Action) -> str:
    if isinstance(action, Draw):
        return "draw"
    if isinstance(action, Discard):
        return "discard"
    if isinstance(action, Close):
        return "close"
    if isinstance(action, Show):
        return "show"
    if isinstance(action, LayOff):
        return "layoff"
    if isinstance(action, Pass):
        return "pass"
    return "reentry"


def _decision(position: Position, **fields: Any) -> Decision:
    observation = position.observation
    return Decision(
        number=position.number,
        event=position.event,
        deal=observation.deal_number,
        turn=observation.turn,
        seat=observation.seat,
        kind=_kind(position.played),
        played=str(position.played),
        top=str(observation.top_discard) if observation.phase is Phase.DRAW and observation.top_discard else None,
        **fields,
    )


def _reentry(position: Position) -> Decision:
    """Re-entry, judged by what re-entering is worth to the match (:func:`~chinchon.bots.greedy.reentry_gain`)."""
    observation = position.observation
    rules = observation.rules
    gain = reentry_gain(observation)
    if rules.stake:
        # The gain is in stakes: as a chance, a share of the pot.
        gain /= max(1, observation.pot + rules.stake)
    played = position.played
    assert isinstance(played, ReEnter)
    best = ReEnter(gain > 0) if gain != 0 else played
    chance_cost = abs(gain) if best != played else 0.0
    other = ReEnter(not played.accept)
    candidates = (Candidate(str(other), 0.0, None, 0, gain if other.accept else -gain),)
    return _decision(
        position,
        best=str(best),
        cost=None,
        error=None,
        exact=False,
        at_stake=True,
        chance_cost=chance_cost,
        mark=mark_for(None, chance_cost),
        deals=0,
        candidates=candidates,
    )


def _showdown(position: Position) -> Decision:
    """A show, a lay-off or a pass: settled exactly by the seat's own fewest loose points after it."""
    observation = position.observation
    points = own_showdown_points(observation)
    played_points = next((p for action, p in points if action == position.played), None)
    if played_points is None:
        played_points = max(p for _, p in points)
    best_action, best_points = min(points, key=lambda item: item[1])
    if best_points >= played_points:
        best_action, best_points = position.played, played_points
    cost = float(played_points - best_points)
    candidates = tuple(
        Candidate(str(action), float(played_points - p)) for action, p in points if action != position.played
    )
    hindsight_best, hindsight_cost = _showdown_hindsight(position)
    return _decision(
        position,
        best=str(best_action),
        cost=cost,
        error=None,
        exact=True,
        at_stake=False,
        chance_cost=None,
        mark=mark_for(cost, exact=True),
        deals=0,
        candidates=candidates,
        hindsight_best=hindsight_best,
        hindsight_cost=hindsight_cost,
    )


def _showdown_hindsight(position: Position) -> tuple[str | None, float | None]:
    """On the true cards, every seat then playing the engine's showdown: the seat's points after each choice."""
    truth = position.truth
    if truth is None:
        return None, None
    seat = position.observation.seat
    points: list[tuple[Action, int]] = []
    for action in position.legal:
        deal = truth.copy()
        deal.apply(action)
        deal.resolve_showdown()
        assert deal.result is not None
        points.append((action, deal.result.points[seat]))
    played = next(p for action, p in points if action == position.played)
    best_action, best = min(points, key=lambda item: item[1])
    if best >= played:
        best_action, best = position.played, played
    return str(best_action), float(played - best)


def closer_points(hand: Sequence[Card], close: Close, rules: Rules) -> int:
    """What a close adds to the closer's total (before any lay-off of its own): loose points, or the bonus."""
    rest = list(hand)
    rest.remove(close.discard)
    if close.melds is None:
        loose = list(best_arrangement(rest, rules).loose)
    else:
        left = Counter(rest)
        left.subtract(card for meld in close.melds for card in meld)
        loose = list(left.elements())
    if loose:
        return sum(rules.value(card) for card in loose)
    if is_chinchon(rest, rules) and isinstance(rules.chinchon, int) and not isinstance(rules.chinchon, bool):
        return rules.chinchon
    return rules.clean_close_bonus


def _exact_close(position: Position) -> Decision | None:
    """A close that leaves the closer more points than another close it had, where that settles it; else None."""
    played = position.played
    if not isinstance(played, Close):
        return None
    observation = position.observation
    rules = observation.rules
    if rules.closer_lays_off:
        return None
    hand = observation.hand
    closes = [action for action in position.legal if isinstance(action, Close)]
    mine = closer_points(hand, played, rules)
    scored = sorted(((closer_points(hand, close, rules), index) for index, close in enumerate(closes)))
    best_points, best_index = scored[0]
    best = closes[best_index]
    settled = not rules.layoffs or (_is_clean(hand, best, rules) and not rules.layoffs_on_clean_close)
    if best_points >= mine or not settled:
        return None
    cost = float(mine - best_points)
    candidates = tuple(
        Candidate(str(close), float(mine - closer_points(hand, close, rules))) for close in closes if close != played
    )
    hindsight = _hindsight(position, [_move_of(played, observation), _move_of(best, observation)])
    return _decision(
        position,
        best=str(best),
        cost=cost,
        error=None,
        exact=True,
        at_stake=False,
        chance_cost=None,
        mark=mark_for(cost, exact=True),
        deals=0,
        candidates=candidates,
        hindsight_best=hindsight[0],
        hindsight_cost=hindsight[1],
    )


def _is_clean(hand: Sequence[Card], close: Close, rules: Rules) -> bool:
    rest = list(hand)
    rest.remove(close.discard)
    if close.melds is None:
        return not best_arrangement(rest, rules).loose
    return sum(len(meld) for meld in close.melds) == len(rest)


def _move_of(action: Action, observation: Observation) -> int:
    """The fast path's move for a draw, a discard or a close (any arrangement of a close: its best)."""
    if isinstance(action, Draw):
        return MOVE_STOCK if action.source == "stock" else MOVE_DISCARD_PILE
    id_of = tables_for(observation.rules).id_of
    if isinstance(action, Discard):
        return id_of[action.card]
    assert isinstance(action, Close)
    return CLOSE + id_of[action.discard]


def _action_of(move: int, position: Position) -> Action:
    """The action a move stands for: for the move played, the action played; for a close, its best arrangement."""
    observation = position.observation
    if move == _move_of(position.played, observation):
        return position.played
    if move == MOVE_STOCK:
        return Draw("stock")
    if move == MOVE_DISCARD_PILE:
        return Draw("discard")
    card = tables_for(observation.rules).card_of[move % CLOSE]
    if move < CLOSE:
        return Discard(card)
    closes = [a for a in position.legal if isinstance(a, Close) and a.discard == card]
    rules = observation.rules
    return min(closes, key=lambda close: closer_points(observation.hand, close, rules)) if closes else Close(card)


def _candidates(position: Position, width: int) -> list[int]:
    """The moves weighed: the move played first, then both draws, or every close and greedy's best discards."""
    observation = position.observation
    played = _move_of(position.played, observation)
    moves = [played]
    legal = position.legal
    if observation.phase is Phase.DRAW:
        moves += [_move_of(action, observation) for action in legal if isinstance(action, Draw)]
    else:
        moves += sorted({_move_of(action, observation) for action in legal if isinstance(action, Close)})
        discards = [action for action in legal if isinstance(action, Discard)]
        if width and discards:
            ranked = GreedyBot().ranked_discards(observation, discards, unseen_cards(observation))
            moves += [_move_of(action, observation) for action in ranked[:width]]
    return list(dict.fromkeys(moves))


@functools.lru_cache(maxsize=1 << 16)
def _chances(totals: tuple[int, ...], rules: Rules) -> tuple[float, ...]:
    return tuple(win_chances(totals, rules))


class _Outcomes:
    """What one sampled deal gave each candidate: the seat's margin and, in a match, its chance to win it."""

    def __init__(self, observation: Observation) -> None:
        self.observation = observation
        self.seat = observation.seat
        self.seats = observation.seats
        self.others = [s for s in self.seats if s != self.seat]
        self.in_match = bool(observation.scores)
        self.at_stake = False

    def margin(self, points: Sequence[float]) -> float:
        others = sum(points[s] for s in self.others) / len(self.others) if self.others else 0.0
        return others - points[self.seat]

    def chance(self, points: Sequence[float]) -> float:
        observation = self.observation
        if not self.in_match:
            return 0.0
        rules = observation.rules
        floor = rules.score_floor
        totals = []
        for s in self.seats:
            total = observation.scores[s] + round(points[s])
            if floor is not None:
                total = max(floor, total)
            if headroom(total, rules) <= 0:
                self.at_stake = True
            totals.append(total)
        return _chances(tuple(totals), rules)[self.seats.index(self.seat)]


def _mean_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error."""
    count = len(values)
    mean = sum(values) / count
    if count < 2:
        return mean, math.inf
    variance = sum((v - mean) ** 2 for v in values) / (count - 1)
    return mean, math.sqrt(variance / count)


def _gains(values: Sequence[float], base: Sequence[float]) -> list[float]:
    """Paired differences on the deals both were played on (a candidate's deals are the first ones)."""
    return [v - b for v, b in zip(values, base, strict=False)]


def _searched(position: Position, settings: Settings, rng: random.Random) -> Decision:
    """A draw, a discard or a close, judged by paired playouts on sampled deals."""
    observation = position.observation
    moves = _candidates(position, settings.width)
    count = len(moves)
    outcomes = _Outcomes(observation)
    margins: list[list[float]] = [[] for _ in moves]
    chances: list[list[float]] = [[] for _ in moves]
    alive = list(range(count))
    deadline = time.perf_counter() + settings.seconds if settings.seconds > 0 else None
    deals = playouts = 0
    while deals < 2 or (
        len(alive) > 1 and playouts < settings.playouts and (deadline is None or time.perf_counter() < deadline)
    ):
        deal = sample_deal(observation, rng)
        for i in alive:
            points, _ = playout_points(deal.copy(history=False), moves[i])
            margins[i].append(outcomes.margin(points))
            chances[i].append(outcomes.chance(points))
        playouts += len(alive)
        deals += 1
        if deals >= _PRUNE_FROM and deals % _PRUNE_EVERY == 0:
            alive = _alive(alive, margins, chances if outcomes.at_stake else None)
    stake = outcomes.at_stake
    best, cost, error, chance_cost, candidates = _judge(moves, margins, chances if stake else None, position)
    hindsight = _hindsight(position, moves)
    return _decision(
        position,
        best=str(_action_of(moves[best], position)),
        cost=cost,
        error=error,
        exact=False,
        at_stake=stake,
        chance_cost=chance_cost,
        mark=mark_for(cost, chance_cost),
        deals=deals,
        candidates=candidates,
        hindsight_best=hindsight[0],
        hindsight_cost=hindsight[1],
    )


def _alive(alive: list[int], margins: list[list[float]], chances: list[list[float]] | None) -> list[int]:
    """The candidates still in doubt: the move played (index 0), and those that may yet be the best."""
    keep = [0]
    series = [margins] if chances is None else [margins, chances]
    for i in alive:
        if i == 0:
            continue
        doubtful = False
        for values in series:
            mean, error = _mean_error(_gains(values[i], values[0]))
            if mean + Z * error < 0:
                continue
            leader = max((j for j in alive if j != i), key=lambda j: sum(_gains(values[j], values[0])) / len(values[j]))
            mean, error = _mean_error(_gains(values[i], values[leader]))
            if mean + Z * error >= 0:
                doubtful = True
        if doubtful:
            keep.append(i)
    return keep


def _best(values: list[list[float]]) -> tuple[int, float, float | None]:
    """The candidate whose mean gain over the move played is largest and clear (else the move played), its gain,
    and the standard error of the largest gain seen."""
    best, best_gain, error = 0, 0.0, None
    top = -math.inf
    for i in range(1, len(values)):
        mean, se = _mean_error(_gains(values[i], values[0]))
        if mean > top:
            top, error = mean, se
        if mean > Z * se and mean > best_gain:
            best, best_gain = i, mean
    return best, best_gain, error if error is None or math.isfinite(error) else None


def _judge(
    moves: list[int], margins: list[list[float]], chances: list[list[float]] | None, position: Position
) -> tuple[int, float, float | None, float | None, tuple[Candidate, ...]]:
    by_points, cost, error = _best(margins)
    best = by_points
    chance_cost = None
    if chances is not None:
        by_chance, chance_cost, _ = _best(chances)
        if by_chance:
            best = by_chance
    candidates = []
    for i in range(1, len(moves)):
        gain, se = _mean_error(_gains(margins[i], margins[0]))
        chance_gain = _mean_error(_gains(chances[i], chances[0]))[0] if chances is not None else None
        candidates.append(
            Candidate(
                str(_action_of(moves[i], position)),
                gain,
                se if math.isfinite(se) else None,
                len(margins[i]),
                chance_gain,
            )
        )
    return best, cost, error, chance_cost, tuple(candidates)


def _hindsight(position: Position, moves: list[int]) -> tuple[str | None, float | None]:
    """On the true cards, each move then the same playout: the best and what the move played cost against it."""
    truth = position.truth
    if truth is None:
        return None, None
    observation = position.observation
    outcomes = _Outcomes(observation)
    played = _move_of(position.played, observation)
    values = {
        move: outcomes.margin(playout_points(truth.copy(history=False), move, showdown=True)[0]) for move in moves
    }
    best = max(moves, key=lambda move: (values[move], move == played))
    return str(_action_of(best, position)), values[best] - values[played]


# -- a whole match ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Analysis:
    """The rated decisions of one seat in one match, with the settings that made them."""

    seat: int
    names: tuple[str, ...]
    rules: Rules
    settings: Settings
    decisions: tuple[Decision, ...]
    winner: int | None = None
    scores: tuple[int, ...] = ()

    @property
    def deterministic(self) -> bool:
        """Whether the analysis is the same for its seed on any machine (no cap in seconds)."""
        return self.settings.seconds <= 0

    def deals(self) -> list[dict[str, Any]]:
        """A summary for each deal with decisions of the seat, in order."""
        by_deal: dict[int, list[Decision]] = {}
        for decision in self.decisions:
            by_deal.setdefault(decision.deal, []).append(decision)
        return [{"deal": deal, **_summary(decisions)} for deal, decisions in by_deal.items()]

    def summary(self) -> dict[str, Any]:
        """The whole match's summary: decisions, marks, total and mean cost."""
        return _summary(self.decisions)

    def to_dict(self) -> dict[str, Any]:
        """The analysis as a JSON document (``chinchon/schemas/analysis.schema.json``)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "seat": self.seat,
            "name": self.names[self.seat],
            "seats": list(self.names),
            "rules": self.rules.to_dict(),
            "winner": self.winner,
            "scores": list(self.scores),
            "budget": {
                "playouts": self.settings.playouts,
                "seconds": self.settings.seconds or None,
                "width": self.settings.width,
                "seed": self.settings.seed,
                "deterministic": self.deterministic,
            },
            "thresholds": {
                "points": dict(POINT_MARKS),
                "chance": dict(CHANCE_MARKS),
                "z": Z,
            },
            "decisions": [decision.to_dict() for decision in self.decisions],
            "deals": self.deals(),
            "summary": self.summary(),
        }


def _summary(decisions: Sequence[Decision]) -> dict[str, Any]:
    costs = [d.cost for d in decisions if d.cost is not None]
    chance = [d.chance_cost for d in decisions if d.chance_cost is not None]
    marks = Counter(d.mark for d in decisions)
    return {
        "decisions": len(decisions),
        "marks": {mark: marks[mark] for mark in MARKS},
        "cost": _round(sum(costs)),
        "mean_cost": _round(sum(costs) / len(costs)) if costs else None,
        "mean_chance_cost": _round(sum(chance) / len(chance), 4) if chance else None,
    }


# -- running many decisions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A piece of work that a process (or a Dask worker) does alone: some decisions of one record (picklable).

    ``key`` tells the records of a batch apart; ``numbers`` are the decisions' numbers (:attr:`Decision.number`).
    """

    key: int
    record: Mapping[str, Any]
    seat: int
    settings: Settings
    numbers: tuple[int, ...]


def run_unit(unit: Unit) -> tuple[int, list[Decision]]:
    """The unit's key and its decisions, rated: the record replayed, the positions of those numbers judged."""
    _, found = positions(unit.record, unit.seat)
    wanted = set(unit.numbers)
    return unit.key, [analyse_position(p, unit.settings) for p in found if p.number in wanted]


CHUNK = 8
"""Decisions in one unit of work: small enough to share a match among processes, large enough to pay its replay."""
IN_FLIGHT = 64
"""The most units handed to an executor at a time."""


def plan(
    record: Mapping[str, Any], seat: int, settings: Settings, key: int = 0, size: int = CHUNK
) -> tuple[Match, list[Unit]]:
    """The replayed match and the units of work of its analysis, ``size`` decisions each, in order.

    Raises:
        RecordError: the record is malformed or tampered with.
        AnalysisError: the seat is not in the match, or a setting is out of range.
    """
    settings.check()
    try:
        match, found = positions(record, seat)
    except (RecordError, AnalysisError):
        raise
    except ValueError as error:
        raise RecordError(N_("record: {error}"), error=error) from None
    numbers = [p.number for p in found]
    units = [
        Unit(key, record, seat, settings, tuple(numbers[start : start + size]))
        for start in range(0, len(numbers), size)
    ]
    return match, units


def assemble(match: Match, seat: int, settings: Settings, decisions: Iterable[Decision]) -> Analysis:
    """The analysis of a replayed match from its rated decisions (in any order)."""
    return Analysis(
        seat=seat,
        names=tuple(match.names),
        rules=match.rules,
        settings=settings,
        decisions=tuple(sorted(decisions, key=lambda d: d.number)),
        winner=match.winner,
        scores=tuple(match.scores),
    )


def analyse(
    record: Mapping[str, Any],
    seat: int = 0,
    settings: Settings | None = None,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """The analysis of one seat of a recorded match (see the module); the other arguments as in :func:`analyse_many`.

    Raises:
        RecordError: the record is malformed or tampered with.
        AnalysisError: the seat is not in the match, or a setting is out of range.
    """
    return analyse_many([record], seat, settings, jobs=jobs, scheduler=scheduler, executor=executor, progress=progress)[
        0
    ]


def analyse_many(
    records: Sequence[Mapping[str, Any]],
    seat: int = 0,
    settings: Settings | None = None,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    connect_timeout: float = 10.0,
) -> list[Analysis]:
    """The analyses of one seat in each record, in order.

    The decisions are judged in this process (``jobs=1``), in a pool of
    ``jobs`` processes, on the Dask cluster whose scheduler is at
    ``scheduler`` (``tcp://host:8786``), or on ``executor``; the results
    are the same for a seed whichever runs them. ``progress`` is called
    with the decisions judged and their number as the work goes on.

    Raises:
        RecordError: a record is malformed or tampered with.
        AnalysisError: the seat is not in a match, a setting is out of range, or jobs is below 1.
    """
    settings = settings or Settings()
    settings.check()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise AnalysisError(N_("jobs: expected a whole number of at least 1, got {value}"), value=jobs)
    plans = [plan(record, seat, settings, key) for key, record in enumerate(records)]
    units = [unit for _, planned in plans for unit in planned]
    total = sum(len(unit.numbers) for unit in units)
    results: list[list[Decision]] = [[] for _ in records]
    done = 0

    def collect(key: int, decisions: list[Decision]) -> None:
        nonlocal done
        results[key].extend(decisions)
        done += len(decisions)
        if progress is not None:
            progress(done, total)

    if executor is not None:
        _run_on(executor, iter(units), collect)
    elif scheduler is not None:
        from chinchon.arena import dask_executor

        pool, close = dask_executor(scheduler, connect_timeout)
        try:
            _run_on(pool, iter(units), collect)
        finally:
            close()
    elif jobs == 1 or len(units) <= 1:
        # One replay a record, not one a unit.
        for key, record in enumerate(records):
            for position in positions(record, seat)[1]:
                collect(key, [analyse_position(position, settings)])
    else:
        with worker_pool(min(jobs, len(units))) as pool:
            _run_on(pool, iter(units), collect, in_flight=2 * jobs)
    return [assemble(match, seat, settings, decisions) for (match, _), decisions in zip(plans, results, strict=True)]


def _run_on(
    executor: Executor,
    units: Iterator[Unit],
    collect: Callable[[int, list[Decision]], None],
    in_flight: int = IN_FLIGHT,
) -> None:
    """Run the units on ``executor``, ``in_flight`` at a time, handing out the next as each one ends."""
    pending: set[Future[tuple[int, list[Decision]]]] = {
        executor.submit(run_unit, unit) for unit in itertools.islice(units, in_flight)
    }
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                collect(*future.result())
            pending |= {executor.submit(run_unit, unit) for unit in itertools.islice(units, len(done))}
    finally:
        for future in pending:
            future.cancel()


# -- the text report ------------------------------------------------------------------------------------


def action_text(text: str, top: str | None = None) -> str:
    """An action of the record (``"discard 7♣"``) told in the current language, as advice: ``discard 7♣``.

    ``top`` is the card on the discard pile, for a draw.
    """
    try:
        action = parse_action(text)
    except ValueError:
        return text
    if isinstance(action, Draw):
        if action.source == "stock":
            return _("draw from the stock")
        return _("take {card}").format(card=top) if top else _("take the discard")
    if isinstance(action, Discard):
        return _("discard {card}").format(card=action.card)
    if isinstance(action, Close):
        melds = " ".join("[" + " ".join(map(str, meld)) + "]" for meld in action.melds or ())
        return _("close, {card} face down: {melds}").format(card=action.discard, melds=melds)
    if isinstance(action, Show):
        if not action.melds:
            return _("show no melds")
        return _("show {melds}").format(melds=" ".join("[" + " ".join(map(str, meld)) + "]" for meld in action.melds))
    if isinstance(action, LayOff):
        return _("lay off {card}").format(card=action.card)
    if isinstance(action, Pass):
        return _("pass")
    return _("re-enter") if action.accept else _("stay out")


def mark_text(mark: str) -> str:
    """A mark's name in the current language."""
    names = {
        "best": pgettext("analysis mark", "best"),
        "inaccuracy": pgettext("analysis mark", "inaccuracy"),
        "mistake": pgettext("analysis mark", "mistake"),
        "blunder": pgettext("analysis mark", "blunder"),
    }
    return names.get(mark, mark)


def _cost_text(decision: Decision) -> str:
    if decision.cost is None:
        return ""
    if decision.exact:
        return _("{points} exact").format(points=f"{decision.cost:.0f}")
    if decision.cost == 0:
        return "0"
    return f"{decision.cost:.1f} ±{decision.error or 0:.1f}"


def print_analysis(analysis: Analysis, console: Console) -> None:
    """Print the analysis: a table of the seat's decisions for each deal, each deal's summary and the match's."""
    rtl = is_rtl()

    def line(text: str) -> None:
        console.print(Text(for_terminal(text)), soft_wrap=True)

    settings = analysis.settings
    summary = analysis.summary()
    line(
        _("Analysis of {name} (seat {seat}): {count} decisions, {playouts} playouts a decision, seed {seed}.").format(
            name=analysis.names[analysis.seat],
            seat=analysis.seat,
            count=summary["decisions"],
            playouts=settings.playouts,
            seed=settings.seed,
        )
    )
    if settings.seconds > 0:
        line(_("At most {seconds} s a decision: another run may differ.").format(seconds=f"{settings.seconds:g}"))
    headers = [
        pgettext("analysis column", "Action"),
        pgettext("analysis column", "Turn"),
        pgettext("analysis column", "Played"),
        pgettext("analysis column", "Best"),
        pgettext("analysis column", "Cost"),
        pgettext("analysis column", "Match"),
        pgettext("analysis column", "Mark"),
        pgettext("analysis column", "Hindsight"),
    ]
    order = slice(None, None, -1 if rtl else 1)
    by_deal: dict[int, list[Decision]] = {}
    for decision in analysis.decisions:
        by_deal.setdefault(decision.deal, []).append(decision)
    for deal_summary in analysis.deals():
        decisions = by_deal[deal_summary["deal"]]
        line("")
        line(_("Deal {number}").format(number=deal_summary["deal"]))
        table = Table(box=None, pad_edge=False, show_edge=False)
        for header in headers[order]:
            numeric = not rtl and header in (headers[0], headers[1], headers[4], headers[5])
            table.add_column(for_terminal(header), justify="right" if numeric or rtl else "left")
        for decision in decisions:
            hindsight = ""
            if decision.hindsight_best is not None and decision.hindsight_best != decision.played:
                best = action_text(decision.hindsight_best, decision.top)
                hindsight = f"{best} ({decision.hindsight_cost or 0:.0f})"
            cells = [
                str(decision.number),
                str(decision.turn),
                action_text(decision.played, decision.top),
                "" if decision.best == decision.played else action_text(decision.best, decision.top),
                _cost_text(decision),
                f"{100 * decision.chance_cost:.1f}%" if decision.chance_cost is not None else "",
                mark_text(decision.mark),
                hindsight,
            ]
            table.add_row(*(for_terminal(cell) for cell in cells[order]))
        _print_table(console, table)
        line(_summary_text(deal_summary))
    line("")
    line(_("The match: {summary}").format(summary=_summary_text(summary)))
    points = dict(POINT_MARKS)
    chance = dict(CHANCE_MARKS)
    line(
        _(
            "Cost: points of the deal lost against the best move (the others' points less yours), ± a standard error;"
            " exact where the solver settles it. Marks from {inaccuracy}, {mistake} and {blunder} points,"
            " or where a seat may go over the limit, from {inaccuracy_chance}, {mistake_chance} and {blunder_chance}"
            " of the chance to win the match (Match). Hindsight: the best move on the true cards."
        ).format(
            inaccuracy=f"{points['inaccuracy']:g}",
            mistake=f"{points['mistake']:g}",
            blunder=f"{points['blunder']:g}",
            inaccuracy_chance=f"{100 * chance['inaccuracy']:g}%",
            mistake_chance=f"{100 * chance['mistake']:g}%",
            blunder_chance=f"{100 * chance['blunder']:g}%",
        )
    )


def _print_table(console: Console, table: Table) -> None:
    """Print a table whole: wider than the console where it is not a terminal (cells are never cut)."""
    if console.is_terminal:
        console.print(table)
        return
    width = console.width
    console.width = max(width, Measurement.get(console, console.options.update_width(1000), table).maximum)
    try:
        console.print(table)
    finally:
        console.width = width


def _summary_text(summary: Mapping[str, Any]) -> str:
    marks = summary["marks"]
    count = summary["decisions"]
    text = ngettext("{count} decision", "{count} decisions", count).format(count=count)
    if summary["mean_cost"] is not None:
        text += "; " + _("{points} points lost a decision").format(points=f"{summary['mean_cost']:.2f}")
    text += "; " + ", ".join(
        [
            ngettext("{count} inaccuracy", "{count} inaccuracies", marks["inaccuracy"]).format(
                count=marks["inaccuracy"]
            ),
            ngettext("{count} mistake", "{count} mistakes", marks["mistake"]).format(count=marks["mistake"]),
            ngettext("{count} blunder", "{count} blunders", marks["blunder"]).format(count=marks["blunder"]),
        ]
    )
    return text
