"""Text for the terminal game's screens: cards in their colours, melds, lines laid out for the language.

Every line goes through :func:`line`, which puts right-to-left languages in
visual order (cards still read left to right) and colours the cards of the
red suits, ♦ and ♥.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence

from rich.align import Align
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from chinchon import i18n
from chinchon.cards import Card, Suit
from chinchon.i18n import for_terminal, is_rtl
from chinchon.melds import Arrangement, best_arrangement
from chinchon.rules import Rules

__all__ = [
    "RED",
    "Wrapped",
    "arrangement_of",
    "card_letters",
    "card_style",
    "card_text",
    "cards_text",
    "fit",
    "joined",
    "line",
    "loose_text",
    "melds_text",
    "set_deck",
    "sort_by_rank",
    "sort_by_suit",
    "table",
    "visual",
    "wrap",
]

RED = "red"
"""The colour of the red suits' cards."""

_RED_CARD = re.compile(r"(?<![\w])(?:10|[2-9A-Z])[♦♥]")

_deck = "spanish40"


def set_deck(deck: str) -> None:
    """Say which deck the cards on the screen belong to (the match's ``Rules.deck``)."""
    global _deck
    _deck = deck


def card_letters(text: str) -> str:
    """Text with the figures of the screen's deck in the language's letters (``S♥`` for ``J♥`` in Spanish)."""
    return i18n.card_letters(text, _deck)


def card_text(card: Card) -> str:
    """A card as the screen shows it: ``7♦``, or ``S♥`` for a Spanish deck's sota of cups in Spanish."""
    return card_letters(str(card))


def card_style(card: Card) -> str:
    """The style of a card's text: red for ♦ and ♥, the default colour otherwise."""
    return RED if card.suit in (Suit.OROS, Suit.COPAS) else ""


_RLM = "\u200f"


def visual(text: str) -> str:
    """A line in the order a left-to-right terminal shows it.

    A line with right-to-left letters reads right to left, even when it
    starts with a name in Latin letters; any other line is unchanged.
    """
    if not is_rtl() or not any(unicodedata.bidirectional(char) in ("R", "AL") for char in text):
        return text
    return for_terminal(_RLM + text).replace(_RLM, "")


def joined(parts: Sequence[str], separator: str = " · ") -> str:
    """Parts of a line in visual order: left to right, or right to left for a right-to-left language."""
    if not is_rtl():
        return separator.join(parts)
    return separator.join(visual(part) for part in reversed(parts))


def line(text: str, style: str = "", *, laid_out: bool = False) -> Text:
    """One line of text for the screen, in visual order, with the red suits' cards in red.

    ``laid_out`` text is in visual order already (see :func:`joined`).
    """
    text = card_letters(text)
    styled = Text(text if laid_out else visual(text), style=style, no_wrap=True, overflow="crop")
    styled.highlight_regex(_RED_CARD, RED)
    return styled


def wrap(text: str, width: int) -> list[str]:
    """A line (in logical order) wrapped between words into lines of at most ``width`` cells (a longer word is cut)."""
    return textwrap.wrap(text, max(1, width), break_on_hyphens=False) or [""]


class Wrapped:
    """Text wrapped at the width it is shown in, then each line laid out as :func:`line` does.

    A right-to-left paragraph must be wrapped before it is put in visual order: wrapped after,
    its lines would read bottom to top. Right-to-left lines are justified to the right.
    """

    def __init__(self, text: str, style: str = "", most: int | None = None) -> None:
        self.text = text
        self.style = style
        self.most = most

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width if self.most is None else min(self.most, options.max_width)
        for part in wrap(self.text, width):
            text = line(part, self.style)
            if is_rtl():
                text.justify = "right"
            yield text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((cell_len(word) for word in self.text.split()), default=0)
        widest = cell_len(self.text) if self.most is None else min(self.most, cell_len(self.text))
        return Measurement(min(longest, options.max_width), min(widest, options.max_width))


def fit(text: str, width: int) -> str:
    """A line (in logical order) cut to ``width`` cells, keeping its beginning and marking the cut with …."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > width - 1:
            break
        out += char
    return out + "…"


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as text, ``3♥ 4♥ 5♥``, or — for none."""
    text = " ".join(str(card) for card in cards)
    return text or "—"


def melds_text(melds: Sequence[Sequence[Card]]) -> str:
    """Melds in brackets, ``[3♥ 4♥ 5♥] [7♦ 7♠ 7♣]``, or — for none."""
    return " ".join("[" + " ".join(str(card) for card in meld) + "]" for meld in melds) or "—"


def loose_text(arrangement: Arrangement) -> str:
    """The loose cards of an arrangement and their points: ``K♠ 2♣ (12)``."""
    return f"{cards_text(arrangement.loose)} ({arrangement.points})"


def sort_by_suit(cards: Iterable[Card]) -> list[Card]:
    """Cards by suit (♦ ♥ ♠ ♣), then rank."""
    return sorted(cards)


def sort_by_rank(cards: Iterable[Card], rules: Rules) -> list[Card]:
    """Cards by rank, then suit; jokers last."""
    order = {rank: i for i, rank in enumerate(rules.ranks)}
    return sorted(
        cards,
        key=lambda card: (
            order.get(card.rank, len(order)) if card.rank is not None else len(order) + 1,
            card.suit.index if card.suit is not None else 4,
        ),
    )


def arrangement_of(cards: Sequence[Card], rules: Rules) -> Arrangement:
    """The best arrangement of the cards (no melds for no cards)."""
    if not cards:
        return Arrangement((), (), 0)
    return best_arrangement(cards, rules)


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[int] = (), wrap: Sequence[int] = ()
) -> RenderableType:
    """A table of text cells; right-to-left languages read its columns from the right.

    With ``wrap``, those columns' cells wrap when the table is too wide, and the other columns are never cut.
    """
    rtl = is_rtl()
    order = slice(None, None, -1 if rtl else 1)
    columns = list(range(len(headers)))[order]
    grid = Table(box=None, pad_edge=False, show_edge=False, expand=False, padding=(0, 1))
    for index in columns:
        whole = None
        if wrap and index not in wrap:
            whole = max(line(text).cell_len for text in [headers[index], *(row[index] for row in rows)])
        grid.add_column(
            line(headers[index], "bold"),
            justify="right" if (index in right) != rtl else "left",
            no_wrap=index not in wrap,
            min_width=whole,
        )
    for row in rows:
        cells = []
        for index in columns:
            cell = line(row[index])
            if index in wrap:
                cell.no_wrap, cell.overflow = False, "fold"
            cells.append(cell)
        grid.add_row(*cells)
    # Right-to-left tables stand against the right edge, as their text does.
    return Align.right(grid) if rtl else grid
