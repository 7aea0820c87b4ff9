"""The meld solver: the meld tables of one ``Rules`` and the searches over them, on bitmasks.

The solver works on integer bitmasks, one bit per kind of card (rank and
suit), with a second mask for kinds held twice (two decks) and a count of
wild cards; the tables of each ``Rules`` are built once (:func:`solver_for`).
The functions on lists of cards (:func:`~chinchon.melds.best_arrangement`
and the others) are in :mod:`chinchon.melds`, which re-exports these names.

>>> from chinchon.cards import parse_cards
>>> from chinchon.rules import Rules
>>> solver = solver_for(Rules())
>>> mask = solver.single_mask(parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"))
>>> solver.points_single(mask), str(solver.arrangement_single(mask))
(1, '[3♥ 4♥ 5♥] [7♦ 7♠ 7♣] A♦ (1)')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, product
from typing import NamedTuple

from chinchon.cache import per_rules
from chinchon.cards import JOKER, Card, Rank, Suit
from chinchon.errors import N_, HandError
from chinchon.rules import Rules

__all__ = ["Arrangement", "ClosingOption", "Solver", "solver_for"]

# A meld instance inside the solver: natural kinds used once or more (a1),
# kinds used twice (a2, only in sets of two decks), wild cards used (k), and
# its layout: kind numbers in meld order, -1 standing for a wild card.
_Instance = tuple[int, int, int, tuple[int, ...]]
# A search result: (points, loose cards, melds) to minimise, and the melds.
_Key = tuple[int, int, int]


class Arrangement(NamedTuple):
    """A hand arranged into melds and loose cards.

    ``points`` is the value of the loose cards under the rules it was made for.
    """

    melds: tuple[tuple[Card, ...], ...]
    loose: tuple[Card, ...]
    points: int

    def __str__(self) -> str:
        parts = ["[" + " ".join(map(str, meld)) + "]" for meld in self.melds]
        parts.extend(map(str, self.loose))
        parts.append(f"({self.points})")
        return " ".join(parts)

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card of the arrangement: the melds' in order, then the loose ones."""
        return tuple(card for meld in self.melds for card in meld) + self.loose


class ClosingOption(NamedTuple):
    """A legal close: the card put face down and the arrangement of the rest."""

    discard: Card
    arrangement: Arrangement

    @property
    def points(self) -> int:
        """The loose points the close leaves."""
        return self.arrangement.points

    def __str__(self) -> str:
        return f"{self.discard}: {self.arrangement}"


class Solver:
    """The meld tables of one ``Rules`` and the searches over them.

    Obtain one with :func:`solver_for`; it is built once per ``Rules``.
    Kinds are numbered ``suit_index * R + rank_position`` where ``R`` is the
    number of ranks in the deck; wild cards have no kind.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        ranks = rules.ranks
        self.R = R = len(ranks)
        self.full = (1 << R) - 1
        self.decks = rules.most_decks
        suits = tuple(Suit)
        self.card_of: list[Card] = [Card(rank, suit) for suit in suits for rank in ranks]
        self.kind_of: dict[Card, int] = {card: kind for kind, card in enumerate(self.card_of)}
        self.wild_cards: tuple[Card, ...] = ()
        wilds: list[Card] = []
        if rules.jokers:
            wilds.append(JOKER)
        if rules.wild_ace_of_oros:
            ace = Card(Rank.ACE, Suit.OROS)
            del self.kind_of[ace]
            wilds.append(ace)
        self.wild_cards = tuple(wilds)
        self.max_wild_copies = (rules.jokers + (1 if rules.wild_ace_of_oros else 0)) * self.decks
        self.value_of: list[int] = [rules.value(card) for card in self.card_of]
        self.wild_value = rules.wild_value
        self.close_limit = rules.close_limit
        self.close_max_loose = rules.close_max_loose_cards
        self.max_value = max(self.value_of)
        self.max_wilds = rules.max_wilds_per_meld if self.max_wild_copies else 0
        self.distinct = rules.set_distinct_suits
        self.max_set = rules.max_set_size or (4 if rules.set_distinct_suits else 4 * self.decks)
        rank_values = [rules.value(Card(rank, Suit.COPAS)) for rank in ranks]
        self.suit_value: list[int] = [sum(v for i, v in enumerate(rank_values) if m >> i & 1) for m in range(1 << R)]
        # runs[s][m]: every run (as a kind mask) inside the rank mask m of suit s.
        runs_of_mask: list[tuple[int, ...]] = []
        for m in range(1 << R):
            found = []
            for length in range(R, 2, -1):
                window = (1 << length) - 1
                for low in range(R - length + 1):
                    if m & (window << low) == window << low:
                        found.append(window << low)
            runs_of_mask.append(tuple(found))
        self.runs: list[list[tuple[int, ...]]] = [
            [tuple(run << (s * R) for run in runs_of_mask[m]) for m in range(1 << R)] for s in range(4)
        ]
        # sets[r][p]: every set of natural cards of rank position r whose suits are in the 4-bit mask p.
        self.sets: list[list[tuple[int, ...]]] = []
        for r in range(R):
            by_presence: list[tuple[int, ...]] = []
            for p in range(16):
                present = [s for s in range(4) if p >> s & 1]
                found = []
                for size in range(min(len(present), self.max_set), 2, -1):
                    for chosen in combinations(present, size):
                        found.append(sum(1 << (s * R + r) for s in chosen))
                by_presence.append(tuple(found))
            self.sets.append(by_presence)
        # The value of every natural meld of single cards, and the cards of each suit's rank mask that runs can hold.
        self.meld_value: dict[int, int] = {}
        for by_mask in self.runs:
            for found_runs in by_mask:
                for run in found_runs:
                    self.meld_value[run] = self.mask_value(run)
        for by_presence in self.sets:
            for found_sets in by_presence:
                for meld in found_sets:
                    self.meld_value[meld] = self.mask_value(meld)
        self.run_cover: list[int] = []
        for m in range(1 << R):
            starts = m & m >> 1 & m >> 2
            self.run_cover.append(starts | starts << 1 | starts << 2)
        self._best_cache: dict[int, tuple[_Key, tuple[int, ...]]] = {}
        self._points_cache: dict[int, int] = {}
        self._close_cache: dict[int, bool] = {}
        self._discard_cache: dict[int, int] = {}
        self._caches = (self._best_cache, self._points_cache, self._close_cache, self._discard_cache)
        # Fast paths for hands of single natural cards: a bit per card code,
        # the cards and the dearest card of each suit's rank mask.
        self.bit_by_code: list[int] = [0] * 100
        for kind, card in enumerate(self.card_of):
            if card in self.kind_of:
                self.bit_by_code[card._code] = 1 << kind
        self.suit_cards: list[list[tuple[Card, ...]]] = [
            [tuple(self.card_of[s * R + p] for p in range(R) if m >> p & 1) for m in range(1 << R)] for s in range(4)
        ]
        self.suit_top: list[tuple[int, int]] = [(0, -1)]
        for m in range(1, 1 << R):
            top = max(rank_values[p] for p in range(R) if m >> p & 1)
            self.suit_top.append((top, next(p for p in range(R) if m >> p & 1 and rank_values[p] == top)))

    def clear_caches(self) -> None:
        """Forget the hands solved so far (each search keeps up to 200,000): to time the solver from cold."""
        for cache in self._caches:
            cache.clear()

    # -- hands ----------------------------------------------------------------------

    def encode(self, cards: Iterable[Card]) -> tuple[int, int, int, list[Card]]:
        """The hand as (kinds held, kinds held twice, wild count, wild cards).

        Raises:
            HandError: a card the deck does not have, or more copies of a card than the decks hold.
        """
        m1 = m2 = 0
        wild_list: list[Card] = []
        kind_of = self.kind_of
        for card in cards:
            kind = kind_of.get(card)
            if kind is None:
                if card in self.wild_cards:
                    wild_list.append(card)
                    continue
                if not isinstance(card, Card):
                    raise HandError(N_("not a card: {text}"), text=repr(card))
                raise HandError(N_("{card} is not in the {deck} deck"), card=card, deck=self.rules.deck)
            bit = 1 << kind
            if m1 & bit:
                if m2 & bit or self.decks < 2:
                    raise _too_many(card, self.decks)
                m2 |= bit
            else:
                m1 |= bit
        for wild in set(wild_list):
            held = wild_list.count(wild)
            most = self.decks * (self.rules.jokers if wild.is_joker else 1)
            if held > most:
                raise _too_many(wild, most)
        return m1, m2, len(wild_list), wild_list

    def single_mask(self, cards: Sequence[Card]) -> int:
        """The kind mask of a hand of distinct natural cards, or -1 for any other hand."""
        bits = self.bit_by_code
        mask = 0
        try:
            for card in cards:
                mask |= bits[card._code]
        except AttributeError:
            return -1
        # A repeated card, a wild card or a card foreign to the deck adds no bit.
        return mask if mask.bit_count() == len(cards) else -1

    def cards_of(self, mask: int) -> tuple[Card, ...]:
        """The cards of a kind mask of single cards, in card order."""
        R, full, sc = self.R, self.full, self.suit_cards
        return sc[0][mask & full] + sc[1][mask >> R & full] + sc[2][mask >> (2 * R) & full] + sc[3][mask >> (3 * R)]

    def top(self, mask: int) -> tuple[int, int]:
        """The dearest card of a non-empty kind mask: (its value, its kind); ties go to the lowest kind."""
        R, full, st = self.R, self.full, self.suit_top
        best = (-1, -1)
        for s in range(4):
            sm = mask >> (s * R) & full
            if sm:
                value, position = st[sm]
                if value > best[0]:
                    best = (value, s * R + position)
        return best

    def value_and_top(self, mask: int) -> tuple[int, int]:
        """The loose points of a kind mask and the value of its dearest card."""
        R, full, sv = self.R, self.full, self.suit_value
        a = mask & full
        b = mask >> R & full
        c = mask >> (2 * R) & full
        d = mask >> (3 * R)
        # Values depend on the rank alone, so the dearest rank of any suit is the dearest card.
        return sv[a] + sv[b] + sv[c] + sv[d], self.suit_top[a | b | c | d][0]

    def _meld_order(self, mask: int) -> tuple[int, int, int]:
        low = (mask & -mask).bit_length() - 1
        return low % self.R, low // self.R, -mask.bit_count()

    def arrangement_single(self, mask: int) -> Arrangement:
        """The best arrangement of a hand of distinct natural cards."""
        key, chosen = self.best_single(mask)
        covered = 0
        for meld in chosen:
            covered |= meld
        if len(chosen) > 1:
            chosen = tuple(sorted(chosen, key=self._meld_order))
        return Arrangement(tuple(map(self.cards_of, chosen)), self.cards_of(mask & ~covered), key[0])

    def within_close_limit(self, points: int, loose_cards: int) -> bool:
        """Whether a close may leave these loose points and this many loose cards (``close_limit`` and
        ``close_max_loose_cards``, RULES.md D5): the one test of the close limit, which every search for a
        close and :meth:`Deal.check <chinchon.deal.Deal.check>` ask. (The searches skip, before asking, the
        arrangements whose dearest loose card would not bring them within it.)"""
        most_loose = self.close_max_loose
        return points <= self.close_limit and (most_loose is None or loose_cards <= most_loose)

    def _closes_single(self, mask: int) -> list[tuple[int, int, int, int, tuple[int, ...], int]]:
        """Every legal close of a hand of distinct natural cards, best first, as (points left, loose cards,
        order found, kind discarded, melds, loose kinds with the discard)."""
        within = self.within_close_limit
        value_of = self.value_of
        melds = self.melds_in(mask)
        packings = [((), 0), *_disjoint_packings(melds)] if melds else [((), 0)]
        found: list[tuple[int, int, int, int, tuple[int, ...], int]] = []
        for chosen, covered in packings:
            loose = mask & ~covered
            count = loose.bit_count() - 1
            points, top = self.value_and_top(loose)
            if not within(points - top, count):
                continue
            rest = loose
            while rest:
                low = rest & -rest
                rest ^= low
                kind = low.bit_length() - 1
                left = points - value_of[kind]
                if within(left, count):
                    found.append((left, count, len(found), kind, chosen, loose))
        found.sort()
        return found

    def closing_options_single(self, mask: int) -> list[ClosingOption]:
        """Every legal close of a hand of distinct natural cards, best first."""
        card_of, cards_of = self.card_of, self.cards_of
        laid: dict[tuple[int, ...], tuple[tuple[Card, ...], ...]] = {}
        options: list[ClosingOption] = []
        for left, _, _, kind, chosen, loose in self._closes_single(mask):
            melds_cards = laid.get(chosen)
            if melds_cards is None:
                melds_cards = laid[chosen] = tuple(cards_of(m) for m in sorted(chosen, key=self._meld_order))
            options.append(ClosingOption(card_of[kind], Arrangement(melds_cards, cards_of(loose & ~(1 << kind)), left)))
        return options

    def closing_discards_single(self, mask: int) -> list[int]:
        """The kinds a hand of distinct natural cards may close by discarding, each once, best first."""
        kinds: list[int] = []
        for close in self._closes_single(mask):
            if close[3] not in kinds:
                kinds.append(close[3])
        return kinds

    def best_discard_single(self, mask: int) -> ClosingOption:
        """The discard that leaves the fewest loose points from a hand of distinct natural cards."""
        chosen, loose, left = self._best_discard_packing(mask)
        kind = self.top(loose)[1]
        melds_cards = tuple(self.cards_of(m) for m in sorted(chosen, key=self._meld_order))
        rest = self.cards_of(loose & ~(1 << kind))
        return ClosingOption(self.card_of[kind], Arrangement(melds_cards, rest, left))

    def _best_discard_packing(self, mask: int) -> tuple[tuple[int, ...], int, int]:
        """The melds and loose kinds of the packing whose dearest loose card is the best discard; the points left."""
        melds = self.melds_in(mask)
        best: tuple[tuple[int, int, int], tuple[int, ...], int] | None = None
        for chosen, covered in [((), 0), *_disjoint_packings(melds)] if melds else [((), 0)]:
            loose = mask & ~covered
            if not loose:
                # Every card is in a meld: discarding one breaks it, which another packing covers.
                continue
            points, top = self.value_and_top(loose)
            key = (points - top, loose.bit_count() - 1, len(chosen))
            if best is None or key < best[0]:
                best = (key, chosen, loose)
        assert best is not None
        return best[1], best[2], best[0][0]

    def mask_value(self, mask: int) -> int:
        """The loose points of the natural cards of a kind mask."""
        R, full, sv = self.R, self.full, self.suit_value
        return sv[mask & full] + sv[mask >> R & full] + sv[mask >> (2 * R) & full] + sv[mask >> (3 * R)]

    def melds_in(self, mask: int) -> list[int]:
        """Every natural meld (a kind mask) inside a kind mask of single cards."""
        R, full, runs = self.R, self.full, self.runs
        a = mask & full
        b = mask >> R & full
        c = mask >> (2 * R) & full
        d = mask >> (3 * R)
        out: list[int] = [*runs[0][a], *runs[1][b], *runs[2][c], *runs[3][d]]
        three = (a & b & (c | d)) | (c & d & (a | b))
        while three:
            low = three & -three
            three ^= low
            r = low.bit_length() - 1
            out.extend(self.sets[r][(a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3])
        return out

    def instances(self, m1: int, m2: int, w: int) -> list[_Instance]:
        """Every meld that a hand of kinds held, kinds held twice and wilds can make."""
        R, full = self.R, self.full
        out: list[_Instance] = []
        most_wilds = min(self.max_wilds, w)
        for s in range(4):
            sm = m1 >> (s * R) & full
            if sm.bit_count() < 2:
                continue
            base = s * R
            positions = [p for p in range(R) if sm >> p & 1]
            for i, low in enumerate(positions):
                for j in range(i + 1, len(positions)):
                    high = positions[j]
                    missing = (high - low + 1) - (j - i + 1)
                    if missing > most_wilds:
                        break
                    inner = positions[i + 1 : j]
                    for dropped_count in range(most_wilds - missing + 1):
                        for dropped in combinations(inner, dropped_count):
                            natural = [p for p in positions[i : j + 1] if p not in dropped]
                            n = len(natural)
                            gaps = missing + dropped_count
                            for k in range(gaps, most_wilds + 1):
                                if n + k < 3 or n + k > R:
                                    continue
                                extra = k - gaps
                                top = min(R - 1, high + extra)
                                bottom = low - (extra - (top - high))
                                layout = tuple(base + p if p in natural else -1 for p in range(bottom, top + 1))
                                a1 = sum(1 << (base + p) for p in natural)
                                out.append((a1, 0, k, layout))
        a, b, c, d = (m1 >> (s * R) & full for s in range(4))
        candidates = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
        if not self.distinct:
            for s in range(4):
                candidates |= m2 >> (s * R) & full
        if not most_wilds:
            candidates &= (a & b & (c | d)) | (c & d & (a | b)) | (0 if self.distinct else full)
        while candidates:
            low_bit = candidates & -candidates
            candidates ^= low_bit
            r = low_bit.bit_length() - 1
            counts = [(m1 >> (s * R + r) & 1) + (m2 >> (s * R + r) & 1) for s in range(4)]
            caps = [min(c, 1) for c in counts] if self.distinct else counts
            if sum(caps) + most_wilds < 3:
                continue
            for chosen in product(*(range(cap, -1, -1) for cap in caps)):
                n = sum(chosen)
                if n < 2:
                    continue
                for k in range(most_wilds + 1):
                    if n + k < 3 or n + k > self.max_set:
                        continue
                    a1 = a2 = 0
                    kinds: list[int] = []
                    for s, copies in enumerate(chosen):
                        if copies:
                            a1 |= 1 << (s * R + r)
                            kinds.extend([s * R + r] * copies)
                        if copies == 2:
                            a2 |= 1 << (s * R + r)
                    out.append((a1, a2, k, (*kinds, *([-1] * k))))
        return out

    # -- best arrangement -----------------------------------------------------------

    def best(self, m1: int, m2: int = 0, w: int = 0) -> tuple[_Key, list[tuple[int, ...]]]:
        """The best arrangement: its (points, loose cards, melds) and the melds' layouts."""
        if not m2 and not w:
            cached = self._best_cache.get(m1)
            if cached is None:
                cached = self.best_single(m1)
                if len(self._best_cache) > 200_000:
                    self._best_cache.clear()
                self._best_cache[m1] = cached
            key, layout_kinds = cached
            return key, [self._layout_of(meld) for meld in layout_kinds]
        best_key: _Key | None = None
        best_chosen: list[_Instance] = []
        for chosen, r1, r2, rw in self._packings(m1, m2, w):
            key = (
                self.mask_value(r1) + self.mask_value(r2) + rw * self.wild_value,
                r1.bit_count() + r2.bit_count() + rw,
                len(chosen),
            )
            if best_key is None or key < best_key:
                best_key, best_chosen = key, chosen
        assert best_key is not None
        return best_key, [inst[3] for inst in best_chosen]

    def best_points(self, m1: int, m2: int = 0, w: int = 0) -> int:
        """The fewest loose points of a hand."""
        if not m2 and not w:
            points = self._points_cache.get(m1)
            if points is None:
                points = self.points_single(m1)
                if len(self._points_cache) > 200_000:
                    self._points_cache.clear()
                self._points_cache[m1] = points
            return points
        return self.best(m1, m2, w)[0][0]

    def points_single(self, mask: int) -> int:
        """The fewest loose points of a hand of distinct natural cards (a kind mask)."""
        R, full, sv = self.R, self.full, self.suit_value
        a = mask & full
        b = mask >> R & full
        c = mask >> (2 * R) & full
        d = mask >> (3 * R)
        total = sv[a] + sv[b] + sv[c] + sv[d]
        if not (mask & mask >> 1 & mask >> 2 or (a & b & (c | d)) | (c & d & (a | b))):
            return total
        melds = self.melds_in(mask)
        value = self.meld_value
        if len(melds) < 2:
            return total - value[melds[0]] if melds else total
        # The fewest loose points are the total less the dearest set of disjoint melds.
        most = 0
        stack = [(0, 0, 0)]
        n = len(melds)
        while stack:
            start, covered, held = stack.pop()
            if held > most:
                most = held
            for i in range(start, n):
                meld = melds[i]
                if not meld & covered:
                    stack.append((i + 1, covered | meld, held + value[meld]))
        return total - most

    def best_single(self, mask: int) -> tuple[tuple[int, int, int], tuple[int, ...]]:
        """The best arrangement of a hand of single natural cards (a kind mask), found anew: its key (loose
        points, loose cards, melds) and its melds as kind masks. :meth:`best` keeps what it finds; a search
        that tries many hands once each calls this instead."""
        R, full, sv = self.R, self.full, self.suit_value
        a = mask & full
        b = mask >> R & full
        c = mask >> (2 * R) & full
        d = mask >> (3 * R)
        total = sv[a] + sv[b] + sv[c] + sv[d]
        # Three neighbouring bits may straddle two suits: then melds_in finds no run.
        if not (mask & mask >> 1 & mask >> 2 or (a & b & (c | d)) | (c & d & (a | b))):
            return (total, mask.bit_count(), 0), ()
        melds = self.melds_in(mask)
        best_key: _Key = (total, mask.bit_count(), 0)
        best_chosen: tuple[int, ...] = ()
        for chosen, covered in _disjoint_packings(melds):
            loose = mask & ~covered
            key = (self.mask_value(loose), loose.bit_count(), len(chosen))
            if key < best_key:
                best_key, best_chosen = key, chosen
        return best_key, best_chosen

    def _layout_of(self, meld_mask: int) -> tuple[int, ...]:
        kinds = []
        while meld_mask:
            low = meld_mask & -meld_mask
            kinds.append(low.bit_length() - 1)
            meld_mask ^= low
        return tuple(kinds)

    def _packings(self, m1: int, m2: int, w: int) -> list[tuple[list[_Instance], int, int, int]]:
        """Every multiset of melds the hand can hold at once, with what each leaves."""
        found: list[tuple[list[_Instance], int, int, int]] = []
        if not m2 and not w:
            for chosen_masks, covered in [((), 0), *_disjoint_packings(self.melds_in(m1))]:
                found.append(([(m, 0, 0, self._layout_of(m)) for m in chosen_masks], m1 & ~covered, 0, 0))
            return found
        insts = self.instances(m1, m2, w)

        def walk(start: int, r1: int, r2: int, rw: int, chosen: list[_Instance]) -> None:
            found.append((chosen, r1, r2, rw))
            for i in range(start, len(insts)):
                inst = insts[i]
                a1, a2, k, _ = inst
                if a1 & ~r1 or a2 & ~r2 or k > rw:
                    continue
                walk(i, r1 & ~(a2 | (a1 & ~a2 & ~r2)), r2 & ~a1, rw - k, [*chosen, inst])

        walk(0, m1, m2, w, [])
        return found

    # -- closing --------------------------------------------------------------------

    def closes(self, m1: int, m2: int, w: int) -> list[tuple[int, list[_Instance], int, int, int]]:
        """Every legal close: (discarded kind or -1 for a wild, melds, loose kinds, twice, wilds)."""
        within = self.within_close_limit
        value_of, wild_value = self.value_of, self.wild_value
        out = []
        for chosen, r1, r2, rw in self._packings(m1, m2, w):
            points = self.mask_value(r1) + self.mask_value(r2) + rw * wild_value
            loose_count = r1.bit_count() + r2.bit_count() + rw - 1
            if not within(0, loose_count):
                continue
            if rw and within(points - wild_value, loose_count):
                out.append((-1, chosen, r1, r2, rw - 1))
            if not within(points - self.max_value, loose_count):
                continue
            rest = r1
            while rest:
                low = rest & -rest
                rest ^= low
                kind = low.bit_length() - 1
                if within(points - value_of[kind], loose_count):
                    if r2 & low:
                        out.append((kind, chosen, r1, r2 & ~low, rw))
                    else:
                        out.append((kind, chosen, r1 & ~low, r2, rw))
        return out

    def can_close(self, m1: int, m2: int, w: int) -> bool:
        """Whether a hand holding the card just drawn has a legal close."""
        if m2 or w:
            return bool(self.closes(m1, m2, w))
        return self.can_close_single(m1)

    def can_close_single(self, mask: int) -> bool:
        """Whether a hand of distinct natural cards (a kind mask) holding the card just drawn has a legal close."""
        R, full = self.R, self.full
        return self.can_close_suits(mask, mask & full, mask >> R & full, mask >> (2 * R) & full, mask >> (3 * R))

    def can_close_suits(self, mask: int, a: int, b: int, c: int, d: int) -> bool:
        """:meth:`can_close_single`, given the kind mask's four suits (``a`` to ``d``) too."""
        sv, rc = self.suit_value, self.run_cover
        three = (a & b & (c | d)) | (c & d & (a | b))
        # The cards no meld can hold stay loose in every arrangement: a bound that settles most hands.
        fa = a & ~(rc[a] | three)
        fb = b & ~(rc[b] | three)
        fc = c & ~(rc[c] | three)
        fd = d & ~(rc[d] | three)
        least = sv[fa] + sv[fb] + sv[fc] + sv[fd] - self.suit_top[fa | fb | fc | fd][0]
        # Bounds that settle most hands at once: no arrangement leaves fewer loose points, or fewer loose cards.
        if least > self.close_limit:
            return False
        if fa == a and fb == b and fc == c and fd == d:
            # No meld: every card but the discard stays loose, exactly.
            return self.within_close_limit(least, mask.bit_count() - 1)
        most_loose = self.close_max_loose
        if (
            most_loose is not None
            and fa.bit_count() + fb.bit_count() + fc.bit_count() + fd.bit_count() - 1 > most_loose
        ):
            return False
        cached = self._close_cache.get(mask)
        if cached is None:
            cached = self._can_close_single(mask)
            if len(self._close_cache) > 200_000:
                self._close_cache.clear()
            self._close_cache[mask] = cached
        return cached

    def _can_close_single(self, mask: int) -> bool:
        within = self.within_close_limit
        points, top = self.value_and_top(mask)
        if within(points - top, mask.bit_count() - 1):
            return True
        melds = self.melds_in(mask)
        for _, covered in _disjoint_packings(melds) if melds else ():
            loose = mask & ~covered
            points, top = self.value_and_top(loose)
            if within(points - top, loose.bit_count() - 1):
                return True
        return False

    def discard_kind_single(self, mask: int) -> int:
        """The kind :meth:`best_discard_key` discards from a hand of distinct natural cards (a kind mask)."""
        cached = self._discard_cache.get(mask)
        if cached is not None:
            return cached
        kind = self.top(self._best_discard_packing(mask)[1])[1]
        if len(self._discard_cache) > 200_000:
            self._discard_cache.clear()
        self._discard_cache[mask] = kind
        return kind

    def best_discard_key(self, m1: int, m2: int, w: int) -> tuple[_Key, int, list[_Instance], int, int, int]:
        """The discard leaving the fewest loose points (then loose cards, then melds)."""
        value_of, wild_value = self.value_of, self.wild_value
        best: tuple[_Key, int, list[_Instance], int, int, int] | None = None
        for chosen, r1, r2, rw in self._packings(m1, m2, w):
            points = self.mask_value(r1) + self.mask_value(r2) + rw * wild_value
            count = r1.bit_count() + r2.bit_count() + rw - 1
            if rw:
                key = (points - wild_value, count, len(chosen))
                if best is None or key < best[0]:
                    best = (key, -1, chosen, r1, r2, rw - 1)
            rest = r1
            while rest:
                low = rest & -rest
                rest ^= low
                kind = low.bit_length() - 1
                key = (points - value_of[kind], count, len(chosen))
                if best is None or key < best[0]:
                    if r2 & low:
                        best = (key, kind, chosen, r1, r2 & ~low, rw)
                    else:
                        best = (key, kind, chosen, r1 & ~low, r2, rw)
        assert best is not None
        return best

    # -- building public objects ----------------------------------------------------

    def _layout_order(self, layout: tuple[int, ...]) -> tuple[int, int, int]:
        first = next(kind for kind in layout if kind >= 0)
        return first % self.R, first // self.R, -len(layout)

    def arrangement(self, layouts: Iterable[tuple[int, ...]], r1: int, r2: int, wilds: list[Card]) -> Arrangement:
        """The public arrangement of melds (as layouts), loose kinds and loose wild cards."""
        card_of = self.card_of
        pool = list(wilds)
        melds = []
        for layout in sorted(layouts, key=self._layout_order):
            melds.append(tuple(card_of[kind] if kind >= 0 else pool.pop() for kind in layout))
        loose: list[Card] = []
        for mask in (r1, r2):
            while mask:
                low = mask & -mask
                mask ^= low
                loose.append(card_of[low.bit_length() - 1])
        loose.sort()
        loose.extend(pool)
        points = sum(self.rules.value(card) for card in loose)
        return Arrangement(tuple(melds), tuple(loose), points)


def _disjoint_packings(melds: list[int]) -> list[tuple[tuple[int, ...], int]]:
    """Every non-empty set of pairwise disjoint melds, with the cards they cover."""
    out: list[tuple[tuple[int, ...], int]] = []
    stack: list[tuple[int, tuple[int, ...], int]] = [(0, (), 0)]
    n = len(melds)
    while stack:
        start, chosen, covered = stack.pop()
        for i in range(start, n):
            meld = melds[i]
            if not meld & covered:
                item = ((*chosen, meld), covered | meld)
                out.append(item)
                stack.append((i + 1, item[0], item[1]))
    return out


def _too_many(card: Card, copies: int) -> HandError:
    if copies == 1:
        return HandError(N_("{card} is in the hand more than once, and the game has only one"), card=card)
    return HandError(
        N_("{card} is in the hand more than {copies} times, and the game has only {copies}"), copies=copies, card=card
    )


def solver_for(rules: Rules) -> Solver:
    """The solver of a ``Rules``: built on first use, then kept in the per-rules cache."""
    return per_rules(rules, Solver)
