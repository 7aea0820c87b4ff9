"""One deal (``Deal``): the deal, the draw, the discard, the close and the showdown, and its scores.

A deal is dealt from a stacked deck or shuffled with a ``random.Random``.
Each rule step is written once, on the integer fast path used by search
(:meth:`Deal.moves` lists the legal moves, :meth:`Deal.play` plays one);
:meth:`Deal.apply` checks an :class:`~chinchon.actions.Action`, raising
:class:`~chinchon.actions.IllegalAction` saying why, then plays it the same
way, and :meth:`Deal.legal_actions` is the move list made into actions. A
whole match is :class:`chinchon.match.Match`.

The deal is built in layers, each a module of this package: its bookkeeping
(where the cards are, what is told, what anyone may know, the search
interface: :mod:`chinchon.deal.hand`), its close and showdown
(:mod:`chinchon.deal.showdown`), and here the turn: the draw, the discard,
the checks, the fast path. The deck a deal is stacked from is
:mod:`chinchon.deal.deck`'s.

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
from collections.abc import Sequence
from typing import Any, Final, TypeVar, cast, overload

from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, Pass, ReEnter, Show
from chinchon.cards import Card
from chinchon.deal.deck import _check_deck, shuffle, stack_deck
from chinchon.deal.hand import (
    _BUILD,
    _UNTOLD,
    Reshuffle,
    Tell,
    _first_closing_turn,
    _kept_after_drawing,
    _next_seats,
)
from chinchon.deal.showdown import _melds_take_layoffs, _Showdown, _split, _take_melds
from chinchon.errors import N_, ChinchonError
from chinchon.events import StockRebuilt
from chinchon.melds import best_arrangement, closing_options, wild_layouts
from chinchon.observation import DealResult, Observation, Phase, PublicObservation
from chinchon.rules import Rules, RulesError
from chinchon.showdown_search import best_showdown_action
from chinchon.tables import tables_for

__all__ = [
    "CLOSE",
    "MOVE_DISCARD_PILE",
    "MOVE_STOCK",
    "Deal",
    "Reshuffle",
    "Tell",
    "check_seat",
    "stack_deck",
]

MOVE_STOCK: Final = -1
"""The integer move that draws from the stock."""
MOVE_DISCARD_PILE: Final = -2
"""The integer move that draws from the discard pile."""
CLOSE: Final = 1000
"""Added to a card id, the integer move that closes discarding that card."""

_STOCK: Final = Draw("stock")
_DISCARD: Final = Draw("discard")
_PASS: Final = Pass()

# The draws open in the draw phase, as moves, and the same as actions.
_BOTH_DRAWS: Final = (MOVE_STOCK, MOVE_DISCARD_PILE)
_STOCK_DRAW: Final = (MOVE_STOCK,)
_PILE_DRAW: Final = (MOVE_DISCARD_PILE,)
_DRAW_ACTIONS: Final[dict[tuple[int, ...], tuple[Draw, ...]]] = {
    _BOTH_DRAWS: (_STOCK, _DISCARD),
    _STOCK_DRAW: (_STOCK,),
    _PILE_DRAW: (_DISCARD,),
    (): (),
}

T = TypeVar("T")

# The phases as module names: looking a member up on the enum class costs more, on every action.
_IN_DRAW: Final = Phase.DRAW
_IN_DISCARD: Final = Phase.DISCARD
_IN_SHOWDOWN: Final = Phase.SHOWDOWN


class Deal(_Showdown):
    """One deal (hand) of Chinchón, from the deal to the scores.

    Build with :meth:`Deal.new`. Seats are numbered in playing order.
    """

    __slots__ = ()

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
            shuffle(rng or random.Random(0), deck)
        else:
            deck = list(deck)
            _check_deck(deck, cards, rules)
        deal = cls(_BUILD)
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
        self._t = t
        self._rng = rng
        self._reshuffle = reshuffle
        self.deck = tuple(deck)
        self._m1 = [0] * players
        self._m2 = [0] * players
        self._jk = [0] * players
        start = playing.index(first)
        self.seats = tuple(playing[start:] + playing[:start])
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
        self._pile = [ids[dealt]]
        self._stock = ids[dealt + 1 :][::-1]
        self.phase = Phase.DRAW
        self.to_move = first
        self.turn = 0
        self._close_from = _first_closing_turn(rules, self.seats)
        self._kept = -1
        self._last_draw = None
        self._discards = []
        self._taken = [[] for _ in range(players)]
        self.reshuffles = []
        self.history = []
        self.result = None
        self.closer = None
        self._face_down = -1
        self._clean = False
        self._chinchon = False
        self.table = []
        self._shown = [False] * players
        self._queue = []
        self._show_round = False
        self._added = False
        self._run_adds = set()
        self._passes = 0
        self._at_close = ()
        self._public = None
        self._sink = None
        self._held = _UNTOLD

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

    def check(self, action: Action, seat: object = None) -> None:
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

    def _check_seat(self, seat: object) -> None:
        # Seats are taken as any object: the compiled build reads a parameter typed int as a whole number, True
        # as 1, and refuses a float with its own TypeError; a seat that is not an int is an IllegalAction.
        mover = self.to_move
        if seat is not None and (type(seat) is not int or seat != mover):
            check_seat(seat)
            if mover is None:
                raise IllegalAction(N_("the deal is over"))
            raise IllegalAction(N_("it is seat {seat}'s turn"), seat=mover)

    def apply(self, action: Action, seat: object = None) -> None:
        """Play an action for the seat to move (or check that ``seat``, an int, is that seat).

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
                    # The tables' entry, equal to (mover, action): made once, it never reaches the garbage collector.
                    cast("list[object]", self.history).append(self._t.seat_plays[mover][cid + 2])  # type: ignore[index]
                    if self._sink is None:
                        self.play(cid)
                    else:
                        self._step(mover, cid)  # type: ignore[arg-type]  # a seat is to move
                    return
        elif kind is Draw and self.phase is _IN_DRAW:
            source = action.source  # type: ignore[union-attr]  # a Draw
            if (source == "stock" and (self._stock or len(self._pile) > 1)) or (source == "discard" and self._pile):
                move = MOVE_STOCK if source == "stock" else MOVE_DISCARD_PILE
                cast("list[object]", self.history).append(self._t.seat_plays[mover][move + 2])  # type: ignore[index]
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
        sink = self._sink
        if sink is None:
            self.play(move)
            return
        if self._held:
            self._flush()
        t = self._t
        # A draw's or a discard's events are made once per seat and card; none waits for the seat to move after it.
        stock_drew, pile_drew, you_drew, discarded = t.seat_events(seat)
        if move == MOVE_STOCK:
            stock = self._stock
            drawn = stock[-1] if stock else -1
            rebuilds = len(self.reshuffles)
            self.play(move)
            if len(self.reshuffles) > rebuilds:
                sink(StockRebuilt(len(self._stock) + 1))
                drawn = t.id_of[self.reshuffles[-1][0]]
            sink(stock_drew)
            sink(you_drew[drawn])
        elif move == MOVE_DISCARD_PILE:
            self.play(move)
            sink(pile_drew[self._taken[seat][-1]])
        else:
            self.play(move)
            sink(discarded[move])

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
            # _add and _remove written out: this is the search's innermost loop. As a[i] = a[i] | bit: compiled, an
            # augmented assignment to a list item is a generic Python operation.
            if cid == self._t.joker:
                self._jk[seat] = self._jk[seat] + 1
            else:
                bit = 1 << cid
                m1 = self._m1
                if m1[seat] & bit:
                    self._m2[seat] = self._m2[seat] | bit
                else:
                    m1[seat] = m1[seat] | bit
            self.phase = _IN_DISCARD
        elif move < CLOSE:
            if move == self._t.joker:
                self._jk[seat] = self._jk[seat] - 1
            else:
                bit = 1 << move
                m2 = self._m2
                if m2[seat] & bit:
                    m2[seat] = m2[seat] & ~bit
                else:
                    self._m1[seat] = self._m1[seat] & ~bit
            taken = self._taken[seat]
            if taken and move in taken:
                taken.remove(move)
            self._pile.append(move)
            cast("list[object]", self._discards).append(self._t.discard_pairs[seat][move])
            self.turn += 1
            self.phase = _IN_DRAW
            self.to_move = self._next_seat[seat]
            if not self._stock:
                self._stock_out()
        else:
            card = self._t.card_of[move - CLOSE]
            self._play(Close(card), self._close_melds(Close(card)))

    # -- checking and playing -----------------------------------------------------------

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
            # Only a caller's reshuffle can lose or add cards; a shuffle here cannot. Cards are interned: the same
            # objects, as many times each, are the same cards (checked fast).
            if sorted(map(id, order)) != sorted(map(id, cards)) and Counter(order) != Counter(cards):
                raise ChinchonError(N_("the reshuffled stock is not the discard pile"))
            self.reshuffles.append(tuple(order))
            id_by_code = self._t.id_by_code
            self._stock = [id_by_code[card._code] for card in reversed(order)]
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

    # -- what a seat knows ------------------------------------------------------------

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
        return self._seat_observation(seat)

    def _seat_observation(self, seat: int, facts: dict[str, Any] | None = None) -> Observation:
        """:meth:`observation` of a seat, with ``facts`` (a match's: its totals, the seat to move, the legal actions
        while a re-entry is decided ...) in place of the deal's own, made at once."""
        if type(seat) is not int or not 0 <= seat < self.players:
            raise RulesError(N_("seat {value} is not one of the {players} seats"), value=seat, players=self.players)
        texts, _ = self._histories(seat)
        fields = self._public_facts()
        if facts:
            fields.update(facts)
        if "legal_actions" not in fields:
            fields["legal_actions"] = tuple(self.legal_actions()) if self.to_move == seat else ()
        return Observation(seat=seat, hand=tuple(self.hand(seat)), history=texts, **fields)


def check_seat(seat: object) -> None:
    """Refuse a seat that is not a whole number (``True`` and ``0.0`` equal seats 1 and 0, but are not seats)."""
    if type(seat) is not int:
        raise IllegalAction(N_("seat: expected a seat number, got {value}"), value=repr(seat))
