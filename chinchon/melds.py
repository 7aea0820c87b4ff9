"""Melds: best arrangements, closing options, lay-offs, on lists of cards.

A *set* is three or more cards of one rank (of different suits, where the
rules say so); a *run* is three or more cards of one suit consecutive in the
deck's rank order (RULES.md M1-M4). Wild cards stand for any one missing
card of a meld.

>>> from chinchon.cards import parse_cards
>>> hand = parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦")
>>> arrangement = best_arrangement(hand)
>>> arrangement.points, [str(card) for card in arrangement.loose]
(1, ['A♦'])
>>> str(arrangement)
'[3♥ 4♥ 5♥] [7♦ 7♠ 7♣] A♦ (1)'
>>> [str(option) for option in closing_options(hand + [Card.parse("6♥")])]  # doctest: +NORMALIZE_WHITESPACE
['A♦: [3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣] (0)',
 '3♥: [4♥ 5♥ 6♥] [7♦ 7♠ 7♣] A♦ (1)',
 '6♥: [3♥ 4♥ 5♥] [7♦ 7♠ 7♣] A♦ (1)',
 'A♦: [4♥ 5♥ 6♥] [7♦ 7♠ 7♣] 3♥ (3)']

The searches are the meld solver's (:mod:`chinchon.solver`, on bitmasks);
its names (``Arrangement``, ``ClosingOption``, ``Solver``, ``solver_for``)
are importable from here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from chinchon.cache import per_rules
from chinchon.cards import JOKER, Card, Rank, Suit
from chinchon.errors import N_, HandError
from chinchon.rules import Rules
from chinchon.solver import Arrangement, ClosingOption, Solver, solver_for

__all__ = [
    "MOST_CARDS",
    "Arrangement",
    "ClosingOption",
    "Solver",
    "arrangements",
    "best_arrangement",
    "best_discard",
    "check_hand",
    "closing_options",
    "extend_meld",
    "is_chinchon",
    "is_meld",
    "is_run",
    "layoff_options",
    "loose_points",
    "meld_extensions",
    "normalize_meld",
    "run_layouts",
    "solver_for",
    "wild_layouts",
]

_DEFAULT = Rules()

MOST_CARDS = 11
"""The most cards a hand holds under any rules: ten (``Rules.hand_size`` at most) and the card drawn."""


def _check_count(cards: Sequence[Card]) -> None:
    """Refuse more cards than any hand holds: the search grows fast with the cards (32 take seconds)."""
    if len(cards) > MOST_CARDS:
        raise HandError(N_("a hand holds at most {most} cards, not {count}"), most=MOST_CARDS, count=len(cards))


def check_hand(cards: Sequence[Card], rules: Rules = _DEFAULT) -> None:
    """Check that the rules' decks can hold these cards, and that no rules have a larger hand.

    Raises:
        HandError: more than :data:`MOST_CARDS` cards, a card the deck does not have, or more copies
            than the decks hold.
    """
    _check_count(cards)
    solver_for(rules).encode(cards)


def best_arrangement(cards: Sequence[Card], rules: Rules = _DEFAULT) -> Arrangement:
    """The arrangement with the fewest loose points.

    Ties go to the fewest loose cards, then the fewest melds, then a fixed
    order of search.

    Raises:
        HandError: more than :data:`MOST_CARDS` cards, or the deck cannot hold them.
    """
    _check_count(cards)
    solver = solver_for(rules)
    mask = solver.single_mask(cards)
    if mask >= 0:
        return solver.arrangement_single(mask)
    m1, m2, w, wilds = solver.encode(cards)
    _, layouts = solver.best(m1, m2, w)
    return _arrangement_from(solver, layouts, m1, m2, wilds)


def loose_points(cards: Sequence[Card], rules: Rules = _DEFAULT) -> int:
    """The fewest loose points of a hand: the points of :func:`best_arrangement`, without the arrangement.

    >>> from chinchon.cards import parse_cards
    >>> loose_points(parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"))
    1

    Raises:
        HandError: more than :data:`MOST_CARDS` cards, or the deck cannot hold them.
    """
    _check_count(cards)
    solver = solver_for(rules)
    mask = solver.single_mask(cards)
    if mask >= 0:
        return solver.points_single(mask)
    m1, m2, w, _ = solver.encode(cards)
    return solver.best_points(m1, m2, w)


def _arrangement_from(
    solver: Solver, layouts: list[tuple[int, ...]], m1: int, m2: int, wilds: list[Card]
) -> Arrangement:
    counts: dict[int, int] = {}
    for layout in layouts:
        for kind in layout:
            if kind >= 0:
                counts[kind] = counts.get(kind, 0) + 1
    r1, r2 = m1, m2
    for kind, used in counts.items():
        bit = 1 << kind
        for _ in range(used):
            if r2 & bit:
                r2 &= ~bit
            else:
                r1 &= ~bit
    return solver.arrangement(layouts, r1, r2, wilds)


def arrangements(cards: Sequence[Card], rules: Rules = _DEFAULT) -> list[Arrangement]:
    """Every distinct arrangement of the cards into melds and loose cards, best first.

    Raises:
        HandError: more than :data:`MOST_CARDS` cards, or the deck cannot hold them.
    """
    _check_count(cards)
    solver = solver_for(rules)
    m1, m2, w, wilds = solver.encode(cards)
    found: dict[Arrangement, None] = {}
    for chosen, r1, r2, _ in solver._packings(m1, m2, w):
        found[solver.arrangement([inst[3] for inst in chosen], r1, r2, wilds)] = None
    return sorted(found, key=lambda a: (a.points, len(a.loose), -len(a.melds)))


def _check_size(cards: Sequence[Card], rules: Rules) -> None:
    if len(cards) != rules.hand_size + 1:
        raise HandError(
            N_("a closing hand has {expected} cards (the hand and the card just drawn); got {count}"),
            expected=rules.hand_size + 1,
            count=len(cards),
        )


def _closing_hand(cards: Sequence[Card], rules: Rules) -> tuple[Solver, int]:
    """The rules' solver and a checked closing hand's kind mask if it is of distinct natural cards (else -1)."""
    _check_size(cards, rules)
    solver = solver_for(rules)
    return solver, solver.single_mask(cards)


def closing_options(cards: Sequence[Card], rules: Rules = _DEFAULT) -> list[ClosingOption]:
    """Every legal close from a hand holding the card just drawn.

    Each option is a discard and an arrangement of the other cards whose
    loose cards are within ``close_limit`` (and ``close_max_loose_cards``);
    no option appears twice. Best first: fewest loose points, then fewest
    loose cards. Empty when the hand cannot close.

    Raises:
        HandError: the hand has the wrong number of cards, or the deck cannot hold them.
    """
    solver, mask = _closing_hand(cards, rules)
    if mask >= 0:
        return solver.closing_options_single(mask)
    m1, m2, w, wilds = solver.encode(cards)
    options: dict[ClosingOption, None] = {}
    for kind, chosen, r1, r2, _ in solver.closes(m1, m2, w):
        layouts = [inst[3] for inst in chosen]
        if kind >= 0:
            discards = [solver.card_of[kind]]
            pools = [wilds]
        else:
            discards = sorted(set(wilds))
            pools = []
            for wild in discards:
                pool = list(wilds)
                pool.remove(wild)
                pools.append(pool)
        for discard, pool in zip(discards, pools, strict=True):
            options[ClosingOption(discard, solver.arrangement(layouts, r1, r2, pool))] = None
    return sorted(options, key=lambda o: (o.points, len(o.arrangement.loose)))


def best_discard(cards: Sequence[Card], rules: Rules = _DEFAULT) -> ClosingOption:
    """The discard that leaves the fewest loose points, whether or not it may close.

    Raises:
        HandError: the hand has the wrong number of cards, or the deck cannot hold them.
    """
    solver, mask = _closing_hand(cards, rules)
    if mask >= 0:
        return solver.best_discard_single(mask)
    m1, m2, w, wilds = solver.encode(cards)
    _, kind, chosen, r1, r2, _ = solver.best_discard_key(m1, m2, w)
    pool = list(wilds)
    if kind >= 0:
        discard = solver.card_of[kind]
    else:
        discard = max(wilds, key=rules.value)
        pool.remove(discard)
    return ClosingOption(discard, solver.arrangement([inst[3] for inst in chosen], r1, r2, pool))


# -- meld validity and lay-offs ---------------------------------------------------------


def _positions(meld: Sequence[Card], rules: Rules) -> tuple[str, int, int] | None:
    """What a meld is: ("set", rank position, 0) or ("run", suit index, lowest position)."""
    wild = rules.is_wild
    naturals = [(i, card) for i, card in enumerate(meld) if not wild(card)]
    if len(naturals) < 2 or len(meld) - len(naturals) > rules.max_wilds_per_meld:
        return None
    if not all(rules.has_card(card) for _, card in naturals):
        return None
    ranks = rules.ranks
    if len({card.rank for _, card in naturals}) == 1:
        rank = naturals[0][1].rank
        assert rank is not None
        suits = [card.suit for _, card in naturals]
        if rules.set_distinct_suits and len(set(suits)) != len(suits):
            return None
        limit = rules.max_set_size or (4 if rules.set_distinct_suits else 4 * rules.most_decks)
        if len(meld) < 3 or len(meld) > limit:
            return None
        return "set", ranks.index(rank), 0
    if len({card.suit for _, card in naturals}) != 1:
        return None
    first_index, first = naturals[0]
    assert first.rank is not None and first.suit is not None
    low = ranks.index(first.rank) - first_index
    for i, card in naturals:
        assert card.rank is not None
        if ranks.index(card.rank) != low + i:
            return None
    if len(meld) < 3 or low < 0 or low + len(meld) > len(ranks):
        return None
    return "run", first.suit.index, low


def is_meld(cards: Sequence[Card], rules: Rules = _DEFAULT) -> bool:
    """Whether the cards, in any order, form one set or one run under the rules."""
    cards = list(cards)
    if len(cards) < 3:
        return False
    wilds = [card for card in cards if rules.is_wild(card)]
    naturals = [card for card in cards if not rules.is_wild(card)]
    if len(naturals) < 2 or len(wilds) > rules.max_wilds_per_meld:
        return False
    if len({card.rank for card in naturals}) == 1:
        return _positions(naturals + wilds, rules) is not None
    return _arrange_run(naturals, len(wilds), rules) is not None


def normalize_meld(cards: Sequence[Card], rules: Rules = _DEFAULT) -> tuple[Card, ...] | None:
    """The meld laid out as the table shows it, or ``None`` if the cards are no meld.

    A run keeps its order when it is already laid out in rank order (so a wild
    card stays where it was put); otherwise natural cards go in rank order and
    wild cards fill the gaps, then the top, then the bottom. A set lists its
    natural cards by suit, then its wild cards.
    """
    cards = tuple(cards)
    if not is_meld(cards, rules):
        return None
    naturals = [card for card in cards if not rules.is_wild(card)]
    wilds = [card for card in cards if rules.is_wild(card)]
    if len({card.rank for card in naturals}) == 1:
        return (*sorted(naturals), *wilds)
    if _positions(cards, rules) is not None:
        return cards
    return _arrange_run(naturals, len(wilds), rules, wilds)


def run_layouts(meld: Sequence[Card], rules: Rules = _DEFAULT) -> list[tuple[Card, ...]]:
    """Every way to lay out a meld on the table: for a run, its wild cards that fill no gap at either end.

    The meld as given comes first. A set, or a run whose wild cards all fill
    gaps, has one layout. ``[2♥ 3♥ 🃏]`` also lays out as ``[🃏 2♥ 3♥]``; a
    wild card never stands below the ace or above the deck's top rank.
    """
    laid = tuple(meld)
    shape = _positions(laid, rules)
    if shape is None or shape[0] != "run" or all(not rules.is_wild(card) for card in laid):
        return [laid]
    low = shape[2]
    first = next(i for i, card in enumerate(laid) if not rules.is_wild(card))
    last = max(i for i, card in enumerate(laid) if not rules.is_wild(card))
    ends = first + len(laid) - 1 - last
    middle = laid[first : last + 1]
    end_wilds = [card for card in (*laid[:first], *laid[last + 1 :])]
    out: list[tuple[Card, ...]] = [laid]
    top_rank = len(rules.ranks)
    for below in range(ends + 1):
        start = low + first - below
        if start < 0 or start + len(laid) > top_rank:
            continue
        layout = (*end_wilds[:below], *middle, *end_wilds[below:])
        if layout not in out:
            out.append(layout)
    return out


def wild_layouts(melds: Sequence[Sequence[Card]], rules: Rules = _DEFAULT) -> list[tuple[tuple[Card, ...], ...]]:
    """Every distinct way to lay out these melds (see :func:`run_layouts`), the melds as given first."""
    out: list[tuple[tuple[Card, ...], ...]] = [()]
    for meld in melds:
        out = [(*done, layout) for done in out for layout in run_layouts(meld, rules)]
    return out


def is_run(meld: Sequence[Card], rules: Rules = _DEFAULT) -> bool:
    """Whether the meld, as laid out, is a run (a set otherwise)."""
    shape = _positions(meld, rules)
    return shape is not None and shape[0] == "run"


def _arrange_run(
    naturals: list[Card], wilds: int, rules: Rules, wild_cards: Sequence[Card] = ()
) -> tuple[Card, ...] | None:
    """The run the natural cards and wild cards make, wilds filling gaps, then the top, then the bottom."""
    suits = {card.suit for card in naturals}
    if len(suits) != 1:
        return None
    ranks = rules.ranks
    try:
        positions = sorted(ranks.index(card.rank) for card in naturals if card.rank is not None)
    except ValueError:
        return None
    if len(set(positions)) != len(positions):
        return None
    low, high = positions[0], positions[-1]
    gaps = high - low + 1 - len(positions)
    if gaps > wilds or len(positions) + wilds > len(ranks):
        return None
    extra = wilds - gaps
    top = min(len(ranks) - 1, high + extra)
    bottom = low - (extra - (top - high))
    pool = list(wild_cards) or [JOKER if rules.jokers else Card(Rank.ACE, Suit.OROS)] * wilds
    by_position = {ranks.index(card.rank): card for card in naturals if card.rank is not None}
    return tuple(by_position[p] if p in by_position else pool.pop() for p in range(bottom, top + 1))


def is_chinchon(cards: Sequence[Card], rules: Rules = _DEFAULT) -> bool:
    """Whether the cards are a chinchón: one run of the whole hand (no wild card where the rules need it natural).

    With ``chinchon_sets`` one set of the whole hand is a chinchón too.
    """
    if len(cards) != rules.hand_size:
        return False
    if rules.chinchon_needs_natural and any(rules.is_wild(card) for card in cards):
        return False
    naturals = [card for card in cards if not rules.is_wild(card)]
    if len(naturals) < 2 or len(cards) - len(naturals) > rules.max_wilds_per_meld:
        return False
    if rules.chinchon_sets and len({card.rank for card in naturals}) == 1:
        return is_meld(cards, rules)
    return _arrange_run(naturals, len(cards) - len(naturals), rules) is not None


def extend_meld(meld: Sequence[Card], card: Card, rules: Rules = _DEFAULT) -> tuple[Card, ...] | None:
    """The meld with the card laid off onto it, or ``None`` if the card cannot join it.

    A set takes a card of its rank up to its largest size; a run takes the
    next card of its suit at either end. A wild card joins where a natural card
    could (the top end of a run first). A laid-off card never takes a wild
    card's place, and the meld is never rearranged; except under
    ``wild_floats``, where the natural card a wild card of a run stands for
    takes its place and the wild card moves to the top end (to the bottom
    when the run already reaches the top rank). Under ``wild_floats="anywhere"``
    a wild card at an end of a run may also move to the other end to make room
    (see :func:`run_layouts`): ``[3♥ 4♥ 🃏]`` takes A♥ as ``[A♥ 🃏 3♥ 4♥]``.
    The meld as laid is tried first.
    """
    shape = _positions(meld, rules)
    if shape is None:
        return None
    extended = _extend_as_laid(meld, card, rules, shape)
    if extended is None and rules.wild_floats == "anywhere" and shape[0] == "run":
        for layout in run_layouts(meld, rules)[1:]:
            moved = _positions(layout, rules)
            if moved is not None:
                extended = _extend_as_laid(layout, card, rules, moved)
                if extended is not None:
                    break
    return extended


def _extend_as_laid(
    meld: Sequence[Card], card: Card, rules: Rules, shape: tuple[str, int, int]
) -> tuple[Card, ...] | None:
    """:func:`extend_meld` with the meld's cards where they are (but for a wild card a natural card replaces)."""
    wild = rules.is_wild(card)
    wilds_in = sum(1 for c in meld if rules.is_wild(c))
    if wild and wilds_in >= rules.max_wilds_per_meld:
        return None
    kind, where, low = shape
    ranks = rules.ranks
    if kind == "set":
        limit = rules.max_set_size or (4 if rules.set_distinct_suits else 4 * rules.most_decks)
        if len(meld) >= limit:
            return None
        if wild:
            return (*meld, card)
        if card.rank != ranks[where]:
            return None
        if rules.set_distinct_suits and card.suit in {c.suit for c in meld if not rules.is_wild(c)}:
            return None
        if rules.set_distinct_suits and len(meld) >= 4:
            return None
        return (*meld, card)
    high = low + len(meld) - 1
    if wild:
        if high + 1 < len(ranks):
            return (*meld, card)
        if low > 0:
            return (card, *meld)
        return None
    if card.suit is None or card.suit.index != where or card.rank not in ranks:
        return None
    position = ranks.index(card.rank)
    if position == high + 1:
        return (*meld, card)
    if position == low - 1:
        return (card, *meld)
    if rules.wild_floats and low <= position <= high and rules.is_wild(meld[position - low]):
        displaced = meld[position - low]
        taken = (*meld[: position - low], card, *meld[position - low + 1 :])
        if high + 1 < len(ranks):
            return (*taken, displaced)
        if low > 0:
            return (displaced, *taken)
    return None


def meld_extensions(meld: Sequence[Card], rules: Rules = _DEFAULT) -> dict[Card, tuple[Card, ...]]:
    """Every card that can be laid off onto the meld, with the meld it makes (as :func:`extend_meld`)."""
    key = tuple(meld)
    cache = _extension_cache(rules)
    found = cache.get(key)
    if found is None:
        shape = _positions(key, rules)
        found = {}
        if shape is not None:
            kind, where, low = shape
            ranks = rules.ranks
            candidates: list[Card] = [JOKER, Card(Rank.ACE, Suit.OROS)]
            if kind == "set":
                candidates.extend(Card(ranks[where], suit) for suit in Suit)
            else:
                suit = list(Suit)[where]
                for position in (low - 1, low + len(key)):
                    if 0 <= position < len(ranks):
                        candidates.append(Card(ranks[position], suit))
                if rules.wild_floats == "anywhere":
                    candidates.extend(Card(rank, suit) for rank in ranks)
                elif rules.wild_floats:
                    candidates.extend(Card(ranks[low + i], suit) for i, c in enumerate(key) if rules.is_wild(c))
            for card in candidates:
                if card in found or (card.is_joker and not rules.jokers) or not rules.has_card(card):
                    continue
                extended = extend_meld(key, card, rules)
                if extended is not None:
                    found[card] = extended
        if len(cache) > 50_000:
            cache.clear()
        cache[key] = found
    return found


def _new_extension_cache(rules: Rules) -> dict[tuple[Card, ...], dict[Card, tuple[Card, ...]]]:
    return {}


def _extension_cache(rules: Rules) -> dict[tuple[Card, ...], dict[Card, tuple[Card, ...]]]:
    return per_rules(rules, _new_extension_cache)


def layoff_options(
    cards: Sequence[Card], table: Sequence[Sequence[Card]], rules: Rules = _DEFAULT
) -> list[tuple[Card, int]]:
    """Every (card, meld index) such that the card can be laid off onto that meld of the table.

    Each distinct card appears once per meld it fits, in the order of the hand
    (sorted), then of the table.
    """
    out = []
    for card in sorted(set(cards)):
        for index, meld in enumerate(table):
            if extend_meld(meld, card, rules) is not None:
                out.append((card, index))
    return out
