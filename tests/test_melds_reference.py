"""The solver agrees with the brute-force reference on many random hands.

``CHINCHON_REFERENCE_HANDS`` scales the number of hands per configuration
(default 1: the counts below; 10 for a long run).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable

import pytest

from chinchon import Card, Rules
from chinchon.melds import best_arrangement, best_discard, closing_options, is_meld, loose_points
from tests.reference import (
    arrangement_key,
    canonical,
    is_wild,
    reference_best,
    reference_best_discard,
    reference_closes,
    reference_is_meld,
)

SCALE = int(os.environ.get("CHINCHON_REFERENCE_HANDS", "1"))

CONFIGS: dict[str, Rules] = {
    "fournier": Rules(),
    "clasico": Rules.preset("clasico"),
    "online": Rules.preset("online"),
    "polaco-two-decks": Rules.preset("polaco", decks=2),
    "polaco-48": Rules.preset("polaco", deck="spanish48"),
    "online-10-cards": Rules.preset("online", hand_size=10, decks=2, max_players=4),
    "jokers": Rules.preset("online", jokers=2),
    "french-jokers": Rules.preset("clasico", deck="french52", jokers=2),
    "wild-ace": Rules(wild_ace_of_oros=True),
    "two-wilds-per-meld": Rules(jokers=2, max_wilds_per_meld=2),
    "two-decks-any-suits": Rules(decks=2, set_distinct_suits=False, jokers=1),
    "small-sets": Rules(decks=2, set_distinct_suits=False, max_set_size=3),
    "close-limit-10": Rules(close_limit=10, close_max_loose_cards=2),
}


def random_hand(rng: random.Random, rules: Rules, size: int) -> list[Card]:
    return rng.sample(rules.cards(), size)


def rich_hand(rng: random.Random, rules: Rules, size: int) -> list[Card]:
    """Cards of a few neighbouring ranks in a few suits: many melds, many ties."""
    ranks = rules.ranks
    width = 3 if size <= 8 else 4
    low = rng.randrange(len(ranks) - width + 1)
    wanted = set(ranks[low : low + width])
    suits = set(rng.sample(["♦", "♥", "♠", "♣"], 3 if size <= 9 else 4))
    pool = [c for c in rules.cards() if c.rank in wanted and c.suit is not None and c.suit.symbol in suits]
    extra = [c for c in rules.cards() if c not in pool]
    cards = rng.sample(pool, min(size, len(pool)))
    return cards + rng.sample(extra, size - len(cards))


def wild_hand(rng: random.Random, rules: Rules, size: int) -> list[Card]:
    wilds = [c for c in rules.cards() if is_wild(c, rules)]
    if not wilds:
        return rich_hand(rng, rules, size)
    k = rng.randint(1, min(2, len(wilds)))
    chosen = rng.sample(wilds, k)
    if rng.random() < 0.5:
        rest = [c for c in rules.cards() if not is_wild(c, rules)]
        return chosen + rng.sample(rest, size - k)
    rich = [c for c in rich_hand(rng, rules, size + 2) if not is_wild(c, rules)]
    return chosen + rich[: size - k]


MAKERS: dict[str, Callable[[random.Random, Rules, int], list[Card]]] = {
    "random": random_hand,
    "rich": rich_hand,
    "wild": wild_hand,
}


def sizes(rules: Rules) -> tuple[int, int]:
    return rules.hand_size, rules.hand_size + 1


def check_arrangement(hand: list[Card], rules: Rules) -> None:
    arrangement = best_arrangement(hand, rules)
    assert Counter(arrangement.cards) == Counter(hand), hand
    for meld in arrangement.melds:
        assert reference_is_meld(meld, rules), (hand, meld)
        assert is_meld(meld, rules), (hand, meld)
    assert arrangement.points == sum(rules.value(c) for c in arrangement.loose)
    assert (arrangement.points, len(arrangement.loose)) == reference_best(hand, rules), [str(c) for c in hand]


def check_closing(hand: list[Card], rules: Rules) -> None:
    options = closing_options(hand, rules)
    found = set()
    for option in options:
        rest = list(hand)
        rest.remove(option.discard)
        arrangement = option.arrangement
        assert Counter(arrangement.cards) == Counter(rest)
        assert option.points == sum(rules.value(c) for c in arrangement.loose) <= rules.close_limit
        key = (str(option.discard), arrangement_key(arrangement.melds, arrangement.loose, rules))
        assert key not in found, f"duplicate option {option}"
        found.add(key)
    assert found == reference_closes(hand, rules), [str(c) for c in hand]
    assert [o.points for o in options] == sorted(o.points for o in options)
    best = best_discard(hand, rules)
    rest = list(hand)
    rest.remove(best.discard)
    assert Counter(best.arrangement.cards) == Counter(rest)
    assert (best.points, len(best.arrangement.loose)) == reference_best_discard(hand, rules), [str(c) for c in hand]
    if options:
        assert options[0].points == best.points


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_best_arrangement_matches_reference(config: str, maker: str) -> None:
    rules = CONFIGS[config]
    rng = random.Random(f"best {config} {maker}")
    count = (150 if rules.hand_size > 7 else 600) * SCALE
    for size in sizes(rules):
        for _ in range(count):
            check_arrangement(MAKERS[maker](rng, rules, size), rules)


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_loose_points_match_reference(config: str, maker: str) -> None:
    rules = CONFIGS[config]
    rng = random.Random(f"points {config} {maker}")
    count = (100 if rules.hand_size > 7 else 400) * SCALE
    for size in sizes(rules):
        for _ in range(count):
            hand = MAKERS[maker](rng, rules, size)
            assert loose_points(hand, rules) == reference_best(hand, rules)[0], [str(c) for c in hand]


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_closing_options_match_reference(config: str, maker: str) -> None:
    rules = CONFIGS[config]
    rng = random.Random(f"close {config} {maker}")
    count = (20 if rules.hand_size > 7 else 150) * SCALE
    for _ in range(count):
        check_closing(MAKERS[maker](rng, rules, rules.hand_size + 1), rules)


def test_reference_sees_wilds_as_one_kind() -> None:
    rules = CONFIGS["wild-ace"]
    assert canonical(Card.parse("A♦"), rules) == "W"
    assert canonical(Card.parse("A♥"), rules) == "A♥"
