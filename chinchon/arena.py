"""Bots against bots: many matches on duplicate deals, in parallel, with statistics.

A *board* is a number: the deck orders of its deals and the match's own
random source (reshuffles of the stock) come from the arena seed and the
board alone, never from play. Each board is played once per *seating*, so
that every bot sits in every seat of every board and meets the same cards as
the others: the lineup rotated over the seats when it has no more bots than
seats, and every ordered choice of bots for the seats when it has more, so
that every pair of bots also meets in both orders (see :func:`seatings`).
Seat 0 starts.

In ``matches`` mode a board is a whole match; in ``hands`` mode it is one
deal, and the bots are compared on their points per hand. The results are
the same for a seed whether the boards run in this process, in a pool of
processes or on a Dask cluster.

>>> seatings(2, 2)
[(0, 1), (1, 0)]
>>> seatings(3, 2)
[(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
>>> report = run_arena(ArenaConfig(bots=("simple", "random"), boards=2, seed=1))
>>> [(bot.label, bot.played) for bot in report.bots]
[('simple', 4), ('random', 4)]
>>> low, high = wilson_interval(8, 10)
>>> round(low, 3), round(high, 3)
(0.49, 0.943)
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any, Literal, TextIO

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column, Table
from rich.text import Text

from chinchon.actions import Action, IllegalAction
from chinchon.bots import Bot, make_bot
from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.i18n import _, for_terminal, is_rtl, ngettext
from chinchon.match import Match
from chinchon.processes import worker_pool
from chinchon.rules import Rules

__all__ = [
    "FORMAT",
    "MAX_ACTIONS",
    "MOST_SEATINGS",
    "SCHEMES",
    "ArenaConfig",
    "ArenaError",
    "ArenaProgress",
    "ArenaReport",
    "BotSpec",
    "BotStats",
    "Failure",
    "MatchOutcome",
    "Scheme",
    "board_decks",
    "dask_executor",
    "deck_digest",
    "elo_ratings",
    "net_stakes",
    "parse_lineup",
    "print_report",
    "run_arena",
    "seating_count",
    "seatings",
    "summarize",
    "wilson_interval",
]

FORMAT = "chinchon-arena"
"""The ``format`` field of the arena's JSON document."""
VERSION = 1
"""The ``version`` field of the arena's JSON document."""
MAX_ACTIONS = 100_000
"""The most actions a match may take before it is stopped as unfinished (bots that never close)."""
MOST_SEATINGS = 100_000
"""The most seatings a board may be played in (every order of 9 bots at 9 seats is 362,880)."""

Mode = Literal["matches", "hands"]
Scheme = Literal["auto", "rotations", "all"]
"""How a board's seatings are chosen; see :func:`seatings`."""
SCHEMES: tuple[Scheme, ...] = ("auto", "rotations", "all")
BotSpec = str | Callable[[], Bot]
"""A bot of the lineup: a name for :func:`~chinchon.bots.make_bot`, or a picklable factory of bots."""

_Z95 = 1.959963984540054


class ArenaError(ChinchonError):
    """An arena that cannot run: too few bots, no boards, a bad number of jobs, an unreachable cluster."""


# -- statistics -------------------------------------------------------------------------


def wilson_interval(successes: int, trials: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); ``(0, 1)`` with no trials.

    >>> tuple(round(x, 4) for x in wilson_interval(50, 100))
    (0.4038, 0.5962)
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_ratings(
    wins: Sequence[Sequence[float]], prior: float = 1.0, iterations: int = 10_000, tolerance: float = 1e-10
) -> list[float]:
    """Elo ratings (mean 0) fitted by maximum likelihood to ``wins[i][j]``, the games ``i`` won against ``j``.

    The Bradley-Terry model, fitted by minorization-maximization; ``prior``
    adds that many drawn games to every pair that met, so that a bot that
    won every game gets a finite rating.

    >>> [round(r) for r in elo_ratings([[0, 3], [1, 0]], prior=0)]
    [95, -95]
    """
    n = len(wins)
    games = [[wins[i][j] + wins[j][i] for j in range(n)] for i in range(n)]
    virtual = [[prior if i != j and games[i][j] > 0 else 0.0 for j in range(n)] for i in range(n)]
    total = [[games[i][j] + virtual[i][j] for j in range(n)] for i in range(n)]
    won = [sum(wins[i]) + sum(virtual[i]) / 2 for i in range(n)]
    gamma = [1.0] * n
    for _step in range(iterations):
        new = []
        for i in range(n):
            denominator = sum(total[i][j] / (gamma[i] + gamma[j]) for j in range(n) if j != i and total[i][j] > 0)
            new.append(won[i] / denominator if denominator > 0 and won[i] > 0 else gamma[i])
        positive = [g for g in new if g > 0]
        scale = math.exp(sum(math.log(g) for g in positive) / len(positive)) if positive else 1.0
        new = [g / scale if g > 0 else g for g in new]
        change = max(abs(a - b) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tolerance:
            break
    return [400 * math.log10(g) if g > 0 else -math.inf for g in gamma]


# -- the plan: boards, seatings, chance -----------------------------------------------------


def seatings(bots: int, players: int, scheme: Scheme = "auto") -> list[tuple[int, ...]]:
    """The seatings of a board: in each, the bot (its lineup index) in each seat.

    ``rotations``: rotation ``r`` puts bot ``(seat + r) % bots`` in each seat,
    so every bot sits in every seat once. With more bots than seats that
    leaves pairs that meet in one order only, or never: with 4 bots and 2
    seats, bot 0 never meets bot 2. ``all``: every ordering of the lineup
    laid over the seats (every ordered choice of ``players`` bots when there
    are more bots than seats), so every bot sits in every seat and every
    pair of bots meets in every pair of seats equally often; it also varies
    who sits after whom (who feeds whom), which rotations keep fixed.
    ``auto``: rotations when there are no more bots than seats, else all.

    >>> seatings(3, 2, "rotations")
    [(0, 1), (1, 2), (2, 0)]
    >>> seatings(3, 2)
    [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    >>> seatings(2, 4)
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    >>> len(seatings(4, 4)), len(seatings(4, 4, "all"))
    (4, 24)
    """
    _check_scheme(bots, players, scheme)
    if _rotated(bots, players, scheme):
        return [tuple((seat + rotation) % bots for seat in range(players)) for rotation in range(bots)]
    if bots > players:
        return list(itertools.permutations(range(bots), players))
    return [tuple(order[seat % bots] for seat in range(players)) for order in itertools.permutations(range(bots))]


def seating_count(bots: int, players: int, scheme: Scheme = "auto") -> int:
    """How many seatings :func:`seatings` gives, without making them.

    >>> seating_count(4, 2), seating_count(4, 4), seating_count(4, 4, "all"), seating_count(12, 8)
    (12, 4, 24, 19958400)
    """
    if bots < 1 or players < 1:
        raise ArenaError(
            N_("seatings need at least one bot and one seat, got {bots} and {players}"), bots=bots, players=players
        )
    if _rotated(bots, players, scheme):
        return bots
    return math.perm(bots, players) if bots > players else math.factorial(bots)


def _rotated(bots: int, players: int, scheme: Scheme) -> bool:
    return scheme == "rotations" or (scheme == "auto" and bots <= players)


def _check_scheme(bots: int, players: int, scheme: Scheme) -> None:
    """Refuse an unknown scheme, or one that would seat a board more than :data:`MOST_SEATINGS` times."""
    if scheme not in SCHEMES:
        raise ArenaError(N_("seatings: expected auto, rotations or all, got {value}"), value=repr(scheme))
    count = seating_count(bots, players, scheme)
    if count > MOST_SEATINGS:
        raise ArenaError(
            N_("{count} seatings a board are too many (at most {most}): use fewer bots or --seatings rotations"),
            count=count,
            most=MOST_SEATINGS,
        )


def board_decks(rules: Rules, players: int, seed: int, board: int) -> Iterator[list[Card]]:
    """The deck orders of a board's successive deals: the same for a seed and a board, whoever plays."""
    rng = random.Random(f"chinchon-arena:{seed}:{board}:decks")
    cards = rules.cards(decks=rules.decks_for(players))
    while True:
        order = list(cards)
        rng.shuffle(order)
        yield order


def deck_digest(deck: Sequence[Card]) -> str:
    """A short digest of a deck order, to check that two deals had the same cards in the same order."""
    return hashlib.sha256(" ".join(map(str, deck)).encode()).hexdigest()[:12]


def _match_seed(seed: int, board: int) -> str:
    return f"chinchon-arena:{seed}:{board}:match"


def _bot_rng(seed: int, board: int, rotation: int, seat: int) -> random.Random:
    return random.Random(f"chinchon-arena:{seed}:{board}:{rotation}:{seat}:bot")


def parse_lineup(text: str) -> list[str]:
    """The bot names of a comma-separated lineup; ``name=value`` pieces go on with the bot before.

    >>> parse_lineup("greedy, ismcts:iterations=200,c=1.4, simple")
    ['greedy', 'ismcts:iterations=200,c=1.4', 'simple']
    """
    names: list[str] = []
    for piece in (part.strip() for part in text.split(",")):
        # A value may hold a colon (model=C:\m.json); the name before "=" may not.
        if names and "=" in piece and ":" not in piece.partition("=")[0]:
            names[-1] += "," + piece
        else:
            names.append(piece)
    return names


def _label(spec: BotSpec) -> str:
    if isinstance(spec, str):
        return spec.strip()
    name = getattr(spec, "name", None)
    return name if isinstance(name, str) else getattr(spec, "__name__", type(spec).__name__)


def _make(spec: BotSpec) -> Bot:
    return make_bot(spec) if isinstance(spec, str) else spec()


@dataclass(frozen=True)
class ArenaConfig:
    """What an arena plays: the lineup, seats, boards, mode, rules and seed.

    ``boards`` boards are each played once per seating (see :func:`seatings`
    and ``seating``, its scheme), so ``boards * len(seatings)`` matches in
    all; in ``hands`` mode each is a single deal. ``rules`` is a preset name
    or a :class:`Rules` value.
    """

    bots: tuple[BotSpec, ...]
    players: int = 2
    boards: int = 10
    mode: Mode = "matches"
    rules: str | Rules = "fournier"
    seed: int = 0
    max_actions: int = MAX_ACTIONS
    seating: Scheme = "auto"

    @property
    def labels(self) -> list[str]:
        """The bots' names in the reports; a name given twice gets ``#2``, ``#3``..."""
        labels: list[str] = []
        for spec in self.bots:
            base = _label(spec)
            label, count = base, 1
            while label in labels:
                count += 1
                label = f"{base}#{count}"
            labels.append(label)
        return labels

    @property
    def preset(self) -> str | None:
        """The preset's name, if the rules were given by name."""
        return self.rules if isinstance(self.rules, str) else None

    def resolved_rules(self) -> Rules:
        """The rules as a value.

        Raises:
            RulesError: an unknown preset.
        """
        return Rules.preset(self.rules) if isinstance(self.rules, str) else self.rules

    @property
    def seatings(self) -> list[tuple[int, ...]]:
        """The seatings each board is played in."""
        return seatings(len(self.bots), self.players, self.seating)

    @property
    def total(self) -> int:
        """How many matches (or hands) the arena plays."""
        return self.boards * seating_count(len(self.bots), self.players, self.seating)

    def check(self, jobs: int = 1) -> Rules:
        """Check that the arena can run (on ``jobs`` processes) and return its rules.

        Raises:
            ArenaError: fewer than two bots, no boards, fewer than one job, or no actions a match.
            RulesError: an unknown preset, or a number of players the rules do not allow.
            BotError: an unknown bot or a bad bot parameter.
        """
        if len(self.bots) < 2:
            raise ArenaError(N_("an arena needs at least two bots, got {count}"), count=len(self.bots))
        for option, value in (("boards", self.boards), ("jobs", jobs), ("max_actions", self.max_actions)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ArenaError(
                    N_("{option}: expected a whole number of at least 1, got {value}"), option=option, value=repr(value)
                )
        if self.mode not in ("matches", "hands"):
            raise ArenaError(N_("mode: expected matches or hands, got {value}"), value=repr(self.mode))
        rules = self.resolved_rules()
        rules.decks_for(self.players)
        _check_scheme(len(self.bots), self.players, self.seating)
        for spec in self.bots:
            if isinstance(spec, str):
                make_bot(spec)
        return rules


# -- playing a board -----------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """A bot that broke a match: it raised (``raised``) or returned an illegal action (``illegal``)."""

    seat: int
    bot: str
    kind: Literal["raised", "illegal"]
    error: str


@dataclass(frozen=True)
class MatchOutcome:
    """One match (or hand) of a board in one seating, from the seats' side.

    ``rotation`` is the index of the seating among the board's (see
    :func:`seatings`) and ``seating`` gives the bot (lineup index) in each
    seat; ``winners`` the
    winning seats: the match's winner, or in ``hands`` mode the seat with the
    fewest points (ties: the closer, then the lower seat); when a bot fails,
    every seat of the other bots. The per-seat tuples count the hands each
    seat played, the points they added to its total (lower is better), its
    closes, clean closes and chinchóns; ``stakes`` what each seat won or lost
    of the pot (see :func:`net_stakes`); ``decks`` a digest of the deck order
    of each deal played (see :func:`deck_digest`), the same in every seating.
    """

    index: int
    board: int
    rotation: int
    seating: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int
    hands_played: tuple[int, ...]
    points: tuple[int, ...]
    closes: tuple[int, ...]
    clean_closes: tuple[int, ...]
    chinchons: tuple[int, ...]
    scores: tuple[int, ...]
    actions: int
    decks: tuple[str, ...] = ()
    failure: Failure | None = None
    unfinished: bool = False
    stakes: tuple[float, ...] = ()


def net_stakes(stake: int, reentries: Sequence[int], winners: Sequence[int]) -> tuple[float, ...]:
    """What each seat won or lost of a match's pot (RULES.md S8): the pot it took less what it put in.

    Every seat puts ``stake`` in before the first hand and again at each of
    its ``reentries``; the winner takes the pot. Several ``winners`` (the
    other bots' seats when a bot broke the match) share it; with none (an
    unfinished match) every seat takes back what it put in.

    >>> net_stakes(1, [0, 2], [0])
    (3.0, -3.0)
    """
    paid = [stake * (1 + count) for count in reentries]
    if not winners:
        return tuple(0.0 for _ in paid)
    share = sum(paid) / len(winners)
    return tuple((share if seat in winners else 0.0) - put for seat, put in enumerate(paid))


@dataclass(frozen=True)
class _BoardJob:
    """What a worker needs to play one board in every seating (picklable)."""

    rules: dict[str, Any]
    players: int
    bots: tuple[BotSpec, ...]
    labels: tuple[str, ...]
    seatings: tuple[tuple[int, ...], ...]
    mode: Mode
    seed: int
    board: int
    max_actions: int


_rules_cache: dict[str, Rules] = {}


def _rules_of(options: dict[str, Any]) -> Rules:
    key = repr(sorted(options.items()))
    rules = _rules_cache.get(key)
    if rules is None:
        rules = _rules_cache[key] = Rules.from_dict(options)
    return rules


def _play_board(job: _BoardJob) -> list[MatchOutcome]:
    """Play one board in every seating (the unit of work a worker runs)."""
    rules = _rules_of(job.rules)
    return [_play(job, rules, rotation) for rotation in range(len(job.seatings))]


def _checked(match: Match, action: object, legal: tuple[Action, ...]) -> Action | None:
    """The action if it is legal for the seat to move, else ``None`` (a bot may return anything)."""
    try:
        if action in legal or match.is_legal(action):  # type: ignore[arg-type]
            return action  # type: ignore[return-value]
    except Exception:
        pass
    return None


def _play(job: _BoardJob, rules: Rules, rotation: int) -> MatchOutcome:
    seating = job.seatings[rotation]
    players = job.players
    failure: Failure | None = None
    bots: list[Bot] = []
    for place, bot in enumerate(seating):
        try:
            bots.append(_make(job.bots[bot]))
        except Exception as exc:
            failure = failure or Failure(place, job.labels[bot], "raised", f"{type(exc).__name__}: {exc}")
    rngs = [_bot_rng(job.seed, job.board, rotation, seat) for seat in range(players)]
    match = Match(
        players,
        rules,
        _match_seed(job.seed, job.board),
        first=0,
        decks=board_decks(rules, players, job.seed, job.board),
    )
    one_hand = job.mode == "hands"
    actions = 0
    unfinished = False
    while failure is None and not match.over and not (one_hand and match.results):
        if actions >= job.max_actions:
            unfinished = True
            break
        seat = match.to_move
        assert seat is not None
        legal = tuple(match.legal_actions())
        label = job.labels[seating[seat]]
        try:
            action = bots[seat].choose(match.observation(seat), legal, rngs[seat])
        except Exception as exc:
            failure = Failure(seat, label, "raised", f"{type(exc).__name__}: {exc}")
            break
        checked = _checked(match, action, legal)
        if checked is not None:
            try:
                match.apply(checked)
            except IllegalAction:
                checked = None
        if checked is None:
            failure = Failure(seat, label, "illegal", repr(action))
            break
        actions += 1
    hands = match.results[:1] if one_hand else match.results
    hands_played = [0] * players
    points = [0] * players
    closes = [0] * players
    clean = [0] * players
    chinchons = [0] * players
    for deal, result in zip(match.deals, hands, strict=False):
        for seat in deal.seats:
            hands_played[seat] += 1
            points[seat] += result.points[seat]
        if result.closer is None:
            continue
        closes[result.closer] += 1
        clean[result.closer] += result.clean
        chinchons[result.closer] += result.chinchon
    if failure is not None:
        failed = seating[failure.seat]
        winners = tuple(seat for seat in range(players) if seating[seat] != failed)
    elif one_hand and hands and hands[0].closer is not None:
        result = hands[0]
        playing = match.deals[0].seats
        winners = (min(playing, key=lambda s: (result.points[s], s != result.closer, s)),)
    elif match.winner is not None:
        winners = (match.winner,)
    else:
        winners = ()
    stakes = () if one_hand or not rules.stake else net_stakes(rules.stake, match.reentries, winners)
    return MatchOutcome(
        index=job.board * len(job.seatings) + rotation,
        board=job.board,
        rotation=rotation,
        seating=seating,
        winners=winners,
        hands=len(hands),
        hands_played=tuple(hands_played),
        points=tuple(points),
        closes=tuple(closes),
        clean_closes=tuple(clean),
        chinchons=tuple(chinchons),
        scores=tuple(match.scores),
        actions=actions,
        decks=tuple(deck_digest(deal.deck) for deal in match.deals[: len(hands) + (failure is not None or unfinished)]),
        failure=failure,
        unfinished=unfinished,
        stakes=stakes,
    )


# -- the results -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BotStats:
    """One bot's results: matches (or hands) played and won, the win rate with its 95% interval, and more.

    ``mean_points`` is the mean of what a hand added to the bot's total (lower
    is better); ``hands`` the hands it played, counting each seat it held.
    With stakes (:attr:`Rules.stake`, matches only), ``stake`` is the bot's
    net gain of stakes over its matches (see :func:`net_stakes`) and
    ``mean_stake`` that per match; both are 0 without stakes.
    """

    label: str
    played: int
    won: int
    win_rate: float
    interval: tuple[float, float]
    hands: int
    points: int
    mean_points: float
    closes: int
    clean_closes: int
    chinchons: int
    failures: int
    stake: float = 0.0
    mean_stake: float = 0.0


@dataclass
class _Tally:
    played: int = 0
    won: int = 0
    hands: int = 0
    points: int = 0
    closes: int = 0
    clean: int = 0
    chinchons: int = 0
    failures: int = 0
    stake: float = 0.0

    def add(self, bot: int, outcome: MatchOutcome) -> None:
        seats = [seat for seat, who in enumerate(outcome.seating) if who == bot]
        if not seats:
            return
        self.played += 1
        self.won += any(seat in outcome.winners for seat in seats)
        self.hands += sum(outcome.hands_played[s] for s in seats)
        self.points += sum(outcome.points[s] for s in seats)
        self.closes += sum(outcome.closes[s] for s in seats)
        self.clean += sum(outcome.clean_closes[s] for s in seats)
        self.chinchons += sum(outcome.chinchons[s] for s in seats)
        self.failures += outcome.failure is not None and outcome.failure.seat in seats
        if outcome.stakes:
            self.stake += sum(outcome.stakes[s] for s in seats)

    def stats(self, label: str) -> BotStats:
        return BotStats(
            label=label,
            played=self.played,
            won=self.won,
            win_rate=self.won / self.played if self.played else 0.0,
            interval=wilson_interval(self.won, self.played),
            hands=self.hands,
            points=self.points,
            mean_points=self.points / self.hands if self.hands else 0.0,
            closes=self.closes,
            clean_closes=self.clean,
            chinchons=self.chinchons,
            failures=self.failures,
            stake=self.stake,
            mean_stake=self.stake / self.played if self.played else 0.0,
        )


def _pairwise(bots: int, outcomes: Sequence[MatchOutcome]) -> list[list[float]]:
    """Games each bot won against each other: a winner beats every other bot at the table."""
    wins = [[0.0] * bots for _ in range(bots)]
    for outcome in outcomes:
        winning = {outcome.seating[seat] for seat in outcome.winners}
        for winner in winning:
            for loser in set(outcome.seating) - winning:
                wins[winner][loser] += 1
    return wins


@dataclass(frozen=True)
class ArenaReport:
    """Everything an arena found: the setup, each bot's results, Elo ratings, failures and every outcome.

    ``elo`` is ``None`` with two bots (the win rate says it all).
    """

    config: ArenaConfig
    rules: Rules
    bots: tuple[BotStats, ...]
    elo: tuple[float, ...] | None
    wins: tuple[tuple[float, ...], ...]
    outcomes: tuple[MatchOutcome, ...]
    elapsed: float = 0.0
    jobs: int = 1
    scheduler: str | None = None

    @property
    def failures(self) -> list[tuple[MatchOutcome, Failure]]:
        """The outcomes a bot broke, with its failure, in board order."""
        return [(o, o.failure) for o in self.outcomes if o.failure is not None]

    @property
    def unfinished(self) -> int:
        """How many matches were stopped after :data:`MAX_ACTIONS` actions."""
        return sum(o.unfinished for o in self.outcomes)

    def command(self) -> list[str]:
        """The ``chinchon arena`` command line that plays this arena again (same results).

        Rules that are not a preset are given as the closest preset and ``--rule`` options on top of it.
        """
        config = self.config
        names = [
            spec if isinstance(spec, str) else label for spec, label in zip(config.bots, config.labels, strict=True)
        ]
        args = ["chinchon", "arena", "--bots", ",".join(names), "--players", str(config.players)]
        if config.preset is not None:
            args += [f"--{config.mode}", str(config.boards), "--rules", config.preset]
        else:
            preset, options = self.rules.as_text()
            args += [f"--{config.mode}", str(config.boards), "--rules", preset]
            for option in options:
                args += ["--rule", option]
        if config.max_actions != MAX_ACTIONS:
            args += ["--max-actions", str(config.max_actions)]
        if config.seating != "auto":
            args += ["--seatings", config.seating]
        return [*args, "--seed", str(config.seed)]

    def to_dict(self, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The report as a JSON-able document: all but ``run`` is the same for a seed whatever the jobs."""
        config = self.config
        return {
            "format": FORMAT,
            "version": VERSION,
            "command": self.command(),
            "arguments": dict(arguments) if arguments is not None else None,
            "seed": config.seed,
            "bots": config.labels,
            "players": config.players,
            "mode": config.mode,
            "boards": config.boards,
            "seating": config.seating,
            "seatings": [list(s) for s in config.seatings],
            "rules": {"preset": config.preset, "options": self.rules.to_dict()},
            "max_actions": config.max_actions,
            "played": len(self.outcomes),
            "results": [{**asdict(bot), "interval": list(bot.interval)} for bot in self.bots],
            "elo": None if self.elo is None else dict(zip(config.labels, self.elo, strict=True)),
            "pairwise_wins": [list(row) for row in self.wins],
            "failures": [
                {"index": o.index, "board": o.board, "rotation": o.rotation, **asdict(f)} for o, f in self.failures
            ],
            "unfinished": self.unfinished,
            "outcomes": [asdict(o) for o in self.outcomes],
            "run": {"jobs": self.jobs, "scheduler": self.scheduler, "elapsed_seconds": round(self.elapsed, 3)},
        }


def summarize(config: ArenaConfig, rules: Rules, outcomes: Sequence[MatchOutcome], **run: Any) -> ArenaReport:
    """The report of an arena from its outcomes, whatever order they came in."""
    ordered = tuple(sorted(outcomes, key=lambda o: o.index))
    count = len(config.bots)
    tallies = [_Tally() for _ in range(count)]
    for outcome in ordered:
        for bot, tally in enumerate(tallies):
            tally.add(bot, outcome)
    wins = _pairwise(count, ordered)
    return ArenaReport(
        config=config,
        rules=rules,
        bots=tuple(t.stats(label) for t, label in zip(tallies, config.labels, strict=True)),
        elo=tuple(elo_ratings(wins)) if count > 2 else None,
        wins=tuple(tuple(row) for row in wins),
        outcomes=ordered,
        **run,
    )


# -- running -----------------------------------------------------------------------------


def _jobs(config: ArenaConfig, rules: Rules) -> Iterator[_BoardJob]:
    """The boards' jobs, one at a time: a billion boards are never all in memory."""
    options = rules.to_dict()
    labels, plan = tuple(config.labels), tuple(config.seatings)
    for board in range(config.boards):
        yield _BoardJob(
            rules=options,
            players=config.players,
            bots=config.bots,
            labels=labels,
            seatings=plan,
            mode=config.mode,
            seed=config.seed,
            board=board,
            max_actions=config.max_actions,
        )


IN_FLIGHT = 64
"""The most boards handed to an executor at a time, when it does not say how many it runs at once."""


def _run_on(
    executor: Executor,
    jobs: Iterator[_BoardJob],
    progress: Callable[[MatchOutcome], None] | None,
    in_flight: int = IN_FLIGHT,
) -> list[MatchOutcome]:
    """Play the jobs on ``executor``, ``in_flight`` at a time, handing out the next as each one ends."""
    pending = {executor.submit(_play_board, job) for job in itertools.islice(jobs, in_flight)}
    outcomes: list[MatchOutcome] = []
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for outcome in future.result():
                    outcomes.append(outcome)
                    if progress is not None:
                        progress(outcome)
            pending |= {executor.submit(_play_board, job) for job in itertools.islice(jobs, len(done))}
    finally:
        for future in pending:
            future.cancel()
    return outcomes


def dask_executor(address: str, timeout: float) -> tuple[Executor, Callable[[], None]]:
    """An executor on the Dask cluster whose scheduler is at ``address``, and the function that closes it.

    Raises:
        ArenaError: Dask is not installed, or the scheduler does not answer within ``timeout`` seconds.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ArenaError(N_("a Dask cluster needs the optional extra: pip install 'chinchon[cluster]'")) from None
    try:
        client = Client(address, timeout=timeout)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as exc:
        raise ArenaError(
            N_("cannot reach the Dask scheduler at {address}: {error}"), address=address, error=exc
        ) from None
    executor: Executor = client.get_executor(pure=False)  # type: ignore[no-untyped-call]
    return executor, client.close


def run_arena(
    config: ArenaConfig,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    executor: Executor | None = None,
    progress: Callable[[MatchOutcome], None] | None = None,
    connect_timeout: float = 10.0,
) -> ArenaReport:
    """Play an arena and return its report.

    The boards run in this process (``jobs=1``), in a pool of ``jobs``
    processes, on the Dask cluster whose scheduler is at ``scheduler``
    (``tcp://host:8786``, waiting ``connect_timeout`` seconds for it to
    answer), or on a given ``executor``; ``progress`` is
    called with each outcome as it comes. The report is the same for a seed
    whichever runs it.

    Raises:
        ArenaError: fewer than two bots, no boards, fewer than one job, an unreachable cluster.
        RulesError: an unknown preset, or a number of players the rules do not allow.
        BotError: an unknown bot or a bad bot parameter.
    """
    rules = config.check(jobs)
    work = _jobs(config, rules)
    start = time.perf_counter()
    if executor is not None:
        outcomes = _run_on(executor, work, progress)
    elif scheduler is not None:
        executor, close = dask_executor(scheduler, connect_timeout)
        try:
            outcomes = _run_on(executor, work, progress)
        finally:
            close()
    elif jobs == 1:
        outcomes = []
        for job in work:
            for outcome in _play_board(job):
                outcomes.append(outcome)
                if progress is not None:
                    progress(outcome)
    else:
        # More processes than boards would only wait: each board is one unit of work.
        # The workers end with this process, even one killed outright.
        with worker_pool(min(jobs, config.boards)) as pool:
            outcomes = _run_on(pool, work, progress, in_flight=4 * jobs)
    elapsed = time.perf_counter() - start
    return summarize(config, rules, outcomes, elapsed=elapsed, jobs=jobs, scheduler=scheduler)


# -- progress and the text report -----------------------------------------------------------------


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _unit(config: ArenaConfig, count: int) -> str:
    if config.mode == "hands":
        return ngettext("{count} hand", "{count} hands", count).format(count=count)
    return ngettext("{count} match", "{count} matches", count).format(count=count)


def _speed(config: ArenaConfig, rate: float) -> str:
    template = _("{rate} hands/s") if config.mode == "hands" else _("{rate} matches/s")
    return template.format(rate=f"{rate:.1f}")


class _SpeedColumn(ProgressColumn):
    """Matches (or hands) per second."""

    def __init__(self, config: ArenaConfig) -> None:
        super().__init__()
        self.config = config

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        speed = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(for_terminal(_speed(self.config, speed)), no_wrap=True)

    def get_table_column(self) -> Column:
        return Column(no_wrap=True)


class _RatesBelow(Progress):
    """A progress bar on one line (the bar takes the room the numbers leave), the running win rates below it.

    The rates grow with the lineup: on the bar's line they squeezed the count and the speed into
    pieces on a terminal of 80 columns.
    """

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        for task in self.tasks:
            if task.fields.get("rates"):
                yield Text(task.fields["rates"])


class ArenaProgress:
    """Shows an arena's progress: a Rich bar on a terminal, else a plain line at every tenth.

    Use as a context manager and pass :meth:`update` as ``run_arena``'s ``progress``.
    """

    def __init__(
        self,
        config: ArenaConfig,
        console: Console | None = None,
        *,
        live: bool | None = None,
        file: TextIO | None = None,
    ) -> None:
        self.config = config
        self.console = console or Console(file=file)
        self.live = self.console.is_terminal if live is None else live
        self.file = file
        self.labels = config.labels
        self.tallies = [[0, 0] for _ in config.bots]
        self.done = 0
        self.next_line = 1
        self.start = time.perf_counter()
        self._progress: Progress | None = None
        self._task = TaskID(0)

    def __enter__(self) -> ArenaProgress:
        self.start = time.perf_counter()
        if self.live:
            self._progress = _RatesBelow(
                TextColumn("{task.description}", table_column=Column(no_wrap=True)),
                BarColumn(bar_width=None, table_column=Column(ratio=1, min_width=5)),
                MofNCompleteColumn(table_column=Column(no_wrap=True)),
                _SpeedColumn(self.config),
                TimeElapsedColumn(table_column=Column(no_wrap=True)),
                console=self.console,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(for_terminal(_("Arena")), total=self.config.total, rates="")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(kind, value, traceback)
            self._progress = None

    def rates(self) -> str:
        """The running win rates, as ``simple 61.0%, random 39.0%``."""
        return ", ".join(
            f"{label} {_percent(won / played) if played else '—'}"
            for label, (played, won) in zip(self.labels, self.tallies, strict=True)
        )

    def update(self, outcome: MatchOutcome) -> None:
        """Count one outcome and show it."""
        self.done += 1
        for bot, tally in enumerate(self.tallies):
            seats = [seat for seat, who in enumerate(outcome.seating) if who == bot]
            if seats:
                tally[0] += 1
                tally[1] += any(seat in outcome.winners for seat in seats)
        if self._progress is not None:
            self._progress.update(self._task, advance=1, rates=self.rates())
            return
        total = self.config.total
        if self.done * 10 >= self.next_line * total or self.done == total:
            while self.next_line * total <= self.done * 10:
                self.next_line += 1
            elapsed = max(time.perf_counter() - self.start, 1e-9)
            line = _("{done}/{total} · {speed} · {rates}").format(
                done=self.done,
                total=_unit(self.config, total),
                speed=_speed(self.config, self.done / elapsed),
                rates=self.rates(),
            )
            print(for_terminal(line), file=self.file or sys.stdout, flush=True)


def _print_table(console: Console, table: Table) -> None:
    """Print a table whole, wider than the console if it must be (cells are never cut)."""
    if console.is_terminal:
        console.print(table)
        return
    width = console.width
    console.width = max(width, Measurement.get(console, console.options.update_width(1000), table).maximum)
    try:
        console.print(table)
    finally:
        console.width = width


def _bots_table(headers: Sequence[str], rows: Sequence[Sequence[str]], columns: Sequence[int], rtl: bool) -> Table:
    """A table of these columns (the first names the bot; the others are numbers), read from the right in RTL."""
    shown = list(columns)[::-1] if rtl else list(columns)
    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in shown:
        numeric = column > 0
        table.add_column(for_terminal(headers[column]), no_wrap=True, justify="right" if numeric or rtl else "left")
    for row in rows:
        table.add_row(*(row[column] for column in shown))
    return table


def _fitted_tables(console: Console, headers: Sequence[str], rows: Sequence[Sequence[str]], rtl: bool) -> list[Table]:
    """The table of the bots, or on a terminal too narrow for it, tables of fewer columns each beside the bot's name."""
    whole = _bots_table(headers, rows, range(len(headers)), rtl)
    if not console.is_terminal or _width(console, whole) <= console.width:
        return [whole]
    groups: list[list[int]] = [[0]]
    for column in range(1, len(headers)):
        candidate = [*groups[-1], column]
        if len(groups[-1]) > 1 and _width(console, _bots_table(headers, rows, candidate, rtl)) > console.width:
            groups.append([0, column])
        else:
            groups[-1] = candidate
    return [_bots_table(headers, rows, group, rtl) for group in groups]


def _width(console: Console, table: Table) -> int:
    return Measurement.get(console, console.options.update_width(1000), table).maximum


def print_report(report: ArenaReport, console: Console) -> None:
    """Print the report: the setup, a table of the bots, Elo ratings, failures and unfinished matches."""
    config = report.config
    hands = config.mode == "hands"

    def line(text: str) -> None:
        console.print(Text(for_terminal(text)), soft_wrap=True)

    line(
        _(
            "Arena: {played}; boards: {boards}, seatings: {seatings}; players: {players}; rules: {rules}; seed: {seed}"
        ).format(
            played=_unit(config, len(report.outcomes)),
            boards=config.boards,
            seatings=len(config.seatings),
            players=config.players,
            rules=config.preset or ", ".join([report.rules.as_text()[0], *report.rules.as_text()[1]]),
            seed=config.seed,
        )
    )
    rtl = is_rtl()
    order = slice(None, None, -1 if rtl else 1)
    headers = [
        _("Bot"),
        _("Hands") if hands else _("Matches"),
        _("Won"),
        _("Win rate"),
        _("95% interval"),
        _("Points/hand"),
        _("Clean closes"),
        _("Chinchóns"),
        _("Failures"),
    ]
    stakes = not hands and report.rules.stake > 0
    if stakes:
        headers.insert(6, _("Stake/match"))
    rows: list[list[str]] = []
    for bot in report.bots:
        low, high = bot.interval
        cells = [
            bot.label,
            str(bot.played),
            str(bot.won),
            _percent(bot.win_rate),
            f"{_percent(low)} – {_percent(high)}",
            f"{bot.mean_points:.2f}",
            str(bot.clean_closes),
            str(bot.chinchons),
            str(bot.failures),
        ]
        if stakes:
            cells.insert(6, f"{bot.mean_stake:+.2f}")
        rows.append(cells)
    for table in _fitted_tables(console, headers, rows, rtl):
        _print_table(console, table)
    if hands:
        line(_("A hand is won by the seat with the fewest points; points per hand: lower is better."))
    else:
        line(_("Points per hand: what a hand added to the total; lower is better."))
    if stakes:
        line(
            _(
                "Stake/match: stakes won less stakes put in (one stake each before the first hand and one "
                "at each re-entry; the winner takes the pot), per match."
            )
        )
    if report.elo is not None:
        line(_("Elo ratings (maximum likelihood, mean 0):"))
        elo = Table(box=None, pad_edge=False, show_edge=False)
        for header in [_("Bot"), _("Elo")][order]:
            elo.add_column(for_terminal(header), no_wrap=True, justify="right" if rtl else "left")
        ranked = sorted(zip(config.labels, report.elo, strict=True), key=lambda pair: -pair[1])
        for label, rating in ranked:
            elo.add_row(*[label, f"{rating:+.0f}"][order])
        _print_table(console, elo)
    failures = report.failures
    if failures:
        line(
            ngettext(
                "{count} match was lost by a failing bot:",
                "{count} matches were lost by a failing bot:",
                len(failures),
            ).format(count=len(failures))
        )
        for outcome, failure in failures[:10]:
            template = (
                _("board {board}, seat {seat}, {bot}: raised {error}")
                if failure.kind == "raised"
                else _("board {board}, seat {seat}, {bot}: illegal action {error}")
            )
            line("  " + template.format(board=outcome.board, seat=failure.seat, bot=failure.bot, error=failure.error))
        if len(failures) > 10:
            line("  " + _("… and {count} more").format(count=len(failures) - 10))
    if report.unfinished:
        line(
            ngettext(
                "{count} match was stopped unfinished after {limit} actions.",
                "{count} matches were stopped unfinished after {limit} actions.",
                report.unfinished,
            ).format(count=report.unfinished, limit=config.max_actions)
        )
    if report.elapsed > 0:
        line(
            _("Played in {seconds} s, {speed}.").format(
                seconds=f"{report.elapsed:.1f}", speed=_speed(config, len(report.outcomes) / report.elapsed)
            )
        )
