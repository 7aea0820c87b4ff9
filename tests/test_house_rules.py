"""House rules: options read from text (``--rule NAME=VALUE``) on every command, and kept by saves and records."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from chinchon.actions import Draw
from chinchon.cli import EXIT_BAD_INPUT
from chinchon.cli import app as cli
from chinchon.i18n import set_language
from chinchon.record import dumps, loads, replay
from chinchon.rules import Rules, RulesError, format_option, parse_option, parse_options
from chinchon.tui.app import ChinchonApp
from chinchon.tui.session import Session
from chinchon.tui.storage import DATA_DIR_VARIABLE, Settings, Store

SOLVE_SCHEMA = json.loads(
    (Path(__file__).parent.parent / "chinchon" / "schemas" / "solve.schema.json").read_text("utf-8")
)
ENV = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "120"}


@pytest.fixture(autouse=True)
def _english_and_a_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "data"))
    set_language("en")
    yield
    set_language("en")


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[ChinchonApp]:
    """The apps ``chinchon play`` would run, caught instead of run."""
    apps: list[ChinchonApp] = []

    def catch(self: ChinchonApp, *args: Any, **kwargs: Any) -> None:
        apps.append(self)

    monkeypatch.setattr(ChinchonApp, "run", catch)
    return apps


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), env=ENV)


# -- reading options from text -----------------------------------------------------------


def test_each_option_is_read_by_its_type() -> None:
    assert parse_option("limit", " 50 ") == 50
    assert parse_option("wild_ace_of_oros", "true") is True
    assert parse_option("wild_ace_of_oros", "No") is False
    assert parse_option("close_max_loose_cards", "none") is None
    assert parse_option("close_max_loose_cards", "1") == 1
    assert parse_option("decks", "auto") == "auto" and parse_option("decks", "2") == 2
    assert parse_option("chinchon", "win") == "win" and parse_option("chinchon", "-25") == -25
    assert parse_option("reentry", "once") == "once"
    assert parse_options(["limit=50", "deck=spanish48", "limit=50"]) == {"limit": 50, "deck": "spanish48"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["colour=red"], "unknown option 'colour'"),
        (["limit=fifty"], "limit: expected a whole number, got 'fifty'"),
        (["layoffs=maybe"], "layoffs: expected true or false, got 'maybe'"),
        (["close_max_loose_cards=x"], "close_max_loose_cards: expected a whole number or none, got 'x'"),
        (["limit"], "expected an option as NAME=VALUE, got 'limit'"),
        (["=5"], "expected an option as NAME=VALUE, got '=5'"),
        (["limit=50", "limit=70"], "limit: given twice, as 50 and as 70"),
        (["reentry=twice"], "reentry: expected one of none, once, unlimited, got 'twice'"),
        (["deck=spanish40", "max_players=6"], "max_players: 6 players with 7 cards each"),
        (["limit=0"], "limit: 0 is out of range"),
    ],
)
def test_bad_options_are_refused_naming_them(options: list[str], message: str) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.from_text("fournier", options)
    assert str(caught.value).startswith(message)


def test_options_on_top_of_a_preset_follow_the_preset() -> None:
    assert Rules.from_text("clasico", ["limit=50", "wild_ace_of_oros=true"]) == Rules.preset(
        "clasico", limit=50, wild_ace_of_oros=True
    )
    # A changed deck takes the preset's derived options with it, as Rules.preset does.
    assert Rules.from_text("clasico", ["deck=spanish40"]).max_players == 5


def test_any_rules_are_written_as_a_preset_and_options_that_make_them_again() -> None:
    rng = random.Random(5)
    choices: dict[str, list[Any]] = {
        "limit": [50, 70, 100, 150],
        "wild_ace_of_oros": [True, False],
        "jokers": [0, 2],
        "close_max_loose_cards": [None, 1, 2],
        "chinchon": ["none", "win", -50],
        "reentry": ["none", "once", "unlimited"],
        "deck": ["spanish40", "spanish48", "french52"],
        "forbid_rediscard": [True, False],
    }
    seen = 0
    for _ in range(60):
        preset = rng.choice(Rules.presets())
        overrides = {key: rng.choice(values) for key, values in choices.items() if rng.random() < 0.4}
        try:
            rules = Rules.preset(preset, **overrides)
        except RulesError:
            continue
        seen += 1
        name, texts = rules.as_text()
        assert Rules.from_text(name, texts) == rules
        assert all(parse_option(t.split("=")[0], t.split("=")[1]) == getattr(rules, t.split("=")[0]) for t in texts)
    assert seen > 30
    assert Rules.preset("polaco").as_text() == ("polaco", [])
    assert format_option(None) == "none" and format_option(True) == "true"


# -- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["rules"],
        ["solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"],
        ["arena", "--bots", "random,simple", "--hands", "1"],
        ["play"],
    ],
)
def test_a_bad_rule_is_one_line_naming_it_and_exit_2(command: list[str], launched: list[ChinchonApp]) -> None:
    result = run(*command, "--rule", "limit=50", "--rule", "limit=abc")
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr == "error: limit: expected a whole number, got 'abc'\n"
    assert not launched


def test_rules_prints_the_rules_in_force_with_the_options() -> None:
    result = run("rules", "--rules", "clasico", "--rule", "limit=50", "--rule", "wild_ace_of_oros=yes")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert text.startswith("Rules: clasico, limit=50, wild_ace_of_oros=true")
    assert "A total above 50 puts a player out" in text
    assert "The ace of coins (A♦) is wild." in text
    plain = " ".join(run("rules", "--rules", "clasico").stdout.split())
    assert "A total above 100 puts a player out" in plain and "(A♦) is wild" not in plain


def test_rules_in_the_players_language() -> None:
    result = run("rules", "--rule", "limit=70", "--lang", "es")
    assert result.exit_code == 0, result.stderr
    assert "70" in result.stdout and "Reglas" in result.stdout


def test_solve_with_a_rule_uses_it_and_says_so() -> None:
    # Discarding 4♣ leaves 2♠ loose: 2 points, enough to close under the default limit of 5, not under 1.
    hand = "5♥ 6♥ 7♥ K♣ K♦ K♠ 4♣ 2♠"
    document = json.loads(run("solve", hand, "--json", "--rule", "close_limit=1").stdout)
    jsonschema.validate(document, SOLVE_SCHEMA)
    assert document["options"] == {"close_limit": 1} and not document["can_close"]
    plain = json.loads(run("solve", hand, "--json").stdout)
    assert plain["can_close"] and "options" not in plain
    text = run("solve", hand, "--rule", "close_limit=1").stdout
    assert "Rules: fournier, close_limit=1" in text


def test_play_with_rules_plays_them_and_saves_them(launched: list[ChinchonApp]) -> None:
    result = run("play", "--rules", "clasico", "--rule", "limit=50", "--rule", "wild_ace_of_oros=true", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    session = launched[0].session
    assert session.match.rules == Rules.preset("clasico", limit=50, wild_ace_of_oros=True)
    assert session.settings.preset == "clasico, limit=50, wild_ace_of_oros=true"
    loaded = Store().load()
    assert loaded is not None
    record, settings = loaded
    assert Rules.from_dict(record["rules"]) == session.match.rules and settings == session.settings
    assert replay(loads(dumps(record))).rules == session.match.rules


def _saved_clasico_match() -> Session:
    settings = Settings(preset="clasico, limit=50", bots=("simple",), seed=4, speed=0)
    session = Session.start(settings, ["Ana", "Bot 1"], Rules.preset("clasico", limit=50), Store(), first=0)
    session.play(Draw("stock"), 0)
    return session


def test_resume_says_it_keeps_its_own_rules_when_others_are_asked(launched: list[ChinchonApp]) -> None:
    saved = _saved_clasico_match()
    result = run("play", "--resume", "--rules", "fournier", "--rule", "limit=70")
    assert result.exit_code == 0, result.stderr
    resumed = launched[0].session
    assert resumed.match.rules == saved.match.rules
    line = "The saved match goes on with its own rules (clasico, limit=50), not those of the command line."
    assert result.stderr.strip() == line
    assert resumed.log[-1] == line or line in resumed.log
    # Only --rules given, and explicitly the default preset: still other rules than the saved ones.
    again = run("play", "--resume", "--rules", "fournier")
    assert again.exit_code == 0 and line in again.stderr


def test_resume_is_silent_when_the_rules_asked_are_the_saved_ones(launched: list[ChinchonApp]) -> None:
    _saved_clasico_match()
    for args in (["--rules", "clasico", "--rule", "limit=50"], []):
        result = run("play", "--resume", *args)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        assert not any("its own rules" in entry for entry in launched[-1].session.log)
