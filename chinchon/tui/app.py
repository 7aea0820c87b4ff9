"""``chinchon play``: the player against bots at a table in the terminal.

The table shows only what the player's seat observes: the opponents' card
counts, totals and the cards they took from the discard pile; the stock
count; the discard pile; the player's hand with its best arrangement. The
bots play at a visible pace, in a worker thread, and a log says what they
did. Boxes over the table ask for the player's choices (how to close, what
to show and lay off, re-entry) and show each deal's results and the end of
the match. The match is saved after every action.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, ReEnter, Show
from chinchon.cards import Card
from chinchon.events import Closed, Drew, LaidOff, Showed, YouDrew, YouPutFaceDown
from chinchon.i18n import _, cannot_close_reason, is_rtl, ngettext, pgettext, translate_error
from chinchon.melds import best_discard
from chinchon.observation import Observation, Phase, TableMeld
from chinchon.rules import Rules
from chinchon.tui.render import (
    arrangement_of,
    card_style,
    card_text,
    cards_text,
    fit,
    joined,
    line,
    melds_text,
    set_deck,
    sort_by_rank,
    sort_by_suit,
    table,
    visual,
    wrap,
)
from chinchon.tui.rules_text import rules_paragraphs, rules_title
from chinchon.tui.screens import (
    AUTO,
    ChoiceScreen,
    EndScreen,
    InfoScreen,
    QuitScreen,
    ReEntryScreen,
    key_line,
    no_key,
    paragraph,
    yes_key,
)
from chinchon.tui.session import Session
from chinchon.tui.storage import SORTS

__all__ = ["SORTS", "ChinchonApp", "TableScreen"]


_SHEET_DEALS = 6  # the most deals a score sheet shows, the latest ones

MIN_WIDTH, MIN_HEIGHT = 60, 16
"""The smallest terminal the table works in (wider when the hand's cards need it)."""

LARGE_HEIGHT = 32
"""The least height that gets larger cards (with the width for the hand's cards at 12 columns each)."""


def _sort_name(sort: str) -> str:
    return {"suit": _("sorted by suit"), "rank": _("sorted by rank"), "own": _("in your order")}[sort]


def _loose_after(hand: Sequence[Card], used: Sequence[Card]) -> list[Card]:
    """The cards of ``hand`` left once ``used`` are taken out (a multiset difference)."""
    rest = list(hand)
    for card in used:
        rest.remove(card)
    return rest


def _sentence(message: str) -> str:
    """An engine's message as a sentence on the table: a capital letter and a full stop."""
    message = message[:1].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


def _points(cards: Sequence[Card], rules: Rules) -> int:
    return sum(rules.value(card) for card in cards)


def all_keys() -> list[tuple[str, str]]:
    """Every key of the game and what it does, for the help screen."""
    return [
        ("← → 1-9", _("pick a card")),
        ("⇧← ⇧→ < >", _("move the picked card (your own order)")),
        ("s", _("draw from the stock")),
        ("d", _("take the top card of the discard pile")),
        ("Enter", _("discard the picked card, or make your showdown choice")),
        ("c", _("close: choose the card face down and the melds")),
        ("o", _("sort the hand by suit, by rank, or in your order")),
        ("h", _("the discard pile's history")),
        ("a", _("let the game make your showdown choices")),
        ("f", _("once you are out: play the rest of the match at full speed")),
        ("?", _("this help and the rules")),
        ("q", _("quit; the match is saved for --resume")),
    ]


def _in_play(obs: Observation, seat: int) -> bool:
    """Whether a seat is still in the match: in, asked to re-enter, playing a deciding deal, or its winner."""
    if seat in obs.active or seat in obs.reentry_pending or (obs.match_over and seat == obs.winner):
        return True
    return not obs.active and seat in obs.seats and obs.phase is not Phase.OVER and not obs.match_over


def _level_name(name: str) -> str:
    """A bot's name for the player: the levels in the player's language, other bots as they were given."""
    levels = {
        "beginner": pgettext("bot level", "beginner"),
        "casual": pgettext("bot level", "casual"),
        "regular": pgettext("bot level", "regular"),
        "skilled": pgettext("bot level", "skilled"),
        "strong": pgettext("bot level", "strong"),
    }
    return levels.get(name, name)


# -- the widgets of the table -------------------------------------------------------------


class CardView(Static):
    """One card of the player's hand: its number above, its meld's letter below."""

    DEFAULT_CSS = """
    CardView {
        width: 7;
        height: 3;
        margin-right: 1;
        border: round $foreground 40%;
        border-title-align: center;
        border-subtitle-align: center;
        content-align: center middle;
    }
    CardView.-meld0 { border: round green; }
    CardView.-meld1 { border: round cyan; }
    CardView.-meld2 { border: round magenta; }
    CardView.-picked {
        border: heavy $accent;
        text-style: bold reverse;
    }
    CardView.-absent { display: none; }
    """

    def __init__(self, index: int) -> None:
        super().__init__(id=f"card-{index}")
        self.index = index

    def on_click(self, event: Click) -> None:
        """Pick this card; clicking the picked card discards it."""
        event.stop()
        screen = self.screen
        if isinstance(screen, TableScreen):
            screen.click_card(self.index)


class Pile(Static):
    """The stock or the discard pile: clicking it draws from it."""

    DEFAULT_CSS = """
    Pile {
        width: 13;
        height: 4;
        margin-right: 1;
        border: round $foreground 60%;
        border-title-align: center;
        border-subtitle-align: center;
        content-align: center middle;
        text-align: center;
    }
    Pile.-ready { border: round $accent; }
    """

    def __init__(self, source: str) -> None:
        super().__init__(id=source)
        self.source = source

    def on_click(self, event: Click) -> None:
        """Draw from this pile."""
        event.stop()
        screen = self.screen
        if isinstance(screen, TableScreen):
            screen.action_draw(self.source)


class TotalsView(Widget):
    """Every seat's total; when they do not all fit, the player's own (the others' are on their lines)."""

    DEFAULT_CSS = """
    TotalsView {
        height: 1fr;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="totals")
        self.title = ""
        self.rows: list[str] = []
        self.own = ""

    def show(self, title: str, rows: list[str], own: str) -> None:
        """Show these rows (``own`` is the player's) under the title."""
        self.title, self.rows, self.own = title, rows, own
        self.refresh()

    def render(self) -> RenderableType:
        lines = [self.title, *self.rows]
        if 0 < self.size.height < len(lines) and len(self.rows) > 1:
            lines = [self.title, self.own, _("(the others' totals: above)")]
        return Text("\n".join(visual(row) for row in lines))


class LogView(Widget):
    """The latest lines of the log, as many as fit."""

    DEFAULT_CSS = """
    LogView {
        width: 1fr;
        height: 1fr;
        border: round $foreground 40%;
        padding: 0 1;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="log")
        self.lines: list[str] = []

    def render(self) -> RenderableType:
        width, height = self.content_size.width, self.content_size.height
        if height <= 0 or width <= 0:
            return Text()
        # The latest lines, each wrapped (never cut): as many rows as fit, the newest last.
        rows: list[str] = []
        for text in reversed(self.lines):
            rows[:0] = wrap(text, width)
            if len(rows) >= height:
                break
        rtl = is_rtl()
        out = Text()
        for i, text in enumerate(rows[-height:]):
            if i:
                out.append("\n")
            shown = line(text)
            if rtl:
                out.append(" " * max(0, width - shown.cell_len))
            out.append_text(shown)
        return out


# -- the table ----------------------------------------------------------------------------


class TableScreen(Screen[None]):
    """The table: opponents, piles, log, the player's hand, what to do, and the keys."""

    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    TableScreen .text { height: 1; padding: 0 1; }
    TableScreen.-rtl .text { text-align: right; }
    #top { background: $primary-background; text-style: bold; }
    #opponents { height: auto; max-height: 7; padding: 0 1; }
    #middle { height: 1fr; }
    #left { width: 37; padding: 0 0 0 1; }
    #piles { height: 4; }
    #stock { width: 15; }
    #discard { width: 18; }
    #melds { height: auto; max-height: 5; padding: 0 1; border-top: solid $foreground 30%; }
    #melds.-empty { display: none; }
    #hand { height: 3; padding: 0 1; }
    #hand.-tight CardView { margin-right: 0; }
    #hint.-close { text-style: bold reverse; }
    #prompt, #hint { height: auto; max-height: 2; }
    #prompt.-error { text-style: bold; color: $error; }
    #keys { background: $primary-background; }
    TableScreen.-large CardView { width: 11; height: 5; }
    TableScreen.-large #hand { height: 5; }
    #too-small { display: none; height: 1fr; padding: 1 2; }
    TableScreen.-too-small > * { display: none; }
    TableScreen.-too-small > #too-small { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n % 10), f"pick({(n - 1) % 10})", show=False) for n in range(1, 11)),
        Binding("left", "move_pick(-1)", show=False),
        Binding("right", "move_pick(1)", show=False),
        Binding("shift+left,less_than_sign", "shift(-1)", show=False),
        Binding("shift+right,greater_than_sign", "shift(1)", show=False),
        Binding("s", "draw('stock')", show=False),
        Binding("d", "draw('discard')", show=False),
        Binding("enter", "act", show=False),
        Binding("c", "close", show=False),
        Binding("o", "sort", show=False),
        Binding("h", "history", show=False),
        Binding("a", "auto", show=False),
        Binding("f", "full_speed", show=False),
    ]

    def __init__(self, cards: int) -> None:
        super().__init__()
        self.card_slots = cards
        self.sort = "suit"
        self.own: list[Card] = []
        self.picked: Card | None = None
        # Where the picked card is: with two decks the hand can hold it twice.
        self.picked_place: int | None = None
        self.new_card: Card | None = None
        self.message: str | None = None
        self.shown: list[Card] = []

    @property
    def game(self) -> ChinchonApp:
        """The app (typed)."""
        app = self.app
        assert isinstance(app, ChinchonApp)
        return app

    def compose(self) -> ComposeResult:
        yield Static(id="top", classes="text")
        yield Static(id="opponents")
        with Horizontal(id="middle"):
            with Vertical(id="left"):
                with Horizontal(id="piles"):
                    yield Pile("stock")
                    yield Pile("discard")
                yield TotalsView()
            yield LogView()
        yield Static(id="melds")
        yield Static(id="hand-label", classes="text")
        with Horizontal(id="hand"):
            for index in range(self.card_slots):
                yield CardView(index)
        yield Static(id="prompt", classes="text")
        yield Static(id="hint", classes="text")
        yield Static(id="keys", classes="text")
        yield Static(id="too-small")

    def _least_size(self) -> tuple[int, int]:
        """The smallest screen the table works in: the hand's cards side by side, and 16 lines."""
        return max(MIN_WIDTH, 7 * self.card_slots + 2), MIN_HEIGHT

    def _check_size(self) -> None:
        width, height = self.size.width, self.size.height
        least_width, least_height = self._least_size()
        small = width < least_width or height < least_height
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                paragraph(
                    _(
                        "The terminal is {width}×{height}; the table needs at least {least_width}×{least_height}. "
                        "Make the window larger (q quits; the match is saved)."
                    ).format(width=width, height=height, least_width=least_width, least_height=least_height),
                    max(10, width - 4),
                )
            )

    def _fit_hand(self) -> None:
        # Cards lose the gap between them when a gap each would push the last ones off the screen.
        tight = self.card_slots > 9 or 8 * self.card_slots > self.size.width
        self.query_one("#hand", Horizontal).set_class(tight, "-tight")
        # A large terminal gets larger cards (and the log the lines the cards leave).
        large = self.size.width >= 12 * self.card_slots + 2 and self.size.height >= LARGE_HEIGHT
        self.set_class(large, "-large")

    def on_resize(self) -> None:
        self._fit_hand()
        self._check_size()
        self.refresh_view()

    def on_mount(self) -> None:
        self._fit_hand()
        self._check_size()
        self.set_class(is_rtl(), "-rtl")
        if is_rtl():
            for widget in (self.query_one("#opponents"), self.query_one("#totals"), self.query_one("#melds")):
                widget.styles.text_align = "right"
        self.refresh_view()

    def restore(self, session: Session) -> None:
        """Take the hand's order and the picked card as a resumed session left them."""
        self.sort = session.sort
        self.own = list(session.own)
        self.picked = session.picked
        self.picked_place = None

    def reset(self, cards: int) -> None:
        """Start afresh for a new match."""
        self.own = []
        self.picked = None
        self.picked_place = None
        self.new_card = None
        self.message = None
        if cards != self.card_slots:
            self.card_slots = cards
            hand = self.query_one("#hand", Horizontal)
            self._fit_hand()
            self._check_size()
            hand.remove_children()
            hand.mount_all([CardView(index) for index in range(cards)])

    # -- what the hand looks like ------------------------------------------------------

    def ordered(self, hand: Sequence[Card], rules: Rules) -> list[Card]:
        """The hand in the order it is shown."""
        remaining = Counter(hand)
        own: list[Card] = []
        for card in [*self.own, *hand]:
            if remaining[card] > 0:
                own.append(card)
                remaining[card] -= 1
        self.own = own
        if self.sort == "suit":
            return sort_by_suit(hand)
        if self.sort == "rank":
            return sort_by_rank(hand, rules)
        return list(own)

    # -- drawing the table --------------------------------------------------------------

    def refresh_view(self) -> None:
        """Draw the table again from what the player observes."""
        if not self.is_mounted:
            return
        session = self.game.session
        obs = session.observation()
        rules = obs.rules
        set_deck(rules.deck)
        turn = session.human_to_move()
        self.query_one("#top", Static).update(self._top(obs))
        self.query_one("#opponents", Static).update(self._opponents(obs))
        self._piles(obs, turn)
        self._totals(obs)
        log = self.query_one(LogView)
        log.lines = session.log
        log.border_title = visual(_("Log"))
        log.refresh()
        melds = self.query_one("#melds", Static)
        melds.set_class(obs.phase is not Phase.SHOWDOWN, "-empty")
        melds.update(self.table_melds(obs))
        hand = self.ordered(obs.hand, rules)
        self.shown = hand
        if self.picked is not None and self.picked not in hand:
            self.picked = None
            self.picked_place = None
        if self.new_card is not None and (self.new_card not in hand or obs.phase is not Phase.DISCARD):
            self.new_card = None
        session.sort, session.own, session.picked = self.sort, list(self.own), self.picked
        self._hand(hand, rules, obs)
        self._prompt(obs, turn)
        self._hint(hand, rules, obs, turn)
        self.query_one("#keys", Static).update(self._keys(obs, turn, len(hand)))

    def _top(self, obs: Observation) -> Text:
        parts = [
            "Chinchón",
            self.game.session.settings.preset,
            _("Deal {number}").format(number=obs.deal_number),
            _("Limit {limit}").format(limit=obs.rules.limit),
        ]
        if obs.rules.stake:
            parts.append(ngettext("Pot {count} stake", "Pot {count} stakes", obs.pot).format(count=obs.pot))
        return line(joined(parts), "bold", laid_out=True)

    def _opponents(self, obs: Observation) -> Text:
        session = self.game.session
        out = Text()
        for seat in range(obs.players):
            if seat == session.human:
                continue
            name = session.names[seat]
            bot = _level_name(session.bots[seat].name)
            marker = " "
            if obs.to_move == seat and not obs.match_over:
                marker = "◀" if is_rtl() else "▶"
            if not _in_play(obs, seat):
                parts = [f"{name} ({bot})", _("out"), _("total {total}").format(total=obs.scores[seat])]
            else:
                parts = [
                    f"{name} ({bot})",
                    ngettext("{count} card", "{count} cards", obs.hand_sizes[seat]).format(count=obs.hand_sizes[seat]),
                    _("total {total}").format(total=obs.scores[seat]),
                ]
                if obs.dealer == seat:
                    parts.append(_("dealer"))
                if obs.taken[seat]:
                    parts.append(_("holds {cards}").format(cards=cards_text(obs.taken[seat])))
            text = f"{joined(parts)} {marker}" if is_rtl() else f"{marker} {joined(parts)}"
            if out:
                out.append("\n")
            out.append_text(line(text, "bold" if marker.strip() else "", laid_out=True))
        return out

    def _piles(self, obs: Observation, turn: bool) -> None:
        drawing = turn and obs.phase is Phase.DRAW
        stock = self.query_one("#stock", Pile)
        stock.border_subtitle = "s"
        stock.set_class(drawing, "-ready")
        count = ngettext("{count} card", "{count} cards", obs.stock_size).format(count=obs.stock_size)
        discard = self.query_one("#discard", Pile)
        discard.border_subtitle = "d · h"
        discard.set_class(drawing, "-ready")
        top = obs.top_discard
        face = Text("—") if top is None else Text(card_text(top), style=f"bold {card_style(top)}".strip())
        # A name too long for its pile takes two lines, and both piles grow by a line.
        names = [wrap(_("Stock"), 11), wrap(_("Discard pile"), 14)]
        rows = min(2, max(len(name) for name in names))
        stock.update(self._pile_face(names[0], rows, Text(visual(count)), 11))
        discard.update(self._pile_face(names[1], rows, face, 14))
        for widget in (stock, discard, self.query_one("#piles")):
            widget.styles.height = 3 + rows

    @staticmethod
    def _pile_face(name: list[str], rows: int, value: Text, width: int) -> Text:
        """A pile's name (in ``rows`` lines) over what is on it, centred."""
        if len(name) > rows:
            name = [*name[: rows - 1], fit(" ".join(name[rows - 1 :]), width)]
        face = Text()
        for part in [*name, *[""] * (rows - len(name))]:
            face.append(visual(part), "dim")
            face.append("\n")
        face.append_text(value)
        return face

    def _totals(self, obs: Observation) -> None:
        session = self.game.session
        width = max(len(name) for name in session.names)
        rows = []
        for seat, name in enumerate(session.names):
            out = "" if _in_play(obs, seat) else " " + _("out")
            rows.append(f"{fit(name, 16):<{min(width, 16)}} {obs.scores[seat]:>4}{out}")
        title = _("Totals (limit {limit})").format(limit=obs.rules.limit)
        self.query_one(TotalsView).show(title, rows, rows[session.human])

    def table_melds(self, obs: Observation) -> Text:
        """The melds on the table in a showdown, a line for each owner."""
        if obs.phase is not Phase.SHOWDOWN:
            return Text()
        session = self.game.session
        by_owner: dict[int, list[TableMeld]] = {}
        for meld in obs.table:
            by_owner.setdefault(meld.owner, []).append(meld)
        out = Text()
        for owner, melds in by_owner.items():
            if out:
                out.append("\n")
            out.append_text(
                line(
                    _("{name}: {melds}").format(
                        name=session.names[owner], melds=melds_text([meld.cards for meld in melds])
                    )
                )
            )
        return out

    def _hand(self, hand: list[Card], rules: Rules, obs: Observation) -> None:
        arrangement = arrangement_of(hand, rules)
        meld_of: dict[int, int] = {}
        used: list[bool] = [False] * len(hand)
        for number, meld in enumerate(arrangement.melds):
            for card in meld:
                for i, held in enumerate(hand):
                    if not used[i] and held == card:
                        used[i] = True
                        meld_of[i] = number
                        break
        picked_index = self._picked_place()
        for view in self.query(CardView):
            index = view.index
            if index >= len(hand):
                view.set_class(True, "-absent")
                continue
            card = hand[index]
            view.set_class(False, "-absent")
            group = meld_of.get(index)
            for number in range(3):
                view.set_class(group is not None and group % 3 == number, f"-meld{number}")
            view.set_class(index == picked_index, "-picked")
            style = f"{card_style(card)} underline" if card == self.new_card else card_style(card)
            view.update(Text(card_text(card), style=style.strip(), justify="center"))
            view.border_title = str((index + 1) % 10) if index < 10 else ""
            view.border_subtitle = "abcdefgh"[group] if group is not None else ""
        session = self.game.session
        parts = [
            _("Your hand"),
            _("total {total}").format(total=obs.scores[session.human]),
        ]
        if len(hand) == rules.hand_size + 1:
            best = best_discard(hand, rules)
            parts.append(_("best discard {card}: {points} loose").format(card=best.discard, points=best.points))
        elif hand:
            parts.append(
                ngettext("{points} loose point", "{points} loose points", arrangement.points).format(
                    points=arrangement.points
                )
            )
        parts.append(_sort_name(self.sort))
        self.query_one("#hand-label", Static).update(line(joined(parts), laid_out=True))

    def _prompt(self, obs: Observation, turn: bool) -> None:
        prompt = self.query_one("#prompt", Static)
        prompt.set_class(self.message is not None, "-error")
        if self.message is not None:
            prompt.update(paragraph(self.message))
            return
        session = self.game.session
        if obs.match_over:
            text = _("The match is over.")
        elif turn and obs.phase is Phase.DRAW:
            top = obs.top_discard
            text = (
                _("Your turn: draw from the stock (s) or take {card} from the discard pile (d).").format(card=top)
                if top is not None
                else _("Your turn: draw from the stock (s).")
            )
        elif turn and obs.phase is Phase.DISCARD:
            text = _("Pick a card (1-{count}, ← →) and press Enter to discard it.").format(count=len(obs.hand))
        elif turn and obs.phase is Phase.SHOWDOWN:
            text = _("Showdown: Enter to choose what to show or lay off; a lets the game choose.")
        elif obs.to_move is not None and obs.to_move != session.human:
            text = _("{name} is playing…").format(name=session.names[obs.to_move])
        else:
            text = ""
        prompt.update(paragraph(text))

    def _hint(self, hand: list[Card], rules: Rules, obs: Observation, turn: bool) -> None:
        hint = self.query_one("#hint", Static)
        closes = [a for a in obs.legal_actions if isinstance(a, Close)] if turn else []
        hint.set_class(bool(closes), "-close")
        if closes:
            text = ngettext(
                "★ You can close! Press c to choose how ({count} way).",
                "★ You can close! Press c to choose how ({count} ways).",
                len(closes),
            ).format(count=len(closes))
        elif self.game.session.save_error:
            text = self.game.session.save_error
        elif turn and obs.phase is Phase.DISCARD and self.picked is not None:
            rest = _loose_after(hand, [self.picked])
            points = arrangement_of(rest, rules).points
            text = ngettext(
                "Discarding {card} leaves {points} loose point.",
                "Discarding {card} leaves {points} loose points.",
                points,
            ).format(card=self.picked, points=points)
        else:
            text = ""
        hint.update(paragraph(text))

    def _keys(self, obs: Observation, turn: bool, cards: int) -> Text:
        keys: list[tuple[str, str]] = []
        if turn and obs.phase is Phase.DRAW:
            keys += [("s", pgettext("key", "stock")), ("d", pgettext("key", "discard pile"))]
        elif turn and obs.phase is Phase.DISCARD:
            keys += [
                (f"1-{min(cards, 9)} ←→", pgettext("key", "pick")),
                ("↵", pgettext("key", "discard")),
                ("c", pgettext("key", "close")),
            ]
        elif turn and obs.phase is Phase.SHOWDOWN:
            keys += [("↵", pgettext("key", "choose")), ("a", pgettext("key", "auto"))]
        last = [("?", pgettext("key", "help")), ("q", pgettext("key", "quit"))]
        session = self.game.session
        if not _in_play(obs, session.human) and not obs.match_over and self.game.speed > 0:
            keys.append(("f", pgettext("key", "full speed")))
        # The keys that do not fit are left out, help and quit last of all: the help lists every key.
        room = self.size.width - 2
        for key in [
            ("o", pgettext("key", "sort")),
            ("⇧←→", pgettext("key", "move")),
            ("h", pgettext("key", "history")),
        ]:
            if key_line([*keys, key, *last]).cell_len <= room:
                keys.append(key)
        while len(keys) > 1 and key_line([*keys, *last]).cell_len > room:
            keys.pop()
        return key_line([*keys, *last])

    # -- the player's keys and clicks ----------------------------------------------------

    def _say(self, message: str) -> None:
        self.message = message
        self.refresh_view()

    def _picked_place(self) -> int:
        """The place of the picked card in the hand as shown, or -1."""
        if self.picked is None or self.picked not in self.shown:
            return -1
        place = self.picked_place
        if place is not None and 0 <= place < len(self.shown) and self.shown[place] == self.picked:
            return place
        return self.shown.index(self.picked)

    def action_pick(self, index: int) -> None:
        """Pick the card at this place of the hand."""
        if 0 <= index < len(self.shown):
            self.picked = self.shown[index]
            self.picked_place = index
            self.message = None
            self.refresh_view()

    def action_move_pick(self, step: int) -> None:
        """Pick the card beside the picked one."""
        if not self.shown:
            return
        place = self._picked_place()
        if place < 0:
            place = -1 if step > 0 else len(self.shown)
        self.action_pick((place + step) % len(self.shown))

    def action_shift(self, step: int) -> None:
        """Move the picked card one place: the hand keeps the player's own order from then on."""
        index = self._picked_place()
        if index < 0:
            self._say(_("Pick a card first (1-9 or ← →)."))
            return
        order = list(self.shown)
        target = index + step
        if 0 <= target < len(order):
            order[index], order[target] = order[target], order[index]
            self.picked_place = target
        self.own = order
        self.sort = "own"
        self.message = None
        self.refresh_view()

    def click_card(self, index: int) -> None:
        """A click on a card: pick it, or discard it when it is already picked."""
        if 0 <= index < len(self.shown) and index == self._picked_place():
            obs = self.game.session.observation()
            if self.game.session.human_to_move() and obs.phase is Phase.DISCARD:
                self.action_act()
                return
        self.action_pick(index)

    def action_draw(self, source: str) -> None:
        """Draw from the stock or the discard pile."""
        if not self._my_turn():
            return
        if self.game.session.observation().phase is Phase.DISCARD:
            self._say(_("You have drawn: now discard a card (pick it, Enter) or close (c)."))
            return
        session = self.game.session
        told = len(session.match.events())
        self.game.human_play(Draw("stock" if source == "stock" else "discard"))
        drawn = [
            event.card
            for event in session.match.events_for(session.human, told)
            if isinstance(event, YouDrew | Drew) and event.seat == session.human and event.card is not None
        ]
        if drawn:
            self.new_card = drawn[0]
            # A card from the stock is picked, ready to throw; one taken from the discard pile was
            # taken to keep: picking it would let Enter throw it straight back.
            self.picked = self.new_card if source == "stock" else None
            self.picked_place = None
            self.refresh_view()

    def action_act(self) -> None:
        """Enter: discard the picked card, or make the showdown choice."""
        if not self._my_turn():
            return
        obs = self.game.session.observation()
        if obs.phase is Phase.SHOWDOWN:
            self.game.open_showdown_choice()
        elif obs.phase is Phase.DRAW:
            self._say(_("Draw a card first: s from the stock, d from the discard pile."))
        elif self.picked is None:
            self._say(_("Pick a card first (1-9 or ← →)."))
        else:
            self.game.human_play(Discard(self.picked))

    def action_close(self) -> None:
        """Choose how to close."""
        if not self._my_turn():
            return
        obs = self.game.session.observation()
        if obs.phase is Phase.DRAW:
            self._say(_("Draw a card first: s from the stock, d from the discard pile."))
            return
        if obs.phase is not Phase.DISCARD:
            return
        closes = [a for a in obs.legal_actions if isinstance(a, Close)]
        if not closes:
            rules = obs.rules
            self._say(cannot_close_reason(rules.close_limit, rules.close_max_loose_cards))
            return
        self.game.open_close_choice(closes, self.picked)

    def action_sort(self) -> None:
        """Sort by suit, by rank, or keep the player's own order."""
        if self.sort != "own":
            self.own = list(self.shown)
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.message = None
        self.refresh_view()

    def action_history(self) -> None:
        """Show the discard pile's history."""
        self.game.show_history()

    def action_full_speed(self) -> None:
        """Once the player is out of the match, play the rest of it at once."""
        session = self.game.session
        obs = session.observation()
        if _in_play(obs, session.human) or obs.match_over:
            self._say(_("Full speed (f) is for once you are out of the match."))
            return
        self.game.speed = 0
        self._say(_("The rest of the match plays at full speed."))

    def action_auto(self) -> None:
        """Let the game make the player's showdown decisions for this deal."""
        obs = self.game.session.observation()
        if obs.phase is Phase.SHOWDOWN:
            self.game.auto_showdown()

    def _my_turn(self) -> bool:
        session = self.game.session
        if session.match.over:
            return False
        if not session.human_to_move() or self.game.bot_running:
            self._say(_("Wait for your turn."))
            return False
        return True


# -- the app --------------------------------------------------------------------------------


class ChinchonApp(App[None]):
    """The terminal game: the player against bots, one match after another."""

    TITLE = "Chinchón"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", show=False),
        Binding("q", "quit_game", show=False),
    ]

    def __init__(self, session: Session, *, speed: float | None = None, unfinished: Session | None = None) -> None:
        """Play ``session``; with ``unfinished`` (a saved match), first ask which of the two to play.

        ``session`` should then be unsaved (no store): it replaces the saved match only if chosen.
        Until then the table shows the unfinished match: the new one is not dealt before the player's eyes.
        """
        super().__init__()
        self.offered = session
        self.session = unfinished if unfinished is not None else session
        self.unfinished = unfinished
        self._speed_given = speed is not None
        self.speed = self.session.settings.speed if speed is None else speed
        self.table = TableScreen(self.session.match.rules.hand_size + 1)
        self.table.restore(self.session)
        set_deck(self.session.match.rules.deck)
        self.bot_running = False
        self._auto_deal: int | None = None
        self._choice_put_away = False
        self._advance_pending = False

    def get_default_screen(self) -> Screen[Any]:
        return self.table

    def on_mount(self) -> None:
        if self.unfinished is not None:
            self._offer_unfinished(self.unfinished)
        self._schedule_advance()

    def _offer_unfinished(self, unfinished: Session) -> None:
        obs = unfinished.observation()
        totals = ", ".join(f"{name} {obs.scores[seat]}" for seat, name in enumerate(unfinished.names))
        body = [
            paragraph(
                _("Deal {number} of a match of {preset}; totals: {totals}.").format(
                    number=obs.deal_number, preset=unfinished.settings.preset, totals=totals
                )
            )
        ]
        options: list[RenderableType] = [
            line("1. " + _("Continue the unfinished match")),
            line("2. " + _("Start the new match (the unfinished one is then lost)")),
        ]
        keys = [
            ("1 2", pgettext("key", "choose")),
            ("Enter", pgettext("key", "play")),
            ("Esc", pgettext("key", "continue")),
        ]

        def chosen(answer: object) -> None:
            self.unfinished = None
            if answer == 1:
                offered = self.offered
                offered.store = unfinished.store
                offered.save()
                self.session = offered
                if not self._speed_given:
                    self.speed = offered.settings.speed
                self.table.reset(offered.match.rules.hand_size + 1)
            self._schedule_advance()

        self.push_screen(ChoiceScreen(_("An unfinished match is saved"), body, options, keys), chosen)

    @property
    def idle(self) -> bool:
        """Whether nothing is under way: the game waits for the player (tests wait for this)."""
        return not self.bot_running and not self._advance_pending

    # -- the course of the match ------------------------------------------------------------

    def _schedule_advance(self) -> None:
        self._advance_pending = True
        self.call_after_refresh(self.advance)

    def advance(self) -> None:
        """Go on with the match: a bot's move, or a box that asks the player; else wait for the player."""
        self._advance_pending = False
        self.table.refresh_view()
        if self.bot_running or self.screen is not self.table:
            return
        session = self.session
        if session.finished_deals() > session.results_seen:
            self._show_results(session.results_seen + 1)
            return
        if session.match.over:
            self._show_end()
            return
        obs = session.observation()
        if session.human_to_move():
            if obs.reentry_pending:
                self._ask_reentry(obs)
            elif obs.phase is Phase.SHOWDOWN:
                if self._auto_deal == obs.deal_number:
                    self.human_play(session.helper_choice())
                elif not self._choice_put_away:
                    self.open_showdown_choice()
            return
        seat = session.bot_to_move()
        if seat is None:
            return
        self.bot_running = True
        if self.speed > 0:
            self.set_timer(self.speed, lambda: self._start_bot(seat))
        else:
            self._start_bot(seat)

    def _start_bot(self, seat: int) -> None:
        observation = self.session.match.observation(seat)
        self.run_worker(self._bot_turn(self.session, seat, observation), group="bots", exclusive=True)

    async def _bot_turn(self, session: Session, seat: int, observation: Observation) -> None:
        try:
            action = await asyncio.to_thread(session.choose, seat, observation)
            if session is not self.session:
                return
            session.play(action, seat)
            self.table.message = None
        finally:
            self.bot_running = False
        self.advance()

    def human_play(self, action: Action) -> None:
        """Play the player's action; an illegal one is explained on the table."""
        try:
            self.session.play(action, self.session.human)
        except IllegalAction as error:
            self.table.message = _sentence(translate_error(error))
        else:
            self.table.message = None
            self._choice_put_away = False
        self.advance()

    def auto_showdown(self) -> None:
        """Let the game make the player's remaining showdown decisions of this deal."""
        self._auto_deal = self.session.observation().deal_number
        self._choice_put_away = False
        self._schedule_advance()

    # -- boxes over the table -----------------------------------------------------------------

    def _after_box(self, _result: object = None) -> None:
        self._schedule_advance()

    def open_close_choice(self, closes: list[Close], picked: Card | None) -> None:
        """Ask how to close, the picked card's closes first."""
        obs = self.session.observation()
        rules = obs.rules
        options: list[RenderableType] = []
        for number, close in enumerate(closes, start=1):
            melds = close.melds or ()
            loose = _loose_after(_loose_after(obs.hand, [close.discard]), [c for m in melds for c in m])
            options.append(
                line(
                    f"{number}. "
                    + _("{card} face down · {melds} · loose: {loose} ({points})").format(
                        card=close.discard,
                        melds=melds_text(melds),
                        loose=cards_text(loose),
                        points=_points(loose, rules),
                    )
                )
            )
        first = next((i for i, close in enumerate(closes) if close.discard == picked), 0)

        def chosen(answer: object) -> None:
            if isinstance(answer, int):
                self.human_play(closes[answer])
            else:
                self._schedule_advance()

        self.push_screen(
            ChoiceScreen(
                _("Close"),
                [line(_("Choose the card to put face down and the melds to show:"))],
                options,
                [
                    ("↑↓ 1-9", pgettext("key", "choose")),
                    ("Enter", pgettext("key", "close")),
                    ("Esc", pgettext("key", "back")),
                ],
                highlighted=first,
            ),
            chosen,
        )

    def open_showdown_choice(self) -> None:
        """Ask what to show, or what to lay off, in the showdown."""
        obs = self.session.observation()
        if not self.session.human_to_move() or obs.phase is not Phase.SHOWDOWN:
            return
        rules = obs.rules
        actions = list(obs.legal_actions)
        body: list[RenderableType] = [line(_("On the table:"), "bold"), self.table.table_melds(obs)]
        body.append(line(_("Your cards: {cards}").format(cards=cards_text(obs.hand))))
        options: list[RenderableType] = []
        if any(isinstance(a, Show) for a in actions):
            title = _("Showdown: show your melds")
            for number, action in enumerate(actions, start=1):
                assert isinstance(action, Show)
                loose = _loose_after(obs.hand, [c for m in action.melds for c in m])
                options.append(
                    line(
                        f"{number}. "
                        + _("{melds} · loose: {loose} ({points})").format(
                            melds=melds_text(action.melds) if action.melds else _("no melds"),
                            loose=cards_text(loose),
                            points=_points(loose, rules),
                        )
                    )
                )
        else:
            title = _("Showdown: lay off")
            for number, action in enumerate(actions, start=1):
                if isinstance(action, LayOff):
                    meld = obs.table[action.meld_index]
                    if meld.owner == self.session.human:
                        text = _("lay off {card} on your meld {meld}").format(card=action.card, meld=meld)
                    else:
                        text = _("lay off {card} on {meld} ({name})").format(
                            card=action.card, meld=meld, name=self.session.names[meld.owner]
                        )
                else:
                    text = _("done: no more lay-offs")
                options.append(line(f"{number}. {text}"))

        def chosen(answer: object) -> None:
            if answer == AUTO:
                self.auto_showdown()
            elif isinstance(answer, int):
                self.human_play(actions[answer])
            else:
                self._choice_put_away = True
                self._schedule_advance()

        self.push_screen(
            ChoiceScreen(
                title,
                body,
                options,
                [
                    ("↑↓ 1-9", pgettext("key", "choose")),
                    ("Enter", pgettext("key", "play")),
                    ("a", pgettext("key", "let the game choose")),
                    ("Esc", pgettext("key", "back")),
                ],
                auto=True,
            ),
            chosen,
        )

    def _ask_reentry(self, obs: Observation) -> None:
        human = self.session.human
        still_in = [obs.scores[seat] for seat in obs.active]
        total = max(still_in) if still_in else 0
        body = [
            paragraph(
                _("Your total of {total} puts you out (limit {limit}).").format(
                    total=obs.scores[human], limit=obs.rules.limit
                )
            ),
            paragraph(
                _("Re-enter with {total} points, the highest total of the players still in?").format(total=total)
            ),
        ]

        def answered(accept: bool | None) -> None:
            self.human_play(ReEnter(bool(accept)))

        self.push_screen(
            ReEntryScreen(
                _("You are out"),
                body,
                [(yes_key(), pgettext("key", "re-enter")), (no_key(), pgettext("key", "stay out"))],
            ),
            answered,
        )

    def _show_results(self, number: int) -> None:
        session = self.session
        deal = session.match.deals[number - 1].observation(session.human)
        result = deal.result
        assert result is not None
        obs = session.observation()
        face_down: Card | None = None  # the player's own, if the player closed: the others' stay hidden
        laid: list[tuple[int, tuple[Card, ...]]] = []  # the table's melds as their owners laid them, in order
        laid_by: dict[tuple[int, int], list[Card]] = {}  # (seat, owner) → the cards seat laid off on owner's melds
        for event in session.deal_events(number):
            if isinstance(event, Closed | Showed):
                laid += [(event.seat, meld) for meld in event.melds]
            elif isinstance(event, LaidOff) and event.owner != event.seat:
                laid_by.setdefault((event.seat, event.owner), []).append(event.card)
            elif isinstance(event, YouPutFaceDown):
                face_down = event.card
        # Where the rules show the hands by themselves, the melds nobody showed in an event are as the result has them.
        laid += [(meld.owner, meld.cards) for meld in result.table[len(laid) :]]
        rows = []
        for seat in deal.seats:
            melds = [meld for owner, meld in laid if owner == seat]
            rows.append(
                [
                    session.names[seat],
                    melds_text(melds),
                    cards_text(result.loose[seat]),
                    f"{result.points[seat]:+d}",
                ]
            )
        closing = session.closing_line(result)
        body: list[RenderableType] = []
        if result.chinchon and result.closer is not None:
            body.append(
                line(
                    "★ "
                    + session.you_or(result.closer, _("You made a chinchón!"), _("{name} made a chinchón!"))
                    + " ★",
                    "bold reverse",
                )
            )
        body.append(line(closing, "bold"))
        if face_down is not None:
            body.append(line(_("You put {card} face down.").format(card=face_down)))
        body.append(table([_("Player"), _("Melds"), _("Loose"), _("Points")], rows, right=(3,)))
        for (who, owner), given in laid_by.items():
            if owner == session.human:
                told = _("{name} laid off {cards} on your melds.").format(
                    name=session.names[who], cards=cards_text(given)
                )
            else:
                told = session.you_or(
                    who,
                    _("You laid off {cards} on the melds of {owner}."),
                    _("{name} laid off {cards} on the melds of {owner}."),
                    cards=cards_text(given),
                    owner=session.names[owner],
                )
            body.append(line(told))
        body.append(Text())
        body.append(self.score_sheet(obs, number))

        title = _("Deal {number} is over").format(number=number)
        if result.chinchon:
            title = _("Chinchón! Deal {number} is over").format(number=number)

        def seen(_result: object) -> None:
            session.results_seen = max(session.results_seen, number)
            self._schedule_advance()

        self.push_screen(
            InfoScreen(title, body, [("Enter", pgettext("key", "continue"))]),
            seen,
        )

    def score_sheet(self, obs: Observation, deals: int) -> RenderableType:
        """The points of each deal (the latest ones), the totals, and the limit line."""
        session = self.session
        first = max(1, deals - _SHEET_DEALS + 1)
        numbers = list(range(first, deals + 1))
        played = [session.match.deals[n - 1].observation(session.human) for n in numbers]
        headers = [_("Player"), *(str(n) for n in numbers), _("Total")]
        rules = obs.rules
        out_of_match = [s for s in range(obs.players) if not _in_play(obs, s)]
        order = sorted(range(obs.players), key=lambda seat: (obs.scores[seat], seat))
        rows: list[list[str]] = []
        limit_drawn = False
        for seat in order:
            total = obs.scores[seat]
            over = total >= rules.limit if rules.eliminate_at == "reaching" else total > rules.limit
            if over and not limit_drawn:
                rows.append(self._limit_row(rules, len(numbers)))
                limit_drawn = True
            cells = []
            for deal in played:
                result = deal.result
                cells.append(f"{result.points[seat]:+d}" if result is not None and seat in deal.seats else "·")
            status = ""
            if obs.winner == seat:
                status = " ★"
            elif seat in obs.reentry_pending:
                status = " " + _("re-entry?")
            elif seat in out_of_match:
                status = " " + _("out")
            rows.append([session.names[seat], *cells, f"{obs.scores[seat]}{status}"])
        if not limit_drawn:
            rows.append(self._limit_row(rules, len(numbers)))
        return table(headers, rows, right=tuple(range(1, len(numbers) + 2)))

    @staticmethod
    def _limit_row(rules: Rules, deals: int) -> list[str]:
        return ["── " + _("limit {limit}").format(limit=rules.limit) + " ──", *("──" for _n in range(deals)), "───"]

    def _show_end(self) -> None:
        session = self.session
        obs = session.observation()
        winner = obs.winner
        if winner is None:
            title = _("The match is over.")
        elif winner == session.human:
            title = _("You win the match!")
        else:
            title = _("{name} wins the match!").format(name=session.names[winner])
        body: list[RenderableType] = [self.score_sheet(obs, session.finished_deals())]
        if obs.rules.stake and winner is not None:
            takes = self.session.you_or(
                winner,
                ngettext("You take the pot: {count} stake.", "You take the pot: {count} stakes.", obs.pot),
                ngettext("{name} takes the pot: {count} stake.", "{name} takes the pot: {count} stakes.", obs.pot),
                count=obs.pot,
            )
            body.append(paragraph(takes))

        def answered(again: bool | None) -> None:
            if again:
                self.new_match()
            else:
                self.exit()

        self.push_screen(
            EndScreen(title, body, [("n", pgettext("key", "play again")), ("q", pgettext("key", "quit"))]), answered
        )

    def new_match(self) -> None:
        """Start another match with the same seats, rules and bots."""
        self.session = self.session.again()
        self._auto_deal = None
        self._choice_put_away = False
        self.bot_running = False
        self.table.reset(self.session.match.rules.hand_size + 1)
        self._schedule_advance()

    def show_history(self) -> None:
        """Show every discard of this deal and the pile as it is now."""
        session = self.session
        obs = session.observation()
        discards = " · ".join(
            _("{card} ({name})").format(card=card, name=session.names[seat]) for seat, card in obs.discards
        )
        body: list[RenderableType] = [
            line(_("Discards of this deal, oldest first:"), "bold"),
            paragraph(discards or "—"),
            Text(),
            line(_("The discard pile now, top last:"), "bold"),
            paragraph(cards_text(obs.discard_pile)),
        ]
        self.push_screen(InfoScreen(_("The discard pile"), body, [("Esc", pgettext("key", "back"))]), self._after_box)

    # -- the app's keys -----------------------------------------------------------------------

    def action_help(self) -> None:
        """Show the keys and the rules."""
        if isinstance(self.screen, InfoScreen):
            return
        preset = self.session.settings.preset
        keys = table([_("Key"), _("What it does")], all_keys(), wrap=(1,))
        body: list[RenderableType] = [
            keys,
            Text(),
            paragraph(
                _(
                    "Under the cards of your hand, a letter (a, b, c…) and a colour mark the melds of its best "
                    "arrangement; a card without a letter is loose. The card just drawn is underlined."
                )
            ),
            Text(),
            paragraph(
                _(
                    "Mouse: click the stock or the discard pile to draw, a card to pick it, "
                    "and the picked card again to discard it."
                )
            ),
            Text(),
            line(rules_title(preset), "bold"),
        ]
        for text in rules_paragraphs(self.session.match.rules):
            body.append(paragraph(text))
        self.push_screen(
            InfoScreen(_("Help"), body, [("Esc", pgettext("key", "back")), ("↑↓", pgettext("key", "scroll"))]),
            self._after_box,
        )

    def action_quit_game(self) -> None:
        """Quit after the player confirms."""
        if isinstance(self.screen, QuitScreen):
            return

        def answered(quit_now: bool | None) -> None:
            if quit_now:
                self.session.save()  # the picked card and the hand's order, as they are now
                self.exit()
            else:
                self._schedule_advance()

        error = self.session.save_error
        if error:
            body = [paragraph(_("The match could not be saved ({error}): quitting now loses it.").format(error=error))]
        else:
            body = [paragraph(_("The match is saved: chinchon play --resume continues it."))]
        self.push_screen(
            QuitScreen(
                _("Quit the game?"), body, [(yes_key(), pgettext("key", "quit")), (no_key(), pgettext("key", "back"))]
            ),
            answered,
        )
