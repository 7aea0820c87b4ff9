"""A whole match (``Match``): deal after deal until one seat is left, with totals, eliminations and re-entries.

Each deal is a :class:`~chinchon.deal.Deal`; the match's chance (deck
orders, reshuffles, the draw for the first player) comes from a
:class:`~chinchon.chance.Chance`. Each seat sees the match through its
:class:`~chinchon.observation.Observation`.

>>> match = Match(["Ana", "Bot"], seed=7)
>>> match.to_move in (0, 1), len(match.deals)
(True, 1)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, cast, overload

from chinchon.actions import Action, Close, IllegalAction, ReEnter
from chinchon.cards import Card
from chinchon.chance import Chance
from chinchon.deal import CLOSE, Deal, check_seat
from chinchon.errors import N_, ChinchonError
from chinchon.events import (
    DealEnded,
    DealStarted,
    Event,
    MatchEnded,
    MatchStarted,
    PublicEvent,
    ReEntered,
    ReEntryAsked,
    YouWereDealt,
)
from chinchon.observation import DealResult, Observation, Phase, PublicObservation
from chinchon.record_format import match_record, replay_match
from chinchon.rules import Rules, RulesError
from chinchon.showdown_search import best_showdown_action
from chinchon.tables import tables_for

__all__ = ["Match"]

# A member looked up on the enum class costs more, compiled or not, after every action.
_DEAL_OVER: Final = Phase.OVER


# Compiled, a Final name is a C constant; any other module-level name is looked up in the module's dict at each use.
_PUBLIC_EVENT: Final = PublicEvent


class _Told:
    """Every event a match told, in order, and where each public one is in that list: the deal's sink.

    Kept apart from the match so that the deal holds no reference back to it: a match left behind is freed at
    once, without waiting for the garbage collector to find a cycle.
    """

    __slots__ = ("every", "marks", "owners", "public")

    def __init__(self) -> None:
        self.every: list[Event] = []
        self.marks: list[int] = []
        self.public: list[Event] = []
        self.owners: list[int] = []
        """By event: the seat a private event is for, -1 for a public one (read for each seat, found once)."""

    def __call__(self, event: Event) -> None:
        if isinstance(event, _PUBLIC_EVENT):
            self.marks.append(len(self.every))
            self.public.append(event)
            self.owners.append(-1)
        else:
            self.owners.append(event.seat)
        self.every.append(event)


class _Reshuffles:
    """The deal's reshuffles of the discard pile: drawn from the match's chance, written in its log."""

    __slots__ = ("chance", "log")

    def __init__(self, chance: Chance, log: list[dict[str, Any]]) -> None:
        self.chance = chance
        self.log = log

    def __reduce__(self) -> tuple[type[_Reshuffles], tuple[Chance, list[dict[str, Any]]]]:
        return (_Reshuffles, (self.chance, self.log))

    def __call__(self, cards: list[Card]) -> list[Card]:
        order = self.chance.reshuffle(cards)
        self.log.append({"chance": "reshuffle", "stock": [str(c) for c in order]})
        return order


class Match:
    """A whole game of Chinchón: deal after deal until one seat is left.

    ``players`` is the number of seats or their names. ``seed`` seeds the
    match's random source (shuffles, the draw for the first player); ``decks``
    gives the deck orders of the first deals; ``scores`` the starting totals;
    ``first`` the first player of the first deal.

    Raises:
        RulesError: the number of players, the scores or the first seat do not fit the rules.
    """

    def __init__(
        self,
        players: int | Sequence[str],
        rules: Rules | None = None,
        seed: int | str | None = None,
        *,
        scores: Sequence[int] | None = None,
        first: int | None = None,
        decks: Iterable[Sequence[Card]] | None = None,
        _chance: Chance | None = None,
        _state: Mapping[str, Any] | None = None,
    ) -> None:
        if _state is not None:
            # A copy or an unpickled match (see __reduce__): its attributes as they were.
            for name, value in _state.items():
                setattr(self, name, value)
            return
        rules = rules if rules is not None else Rules()
        if not isinstance(rules, Rules):
            raise RulesError(N_("rules: expected a Rules value, got {value}"), value=repr(rules))
        if isinstance(players, int) and not isinstance(players, bool):
            names = tuple(f"Player {i + 1}" for i in range(players))
        elif (
            isinstance(players, Sequence)
            and not isinstance(players, str)
            and all(isinstance(name, str) for name in players)
        ):
            names = tuple(players)
        else:
            raise RulesError(
                N_("players: expected a number of seats or a list of names, got {value}"), value=repr(players)
            )
        count = len(names)
        self.decks = rules.decks_for(count)
        if scores is not None:
            scores = list(scores)
            if len(scores) != count or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores):
                raise RulesError(
                    N_("scores: expected {count} whole numbers, got {value}"), count=count, value=repr(scores)
                )
        if first is not None and (not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < count):
            raise RulesError(N_("first: seat {value} is not one of the {players} seats"), value=first, players=count)
        self.rules = rules
        self.names = names
        self.players = count
        self.seed = seed
        self.initial_scores: tuple[int, ...] = tuple(scores) if scores is not None else (0,) * count
        self.scores: list[int] = list(self.initial_scores)
        self.active: list[int] = [seat for seat in range(count) if not self._out(self.scores[seat])]
        self.reentries = [0] * count
        self.pot = rules.stake * count
        self.over = False
        self.winner: int | None = None
        self.deals: list[Deal] = []
        self.results: list[DealResult] = []
        self.log: list[dict[str, Any]] = []
        self._told = _Told()
        self._pending: list[int] = []
        self._playoff: list[int] | None = None
        self._chance = _chance or Chance(random.Random(seed), decks)
        self._reshuffles = _Reshuffles(self._chance, self.log)
        self.first_given = first is not None
        if len(self.active) < 2:
            raise RulesError(N_("scores: at least two seats must start under the limit"))
        self._told(MatchStarted(names, rules, self.initial_scores, tuple(self.active), self.decks, self.pot))
        if first is None:
            first = self._draw_first()
        elif first not in self.active:
            raise RulesError(N_("first: seat {value} is already out of the match"), value=first)
        self.dealer = self._previous(first)
        self.deal: Deal
        self._seat_at_start = first
        self._start_deal(first)

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Match], tuple[dict[str, Any]]]:
        # A match pickles and deep-copies as its attributes, built again through __init__: the compiled build's
        # classes cannot be made without it.
        return (_restored, (cast("dict[str, Any]", self.__getstate__()),))

    # -- seats ------------------------------------------------------------------------

    def _out(self, total: int) -> bool:
        limit = self.rules.limit
        return total > limit if self.rules.eliminate_at == "above" else total >= limit

    def _playing(self) -> list[int]:
        return list(self._playoff) if self._playoff is not None else list(self.active)

    def _next(self, seat: int) -> int:
        seats = self._playing()
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if candidate in seats:
                return candidate
        raise AssertionError("no seat is playing")

    def _previous(self, seat: int) -> int:
        seats = self._playing()
        for step in range(1, self.players + 1):
            candidate = (seat - step) % self.players
            if candidate in seats:
                return candidate
        raise AssertionError("no seat is playing")

    def _draw_first(self) -> int:
        seats = list(self.active)
        if self.rules.first_player == "lot":
            first = self._chance.lot(seats)
            if first not in seats:
                raise ChinchonError(N_("the first player drawn, seat {seat}, is not in the match"), seat=first)
            self.log.append({"chance": "lot", "seat": first})
            return first
        cards = tables_for(self.rules).cards(self.rules, self.decks)
        order = list(self.rules.ranks)

        def height(card: Card) -> int:
            return order.index(card.rank) if card.rank is not None else len(order)

        contenders = seats
        rounds: list[list[str]] = []
        while True:
            shuffled = self._chance.high_card(cards)
            if len(shuffled) < len(contenders):
                raise ChinchonError(N_("too few cards drawn for the high card"))
            drawn = shuffled[: len(contenders)]
            rounds.append([str(card) for card in drawn])
            top = max(height(card) for card in drawn)
            contenders = [seat for seat, card in zip(contenders, drawn, strict=True) if height(card) == top]
            if len(contenders) == 1:
                self.log.append({"chance": "high_card", "draws": rounds})
                return contenders[0]

    def _start_deal(self, first: int) -> None:
        t = tables_for(self.rules)
        deck = self._chance.deck(t.cards(self.rules, self.decks))
        texts = t.text_by_code
        self.log.append(
            {"deal": len(self.deals) + 1, "dealer": self.dealer, "first": first, "deck": [texts[c._code] for c in deck]}
        )
        deal = Deal.new(
            self.rules,
            self.players,
            first,
            deck=deck,
            reshuffle=self._reshuffles,
            seats=self._playing(),
            decks=self.decks,
            tell=self._told,
        )
        self.deal = deal
        self.deals.append(deal)
        top = deal.discard_pile[-1]
        playoff = self._playoff is not None
        self._told(
            DealStarted(
                len(self.deals), self.dealer, first, deal.seats, top, len(deal.stock), tuple(self.scores), playoff
            )
        )
        for seat in deal.seats:
            self._told(YouWereDealt(seat, tuple(deal.hand(seat))))

    # -- playing --------------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat to act: a re-entry decision first, else the deal's seat to move; ``None`` once over."""
        if self.over:
            return None
        if self._pending:
            return self._pending[0]
        return self.deal.to_move

    @property
    def reentry_pending(self) -> tuple[int, ...]:
        """The seats still to decide on re-entry, in order."""
        return tuple(self._pending)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move, in a fixed order."""
        if self.over:
            return []
        if self._pending:
            return [ReEnter(True), ReEnter(False)]
        return self.deal.legal_actions()

    def check(self, action: Action, seat: object = None) -> None:
        """Refuse an action that is not legal for the seat to move (or for ``seat``, when given), saying why.

        Nothing is changed or copied. :meth:`is_legal` and :meth:`apply` check
        with it, and within a deal :meth:`Deal.check <chinchon.deal.Deal.check>`.

        Raises:
            IllegalAction: the action is not legal here; the message says why (the text :meth:`apply` raises).
        """
        if self._check_turn(action, seat):
            self.deal.check(action)

    def is_legal(self, action: Action) -> bool:
        """Whether the action is legal for the seat to move."""
        try:
            self.check(action)
        except IllegalAction:
            return False
        return True

    def _check_turn(self, action: Action, seat: object) -> bool:
        """The match's own checks (the end, whose turn, re-entry); whether the deal is to check the action."""
        if self.over:
            raise IllegalAction(N_("the match is over"))
        mover = self.to_move
        if seat is not None and (type(seat) is not int or seat != mover):
            check_seat(seat)
            raise IllegalAction(N_("it is seat {seat}'s turn"), seat=mover)
        if self._pending:
            if not isinstance(action, ReEnter) or not isinstance(action.accept, bool):
                raise IllegalAction(N_("seat {seat} must first decide whether to re-enter"), seat=mover)
            return False
        if isinstance(action, ReEnter):
            raise IllegalAction(N_("nobody is deciding on re-entry now"))
        return True

    def apply(self, action: Action, seat: object = None) -> None:
        """Play an action for the seat to move (or check that ``seat`` is that seat).

        Raises:
            IllegalAction: the action is not legal here (see :meth:`check`); the message says why.
        """
        mover = self.to_move
        if not self._check_turn(action, seat):
            assert isinstance(action, ReEnter)
            self.log.append({"seat": mover, "action": str(action)})
            self._reenter(action.accept)
            return
        self.deal.apply(action)
        self._after_action(mover, action)

    def moves(self) -> list[int]:
        """The legal moves of the seat to move as integers, as :meth:`Deal.moves <chinchon.deal.Deal.moves>` lists
        them: draws, discards and closes; none while a re-entry is decided, in a showdown, or once the match is over
        (play those with :meth:`legal_actions` and :meth:`apply`)."""
        if self.over or self._pending:
            return []
        return self.deal.moves()

    def play(self, move: int) -> None:
        """Play a move of :meth:`moves` for the seat to move without checking it: the same as :meth:`apply` of its
        action (``Draw``, ``Discard`` of the card, ``Close`` of the card with the fewest loose points), with the same
        deal history, log and events, the deal's end and the next deal included; faster, for a driver that
        numbers its moves (a reinforcement-learning environment).

        A move that is not in :meth:`moves` breaks the match: check first where it may not be.
        """
        deal = self.deal
        mover = deal.to_move
        if move >= CLOSE:
            self.apply(Close(deal.card_of(move - CLOSE)))
            return
        t = deal._t
        # Shared entries: a history tuple made at each move would outlive many collections of the garbage collector.
        cast("list[object]", deal.history).append(t.seat_plays[mover][move + 2])  # type: ignore[index]  # a seat is to move
        deal._step(mover, move)  # type: ignore[arg-type]  # a seat is to move
        self.log.append(t.play_lines[mover][move + 2].copy())  # type: ignore[index]  # a seat is to move
        if deal.phase is _DEAL_OVER:
            self._end_deal()

    def _after_action(self, mover: int | None, action: Action) -> None:
        self.log.append({"seat": mover, "action": str(action)})
        deal = self.deal
        # Decisions the deal played by itself (forced shows, skipped seats) are in its history.
        if deal.phase is _DEAL_OVER:
            self._end_deal()

    def resolve_showdown(self) -> None:
        """Play every open showdown decision as :meth:`Deal.resolve_showdown` does, then go on."""
        memo: dict[Any, tuple[int, ...]] = {}
        while not self.over and not self._pending and self.deal.phase is Phase.SHOWDOWN:
            self.apply(best_showdown_action(self.deal, memo))

    def best_showdown_action(self) -> Action:
        """The showdown decision :meth:`resolve_showdown` would play for the seat to move.

        Raises:
            IllegalAction: the current deal is over, or not yet in its showdown.
        """
        return self.deal.best_showdown_action()

    # -- scoring ------------------------------------------------------------------------

    def _end_deal(self) -> None:
        result = self.deal.result
        assert result is not None
        self.results.append(result)
        number = len(self.deals)
        if result.closer is None:
            # A void deal scores nobody: the deal passes on.
            self._told(DealEnded(number, self.deal.seats, result, tuple(self.scores), ()))
            self._next_deal()
            return
        playing = self._playing()
        floor = self.rules.score_floor
        for seat in playing:
            self.scores[seat] += result.points[seat]
            if floor is not None and self.scores[seat] < floor:
                self.scores[seat] = floor
        if result.chinchon and self.rules.chinchon == "win":
            self._told(DealEnded(number, self.deal.seats, result, tuple(self.scores), ()))
            self._win(result.closer)
            return
        if self._playoff is not None:
            self._told(DealEnded(number, self.deal.seats, result, tuple(self.scores), ()))
            low = min(self.scores[seat] for seat in self._playoff)
            tied = [seat for seat in self._playoff if self.scores[seat] == low]
            if len(tied) == 1:
                self._win(tied[0])
                return
            self._playoff = tied
            self._next_deal()
            return
        order = [*self.deal.seats_after(result.closer), result.closer]
        newly_out = [seat for seat in order if seat in self.active and self._out(self.scores[seat])]
        self.active = [seat for seat in self.active if seat not in newly_out]
        self._just_out = newly_out
        self._told(DealEnded(number, self.deal.seats, result, tuple(self.scores), tuple(newly_out)))
        if newly_out and self.rules.reentry != "none" and self.active:
            self._pending = [s for s in newly_out if self.rules.reentry == "unlimited" or self.reentries[s] == 0]
            if self._pending:
                self._told(ReEntryAsked(tuple(self._pending), max(self.scores[s] for s in self.active)))
        if not self._pending:
            self._after_hand()

    def _reenter(self, accept: bool) -> None:
        seat = self._pending.pop(0)
        if accept:
            self.scores[seat] = max(self.scores[s] for s in self.active)
            self.reentries[seat] += 1
            self.pot += self.rules.stake
            self.active = sorted([*self.active, seat])
        self._told(ReEntered(seat, accept, self.scores[seat], self.pot))
        if not self._pending:
            self._after_hand()

    def _after_hand(self) -> None:
        if len(self.active) == 1:
            self._win(self.active[0])
            return
        if not self.active:
            low = min(self.scores[seat] for seat in self._just_out)
            tied = [seat for seat in self._just_out if self.scores[seat] == low]
            if len(tied) == 1:
                self._win(tied[0])
                return
            self._playoff = sorted(tied)
        self._next_deal()

    def _next_deal(self) -> None:
        self.dealer = self._next(self.dealer)
        self._start_deal(self._next(self.dealer))

    def _win(self, seat: int) -> None:
        self.winner = seat
        self.over = True
        self._pending = []
        self.log.append({"winner": seat})
        self._told(MatchEnded(seat, tuple(self.scores), self.pot))

    # -- views ---------------------------------------------------------------------------

    # -- what happened ---------------------------------------------------------------------

    @staticmethod
    def _number(since: object) -> int:
        """``since``, checked to be an event number."""
        if type(since) is not int or since < 0:
            raise ChinchonError(N_("since: expected an event number from 0, got {value}"), value=repr(since))
        return since

    def _since(self, since: object) -> int:
        """Where the events after public event number ``since`` start in the list of every event."""
        number = self._number(since)
        told = self._told
        marks = told.marks
        return marks[number] if number < len(marks) else len(told.every)

    def events(self, since: object = 0) -> list[Event]:
        """The public events after number ``since``: everything so far with ``since`` 0.

        Events are numbered from 1 within the match, in order: the event
        numbered ``n`` is ``match.events()[n - 1]``, and ``match.events(n)``
        the ones after it. What a spectator may know (:mod:`chinchon.events`).

        Raises:
            ValueError: ``since`` is not a whole number from 0.
        """
        return self._told.public[self._number(since) :]

    def events_for(self, seat: object, since: object = 0) -> list[Event]:
        """The public events after number ``since`` with ``seat``'s private ones, each after the public event
        it goes with: all that seat may know of what happened.

        Raises:
            ValueError: ``seat`` is not a seat of the match, or ``since`` is not a whole number from 0.
        """
        if type(seat) is not int or not 0 <= seat < self.players:
            raise RulesError(N_("seat {value} is not one of the {players} seats"), value=seat, players=self.players)
        start = self._since(since)
        told = self._told
        owners = told.owners
        every = told.every
        return [every[i] for i in range(start, len(every)) if owners[i] < 0 or owners[i] == seat]

    def all_events(self, since: object = 0) -> list[Event]:
        """The public events after number ``since`` with every seat's private ones in place: the whole match, as
        its record's reader (a replay, an analysis) may tell it. Never for a player's eyes while it is played.

        Raises:
            ValueError: ``since`` is not a whole number from 0.
        """
        return self._told.every[self._since(since) :]

    # -- views ---------------------------------------------------------------------------

    @overload
    def observation(self, seat: int) -> Observation: ...

    @overload
    def observation(self, seat: None) -> PublicObservation: ...

    def observation(self, seat: int | None) -> Observation | PublicObservation:
        """Everything ``seat`` may know about the match, and nothing else; with ``None``, what anyone watching
        may know (built from public facts only, as :meth:`Deal.observation <chinchon.deal.Deal.observation>`).

        Raises:
            RulesError: ``seat`` is not a seat of the match.
        """
        if seat is not None:
            facts: dict[str, Any] = {
                "to_move": self.to_move,
                "scores": tuple(self.scores),
                "active": tuple(self.active),
                "dealer": self.dealer,
                "deal_number": len(self.deals),
                "reentry_pending": tuple(self._pending),
                "match_over": self.over,
                "winner": self.winner,
                "pot": self.pot,
                "names": self.names,
                "previous_result": self.results[-1] if self.results else None,
            }
            if self._pending:
                # The deal is over: the legal actions are the re-entry decision's, for the seat deciding.
                facts["legal_actions"] = tuple(self.legal_actions()) if self._pending[0] == seat else ()
            # Else they are the deal's, as the deal gives them to the seat it waits for (none once the match is over).
            return self.deal._seat_observation(seat, facts)
        base = self.deal.observation(seat)
        mine = seat is not None and (self._pending[0] == seat if self._pending else bool(base.legal_actions))
        return replace(
            base,
            to_move=self.to_move,
            legal_actions=tuple(self.legal_actions()) if mine else (),
            scores=tuple(self.scores),
            active=tuple(self.active),
            dealer=self.dealer,
            deal_number=len(self.deals),
            reentry_pending=tuple(self._pending),
            match_over=self.over,
            winner=self.winner,
            pot=self.pot,
            names=self.names,
            previous_result=self.results[-1] if self.results else None,
        )

    def record(self) -> dict[str, Any]:
        """The match as a JSON-able game record (see :mod:`chinchon.record`)."""
        return match_record(self)

    @classmethod
    def replay(
        cls,
        record: Mapping[str, Any],
        *,
        go_on: bool = False,
        play: Callable[[Match, Action, Any], None] | None = None,
    ) -> Match:
        """Rebuild a match from its record (see :func:`chinchon.record.replay`).

        ``play(match, action, seat)``, if given, plays each recorded action in place of
        ``match.apply(action, seat=seat)``: a reader of the record (an analysis) looks at the match around each one.

        Raises:
            ValueError: the record is malformed or tampered with; the message says where and why.
        """
        return replay_match(cls, record, go_on=go_on, play=play)


def _restored(state: dict[str, Any]) -> Match:
    """The match whose attributes are ``state`` (what :meth:`Match.__reduce__` gives)."""
    return Match(0, _state=state)
