"""A deal's close and showdown: the close, the others showing their melds and laying off, round after round, and
the scores.

The layer of :class:`chinchon.deal.Deal` between its bookkeeping (:mod:`chinchon.deal.hand`) and the turn
(:mod:`chinchon.deal`); the search for the best showdown decision is :mod:`chinchon.showdown_search`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from chinchon.actions import Action, IllegalAction, LayOff, Pass, Show
from chinchon.cards import Card
from chinchon.deal.hand import _Hands
from chinchon.errors import N_
from chinchon.events import Closed, LaidOff, Passed, Showed, YouPutFaceDown
from chinchon.melds import (
    arrangements,
    best_arrangement,
    is_chinchon,
    is_meld,
    is_run,
    meld_extensions,
    normalize_meld,
    wild_layouts,
)
from chinchon.observation import DealResult, Phase, TableMeld
from chinchon.rules import Rules

_PASS = Pass()


class _Showdown(_Hands):
    """A deal's close and showdown (the layer of :class:`chinchon.deal.Deal` that scores it)."""

    __slots__ = ()

    # -- the close --------------------------------------------------------------------

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
        # Read as any object: the compiled build reads an int field as a whole number, True as 1.
        index: object = getattr(action, "meld_index")  # noqa: B009
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


def _melds_take_layoffs(rules: Rules, clean: bool) -> bool:
    """Whether a closer's melds take lay-offs (RULES.md D7): with lay-offs, unless the close matched every card
    and ``layoffs_on_clean_close`` is false. The one place that rule is read."""
    return rules.layoffs and (not clean or rules.layoffs_on_clean_close)


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
