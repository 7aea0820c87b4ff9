"""A deal's bookkeeping: where every card is (hands, stock, pile, the face-down card), what is told, what anyone may
know, and the search interface over it (copies, masks, re-dealing the hidden cards).

The base of :class:`chinchon.deal.Deal`; the showdown (:mod:`chinchon.deal.showdown`) and the turn
(:mod:`chinchon.deal`) are built on it. Hands are kept as kind masks (``_m1`` the kinds held, ``_m2`` those held
twice) and a count of jokers, in the numbering of the rules' :class:`~chinchon.tables.Tables`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Self

from chinchon.actions import Action, Close
from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.events import Closed, Event, LaidOff, Passed, PrivateEvent, Showed
from chinchon.observation import DealResult, Observation, Phase, TableMeld
from chinchon.rules import Rules, RulesError
from chinchon.tables import Tables, tables_for

Reshuffle = Callable[[list[Card]], list[Card]]
"""How a stock is rebuilt: a function from the discards to their new order, top first."""
Tell = Callable[[Event], None]
"""Who a deal tells its events to."""
_UNTOLD: list[Event] = []
"""The events held by a deal that tells nobody: none, ever (nothing is told without a listener)."""
_BUILD = object()
"""The key a deal's constructor asks for: a deal is built by ``Deal.new``, a copy or a sample, never by hand."""
_ATTRIBUTES = (
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
"""Every attribute of a deal: its slots, and what a pickle or a deep copy of it holds."""


def _blank(cls: type[_Hands]) -> _Hands:
    """A deal of this class with no attribute set yet (its pickle's state sets them)."""
    return cls(_BUILD)


class _PublicCache:
    """What a deal's observations show of its history and discards, for one history and one list of discards."""

    def __init__(self, history: list[tuple[int, Action]], discards: list[tuple[int, int]]) -> None:
        self.history = history
        self.discards_of = discards
        self.texts: list[tuple[int, str]] = []
        self.hidden: dict[int, str] = {}
        self.discards: list[tuple[int, Card]] = []

    def __reduce__(self) -> tuple[type[_PublicCache], tuple[Any, ...], dict[str, Any]]:
        return (
            _PublicCache,
            (self.history, self.discards_of),
            {"texts": self.texts, "hidden": self.hidden, "discards": self.discards},
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.texts = state["texts"]
        self.hidden = state["hidden"]
        self.discards = state["discards"]

    def fits(self, history: list[tuple[int, Action]], discards: list[tuple[int, int]]) -> bool:
        """Whether these are still the lists the cache was made for, only grown since."""
        return (
            history is self.history
            and discards is self.discards_of
            and len(self.texts) <= len(history)
            and len(self.discards) <= len(discards)
        )


class _Hands:
    """A deal's state and its bookkeeping (the base of :class:`chinchon.deal.Deal`)."""

    # Slots: a deal has more attributes than an instance dictionary keeps fast, and search reads them all the time.
    __slots__ = _ATTRIBUTES

    def __init__(self, key: object = None) -> None:
        if key is not _BUILD:
            raise TypeError("build a deal with Deal.new(rules, players, ...)")

    def __reduce__(self) -> tuple[Callable[[type[_Hands]], _Hands], tuple[type[_Hands]], dict[str, Any]]:
        # A deal pickles and deep-copies as its attributes: a deal is built only with its key, and the compiled
        # build's classes would otherwise pickle in their own way.
        return (_blank, (type(self),), {name: getattr(self, name) for name in _ATTRIBUTES})

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    rules: Rules
    players: int
    first: int
    decks: int
    deck: tuple[Card, ...]
    seats: tuple[int, ...]
    phase: Phase
    to_move: int | None
    turn: int
    result: DealResult | None
    closer: int | None
    history: list[tuple[int, Action]]
    reshuffles: list[tuple[Card, ...]]
    table: list[TableMeld]
    _t: Tables
    _rng: random.Random | None
    _reshuffle: Reshuffle | None
    _m1: list[int]
    _m2: list[int]
    _jk: list[int]
    _next_seat: list[int]
    _pile: list[int]
    _stock: list[int]
    _close_from: int
    _kept: int
    _last_draw: str | None
    _discards: list[tuple[int, int]]
    _taken: list[list[int]]
    _face_down: int
    _clean: bool
    _chinchon: bool
    _shown: list[bool]
    _queue: list[int]
    _show_round: bool
    _added: bool
    _run_adds: set[tuple[int, int]]
    _passes: int
    _at_close: tuple[Card, ...]
    _public: _PublicCache | None
    _sink: Tell | None
    _held: list[Event]

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

    def _untake(self, seat: int, cid: int) -> None:
        taken = self._taken[seat]
        if cid in taken:
            taken.remove(cid)

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

    def seats_after(self, seat: int) -> list[int]:
        """The other seats that play the deal, in playing order from the one after ``seat``.

        Raises:
            RulesError: ``seat`` does not play this deal.
        """
        if seat not in self.seats:
            raise RulesError(N_("seat {seat} does not play in this deal"), seat=seat)
        i = self.seats.index(seat)
        return [*self.seats[i + 1 :], *self.seats[:i]]

    # -- telling -----------------------------------------------------------------------

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

    # -- the search interface ----------------------------------------------------------

    def copy(self, history: bool = True) -> Self:
        """An independent copy of the deal (for search).

        With ``history`` false the copy starts an empty history, and its
        observations show only what happens after the copy: cheaper for search.
        """
        other = type(self)(_BUILD)
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

    def redeal(self, hands: Mapping[int, Sequence[Card]], stock: Sequence[Card], face_down: Card | None = None) -> Self:
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
    def sample(cls, observation: Observation, rng: random.Random) -> Self:
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
        deal = cls(_BUILD)
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

    # -- what anyone may know ----------------------------------------------------------

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


def _next_seats(seats: tuple[int, ...], players: int) -> list[int]:
    """The seat that plays after each seat that plays (by seat number; -1 for a seat that is out)."""
    after = [-1] * players
    for i, seat in enumerate(seats):
        after[seat] = seats[(i + 1) % len(seats)]
    return after
