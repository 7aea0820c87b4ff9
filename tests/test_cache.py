"""The per-rules cache: tables kept by the Rules value, nothing hung on the frozen Rules."""

from __future__ import annotations

import dataclasses
import random

from chinchon import Deal, Rules, best_arrangement, parse_cards
from chinchon.cache import per_rules
from chinchon.melds import meld_extensions, solver_for
from chinchon.tables import tables_for


def test_equal_rules_share_their_tables_and_other_rules_do_not() -> None:
    assert solver_for(Rules()) is solver_for(Rules())
    assert tables_for(Rules(jokers=2)) is tables_for(Rules(jokers=2))
    assert tables_for(Rules()) is not tables_for(Rules(jokers=2))
    built: list[Rules] = []

    def build(rules: Rules) -> list[Rules]:
        built.append(rules)
        return built

    per_rules(Rules(limit=77), build)
    per_rules(Rules(limit=77), build)
    per_rules(Rules(limit=78), build)
    assert built == [Rules(limit=77), Rules(limit=78)]


def test_playing_sets_no_attribute_on_the_rules() -> None:
    rules = Rules(jokers=1)
    before = dict(vars(rules))
    deal = Deal.new(rules, 3, rng=random.Random(5))
    choose = random.Random(5)
    while deal.legal_actions():
        deal.apply(choose.choice(deal.legal_actions()))
    best_arrangement(parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"), rules)
    meld_extensions(tuple(parse_cards("3♥ 4♥ 5♥")), rules)
    assert vars(rules) == before
    assert set(vars(rules)) == {field.name for field in dataclasses.fields(Rules)}


def test_the_cache_keeps_the_tables_of_a_bounded_number_of_rules() -> None:
    from chinchon import cache

    for limit in range(20, 20 + 3 * cache.MOST_RULES):
        per_rules(Rules(limit=limit), lambda rules: rules.limit)
        assert cache.rules_kept() <= cache.MOST_RULES
    assert per_rules(Rules(limit=20), lambda rules: rules.limit + 1) == 21  # built again after it was dropped
    assert solver_for(Rules()) is solver_for(Rules())
