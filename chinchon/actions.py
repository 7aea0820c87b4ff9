"""The actions of a game, as frozen values with text forms.

>>> Discard(Card.parse("7♥"))
Discard(card=Card.parse('7♥'))
>>> str(Close(Card.parse("A♦"), ((Card.parse("3♥"), Card.parse("4♥"), Card.parse("5♥")),)))
'close A♦ [3♥ 4♥ 5♥]'
>>> parse_action("layoff 5♥ 2")
LayOff(card=Card.parse('5♥'), meld_index=2)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from chinchon.cards import Card, parse_cards
from chinchon.errors import N_, ChinchonError

__all__ = [
    "Action",
    "Close",
    "Discard",
    "Draw",
    "IllegalAction",
    "LayOff",
    "Pass",
    "ReEnter",
    "Show",
    "parse_action",
]

Melds = tuple[tuple[Card, ...], ...]


class IllegalAction(ChinchonError):
    """An action that is not legal where it is played; the message says why."""


def _melds_text(melds: Melds) -> str:
    return " ".join("[" + " ".join(map(str, meld)) + "]" for meld in melds)


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock (``"stock"``) or of the discard pile (``"discard"``)."""

    source: Literal["stock", "discard"]

    def __str__(self) -> str:
        return f"draw {self.source}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Put a card from the hand face up on the discard pile, ending the turn."""

    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True, slots=True)
class Close:
    """Close the deal: put ``discard`` face down and show the rest as ``melds``.

    With ``melds`` ``None`` the arrangement with the fewest loose points is shown.
    """

    discard: Card
    melds: Melds | None = None

    def __str__(self) -> str:
        if self.melds is None:
            return f"close {self.discard}"
        if not self.melds:
            return f"close {self.discard} -"
        return f"close {self.discard} {_melds_text(self.melds)}"


@dataclass(frozen=True, slots=True)
class Show:
    """Show these melds from the hand in the showdown (possibly none)."""

    melds: Melds

    def __str__(self) -> str:
        return f"show {_melds_text(self.melds)}".rstrip() if self.melds else "show -"


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add a loose card to the meld at ``meld_index`` on the table."""

    card: Card
    meld_index: int

    def __str__(self) -> str:
        return f"layoff {self.card} {self.meld_index}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Make no further lay-off in this turn of the showdown."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class ReEnter:
    """An eliminated seat's answer to re-entry: come back in (``True``) or stay out."""

    accept: bool

    def __str__(self) -> str:
        return "reenter yes" if self.accept else "reenter no"


Action = Draw | Discard | Close | Show | LayOff | Pass | ReEnter

_MELDS = re.compile(r"\[([^\]]*)\]")


def _parse_melds(text: str) -> Melds:
    text = text.strip()
    if text in ("", "-"):
        return ()
    if _MELDS.sub("", text).strip():
        raise ChinchonError(N_("not a list of melds: {text}"), text=repr(text))
    return tuple(tuple(parse_cards(group)) for group in _MELDS.findall(text))


def parse_action(text: str) -> Action:
    """Read an action from its text form (``str(action)``).

    Raises:
        ValueError: the text is not an action; the message names it.
    """
    if not isinstance(text, str):
        raise ChinchonError(N_("not an action: {text}"), text=repr(text))
    words = text.strip().split(maxsplit=1)
    verb = words[0].lower() if words else ""
    rest = words[1] if len(words) > 1 else ""
    if verb == "draw" and rest in ("stock", "discard"):
        return Draw("stock" if rest == "stock" else "discard")
    if verb == "discard" and rest:
        return Discard(Card.parse(rest))
    if verb == "close" and rest:
        card_text, _, melds_text = rest.partition(" ")
        discard = Card.parse(card_text)
        return Close(discard, _parse_melds(melds_text) if melds_text.strip() else None)
    if verb == "show":
        return Show(_parse_melds(rest))
    if verb == "layoff":
        parts = rest.split()
        if len(parts) == 2 and parts[1].isdigit():
            return LayOff(Card.parse(parts[0]), int(parts[1]))
    if verb == "pass" and not rest:
        return Pass()
    if verb == "reenter" and rest in ("yes", "no"):
        return ReEnter(rest == "yes")
    raise ChinchonError(N_("not an action: {text}"), text=repr(text))
