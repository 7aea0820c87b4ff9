"""The rules of a game: every option of RULES.md section VII, and the presets.

``Rules()`` is the ``fournier`` profile, the default. The other rule systems
are named presets, and any option can be overridden:

>>> Rules.presets()
('fournier', 'clasico', 'online', 'polaco')
>>> rules = Rules.preset("clasico", deck="spanish40")
>>> rules.max_players, rules.values
(5, 'figures10')
>>> rules.value(Card.parse("K♣"))
10
>>> Rules(max_players=6)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
chinchon.rules.RulesError: max_players: 6 players with 7 cards each and a face-up card need 43 cards; the spanish40 ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from chinchon.cards import JOKER, SUITS, Card, Rank, Suit
from chinchon.errors import N_, ChinchonError, HandError

__all__ = ["DECK_RANKS", "Rules", "RulesError", "format_option", "parse_option", "parse_options"]

DeckName = Literal["spanish40", "spanish48", "french52"]
ValuesName = Literal["fournier", "figures10", "face_number"]

_SPANISH40 = (
    Rank.ACE,
    Rank.TWO,
    Rank.THREE,
    Rank.FOUR,
    Rank.FIVE,
    Rank.SIX,
    Rank.SEVEN,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
)
DECK_RANKS: dict[str, tuple[Rank, ...]] = {
    "spanish40": _SPANISH40,
    "spanish48": (*_SPANISH40[:7], Rank.EIGHT, Rank.NINE, *_SPANISH40[7:]),
    "french52": tuple(Rank),
}
"""The ranks of each kind of deck, in the deck's rank order (the order of runs)."""

_VALUES = ("fournier", "figures10", "face_number")
_CHOICES: dict[str, tuple[str, ...]] = {
    "eliminate_at": ("above", "reaching"),
    "reentry": ("none", "once", "unlimited"),
    "first_player": ("lot", "high_card"),
}
MAX_PLAYERS = 8


class RulesError(ChinchonError):
    """An invalid option or combination of options; the message names the option."""


def _rank_value(scheme: str, deck: str, rank: Rank) -> int:
    if rank <= Rank.TEN:
        return int(rank)
    if scheme == "figures10":
        return 10
    if scheme == "fournier":
        return {Rank.JACK: 8, Rank.QUEEN: 9, Rank.KING: 10}[rank]
    # face_number: the number printed on the card; Spanish cards print the
    # sota as 10, the caballo 11 and the rey 12.
    return int(rank) - (1 if deck != "french52" else 0)


@dataclass(frozen=True)
class Rules:
    """Every option of a game of Chinchón, validated when built.

    The defaults are the ``fournier`` profile (RULES.md). See RULES.md
    section VII for the meaning of each option.

    Raises:
        RulesError: an option is out of range or options contradict each other.
    """

    deck: str = "spanish40"
    decks: int | Literal["auto"] = 1
    jokers: int = 0
    wild_ace_of_oros: bool = False
    max_wilds_per_meld: int = 1
    values: str = "fournier"
    wild_value: int = 25
    min_players: int = 2
    max_players: int = 4
    hand_size: int = 7
    close_limit: int = 5
    close_max_loose_cards: int | None = None
    close_on_first_turn: bool = True
    forbid_rediscard: bool = False
    layoffs: bool = True
    layoffs_on_clean_close: bool = False
    closer_lays_off: bool = False
    layoff_one_per_run_per_round: bool = False
    set_distinct_suits: bool = True
    max_set_size: int | None = None
    clean_close_bonus: int = -10
    chinchon: str | int = "none"
    chinchon_needs_natural: bool = True
    limit: int = 100
    eliminate_at: str = "above"
    reentry: str = "none"
    first_player: str = "lot"
    stake: int = 0
    max_reshuffles: int | None = 5
    score_floor: int | None = None
    layoff_passes: int | None = None
    chinchon_sets: bool = False
    wild_floats: bool | str = False
    _values: dict[Card, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        self._validate()
        ranks = DECK_RANKS[self.deck]
        values = {Card(rank, suit): _rank_value(self.values, self.deck, rank) for suit in SUITS for rank in ranks}
        values[JOKER] = self.wild_value
        if self.wild_ace_of_oros:
            values[Card(Rank.ACE, Suit.OROS)] = self.wild_value
        object.__setattr__(self, "_values", values)

    # -- validation -----------------------------------------------------------------

    def _validate(self) -> None:
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise RulesError(N_("{option}: expected true or false, got {value}"), option=f.name, value=repr(value))
            if f.type == "int" and (not isinstance(value, int) or isinstance(value, bool)):
                raise RulesError(N_("{option}: expected a whole number, got {value}"), option=f.name, value=repr(value))
        for name in ("deck", "values", *_CHOICES):
            if not isinstance(getattr(self, name), str):
                raise RulesError(
                    N_("{option}: expected a name, got {value}"), option=name, value=repr(getattr(self, name))
                )
        if self.deck not in DECK_RANKS:
            raise RulesError(
                N_("deck: unknown deck {value}; known decks: {known}"),
                value=repr(self.deck),
                known=", ".join(DECK_RANKS),
            )
        if not (self.decks == "auto" or (type(self.decks) is int and self.decks in (1, 2))):
            raise RulesError(N_("decks: expected 1, 2 or 'auto', got {value}"), value=repr(self.decks))
        if self.values not in _VALUES:
            raise RulesError(
                N_("values: unknown values scheme {value}; known schemes: {known}"),
                value=repr(self.values),
                known=", ".join(_VALUES),
            )
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise RulesError(
                    N_("{option}: expected one of {known}, got {value}"),
                    option=name,
                    known=", ".join(choices),
                    value=repr(getattr(self, name)),
                )
        _check_range("jokers", self.jokers, 0, 4)
        _check_range("max_wilds_per_meld", self.max_wilds_per_meld, 0, 4)
        _check_range("wild_value", self.wild_value, 0, 1000)
        _check_range("hand_size", self.hand_size, 4, 10)
        _check_range("min_players", self.min_players, 2, MAX_PLAYERS)
        _check_range("max_players", self.max_players, self.min_players, MAX_PLAYERS)
        _check_range("close_limit", self.close_limit, 0, 10)
        _check_range("limit", self.limit, 1, 100_000)
        _check_range("stake", self.stake, 0, 1_000_000)
        _check_range("clean_close_bonus", self.clean_close_bonus, -1000, 0)
        for name, low, high in (("max_reshuffles", 0, 1000), ("score_floor", -100_000, 0), ("layoff_passes", 1, 100)):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(
                    N_("{option}: expected a whole number or none, got {value}"), option=name, value=repr(value)
                )
            _check_range(name, value, low, high)
        if self.close_max_loose_cards is not None:
            if not isinstance(self.close_max_loose_cards, int) or isinstance(self.close_max_loose_cards, bool):
                raise RulesError(
                    N_("{option}: expected a whole number or none, got {value}"),
                    option="close_max_loose_cards",
                    value=repr(self.close_max_loose_cards),
                )
            _check_range("close_max_loose_cards", self.close_max_loose_cards, 0, self.hand_size)
        chinchon = self.chinchon
        if isinstance(chinchon, bool) or not (chinchon in ("none", "win") or isinstance(chinchon, int)):
            raise RulesError(
                N_("chinchon: expected 'none', 'win' or a number of points, got {value}"), value=repr(chinchon)
            )
        if isinstance(chinchon, int):
            _check_range("chinchon", chinchon, -1000, 0)
        floats = self.wild_floats
        if floats == "replace":
            object.__setattr__(self, "wild_floats", True)
        elif not (isinstance(floats, bool) or floats == "anywhere"):
            raise RulesError(
                N_("wild_floats: expected true, false, 'replace' or 'anywhere', got {value}"), value=repr(floats)
            )
        most_decks = self.most_decks
        if self.max_set_size is not None:
            if not isinstance(self.max_set_size, int) or isinstance(self.max_set_size, bool):
                raise RulesError(
                    N_("{option}: expected a whole number or none, got {value}"),
                    option="max_set_size",
                    value=repr(self.max_set_size),
                )
            if self.set_distinct_suits and self.max_set_size > 4:
                raise RulesError(
                    N_(
                        "max_set_size: a set of {size} cards cannot have distinct suits; there are 4 suits "
                        "(set set_distinct_suits to false for larger sets)"
                    ),
                    size=self.max_set_size,
                )
            _check_range("max_set_size", self.max_set_size, 3, 4 * most_decks)
        if self.chinchon_sets:
            largest = self.max_set_size or (4 if self.set_distinct_suits else 4 * most_decks)
            if largest < self.hand_size:
                raise RulesError(
                    N_(
                        "chinchon_sets: a set of {size} cards is not possible with these rules; it needs two decks, "
                        "set_distinct_suits false and no max_set_size below {size}"
                    ),
                    size=self.hand_size,
                )
        needed = self.max_players * self.hand_size + 1
        available = self.deck_size * most_decks
        if needed > available:
            template = (
                N_(
                    "max_players: {players} players with {hand} cards each and a face-up card need {needed} cards; "
                    "the {deck} deck has {available}"
                )
                if most_decks == 1
                else N_(
                    "max_players: {players} players with {hand} cards each and a face-up card need {needed} cards; "
                    "two {deck} decks have {available}"
                )
            )
            raise RulesError(
                template,
                players=self.max_players,
                hand=self.hand_size,
                needed=needed,
                deck=self.deck,
                available=available,
            )

    # -- the deck -------------------------------------------------------------------

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The ranks of the deck, in rank order (the order of runs)."""
        return DECK_RANKS[self.deck]

    @property
    def deck_size(self) -> int:
        """The cards in one deck, jokers included."""
        return 4 * len(DECK_RANKS[self.deck]) + self.jokers

    @property
    def most_decks(self) -> int:
        """The most decks a game under these rules may use."""
        if self.decks == "auto":
            return 2 if self._deal_needs_two_decks(self.max_players) else 1
        return self.decks

    def _deal_needs_two_decks(self, players: int) -> bool:
        # Two decks when the deal would take three quarters of one deck or
        # more: 004 (5-8 players, 7 cards) and 003 (10-card hands from 3
        # players with 40 cards, from 4 with 48) both fall on this line.
        return 4 * (players * self.hand_size + 1) >= 3 * self.deck_size

    def decks_for(self, players: int) -> int:
        """How many decks a deal for this many players uses.

        Raises:
            RulesError: the number of players is outside the rules' range.
        """
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise RulesError(
                N_("players: these rules play with {low} to {high} players, not {value}"),
                low=self.min_players,
                high=self.max_players,
                value=repr(players),
            )
        if self.decks == "auto":
            return 2 if self._deal_needs_two_decks(players) else 1
        return self.decks

    def cards(self, players: int | None = None, *, decks: int | None = None) -> list[Card]:
        """Every card the game uses, in a fixed order.

        Each deck in turn (suits in the order oros ♦, copas ♥, espadas ♠,
        bastos ♣, and ranks in rank order within a suit), then the jokers of
        all decks. With ``players``, the decks a deal for that many players
        uses; with ``decks``, that many decks; without either, the most decks
        the rules may use.
        """
        if decks is None:
            decks = self.most_decks if players is None else self.decks_for(players)
        one = [Card(rank, suit) for suit in SUITS for rank in self.ranks]
        return one * decks + [JOKER] * (self.jokers * decks)

    def has_card(self, card: Card) -> bool:
        """Whether the rules' deck has this card."""
        return card in self._values if not card.is_joker else self.jokers > 0

    def is_wild(self, card: Card) -> bool:
        """Whether the card is wild: a joker, or the ace of oros where it is wild."""
        return card.rank is None or (self.wild_ace_of_oros and card.rank is Rank.ACE and card.suit is Suit.OROS)

    def value(self, card: Card) -> int:
        """The penalty points of the card when it is left loose.

        Raises:
            ValueError: the card is not in the rules' deck.
        """
        try:
            return self._values[card]
        except KeyError:
            raise HandError(N_("{card} is not in the {deck} deck"), card=card, deck=self.deck) from None

    # -- presets and serialisation --------------------------------------------------

    @staticmethod
    def presets() -> tuple[str, ...]:
        """The names of the presets, the default first."""
        return tuple(_PRESETS)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The rules of a named preset, with some options overridden.

        Options the preset derives from the deck (the values scheme, the most
        players) follow an overridden deck unless they are overridden too.

        Raises:
            RulesError: unknown preset or option, or invalid options.
        """
        if name not in _PRESETS:
            raise RulesError(
                N_("unknown preset {value}; known presets: {known}"), value=repr(name), known=", ".join(_PRESETS)
            )
        _check_names(overrides)
        options = {**_PRESETS[name], **overrides}
        if name == "polaco" and "values" not in overrides:
            options["values"] = "face_number" if options.get("deck") == "spanish48" else "fournier"
        if "max_players" not in overrides:
            probe = cls(**{**options, "max_players": options.get("min_players", 2)})
            most = options.get("max_players", 4)
            while most > probe.min_players and not _fits(probe, most):
                most -= 1
            options["max_players"] = most
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name: JSON-able, and read back by :meth:`from_dict`."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from :meth:`to_dict`'s output; missing options take their defaults.

        Raises:
            RulesError: an unknown option or an invalid value.
        """
        if not isinstance(data, Mapping):
            raise RulesError(N_("rules: expected a mapping of options, got {value}"), value=type(data).__name__)
        _check_names(data)
        return cls(**data)

    def describe_differences(self) -> dict[str, Any]:
        """The options that differ from the default (``fournier``) rules."""
        default = Rules().to_dict()
        return {k: v for k, v in self.to_dict().items() if default[k] != v}

    @classmethod
    def from_text(cls, preset: str = "fournier", options: Iterable[str] = ()) -> Rules:
        """The rules of a preset with options given as ``NAME=VALUE`` texts (see :func:`parse_options`).

        >>> Rules.from_text("clasico", ["limit=50", "wild_ace_of_oros=true"]).limit
        50

        Raises:
            RulesError: unknown preset or option, a bad value, an option given twice with
                different values, or options that contradict each other.
        """
        return cls.preset(preset, **parse_options(options))

    def as_text(self) -> tuple[str, list[str]]:
        """The preset closest to these rules and the ``NAME=VALUE`` texts that make them from it.

        ``Rules.from_text(*rules.as_text()) == rules`` always holds.

        >>> Rules.preset("clasico", limit=50).as_text()
        ('clasico', ['limit=50'])
        """
        mine = self.to_dict()
        best: tuple[str, list[str]] | None = None
        for name in _PRESETS:
            base = Rules.preset(name).to_dict()
            texts = [f"{key}={format_option(value)}" for key, value in mine.items() if base[key] != value]
            try:
                same = Rules.from_text(name, texts) == self
            except RulesError:
                same = False
            if not same:
                texts = [f"{key}={format_option(value)}" for key, value in mine.items()]
            if best is None or len(texts) < len(best[1]):
                best = (name, texts)
        assert best is not None
        return best


def _fits(rules: Rules, players: int) -> bool:
    decks = 2 if rules.decks == "auto" or rules.decks == 2 else 1
    if rules.decks == "auto" and not rules._deal_needs_two_decks(players):
        decks = 1
    return players * rules.hand_size + 1 <= rules.deck_size * decks


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise RulesError(
            N_("{option}: {value} is out of range; it must be from {low} to {high}"),
            option=name,
            value=value,
            low=low,
            high=high,
        )


_OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Rules) if f.init)
_OPTION_TYPES = {f.name: str(f.type) for f in dataclasses.fields(Rules) if f.init}
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null")


def format_option(value: Any) -> str:
    """An option's value as :func:`parse_option` reads it: ``true``, ``none``, ``50``, ``clasico``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


def _whole(text: str) -> int | None:
    try:
        return int(text.strip(), 10)
    except ValueError:
        return None


def parse_option(name: str, text: str) -> Any:
    """The value of option ``name`` read from text by the option's type.

    Booleans read ``true``/``false`` (or ``yes``/``no``, ``on``/``off``, ``1``/``0``),
    numbers are whole numbers, an option that may be unset reads ``none``, and
    names are kept as they are (the rules check them when built).

    >>> parse_option("limit", "50"), parse_option("wild_ace_of_oros", "yes"), parse_option("score_floor", "none")
    (50, True, None)

    Raises:
        RulesError: an unknown option, or text that is not a value of its type.
    """
    _check_names({name: None})
    kind = _OPTION_TYPES[name]
    word = text.strip().lower() if isinstance(text, str) else ""
    if not isinstance(text, str):
        raise RulesError(N_("{option}: expected a value, got {value}"), option=name, value=repr(text))
    if kind.startswith("bool"):
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        if kind == "bool | str":
            return word
        raise RulesError(N_("{option}: expected true or false, got {value}"), option=name, value=repr(text))
    number = _whole(text)
    if kind == "int":
        if number is None:
            raise RulesError(N_("{option}: expected a whole number, got {value}"), option=name, value=repr(text))
        return number
    if kind == "int | None":
        if word in _NONE:
            return None
        if number is None:
            raise RulesError(
                N_("{option}: expected a whole number or none, got {value}"), option=name, value=repr(text)
            )
        return number
    if number is not None and "int" in kind:
        return number
    return text.strip()


def parse_options(options: Iterable[str]) -> dict[str, Any]:
    """Options from ``NAME=VALUE`` texts, each value read by :func:`parse_option`.

    >>> parse_options(["limit=50", "reentry=once"])
    {'limit': 50, 'reentry': 'once'}

    Raises:
        RulesError: a text that is not ``NAME=VALUE``, an unknown option, a bad value,
            or an option given twice with different values.
    """
    if isinstance(options, str):
        options = [options]
    out: dict[str, Any] = {}
    for item in options:
        name, equals, text = item.partition("=") if isinstance(item, str) else ("", "", "")
        name = name.strip()
        if not equals or not name:
            raise RulesError(N_("expected an option as NAME=VALUE, got {value}"), value=repr(item))
        value = parse_option(name, text)
        if name in out and out[name] != value:
            raise RulesError(
                N_("{option}: given twice, as {first} and as {second}"),
                option=name,
                first=format_option(out[name]),
                second=format_option(value),
            )
        out[name] = value
    return out


def _check_names(options: Mapping[str, Any]) -> None:
    for key in options:
        if key not in _OPTION_NAMES:
            raise RulesError(
                N_("unknown option {value}; the options are: {known}"), value=repr(key), known=", ".join(_OPTION_NAMES)
            )


_PRESETS: dict[str, dict[str, Any]] = {
    "fournier": {},
    "clasico": {
        "deck": "spanish48",
        "values": "figures10",
        "max_players": 6,
        "close_max_loose_cards": 1,
        "layoffs": False,
        "chinchon": "win",
        "reentry": "once",
        # Six players on 48 cards leave a stock of 5 cards: it is rebuilt every round or two.
        "max_reshuffles": 10,
    },
    "online": {
        "decks": "auto",
        "values": "figures10",
        "layoffs": False,
        "chinchon": "win",
        "reentry": "once",
    },
    "polaco": {
        "decks": "auto",
        "max_players": 8,
        "layoff_one_per_run_per_round": True,
        "reentry": "unlimited",
        "first_player": "high_card",
        "stake": 1,
    },
}
