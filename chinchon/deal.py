"""One deal (``Deal``): the deal, the draw, the discard, the close and the showdown, and its scores.

A deal is dealt from a stacked deck or shuffled with a ``random.Random``.
Each rule step is written once, on the integer fast path used by search
(:meth:`Deal.moves` lists the legal moves, :meth:`Deal.play` plays one);
:meth:`Deal.apply` checks an :class:`~chinchon.actions.Action`, raising
:class:`~chinchon.actions.IllegalAction` saying why, then plays it the same
way, and :meth:`Deal.legal_actions` is the move list made into actions. A
whole match is :class:`chinchon.match.Match`.

>>> from chinchon.cards import parse_cards
>>> from chinchon.actions import Close, Draw
>>> from chinchon.cards import Card
>>> from chinchon.rules import Rules
>>> rules = Rules()
>>> deck = stack_deck(rules, [parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"), parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")],
...                   discard=Card.parse("4♣"), stock=[Card.parse("6♥")])
>>> deal = Deal.new(rules, 2, deck=deck)
>>> deal.phase, deal.to_move, [str(c) for c in deal.hand(0)]
(<Phase.DRAW: 'draw'>, 0, ['A♦', '7♦', '3♥', '4♥', '5♥', '7♠', '7♣'])
>>> deal.apply(Draw("stock"))
>>> [str(a) for a in deal.legal_actions() if isinstance(a, Close)][0]
'close A♦ [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]'
>>> deal.apply(Close(Card.parse("A♦")))
>>> deal.phase, deal.result.points
(<Phase.OVER: 'over'>, (-10, 45))
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar, overload

from chinchon.actions import (
    Action,
    Close,
    Discard,
    Draw,
    IllegalAction,
    LayOff,
    Pass,
    ReEnter,
    Show,
)
from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.events import (
    Closed,
    Discarded,
    Drew,
    Event,
    LaidOff,
    Passed,
    PrivateEvent,
    Showed,
    StockRebuilt,
    YouDrew,
    YouPutFaceDown,
)
from chinchon.melds import (
    arrangements,
    best_arrangement,
    closing_options,
    is_chinchon,
    is_meld,
    is_run,
    meld_extensions,
    normalize_meld,
    wild_layouts,
)
from chinchon.observation import DealResult, Observation, Phase, PublicObservation, TableMeld
from chinchon.rules import Rules, RulesError
from chinchon.showdown_search import best_showdown_action
from chinchon.tables import Tables, tables_for

__all__ = [
    "CLOSE",
    "MOVE_DISCARD_PILE",
    "MOVE_STOCK",
    "Deal",
    "stack_deck",
]

MOVE_STOCK = -1
"""The integer move that draws from the stock."""
MOVE_DISCARD_PILE = -2
"""The integer move that draws from the discard pile."""
CLOSE = 1000
"""Added to a card id, the integer move that closes discarding that card."""

_STOCK = Draw("stock")
_DISCARD = Draw("discard")
_PASS = Pass()

# The draws open in the draw phase, as moves, and the same as actions.
_BOTH_DRAWS = (MOVE_STOCK, MOVE_DISCARD_PILE)
_STOCK_DRAW = (MOVE_STOCK,)
_PILE_DRAW = (MOVE_DISCARD_PILE,)
_DRAW_ACTIONS: dict[tuple[int, ...], tuple[Draw, ...]] = {
    _BOTH_DRAWS: (_STOCK, _DISCARD),
    _STOCK_DRAW: (_STOCK,),
    _PILE_DRAW: (_DISCARD,),
    (): (),
}

T = TypeVar("T")

# The phases as module names: looking a member up on the enum class costs more, on every action.
_IN_DRAW = Phase.DRAW
_IN_DISCARD = Phase.DISCARD
_IN_SHOWDOWN = Phase.SHOWDOWN


Reshuffle = Callable[[list[Card]], list[Card]]
Tell = Callable[[Event], None]
_UNTOLD: list[Event] = []
"""The events held by a deal that tells nobody: none, ever (nothing is told without a listener)."""


class _PublicCache:
    """What a deal's observations show of its history and discards, for one history and one list of discards."""

    def __init__(self, history: list[tuple[int, Action]], discards: list[tuple[int, int]]) -> None:
        self.history = history
        self.discards_of = discards
        self.texts: list[tuple[int, str]] = []
        self.hidden: dict[int, str] = {}
        self.discards: list[tuple[int, Card]] = []

    def fits(self, history: list[tuple[int, Action]], discards: list[tuple[int, int]]) -> bool:
        """Whether these are still the lists the cache was made for, only grown since."""
        return (
            history is self.history
            and discards is self.discards_of
            and len(self.texts) <= len(history)
            and len(self.discards) <= len(discards)
        )


class Deal:
    """One deal (hand) of Chinchón, from the deal to the scores.

    Build with :meth:`Deal.new`. Seats are numbered in playing order.
    """

    # Slots: a deal has more attributes than an instance dictionary keeps fast, and search reads them all the time.
    __slots__ = (
        "_added",
        "_at_close",
        "_chinchon",
        "_clean",
        "_close_from",
        "_discards",
        "_face_down",
        "_held",
        "_jk",
        "_kept",
        "_last_draw",
        "_m1",
        "_m2",
        "_next_seat",
        "_passes",
        "_pile",
        "_public",
        "_queue",
        "_reshuffle",
        "_rng",
        "_run_adds",
        "_show_round",
        "_shown",
        "_sink",
        "_stock",
        "_t",
        "_taken",
        "closer",
        "deck",
        "decks",
        "first",
        "history",
        "phase",
        "players",
        "reshuffles",
        "result",
        "rules",
        "seats",
        "table",
        "to_move",
        "turn",
    )

    rules: Rules
    players: int
    first: int
    phase: Phase
    to_move: int | None
    result: DealResult | None

    def __init__(self) -> None:
        raise TypeError("build a deal with Deal.new(rules, players, ...)")

    @classmethod
    def new(
        cls,
        rules: Rules,
        players: int,
        first: int = 0,
        deck: Sequence[Card] | None = None,
        rng: random.Random | None = None,
        *,
        reshuffle: Reshuffle | None = None,
        seats: Sequence[int] | None = None,
        decks: int | None = None,
        tell: Tell | None = None,
    ) -> Deal:
        """Deal a new hand.

        With ``deck`` the cards are dealt from that exact order: ``deck[0]`` to
        ``first``, ``deck[1]`` to the next seat, round after round; the next
        card starts the discard pile and the rest is the stock, its top
        first. Without ``deck`` the rules' cards are shuffled with ``rng``.
        When the stock runs out, the discards but the top one are shuffled
        into a new stock with ``reshuffle`` (a function from the cards to
        their new order, top first) or else with ``rng`` (``random.Random(0)``
        when none is given).

        ``seats`` (for a match whose other seats are out) lists the seats that
        play, in playing order; ``decks`` fixes the number of decks. ``tell``
        is called with each event of the deal's draws, discards, close and
        showdown (:mod:`chinchon.events`) as actions are applied (a match's
        deal tells its match; the fast path, :meth:`play`, tells nothing).

        Raises:
            RulesError: the number of players or the first seat is out of range.
            ValueError: the deck is not exactly the rules' cards.
        """
        if decks is None:
            decks = rules.decks_for(players)
        playing = list(range(players)) if seats is None else sorted(seats)
        if not isinstance(first, int) or first not in playing:
            raise RulesError(N_("first: seat {value} is not one of the {players} seats"), value=first, players=players)
        cards = tables_for(rules).cards(rules, decks)
        if deck is None:
            deck = list(cards)
            (rng or random.Random(0)).shuffle(deck)
        else:
            deck = list(deck)
            _check_deck(deck, cards, rules)
        deal = object.__new__(cls)
        deal._setup(rules, players, first, deck, rng, reshuffle, playing, decks)
        if tell is not None:
            deal._sink = tell
            deal._held = []
        return deal

    def _setup(
        self,
        rules: Rules,
        players: int,
        first: int,
        deck: list[Card],
        rng: random.Random | None,
        reshuffle: Reshuffle | None,
        playing: list[int],
        decks: int,
    ) -> None:
        t = tables_for(rules)
        self.rules = rules
        self.players = players
        self.first = first
        self.decks = decks
        self._t: Tables = t
        self._rng: random.Random | None = rng
        self._reshuffle = reshuffle
        self.deck: tuple[Card, ...] = tuple(deck)
        self._m1 = [0] * players
        self._m2 = [0] * players
        self._jk = [0] * players
        start = playing.index(first)
        self.seats: tuple[int, ...] = tuple(playing[start:] + playing[:start])
        self._next_seat = _next_seats(self.seats, players)
        id_by_code = t.id_by_code
        ids = [id_by_code[card._code] for card in deck]
        size = rules.hand_size
        dealt = size * len(playing)
        if dealt + 1 > len(ids):
            raise RulesError(
                N_("players: {count} players need {needed} cards; the deck has {available}"),
                count=len(playing),
                needed=dealt + 1,
                available=len(ids),
            )
        for i in range(dealt):
            self._add(self.seats[i % len(playing)], ids[i])
        self._pile: list[int] = [ids[dealt]]
        self._stock: list[int] = ids[dealt + 1 :][::-1]
        self.phase = Phase.DRAW
        self.to_move = first
        self.turn = 0
        self._close_from = _first_closing_turn(rules, self.seats)
        self._kept = -1
        self._last_draw: str | None = None
        self._discards: list[tuple[int, int]] = []
        self._taken: list[list[int]] = [[] for _ in range(players)]
        self.reshuffles: list[tuple[Card, ...]] = []
        self.history: list[tuple[int, Action]] = []
        self.result = None
        self.closer: int | None = None
        self._face_down = -1
        self._clean = False
        self._chinchon = False
        self.table: list[TableMeld] = []
        self._shown: list[bool] = [False] * players
        self._queue: list[int] = []
        self._show_round = False
        self._added = False
        self._run_adds: set[tuple[int, int]] = set()
        self._passes = 0
        self._at_close: tuple[Card, ...] = ()
        self._public: _PublicCache | None = None
        self._sink: Tell | None = None
        self._held: list[Event] = _UNTOLD

    # -- cards in hands ---------------------------------------------------------------

    def _add(self, seat: int, cid: int) -> None:
        if cid == self._t.joker:
            self._jk[seat] += 1
            return
        bit = 1 << cid
        if self._m1[seat] & bit:
            self._m2[seat] |= bit
        else:
            self._m1[seat] |= bit

    def _remove(self, seat: int, cid: int) -> None:
        if cid == self._t.joker:
            self._jk[seat] -= 1
            return
        bit = 1 << cid
        if self._m2[seat] & bit:
            self._m2[seat] &= ~bit
        else:
            self._m1[seat] &= ~bit

    def _holds(self, seat: int, cid: int) -> bool:
        if cid == self._t.joker:
            return self._jk[seat] > 0
        return bool(self._m1[seat] >> cid & 1)

    def _ids(self, seat: int, distinct: bool = False) -> list[int]:
        out: list[int] = []
        m1, m2 = self._m1[seat], self._m2[seat]
        while m1:
            low = m1 & -m1
            kind = low.bit_length() - 1
            out.append(kind)
            if m2 & low and not distinct:
                out.append(kind)
            m1 ^= low
        jokers = self._jk[seat]
        out.extend([self._t.joker] * (min(jokers, 1) if distinct else jokers))
        return out

    def _solver_hand(self, seat: int) -> tuple[int, int, int]:
        m1, m2, w = self._m1[seat], self._m2[seat], self._jk[seat]
        if self._t.wild_ace:
            w += (m1 & 1) + (m2 & 1)
            m1 &= ~1
            m2 &= ~1
        return m1, m2, w

    def hand(self, seat: int) -> list[Card]:
        """The cards a seat holds, in card order (the full state: not for players' eyes)."""
        card_of = self._t.card_of
        return [card_of[cid] for cid in self._ids(seat)]

    def hand_at_start(self, seat: int) -> list[Card]:
        """The cards a seat was dealt, in card order."""
        if seat not in self.seats or not self.deck:
            return []
        size = self.rules.hand_size
        count = len(self.seats)
        position = self.seats.index(seat)
        return sorted(self.deck[i] for i in range(size * count) if i % count == position)

    def hand_size(self, seat: int) -> int:
        """How many cards a seat holds."""
        return self._m1[seat].bit_count() + self._m2[seat].bit_count() + self._jk[seat]

    @property
    def stock(self) -> list[Card]:
        """The stock, top card first (the full state: not for players' eyes)."""
        card_of = self._t.card_of
        return [card_of[cid] for cid in reversed(self._stock)]

    @property
    def discard_pile(self) -> list[Card]:
        """The face-up discard pile, top card last."""
        card_of = self._t.card_of
        return [card_of[cid] for cid in self._pile]

    @property
    def face_down(self) -> Card | None:
        """The closer's face-down card (the full state: not for players' eyes)."""
        return self._t.card_of[self._face_down] if self._face_down >= 0 else None

    # -- legal actions ----------------------------------------------------------------

    def may_close(self) -> bool:
        """Whether the seat to move may close at this turn (``close_on_first_turn``), its hand allowing."""
        return self.turn >= self._close_from

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move, in a fixed order (none when the deal is over).

        In the draw and discard phases these are :meth:`moves` made into actions, a close
        spelled out with each way of laying its melds.
        """
        phase = self.phase
        if phase is _IN_DRAW:
            return list(_DRAW_ACTIONS[tuple(self.moves())])
        if phase is _IN_DISCARD:
            seat = self.to_move
            assert seat is not None
            t = self._t
            discards, closable, natural = self._open_discards(seat, t.discards_by_suit, t.discard_of)
            actions: list[Action] = discards  # type: ignore[assignment]  # a fresh list, of Discards
            if closable:
                actions.extend(self._close_actions(seat, natural))
            return actions
        if phase is _IN_SHOWDOWN:
            return self._showdown_actions()
        return []

    def is_legal(self, action: Action) -> bool:
        """Whether the action is legal for the seat to move."""
        try:
            self._check(action)
        except IllegalAction:
            return False
        return True

    def check(self, action: Action, seat: int | None = None) -> None:
        """Refuse an action that is not legal for the seat to move (or for ``seat``, when given), saying why.

        Nothing is changed or copied. :meth:`is_legal` and :meth:`apply` check
        with it; every rule it asks (the close limit, ``forbid_rediscard``, the
        first round, what a lay-off may go on) is asked by the one function
        that :meth:`legal_actions` and :meth:`moves` ask too.

        Raises:
            IllegalAction: the action is not legal here; the message says why (the text :meth:`apply` raises).
        """
        self._check_seat(seat)
        self._check(action)

    def _check_seat(self, seat: int | None) -> None:
        mover = self.to_move
        if seat is not None and (seat != mover or type(seat) is not int):
            check_seat(seat)
            if mover is None:
                raise IllegalAction(N_("the deal is over"))
            raise IllegalAction(N_("it is seat {seat}'s turn"), seat=mover)

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Play an action for the seat to move (or check that ``seat`` is that seat).

        Raises:
            IllegalAction: the action is not legal here (see :meth:`check`); the message says why.
        """
        if seat is not None:
            self._check_seat(seat)
        mover = self.to_move
        # The commonest actions, legal, are played at once: a discard of a card held (a kind mask; jokers are not
        # in _m1) but the one the rules keep (_kept), a draw from a stock that has cards or can be rebuilt, or from
        # the pile. Every other action, and any refusal, goes through the checker, :meth:`check`'s own.
        kind = action.__class__
        if kind is Discard:
            if self.phase is _IN_DISCARD:
                card = action.card  # type: ignore[union-attr]  # a Discard
                cid = self._t.id_by_code[card._code] if card.__class__ is Card else -1
                if cid >= 0 and self._m1[mover] >> cid & 1 and cid != self._kept:  # type: ignore[index]
                    self.history.append((mover, action))  # type: ignore[arg-type]  # a seat is to move
                    if self._sink is None:
                        self.play(cid)
                    else:
                        self._step(mover, cid)  # type: ignore[arg-type]  # a seat is to move
                    return
        elif kind is Draw and self.phase is _IN_DRAW:
            source = action.source  # type: ignore[union-attr]  # a Draw
            if (source == "stock" and (self._stock or len(self._pile) > 1)) or (source == "discard" and self._pile):
                move = MOVE_STOCK if source == "stock" else MOVE_DISCARD_PILE
                self.history.append((mover, action))  # type: ignore[arg-type]  # a seat is to move
                if self._sink is None:
                    self.play(move)
                else:
                    self._step(mover, move)  # type: ignore[arg-type]  # a seat is to move
                return
        plan = self._check(action)
        if plan.__class__ is int:
            self.history.append((mover, action))  # type: ignore[arg-type]  # a seat is to move
            if self._sink is None:
                self.play(plan)
            else:
                self._step(mover, plan)  # type: ignore[arg-type]  # a seat is to move
        else:
            self._play(action, plan)  # type: ignore[arg-type]  # the melds of a close, or None

    def apply_unchecked(self, action: Action) -> None:
        """Play an action known to be legal (from :meth:`legal_actions`), without checking it."""
        if isinstance(action, Close):
            self._play(action, self._close_melds(action))
        else:
            self._play(action, None)

    def _step(self, seat: int, move: int) -> None:
        """:meth:`play` a draw or a discard and tell its events."""
        t = self._t
        if move == MOVE_STOCK:
            stock = self._stock
            drawn = stock[-1] if stock else -1
            rebuilds = len(self.reshuffles)
            self.play(move)
            if len(self.reshuffles) > rebuilds:
                self._tell(StockRebuilt(len(self._stock) + 1))
                drawn = t.id_of[self.reshuffles[-1][0]]
            self._tell(Drew(seat, "stock", None))
            self._tell(YouDrew(seat, t.card_of[drawn]))
        elif move == MOVE_DISCARD_PILE:
            self.play(move)
            self._tell(Drew(seat, "discard", t.card_of[self._taken[seat][-1]]))
        else:
            self.play(move)
            self._tell(Discarded(seat, t.card_of[move]))
        self._flush()

    def _tell(self, event: Event) -> None:
        """Tell an event (when someone listens): a private one after the public one it goes with.

        A showdown event is told with the seat to move after it, known only once
        the engine has played what plays itself: it waits for the next public
        event or the end of the action (:meth:`_flush`).
        """
        if self._sink is None:
            return
        if not isinstance(event, PrivateEvent):
            self._flush()
        self._held.append(event)

    def _flush(self) -> None:
        held = self._held
        if not held or self._sink is None:
            return
        first = held[0]
        if isinstance(first, Closed | Showed | LaidOff | Passed):
            held[0] = replace(first, to_move=self.to_move)
        for event in held:
            self._sink(event)
        held.clear()

    def copy(self, history: bool = True) -> Deal:
        """An independent copy of the deal (for search).

        With ``history`` false the copy starts an empty history, and its
        observations show only what happens after the copy: cheaper for search.
        """
        other: Deal = object.__new__(Deal)
        # Shared: the rules, the tables and the values never changed in place.
        other.rules = self.rules
        other.players = self.players
        other.first = self.first
        other.decks = self.decks
        other._t = self._t
        other.deck = self.deck
        other.seats = self.seats
        other._next_seat = self._next_seat
        other.phase = self.phase
        other.to_move = self.to_move
        other.turn = self.turn
        other._kept = self._kept
        other._close_from = self._close_from
        other._last_draw = self._last_draw
        other.result = self.result
        other.closer = self.closer
        other._face_down = self._face_down
        other._clean = self._clean
        other._chinchon = self._chinchon
        other._show_round = self._show_round
        other._added = self._added
        other._passes = self._passes
        other._at_close = self._at_close
        other._public = self._public
        # A copy tells nobody: the events are the match's own deal's.
        other._sink = None
        other._held = _UNTOLD
        # Copied: every list and set the deal changes in place.
        other._m1 = list(self._m1)
        other._m2 = list(self._m2)
        other._jk = list(self._jk)
        other._pile = list(self._pile)
        other._stock = list(self._stock)
        other._discards = list(self._discards) if history else []
        other._taken = [list(t) for t in self._taken]
        other.reshuffles = list(self.reshuffles)
        other.history = list(self.history) if history else []
        other.table = list(self.table)
        other._shown = list(self._shown)
        other._queue = list(self._queue)
        other._run_adds = set(self._run_adds)
        # A copy never writes into its match's record, and draws its own reshuffles.
        other._reshuffle = None
        if history and self._rng is not None:
            other._rng = random.Random()
            other._rng.setstate(self._rng.getstate())
        else:
            other._rng = None
        return other

    # -- the fast path: every draw and discard step is here -----------------------------

    def moves(self) -> list[int]:
        """The legal moves of the seat to move as integers, for search.

        ``MOVE_STOCK`` and ``MOVE_DISCARD_PILE`` draw; a card id ``k``
        (see :meth:`card_id`) discards that card; ``CLOSE + k`` closes
        discarding it with the best arrangement. Empty outside the draw and
        discard phases.
        """
        phase = self.phase
        if phase is _IN_DRAW:
            pile = self._pile
            # The stock may be drawn while it has cards, or while the pile has more than its top to rebuild it.
            if self._stock or len(pile) > 1:
                return [MOVE_STOCK, MOVE_DISCARD_PILE] if pile else [MOVE_STOCK]
            return [MOVE_DISCARD_PILE] if pile else []
        if phase is not _IN_DISCARD:
            return []
        seat = self.to_move
        assert seat is not None
        t = self._t
        ids, closable, natural = self._open_discards(seat, t.ids_by_suit, t.ids)
        if closable:
            forbidden = self._kept
            if natural:
                # Distinct natural cards: the kind mask is the hand, and the closes are found on it directly.
                ids.extend(
                    CLOSE + kind for kind in t.solver.closing_discards_single(self._m1[seat]) if kind != forbidden
                )
            else:
                ids.extend(CLOSE + cid for cid in self._closing_discards(seat) if cid != forbidden)
        return ids

    def _open_discards(
        self, seat: int, by_suit: list[list[tuple[T, ...]]], of: Sequence[T]
    ) -> tuple[list[T], bool, bool]:
        """The discards open to ``seat`` in card order, whether it may close, and whether its hand is
        of distinct natural cards. A discard is given as ``of[card id]``; ``by_suit[s][mask]`` are those
        of the cards of suit ``s`` in the kind mask (ids for :meth:`moves`, actions for :meth:`legal_actions`)."""
        t = self._t
        forbidden = self._kept
        m1 = self._m1[seat]
        jokers = self._jk[seat]
        R, full = t.R, t.full
        a = m1 & full
        b = m1 >> R & full
        c = m1 >> (2 * R) & full
        d = m1 >> (3 * R)
        discards: list[T]
        if forbidden < 0 and not jokers:
            discards = [*by_suit[0][a], *by_suit[1][b], *by_suit[2][c], *by_suit[3][d]]
        else:
            discards = [of[cid] for cid in self._ids(seat, distinct=True) if cid != forbidden]
        natural = not (jokers or self._m2[seat] or m1 & t.wild_ace)
        if self.turn < self._close_from:
            return discards, False, natural
        solver = t.solver
        # Distinct natural cards: m1 is the whole hand, and its suit masks are at hand.
        closable = solver.can_close_suits(m1, a, b, c, d) if natural else solver.can_close(*self._solver_hand(seat))
        return discards, closable, natural

    def _close_actions(self, seat: int, natural: bool) -> list[Action]:
        """Every close of ``seat`` as an action: each closing discard with each way of laying its melds."""
        t = self._t
        rules = self.rules
        forbidden = self._kept
        forbidden_card = t.card_of[forbidden] if forbidden >= 0 else None
        # Where a wild card stands in a run changes what the others can lay off on it.
        wilds = not natural and (self._jk[seat] or self._m1[seat] & t.wild_ace or self._m2[seat] & 1)
        closes: list[Action] = []
        for option in closing_options(self.hand(seat), rules):
            if option.discard == forbidden_card:
                continue
            melds = option.arrangement.melds
            if wilds and _melds_take_layoffs(rules, not option.arrangement.loose):
                for laid in wild_layouts(melds, rules):
                    close = Close(option.discard, laid)
                    if close not in closes:
                        closes.append(close)
            else:
                closes.append(Close(option.discard, melds))
        return closes

    def _closing_discards(self, seat: int) -> list[int]:
        t = self._t
        seen: list[int] = []
        for option in closing_options(self.hand(seat), self.rules):
            cid = t.id_of[option.discard]
            if cid not in seen:
                seen.append(cid)
        return seen

    def play(self, move: int) -> None:
        """Play a move from :meth:`moves` without checking it (search's fast path).

        This is the one implementation of the draw and the discard: :meth:`apply` checks an action, then plays it here.
        """
        seat = self.to_move
        assert seat is not None
        if move < 0:
            if move == MOVE_STOCK:
                stock = self._stock
                if not stock:
                    self._refill()
                    stock = self._stock
                cid = stock.pop()
                self._kept = -1
                self._last_draw = "stock"
            else:
                cid = self._pile.pop()
                self._kept = _kept_after_drawing(self._t, cid)
                self._taken[seat].append(cid)
                self._last_draw = "discard"
            # _add and _remove written out: this is the search's innermost loop.
            if cid == self._t.joker:
                self._jk[seat] += 1
            else:
                bit = 1 << cid
                m1 = self._m1
                if m1[seat] & bit:
                    self._m2[seat] |= bit
                else:
                    m1[seat] |= bit
            self.phase = _IN_DISCARD
        elif move < CLOSE:
            if move == self._t.joker:
                self._jk[seat] -= 1
            else:
                bit = 1 << move
                m2 = self._m2
                if m2[seat] & bit:
                    m2[seat] &= ~bit
                else:
                    self._m1[seat] &= ~bit
            taken = self._taken[seat]
            if taken and move in taken:
                taken.remove(move)
            self._pile.append(move)
            self._discards.append((seat, move))
            self.turn += 1
            self.phase = _IN_DRAW
            self.to_move = self._next_seat[seat]
            if not self._stock:
                self._stock_out()
        else:
            card = self._t.card_of[move - CLOSE]
            self._play(Close(card), self._close_melds(Close(card)))

    def card_id(self, card: Card) -> int:
        """The integer id of a card in moves and masks."""
        return self._t.id_of[card]

    def card_of(self, card_id: int) -> Card:
        """The card of an integer id."""
        return self._t.card_of[card_id]

    def masks(self, seat: int) -> tuple[int, int, int]:
        """A seat's hand as the solver sees it: kinds held, kinds held twice, wild cards (the wild ace among them)."""
        return self._solver_hand(seat)

    def held(self, seat: int) -> tuple[int, int, int]:
        """A seat's hand as the deal keeps it: kinds held, kinds held twice, jokers."""
        return self._m1[seat], self._m2[seat], self._jk[seat]

    @property
    def tables(self) -> Tables:
        """The card numbering of the deal's rules (ids, values, the solver): :class:`~chinchon.tables.Tables`."""
        return self._t

    @property
    def pile_ids(self) -> list[int]:
        """The discard pile as card ids, top last (shared: do not change it)."""
        return self._pile

    @property
    def stock_ids(self) -> list[int]:
        """The stock as card ids, top last (shared: do not change it; see :meth:`redeal_ids`)."""
        return self._stock

    @property
    def clean_close(self) -> bool:
        """Whether the closer laid every card in melds when it closed (``False`` before a close)."""
        return self._clean

    def shuffle_stock(self, rng: random.Random) -> None:
        """Shuffle the stock in place (for search: a deal whose stock order nobody knows)."""
        rng.shuffle(self._stock)

    def redeal_ids(self, hands: Mapping[int, int], stock: list[int]) -> None:
        """Deal the cards of these seats and of the stock anew, in place (for search: a sampled deal shaped by
        what the others played; :func:`chinchon.bots.playout.sample_deal`).

        ``hands`` maps seats to kind masks of single natural cards; ``stock`` is
        card ids, top last (kept, not copied). Only for seats whose hands hold
        single natural cards and a stock of such cards (one deck, no wild
        card): together they must be the cards those seats and the stock held.

        Raises:
            ValueError: the cards are not those the seats and the stock held, or the hands are not of single
                natural cards.
        """
        before = after = 0
        count = len(self._stock) - len(stock)
        for seat, mask in hands.items():
            if self._m2[seat] or self._jk[seat] or mask & self._t.wild_ace:
                raise ChinchonError(N_("only hands of single natural cards can be dealt anew by their masks"))
            before |= self._m1[seat]
            after |= mask
            count += self._m1[seat].bit_count() - mask.bit_count()
        for cid in self._stock:
            before |= 1 << cid
        for cid in stock:
            after |= 1 << cid
        if before != after or count:
            raise ChinchonError(N_("the cards dealt anew are not the cards the hands and the stock held"))
        for seat, mask in hands.items():
            self._m1[seat] = mask
        self._stock = stock

    def redeal(self, hands: Mapping[int, Sequence[Card]], stock: Sequence[Card], face_down: Card | None = None) -> Deal:
        """A copy of the deal with the cards nobody but their holder sees put elsewhere: these seats' hands, the
        stock (top first) and the closer's face-down card. For search, and to test what a seat may see.

        The cards must be those the seats, the stock and the face-down card held;
        the cards each seat is known to hold (taken from the discard pile) stay
        listed as taken.

        Raises:
            ValueError: the cards are not those that were there.
        """
        t = self._t
        had = Counter(card for seat in hands for card in self.hand(seat)) + Counter(self.stock)
        have = Counter(card for cards in hands.values() for card in cards) + Counter(stock)
        if self.face_down is not None:
            had[self.face_down] += 1
        if face_down is not None:
            have[face_down] += 1
        if had != have or (face_down is None) != (self.face_down is None):
            raise ChinchonError(N_("the cards dealt anew are not the cards the hands and the stock held"))
        other = self.copy()
        for seat, cards in hands.items():
            other._m1[seat] = other._m2[seat] = other._jk[seat] = 0
            for card in cards:
                other._add(seat, t.id_of[card])
        other._stock = [t.id_of[card] for card in reversed(stock)]
        if face_down is not None:
            other._face_down = t.id_of[face_down]
        return other

    @classmethod
    def sample(cls, observation: Observation, rng: random.Random) -> Deal:
        """A deal consistent with what a seat observes, the hidden cards dealt at random.

        The seat's own hand, the discard pile and the cards each seat is known
        to hold stay where they are; the other cards are shuffled into the
        other hands and the stock. For search (determinization).

        Raises:
            ValueError: the observation is not of a draw or discard phase, or is inconsistent.
        """
        obs = observation
        if obs.phase not in (Phase.DRAW, Phase.DISCARD):
            raise ChinchonError(N_("only a deal in its draw or discard phase can be sampled"))
        rules = obs.rules
        t = tables_for(rules)
        pool = Counter(rules.cards(decks=obs.decks))
        pool.subtract(obs.hand)
        pool.subtract(obs.discard_pile)
        for seat in obs.seats:
            if seat != obs.seat:
                pool.subtract(obs.taken[seat])
        if any(count < 0 for count in pool.values()):
            raise ChinchonError(N_("the observation holds more cards than the deck"))
        unknown = list(pool.elements())
        rng.shuffle(unknown)
        deal = object.__new__(cls)
        deal.rules = rules
        deal.players = obs.players
        deal.first = obs.first
        deal.decks = obs.decks
        deal._t = t
        deal._rng = random.Random(rng.getrandbits(64))
        deal._reshuffle = None
        deal.deck = ()
        deal.seats = obs.seats
        deal._next_seat = _next_seats(obs.seats, obs.players)
        deal._m1 = [0] * obs.players
        deal._m2 = [0] * obs.players
        deal._jk = [0] * obs.players
        for card in obs.hand:
            deal._add(obs.seat, t.id_of[card])
        for seat in obs.seats:
            if seat == obs.seat:
                continue
            for card in obs.taken[seat]:
                deal._add(seat, t.id_of[card])
            for _ in range(obs.hand_sizes[seat] - len(obs.taken[seat])):
                deal._add(seat, t.id_of[unknown.pop()])
        if len(unknown) != obs.stock_size:
            raise ChinchonError(N_("the observation's stock size does not match the unseen cards"))
        deal._stock = [t.id_of[card] for card in unknown]
        deal._pile = [t.id_of[card] for card in obs.discard_pile]
        deal.phase = obs.phase
        deal.to_move = obs.to_move
        deal.turn = obs.turn
        drew_pile = obs.phase is Phase.DISCARD and obs.last_draw == "discard" and obs.to_move is not None
        drawn = t.id_of[obs.taken[obs.to_move][-1]] if drew_pile and obs.to_move is not None else -1
        deal._kept = _kept_after_drawing(t, drawn) if drawn >= 0 else -1
        deal._close_from = _first_closing_turn(rules, obs.seats)
        deal._last_draw = obs.last_draw
        deal._discards = [(seat, t.id_of[card]) for seat, card in obs.discards]
        deal._taken = [[t.id_of[card] for card in taken] for taken in obs.taken]
        # Only how many: the void rule counts the rebuilds.
        deal.reshuffles = [()] * obs.rebuilds
        deal.history = []
        deal.result = None
        deal.closer = None
        deal._face_down = -1
        deal._clean = False
        deal._chinchon = False
        deal.table = []
        deal._shown = [False] * obs.players
        deal._queue = []
        deal._show_round = False
        deal._added = False
        deal._run_adds = set()
        deal._passes = 0
        deal._at_close = ()
        deal._public = None
        deal._sink = None
        deal._held = _UNTOLD
        return deal

    # -- checking ---------------------------------------------------------------------

    def _check(self, action: Action) -> int | Sequence[tuple[Card, ...]] | None:
        """Raise IllegalAction unless the action is legal; else how to play it: a draw's or a discard's
        move (as :meth:`play` takes it), a close's melds, ``None`` for a showdown decision."""
        phase = self.phase
        seat = self.to_move
        if phase is Phase.OVER or seat is None:
            raise IllegalAction(N_("the deal is over"))
        if isinstance(action, Draw):
            if phase is not Phase.DRAW:
                raise IllegalAction(N_("you have already drawn; discard or close"))
            if action.source == "stock":
                # The stock may be drawn while it has cards, or while the pile has more than its top to rebuild it.
                if self._stock or len(self._pile) > 1:
                    return MOVE_STOCK
                raise IllegalAction(N_("the stock is empty"))
            if action.source == "discard":
                if self._pile:
                    return MOVE_DISCARD_PILE
                raise IllegalAction(N_("the discard pile is empty"))
            raise IllegalAction(N_("draw from the stock or from the discard pile, not {source}"), source=action.source)
        if isinstance(action, Discard | Close):
            if phase is Phase.DRAW:
                raise IllegalAction(N_("you must draw first"))
            if phase is not Phase.DISCARD:
                raise IllegalAction(N_("the deal has been closed"))
            card = action.discard if isinstance(action, Close) else action.card
            held = self._t.id_of.get(card) if isinstance(card, Card) else None
            if held is None or not self._holds(seat, held):
                raise IllegalAction(N_("{card} is not in your hand"), card=card)
            if held == self._kept:
                raise IllegalAction(
                    N_("you may not discard {card}: you have just taken it from the discard pile"), card=card
                )
            if isinstance(action, Discard):
                return held
            if not self.may_close():
                raise IllegalAction(N_("nobody may close in the first round of turns"))
            return self._close_melds(action, check=True)
        if isinstance(action, Show | LayOff | Pass):
            if phase is not Phase.SHOWDOWN:
                raise IllegalAction(N_("there is no showdown yet"))
            self._check_showdown(action)
            return None
        if isinstance(action, ReEnter):
            raise IllegalAction(N_("nobody is deciding on re-entry now"))
        raise IllegalAction(N_("not an action: {text}"), text=repr(action))

    def _close_melds(self, action: Close, check: bool = False) -> Sequence[tuple[Card, ...]]:
        seat = self.to_move
        assert seat is not None
        rules = self.rules
        rest = self.hand(seat)
        rest.remove(action.discard)
        if action.melds is None:
            # The legal close with the fewest loose points; else the best arrangement, to say why not.
            hand = [*rest, action.discard]
            options = [o for o in closing_options(hand, rules) if o.discard == action.discard]
            arrangement = options[0].arrangement if options else best_arrangement(rest, rules)
            melds: Sequence[tuple[Card, ...]] = arrangement.melds
            loose = list(arrangement.loose)
        else:
            melds, loose = _take_melds(rest, action.melds, rules) if check else _split(rest, action.melds)
        if check:
            points = sum(rules.value(card) for card in loose)
            within = self._t.solver.within_close_limit
            if not within(points, 0):
                raise IllegalAction(
                    N_("closing would leave {points} loose points; at most {limit} are allowed"),
                    points=points,
                    limit=rules.close_limit,
                )
            if not within(0, len(loose)):
                raise IllegalAction(
                    N_("closing would leave {count} loose cards; at most {limit} are allowed"),
                    count=len(loose),
                    limit=rules.close_max_loose_cards,
                )
        return melds

    # -- playing ----------------------------------------------------------------------

    def _play(self, action: Action, melds: Sequence[tuple[Card, ...]] | None) -> None:
        seat = self.to_move
        assert seat is not None
        if isinstance(action, Close) and melds is not None:
            action = Close(action.discard, tuple(tuple(meld) for meld in melds))
        self.history.append((seat, action))
        if isinstance(action, Draw):
            self._step(seat, MOVE_STOCK if action.source == "stock" else MOVE_DISCARD_PILE)
        elif isinstance(action, Discard):
            self._step(seat, self._t.id_of[action.card])
        elif isinstance(action, Close):
            assert melds is not None
            self._close(seat, action.discard, melds)
        else:
            self._play_showdown(seat, action)
        if self._sink is not None:
            self._flush()

    def _stock_out(self) -> None:
        """At the end of a turn that emptied the stock: the deal is void if the stock may not be rebuilt again."""
        most = self.rules.max_reshuffles
        if most is None or len(self.reshuffles) < most:
            return
        loose = tuple(tuple(self.hand(seat)) for seat in range(self.players))
        self.result = DealResult(None, (0,) * self.players, (), loose, False, False, void=True)
        self.phase = Phase.OVER
        self.to_move = None

    def _refill(self) -> None:
        top = self._pile.pop()
        card_of = self._t.card_of
        if self._reshuffle is not None:
            cards = [card_of[cid] for cid in self._pile]
            order = list(self._reshuffle(cards))
            # Only a caller's reshuffle can lose or add cards; a shuffle here cannot.
            if Counter(order) != Counter(cards):
                raise ChinchonError(N_("the reshuffled stock is not the discard pile"))
            self.reshuffles.append(tuple(order))
            id_of = self._t.id_of
            self._stock = [id_of[card] for card in reversed(order)]
        else:
            # A shuffle moves a list of ids exactly as it would the list of their cards.
            ids = list(self._pile)
            if self._rng is None:
                self._rng = random.Random(0)
            self._rng.shuffle(ids)
            self.reshuffles.append(tuple([card_of[cid] for cid in ids]))
            ids.reverse()
            self._stock = ids
        self._pile = [top]

    def _close(self, seat: int, discard: Card, melds: Sequence[tuple[Card, ...]]) -> None:
        rules = self.rules
        t = self._t
        cid = t.id_of[discard]
        self._at_close = tuple(self.hand(seat))
        self._remove(seat, cid)
        self._face_down = cid
        self.closer = seat
        hand7 = self.hand(seat)
        self._chinchon = is_chinchon(hand7, rules)
        # A face-down card taken from the pile stays in ``taken`` until the deal is over: its leaving would show it.
        for meld in melds:
            for card in meld:
                self._remove(seat, t.id_of[card])
                self._untake(seat, t.id_of[card])
        self._clean = self.hand_size(seat) == 0
        open_melds = _melds_take_layoffs(rules, self._clean)
        self.table = [TableMeld(seat, tuple(meld), open_melds) for meld in melds]
        self.turn += 1
        self.phase = Phase.SHOWDOWN
        if self._sink is not None:
            self._tell(Closed(seat, tuple(tuple(meld) for meld in melds), open_melds, None))
            self._tell(YouPutFaceDown(seat, discard))
        others = self.seats_after(seat)
        if not rules.layoffs:
            # Without lay-offs the others' hands are shown by the rules, not by a decision: the deal's end tells them.
            for other in others:
                arrangement = best_arrangement(self.hand(other), rules)
                self._show(other, arrangement.melds, told=False)
            self._finish()
            return
        # One pass round the table: the others in playing order, then the closer when it lays off too.
        self._queue = [*others, seat] if rules.closer_lays_off else others
        self._shown[seat] = True
        self._show_round = True
        self._added = False
        self._run_adds = set()
        self.to_move = self._queue[0]
        self._advance()

    # -- the showdown -----------------------------------------------------------------

    def _untake(self, seat: int, cid: int) -> None:
        taken = self._taken[seat]
        if cid in taken:
            taken.remove(cid)

    def _show(self, seat: int, melds: Sequence[tuple[Card, ...]], told: bool = True) -> None:
        for meld in melds:
            for card in meld:
                self._remove(seat, self._t.id_of[card])
                self._untake(seat, self._t.id_of[card])
            self.table.append(TableMeld(seat, tuple(meld), True))
        self._shown[seat] = True
        if told and self._sink is not None:
            self._tell(Showed(seat, tuple(tuple(meld) for meld in melds), None))

    def _closed_to(self, seat: int) -> dict[int, str]:
        """The table's melds that take no lay-off from ``seat`` now, by index, each with why: a clean close's melds,
        and with two decks a run that took its card from the seat this round (RULES.md D7, D8). The one place
        those rules are read; what card fits an open meld is :func:`~chinchon.melds.meld_extensions`'s to say."""
        closed: dict[int, str] = {}
        one_a_round = self.decks > 1 and self.rules.layoff_one_per_run_per_round
        for index, meld in enumerate(self.table):
            if not meld.open:
                closed[index] = N_("the melds of a clean close take no cards")
            elif one_a_round and (seat, index) in self._run_adds:
                closed[index] = N_("a run takes one card from each player in each round")
        return closed

    def _layoffs(self, seat: int, any_one: bool = False) -> list[LayOff]:
        """Every lay-off ``seat`` may make now, in a fixed order; with ``any_one``, one of them (or none)."""
        rules = self.rules
        out: list[LayOff] = []
        t = self._t
        id_of, joker = t.id_of, t.joker
        held, jokers = self._m1[seat], self._jk[seat]
        closed = self._closed_to(seat)
        for index, meld in enumerate(self.table):
            if index in closed:
                continue
            # A meld takes few cards: ask the hand about each of them rather than the meld about each card held.
            for card in meld_extensions(meld.cards, rules):
                cid = id_of.get(card)
                if cid is not None and (jokers > 0 if cid == joker else held >> cid & 1):
                    out.append(LayOff(card, index))
                    if any_one:
                        return out
        out.sort(key=lambda a: (a.card, a.meld_index))
        return out

    def _showdown_actions(self) -> list[Action]:
        seat = self.to_move
        assert seat is not None
        if self._show_round and not self._shown[seat]:
            rules = self.rules
            if self._jk[seat] or self._t.wild_ace & self._m1[seat]:
                shows: dict[Show, None] = {}
                for arrangement in arrangements(self.hand(seat), rules):
                    for laid in wild_layouts(arrangement.melds, rules):
                        shows[Show(laid)] = None
                return list(shows)
            return [Show(a.melds) for a in arrangements(self.hand(seat), rules)]
        return [*self._layoffs(seat), _PASS]

    def _check_showdown(self, action: Show | LayOff | Pass) -> None:
        seat = self.to_move
        assert seat is not None
        must_show = self._show_round and not self._shown[seat]
        if isinstance(action, Show):
            if not must_show:
                raise IllegalAction(N_("you have already shown your melds"))
            _take_melds(self.hand(seat), action.melds, self.rules)
            return
        if must_show:
            raise IllegalAction(N_("show your melds first"))
        if isinstance(action, Pass):
            return
        index = action.meld_index
        if type(index) is not int or not 0 <= index < len(self.table):
            raise IllegalAction(N_("there is no meld {index} on the table"), index=index)
        card = action.card
        cid = self._t.id_of.get(card) if isinstance(card, Card) else None
        if cid is None or not self._holds(seat, cid):
            raise IllegalAction(N_("{card} is not in your hand"), card=card)
        meld = self.table[index]
        closed = self._closed_to(seat)
        if index in closed:
            raise IllegalAction(closed[index])
        if card not in meld_extensions(meld.cards, self.rules):
            raise IllegalAction(N_("{card} does not fit {meld}"), card=card, meld=meld)

    def _play_showdown(self, seat: int, action: Action) -> None:
        if isinstance(action, Show):
            melds, _ = _split(self.hand(seat), action.melds)
            self._show(seat, [normalize_meld(m, self.rules) or m for m in melds])
        elif isinstance(action, LayOff):
            meld = self.table[action.meld_index]
            extended = meld_extensions(meld.cards, self.rules)[action.card]
            self.table[action.meld_index] = TableMeld(meld.owner, extended, meld.open)
            if self._sink is not None:
                self._tell(LaidOff(seat, action.card, action.meld_index, extended, meld.owner, None))
            self._remove(seat, self._t.id_of[action.card])
            self._untake(seat, self._t.id_of[action.card])
            self._added = True
            # Lay-offs onto runs are counted only where a run takes one card a round (two decks).
            if self.decks > 1 and self.rules.layoff_one_per_run_per_round and is_run(extended, self.rules):
                self._run_adds.add((seat, action.meld_index))
        else:
            if self._sink is not None:
                self._tell(Passed(seat, None))
            self._queue.pop(0)
            if not self._queue:
                self._next_round()
            if self.phase is Phase.SHOWDOWN:
                self.to_move = self._queue[0]
        if self.phase is Phase.SHOWDOWN:
            self._advance()

    def seats_after(self, seat: int) -> list[int]:
        """The other seats that play the deal, in playing order from the one after ``seat``.

        Raises:
            RulesError: ``seat`` does not play this deal.
        """
        if seat not in self.seats:
            raise RulesError(N_("seat {seat} does not play in this deal"), seat=seat)
        i = self.seats.index(seat)
        return [*self.seats[i + 1 :], *self.seats[:i]]

    def _next_round(self) -> None:
        self._passes += 1
        passes = self.rules.layoff_passes
        if (not self._show_round and not self._added) or (passes is not None and self._passes >= passes):
            self._finish()
            return
        closer = self.closer
        assert closer is not None
        seats = self.seats_after(closer)
        if self.rules.closer_lays_off:
            seats.append(closer)
        self._queue = seats
        self._show_round = False
        self._added = False
        self._run_adds = set()

    def _advance(self) -> None:
        """Play the decisions that have only one choice, and skip seats with nothing to add."""
        while self.phase is Phase.SHOWDOWN:
            seat = self._queue[0]
            self.to_move = seat
            if self._show_round and not self._shown[seat]:
                options = self._showdown_actions()
                if len(options) > 1:
                    return
                self.history.append((seat, options[0]))
                self._show(seat, options[0].melds if isinstance(options[0], Show) else ())
                continue
            if self.hand_size(seat) and self._layoffs(seat, any_one=True):
                return
            self._queue.pop(0)
            if not self._queue:
                self._next_round()

    def _finish(self) -> None:
        rules = self.rules
        closer = self.closer
        assert closer is not None
        points = []
        loose = []
        for seat in range(self.players):
            cards = self.hand(seat)
            loose.append(tuple(cards))
            if seat == closer and self._clean:
                if self._chinchon and isinstance(rules.chinchon, int) and not isinstance(rules.chinchon, bool):
                    points.append(rules.chinchon)
                else:
                    points.append(rules.clean_close_bonus)
            else:
                points.append(sum(rules.value(card) for card in cards))
        self.result = DealResult(closer, tuple(points), tuple(self.table), tuple(loose), self._chinchon, self._clean)
        if self._face_down >= 0:
            self._untake(closer, self._face_down)
        self.phase = Phase.OVER
        self.to_move = None
        self._queue = []

    def resolve_showdown(self) -> None:
        """Play every open showdown decision, each seat choosing what leaves it the fewest loose points.

        Each seat assumes the later seats do the same; ties go to the first
        choice in legal-action order. The search is exact up to
        ``SHOWDOWN_SEARCH_NODES`` states (every 2- to 4-player showdown seen
        so far), then greedy. Does nothing outside a showdown.
        """
        memo: dict[Any, tuple[int, ...]] = {}
        while self.phase is _IN_SHOWDOWN:
            # The action is one of legal_actions(): no need to check it again.
            self.apply_unchecked(best_showdown_action(self, memo))

    def best_showdown_action(self) -> Action:
        """The showdown decision :meth:`resolve_showdown` would play for the seat to move.

        Raises:
            IllegalAction: the deal is over, or not yet in its showdown.
        """
        if self.phase is Phase.OVER:
            raise IllegalAction(N_("the deal is over"))
        if self.phase is not _IN_SHOWDOWN:
            raise IllegalAction(N_("there is no showdown yet"))
        return best_showdown_action(self, {})

    def showdown_key(self) -> tuple[Any, ...]:
        """What the showdown search tells states apart by: the table, the hands and whose turn it is."""
        return (
            tuple(meld.cards for meld in self.table),
            tuple(self._m1),
            tuple(self._m2),
            tuple(self._jk),
            tuple(self._queue),
            tuple(self._shown),
            self._show_round,
            self._added,
            frozenset(self._run_adds),
            # The rounds played matter only where they are counted: elsewhere equal states would not be shared.
            self._passes if self.rules.layoff_passes is not None else 0,
        )

    # -- what a seat knows ------------------------------------------------------------

    def _public_lists(self) -> tuple[list[tuple[int, str]], dict[int, str], list[tuple[int, Card]]]:
        """The history as each seat's own texts, the texts others see where they differ (a close's hidden
        card), and the discards as cards: kept as the deal goes on.

        Observations would otherwise rebuild the whole history at every action,
        which makes a long deal (a stock rebuilt many times) quadratic.
        """
        cache = self._public
        if cache is None or not cache.fits(self.history, self._discards):
            cache = _PublicCache(self.history, self._discards)
            self._public = cache
        texts, hidden, discards = cache.texts, cache.hidden, cache.discards
        for who, action in self.history[len(texts) :]:
            if isinstance(action, Close):
                # The melds of a close are shown; the card put face down is not.
                hidden[len(texts)] = " ".join(["close", *(str(TableMeld(who, m)) for m in action.melds or ())])
            texts.append((who, str(action)))
        card_of = self._t.card_of
        discards.extend((who, card_of[cid]) for who, cid in self._discards[len(discards) :])
        return texts, hidden, discards

    @overload
    def observation(self, seat: int) -> Observation: ...

    @overload
    def observation(self, seat: None) -> PublicObservation: ...

    def observation(self, seat: int | None) -> Observation | PublicObservation:
        """Everything ``seat`` may know about the deal, and nothing else; with ``None``, what anyone may know.

        Raises:
            RulesError: ``seat`` is not a seat of the deal.
        """
        if seat is None:
            texts, _ = self._histories(None)
            return PublicObservation(seat=None, hand=(), history=texts, legal_actions=(), **self._public_facts())
        if type(seat) is not int or not 0 <= seat < self.players:
            raise RulesError(N_("seat {value} is not one of the {players} seats"), value=seat, players=self.players)
        texts, _ = self._histories(seat)
        return Observation(
            seat=seat,
            hand=tuple(self.hand(seat)),
            history=texts,
            legal_actions=tuple(self.legal_actions()) if self.to_move == seat else (),
            **self._public_facts(),
        )

    def _public_facts(self) -> dict[str, Any]:
        """What anyone watching may know of the deal, by :class:`~chinchon.observation.PublicObservation` field:
        the allow-list every observation is built from (a seat's adds its hand, history and legal actions)."""
        card_of = self._t.card_of
        over = self.phase is Phase.OVER
        _, discards = self._histories(None)
        return {
            "players": self.players,
            "rules": self.rules,
            "seats": self.seats,
            "decks": self.decks,
            "phase": self.phase,
            "to_move": self.to_move,
            "first": self.first,
            "turn": self.turn,
            "hand_sizes": tuple(self.hand_size(s) for s in range(self.players)),
            "stock_size": len(self._stock),
            "rebuilds": len(self.reshuffles),
            "discard_pile": tuple(card_of[cid] for cid in self._pile),
            "discards": discards,
            "taken": tuple(tuple(card_of[cid] for cid in taken) for taken in self._taken),
            "last_draw": self._last_draw,
            "closer": self.closer,
            "table": tuple(self.table),
            "revealed": tuple(tuple(self.hand(s)) for s in range(self.players)) if over else (),
            "result": self.result,
        }

    def _histories(self, seat: int | None) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[int, Card], ...]]:
        """The history as ``seat`` reads it (``None``: as anyone does: a close without its face-down card),
        and the discards as cards."""
        texts, hidden, discards = self._public_lists()
        if hidden:
            texts = list(texts)
            for index, text in hidden.items():
                if texts[index][0] != seat:
                    texts[index] = (texts[index][0], text)
        return tuple(texts), tuple(discards)


def _first_closing_turn(rules: Rules, seats: Sequence[int]) -> int:
    """The first turn (counted from 0) at which a seat may close: the second round where ``close_on_first_turn`` is
    false (RULES.md D5). The one place that rule is read."""
    return 0 if rules.close_on_first_turn else len(seats)


def _kept_after_drawing(t: Tables, card_id: int) -> int:
    """The card a seat that just took ``card_id`` from the discard pile may not discard at once
    (``forbid_rediscard``, RULES.md D4), or -1. The one place that rule is read."""
    return card_id if t.forbid_rediscard else -1


def _melds_take_layoffs(rules: Rules, clean: bool) -> bool:
    """Whether a closer's melds take lay-offs (RULES.md D7): with lay-offs, unless the close matched every card
    and ``layoffs_on_clean_close`` is false. The one place that rule is read."""
    return rules.layoffs and (not clean or rules.layoffs_on_clean_close)


def _next_seats(seats: tuple[int, ...], players: int) -> list[int]:
    """The seat that plays after each seat that plays (by seat number; -1 for a seat that is out)."""
    after = [-1] * players
    for i, seat in enumerate(seats):
        after[seat] = seats[(i + 1) % len(seats)]
    return after


def check_seat(seat: object) -> None:
    """Refuse a seat that is not a whole number (``True`` and ``0.0`` equal seats 1 and 0, but are not seats)."""
    if type(seat) is not int:
        raise IllegalAction(N_("seat: expected a seat number, got {value}"), value=repr(seat))


def _check_deck(deck: list[Card], cards: list[Card], rules: Rules) -> None:
    have, want = Counter(deck), Counter(cards)
    for card, count in have.items():
        if not isinstance(card, Card):
            raise ChinchonError(N_("the deck holds something that is not a card: {text}"), text=repr(card))
        if count > want.get(card, 0):
            if not want.get(card):
                raise ChinchonError(
                    N_("the deck holds {card}, which the {deck} deck does not have"), card=card, deck=rules.deck
                )
            raise ChinchonError(
                N_("the deck holds {card} {count} times; the game has {expected}"),
                card=card,
                count=count,
                expected=want[card],
            )
    for card, count in want.items():
        if have.get(card, 0) < count:
            raise ChinchonError(N_("the deck is missing {card}"), card=card)


def _split(cards: Sequence[Card], melds: Iterable[Sequence[Card]]) -> tuple[list[tuple[Card, ...]], list[Card]]:
    rest = list(cards)
    out = []
    for meld in melds:
        for card in meld:
            rest.remove(card)
        out.append(tuple(meld))
    return out, rest


def _take_melds(
    cards: Sequence[Card], melds: Iterable[Sequence[Card]], rules: Rules
) -> tuple[list[tuple[Card, ...]], list[Card]]:
    """The melds laid out for the table and the loose cards, or IllegalAction."""
    rest = list(cards)
    out = []
    if not isinstance(melds, tuple | list):
        raise IllegalAction(N_("not a list of melds: {text}"), text=repr(melds))
    for meld in melds:
        if not isinstance(meld, tuple | list) or not all(isinstance(card, Card) for card in meld):
            raise IllegalAction(N_("not a list of melds: {text}"), text=repr(melds))
        laid = normalize_meld(meld, rules)
        if laid is None or not is_meld(meld, rules):
            raise IllegalAction(N_("{meld} is not a meld"), meld="[" + " ".join(map(str, meld)) + "]")
        for card in meld:
            if card not in rest:
                raise IllegalAction(N_("{card} is not in your hand"), card=card)
            rest.remove(card)
        out.append(laid)
    return out, rest


def stack_deck(
    rules: Rules,
    hands: Sequence[Sequence[Card]],
    discard: Card | None = None,
    stock: Sequence[Card] = (),
    *,
    decks: int | None = None,
) -> list[Card]:
    """A full deck order that deals these hands (the first player's first), this
    face-up card and this stock top; the other cards follow in the rules' order.

    Hands may be partial: their missing cards come from the rest of the deck.

    Raises:
        ValueError: the cards asked for are more than the deck holds.
    """
    players = len(hands)
    if decks is None:
        decks = rules.decks_for(players)
    rest = rules.cards(decks=decks)

    def take(card: Card) -> Card:
        if card not in rest:
            raise ChinchonError(N_("the deck has no more {card} to stack"), card=card)
        rest.remove(card)
        return card

    wanted = [[take(card) for card in hand] for hand in hands]
    top = take(discard) if discard is not None else None
    stock_top = [take(card) for card in stock]
    size = rules.hand_size
    for hand in wanted:
        if len(hand) > size:
            raise ChinchonError(N_("a hand holds {count} cards; the rules deal {size}"), count=len(hand), size=size)
    filler = iter([card for card in rest if card not in stock_top])
    rest_cards = list(rest)
    for hand in wanted:
        while len(hand) < size:
            card = next(filler)
            rest_cards.remove(card)
            hand.append(card)
    deck = [wanted[i % players][i // players] for i in range(size * players)]
    if top is None:
        top = rest_cards.pop(0)
    return [*deck, top, *stock_top, *rest_cards]
