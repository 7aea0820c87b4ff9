"""Cards, suits and ranks, and their text notation.

A card is a frozen value: a rank and a suit, or a joker. Two cards of the same
rank and suit compare equal even when they come from different decks, so a
hand is a list (a multiset) of cards.

The canonical text of a card is its rank and the suit symbol (``6♥``, ``10♣``,
``J♦``) or ``🃏`` for a joker. :meth:`Card.parse` also reads ASCII suit letters
(``6h``, ``Qs``, ``10c``), Spanish names (``7 de oros``, ``sota de copas``) and
``joker`` or ``*``.

>>> Card.parse("sota de copas")
Card.parse('J♥')
>>> [str(card) for card in parse_cards("3h 4h 5h rey de bastos *")]
['3♥', '4♥', '5♥', 'K♣', '🃏']
"""

from __future__ import annotations

import enum
import re

from chinchon.errors import N_, NotationError

__all__ = ["JOKER", "Card", "Rank", "Suit", "parse_cards"]


class Suit(enum.Enum):
    """The four suits: the Spanish suit and its French symbol (RULES.md C5)."""

    OROS = "♦"
    COPAS = "♥"
    ESPADAS = "♠"
    BASTOS = "♣"

    @property
    def symbol(self) -> str:
        """The suit symbol used in card text: ``♦ ♥ ♠ ♣``."""
        return self.value

    @property
    def letter(self) -> str:
        """The ASCII letter of the suit: ``d h s c``."""
        return _SUIT_LETTERS[self]

    @property
    def spanish(self) -> str:
        """The Spanish name of the suit: ``oros``, ``copas``, ``espadas``, ``bastos``."""
        return self.name.lower()

    @property
    def index(self) -> int:
        """The suit's position in the fixed suit order: oros, copas, espadas, bastos."""
        return _SUIT_INDEX[self]


_SUIT_LETTERS = {Suit.OROS: "d", Suit.COPAS: "h", Suit.ESPADAS: "s", Suit.BASTOS: "c"}
_SUIT_INDEX = {suit: i for i, suit in enumerate(Suit)}
SUITS: tuple[Suit, ...] = tuple(Suit)


class Rank(enum.IntEnum):
    """Ranks by their French number; J is the sota, Q the caballo, K the rey."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        """The rank in card text: ``A``, ``2`` ... ``10``, ``J``, ``Q``, ``K``."""
        return _RANK_SYMBOLS[self]


_RANK_SYMBOLS = {rank: str(rank.value) for rank in Rank}
_RANK_SYMBOLS.update({Rank.ACE: "A", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K"})


class Card:
    """A playing card: a rank and a suit, or a joker (both ``None``).

    Cards are immutable and interned: ``Card(Rank.SIX, Suit.COPAS)`` is the
    same object as ``Card.parse("6♥")``. Cards sort by suit (oros, copas,
    espadas, bastos), then rank, jokers last. The joker is :data:`JOKER`.
    """

    __slots__ = ("_code", "rank", "suit")
    rank: Rank | None
    suit: Suit | None
    _code: int

    def __new__(cls, rank: Rank | None, suit: Suit | None) -> Card:
        try:
            return _INTERNED[(rank, suit)]
        except (KeyError, TypeError):
            pass
        if (rank is None) != (suit is None):
            raise ValueError("a card has both a rank and a suit, or neither (a joker)")
        if rank is not None and not isinstance(rank, Rank):
            raise ValueError(f"not a rank: {rank!r}")
        if suit is not None and not isinstance(suit, Suit):
            raise ValueError(f"not a suit: {suit!r}")
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        code = 99 if rank is None or suit is None else _SUIT_INDEX[suit] * 16 + int(rank)
        object.__setattr__(card, "_code", code)
        _INTERNED[(rank, suit)] = card
        _TEXTS[code] = "🃏" if rank is None or suit is None else rank.symbol + suit.symbol
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[Rank | None, Suit | None]]:
        return (Card, (self.rank, self.suit))

    def __hash__(self) -> int:
        return self._code

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self._code == other._code
        return NotImplemented

    def __lt__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._code < other._code
        return NotImplemented

    def __le__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._code <= other._code
        return NotImplemented

    def __gt__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._code > other._code
        return NotImplemented

    def __ge__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self._code >= other._code
        return NotImplemented

    @property
    def is_joker(self) -> bool:
        """Whether this card is a joker."""
        return self.rank is None

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card from text in any accepted notation.

        Raises:
            NotationError: the text is not a card; the message names the text.
        """
        if not isinstance(text, str):
            raise NotationError(N_("not a card: {text}"), text=repr(text))
        card = _parse_one(text)
        if card is None:
            raise NotationError(N_("not a card: {text}"), text=repr(text))
        return card

    def __str__(self) -> str:
        return _TEXTS[self._code]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def ascii(self) -> str:
        """The card in ASCII notation: ``6h``, ``10c``, ``*`` for a joker."""
        if self.rank is None or self.suit is None:
            return "*"
        return self.rank.symbol + self.suit.letter


_INTERNED: dict[tuple[Rank | None, Suit | None], Card] = {}
_TEXTS: dict[int, str] = {}
"""Each card's text by its code, made with the card (cards are interned)."""
JOKER = Card(None, None)

_RANK_WORDS: dict[str, Rank] = {
    "a": Rank.ACE,
    "1": Rank.ACE,
    "j": Rank.JACK,
    "q": Rank.QUEEN,
    "k": Rank.KING,
    **{str(n): Rank(n) for n in range(2, 11)},
}
# Spanish cards print the sota as 10, the caballo as 11 and the rey as 12.
_SPANISH_RANKS: dict[str, Rank] = {
    "as": Rank.ACE,
    "1": Rank.ACE,
    "uno": Rank.ACE,
    **{str(n): Rank(n) for n in range(2, 10)},
    "sota": Rank.JACK,
    "10": Rank.JACK,
    "caballo": Rank.QUEEN,
    "11": Rank.QUEEN,
    "rey": Rank.KING,
    "12": Rank.KING,
}
_SUIT_WORDS: dict[str, Suit] = {
    **{suit.symbol: suit for suit in Suit},
    **{suit.letter: suit for suit in Suit},
    "\u2662": Suit.OROS,
    "\u2661": Suit.COPAS,
    "\u2664": Suit.ESPADAS,
    "\u2667": Suit.BASTOS,
}
_SPANISH_SUITS: dict[str, Suit] = {suit.spanish: suit for suit in Suit}
_JOKER_WORDS = {"*", "joker", "comodín", "comodin", "🃏", "jk"}
_SHORT = re.compile(r"(10|[2-9]|[ajqk1])(.)", re.IGNORECASE)
_SPANISH = re.compile(r"(\w+)\s+de\s+(\w+)", re.IGNORECASE)
_TOKENS = re.compile(r"\w+\s+de\s+\w+|[^\s,;]+", re.IGNORECASE)


def _parse_one(text: str) -> Card | None:
    word = text.strip().replace("\ufe0f", "")
    lowered = word.lower()
    if lowered in _JOKER_WORDS:
        return JOKER
    match = _SHORT.fullmatch(word)
    if match:
        rank = _RANK_WORDS.get(match.group(1).lower())
        suit = _SUIT_WORDS.get(match.group(2).lower())
        if rank is not None and suit is not None:
            return Card(rank, suit)
        return None
    match = _SPANISH.fullmatch(word)
    if match:
        rank = _SPANISH_RANKS.get(match.group(1).lower())
        suit = _SPANISH_SUITS.get(match.group(2).lower())
        if rank is not None and suit is not None:
            return Card(rank, suit)
    return None


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas, in any accepted notation.

    Raises:
        NotationError: a piece of the text is not a card; the message names it.
    """
    return [Card.parse(token) for token in _TOKENS.findall(text)]
