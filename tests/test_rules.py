"""Rules: defaults, presets, card values, deck order, serialisation, validation (RULES.md §I, §V, §VII)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from chinchon import JOKER, Card, Rank, Rules, RulesError, Suit, parse_cards

# RULES.md §VII: every option and its fournier default.
FOURNIER_DEFAULTS: dict[str, Any] = {
    "deck": "spanish40",
    "decks": 1,
    "jokers": 0,
    "wild_ace_of_oros": False,
    "max_wilds_per_meld": 1,
    "values": "fournier",
    "wild_value": 25,
    "min_players": 2,
    "max_players": 4,
    "hand_size": 7,
    "close_limit": 5,
    "close_max_loose_cards": None,
    "close_on_first_turn": True,
    "forbid_rediscard": False,
    "layoffs": True,
    "layoffs_on_clean_close": False,
    "closer_lays_off": False,
    "layoff_one_per_run_per_round": False,
    "set_distinct_suits": True,
    "clean_close_bonus": -10,
    "chinchon": "none",
    "chinchon_needs_natural": True,
    "limit": 100,
    "eliminate_at": "above",
    "reentry": "none",
    "first_player": "lot",
    "stake": 0,
}

PRESETS = ("fournier", "clasico", "online", "polaco")

SPANISH40 = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
SPANISH48 = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "J", "Q", "K"]
FRENCH52 = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def same(value: object, expected: object) -> bool:
    """Equal and of the same type (so that True does not pass for 1, nor 1 for True)."""
    return value == expected and type(value) is type(expected)


# -- defaults and presets ---------------------------------------------------------------


@pytest.mark.parametrize(("option", "expected"), sorted(FOURNIER_DEFAULTS.items()))
def test_default_option(option: str, expected: object) -> None:
    value = getattr(Rules(), option)
    assert same(value, expected), f"{option}: {value!r}, expected {expected!r}"


def test_every_option_of_the_table_is_an_option() -> None:
    assert set(FOURNIER_DEFAULTS) <= set(Rules().to_dict())


def test_fournier_preset_is_the_default() -> None:
    assert Rules.preset("fournier") == Rules()
    assert Rules.preset("fournier").to_dict() == Rules().to_dict()
    assert hash(Rules.preset("fournier")) == hash(Rules())


def test_presets_are_listed() -> None:
    assert set(Rules.presets()) == set(PRESETS)
    assert len(Rules.presets()) == len(PRESETS)


def test_rules_are_frozen() -> None:
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.limit = 50  # type: ignore[misc]
    assert rules.limit == 100


# §V, option by option, for each preset.
PRESET_TABLE: dict[str, dict[str, Any]] = {
    "clasico": {
        "deck": "spanish48",
        "jokers": 0,
        "values": "figures10",
        "min_players": 2,
        "max_players": 6,
        "hand_size": 7,
        "close_limit": 5,
        "close_max_loose_cards": 1,
        "layoffs": False,
        "clean_close_bonus": -10,
        "chinchon": "win",
        "chinchon_needs_natural": True,
        "limit": 100,
        "eliminate_at": "above",
        "reentry": "once",
        "first_player": "lot",
    },
    "online": {
        "deck": "spanish40",
        "jokers": 0,
        "values": "figures10",
        "min_players": 2,
        "max_players": 4,
        "hand_size": 7,
        "close_limit": 5,
        "close_max_loose_cards": None,
        "layoffs": False,
        "clean_close_bonus": -10,
        "chinchon": "win",
        "limit": 100,
        "eliminate_at": "above",
        "reentry": "once",
        "first_player": "lot",
    },
    "polaco": {
        "deck": "spanish40",
        "decks": "auto",
        "jokers": 0,
        "values": "fournier",
        "min_players": 2,
        "max_players": 8,
        "hand_size": 7,
        "close_limit": 5,
        "close_max_loose_cards": None,
        "layoffs": True,
        "layoffs_on_clean_close": False,
        "layoff_one_per_run_per_round": True,
        "clean_close_bonus": -10,
        "chinchon": "none",
        "limit": 100,
        "eliminate_at": "above",
        "reentry": "unlimited",
        "first_player": "high_card",
    },
    "fournier": FOURNIER_DEFAULTS,
}


@pytest.mark.parametrize(
    ("preset", "option", "expected"),
    [(preset, option, expected) for preset, options in PRESET_TABLE.items() for option, expected in options.items()],
)
def test_preset_option(preset: str, option: str, expected: object) -> None:
    value = getattr(Rules.preset(preset), option)
    assert same(value, expected), f"{preset}.{option}: {value!r}, expected {expected!r}"


def test_polaco_pays_a_stake() -> None:
    # S8 / §V: each player puts a stake in the pot, and again on re-entry.
    assert Rules.preset("polaco").stake > 0
    assert Rules().stake == 0


def test_online_plays_one_deck_with_seven_cards() -> None:
    rules = Rules.preset("online")
    assert [rules.decks_for(n) for n in range(2, 5)] == [1, 1, 1]
    assert len(rules.cards()) == 40


def test_polaco_two_decks_for_five_to_eight_players() -> None:
    rules = Rules.preset("polaco")
    assert rules.decks_for(2) == 1
    assert rules.decks_for(4) == 1
    for players in range(5, 9):
        assert rules.decks_for(players) == 2
    assert len(rules.cards(4)) == 40
    assert len(rules.cards(5)) == 80


def test_polaco_values_follow_the_deck() -> None:
    assert Rules.preset("polaco").values == "fournier"
    rules48 = Rules.preset("polaco", deck="spanish48")
    assert rules48.values == "face_number"
    assert rules48.decks_for(4) == 1
    assert rules48.decks_for(5) == 2
    assert rules48.value(Card.parse("K♣")) == 12
    # An explicit values option wins.
    assert Rules.preset("polaco", deck="spanish48", values="fournier").values == "fournier"


def test_online_ten_card_hands_take_two_decks() -> None:
    # C7 (003): ten-card hands with 3+ players, 4+ with 48 cards, use two decks.
    rules40 = Rules.preset("online", hand_size=10)
    assert [rules40.decks_for(n) for n in (2, 3, 4)] == [1, 2, 2]
    rules48 = Rules.preset("online", hand_size=10, deck="spanish48")
    assert [rules48.decks_for(n) for n in (2, 3, 4)] == [1, 1, 2]


def test_clasico_with_forty_cards_plays_up_to_five() -> None:
    rules = Rules.preset("clasico", deck="spanish40")
    assert rules.max_players == 5
    assert rules.deck == "spanish40"
    # The rest of the preset is kept.
    assert rules.values == "figures10"
    assert rules.close_max_loose_cards == 1
    assert rules.layoffs is False
    assert rules.chinchon == "win"


def test_clasico_with_forty_cards_and_six_players_is_refused() -> None:
    with pytest.raises(RulesError, match="max_players"):
        Rules.preset("clasico", deck="spanish40", max_players=6)


def test_clasico_french_deck_with_jokers() -> None:
    rules = Rules.preset("clasico", deck="french52", jokers=2)
    assert rules.max_players == 6
    assert len(rules.cards()) == 54
    assert rules.cards()[-2:] == [JOKER, JOKER]
    assert rules.value(JOKER) == 25


def test_preset_overrides() -> None:
    rules = Rules.preset("clasico", limit=70)
    assert rules.limit == 70
    assert rules.values == "figures10"
    assert Rules.preset("online", deck="spanish48").max_players == 4


def test_preset_with_unknown_override_names_it() -> None:
    with pytest.raises(RulesError, match="colour"):
        Rules.preset("clasico", colour="red")


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(RulesError) as excinfo:
        Rules.preset("tute")
    message = str(excinfo.value)
    assert "tute" in message
    for name in PRESETS:
        assert name in message


# -- card values ------------------------------------------------------------------------


DECK_RANK_TEXT = {"spanish40": SPANISH40, "spanish48": SPANISH48, "french52": FRENCH52}


def values_of(rules: Rules, suit: str) -> dict[str, int]:
    return {rank: rules.value(Card.parse(rank + suit)) for rank in DECK_RANK_TEXT[rules.deck]}


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (Rules(), dict(zip(SPANISH40, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], strict=True))),
        (Rules(deck="spanish48"), dict(zip(SPANISH48, [1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 9, 10], strict=True))),
        (Rules(values="figures10"), dict(zip(SPANISH40, [1, 2, 3, 4, 5, 6, 7, 10, 10, 10], strict=True))),
        (
            Rules(deck="spanish48", values="figures10"),
            dict(zip(SPANISH48, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10], strict=True)),
        ),
        (
            Rules(deck="french52", values="figures10"),
            dict(zip(FRENCH52, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], strict=True)),
        ),
        (
            Rules(deck="spanish48", values="face_number"),
            dict(zip(SPANISH48, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], strict=True)),
        ),
        (
            Rules(deck="spanish40", values="face_number"),
            dict(zip(SPANISH40, [1, 2, 3, 4, 5, 6, 7, 10, 11, 12], strict=True)),
        ),
        (Rules.preset("clasico"), dict(zip(SPANISH48, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10], strict=True))),
        (
            Rules.preset("polaco", deck="spanish48"),
            dict(zip(SPANISH48, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], strict=True)),
        ),
    ],
    ids=[
        "fournier40",
        "fournier48",
        "figures10-40",
        "figures10-48",
        "figures10-52",
        "face48",
        "face40",
        "clasico",
        "polaco48",
    ],
)
def test_values(rules: Rules, expected: dict[str, int]) -> None:
    for suit in "♦♥♠♣":
        assert values_of(rules, suit) == expected


@pytest.mark.parametrize("wild_value", [25, 50])
def test_joker_costs_wild_value(wild_value: int) -> None:
    rules = Rules(jokers=2, wild_value=wild_value)
    assert rules.value(JOKER) == wild_value
    assert rules.value(Card.parse("A♦")) == 1


@pytest.mark.parametrize("wild_value", [25, 50])
def test_wild_ace_of_oros_costs_wild_value(wild_value: int) -> None:
    rules = Rules(wild_ace_of_oros=True, wild_value=wild_value)
    assert rules.value(Card.parse("A♦")) == wild_value
    assert rules.value(Card.parse("A♥")) == 1
    assert rules.value(Card.parse("A♠")) == 1
    assert Rules().value(Card.parse("A♦")) == 1


@pytest.mark.parametrize(("rules", "card"), [(Rules(), "8♥"), (Rules(), "10♣"), (Rules(deck="spanish48"), "10♦")])
def test_value_of_a_card_not_in_the_deck(rules: Rules, card: str) -> None:
    with pytest.raises(ValueError, match=card):
        rules.value(Card.parse(card))


# -- the cards of a game ----------------------------------------------------------------


def one_deck(ranks: list[str]) -> list[Card]:
    return [Card.parse(rank + suit) for suit in "♦♥♠♣" for rank in ranks]


@pytest.mark.parametrize(
    ("rules", "ranks", "length"),
    [
        (Rules(), SPANISH40, 40),
        (Rules(deck="spanish48"), SPANISH48, 48),
        (Rules(deck="french52"), FRENCH52, 52),
        (Rules.preset("clasico"), SPANISH48, 48),
        (Rules.preset("online"), SPANISH40, 40),
    ],
)
def test_cards_one_deck(rules: Rules, ranks: list[str], length: int) -> None:
    cards = rules.cards()
    assert len(cards) == length
    assert cards == one_deck(ranks)


def test_cards_order_explicit() -> None:
    cards = Rules().cards()
    assert cards[:10] == parse_cards("A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ J♦ Q♦ K♦")
    assert cards[10:20] == parse_cards("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♥ J♥ Q♥ K♥")
    assert cards[20] == Card(Rank.ACE, Suit.ESPADAS)
    assert cards[-1] == Card(Rank.KING, Suit.BASTOS)


def test_cards_with_jokers_last() -> None:
    rules = Rules(deck="french52", jokers=2)
    cards = rules.cards()
    assert len(cards) == 54
    assert cards[:52] == one_deck(FRENCH52)
    assert cards[52:] == [JOKER, JOKER]


def test_cards_two_decks() -> None:
    cards = Rules(decks=2).cards()
    assert len(cards) == 80
    assert cards[:40] == one_deck(SPANISH40)
    assert cards[40:] == one_deck(SPANISH40)


def test_cards_two_decks_with_jokers() -> None:
    cards = Rules(decks=2, jokers=1).cards()
    assert len(cards) == 82
    assert cards[:40] == one_deck(SPANISH40) == cards[40:80]
    assert cards[80:] == [JOKER, JOKER]
    assert JOKER not in cards[:80]


def test_cards_auto_decks() -> None:
    rules = Rules.preset("polaco")
    assert rules.cards(4) == one_deck(SPANISH40)
    assert rules.cards(6) == one_deck(SPANISH40) * 2
    assert len(rules.cards()) == 80


# -- serialisation ----------------------------------------------------------------------


SERIALISED = [
    *(Rules.preset(name) for name in PRESETS),
    Rules.preset("clasico", deck="french52", jokers=2),
    Rules.preset("polaco", deck="spanish48"),
    Rules(chinchon=-25, wild_ace_of_oros=True, close_max_loose_cards=2),
    Rules(decks=2, set_distinct_suits=False, max_set_size=5),
]


@pytest.mark.parametrize("rules", SERIALISED, ids=repr)
def test_dict_round_trip(rules: Rules) -> None:
    data = rules.to_dict()
    assert Rules.from_dict(data) == rules
    assert set(FOURNIER_DEFAULTS) <= set(data)


@pytest.mark.parametrize("rules", SERIALISED, ids=repr)
def test_json_round_trip(rules: Rules) -> None:
    text = json.dumps(rules.to_dict())
    back = Rules.from_dict(json.loads(text))
    assert back == rules
    assert back.to_dict() == rules.to_dict()


def test_to_dict_of_a_preset() -> None:
    data = Rules.preset("clasico").to_dict()
    assert data["deck"] == "spanish48"
    assert data["values"] == "figures10"
    assert data["max_players"] == 6
    assert data["chinchon"] == "win"


def test_from_dict_missing_options_take_defaults() -> None:
    assert Rules.from_dict({}) == Rules()
    assert Rules.from_dict({"limit": 70}) == Rules(limit=70)


def test_from_dict_unknown_key_names_it() -> None:
    with pytest.raises(RulesError, match="colour"):
        Rules.from_dict({"deck": "spanish40", "colour": "red"})


def test_from_dict_checks_values() -> None:
    with pytest.raises(RulesError, match="close_limit"):
        Rules.from_dict({"close_limit": 11})


# -- validation -------------------------------------------------------------------------


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"max_players": 6}, "max_players"),  # 6 × 7 + 1 = 43 > 40
        ({"hand_size": 10, "max_players": 4}, "max_players"),  # 41 > 40
        ({"close_limit": -1}, "close_limit"),
        ({"close_limit": 11}, "close_limit"),
        ({"limit": 0}, "limit"),
        ({"deck": "tarot"}, "deck"),
        ({"values": "bridge"}, "values"),
        ({"decks": 3}, "decks"),
        ({"decks": 0}, "decks"),
        ({"jokers": -1}, "jokers"),
        ({"hand_size": 3}, "hand_size"),
        ({"eliminate_at": "below"}, "eliminate_at"),
        ({"reentry": "twice"}, "reentry"),
        ({"first_player": "dealer"}, "first_player"),
        ({"chinchon": "lose"}, "chinchon"),
        # wrong types
        ({"layoffs": "yes"}, "layoffs"),
        ({"hand_size": 7.5}, "hand_size"),
        ({"chinchon": True}, "chinchon"),
        ({"limit": "100"}, "limit"),
        ({"wild_ace_of_oros": 1}, "wild_ace_of_oros"),
        ({"close_max_loose_cards": "1"}, "close_max_loose_cards"),
        ({"decks": 1.0}, "decks"),
        ({"deck": ["spanish40"]}, "deck"),
    ],
    ids=lambda value: repr(value) if isinstance(value, dict) else value,
)
def test_validation_names_the_option(options: dict[str, Any], option: str) -> None:
    with pytest.raises(RulesError) as excinfo:
        Rules(**options)
    assert option in str(excinfo.value)


@pytest.mark.parametrize(
    ("options", "option"),
    [({"max_players": 6}, "max_players"), ({"close_limit": 11}, "close_limit"), ({"decks": 3}, "decks")],
)
def test_validation_in_presets_and_from_dict(options: dict[str, Any], option: str) -> None:
    with pytest.raises(RulesError, match=option):
        Rules.from_dict(options)
    with pytest.raises(RulesError, match=option):
        Rules.preset("fournier", **options)


def test_too_few_cards_message() -> None:
    with pytest.raises(RulesError) as excinfo:
        Rules(max_players=6)
    message = str(excinfo.value)
    assert "max_players" in message
    assert "43" in message and "40" in message


def test_min_players_above_max_players() -> None:
    with pytest.raises(RulesError) as excinfo:
        Rules(min_players=5, max_players=4)
    message = str(excinfo.value)
    assert "min_players" in message or "max_players" in message


def test_distinct_suits_limit_set_size() -> None:
    with pytest.raises(RulesError) as excinfo:
        Rules(decks=2, max_set_size=5)
    message = str(excinfo.value)
    assert "max_set_size" in message or "set_distinct_suits" in message
    # Without distinct suits, two decks allow sets of five.
    assert Rules(decks=2, set_distinct_suits=False, max_set_size=5).max_set_size == 5


@pytest.mark.parametrize(
    ("options", "players"),
    [({}, 1), ({}, 5), ({}, 0), ({"preset": "polaco"}, 9), ({"preset": "polaco"}, 1), ({"preset": "clasico"}, 7)],
)
def test_decks_for_out_of_range(options: dict[str, str], players: int) -> None:
    rules = Rules.preset(options.get("preset", "fournier"))
    with pytest.raises(RulesError):
        rules.decks_for(players)


def test_decks_for_in_range() -> None:
    assert [Rules().decks_for(n) for n in (2, 3, 4)] == [1, 1, 1]
    assert [Rules(decks=2).decks_for(n) for n in (2, 3, 4)] == [2, 2, 2]
    assert Rules.preset("clasico").decks_for(6) == 1


def test_valid_edges_are_accepted() -> None:
    assert Rules(close_limit=0).close_limit == 0
    assert Rules(close_limit=10).close_limit == 10
    assert Rules(limit=1).limit == 1
    assert Rules(hand_size=10, max_players=3).hand_size == 10
    assert Rules(max_players=5).max_players == 5  # 5 × 7 + 1 = 36 ≤ 40
    assert Rules(chinchon=-50).chinchon == -50
    assert Rules(decks="auto").decks == "auto"
