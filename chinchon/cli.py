"""The ``chinchon`` command line: solve, play, arena, rules, replay and bench.

Bad input prints one line to standard error, ``error: …`` in the player's
language, and exits with status 2; Click's own usage errors (their message in
English) print the usage, then the same kind of line, and exit with 2 too.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from importlib.metadata import version as _version
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from chinchon.bots.levels import LADDER, RETIRED
from chinchon.cards import Card, parse_cards
from chinchon.errors import ChinchonError
from chinchon.events import DealEnded, DealStarted, Event, MatchEnded, MatchStarted, ReEntered
from chinchon.i18n import (
    LANGUAGES,
    _,
    cannot_close_reason,
    canonical_letters,
    card_letters,
    for_terminal,
    get_language,
    is_rtl,
    ngettext,
    set_language,
    translate_error,
    translation,
)
from chinchon.melds import (
    Arrangement,
    ClosingOption,
    best_arrangement,
    best_discard,
    check_hand,
    closing_options,
    is_chinchon,
)
from chinchon.narration import tell_each
from chinchon.record import dumps, loads
from chinchon.record import replay as replay_record
from chinchon.rules import Rules, format_option, parse_options

__all__ = [
    "EXIT_BAD_INPUT",
    "app",
    "has_terminal",
    "main",
    "replay_lines",
    "rules_label",
    "rules_or_exit",
    "solve_document",
]

EXIT_BAD_INPUT = 2
"""The exit status for input the program cannot use."""

COMMAND_ORDER = ("play", "replay", "analyze", "rules", "solve", "arena", "bench")
"""The commands in the order ``--help`` lists them: a player's first; any other after these."""


PLACEHOLDERS = {
    "--bot-delay": "SECONDS",
    "--bot-nice": "N",
    "--bot-workers": "N",
    "--budget": "SECONDS",
    "--connections-per-address": "N",
    "--db": "URL",
    "--gc-thaw": "SECONDS",
    "--grace": "SECONDS",
    "--hands": "N",
    "--hello-timeout": "SECONDS",
    "--host": "HOST",
    "--jobs": "N",
    "--lang": "LANG",
    "--log-level": "LEVEL",
    "--lookups-per-minute": "N",
    "--matches": "N",
    "--max-actions": "N",
    "--name": "NAME",
    "--origin": "ORIGIN",
    "--output": "FILE",
    "--players": "N",
    "--playouts": "N",
    "--port": "PORT",
    "--request-timeout": "SECONDS",
    "--rooms-per-minute": "N",
    "--rule": "NAME=VALUE",
    "--rules": "PRESET",
    "--scheduler": "ADDRESS",
    "--seat": "N",
    "--seatings": "SCHEME",
    "--seconds": "SECONDS",
    "--seed": "N",
    "--speed": "SECONDS",
}
"""What goes after each option, as ``--help`` shows it (an option's own ``metavar`` comes first)."""


# The Click that Typer is built on (its own copy in recent versions, the click package before):
# the errors it raises are that Click's.
_CLICK: Any = importlib.import_module(TyperGroup.__mro__[1].__module__.rpartition(".")[0])


_HELP_FOR_NO_ARGUMENTS: Any = getattr(_CLICK.exceptions, "NoArgsIsHelpError", ())


def _is_argument(param: Any) -> bool:
    return bool(param.param_type_name == "argument")


def _placeholder(param: Any) -> str:
    """What goes in a parameter's place: from :data:`PLACEHOLDERS`, else its name or its kind of value."""
    if _is_argument(param):
        return (param.name or "value").upper()
    known = [PLACEHOLDERS[name] for name in param.opts if name in PLACEHOLDERS]
    if known:
        return known[0]
    kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return "N" if kind is int else "NUMBER" if kind is float else "TEXT"


class _Command(TyperCommand):
    """A command whose help says what goes in each place (``FILE``, ``PRESET``, ``N``), not ``<int>``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.metavar is None and not getattr(param, "is_flag", False):
                param.metavar = _placeholder(param)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if _is_argument(param):
                pieces.append(str(param.metavar) if param.required else f"[{param.metavar}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if _is_argument(param):
                arguments.append((str(param.metavar), record[1]))  # without Typer's "<str>" after it
            else:
                options.append(record)
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        if options:
            with formatter.section("Options"):
                formatter.write_dl(options)


class _Commands(TyperGroup):
    """The program's commands, listed in :data:`COMMAND_ORDER`; errors as one line, ``error: …``.

    Click's usage errors (an unknown option, a missing argument) say ``error:`` as the program's
    own do; a closed pipe (``chinchon replay | head -1``) is a normal end, status 0.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        known = [name for name in COMMAND_ORDER if name in names]
        return known + [name for name in names if name not in known]

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        given = (args, prog_name, complete_var)
        if not standalone_mode:
            return super().main(*given, standalone_mode=False, windows_expand_args=windows_expand_args, **extra)
        try:
            status = super().main(*given, standalone_mode=False, windows_expand_args=windows_expand_args, **extra)
        except _HELP_FOR_NO_ARGUMENTS as error:  # "chinchon" alone: the help
            error.show()
            sys.exit(error.exit_code)
        except _CLICK.exceptions.UsageError as error:
            if error.ctx is not None:
                hint = f"Try '{error.ctx.command_path} -h' for help."
                print(f"{error.ctx.get_usage()}\n{hint}\n", file=sys.stderr)
            _error_line(error.format_message())
            sys.exit(error.exit_code)
        except _CLICK.exceptions.ClickException as error:
            _error_line(error.format_message())
            sys.exit(error.exit_code)
        except typer.Abort:
            print(file=sys.stderr)
            sys.exit(1)
        sys.exit(status if isinstance(status, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _quiet_stdout()
            raise typer.Exit(0) from None


def _quiet_stdout() -> None:
    """Send what is left for standard output nowhere: its reader has gone (a closed pipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


app = typer.Typer(
    name="chinchon",
    help="Chinchón, the Spanish rummy: solve hands, play against bots, run bot matches.",
    cls=_Commands,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    # Click's plain help: Rich's shows every switch with a "<bool>" value it does not take.
    rich_markup_mode=None,
)

RulesOption = Annotated[
    str, typer.Option("--rules", "-r", help="Rule preset: fournier, clasico, online or polaco.", show_default=True)
]
RuleOption = Annotated[
    list[str] | None,
    typer.Option(
        "--rule",
        help="An option of the rules on top of the preset, NAME=VALUE, e.g. --rule limit=50 --rule"
        " wild_ace_of_oros=true (repeatable; `chinchon rules` lists them).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a JSON document instead of text.")]
LangOption = Annotated[
    str | None,
    typer.Option("--lang", help="Language: en, es, pt, fr, pl or ar (default: from LANGUAGE, LC_ALL, LANG)."),
]


def _json(document: object) -> str:
    """The text ``--json`` prints (and ``arena --output`` writes): indented, not ASCII-escaped, one final newline."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _print_version(given: bool) -> None:
    if given:
        typer.echo(f"chinchon {_version('chinchon')}")
        raise typer.Exit()


@app.callback()
def _chinchon(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """Chinchón, the Spanish rummy: solve hands, play against bots, run bot matches."""


def _error_line(message: str) -> None:
    """Print ``error: message`` on one line of standard error, in the player's language."""
    line = " ".join(_("error: {message}").format(message=message).split())
    print(for_terminal(line), file=sys.stderr)


def _fail(message: str) -> NoReturn:
    """Print one line of error to standard error and exit with status 2."""
    _error_line(message)
    raise typer.Exit(EXIT_BAD_INPUT)


def _setup(lang: str | None, preset: str, options: Sequence[str] | None = None) -> Rules:
    """Make the language current and build the rules, or fail with one translated line."""
    try:
        set_language(lang)
    except ChinchonError as exc:
        _fail(translate_error(exc))
    return rules_or_exit(preset, options)


def rules_or_exit(preset: str, options: Sequence[str] | None = None) -> Rules:
    """The rules of ``--rules PRESET`` with every ``--rule NAME=VALUE`` on top (:meth:`Rules.from_text`).

    The one place every command reads its rules from the command line. Bad
    rules print the ``RulesError`` in one translated line and exit with status 2.
    """
    try:
        return Rules.from_text(preset, options or ())
    except ChinchonError as exc:
        _fail(translate_error(exc))


def rules_label(preset: str, options: Sequence[str] | None = None) -> str:
    """The preset and the options given on top of it, as ``clasico, limit=50`` (assumes they are valid)."""
    parsed = parse_options(options or ())
    return ", ".join([preset, *(f"{name}={format_option(value)}" for name, value in parsed.items())])


def _read_hand(text: str, rules: Rules) -> list[Card]:
    """The cards of a hand for these rules, or fail with one translated line."""
    try:
        # Figures in the language's letters too (S♥ in Spanish), as the program writes them.
        cards = parse_cards(canonical_letters(text, rules.deck))
    except ChinchonError as exc:
        _fail(translate_error(exc))
    if len(cards) not in (rules.hand_size, rules.hand_size + 1):
        _fail(
            ngettext(
                "a hand has {size} cards, or {drawn} with the card just drawn; got {count} card",
                "a hand has {size} cards, or {drawn} with the card just drawn; got {count} cards",
                len(cards),
            ).format(size=rules.hand_size, drawn=rules.hand_size + 1, count=len(cards))
        )
    try:
        check_hand(cards, rules)
    except ChinchonError as exc:
        _fail(card_letters(translate_error(exc), rules.deck))
    return cards


# -- the JSON document -------------------------------------------------------------


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _arrangement(arrangement: Arrangement) -> dict[str, Any]:
    return {
        "melds": [_cards(meld) for meld in arrangement.melds],
        "loose": _cards(arrangement.loose),
        "points": arrangement.points,
    }


def _option(option: ClosingOption) -> dict[str, Any]:
    return {"discard": str(option.discard), **_arrangement(option.arrangement), "points": option.points}


def solve_document(
    cards: Sequence[Card], rules: Rules, preset: str, given: Sequence[str] | None = None
) -> dict[str, Any]:
    """The solution of a hand as a JSON-able document (``chinchon/schemas/solve.schema.json``).

    A hand of ``rules.hand_size`` cards gets its best ``arrangement``; one
    more card gets its ``closing_options`` (best first), ``can_close`` and
    the ``best_discard``. ``given`` (``NAME=VALUE`` texts on top of the
    preset) are listed under ``options`` when there are any.
    """
    document: dict[str, Any] = {"hand": _cards(cards), "rules": preset}
    if given:
        document["options"] = parse_options(given)
    if len(cards) == rules.hand_size:
        document["arrangement"] = _arrangement(best_arrangement(cards, rules))
    else:
        options = closing_options(cards, rules)
        document["closing_options"] = [_option(option) for option in options]
        document["can_close"] = bool(options)
        document["best_discard"] = _option(best_discard(cards, rules))
    return document


# -- the text output ---------------------------------------------------------------

_RED_CARD = r"(?<![\w])(?:10|[2-9A-Z])[♦♥]"


def _styled(text: str, deck: str = "spanish40") -> Text:
    """Text with its cards in the language's notation (see :func:`card_letters`), the red suits' (♦ ♥) in red."""
    styled = Text(card_letters(text, deck))
    styled.highlight_regex(_RED_CARD, "red")
    return styled


def _show_cards(cards: Sequence[Card]) -> str:
    return " ".join(str(card) for card in cards) if cards else "—"


def _show_melds(melds: Sequence[Sequence[Card]]) -> str:
    return " ".join(f"[{_show_cards(meld)}]" for meld in melds) if melds else "—"


def _line(console: Console, template: str, *, deck: str = "spanish40", **params: object) -> None:
    console.print(_styled(for_terminal(template.format(**params)), deck))


def _print_arrangement(console: Console, arrangement: Arrangement, deck: str) -> None:
    _line(console, _("Melds: {melds}"), deck=deck, melds=_show_melds(arrangement.melds))
    _line(console, _("Loose: {cards}"), deck=deck, cards=_show_cards(arrangement.loose))
    _line(console, _("Loose points: {points}"), points=arrangement.points)


def _print_solution(console: Console, cards: Sequence[Card], rules: Rules, preset: str) -> None:
    _line(console, _("Rules: {preset}"), preset=preset)
    deck = rules.deck
    _line(console, _("Hand: {cards}"), deck=deck, cards=_show_cards(cards))
    if len(cards) == rules.hand_size:
        _print_arrangement(console, best_arrangement(cards, rules), deck)
        return
    options = closing_options(cards, rules)
    if not options:
        console.print(_styled(for_terminal(cannot_close_reason(rules.close_limit, rules.close_max_loose_cards))))
        best = best_discard(cards, rules)
        _line(console, _("Best discard: {card}"), deck=deck, card=best.discard)
        _print_arrangement(console, best.arrangement, deck)
        return
    # The best close for each card put face down: another arrangement of the same discard is only worse.
    each: dict[Card, ClosingOption] = {}
    for option in options:
        each.setdefault(option.discard, option)
    _line(
        console,
        ngettext(
            "This hand can close with {count} card face down; its best arrangement:",
            "This hand can close with any of {count} cards face down; the best arrangement of each, best first:",
            len(each),
        ),
        count=len(each),
    )
    # Right-to-left languages read the columns from the right.
    rtl = is_rtl()
    order = slice(None, None, -1 if rtl else 1)
    table = Table(box=None, pad_edge=False, show_edge=False)
    for header in (_("Face down"), _("Melds"), _("Loose"), _("Scores"))[order]:
        table.add_column(for_terminal(header), no_wrap=True, justify="right" if rtl else "left")
    for option in each.values():
        arrangement = option.arrangement
        cells = [
            _styled(str(option.discard), deck),
            _styled(_show_melds(arrangement.melds), deck),
            _styled(_show_cards(arrangement.loose), deck),
            Text(for_terminal(close_score(option, cards, rules))),
        ]
        table.add_row(*cells[order])
    console.print(table)


def close_score(option: ClosingOption, hand: Sequence[Card], rules: Rules) -> str:
    """What a close scores for the closer: its loose points, or the bonus of every card matched or a chinchón."""
    if option.arrangement.loose:
        return str(option.points)
    rest = list(hand)
    rest.remove(option.discard)
    if is_chinchon(rest, rules):
        if rules.chinchon == "win":
            return _("chinchón: wins the match")
        if isinstance(rules.chinchon, int):
            return _("chinchón: {points}").format(points=rules.chinchon)
        return _("chinchón, all matched: {points}").format(points=rules.clean_close_bonus)
    return _("all matched: {points}").format(points=rules.clean_close_bonus)


@app.command(cls=_Command, short_help="The best melds of a hand, or every way to close it.")
def solve(
    hand: Annotated[
        str, typer.Argument(help='The cards, e.g. "3♥ 4♥ 5♥ 6♥ 7♣ 7♦ 7♠ A♦" or "3h 4h 5h 6h 7c 7d 7s Ad".')
    ],
    rules: RulesOption = "fournier",
    rule: RuleOption = None,
    as_json: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Best arrangement of a hand, or every way to close a hand with the card just drawn."""
    chosen = _setup(lang, rules, rule)
    cards = _read_hand(hand, chosen)
    if as_json:
        typer.echo(_json(solve_document(cards, chosen, rules, rule)), nl=False)
        return
    console = Console(highlight=False, emoji=False, soft_wrap=True)
    _print_solution(console, cards, chosen, rules_label(rules, rule))


_UNSAFE = dict.fromkeys(
    [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)], "?"
)
"""Control characters (terminal escapes, new lines, bidirectional overrides): a record prints none of them."""


def printable(text: str) -> str:
    """``text`` with every control character (an escape sequence's ESC included) shown as ``?``.

    >>> printable("Ana\x1b]0;owned\x07")
    'Ana?]0;owned?'
    """
    return "".join("?" if "\ud800" <= char <= "\udfff" else char for char in text.translate(_UNSAFE))


def rules_name(rules: Rules) -> str:
    """The rules by their preset's name, with the options that differ from it: ``polaco``, ``clasico, limit=150``."""
    options = rules.to_dict()

    def differences(preset: str) -> dict[str, Any]:
        base = Rules.preset(preset).to_dict()
        return {key: value for key, value in options.items() if base.get(key) != value}

    nearest = min(Rules.presets(), key=lambda preset: len(differences(preset)))
    rest = differences(nearest)
    return ", ".join([nearest, *(f"{key}={value}" for key, value in rest.items())])


def replay_lines(events: Sequence[Event], you: int | None = None) -> list[str]:
    """A recorded match told from its events (as :meth:`Match.all_events <chinchon.match.Match.all_events>` gives
    them), deal by deal, as plain text lines in the current language.

    ``you`` is the player's seat, told as "you"; seat names are shown without control characters.
    """
    from chinchon.tui.session import shown_names

    started = next((event for event in events if isinstance(event, MatchStarted)), None)
    if started is None:
        return []
    names = [printable(name) for name in shown_names(started.names, you)]
    scores = list(started.scores)
    lines: list[str] = []
    dealing = False  # within a deal, whose lines are indented
    for told in tell_each(events, get_language(), names=names, you=you):
        event = told.event
        if isinstance(event, MatchStarted):
            lines += [*told.lines, _("Rules: {preset}").format(preset=rules_name(event.rules))]
            continue
        if isinstance(event, DealStarted):
            if dealing:
                lines.append("  " + _("(the deal is not finished)"))
            lines += ["", *told.lines]
            dealing = True
            continue
        if isinstance(event, MatchEnded):
            lines += ["", _("Totals: {totals}").format(totals=_totals(names, event.scores)), *told.lines]
            return lines
        if isinstance(event, DealEnded):
            dealing, scores = False, list(event.scores)
        elif isinstance(event, ReEntered):
            scores[event.seat] = event.score
        lines += ["  " + line for line in told.lines]
    if dealing:
        lines.append("  " + _("(the deal is not finished)"))
    lines += ["", _("Totals: {totals}").format(totals=_totals(names, scores)), _("The match is not finished.")]
    return lines


def _totals(names: Sequence[str], scores: Sequence[int]) -> str:
    return ", ".join(f"{name} {total}" for name, total in zip(names, scores, strict=True))


def player_seat(record: dict[str, Any], names: Sequence[str]) -> int | None:
    """The player's seat in a record ``chinchon play`` saved, if it shows, to tell that seat as "you".

    It is the saved match's player when the record is the saved match (or a copy of it); else the one
    seat with the name ``chinchon play`` gives a player who gives none ("You", in any language).
    """
    from chinchon.tui.storage import Store

    try:
        saved = Store().load()
    except ChinchonError:
        saved = None
    if saved is not None and saved[0] == record and 0 <= saved[1].human < len(names):
        return saved[1].human
    defaults = {translation(lang).gettext("You") for lang in LANGUAGES}
    seats = [seat for seat, name in enumerate(names) if name in defaults]
    return seats[0] if len(seats) == 1 else None


@app.command(cls=_Command, short_help="Print a recorded match hand by hand (the last one saved by default).")
def replay(
    file: Annotated[
        str | None,
        typer.Argument(
            help="A game record (JSON), as `chinchon play` saves it (default: the last match saved,"
            " last-match.json in ~/.local/share/chinchon on Linux, or in $CHINCHON_DATA_DIR)."
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the record as a JSON document (checked by replaying it) instead of text."),
    ] = False,
    lang: LangOption = None,
) -> None:
    """Print a recorded match hand by hand."""
    from chinchon.files import read_text
    from chinchon.tui.storage import StorageError, Store

    _setup(lang, "fournier")
    you = None
    path = file
    if path is None:
        store = Store()
        try:
            saved = store.load()
        except StorageError as exc:
            _fail(translate_error(exc))
        if saved is None and not os.path.lexists(store.record_path):
            _fail(_("no match is saved in {folder}; give a record's file").format(folder=store.directory))
        # A record without its settings, or no file at all there (a FIFO): read it as any record's file.
        path = str(store.record_path)
    if file is None and saved is not None:
        record, settings = saved
        you = settings.human
    else:
        try:
            text = read_text(path)
        except OSError as exc:
            _fail(_("cannot read {file}: {error}").format(file=path, error=exc.strerror or exc))
        except UnicodeDecodeError as exc:
            _fail(_("cannot read {file}: {error}").format(file=path, error=exc.reason))
        try:
            record = loads(text)
        except ChinchonError as exc:
            _fail(translate_error(exc))
    try:
        match = replay_record(record)
    except ChinchonError as exc:
        _fail(translate_error(exc))
    if as_json:
        typer.echo(dumps(record))
        return
    if you is None:
        you = player_seat(record, match.names)
    for line in replay_lines(match.all_events(), you if you is not None and 0 <= you < match.players else None):
        typer.echo(for_terminal(card_letters(line, match.rules.deck)))


# -- chinchon analyze --------------------------------------------------------------


def _read_record(file: str) -> dict[str, Any]:
    """The record in ``file``, or exit with a message naming the problem."""
    from chinchon.files import read_text

    try:
        text = read_text(file)
    except OSError as exc:
        _fail(_("cannot read {file}: {error}").format(file=file, error=exc.strerror or exc))
    except UnicodeDecodeError as exc:
        _fail(_("cannot read {file}: {error}").format(file=file, error=exc.reason))
    try:
        return loads(text)
    except ChinchonError as exc:
        _fail(f"{file}: {translate_error(exc)}")


@app.command(cls=_Command, short_help="Every decision of a seat in a recorded match, rated by the search.")
def analyze(
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="RECORD...",
            help="Game records (JSON), as `chinchon play` saves them or the server gives them (default: the last"
            " match saved, with the seat you played).",
            show_default=False,
        ),
    ] = None,
    seat: Annotated[
        int | None, typer.Option("--seat", help="The seat whose decisions are rated (default: 0, or yours).")
    ] = None,
    playouts: Annotated[
        int | None,
        typer.Option("--playouts", help="The search's budget: playouts a decision (default: 300)."),
    ] = None,
    budget: Annotated[
        float | None,
        typer.Option(
            "--budget", help="At most this many seconds a decision, on top of the playouts (the result may then vary)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the search: the same seed, the same analysis.")] = 1,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes to analyse in (1: this one).")] = 1,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Analyse on a Dask cluster: its scheduler, tcp://host:8786.")
    ] = None,
    as_json: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Rate every decision of a seat in recorded matches: the move played, the best one found, and their cost."""
    from chinchon.analysis import PLAYOUTS, Settings, analyse_many, print_analysis
    from chinchon.tui.storage import StorageError, Store

    _setup(lang, "fournier")
    for option, value in (("--playouts", playouts), ("--jobs", jobs)):
        if value is not None and value < 1:
            _fail(_("{option}: expected a whole number of at least 1, got {value}").format(option=option, value=value))
    if budget is not None and not 0 < budget < float("inf"):
        _fail(_("--budget: expected a number of seconds above 0, got {value}").format(value=budget))
    if seat is not None and seat < 0:
        _fail(_("--seat: expected a seat number of 0 or more, got {value}").format(value=seat))
    records: list[dict[str, Any]] = []
    if not files:
        store = Store()
        try:
            saved = store.load()
        except StorageError as exc:
            _fail(translate_error(exc))
        if saved is None:
            _fail(_("no match is saved in {folder}; give a record's file").format(folder=store.directory))
        record, saved_settings = saved
        records.append(record)
        if seat is None:
            seat = saved_settings.human
    else:
        records.extend(_read_record(file) for file in files)
    settings = Settings(playouts=playouts or PLAYOUTS, seconds=budget or 0.0, seed=seed)
    messages = Console(highlight=False, emoji=False, stderr=True)
    try:
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=messages,
            transient=True,
            disable=not messages.is_terminal,
        ) as bar:
            task = bar.add_task(for_terminal(_("Analysing")), total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            analyses = analyse_many(records, seat or 0, settings, jobs=jobs, scheduler=scheduler, progress=progress)
    except ChinchonError as exc:
        _fail(translate_error(exc))
    if as_json:
        documents = [analysis.to_dict() for analysis in analyses]
        typer.echo(_json(documents[0] if len(documents) == 1 else documents), nl=False)
        return
    console = Console(highlight=False, emoji=False)
    for index, analysis in enumerate(analyses):
        if len(analyses) > 1:
            if index:
                console.print()
            console.print(Text(for_terminal(files[index] if files else "")), soft_wrap=True)
        print_analysis(analysis, console)


# -- chinchon arena ----------------------------------------------------------------


@app.command(cls=_Command, short_help="Bots against bots on duplicate deals.")
def arena(
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots", metavar="BOTS", help="The bots, comma-separated: greedy,simple or ismcts:iterations=200,beginner."
        ),
    ] = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats at each table.")] = 2,
    matches: Annotated[
        int | None, typer.Option("--matches", help="Boards of whole matches, each played once per seating.")
    ] = None,
    hands: Annotated[
        int | None, typer.Option("--hands", help="Boards of single hands, each played once per seating.")
    ] = None,
    rules: RulesOption = "fournier",
    rule: RuleOption = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the boards (default: a random one, shown in the report).")
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes to play in (1: this one).")] = 1,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Play on a Dask cluster: its scheduler, tcp://host:8786.")
    ] = None,
    as_json: JsonOption = False,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Also write the whole report (JSON) to this file.")
    ] = None,
    max_actions: Annotated[
        int | None,
        typer.Option(
            "--max-actions", help="Stop a match after this many actions and report it unfinished (default: 100000)."
        ),
    ] = None,
    seating: Annotated[
        str,
        typer.Option(
            "--seatings",
            help="How each board is seated: rotations of the lineup, all orders of the bots, or auto"
            " (rotations, or all orders when there are more bots than seats).",
        ),
    ] = "auto",
    lang: LangOption = None,
) -> None:
    """Bots against bots on duplicate deals: every bot plays every seat of every board."""
    import secrets

    from chinchon.arena import MAX_ACTIONS, ArenaConfig, ArenaProgress, parse_lineup, print_report, run_arena

    chosen = _setup(lang, rules, rule)
    if (matches is None) == (hands is None):
        _fail(_("give either --matches N or --hands N"))
    if not bots:
        _fail(_("give the bots with --bots, e.g. --bots greedy,simple"))
    for option, value in (("--matches", matches), ("--hands", hands), ("--jobs", jobs), ("--max-actions", max_actions)):
        if value is not None and value < 1:
            _fail(_("{option}: expected a whole number of at least 1, got {value}").format(option=option, value=value))
    chosen_seed = seed if seed is not None else secrets.randbelow(2**32)
    config = ArenaConfig(
        bots=tuple(parse_lineup(bots)),
        players=players,
        boards=matches if matches is not None else hands or 0,
        mode="matches" if matches is not None else "hands",
        rules=rules if not rule else chosen,
        seed=chosen_seed,
        max_actions=MAX_ACTIONS if max_actions is None else max_actions,
        seating=seating.strip().lower(),  # type: ignore[arg-type]  # checked below
    )
    try:
        config.check(jobs)
    except ChinchonError as exc:
        _fail(translate_error(exc))
    if output is not None:
        # Find out before playing that the report can be written there, without creating the file.
        problem = _unwritable(output)
        if problem is not None:
            _fail(_("cannot write {path}: {error}").format(path=output, error=problem))
    console = Console(highlight=False, emoji=False)
    # With --json, standard output is the document alone; the progress and messages go to standard error.
    messages = Console(highlight=False, emoji=False, stderr=True) if as_json else console
    try:
        with ArenaProgress(config, messages, file=sys.stderr if as_json else None) as progress:
            report = run_arena(config, jobs=jobs, scheduler=scheduler, progress=progress.update)
    except ChinchonError as exc:
        _fail(translate_error(exc))
    if not as_json:
        print_report(report, console)
    if as_json or output is not None:
        arguments = {
            "bots": bots,
            "players": players,
            "matches": matches,
            "hands": hands,
            "rules": rules,
            "rule": list(rule or []),
            "seed": chosen_seed,
            "jobs": jobs,
            "scheduler": scheduler,
            "json": as_json,
            "output": output,
            "max_actions": config.max_actions,
            "seatings": seating,
        }
        document = _json(report.to_dict(arguments))
        if as_json:
            typer.echo(document, nl=False)
    if output is not None:
        from chinchon.tui.storage import write_whole

        try:
            write_whole(output, document)
        except OSError as exc:
            _fail(_("cannot write {path}: {error}").format(path=output, error=exc.strerror or exc))
        messages.print(for_terminal(_("Report written to {path}").format(path=output)), soft_wrap=True)


# -- chinchon rules ----------------------------------------------------------------


@app.command("rules", cls=_Command, short_help="Print the rules of a preset.")
def rules_command(
    preset: Annotated[
        str | None, typer.Argument(help="The preset: fournier, clasico, online or polaco (default: --rules).")
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option("--rules", "-r", help="Rule preset: fournier, clasico, online or polaco (default: fournier)."),
    ] = None,
    rule: RuleOption = None,
    as_json: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Print the rules in force (a preset and any --rule options on top of it), in the chosen language."""
    from chinchon.tui.rules_text import rules_paragraphs, rules_title

    name = preset or rules or "fournier"
    chosen = _setup(lang, name, rule)
    if preset is not None and rules is not None and preset.strip().lower() != rules.strip().lower():
        _fail(_("two presets given, {preset} and --rules {rules}: give one").format(preset=preset, rules=rules))
    if as_json:
        closest, options = chosen.as_text()
        document = {"preset": closest, "options": options, "rules": chosen.to_dict()}
        typer.echo(_json(document), nl=False)
        return
    console = Console(highlight=False, emoji=False, soft_wrap=True)
    width = max(40, min(console.width, 100))
    _line(console, "{title}", title=rules_title(rules_label(name, rule)))
    for text in rules_paragraphs(chosen):
        console.print()
        for part in textwrap.wrap(text, width):
            console.print(_styled(for_terminal(part)), justify="right" if is_rtl() else None)


# -- chinchon play -----------------------------------------------------------------


def _levels_help() -> str:
    """The help of ``play --bots``: the levels, weakest first, each with how it plays."""
    levels = " ".join(f"{level.name}: {level.description}" for level in LADDER)
    retired = ", ".join(RETIRED)
    return (
        "A bot level per opponent, comma-separated; one level plays every opponent (default: strong)."
        f" The levels, weakest first, each winning about two matches in three against the one before: {levels}"
        f" The names of the old levels ({retired}) play as the level nearest them; any arena bot plays too."
    )


@app.command(cls=_Command, short_help="Play a match against bots in the terminal.")
def play(
    players: Annotated[
        int | None,
        typer.Option(
            "--players", "-p", help="Seats at the table, you included (default: one more than the levels, or 3)."
        ),
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            metavar="LEVELS",
            help=_levels_help(),
        ),
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", "-r", help="Rule preset: fournier, clasico, online or polaco.")
    ] = None,
    rule: RuleOption = None,
    name: Annotated[str | None, typer.Option("--name", help="Your name at the table.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed of the shuffles (default: a random one).")] = None,
    lang: LangOption = None,
    speed: Annotated[
        float | None,
        typer.Option(
            "--speed",
            help="Seconds between the bots' moves, 0 to 60 (default 0.8; a resumed match keeps its own);"
            " 0 plays them at once.",
        ),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the last unfinished match.")] = False,
) -> None:
    """Play a match against bots in the terminal."""
    import secrets

    from chinchon.bots import make_bot
    from chinchon.tui.app import ChinchonApp
    from chinchon.tui.session import Session
    from chinchon.tui.storage import MOST_SPEED, Settings, Store

    preset = rules or "fournier"
    chosen = _setup(lang, preset, rule)
    if speed is not None and not 0 <= speed <= MOST_SPEED:  # NaN fails too
        _fail(_("--speed must be from 0 to {most} seconds, not {value}").format(most=f"{MOST_SPEED:g}", value=speed))
    store = Store()
    if resume:
        try:
            session = Session.resume(store)
        except ChinchonError as exc:
            _fail(translate_error(exc))
        if session is None:
            _fail(_("there is no unfinished match to resume"))
        _terminal_or_exit()
        notes = []
        if (rules is not None or rule) and chosen != session.match.rules:
            kept = rules_label(*session.match.rules.as_text())
            notes.append(
                _("The saved match goes on with its own rules ({rules}), not those of the command line.").format(
                    rules=kept
                )
            )
        aside = _set_aside(session, players, bots, seed, name)
        if aside:
            notes.append(
                _("The saved match goes on as it was saved; set aside: {options}.").format(options=", ".join(aside))
            )
        for line in notes:
            print(for_terminal(line), file=sys.stderr)
            session.log.append(line)
        ChinchonApp(session, speed=speed).run()
        return
    if name is not None and not _is_text(name):
        _fail(_("--name: a name is text (UTF-8) without control characters"))
    levels = [level.strip() for level in bots.split(",")] if bots else []
    if players is None:
        players = len(levels) + 1 if len(levels) > 1 else 3
    if not chosen.min_players <= players <= chosen.max_players:
        _fail(
            _("--players: the {preset} rules play with {low} to {high} players, not {value}").format(
                preset=rules_label(preset, rule), low=chosen.min_players, high=chosen.max_players, value=players
            )
        )
    if not levels:
        levels = ["strong"]
    if len(levels) == 1:
        levels = levels * (players - 1)
    if len(levels) != players - 1:
        _fail(
            ngettext(
                "--bots: give one level for the {count} opponent, not {given}",
                "--bots: give one level per opponent ({count} opponents), not {given}",
                players - 1,
            ).format(count=players - 1, given=len(levels))
        )
    for level in levels:
        try:
            make_bot(level)
        except ChinchonError as exc:
            _fail(translate_error(exc))
    _terminal_or_exit()
    names = [name or _("You"), *(_("Bot {number}").format(number=n) for n in range(1, players))]
    settings = Settings(
        preset=rules_label(preset, rule),
        bots=tuple(levels),
        seed=seed if seed is not None else secrets.randbelow(2**31),
        speed=0.8 if speed is None else speed,
    )
    try:
        unfinished = Session.resume(store)
    except ChinchonError:
        unfinished = None  # a damaged save: the new match replaces it
    try:
        # With an unfinished match saved, the new one is saved only if the player chooses it.
        session = Session.start(settings, names, chosen, store if unfinished is None else None)
    except ChinchonError as exc:
        _fail(translate_error(exc))
    ChinchonApp(session, speed=speed, unfinished=unfinished).run()


def _set_aside(session: Any, players: int | None, bots: str | None, seed: int | None, name: str | None) -> list[str]:
    """The options of ``play --resume`` that the saved match does not take (``--players 3``), as given."""
    aside = []
    if players is not None and players != session.match.players:
        aside.append(f"--players {players}")
    if bots is not None:
        levels = [level.strip() for level in bots.split(",")]
        opponents = len(session.settings.bots)
        if (levels * opponents if len(levels) == 1 else levels) != list(session.settings.bots):
            aside.append(f"--bots {bots}")
    if seed is not None and seed != session.settings.seed:
        aside.append(f"--seed {seed}")
    if name is not None and name != session.match.names[session.human]:
        aside.append(f"--name {printable(name)}")
    return aside


def has_terminal() -> bool:
    """Whether standard input and output are a terminal: the game reads its keys from one and draws on it."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _terminal_or_exit() -> None:
    """Fail with one line unless there is a terminal to play in (a script or a service has none)."""
    if not has_terminal():
        _fail(_("chinchon play needs a terminal: its standard input and output must both be one"))


def _is_text(name: str) -> bool:
    """Whether a name can be shown: no byte that was not UTF-8 (a lone surrogate) and no control character."""
    return printable(name) == name


_MOST_BENCH_SECONDS = 3600
"""The longest time ``chinchon bench`` spends on one figure (an hour)."""


def _unwritable(path: str) -> str | None:
    """Why a file could not be written at ``path``, or ``None``; found out without creating it."""
    target = Path(os.path.realpath(path))
    if target.is_dir():
        return os.strerror(errno.EISDIR)
    if target.exists() and not target.is_file():
        return _("not a regular file")  # a FIFO or a device: never replaced by a report
    folder = target.parent
    if not folder.is_dir():
        return os.strerror(errno.ENOENT)
    # The report is written beside the file and moved over it (see write_whole): both must be allowed.
    if target.exists() and not os.access(target, os.W_OK):
        return os.strerror(errno.EACCES)
    return None if os.access(folder, os.W_OK | os.X_OK) else os.strerror(errno.EACCES)


def figure_lines(name: str, figure: str, width: int) -> list[str]:
    """A measured figure under its name, in lines of at most ``width`` columns (more only for a longer figure).

    The names line up in a column of 48 (less on a narrow terminal); a name too long for the line
    wraps between words, and the figure ends its last line: a number is never cut in two.

    >>> figure_lines("random play", "      792.17 hands/s", 80)
    ['random play                                            792.17 hands/s']
    >>> figure_lines("loop floor: a do-nothing deal, 252 actions a hand", "    4,713.71 hands/s", 60)
    ['loop floor: a do-nothing deal, 252', 'actions a hand                        4,713.71 hands/s']
    """
    room = max(12, width - cell_len(figure) - 1)
    parts = textwrap.wrap(name, room) or [""]
    last = parts[-1] + " " * (min(48, room) - cell_len(parts[-1]))
    return [*parts[:-1], f"{last} {figure}"]


@app.command(cls=_Command, short_help="The engine's own speed.")
def bench(
    seconds: Annotated[float, typer.Option("--seconds", help="CPU seconds for each figure.")] = 2.0,
    as_json: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """The engine's own speed: solver, random play, copies and search (no peers needed)."""
    _setup(lang, "fournier")
    if not 0 < seconds <= _MOST_BENCH_SECONDS:
        _fail(_("--seconds must be more than 0 and at most {most}").format(most=_MOST_BENCH_SECONDS))
    from chinchon.benchmark import MEASURES, measure_figures

    try:
        from chinchon.env import env_steps_per_second
    except ImportError:
        env_steps_per_second = None  # type: ignore[assignment]
    measures = MEASURES + (2 if env_steps_per_second is not None else 0)
    width = shutil.get_terminal_size().columns
    # On standard error, so that standard output stays the figures alone.
    notice = _("Measuring: about {total} s of CPU time in all; each line comes as soon as it is measured.")
    for part in textwrap.wrap(notice.format(total=f"{seconds * measures:.0f}"), max(20, width)):
        typer.echo(for_terminal(part), err=True)
    figures: list[dict[str, object]] = []

    def show(name: str, value: float, unit: str) -> None:
        if as_json:
            figures.append({"figure": name, "value": value, "unit": unit})
            return
        for part in figure_lines(name, f"{value:12,.2f} {unit}", width):
            typer.echo(for_terminal(part))

    for name, value, unit in measure_figures(seconds):
        show(name, value, unit)
    if env_steps_per_second is None:
        typer.echo(
            _("environment steps: install the rl extra (pip install 'chinchon[rl]') to measure them"), err=as_json
        )
    else:
        for players in (2, 4):
            name = _("environment steps, {players} players (random masked)").format(players=players)
            show(name, env_steps_per_second(players, seconds), _("steps/s"))
    if as_json:
        typer.echo(_json({"seconds": seconds, "figures": figures}), nl=False)


# -- chinchon serve ------------------------------------------------------------------


@app.command(cls=_Command)
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="Database URL: sqlite+aiosqlite:///file.db or postgresql+asyncpg://user@host/name"
            " (default: server.db in the user data directory, or in CHINCHON_DATA_DIR).",
        ),
    ] = None,
    grace: Annotated[
        float, typer.Option("--grace", help="Seconds a player may be away before a bot plays the seat.")
    ] = 30.0,
    origin: Annotated[
        list[str] | None,
        typer.Option("--origin", help="Another web origin allowed to open WebSockets (repeatable)."),
    ] = None,
    bot_workers: Annotated[int, typer.Option("--bot-workers", help="Processes the bots think in.")] = 2,
    bot_nice: Annotated[
        int,
        typer.Option(
            "--bot-nice",
            min=0,
            max=19,
            help="How much lower the bot processes' scheduling priority is than the server's (0: the same),"
            " so that people's moves are answered before bots think.",
        ),
    ] = 10,
    bot_delay: Annotated[
        float, typer.Option("--bot-delay", help="Seconds a bot waits before it moves, so that people can follow.")
    ] = 0.5,
    rooms_per_minute: Annotated[
        float, typer.Option("--rooms-per-minute", min=0.1, help="Rooms one address may create a minute.")
    ] = 10.0,
    lookups_per_minute: Annotated[
        float, typer.Option("--lookups-per-minute", min=0.1, help="Room codes one address may look up a minute.")
    ] = 30.0,
    request_timeout: Annotated[
        float,
        typer.Option(
            "--request-timeout",
            min=1,
            max=600,
            help="Seconds a connection may take to send a whole HTTP request before it is closed.",
        ),
    ] = 10.0,
    hello_timeout: Annotated[
        float,
        typer.Option(
            "--hello-timeout", min=1, max=600, help="Seconds a WebSocket may take to say hello before it is closed."
        ),
    ] = 5.0,
    connections_per_address: Annotated[
        int,
        typer.Option(
            "--connections-per-address",
            min=0,
            help="Connections one address may hold open at once (0: no cap; behind a proxy, all are the proxy's).",
        ),
    ] = 100,
    gc_thaw: Annotated[
        float,
        typer.Option(
            "--gc-thaw",
            min=0,
            max=86400,
            help="Seconds between full garbage collections that look at every long-lived object (0: the collector"
            " sees them all, every time; slower to answer with many rooms).",
        ),
    ] = 600.0,
    https: Annotated[
        bool,
        typer.Option(
            "--https",
            help="The server is reached over HTTPS (through a TLS proxy): its answers tell browsers to keep to HTTPS.",
        ),
    ] = False,
    rules: Annotated[
        str, typer.Option("--rules", "-r", help="Rule preset of the rooms whose creation names no rules.")
    ] = "fournier",
    rule: RuleOption = None,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error.")] = "info",
    log_json: Annotated[bool, typer.Option("--log-json", help="Log one JSON object a line.")] = False,
    lang: LangOption = None,
) -> None:
    """Run the multiplayer server: rooms that friends join with a code."""
    _setup(lang, "fournier")
    default_rules = rules_or_exit(rules, rule)
    if log_level.lower() not in ("debug", "info", "warning", "error"):
        _fail(_("--log-level must be debug, info, warning or error, not {value}").format(value=log_level))
    if not 0 < port < 65536:
        _fail(_("--port must be from 1 to 65535, not {value}").format(value=port))
    if not 0 <= grace <= 3600:
        _fail(_("--grace must be from 0 to 3600 seconds, not {value}").format(value=grace))
    if not 0 <= bot_delay <= 10:
        _fail(_("--bot-delay must be from 0 to 10 seconds, not {value}").format(value=bot_delay))
    if not 1 <= bot_workers <= 64:
        _fail(_("--bot-workers must be from 1 to 64, not {value}").format(value=bot_workers))
    import uvicorn

    from chinchon.server.app import create_app
    from chinchon.server.connections import uvicorn_config
    from chinchon.server.logs import setup_logging
    from chinchon.server.rooms import ServerSettings
    from chinchon.tui.storage import data_dir

    if db is None:
        folder = data_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _fail(_("cannot create {file}: {error}").format(file=folder, error=exc.strerror or exc))
        db = f"sqlite+aiosqlite:///{folder / 'server.db'}"
    settings = ServerSettings(
        db=db,
        grace=grace,
        origins=tuple(origin or ()),
        bot_workers=bot_workers,
        bot_delay=bot_delay,
        default_rules=default_rules,
    )
    settings.rooms_per_minute, settings.lookups_per_minute = rooms_per_minute, lookups_per_minute
    settings.request_timeout, settings.hello_timeout = request_timeout, hello_timeout
    settings.connections_per_address, settings.https = connections_per_address, https
    settings.gc_thaw, settings.bot_nice = gc_thaw, bot_nice
    setup_logging(log_level, log_json)
    try:
        application = create_app(settings)
    except Exception as exc:  # a bad database URL
        _fail(str(exc))
    config = uvicorn_config(application, settings, host=host, port=port, log_config=None, timeout_graceful_shutdown=10)

    shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    address = f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                typer.echo(for_terminal(_("Open {address} in a browser to play.").format(address=address)))

        async def shutdown(self, sockets: Any = None) -> None:
            # Uvicorn closes the WebSockets (1012) before the lifespan's shutdown: say "closing" first.
            await application.state.hub.shut(1012)
            await super().shutdown(sockets)

    Server(config).run()


# -- chinchon db ---------------------------------------------------------------------

db_app = typer.Typer(
    help="The server's database: bring its schema up to date.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="Database URL, as `chinchon serve --db` takes it (default: server.db in the user data directory).",
        ),
    ] = None,
    lang: LangOption = None,
) -> None:
    """Run the database's migrations up to the newest (`chinchon serve` runs them at start too)."""
    import asyncio

    from chinchon.server.store import Store, StoreError
    from chinchon.tui.storage import data_dir

    _setup(lang, "fournier")
    if db is None:
        folder = data_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _fail(_("cannot create {file}: {error}").format(file=folder, error=exc.strerror or exc))
        db = f"sqlite+aiosqlite:///{folder / 'server.db'}"

    async def upgrade() -> str | None:
        store = Store(db)
        try:
            await store.open()
            return await store.revision()
        finally:
            await store.close()

    try:
        revision = asyncio.run(upgrade())
    except StoreError as exc:
        _fail(str(exc))
    typer.echo(for_terminal(_("The database is at revision {revision}.").format(revision=revision)))


def main() -> None:
    """Run the ``chinchon`` program (the console script and ``python -m chinchon``)."""
    app(prog_name="chinchon")
