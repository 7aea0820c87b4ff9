"""The boxes shown over the table: choices, a deal's results, re-entry, the end of the match, help, quitting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

from chinchon.i18n import is_rtl, pgettext
from chinchon.tui.render import Wrapped, line, visual

__all__ = [
    "AUTO",
    "ChoiceScreen",
    "Dialog",
    "EndScreen",
    "InfoScreen",
    "QuitScreen",
    "ReEntryScreen",
    "key_line",
    "no_key",
    "paragraph",
    "yes_key",
]

T = TypeVar("T")

BOX_WIDTH = 78
"""The width of a box over the table; on a screen less than 6 columns wider, the screen's."""

AUTO = "auto"
"""What a :class:`ChoiceScreen` answers when the player lets the game choose."""


def key_line(keys: Sequence[tuple[str, str]]) -> Text:
    """A line of keys and what they do: ``Enter continue  Esc back``."""
    rtl = is_rtl()
    text = Text(no_wrap=True, overflow="crop")
    for i, (key, label) in enumerate(reversed(keys) if rtl else keys):
        if i:
            text.append("  ")
        if rtl:
            text.append(visual(label) + " ")
            text.append(key, "bold reverse")
        else:
            text.append(key, "bold reverse")
            text.append(" " + label)
    return text


def paragraph(text: str, width: int | None = None) -> RenderableType:
    """A paragraph wrapped at the width it is shown in (at most ``width``).

    Right-to-left languages are wrapped first, then put in visual order (see :class:`Wrapped`).
    """
    if not is_rtl():
        wrapped = line(text)
        wrapped.no_wrap = False
        wrapped.overflow = "fold"
        return wrapped
    return Wrapped(text, most=width)


class Dialog(ModalScreen[T]):
    """A box over the table: a title, a body, and the keys that answer it."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        background: $background 50%;
    }
    Dialog #box {
        width: 78;
        max-width: 100%;
        height: auto;
        max-height: 22;
        border: round $accent;
        background: $surface;
        padding: 0 0 0 1;
    }
    Dialog #title {
        text-style: bold;
        height: auto;
        padding-right: 1;
    }
    Dialog #body {
        height: auto;
        max-height: 17;
    }
    Dialog #body > Static {
        height: auto;
        padding-right: 1;
    }
    Dialog #keys {
        height: 1;
        margin-top: 1;
        padding-right: 1;
    }
    Dialog OptionList, Dialog OptionList:focus {
        height: auto;
        max-height: 12;
        border: none;
        padding: 0;
    }
    """

    def __init__(self, title: str, body: Sequence[RenderableType], keys: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.body = list(body)
        self.keys = list(keys)

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static(line(self.title_text, "bold"), id="title")
            yield from self.compose_body()
            yield Static(key_line(self.keys), id="keys")

    def compose_body(self) -> ComposeResult:
        """The widgets between the title and the keys."""
        with VerticalScroll(id="body"):
            for part in self.body:
                yield Static(part)

    def on_mount(self) -> None:
        self._fit()
        self.call_after_refresh(self._fit)
        if is_rtl():
            for widget in self.query(Static):
                widget.styles.text_align = "right"

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        # Below 24 rows the box takes the whole height and its body gives up rows first, so that
        # the title, the options and the keys stay in view.
        rows = self.size.height
        box, body, lists = self.query_one("#box"), self.query_one("#body"), self.query(OptionList)
        # A box a few columns narrower than the screen would show the table's borders beside its own.
        box.styles.width = "100%" if self.size.width < BOX_WIDTH + 6 else BOX_WIDTH
        small = rows < 24
        inner = max(3, rows - 5)
        box.styles.max_height = rows if small else 22
        # The rows the box's content asks for are known once it has been laid out (hence the second call).
        wanted = 5 + body.virtual_size.height + sum(options.virtual_size.height for options in lists)
        box.styles.height = min(rows, wanted) if small and lists else "auto"
        body.styles.max_height = (inner // 2 if lists else inner) if small else 17
        for options in lists:
            options.styles.height = "1fr" if small else "auto"
            options.styles.max_height = None if small else 12


class InfoScreen(Dialog[None]):
    """Something to read (results, help, the discard pile's history); any of its keys closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", show=False),
        Binding("question_mark", "close", show=False),
    ]

    def action_close(self) -> None:
        """Close the box."""
        self.dismiss(None)


class ChoiceScreen(Dialog[Any]):
    """A list to choose from: answers the index chosen, :data:`AUTO`, or ``None`` when put away."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"choose({n - 1})", show=False) for n in range(1, 10)),
        Binding("a", "auto", show=False),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(
        self,
        title: str,
        body: Sequence[RenderableType],
        options: Sequence[RenderableType],
        keys: Sequence[tuple[str, str]],
        *,
        auto: bool = False,
        highlighted: int = 0,
    ) -> None:
        super().__init__(title, body, keys)
        self.options = list(options)
        self.allow_auto = auto
        self.highlighted = highlighted

    def compose_body(self) -> ComposeResult:
        yield from super().compose_body()
        yield OptionList(*self.options, id="choices")

    def on_mount(self) -> None:
        super().on_mount()
        choices = self.query_one(OptionList)
        choices.highlighted = min(self.highlighted, len(self.options) - 1) if self.options else None
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Answer the option chosen with Enter or a click."""
        event.stop()
        self.dismiss(event.option_index)

    def action_choose(self, index: int) -> None:
        """Choose an option by its number."""
        if 0 <= index < len(self.options):
            self.dismiss(index)

    def action_auto(self) -> None:
        """Let the game choose."""
        if self.allow_auto:
            self.dismiss(AUTO)

    def action_cancel(self) -> None:
        """Put the choice away for now."""
        self.dismiss(None)


def yes_key() -> str:
    """The key that answers yes in the player's language (``y`` is taken too)."""
    return pgettext("the key that answers yes", "y")


def no_key() -> str:
    """The key that answers no in the player's language (``n`` is taken too)."""
    return pgettext("the key that answers no", "n")


class _YesOrNo:
    """Answers a question with the language's keys for yes and no (``s``/``n`` in Spanish, ``o``/``n`` in French)."""

    def on_key(self, event: Key) -> None:
        if event.character in (yes_key(), no_key()) and event.character not in ("y", "n"):
            event.stop()
            self.action_answer(event.character == yes_key())  # type: ignore[attr-defined]


class ReEntryScreen(_YesOrNo, Dialog[bool]):
    """The re-entry question: yes or no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n", "answer(False)", show=False),
    ]

    def action_answer(self, accept: bool) -> None:
        """Answer the question."""
        self.dismiss(accept)


class EndScreen(Dialog[bool]):
    """The end of the match: answers whether to play again."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,enter", "answer(True)", show=False),
        Binding("q,escape", "answer(False)", show=False),
    ]

    def action_answer(self, again: bool) -> None:
        """Play again, or not."""
        self.dismiss(again)


class QuitScreen(_YesOrNo, Dialog[bool]):
    """Whether to quit: answers yes or no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,q,enter", "answer(True)", show=False),
        Binding("n,escape", "answer(False)", show=False),
    ]

    def action_answer(self, quit_now: bool) -> None:
        """Quit, or go back to the table."""
        self.dismiss(quit_now)
