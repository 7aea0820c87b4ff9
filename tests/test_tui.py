"""The terminal game, played through its keys and mouse with stacked decks and instant bots.

Whole hands and short matches (drawing from each pile, discarding, closing
with a chosen arrangement, laying off, the results, re-entry, the end of
the match); snapshots of the main screens in English and Arabic; that no
hidden card of an opponent is ever on the screen; that ``--resume``
restores the exact match; and ``chinchon rules`` and ``chinchon play``'s
errors.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot
from typer.testing import CliRunner

from chinchon.actions import Close, Draw, LayOff, Show
from chinchon.cards import Card, parse_cards
from chinchon.cli import EXIT_BAD_INPUT
from chinchon.cli import app as cli
from chinchon.deal import stack_deck
from chinchon.i18n import get_language, set_language
from chinchon.observation import Phase
from chinchon.rules import Rules
from chinchon.tui.app import ChinchonApp
from chinchon.tui.rules_text import rules_paragraphs
from chinchon.tui.screens import ChoiceScreen, EndScreen, InfoScreen, QuitScreen, ReEntryScreen
from chinchon.tui.session import Session
from chinchon.tui.storage import DATA_DIR_VARIABLE, Settings, StorageError, Store
from tests.test_showdown import after_a_close

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _english_and_a_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test starts in English, saves into its own directory, and sees no NO_COLOR."""
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "data"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    set_language("en")
    yield
    set_language("en")


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def session_for(
    preset: str,
    decks: Sequence[Sequence[Card]],
    *,
    scores: Sequence[int] | None = None,
    players: int = 2,
    store: Store | None = None,
    seed: int = 11,
) -> Session:
    """A match of the player (seat 0, first to play) against ``simple`` bots, from stacked decks."""
    rules = Rules.preset(preset)
    settings = Settings(preset=preset, bots=("simple",) * (players - 1), seed=seed, speed=0)
    names = ["Ana", *(f"Bot {n}" for n in range(1, players))]
    return Session.start(settings, names, rules, store or Store(), scores=scores, first=0, decks=decks)


def run(app: ChinchonApp, script: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    """Run the app headless at 80x24 and play the script in it."""

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await script(pilot)

    asyncio.run(main())


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until the bots have played and the game waits for the player."""
    app = pilot.app
    assert isinstance(app, ChinchonApp)
    for _ in range(2000):
        await pilot.pause()
        if app.idle:
            await pilot.pause()
            if app.idle:
                return
    raise AssertionError("the game never waited for the player")


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys, letting the game settle after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def screen_text(app: ChinchonApp) -> str:
    """Everything on the screen, as text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def key_of(index: int) -> str:
    return str(index + 1)


# -- the decks ---------------------------------------------------------------------------------

FOURNIER = Rules()

# Deal 1 (Ana first): Ana takes Q♣ from the discard pile and throws it back, the bot draws
# 5♦ and throws a king, Ana draws 6♥ from the stock and closes.
DEAL_1 = stack_deck(
    FOURNIER,
    [cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♣"), cards("2♣ 2♠ 4♣ 4♠ K♦ K♠ J♦")],
    discard=Card.parse("Q♣"),
    stock=cards("5♦ 6♥"),
)
# Deal 2 (the bot first): the bot draws J♦ and closes with A♦ loose; Ana shows her kings
# and lays off 6♠, 7♠ and 2♠ on the bot's melds, keeping Q♥ (9 points).
DEAL_2 = stack_deck(
    FOURNIER,
    [cards("3♠ 4♠ 5♠ 2♣ 2♦ 2♥ A♦"), cards("6♠ 7♠ 2♠ K♥ K♦ K♣ Q♥")],
    discard=Card.parse("J♣"),
    stock=cards("J♦"),
)

TAKEN_QUEEN = "8"
"""The key of Q♣ once Ana has taken it from DEAL_1's discard pile (her hand sorted by suit)."""

CLASICO = Rules.preset("clasico")
# Deal 1 (Ana first): Ana has nothing, draws 2♣ and throws K♣; the bot closes with every
# card matched; Ana goes out and re-enters.
CLASICO_1 = stack_deck(
    CLASICO,
    [cards("K♣ Q♦ J♠ 9♥ 8♣ K♥ Q♠"), cards("3♠ 4♠ 5♠ 6♠ 7♦ 7♣ 7♥")],
    discard=Card.parse("A♣"),
    stock=cards("2♣ 5♥"),
)
# Deal 2 (the bot first): the bot draws 8♦ and makes a chinchón, which wins the match.
CLASICO_2 = stack_deck(
    CLASICO,
    [cards("2♦ 3♦ 4♦ 5♦ 6♦ 7♦ K♣"), cards("9♣ 9♠ J♥ Q♥ A♠ 3♣ 5♣")],
    discard=Card.parse("Q♣"),
    stock=cards("8♦"),
)


# -- whole hands and matches ---------------------------------------------------------------------


def test_a_whole_match_with_layoffs() -> None:
    """Draw from each pile, discard, close with a chosen arrangement, lay off, see the scores, lose."""
    session = session_for("fournier", [DEAL_1, DEAL_2], scores=[95, 60])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        assert "Your turn: draw from the stock (s) or take Q♣ from the discard pile (d)." in screen_text(app)
        # Take Q♣ from the discard pile: nothing is picked, so Enter throws nothing back.
        await press(pilot, "d")
        assert session.observation().phase is Phase.DISCARD
        assert app.table.picked is None
        await press(pilot, "enter")
        assert session.observation().phase is Phase.DISCARD
        assert "Pick a card first" in screen_text(app)
        await press(pilot, key_of(app.table.shown.index(Card.parse("Q♣"))), "enter")
        assert "You took Q♣ from the discard pile" in session.log
        assert "You discarded Q♣" in session.log
        assert "Bot 1 drew from the stock" in session.log
        # The bot threw a king; Ana draws 6♥ from the stock and may close.
        await press(pilot, "s")
        assert "You drew 6♥ from the stock" in session.log
        assert "You can close!" in screen_text(app)
        await press(pilot, "c")
        assert isinstance(app.screen, ChoiceScreen)
        closes = [a for a in session.observation().legal_actions if isinstance(a, Close)]
        # Not the best close: 3♥ face down, A♣ loose.
        chosen = next(i for i, a in enumerate(closes) if a.discard == Card.parse("3♥") and len(a.melds or ()) == 2)
        await press(pilot, key_of(chosen))
        # The bot shows and lays off; then the deal's results.
        assert isinstance(app.screen, InfoScreen)
        text = screen_text(app)
        assert "Deal 1 is over" in text
        assert "You closed with 1 point" in text
        assert "You put 3♥ face down." in text
        assert "limit 100" in text
        assert session.match.scores[0] == 96
        bot_total = session.match.scores[1]
        assert bot_total <= 100
        await press(pilot, "enter")
        # Deal 2: the bot closes; Ana shows her kings and lays off by hand, then lets the game finish.
        assert isinstance(app.screen, ChoiceScreen)
        text = screen_text(app)
        assert "A♦" not in text and "J♦" not in text  # the bot's loose card and face-down card
        shows = [a for a in session.observation().legal_actions if isinstance(a, Show)]
        kings = next(i for i, a in enumerate(shows) if a.melds == (tuple(cards("K♦ K♥ K♣")),))
        await press(pilot, key_of(kings))
        assert "You showed [K♦ K♥ K♣]" in session.log
        assert isinstance(app.screen, ChoiceScreen)
        layoffs = list(session.observation().legal_actions)
        six = next(i for i, a in enumerate(layoffs) if isinstance(a, LayOff) and a.card == Card.parse("6♠"))
        await press(pilot, key_of(six))
        assert "You laid off 6♠: [3♠ 4♠ 5♠ 6♠] (Bot 1)" in session.log
        await press(pilot, "a")  # the game lays off 7♠ and 2♠
        assert any(line.startswith("You laid off 7♠") for line in session.log)
        assert isinstance(app.screen, InfoScreen)
        text = screen_text(app)
        assert "Bot 1 closed with 1 point" in text
        assert "J♦" not in text and "Bot 1 put" not in text  # the closer's face-down card stays hidden
        # The bot's row shows its own six melded cards; Ana's lay-offs are told apart.
        assert "[2♦ 2♥ 2♣] [3♠ 4♠ 5♠]  A♦" in text
        assert "You laid off 6♠ 2♠ 7♠ on the melds of Bot 1." in text
        assert "+9" in text
        assert session.match.scores == [105, bot_total + 1]
        await press(pilot, "enter")
        # Out above the limit, no re-entry in fournier: the bot wins.
        assert isinstance(app.screen, EndScreen)
        assert "Bot 1 wins the match!" in screen_text(app)
        await press(pilot, "q")

    run(app, script)
    assert session.match.over and session.match.winner == 1


def test_a_short_clasico_match_with_reentry() -> None:
    """Go out, re-enter at the highest total, and lose to a chinchón; then play again."""
    session = session_for("clasico", [CLASICO_1, CLASICO_2], scores=[98, 90])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s")
        king = app.table.shown.index(Card.parse("K♣"))
        await press(pilot, key_of(king), "enter")
        assert isinstance(app.screen, InfoScreen)
        assert "Bot 1 closed with every card matched (-10)" in screen_text(app)
        await press(pilot, "enter")
        assert isinstance(app.screen, ReEntryScreen)
        assert "Re-enter with 80 points" in screen_text(app)
        await press(pilot, "y")
        assert "You re-entered with 80 points" in session.log
        # Deal 2: the bot's chinchón wins the match at once.
        assert session.match.scores == [80 + 47, 80 - 10]
        assert isinstance(app.screen, InfoScreen)
        assert "★ Bot 1 made a chinchón! ★" in screen_text(app)
        assert "Chinchón! Deal 2 is over" in screen_text(app)
        await press(pilot, "enter")
        assert isinstance(app.screen, EndScreen)
        assert "Bot 1 wins the match!" in screen_text(app)
        await press(pilot, "n")
        assert app.session is not session
        assert app.session.match.scores == [0, 0]
        await press(pilot, "q")
        assert isinstance(app.screen, QuitScreen)
        await press(pilot, "y")

    run(app, script)
    assert session.match.winner == 1


def test_a_card_taken_from_the_discard_pile_is_not_picked() -> None:
    """The discard trap: Enter right after taking the pile's card does not throw it back."""
    session = session_for("fournier", [DEAL_1, DEAL_2])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "d", "enter", "enter")
        assert session.observation().phase is Phase.DISCARD
        assert Card.parse("Q♣") in session.observation().hand
        assert "You discarded Q♣" not in session.log
        assert "Pick a card first" in screen_text(app)
        assert app.table.new_card == Card.parse("Q♣")  # still marked as the card just taken
        await pilot.click("#card-7")
        await settle(pilot)
        assert app.table.picked == Card.parse("Q♣")

    run(app, script)


def test_drawing_twice_is_told_as_a_sentence_for_the_player() -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s", "d")
        text = screen_text(app)
        assert "You have drawn: now discard a card (pick it, Enter) or close (c)." in text
        assert "discard or close" not in text

    run(app, script)


@pytest.mark.parametrize(("language", "yes", "no"), [("es", "s", "n"), ("fr", "o", "n"), ("pl", "t", "n")])
def test_the_keys_for_yes_and_no_follow_the_language(language: str, yes: str, no: str) -> None:
    """Re-entry is answered with the language's yes; the quit box shows its keys and takes them."""
    set_language(language)
    session = session_for("clasico", [CLASICO_1, CLASICO_2], scores=[98, 90])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s")
        await press(pilot, key_of(app.table.shown.index(Card.parse("K♣"))), "enter", "enter")
        assert isinstance(app.screen, ReEntryScreen)
        assert f" {yes} " in screen_text(app).replace("\n", " ")
        await press(pilot, yes)
        assert session.match.scores[0] == 80 + 47  # re-entered at 80, then the bot's chinchón
        await press(pilot, "enter", "n", "q")  # past the results and the end: a new match, then quit
        assert isinstance(app.screen, QuitScreen)
        await press(pilot, no)
        assert not isinstance(app.screen, QuitScreen)
        await press(pilot, "q", yes)

    run(app, script)


def test_the_mouse_draws_picks_and_discards() -> None:
    """Clicking the stock draws, clicking a card picks it, clicking it again discards it."""
    session = session_for("fournier", [DEAL_1, DEAL_2])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await pilot.click("#stock")
        await settle(pilot)
        assert "You drew 5♦ from the stock" in session.log
        assert app.table.picked == Card.parse("5♦")  # the card drawn is picked
        await pilot.click("#card-1")
        await settle(pilot)
        second = app.table.shown[1]
        assert app.table.picked == second
        await pilot.click("#card-1")
        await settle(pilot)
        assert f"You discarded {second}" in session.log
        await pilot.click("#discard")
        await settle(pilot)
        assert session.observation().phase is Phase.DISCARD
        assert session.log[-1].startswith("You took")

    run(app, script)


def test_sorting_and_moving_cards() -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        assert app.table.shown == sorted(app.table.shown)
        await press(pilot, "o")
        ranks = [card.rank for card in app.table.shown]
        assert ranks == sorted(ranks)  # type: ignore[type-var]
        assert "sorted by rank" in screen_text(app)
        await press(pilot, "1", "shift+right")
        assert "in your order" in screen_text(app)
        assert app.table.shown[1] == app.table.picked
        await press(pilot, "o")
        assert "sorted by suit" in screen_text(app)

    run(app, script)


# -- no hidden card on the screen ----------------------------------------------------------------


def test_the_screen_never_shows_a_hidden_card() -> None:
    """At every turn of a whole deal, no opponent's card that Ana cannot know is on the screen."""
    session = session_for("fournier", [], players=3, seed=4)
    app = ChinchonApp(session)

    def check() -> None:
        observation = session.observation()
        if observation.deal_number != 1:
            return  # the deal is over: every hand has been shown
        text = screen_text(app)
        deal = session.match.deal
        for seat in (1, 2):
            hidden = Counter(deal.hand(seat)) - Counter(observation.taken[seat])
            for card in hidden:
                assert str(card) not in text, (card, text)

    async def script(pilot: Pilot[Any]) -> None:
        turns = 0
        for turn in range(6):
            if session.observation().deal_number != 1 or not session.human_to_move():
                break
            check()
            await press(pilot, "s" if turn % 2 else "d")
            check()
            if turn < 2:
                await press(pilot, "h")  # the discard pile's history
                check()
                await press(pilot, "escape")
            await press(pilot, "1", "enter")
            turns += 1
        check()
        assert turns >= 3

    run(app, script)


def test_no_color_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """With NO_COLOR the app draws in monochrome; melds still show by their letters, the pick by its border."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))
    assert app.no_color


def test_the_cards_an_opponent_took_are_shown() -> None:
    """A card a bot takes from the discard pile is known to be in its hand, and the table says so."""
    deal = stack_deck(
        FOURNIER,
        [cards("5♦ K♣ Q♦ J♠ 2♥ 4♣ 6♠"), cards("5♥ 5♠ A♣ 3♦ 7♥ K♥ J♣")],
        discard=Card.parse("2♠"),
        stock=cards("Q♠"),
    )
    session = session_for("fournier", [deal])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s", key_of(app.table.shown.index(Card.parse("5♦"))), "enter")
        assert "Bot 1 took 5♦ from the discard pile" in session.log
        assert "Bot 1 (simple) · 7 cards · total 0 · dealer · holds 5♦" in screen_text(app)

    run(app, script)


# -- saving and resuming --------------------------------------------------------------------------


def test_resume_restores_the_exact_match() -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2], scores=[95, 60])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "q")
        assert isinstance(app.screen, QuitScreen)
        await press(pilot, "y")

    run(app, script)
    store = Store()
    assert store.record_path.exists()
    resumed = Session.resume(store)
    assert resumed is not None
    assert resumed.match.record() == session.match.record()
    assert resumed.observation() == session.observation()
    assert resumed.settings == session.settings
    again = ChinchonApp(resumed)
    before = list(session.observation().hand)

    async def check(pilot: Pilot[Any]) -> None:
        assert sorted(again.table.shown) == sorted(before)
        assert "You can close!" in screen_text(again)

    run(again, check)


# Deal 1 (Ana first): Ana takes Q♣ and throws it back, the bot throws a king, Ana draws 6♥ and closes
# with 3♥ loose; the bot lays off 7♥ on her run.
LAID_ON_ANA = stack_deck(
    FOURNIER,
    [cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♣"), cards("2♣ 2♠ 4♣ 4♠ K♦ K♠ 7♥")],
    discard=Card.parse("Q♣"),
    stock=cards("5♦ 6♥"),
)


def test_the_results_tell_the_player_in_the_second_person() -> None:
    """A bot's lay-off on the player's melds is on "your melds", not on the melds of the player's name."""
    session = session_for("fournier", [LAID_ON_ANA, DEAL_2], scores=[50, 60])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "d")
        await press(pilot, key_of(app.table.shown.index(Card.parse("Q♣"))), "enter", "s", "c")
        closes = [a for a in session.observation().legal_actions if isinstance(a, Close)]
        loose_three = next(
            i for i, a in enumerate(closes) if Card.parse("3♥") not in [c for m in a.melds or () for c in m]
        )
        await press(pilot, key_of(loose_three))
        assert isinstance(app.screen, InfoScreen)
        text = " ".join(screen_text(app).split())
        assert "Bot 1 laid off 7♥ on your melds." in text
        assert "melds of Ana" not in text

    run(app, script)


def test_replay_of_the_players_own_save_says_you(tmp_path: Path) -> None:
    """The name chinchon play gives the player ("You", in any language) is told as "you", with a file or not."""
    settings = Settings(preset="fournier", bots=("simple",), seed=11, speed=0)
    store = Store()
    session = Session.start(settings, ["You", "Bot 1"], Rules(), store, scores=[50, 60], first=0, decks=[LAID_ON_ANA])
    for key in ("d", "Q♣", "s", "close"):
        actions = session.observation().legal_actions
        if key == "d":
            session.play(Draw("discard"), 0)
        elif key == "Q♣":
            session.play(next(a for a in actions if str(a) == "discard Q♣"), 0)
            while session.bot_to_move() is not None:
                seat = session.bot_to_move()
                assert seat is not None
                session.play(session.choose(seat, session.match.observation(seat)), seat)
        elif key == "s":
            session.play(Draw("stock"), 0)
        else:
            close = next(a for a in actions if isinstance(a, Close) and len((a.melds or ((),))[0]) == 3)
            session.play(close, 0)
    session.match.resolve_showdown()
    session.save()
    copy = tmp_path / "kept.json"
    copy.write_bytes(store.record_path.read_bytes())
    for args in (["replay"], ["replay", str(store.record_path)], ["replay", str(copy)]):
        result = CliRunner().invoke(cli, [*args, "--lang", "en"])
        assert result.exit_code == 0, result.output
        assert "Deal 1: you play first" in result.output and "You were dealt" in result.output
        assert "You plays" not in result.output and "You was" not in result.output
        assert "laid off 7♥ on your meld: [4♥ 5♥ 6♥ 7♥]" in result.output
    # Saved in Spanish, read in English: still the player.
    spanish = Session.start(settings, ["Tú", "Bot 1"], Rules(), None, first=0, decks=[LAID_ON_ANA])
    (tmp_path / "tu.json").write_text(json.dumps(spanish.match.record()), "utf-8")
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "tu.json"), "--lang", "en"])
    assert "Deal 1: you play first" in result.output and "Tú plays" not in result.output


def test_replay_reads_the_saved_match() -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2], scores=[95, 60])
    result = CliRunner().invoke(cli, ["replay", str(session.store.record_path if session.store else "")])
    assert result.exit_code == 0, result.output
    assert "Deal 1: you play first" in result.output  # the saved match, given as a file: still the player's


def test_play_without_options(launched: list[ChinchonApp]) -> None:
    """Two strong bots, fournier rules, the language of the environment."""
    result = CliRunner().invoke(cli, ["play"], env={"LANGUAGE": "", "LC_ALL": "", "LANG": "es_ES.UTF-8"})
    assert result.exit_code == 0, result.output
    session = launched[0].session
    assert session.settings.bots == ("strong", "strong")
    assert session.settings.preset == "fournier"
    assert session.match.rules == Rules()
    assert len(session.match.names) == 3
    assert get_language() == "es"


def test_play_with_options(launched: list[ChinchonApp]) -> None:
    # An old level's name (hard) still plays, as the level it became.
    args = ["play", "--players", "4", "--bots", "beginner,hard,skilled", "--rules", "clasico", "--name", "Eva"]
    result = CliRunner().invoke(cli, [*args, "--seed", "7", "--speed", "0.2", "--lang", "pt"])
    assert result.exit_code == 0, result.output
    session = launched[0].session
    assert session.settings == Settings(preset="clasico", bots=("beginner", "hard", "skilled"), seed=7, speed=0.2)
    assert [bot.name for bot in session.bots.values()] == ["beginner", "strong", "skilled"]
    assert session.match.names[0] == "Eva"
    assert session.match.rules == Rules.preset("clasico")
    assert launched[0].speed == 0.2


def test_play_resume_continues_the_saved_match(launched: list[ChinchonApp]) -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2], scores=[95, 60])
    session.play(Draw("stock"), 0)
    result = CliRunner().invoke(cli, ["play", "--resume", "--lang", "en", "--speed", "0"])
    assert result.exit_code == 0, result.output
    resumed = launched[0].session
    assert resumed.match.record() == session.match.record()
    assert launched[0].speed == 0


def test_play_without_a_terminal_says_so_and_exits_2(tmp_path: Path) -> None:
    """Input from /dev/null and output to a file (a script, a cron job): one line and status 2, not a spinning game."""
    saved = session_for("fournier", [DEAL_1, DEAL_2])
    store = saved.store
    assert store is not None
    before = store.record_path.read_bytes(), store.settings_path.read_bytes()
    env = {**os.environ, DATA_DIR_VARIABLE: str(store.directory), "LANGUAGE": "en"}
    for args in (["play"], ["play", "--resume"]):
        with (tmp_path / "out.txt").open("w") as out:
            result = subprocess.run(
                [sys.executable, "-m", "chinchon", *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                timeout=60,
            )
        assert result.returncode == EXIT_BAD_INPUT, result.stderr
        needs = "chinchon play needs a terminal: its standard input and output must both be one"
        assert result.stderr == f"error: {needs}\n"
        assert (tmp_path / "out.txt").read_text() == ""
    # The saved match is as it was: nothing was played, nothing replaced.
    assert (store.record_path.read_bytes(), store.settings_path.read_bytes()) == before


def test_resume_without_a_saved_match_is_an_error() -> None:
    result = CliRunner().invoke(cli, ["play", "--resume", "--lang", "en"])
    assert result.exit_code == EXIT_BAD_INPUT
    assert "there is no unfinished match to resume" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "5"], "the fournier rules play with 2 to 4 players, not 5"),
        (["--players", "3", "--bots", "casual,regular,strong"], "give one level per opponent (2 opponents), not 3"),
        (["--bots", "champion"], "unknown bot 'champion'"),
        (
            ["--bots", "ismcts:iterations=abc"],
            "the bot parameter iterations must be a whole number, 1 or more, not abc",
        ),
        (["--speed", "-1"], "--speed must be from 0 to 60 seconds, not -1.0"),
        (["--speed", "inf"], "--speed must be from 0 to 60 seconds, not inf"),
        (["--speed", "nan"], "--speed must be from 0 to 60 seconds, not nan"),
        (["--name", "\udcff"], "--name: a name is text (UTF-8) without control characters"),
        (["--name", "Ana\x1b]0;owned\x07"], "--name: a name is text (UTF-8) without control characters"),
    ],
)
def test_play_refuses_bad_options(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["play", *args, "--lang", "en"])
    assert result.exit_code == EXIT_BAD_INPUT
    assert message in result.stderr


# -- the rules --------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", Rules.presets())
def test_rules_command_prints_the_preset(preset: str) -> None:
    result = CliRunner().invoke(cli, ["rules", preset, "--lang", "en"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert f"Rules: {preset}" in result.output
    assert len(rules_paragraphs(Rules.preset(preset))) == 12


def test_rules_say_what_the_options_make() -> None:
    clasico = " ".join(rules_paragraphs(Rules.preset("clasico")))
    assert "48 cards" in clasico
    assert "may re-enter once" in clasico
    assert "wins the match at once" in clasico
    assert "At most 1 card may be left loose." in clasico
    assert "There are no lay-offs" in clasico
    polaco = " ".join(rules_paragraphs(Rules.preset("polaco")))
    assert "any number of times" in polaco
    assert "highest starts" in polaco
    assert "1 chip" in polaco


# -- snapshots ---------------------------------------------------------------------------------------


def _snapshot_app(preset: str = "fournier") -> ChinchonApp:
    decks = [DEAL_1, DEAL_2] if preset == "fournier" else [CLASICO_1, CLASICO_2]
    scores = [95, 60] if preset == "fournier" else [98, 90]
    return ChinchonApp(session_for(preset, decks, scores=scores))


def test_snapshot_table(snap_compare: Any) -> None:
    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=settle)


def test_snapshot_may_close(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_closing_options(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "c")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_results(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "c", "1")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_layoffs(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "c", "1", "enter", "1")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_reentry(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "s", "1", "enter", "enter")

    assert snap_compare(_snapshot_app("clasico"), terminal_size=SIZE, run_before=before)


def test_snapshot_end(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "s", "1", "enter", "enter", "y", "enter")

    assert snap_compare(_snapshot_app("clasico"), terminal_size=SIZE, run_before=before)


def test_snapshot_help(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "question_mark")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_table_in_arabic(snap_compare: Any) -> None:
    set_language("ar")

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_results_in_arabic(snap_compare: Any) -> None:
    set_language("ar")

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "c", "1")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


def test_snapshot_help_in_arabic(snap_compare: Any) -> None:
    set_language("ar")

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "question_mark")

    assert snap_compare(_snapshot_app(), terminal_size=SIZE, run_before=before)


# -- what the player is helped with and told ------------------------------------------------------


def _showdown_after_a_close(bot1: str) -> Session:
    """Bot 2 closes at once; Ana (seat 0) then shows first, and Bot 1 holds ``bot1``."""
    ana, closer = "J♥ J♠ J♦ J♣ Q♥ A♠ 2♠", "4♥ 5♥ 6♥ K♦ K♠ K♣ A♣"
    match = after_a_close(Rules(), closer, [ana, bot1], ["4♥ 5♥ 6♥", "K♦ K♠ K♣"])
    return Session(match, Settings(preset="fournier", bots=("simple", "simple"), seed=1, speed=0))


def test_the_showdown_helper_reads_only_the_players_observation() -> None:
    # Whether Bot 1 holds 7♥ (which would take J♥ after it) is hidden from Ana: her two observations are equal.
    holding = _showdown_after_a_close("7♥ 2♦ 3♠ 5♣ 6♠ Q♦ Q♠")
    not_holding = _showdown_after_a_close("7♣ 2♦ 3♠ 5♣ 6♠ Q♦ Q♠")
    assert holding.observation() == not_holding.observation() and holding.human_to_move()
    # The engine's own search reads every hand, and so tells them apart.
    assert holding.match.best_showdown_action() != not_holding.match.best_showdown_action()
    choice = holding.helper_choice()
    assert choice == not_holding.helper_choice() == Show((tuple(cards("J♦ J♥ J♠ J♣")),))


def test_a_failed_save_stays_in_view_and_the_quit_box_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", "utf-8")
    session = session_for("clasico", [CLASICO_1, CLASICO_2], store=Store(blocker))
    assert session.save_error is not None and "cannot write" in session.save_error
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s", "1")  # draw, then pick a card: its hint used to hide the error
        assert "cannot write" in screen_text(app)
        await press(pilot, "q")
        assert isinstance(app.screen, QuitScreen)
        text = screen_text(app)
        assert "The match could not be saved" in text and "is saved" not in text

    run(app, script)


@pytest.mark.parametrize("size", [(60, 16), (60, 20)])
def test_a_small_screen_keeps_the_hand_and_the_boxes_in_view(size: tuple[int, int]) -> None:
    from chinchon.tui.app import CardView

    width, height = size
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, "d")  # eight cards in hand, and a close to choose
            shown = [view for view in app.screen.query(CardView) if view.display]
            assert len(shown) == 8 and all(view.region.right <= width for view in shown)
            await press(pilot, "c")
            assert isinstance(app.screen, ChoiceScreen)
            box, keys = app.screen.query_one("#box"), app.screen.query_one("#keys")
            assert box.region.x >= 0 and box.region.y >= 0
            assert box.region.right <= width and box.region.bottom <= height
            assert box.region.contains_region(keys.region)

    asyncio.run(main())


def test_bot_levels_are_named_in_the_players_language() -> None:
    set_language("es")
    settings = Settings(preset="fournier", bots=("easy", "ismcts:iterations=5"), seed=3, speed=0)
    session = Session.start(settings, ["Ana", "Bot 1", "Bot 2"], Rules(), Store(), first=0)
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        text = screen_text(app)
        # A match saved with an old level's name (easy) plays and names the level it became.
        assert "Bot 1 (principiante)" in text and "Bot 2 (ismcts:iterations=5)" in text
        assert "(easy)" not in text and "(beginner)" not in text

    run(app, script)


def test_arrows_walk_past_a_card_held_twice() -> None:
    from chinchon.tui.app import CardView

    rules = Rules.preset("polaco")
    hands = [cards("A♦ 7♠ 7♠ J♠ 3♣ 5♣ K♣"), cards("2♦"), cards("3♦"), cards("4♦"), cards("5♦")]
    deck = stack_deck(rules, hands, discard=Card.parse("6♦"), stock=cards("Q♥"), decks=2)
    settings = Settings(preset="polaco", bots=("simple",) * 4, seed=1, speed=0)
    names = ["Ana", "Bot 1", "Bot 2", "Bot 3", "Bot 4"]
    session = Session.start(settings, names, rules, Store(), first=0, decks=[deck])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s", "1")
        table = app.table
        assert table.shown.count(Card.parse("7♠")) == 2
        places = []
        for _ in range(len(table.shown) + 1):
            places.append([view.index for view in app.screen.query(CardView) if view.has_class("-picked")])
            await press(pilot, "right")
        assert places == [[place % len(table.shown)] for place in range(len(table.shown) + 1)]
        # The picked copy moves one place, and the highlight goes with it.
        await press(pilot, "3", "shift+right")
        assert [view.index for view in app.screen.query(CardView) if view.has_class("-picked")] == [3]

    run(app, script)


# From 100 each, Ana closes with A♣ loose and the bot keeps A♦: both go out with 101.
BOTH_OUT = stack_deck(
    FOURNIER,
    [cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♣"), cards("K♦ K♠ K♣ Q♦ Q♠ Q♣ A♦")],
    discard=Card.parse("2♣"),
    stock=cards("J♥"),
)


def test_a_deciding_deal_shows_both_players_in_play() -> None:
    session = session_for("fournier", [BOTH_OUT], scores=[100, 100])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "s")
        closes = [a for a in session.observation().legal_actions if isinstance(a, Close)]
        choice = next(i for i, a in enumerate(closes) if a.discard == Card.parse("J♥"))
        await press(pilot, "c", key_of(choice))
        assert session.match.scores == [101, 101] and not session.match.active
        await press(pilot, "enter")  # the results; both went out with 101, so a deciding deal follows
        assert isinstance(app.screen, type(app.table)) and not session.match.over
        text = screen_text(app)
        assert "Bot 1 (simple) · 7 cards · total 101" in text
        assert "101 out" not in text and "· out ·" not in text  # the totals and the opponent's line
        assert "Tied at 101: Ana, Bot 1 play a deciding deal" in session.log

    run(app, script)


def test_the_winner_of_a_deciding_deal_is_not_shown_as_out() -> None:
    import random as random_module

    from chinchon.bots import make_bot
    from chinchon.tui.app import _in_play

    session = session_for("fournier", [BOTH_OUT], scores=[100, 100])
    bot, rng = make_bot("greedy"), random_module.Random(5)
    while not session.match.over:
        seat = session.match.to_move
        assert seat is not None
        observation = session.match.observation(seat)
        session.play(bot.choose(observation, list(observation.legal_actions), rng), seat)
    obs = session.observation()
    assert not obs.active and obs.winner is not None  # decided by the deciding deal
    assert [_in_play(obs, seat) for seat in range(2)] == [seat == obs.winner for seat in range(2)]


def test_quitting_on_a_deals_results_shows_them_again_on_resume() -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "c", "1")
        assert isinstance(app.screen, InfoScreen) and session.observation().deal_number == 2
        await press(pilot, "q", "y")

    run(app, script)
    resumed = Session.resume(Store())
    assert resumed is not None and not resumed.observation().history
    again = ChinchonApp(resumed)

    async def after(pilot: Pilot[Any]) -> None:
        assert isinstance(again.screen, InfoScreen)
        assert "Deal 1 is over" in screen_text(again)

    run(again, after)


def test_the_pot_is_shown_where_the_rules_have_stakes() -> None:
    for preset, pot in (("polaco", "Pot 3 stakes"), ("fournier", None)):
        rules = Rules.preset(preset)
        settings = Settings(preset=preset, bots=("simple", "simple"), seed=2, speed=0)
        app = ChinchonApp(Session.start(settings, ["Ana", "Bot 1", "Bot 2"], rules, Store(), first=0))

        async def script(pilot: Pilot[Any], app: ChinchonApp = app, pot: str | None = pot) -> None:
            top = screen_text(app).splitlines()[0]
            assert (pot in top) if pot else ("Pot" not in top)

        run(app, script)


def test_eight_players_keep_the_players_own_total_in_view() -> None:
    rules = Rules.preset("polaco")
    settings = Settings(preset="polaco", bots=("simple",) * 7, seed=4, speed=0)
    names = ["Ana", *(f"Bot {n}" for n in range(1, 8))]
    app = ChinchonApp(Session.start(settings, names, rules, Store(), first=0))

    async def script(pilot: Pilot[Any]) -> None:
        from chinchon.tui.app import TotalsView

        totals = app.screen.query_one(TotalsView)
        assert 0 < totals.size.height < 9
        shown = totals.render()
        assert isinstance(shown, Text)
        lines = shown.plain.splitlines()
        assert lines[1].startswith("Ana") and lines[2] == "(the others' totals: above)"
        assert "Bot 7 (simple) · 7 cards · total 0" in screen_text(app)

    run(app, script)


def test_play_asks_before_replacing_an_unfinished_match(launched: list[ChinchonApp]) -> None:
    saved = session_for("fournier", [DEAL_1, DEAL_2], scores=[40, 60])
    saved.play(Draw("stock"), 0)
    before = Store().load()
    result = CliRunner().invoke(cli, ["play", "--lang", "en", "--seed", "9", "--speed", "0.05"])
    assert result.exit_code == 0, result.output
    app = launched[0]
    assert app.unfinished is not None and app.unfinished.match.record() == saved.match.record()
    assert app.offered.store is None and Store().load() == before  # nothing replaced yet
    unfinished = app.unfinished

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "1")
        # The match goes on at the pace the command asked for, not the saved one (0).
        assert app.session is unfinished and app.speed == 0.05

    run(app, script)


@pytest.mark.parametrize(("keys", "kept"), [(["1"], True), (["escape"], True), (["2"], False)])
def test_the_player_chooses_the_unfinished_match_or_the_new_one(keys: list[str], kept: bool) -> None:
    saved = session_for("fournier", [DEAL_1, DEAL_2], scores=[40, 60])
    saved.play(Draw("stock"), 0)
    unfinished = Session.resume(Store())
    assert unfinished is not None
    settings = Settings(preset="clasico", bots=("simple",), seed=9, speed=0)
    new = Session.start(settings, ["Ana", "Bot 1"], Rules.preset("clasico"), None, first=0)
    app = ChinchonApp(new, unfinished=unfinished)

    async def script(pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, ChoiceScreen)
        text = screen_text(app)
        assert "An unfinished match is saved" in text and "totals: Ana 40, Bot 1 60" in text
        # Behind the question, the unfinished match: the new one (clasico) is not dealt in view.
        behind = "\n".join(strip.text for strip in app.table._compositor.render_strips())
        assert "fournier" in behind and "clasico" not in behind
        await press(pilot, *keys)
        current: object = app.screen  # a fresh name: mypy would keep the narrowing above
        assert current is app.table
        assert app.session is (unfinished if kept else new)

    run(app, script)
    loaded = Store().load()
    assert loaded is not None
    record, settings_saved = loaded
    chosen = unfinished if kept else new
    assert record == chosen.match.record()
    # The settings file also keeps the table as it was left (its log, order and picked card).
    assert settings_saved.played() == chosen.settings
    assert settings_saved.log and chosen.log[: len(settings_saved.log)] == list(settings_saved.log)


def test_a_saved_name_that_is_not_text_is_refused_naming_the_file() -> None:
    import hashlib
    import json

    store = Store()
    session = session_for("fournier", [DEAL_1, DEAL_2], store=store)
    assert session.store is store
    text = store.record_path.read_text("utf-8").replace('"Ana"', '"\\udcffna"')
    store.record_path.write_text(text, "utf-8")
    settings = json.loads(store.settings_path.read_text("utf-8"))
    settings["record_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    store.settings_path.write_text(json.dumps(settings), "utf-8")
    with pytest.raises(StorageError, match=f"{store.record_path}: the seat name '\\\\udcffna' is not text"):
        Session.resume(store)


@pytest.mark.parametrize(
    ("language", "size"),
    [(language, (80, 24)) for language in ("en", "es", "pt", "fr", "pl", "ar")] + [("en", (60, 20))],
)
def test_the_key_footer_and_the_help_fit_the_screen(language: str, size: tuple[int, int]) -> None:
    """The footer keeps help and quit in every phase; the help's keys column is never cut."""
    from chinchon.i18n import pgettext

    set_language(language)
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))
    help_label, quit_label = pgettext("key", "help"), pgettext("key", "quit")

    def footer() -> str:
        return str(app.table.query_one("#keys").render())

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            for keys in ([], ["s"]):  # the draw, then the discard with eight cards
                await press(pilot, *keys)
                text = footer()
                assert "?" in text and "q" in text, text
                assert (help_label in text and quit_label in text) or language == "ar", text
            await press(pilot, "question_mark")
            assert isinstance(app.screen, InfoScreen)
            text = screen_text(app)
            for key in ("← → 1-9", "⇧← ⇧→ < >", "Enter"):
                assert key in text, text
            assert "a letter (a, b, c…)" in text or language != "en" or size != (80, 24)  # else below, scrolled

    asyncio.run(main())


def test_a_screen_below_the_smallest_size_says_so_instead_of_a_broken_table() -> None:
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))

    async def main() -> None:
        async with app.run_test(size=(40, 12)) as pilot:
            await settle(pilot)
            text = screen_text(app)
            assert "The terminal is 40×12; the table" in text and "60×16" in text
            assert "╭─ 1 ─╮" not in text and "Stock" not in text
            await pilot.resize_terminal(60, 16)
            await settle(pilot)
            text = screen_text(app)
            assert "The terminal is" not in text
            assert "╭─ 1 ─╮" in text

    asyncio.run(main())


def test_once_out_the_player_plays_the_rest_at_full_speed() -> None:
    """Ana goes out at 99 points in a three-player match; f then plays the bots' match at once."""
    session = session_for("fournier", [], players=3, scores=[99, 0, 0], seed=5)
    app = ChinchonApp(session, speed=0.01)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "f")
        assert app.speed == 0.01 and "Full speed (f) is for once you are out" in screen_text(app)
        for _turn in range(40):
            if isinstance(app.screen, InfoScreen):
                await press(pilot, "enter")
            elif session.human_to_move():
                await press(pilot, "s", "1", "enter")
            if session.match.scores[0] > 100:
                break
        assert session.match.scores[0] > 100 and not session.match.over
        assert isinstance(app.screen, InfoScreen)  # the results of the deal that put Ana out
        assert "f full speed" in str(app.table.query_one("#keys").render())
        app.speed = 5.0  # the bots' first move of the next deal waits 5 s: f comes first
        await pilot.press("enter")
        await pilot.press("f")
        assert app.speed == 0

    run(app, script)


@pytest.mark.parametrize(
    ("language", "deck", "taken", "hand"),
    [
        ("es", "spanish40", "C♣", "S♦"),
        ("pt", "spanish40", "C♣", "S♦"),
        ("es", "spanish48", "C♣", "S♦"),
        ("es", "french52", "Q♣", "J♦"),
        ("en", "spanish40", "Q♣", "J♦"),
    ],
)
def test_a_spanish_deck_shows_its_figures_in_the_players_letters(
    language: str, deck: str, taken: str, hand: str
) -> None:
    """In Spanish the sota, caballo and rey are S, C, R on the cards, the pile and the log; french52 keeps J Q K."""
    set_language(language)
    rules = Rules.preset("fournier", deck=deck)
    decks = [
        stack_deck(
            rules,
            [cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ J♦"), cards("2♣ 2♠ 4♣ 4♠ K♦ K♠ A♣")],
            discard=Card.parse("Q♣"),
            stock=cards("5♦ 6♥"),
        )
    ]
    settings = Settings(preset="fournier", bots=("simple",), seed=11, speed=0)
    session = Session.start(settings, ["Ana", "Bot 1"], rules, Store(), first=0, decks=decks)
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        before = screen_text(app)
        assert taken in before  # the discard pile's top card
        assert f" {hand} " in before  # a card of the hand
        await press(pilot, "d")
        text = screen_text(app)
        assert text.count(taken) >= 2  # in the hand and in the log's line
        if taken != "Q♣":
            assert "Q♣" not in text and "J♦" not in text

    run(app, script)


def test_resume_restores_the_log_the_order_and_the_picked_card() -> None:
    session = session_for("fournier", [DEAL_1, DEAL_2], scores=[95, 60])
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, "d", TAKEN_QUEEN, "enter", "s", "o")
        assert app.table.sort == "rank"
        await press(pilot, "3")
        assert app.table.picked is not None
        await press(pilot, "q", "y")

    run(app, script)
    picked, log = app.table.picked, list(session.log)
    assert picked is not None
    resumed = Session.resume(Store())
    assert resumed is not None
    assert resumed.log[: len(log)] == log
    again = ChinchonApp(resumed)

    async def check(pilot: Pilot[Any]) -> None:
        assert again.table.sort == "rank"
        assert again.table.picked == picked
        assert "sorted by rank" in screen_text(again)
        assert "You took Q♣ from the discard pile" in screen_text(again)
        place = again.table.shown.index(picked)
        assert again.table.query_one(f"#card-{place}").has_class("-picked")

    run(again, check)


def test_a_save_from_before_the_tables_state_resumes_as_before() -> None:
    """Settings without the log, the order and the picked card resume sorted by suit, nothing picked."""
    session = session_for("fournier", [DEAL_1, DEAL_2], scores=[95, 60])
    store = Store()
    document = json.loads(store.settings_path.read_text("utf-8"))
    for key in ("log", "sort", "own", "picked"):
        del document[key]
    store.settings_path.write_text(json.dumps(document), "utf-8")
    resumed = Session.resume(store)
    assert resumed is not None
    assert resumed.log == ["The match goes on where it was left.", "Deal 1: you play first"]
    again = ChinchonApp(resumed)

    async def check(pilot: Pilot[Any]) -> None:
        assert again.table.sort == "suit" and again.table.picked is None
        assert resumed.observation() == session.observation()

    run(again, check)


@pytest.mark.parametrize("field", [{"sort": "size"}, {"log": "x"}, {"log": ["\x1b]0;title\x07"]}, {"picked": "Z"}])
def test_a_damaged_tables_state_is_refused_naming_the_file(field: dict[str, Any]) -> None:
    session_for("fournier", [DEAL_1, DEAL_2])
    store = Store()
    document = json.loads(store.settings_path.read_text("utf-8"))
    store.settings_path.write_text(json.dumps({**document, **field}), "utf-8")
    with pytest.raises(StorageError, match=f"{store.settings_path}: the saved settings are damaged"):
        Session.resume(store)


def test_a_large_terminal_gets_larger_cards_and_more_log() -> None:
    """At 120x40 the cards are larger than at 80x24, and the log shows more lines."""
    seen: dict[tuple[int, int], tuple[int, int, int]] = {}
    for size in (SIZE, (120, 40)):
        session = session_for("fournier", [DEAL_1, DEAL_2])
        session.log.extend(f"line {n}" for n in range(60))
        app = ChinchonApp(session)

        async def main(size: tuple[int, int] = size, app: ChinchonApp = app) -> None:
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                card = app.table.query_one("#card-0").size
                log = app.table.query_one("#log").content_size
                seen[size] = (card.width, card.height, log.height)

        asyncio.run(main())
    small, large = seen[SIZE], seen[(120, 40)]
    assert large[0] > small[0] and large[1] > small[1]
    assert large[2] >= small[2] + 10


# -- nothing cut at 80 columns ------------------------------------------------------------------------


def _rows(app: ChinchonApp) -> list[str]:
    return screen_text(app).split("\n")


def _region_text(app: ChinchonApp, region: Any) -> str:
    """The text on the screen inside a region, its rows joined by spaces and its spaces normalised."""
    rows = _rows(app)[region.y : region.bottom]
    return " ".join(" ".join(row[region.x : region.right].split()) for row in rows).strip()


@pytest.mark.parametrize("lang", ["pl", "es", "fr", "pt", "ar"])
def test_the_prompt_keeps_its_keys_and_card_at_80_columns(lang: str) -> None:
    """The Polish prompt lost its (d) and its card ("…albo weź R♣ ze stosu kart"): it now takes two lines."""
    from chinchon.tui.render import card_letters, visual

    set_language(lang)
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))

    async def script(pilot: Pilot[Any]) -> None:
        from chinchon.i18n import _

        prompt = app.table.query_one("#prompt")
        text = _region_text(app, prompt.region)
        wanted = _("Your turn: draw from the stock (s) or take {card} from the discard pile (d).").format(card="Q♣")
        if lang == "ar":
            assert "(s)" in text and "(d)" in text and "Q♣" in text, text
            assert len(text) == len(visual(wanted)), text
        else:
            assert text == card_letters(wanted), text

    run(app, script)


@pytest.mark.parametrize("lang", ["es", "ar", "pl"])
@pytest.mark.parametrize("size", [SIZE, (120, 40)])
def test_the_piles_show_their_whole_names(lang: str, size: tuple[int, int]) -> None:
    """ "Pila de descartes" was cut to "Pila de desca…", even at 120 columns."""
    from chinchon.i18n import _
    from chinchon.tui.render import visual

    set_language(lang)
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            for pile, name in (("#stock", _("Stock")), ("#discard", _("Discard pile"))):
                text = _region_text(app, app.table.query_one(pile).content_region)
                assert "…" not in text, text
                for word in name.split():
                    assert visual(word) in text, (word, text)

    asyncio.run(main())


def test_a_long_log_line_wraps_instead_of_being_cut() -> None:
    """The --resume note ("…its own r…") is read whole in the log at 80 columns."""
    from chinchon.tui.app import LogView

    session = session_for("fournier", [DEAL_1, DEAL_2])
    note = "The saved match goes on with its own rules (clasico, limit=50), not those of the command line."
    session.log.append(note)
    app = ChinchonApp(session)

    async def script(pilot: Pilot[Any]) -> None:
        text = _region_text(app, app.table.query_one(LogView).content_region)
        assert "…" not in text and text.endswith(note), text

    run(app, script)


@pytest.mark.parametrize("keys", [["question_mark"], ["h"], ["s", "c"]], ids=["help", "history", "close"])
def test_boxes_at_80x24_draw_one_right_border_and_the_scrollbar_against_it(keys: list[str]) -> None:
    """A box two columns narrower than the screen showed the log's border beside its own; the help's
    scrollbar stood one column inside the border, in the text."""
    app = ChinchonApp(session_for("fournier", [DEAL_1, DEAL_2]))

    async def script(pilot: Pilot[Any]) -> None:
        await press(pilot, *keys)
        assert app.screen is not app.table
        rows = _rows(app)
        box = app.screen.query_one("#box").region
        for row in rows[box.y : box.bottom]:
            edge = row[box.right - 2 : box.right + 2]
            assert not any(a in "│╮╯┤" and b in "│╮╯┤" for a, b in itertools.pairwise(edge)), rows
        thumbs = [row for row in rows if any(char in row for char in "▁▂▃▄▅▆▇█")]
        for row in thumbs:
            last = max(i for i, char in enumerate(row) if char in "▁▂▃▄▅▆▇█")
            assert row[last + 1] == "│", rows

    run(app, script)


def test_help_in_arabic_wraps_its_paragraphs_to_the_box() -> None:
    """Right-to-left paragraphs are wrapped at the width they are shown in, not at 72 columns."""
    import textwrap

    from rich.cells import cell_len
    from rich.console import Console

    from chinchon.tui.render import visual
    from chinchon.tui.screens import paragraph

    set_language("ar")
    text = rules_paragraphs(Rules())[0]
    for width in (40, 60, 90):
        console = Console(width=width, record=True, color_system=None)
        console.print(paragraph(text))
        lines = [line.rstrip() for line in console.export_text().splitlines()]
        assert [line.strip() for line in lines] == [visual(part) for part in textwrap.wrap(text, width)]
        assert all(cell_len(line) <= width for line in lines)
