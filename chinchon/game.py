"""One deal (``Deal``) and a whole match (``Match``): phases, actions, scores.

A deal is dealt from a stacked deck or shuffled with a ``random.Random``;
every action is checked by :meth:`Deal.apply`, which raises
:class:`IllegalAction` saying why. ``Match`` plays deal after deal, keeps the
totals, eliminations and re-entries, and gives each seat its
:class:`Observation`.

>>> from chinchon.cards import parse_cards
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

import enum
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

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
from chinchon.cards import JOKER, Card
from chinchon.errors import N_, ChinchonError
from chinchon.melds import (
    arrangements,
    best_arrangement,
    closing_options,
    is_chinchon,
    is_meld,
    is_run,
    meld_extensions,
    normalize_meld,
    solver_for,
    wild_layouts,
)
from chinchon.rules import Rules, RulesError

__all__ = [
    "CLOSE",
    "MOVE_DISCARD_PILE",
    "MOVE_STOCK",
    "Deal",
    "DealResult",
    "Match",
    "Observation",
    "Phase",
    "TableMeld",
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


class Phase(enum.Enum):
    """What the seat to move does: draw, discard (or close), show and lay off; or nothing."""

    DRAW = "draw"
    DISCARD = "discard"
    SHOWDOWN = "showdown"
    OVER = "over"


# The phases as module names: looking a member up on the enum class costs more, on every action.
_IN_DRAW = Phase.DRAW
_IN_DISCARD = Phase.DISCARD
_IN_SHOWDOWN = Phase.SHOWDOWN


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table after a close: its owner, its cards, and whether it takes lay-offs."""

    owner: int
    cards: tuple[Card, ...]
    open: bool = True

    def __str__(self) -> str:
        return "[" + " ".join(map(str, self.cards)) + "]"


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended.

    ``points`` is what the deal adds to each seat's total (the clean-close
    bonus included); ``loose`` the cards each seat was left with;
    ``chinchon`` whether the closer's cards were one run of the whole hand.
    A ``void`` deal (the stock ran out once more than ``max_reshuffles``
    allows) has no closer and adds no points.
    """

    closer: int | None
    points: tuple[int, ...]
    table: tuple[TableMeld, ...]
    loose: tuple[tuple[Card, ...], ...]
    chinchon: bool
    clean: bool
    void: bool = False


class _Tables:
    """Per-rules numbering of cards: kinds ``0 .. 4R-1`` and the joker ``4R``."""

    def __init__(self, rules: Rules) -> None:
        solver = solver_for(rules)
        self.solver = solver
        self.R = solver.R
        self.joker = 4 * solver.R
        self.card_of: list[Card] = [*solver.card_of, JOKER]
        self.id_of: dict[Card, int] = {card: i for i, card in enumerate(self.card_of)}
        self.discard_of: list[Discard] = [Discard(card) for card in self.card_of]
        self.value_of: list[int] = [rules.value(card) if rules.has_card(card) else 0 for card in self.card_of]
        # The wild ace of oros is kind 0 (oros, ace): the solver counts it as a wild card.
        self.wild_ace = 1 if rules.wild_ace_of_oros else 0
        self.id_by_code: list[int] = [-1] * 100
        for i, card in enumerate(self.card_of):
            self.id_by_code[card._code] = i
        R = self.R
        self.full = (1 << R) - 1
        self.ids_by_suit: list[list[tuple[int, ...]]] = [
            [tuple(s * R + p for p in range(R) if m >> p & 1) for m in range(1 << R)] for s in range(4)
        ]
        self.discards_by_suit: list[list[tuple[Discard, ...]]] = [
            [tuple(self.discard_of[s * R + p] for p in range(R) if m >> p & 1) for m in range(1 << R)] for s in range(4)
        ]
        self._cards: dict[int, tuple[Card, ...]] = {}
        # For Deal.moves: the rules it asks on every move, and the solver's close bound.
        self.forbid_rediscard = rules.forbid_rediscard
        self.close_on_first_turn = rules.close_on_first_turn
        self.close_limit = rules.close_limit
        self.run_cover = solver.run_cover
        self.suit_value = solver.suit_value
        self.suit_top = solver.suit_top

    def cards(self, rules: Rules, decks: int) -> list[Card]:
        """``rules.cards(decks=decks)``, made once per number of decks."""
        cards = self._cards.get(decks)
        if cards is None:
            cards = self._cards[decks] = tuple(rules.cards(decks=decks))
        return list(cards)


def _tables(rules: Rules) -> _Tables:
    tables: _Tables | None = rules.__dict__.get("_game_tables")
    if tables is None:
        tables = _Tables(rules)
        object.__setattr__(rules, "_game_tables", tables)
    return tables


Reshuffle = Callable[[list[Card]], list[Card]]


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
        play, in playing order; ``decks`` fixes the number of decks.

        Raises:
            RulesError: the number of players or the first seat is out of range.
            ValueError: the deck is not exactly the rules' cards.
        """
        if decks is None:
            decks = rules.decks_for(players)
        playing = list(range(players)) if seats is None else sorted(seats)
        if not isinstance(first, int) or first not in playing:
            raise RulesError(N_("first: seat {value} is not one of the {players} seats"), value=first, players=players)
        cards = _tables(rules).cards(rules, decks)
        if deck is None:
            deck = list(cards)
            (rng or random.Random(0)).shuffle(deck)
        else:
            deck = list(deck)
            _check_deck(deck, cards, rules)
        deal = object.__new__(cls)
        deal._setup(rules, players, first, deck, rng, reshuffle, playing, decks)
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
        t = _tables(rules)
        self.rules = rules
        self.players = players
        self.first = first
        self.decks = decks
        self._t = t
        self._rng: random.Random | None = rng
        self._reshuffle = reshuffle
        self.deck: tuple[Card, ...] = tuple(deck)
        self._m1 = [0] * players
        self._m2 = [0] * players
        self._jk = [0] * players
        start = playing.index(first)
        self.seats: tuple[int, ...] = tuple(playing[start:] + playing[:start])
        self._next_seat = {seat: self.seats[(i + 1) % len(self.seats)] for i, seat in enumerate(self.seats)}
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
        self._drawn_from_pile = -1
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

    def _may_close(self) -> bool:
        return self.rules.close_on_first_turn or self.turn >= len(self.seats)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move, in a fixed order (none when the deal is over)."""
        phase = self.phase
        if phase is _IN_DRAW:
            pile = self._pile
            if self._stock or len(pile) > 1:
                return [_STOCK, _DISCARD] if pile else [_STOCK]
            return [_DISCARD] if pile else []
        if phase is _IN_DISCARD:
            seat = self.to_move
            assert seat is not None
            t = self._t
            forbidden = self._drawn_from_pile if t.forbid_rediscard else -1
            m1 = self._m1[seat]
            jokers = self._jk[seat]
            R, full = t.R, t.full
            a = m1 & full
            b = m1 >> R & full
            c = m1 >> (2 * R) & full
            d = m1 >> (3 * R)
            actions: list[Action]
            if forbidden < 0 and not jokers:
                by_suit = t.discards_by_suit
                actions = [*by_suit[0][a], *by_suit[1][b], *by_suit[2][c], *by_suit[3][d]]
            else:
                discard_of = t.discard_of
                actions = [discard_of[cid] for cid in self._ids(seat, distinct=True) if cid != forbidden]
            if not (t.close_on_first_turn or self.turn >= len(self.seats)):
                return actions
            natural = not (jokers or self._m2[seat] or m1 & t.wild_ace)
            if self._can_close(seat, natural, m1, a, b, c, d):
                forbidden_card = self._t.card_of[forbidden] if forbidden >= 0 else None
                # Where a wild card stands in a run changes what the others can lay off on it.
                layouts = not natural and self.rules.layoffs and (jokers or m1 & t.wild_ace or self._m2[seat] & 1)
                for option in closing_options(self.hand(seat), self.rules):
                    if option.discard == forbidden_card:
                        continue
                    melds = option.arrangement.melds
                    if layouts and (option.arrangement.loose or self.rules.layoffs_on_clean_close):
                        for laid in wild_layouts(melds, self.rules):
                            close = Close(option.discard, laid)
                            if close not in actions:
                                actions.append(close)
                    else:
                        actions.append(Close(option.discard, melds))
            return actions
        if phase is Phase.SHOWDOWN:
            return self._showdown_actions()
        return []

    def is_legal(self, action: Action) -> bool:
        """Whether the action is legal for the seat to move."""
        try:
            self._check(action)
        except IllegalAction:
            return False
        return True

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Play an action for the seat to move (or check that ``seat`` is that seat).

        Raises:
            IllegalAction: the action is not legal here; the message says why.
        """
        mover = self.to_move
        if seat is not None and (seat != mover or type(seat) is not int):
            _check_seat(seat)
            if mover is None:
                raise IllegalAction(N_("the deal is over"))
            raise IllegalAction(N_("it is seat {seat}'s turn"), seat=mover)
        # The two commonest actions are checked inline; everything else goes through _check.
        # (A joker is never in the kinds mask _m1: its discard takes the general path.)
        if type(action) is Discard and self.phase is _IN_DISCARD:
            assert mover is not None
            card = action.card
            t = self._t
            cid = t.id_by_code[card._code] if type(card) is Card else -1
            if cid >= 0 and self._m1[mover] >> cid & 1 and not (t.forbid_rediscard and cid == self._drawn_from_pile):
                self.history.append((mover, action))
                # _discard written out, for a natural card (cid is not the joker).
                bit = 1 << cid
                m2 = self._m2
                if m2[mover] & bit:
                    m2[mover] &= ~bit
                else:
                    self._m1[mover] &= ~bit
                taken = self._taken[mover]
                if taken and cid in taken:
                    taken.remove(cid)
                self._pile.append(cid)
                self._discards.append((mover, cid))
                self.turn += 1
                self.phase = _IN_DRAW
                self.to_move = self._next_seat[mover]
                if not self._stock:
                    self._stock_out()
                return
        elif type(action) is Draw and self.phase is _IN_DRAW:
            assert mover is not None
            source = action.source
            if (source == "stock" and (self._stock or len(self._pile) > 1)) or (source == "discard" and self._pile):
                self.history.append((mover, action))
                # _draw written out.
                if source == "stock":
                    stock = self._stock
                    if not stock:
                        self._refill()
                        stock = self._stock
                    cid = stock.pop()
                    self._drawn_from_pile = -1
                else:
                    cid = self._pile.pop()
                    self._drawn_from_pile = cid
                    self._taken[mover].append(cid)
                self._last_draw = source
                if cid == self._t.joker:
                    self._jk[mover] += 1
                else:
                    bit = 1 << cid
                    m1 = self._m1
                    if m1[mover] & bit:
                        self._m2[mover] |= bit
                    else:
                        m1[mover] |= bit
                self.phase = _IN_DISCARD
                return
        layouts = self._check(action)
        self._play(action, layouts)

    def apply_unchecked(self, action: Action) -> None:
        """Play an action known to be legal (from :meth:`legal_actions`), without checking it."""
        if isinstance(action, Close):
            self._play(action, self._close_melds(action))
        else:
            self._play(action, None)

    def copy(self, history: bool = True) -> Deal:
        """An independent copy of the deal (for search).

        With ``history`` false the copy starts an empty history, and its
        observations show only what happens after the copy: cheaper for search.
        """
        other = object.__new__(Deal)
        other.__dict__.update(self.__dict__)
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

    # -- the fast path for search -------------------------------------------------------

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
            if self._stock or len(pile) > 1:
                return [MOVE_STOCK, MOVE_DISCARD_PILE] if pile else [MOVE_STOCK]
            return [MOVE_DISCARD_PILE] if pile else []
        if phase is not _IN_DISCARD:
            return []
        seat = self.to_move
        assert seat is not None
        t = self._t
        forbidden = self._drawn_from_pile if t.forbid_rediscard else -1
        m1 = self._m1[seat]
        jokers = self._jk[seat]
        R, full = t.R, t.full
        a = m1 & full
        b = m1 >> R & full
        c = m1 >> (2 * R) & full
        d = m1 >> (3 * R)
        if forbidden < 0 and not jokers:
            by_suit = t.ids_by_suit
            ids = [*by_suit[0][a], *by_suit[1][b], *by_suit[2][c], *by_suit[3][d]]
        else:
            ids = [cid for cid in self._ids(seat, distinct=True) if cid != forbidden]
        if not (t.close_on_first_turn or self.turn >= len(self.seats)):
            return ids
        natural = not (jokers or self._m2[seat] or m1 & t.wild_ace)
        if self._can_close(seat, natural, m1, a, b, c, d):
            if natural:
                # Distinct natural cards: the kind mask is the hand, and the closes are found on it directly.
                ids.extend(CLOSE + kind for kind in t.solver.closing_discards_single(m1) if kind != forbidden)
            else:
                ids.extend(CLOSE + cid for cid in self._closing_discards(seat) if cid != forbidden)
        return ids

    def _can_close(self, seat: int, natural: bool, m1: int, a: int, b: int, c: int, d: int) -> bool:
        """Whether ``seat``, holding the card it drew, has a legal close; ``a``-``d`` are ``m1``'s suit masks.

        ``natural``: the hand is distinct natural cards, so ``m1`` is the whole hand.
        """
        t = self._t
        if not natural:
            return t.solver.can_close(*self._solver_hand(seat))
        # The bound of Solver.can_close_single, written out on the suit masks the caller already has:
        # it settles most hands without a call into the solver.
        rc = t.run_cover
        three = (a & b & (c | d)) | (c & d & (a | b))
        fa = a & ~(rc[a] | three)
        fb = b & ~(rc[b] | three)
        fc = c & ~(rc[c] | three)
        fd = d & ~(rc[d] | three)
        sv = t.suit_value
        if sv[fa] + sv[fb] + sv[fc] + sv[fd] - t.suit_top[fa | fb | fc | fd][0] > t.close_limit:
            return False
        return t.solver.can_close_single(m1)

    def _closing_discards(self, seat: int) -> list[int]:
        t = self._t
        seen: list[int] = []
        for option in closing_options(self.hand(seat), self.rules):
            cid = t.id_of[option.discard]
            if cid not in seen:
                seen.append(cid)
        return seen

    def play(self, move: int) -> None:
        """Play a move from :meth:`moves` without checking it (search's fast path)."""
        seat = self.to_move
        assert seat is not None
        # The draw and the discard are _draw and _discard written out: this is the hot path.
        if move < 0:
            if move == MOVE_STOCK:
                stock = self._stock
                if not stock:
                    self._refill()
                    stock = self._stock
                cid = stock.pop()
                self._drawn_from_pile = -1
                self._last_draw = "stock"
            else:
                cid = self._pile.pop()
                self._drawn_from_pile = cid
                self._taken[seat].append(cid)
                self._last_draw = "discard"
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
        """A seat's hand as the solver sees it: kinds held, kinds held twice, wild cards."""
        return self._solver_hand(seat)

    @property
    def pile_ids(self) -> list[int]:
        """The discard pile as card ids, top last (shared: do not change it)."""
        return self._pile

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
        t = _tables(rules)
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
        deal._next_seat = {s: obs.seats[(i + 1) % len(obs.seats)] for i, s in enumerate(obs.seats)}
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
        deal._drawn_from_pile = t.id_of[obs.taken[obs.to_move][-1]] if drew_pile and obs.to_move is not None else -1
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
        return deal

    # -- checking ---------------------------------------------------------------------

    def _check(self, action: Action) -> Sequence[tuple[Card, ...]] | None:
        """Raise IllegalAction unless the action is legal; for a close, its melds."""
        phase = self.phase
        seat = self.to_move
        if phase is Phase.OVER or seat is None:
            raise IllegalAction(N_("the deal is over"))
        if isinstance(action, Draw):
            if phase is not Phase.DRAW:
                raise IllegalAction(N_("you have already drawn; discard or close"))
            if action.source == "stock":
                if not self._stock and len(self._pile) <= 1:
                    raise IllegalAction(N_("the stock is empty"))
            elif action.source == "discard":
                if not self._pile:
                    raise IllegalAction(N_("the discard pile is empty"))
            else:
                raise IllegalAction(
                    N_("draw from the stock or from the discard pile, not {source}"), source=action.source
                )
            return None
        if isinstance(action, Discard | Close):
            if phase is Phase.DRAW:
                raise IllegalAction(N_("you must draw first"))
            if phase is not Phase.DISCARD:
                raise IllegalAction(N_("the deal has been closed"))
            card = action.discard if isinstance(action, Close) else action.card
            cid = self._t.id_of.get(card) if isinstance(card, Card) else None
            if cid is None or not self._holds(seat, cid):
                raise IllegalAction(N_("{card} is not in your hand"), card=card)
            if self.rules.forbid_rediscard and cid == self._drawn_from_pile:
                raise IllegalAction(
                    N_("you may not discard {card}: you have just taken it from the discard pile"), card=card
                )
            if isinstance(action, Discard):
                return None
            if not self._may_close():
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
            if points > rules.close_limit:
                raise IllegalAction(
                    N_("closing would leave {points} loose points; at most {limit} are allowed"),
                    points=points,
                    limit=rules.close_limit,
                )
            if rules.close_max_loose_cards is not None and len(loose) > rules.close_max_loose_cards:
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
            self._draw(seat, action.source)
        elif isinstance(action, Discard):
            self._discard(seat, self._t.id_of[action.card])
        elif isinstance(action, Close):
            assert melds is not None
            self._close(seat, action.discard, melds)
        else:
            self._play_showdown(seat, action)

    def _draw(self, seat: int, source: str) -> None:
        if source == "stock":
            if not self._stock:
                self._refill()
            cid = self._stock.pop()
            self._drawn_from_pile = -1
        else:
            cid = self._pile.pop()
            self._drawn_from_pile = cid
            self._taken[seat].append(cid)
        self._last_draw = source
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

    def _discard(self, seat: int, cid: int) -> None:
        if cid == self._t.joker:
            self._jk[seat] -= 1
        else:
            bit = 1 << cid
            m2 = self._m2
            if m2[seat] & bit:
                m2[seat] &= ~bit
            else:
                self._m1[seat] &= ~bit
        taken = self._taken[seat]
        if taken and cid in taken:
            taken.remove(cid)
        self._pile.append(cid)
        self._discards.append((seat, cid))
        self.turn += 1
        self.phase = _IN_DRAW
        self.to_move = self._next_seat[seat]
        if not self._stock:
            self._stock_out()

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
        open_melds = rules.layoffs and (not self._clean or rules.layoffs_on_clean_close)
        self.table = [TableMeld(seat, tuple(meld), open_melds) for meld in melds]
        self.turn += 1
        self.phase = Phase.SHOWDOWN
        others = self._after(seat)
        if not rules.layoffs:
            for other in others:
                arrangement = best_arrangement(self.hand(other), rules)
                self._show(other, arrangement.melds)
            self._finish()
            return
        self._queue = others
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

    def _show(self, seat: int, melds: Sequence[tuple[Card, ...]]) -> None:
        for meld in melds:
            for card in meld:
                self._remove(seat, self._t.id_of[card])
                self._untake(seat, self._t.id_of[card])
            self.table.append(TableMeld(seat, tuple(meld), True))
        self._shown[seat] = True

    def _layoffs(self, seat: int) -> list[LayOff]:
        rules = self.rules
        two_decks = self.decks > 1 and rules.layoff_one_per_run_per_round
        out: list[LayOff] = []
        t = self._t
        id_of, joker = t.id_of, t.joker
        held, jokers = self._m1[seat], self._jk[seat]
        for index, meld in enumerate(self.table):
            if not meld.open or (two_decks and (seat, index) in self._run_adds):
                continue
            # A meld takes few cards: ask the hand about each of them rather than the meld about each card held.
            for card in meld_extensions(meld.cards, rules):
                cid = id_of.get(card)
                if cid is not None and (jokers > 0 if cid == joker else held >> cid & 1):
                    out.append(LayOff(card, index))
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
        if not meld.open:
            raise IllegalAction(N_("the melds of a clean close take no cards"))
        if self.decks > 1 and self.rules.layoff_one_per_run_per_round and (seat, index) in self._run_adds:
            raise IllegalAction(N_("a run takes one card from each player in each round"))
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
            self._remove(seat, self._t.id_of[action.card])
            self._untake(seat, self._t.id_of[action.card])
            self._added = True
            # Lay-offs onto runs are counted only where a run takes one card a round (two decks).
            if self.decks > 1 and self.rules.layoff_one_per_run_per_round and is_run(extended, self.rules):
                self._run_adds.add((seat, action.meld_index))
        else:
            self._queue.pop(0)
            if not self._queue:
                self._next_round()
            if self.phase is Phase.SHOWDOWN:
                self.to_move = self._queue[0]
        if self.phase is Phase.SHOWDOWN:
            self._advance()

    def _after(self, seat: int) -> list[int]:
        """The other playing seats, in playing order from the one after ``seat``."""
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
        seats = self._after(closer)
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
            if self.hand_size(seat) and self._layoffs(seat):
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
            self.apply_unchecked(_best_showdown_action(self, memo))

    def best_showdown_action(self) -> Action:
        """The showdown decision :meth:`resolve_showdown` would play for the seat to move.

        Raises:
            IllegalAction: the deal is over, or not yet in its showdown.
        """
        if self.phase is Phase.OVER:
            raise IllegalAction(N_("the deal is over"))
        if self.phase is not _IN_SHOWDOWN:
            raise IllegalAction(N_("there is no showdown yet"))
        return _best_showdown_action(self, {})

    # -- what a seat knows ------------------------------------------------------------

    def _public_lists(self) -> tuple[list[tuple[int, str]], dict[int, str], list[tuple[int, Card]]]:
        """The history as each seat's own texts, the texts others see where they differ (a close's hidden
        card), and the discards as cards: kept as the deal goes on.

        Observations would otherwise rebuild the whole history at every action,
        which makes a long deal (a stock rebuilt many times) quadratic.
        """
        cache: _PublicCache | None = getattr(self, "_public", None)
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

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know about the deal, and nothing else."""
        if type(seat) is not int or not 0 <= seat < self.players:
            raise RulesError(N_("seat {value} is not one of the {players} seats"), value=seat, players=self.players)
        card_of = self._t.card_of
        over = self.phase is Phase.OVER
        texts, hidden, discards = self._public_lists()
        if hidden:
            texts = list(texts)
            for index, text in hidden.items():
                if texts[index][0] != seat:
                    texts[index] = (texts[index][0], text)
        return Observation(
            seat=seat,
            players=self.players,
            rules=self.rules,
            seats=self.seats,
            decks=self.decks,
            phase=self.phase,
            to_move=self.to_move,
            first=self.first,
            turn=self.turn,
            hand=tuple(self.hand(seat)),
            hand_sizes=tuple(self.hand_size(s) for s in range(self.players)),
            stock_size=len(self._stock),
            rebuilds=len(self.reshuffles),
            discard_pile=tuple(card_of[cid] for cid in self._pile),
            discards=tuple(discards),
            taken=tuple(tuple(card_of[cid] for cid in taken) for taken in self._taken),
            last_draw=self._last_draw,
            closer=self.closer,
            table=tuple(self.table),
            revealed=tuple(tuple(self.hand(s)) for s in range(self.players)) if over else (),
            result=self.result,
            history=tuple(texts),
            legal_actions=tuple(self.legal_actions()) if self.to_move == seat else (),
        )


def _check_seat(seat: object) -> None:
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


def _showdown_key(deal: Deal) -> tuple[Any, ...]:
    return (
        tuple(meld.cards for meld in deal.table),
        tuple(deal._m1),
        tuple(deal._m2),
        tuple(deal._jk),
        tuple(deal._queue),
        tuple(deal._shown),
        deal._show_round,
        deal._added,
        frozenset(deal._run_adds),
        # The rounds played matter only where they are counted: elsewhere equal states would not be shared.
        deal._passes if deal.rules.layoff_passes is not None else 0,
    )


def _best_showdown_action(deal: Deal, memo: dict[Any, tuple[int, ...]]) -> Action:
    seat = deal.to_move
    assert seat is not None
    best: tuple[int, Action] | None = None
    for action in deal.legal_actions():
        child = deal.copy(history=False)
        child.apply_unchecked(action)
        outcome = _showdown_outcome(child, memo)
        if best is None or outcome[seat] < best[0]:
            best = (outcome[seat], action)
    assert best is not None
    return best[1]


SHOWDOWN_SEARCH_NODES = 20_000
"""How many showdown states the exact search may visit before the rest are played greedily."""


def _greedy_showdown_action(deal: Deal) -> Action:
    """The best arrangement to show, else the dearest lay-off, else pass."""
    actions = deal.legal_actions()
    layoffs = [a for a in actions if isinstance(a, LayOff)]
    if layoffs:
        return max(layoffs, key=lambda a: (deal.rules.value(a.card), -a.meld_index))
    return actions[0]


def _showdown_outcome(deal: Deal, memo: dict[Any, tuple[int, ...]]) -> tuple[int, ...]:
    """The loose points of every seat at the end, each seat minimising its own.

    Past ``SHOWDOWN_SEARCH_NODES`` states (many seats, many lay-offs) a new
    state is played out greedily instead, so that the search always ends soon.
    """
    if deal.phase is not Phase.SHOWDOWN:
        assert deal.result is not None
        return deal.result.points
    key = _showdown_key(deal)
    cached = memo.get(key)
    if cached is not None:
        return cached
    seat = deal.to_move
    assert seat is not None
    if len(memo) >= SHOWDOWN_SEARCH_NODES:
        rollout = deal.copy(history=False)
        while rollout.phase is Phase.SHOWDOWN:
            rollout.apply_unchecked(_greedy_showdown_action(rollout))
        assert rollout.result is not None
        memo[key] = rollout.result.points
        return rollout.result.points
    best: tuple[int, ...] | None = None
    for action in deal.legal_actions():
        child = deal.copy(history=False)
        child.apply_unchecked(action)
        outcome = _showdown_outcome(child, memo)
        if best is None or outcome[seat] < best[seat]:
            best = outcome
    assert best is not None
    memo[key] = best
    return best


# -- observations -------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """All that one seat may know, and nothing more.

    Deal part: the seat's ``hand``; the face-up ``discard_pile`` (top last);
    every discard so far (``discards``, as (seat, card)); the cards each seat
    took from the discard pile and still holds (``taken``; a closer's card
    put face down counts as held until the deal is over); ``hand_sizes``;
    ``stock_size``; how many times the stock has been rebuilt (``rebuilds``);
    the table melds in a showdown; every hand once the deal is
    over (``revealed``). Match part: totals, seats still in, dealer, deal
    number, pending re-entry. Two positions that differ only in cards hidden
    from the seat give equal observations.
    """

    seat: int
    players: int
    rules: Rules
    seats: tuple[int, ...]
    decks: int
    phase: Phase
    to_move: int | None
    first: int
    turn: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    discard_pile: tuple[Card, ...]
    discards: tuple[tuple[int, Card], ...]
    taken: tuple[tuple[Card, ...], ...]
    last_draw: str | None
    closer: int | None
    table: tuple[TableMeld, ...]
    revealed: tuple[tuple[Card, ...], ...]
    result: DealResult | None
    history: tuple[tuple[int, str], ...]
    legal_actions: tuple[Action, ...]
    scores: tuple[int, ...] = ()
    active: tuple[int, ...] = ()
    dealer: int | None = None
    deal_number: int = 0
    reentry_pending: tuple[int, ...] = ()
    match_over: bool = False
    winner: int | None = None
    pot: int = 0
    names: tuple[str, ...] = field(default=())
    previous_result: DealResult | None = None
    rebuilds: int = 0

    @property
    def top_discard(self) -> Card | None:
        """The card on top of the discard pile, if any."""
        return self.discard_pile[-1] if self.discard_pile else None


# -- the match ------------------------------------------------------------------------------


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


class _Chance:
    """Where a match's chance comes from: a seeded random source, or given deck orders."""

    def __init__(self, rng: random.Random, decks: Iterable[Sequence[Card]] | None) -> None:
        self.rng = rng
        self.decks = iter(decks) if decks is not None else None

    def deck(self, cards: list[Card]) -> list[Card]:
        if self.decks is not None:
            deck = next(self.decks, None)
            if deck is not None:
                return list(deck)
            self.decks = None
        order = list(cards)
        self.rng.shuffle(order)
        return order

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        order = list(cards)
        self.rng.shuffle(order)
        return order

    def lot(self, seats: list[int]) -> int:
        return seats[self.rng.randrange(len(seats))]

    def high_card(self, cards: list[Card]) -> list[Card]:
        order = list(cards)
        self.rng.shuffle(order)
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
        _chance: _Chance | None = None,
    ) -> None:
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
        self.events: list[dict[str, Any]] = []
        self._pending: list[int] = []
        self._playoff: list[int] | None = None
        self._chance = _chance or _Chance(random.Random(seed), decks)
        self.first_given = first is not None
        if len(self.active) < 2:
            raise RulesError(N_("scores: at least two seats must start under the limit"))
        if first is None:
            first = self._draw_first()
        elif first not in self.active:
            raise RulesError(N_("first: seat {value} is already out of the match"), value=first)
        self.dealer = self._previous(first)
        self.deal: Deal
        self._seat_at_start = first
        self._start_deal(first)

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
            self.events.append({"chance": "lot", "seat": first})
            return first
        cards = self.rules.cards(decks=self.decks)
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
                self.events.append({"chance": "high_card", "draws": rounds})
                return contenders[0]

    def _start_deal(self, first: int) -> None:
        deck = self._chance.deck(self.rules.cards(decks=self.decks))
        self.events.append(
            {"deal": len(self.deals) + 1, "dealer": self.dealer, "first": first, "deck": [str(c) for c in deck]}
        )
        deal = Deal.new(
            self.rules,
            self.players,
            first,
            deck=deck,
            reshuffle=self._record_reshuffle,
            seats=self._playing(),
            decks=self.decks,
        )
        self.deal = deal
        self.deals.append(deal)

    def _record_reshuffle(self, cards: list[Card]) -> list[Card]:
        order = self._chance.reshuffle(cards)
        self.events.append({"chance": "reshuffle", "stock": [str(c) for c in order]})
        return order

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

    def is_legal(self, action: Action) -> bool:
        """Whether the action is legal for the seat to move."""
        if self.over:
            return False
        if self._pending:
            return isinstance(action, ReEnter) and isinstance(action.accept, bool)
        return self.deal.is_legal(action)

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Play an action for the seat to move (or check that ``seat`` is that seat).

        Raises:
            IllegalAction: the action is not legal here; the message says why.
        """
        if self.over:
            raise IllegalAction(N_("the match is over"))
        mover = self.to_move
        if seat is not None and (seat != mover or type(seat) is not int):
            _check_seat(seat)
            raise IllegalAction(N_("it is seat {seat}'s turn"), seat=mover)
        if self._pending:
            if not isinstance(action, ReEnter) or not isinstance(action.accept, bool):
                raise IllegalAction(N_("seat {seat} must first decide whether to re-enter"), seat=mover)
            self.events.append({"seat": mover, "action": str(action)})
            self._reenter(action.accept)
            return
        if isinstance(action, ReEnter):
            raise IllegalAction(N_("nobody is deciding on re-entry now"))
        self.deal.apply(action)
        self._after_action(mover, action)

    def _after_action(self, mover: int | None, action: Action) -> None:
        self.events.append({"seat": mover, "action": str(action)})
        deal = self.deal
        # Decisions the deal played by itself (forced shows, skipped seats) are in its history.
        if deal.phase is Phase.OVER:
            self._end_deal()

    def resolve_showdown(self) -> None:
        """Play every open showdown decision as :meth:`Deal.resolve_showdown` does, then go on."""
        memo: dict[Any, tuple[int, ...]] = {}
        while not self.over and not self._pending and self.deal.phase is Phase.SHOWDOWN:
            self.apply(_best_showdown_action(self.deal, memo))

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
        if result.closer is None:
            # A void deal scores nobody: the deal passes on.
            self._next_deal()
            return
        playing = self._playing()
        floor = self.rules.score_floor
        for seat in playing:
            self.scores[seat] += result.points[seat]
            if floor is not None and self.scores[seat] < floor:
                self.scores[seat] = floor
        if result.chinchon and self.rules.chinchon == "win":
            self._win(result.closer)
            return
        if self._playoff is not None:
            low = min(self.scores[seat] for seat in self._playoff)
            tied = [seat for seat in self._playoff if self.scores[seat] == low]
            if len(tied) == 1:
                self._win(tied[0])
                return
            self._playoff = tied
            self._next_deal()
            return
        order = [*self.deal._after(result.closer), result.closer]
        newly_out = [seat for seat in order if seat in self.active and self._out(self.scores[seat])]
        self.active = [seat for seat in self.active if seat not in newly_out]
        self._just_out = newly_out
        if newly_out and self.rules.reentry != "none" and self.active:
            self._pending = [s for s in newly_out if self.rules.reentry == "unlimited" or self.reentries[s] == 0]
        if not self._pending:
            self._after_hand()

    def _reenter(self, accept: bool) -> None:
        seat = self._pending.pop(0)
        if accept:
            self.scores[seat] = max(self.scores[s] for s in self.active)
            self.reentries[seat] += 1
            self.pot += self.rules.stake
            self.active = sorted([*self.active, seat])
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
        self.events.append({"winner": seat})

    # -- views ---------------------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know about the match, and nothing else."""
        base = self.deal.observation(seat)
        pending = self._pending and self._pending[0] == seat
        return replace(
            base,
            to_move=self.to_move,
            legal_actions=tuple(self.legal_actions()) if pending or (not self._pending and base.legal_actions) else (),
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
        from chinchon.record import match_record

        return match_record(self)

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Match:
        """Rebuild a match from its record.

        Raises:
            ValueError: the record is malformed or tampered with; the message says where and why.
        """
        from chinchon.record import replay

        return replay(record)
