"""The ``chinchon`` command line: ``chinchon solve``, its JSON and its errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from chinchon.cli import EXIT_BAD_INPUT, app

SCHEMA = json.loads((Path(__file__).parent.parent / "chinchon" / "schemas" / "solve.schema.json").read_text("utf-8"))

FULL = "3♥ 4♥ 5♥ 6♥ 7♣ 7♦ 7♠ A♦"
HAND = "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"
CAN_CLOSE = "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦ 6♥"
# RULES.md E4 (clasico): 8 points loose with 8♣; with 2♠ drawn it closes discarding 8♣.
E4_HAND = "5♥ 6♥ 7♥ K♣ K♦ K♠ 8♣"
E4_DRAWN = "5♥ 6♥ 7♥ K♣ K♦ K♠ 8♣ 2♠"
CANNOT_CLOSE = "A♦ 3♥ 5♠ 7♣ J♦ Q♥ K♠ 2♣"


# Every test starts and ends in English, whatever the environment says.
pytestmark = pytest.mark.usefixtures("english")


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    """Run ``chinchon`` in-process; the result has ``exit_code``, ``stdout`` and ``stderr``."""
    base = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "120"}
    return CliRunner().invoke(app, list(args), env={**base, **(env or {})})


def solve_json(*args: str) -> dict[str, Any]:
    result = run("solve", *args, "--json")
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(document, SCHEMA)
    return document


# -- text output ---------------------------------------------------------------------


def test_solve_full_hand_prints_the_best_arrangement() -> None:
    result = run("solve", HAND, "--lang", "en")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Rules: fournier" in lines
    assert "Melds: [3♥ 4♥ 5♥] [7♦ 7♠ 7♣]" in lines
    assert "Loose: A♦" in lines
    assert "Loose points: 1" in lines
    assert result.stderr == ""


def test_solve_hand_that_can_close_lists_every_option_best_first() -> None:
    result = run("solve", CAN_CLOSE, "--lang", "en")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "can close" in out
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0] in {"A♦", "3♥", "6♥"}]
    assert rows, out
    # The best option discards A♦ and leaves nothing loose: every card matched scores -10.
    assert rows[0][0] == "A♦"
    assert " ".join(rows[0]).endswith("— all matched: -10")
    assert "[3♥ 4♥ 5♥ 6♥] [7♦ 7♠ 7♣]" in " ".join(rows[0])
    points = [int(row[-1]) for row in rows]
    assert points == sorted(points)


def test_solve_lists_the_best_close_of_each_card_face_down_once() -> None:
    """A♦ face down also closes with 3♥ loose (3 points): that weaker arrangement is not listed."""
    result = run("solve", CAN_CLOSE)
    assert result.exit_code == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line[:2] in {"A♦", "3♥", "6♥"}]
    assert [row[0] for row in rows] == ["A♦", "3♥", "6♥"]
    assert "any of 3 cards face down" in result.stdout


@pytest.mark.parametrize(
    ("preset", "hand", "scores"),
    [
        ("fournier", "3♥ 4♥ 5♥ 6♥ 7♥ J♥ Q♥ K♣", "chinchón, all matched: -10"),
        ("online", "3♥ 4♥ 5♥ 6♥ 7♥ J♥ Q♥ K♣", "chinchón: wins the match"),
        ("clasico", "2♦ 3♦ 4♦ 5♦ 6♦ 7♦ K♣ 8♦", "chinchón: wins the match"),
    ],
)
def test_solve_says_when_a_close_is_a_chinchon(preset: str, hand: str, scores: str) -> None:
    result = run("solve", hand, "--rules", preset)
    assert result.exit_code == 0, result.stderr
    assert scores in result.stdout
    spanish = run("solve", hand, "--rules", preset, "--lang", "es")
    assert "chinchón" in spanish.stdout and "matched" not in spanish.stdout and "wins" not in spanish.stdout


def test_solve_hand_that_cannot_close_shows_the_best_discard() -> None:
    result = run("solve", CANNOT_CLOSE)
    assert result.exit_code == 0, result.stderr
    assert "cannot close" in result.stdout
    assert "Best discard: K♠" in result.stdout


def test_solve_in_spanish() -> None:
    result = run("solve", HAND, "--lang", "es")
    assert result.exit_code == 0, result.stderr
    assert "Sueltas: A♦" in result.stdout
    assert "Loose" not in result.stdout


def test_solve_language_from_the_environment() -> None:
    result = run("solve", HAND, env={"LANG": "fr_FR.UTF-8"})
    assert result.exit_code == 0, result.stderr
    assert "Règles : fournier" in result.stdout


def test_solve_in_arabic_is_laid_out_right_to_left() -> None:
    result = run("solve", HAND, "--lang", "ar")
    assert result.exit_code == 0, result.stderr
    # "اليد: <cards>" in visual order: the cards on the left, the label reversed on the right.
    assert "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦ :ديلا" in result.stdout


def test_solve_colours_red_suits_unless_no_color() -> None:
    colour = {"NO_COLOR": None, "FORCE_COLOR": "1", "TERM": "xterm-256color"}
    coloured = CliRunner().invoke(app, ["solve", HAND, "--lang", "en"], env=colour)
    assert coloured.exit_code == 0, coloured.stderr
    assert "\x1b[31m3♥" in coloured.stdout
    assert "\x1b[31m7♣" not in coloured.stdout
    plain = run("solve", HAND, env={"FORCE_COLOR": "1", "TERM": "xterm-256color"})
    assert "\x1b[" not in plain.stdout


# -- JSON ----------------------------------------------------------------------------


def test_json_full_hand() -> None:
    document = solve_json(HAND)
    assert document["hand"] == HAND.split()
    assert document["rules"] == "fournier"
    assert document["arrangement"] == {"melds": [["3♥", "4♥", "5♥"], ["7♦", "7♠", "7♣"]], "loose": ["A♦"], "points": 1}
    assert "closing_options" not in document


def test_json_can_close() -> None:
    document = solve_json(CAN_CLOSE)
    assert document["can_close"] is True
    options = document["closing_options"]
    assert options[0] == {
        "discard": "A♦",
        "melds": [["3♥", "4♥", "5♥", "6♥"], ["7♦", "7♠", "7♣"]],
        "loose": [],
        "points": 0,
    }
    assert [option["points"] for option in options] == sorted(option["points"] for option in options)
    assert all(option["points"] <= 5 for option in options)
    assert document["best_discard"] == options[0]
    assert "arrangement" not in document


def test_json_cannot_close() -> None:
    document = solve_json(CANNOT_CLOSE)
    assert document["can_close"] is False
    assert document["closing_options"] == []
    best = document["best_discard"]
    assert best["discard"] == "K♠"
    assert best["points"] > 5


def test_json_rules_clasico() -> None:
    # RULES.md E4: with clasico values the hand leaves 8 points; drawing 2♠ it closes discarding 8♣ for 2.
    assert solve_json(E4_HAND, "--rules", "clasico")["arrangement"]["points"] == 8
    document = solve_json(E4_DRAWN, "--rules", "clasico")
    assert document["rules"] == "clasico"
    assert document["can_close"] is True
    assert [(o["discard"], o["points"]) for o in document["closing_options"]] == [("8♣", 2)]


def test_rules_clasico_changes_card_values() -> None:
    # K is worth 10 in fournier too, but J (sota) is 8 in fournier and 10 in clasico.
    hand = "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ J♦"
    assert solve_json(hand)["arrangement"]["points"] == 8
    assert solve_json(hand, "--rules", "clasico")["arrangement"]["points"] == 10


def test_json_accepts_ascii_notation() -> None:
    assert solve_json("3h 4h 5h 7c 7d 7s Ad")["hand"] == HAND.split()


# -- bad input -----------------------------------------------------------------------

BAD_INPUT = [
    pytest.param(["solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ Xx"], "not a card: 'Xx'", id="unknown-card-text"),
    pytest.param(["solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 10♣"], "10♣", id="card-not-in-deck"),
    pytest.param(["solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 7♠"], "7♠", id="too-many-copies"),
    pytest.param(
        ["solve", "3♥ 4♥ 5♥ 7♣ 7♦"],
        "a hand has 7 cards, or 8 with the card just drawn; got 5 cards",
        id="too-few-cards",
    ),
    pytest.param(["solve", "3♥"], "got 1 card", id="one-card"),
    pytest.param(["solve", FULL + " 2♣"], "got 9 cards", id="too-many-cards"),
    pytest.param(["solve", HAND, "--rules", "nope"], "unknown preset 'nope'", id="unknown-preset"),
    pytest.param(["solve", HAND, "--lang", "xx"], "unknown language 'xx'", id="unknown-language"),
    pytest.param(["solve", HAND, "--json", "--rules", "nope"], "unknown preset", id="json-unknown-preset"),
]


@pytest.mark.parametrize(("args", "expected"), BAD_INPUT)
def test_bad_input_is_one_line_on_stderr_and_exit_2(args: list[str], expected: str) -> None:
    result = run(*args)
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert expected in result.stderr
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.output


def test_a_card_given_twice_is_told_as_a_sentence() -> None:
    result = run("solve", "3♥ 3♥ 4♥ 5♥ 7♣ 7♦ 7♠")
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr == "error: 3♥ is in the hand more than once, and the game has only one\n"


def test_bad_input_message_is_translated() -> None:
    result = run("solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ Xx", "--lang", "es")
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr == "error: no es una carta: 'Xx'\n"
    result = run("solve", "3♥ 4♥ 5♥ 7♣ 7♦", "--lang", "pl")
    assert result.stderr == "błąd: liczba kart w ręce to 7 (lub 8 z właśnie dobraną kartą); podano 5 kart\n"


def test_no_command_shows_help() -> None:
    result = run()
    assert "solve" in result.output
    assert "Traceback" not in result.output


# -- python -m chinchon --------------------------------------------------------------


def _python_m(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1", "LANGUAGE": "en"}
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "chinchon", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )


def test_python_m_chinchon() -> None:
    done = _python_m("solve", CAN_CLOSE, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    jsonschema.validate(document, SCHEMA)
    assert document["closing_options"][0]["discard"] == "A♦"
    assert document["closing_options"][0]["points"] == 0

    bad = _python_m("solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 10♣")
    assert bad.returncode == EXIT_BAD_INPUT
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1, bad.stderr
    assert "10♣" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_replay_prints_a_recorded_match(tmp_path: Path) -> None:
    import json
    import random

    from chinchon.actions import Close
    from chinchon.match import Match

    match = Match(["Ana", "Bea"], seed=3)
    rng = random.Random(2)
    while not match.over:
        legal = match.legal_actions()
        closes = [a for a in legal if isinstance(a, Close)]
        match.apply(closes[0] if closes else rng.choice(legal))
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match.record(), ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path), "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "Deal 1: " in result.output
    assert f"Deal {len(match.deals)}: " in result.output
    assert f"{match.names[match.winner or 0]} wins the match!" in result.output
    first = match.deals[0]
    seat, action = first.history[0]
    assert f"{match.names[seat]} drew " in result.output or f"{match.names[seat]} took " in result.output
    assert str(action) not in result.output  # the engine's notation, "draw stock"


def _random_match(players: int, preset: str, seed: int, names: list[str] | None = None) -> Any:
    import random

    from chinchon.actions import Close
    from chinchon.match import Match
    from chinchon.rules import Rules

    match = Match(names or players, Rules.preset(preset), seed=seed)
    rng = random.Random(seed)
    while not match.over:
        legal = match.legal_actions()
        closes = [a for a in legal if isinstance(a, Close)]
        match.apply(closes[0] if closes and rng.random() < 0.05 else rng.choice(legal))
    return match


@pytest.mark.parametrize(("players", "preset", "seed"), [(2, "fournier", 1), (3, "clasico", 2), (4, "polaco", 3)])
def test_replay_names_every_card_drawn_and_each_one_was_held(players: int, preset: str, seed: int) -> None:
    """Followed from the lines alone, every card discarded was in the hand: the draws name the right cards."""
    import re
    from collections import Counter

    from chinchon.cli import replay_lines

    match = _random_match(players, preset, seed)
    assert any(deal.reshuffles for deal in match.deals)  # the stock ran out and was made again
    hands: dict[str, Counter[str]] = {}
    moves = 0
    for line in replay_lines(match.all_events()):
        if found := re.fullmatch(r"  (.+) was dealt (.+)", line):
            hands[found[1]] = Counter(found[2].split())
        elif found := re.fullmatch(r"  (.+) (?:drew|took) (\S+) from the (?:stock|discard pile)", line):
            hands[found[1]][found[2]] += 1
        elif found := re.fullmatch(r"  (.+) discarded (\S+)", line):
            assert hands[found[1]][found[2]] > 0, line
            hands[found[1]][found[2]] -= 1
            moves += 1
    assert moves > 20


def test_replay_tells_a_re_entry_after_its_deal_and_an_unfinished_match_as_unfinished(english: None) -> None:
    """Each re-entry is told where it happened, between its deal and the next; a match left in the middle of a
    deal ends its replay with the totals so far."""
    import random

    from chinchon.actions import Close, ReEnter
    from chinchon.cli import replay_lines
    from chinchon.events import DealEnded, ReEntered
    from chinchon.match import Match
    from chinchon.rules import Rules

    match = Match(["Ana", "Bea", "Cid"], Rules(limit=30, reentry="once"), seed=2)
    rng = random.Random(2)
    while len(match.deals) < 3 or len(match.deal.history) < 3:
        legal = match.legal_actions()
        closes = [a for a in legal if isinstance(a, Close)]
        match.apply(ReEnter(True) if ReEnter(True) in legal else closes[0] if closes else rng.choice(legal))
    events = match.events()
    back = next(e for e in events if isinstance(e, ReEntered))
    ended = [e for e in events[: events.index(back)] if isinstance(e, DealEnded)][-1]
    lines = replay_lines(match.all_events())
    told = lines.index(f"  {match.names[back.seat]} re-entered with {back.score} points")

    def deal(number: int) -> int:
        return next(i for i, line in enumerate(lines) if line.startswith(f"Deal {number}: "))

    assert deal(ended.number) < told < deal(ended.number + 1)
    totals = ", ".join(f"{name} {total}" for name, total in zip(match.names, match.scores, strict=True))
    assert lines[-4:] == ["  (the deal is not finished)", "", f"Totals: {totals}", "The match is not finished."]
    assert not any("wins the match" in line for line in lines)


def test_replay_without_a_file_reads_the_last_saved_match(tmp_path: Path) -> None:
    from chinchon.rules import Rules
    from chinchon.tui.session import Session
    from chinchon.tui.storage import Settings, Store

    store = Store(tmp_path)
    settings = Settings(preset="polaco", bots=("simple",), seed=5, speed=0)
    Session.start(settings, ["Tú", "Bot 1"], Rules.preset("polaco"), store, first=0)
    result = run("replay", "--lang", "es", env={"CHINCHON_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Reglas: polaco" in lines
    assert "Mano 1: empiezas tú" in lines
    assert any(line.startswith("  Te repartieron ") for line in lines), lines
    assert not any("Tú holds" in line or " was dealt" in line for line in lines)
    empty = run("replay", env={"CHINCHON_DATA_DIR": str(tmp_path / "none")})
    assert empty.exit_code == EXIT_BAD_INPUT
    assert f"no match is saved in {tmp_path / 'none'}" in empty.stderr


def test_replay_speaks_the_players_language_and_prints_no_control_character(tmp_path: Path) -> None:
    import json

    match = _random_match(2, "polaco", 4, names=["Ana\x1b]0;owned\x07", "Bea\u202e"])
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match.record(), ensure_ascii=False), encoding="utf-8")
    result = run("replay", str(path), "--lang", "es")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "Ana?]0;owned?" in out
    assert "Reglas: polaco" in out and "=" not in out
    for raw in ("draw stock", "draw discard", "discard ", "layoff ", "show ", "close ", "pass", " holds "):
        assert raw not in out, raw


def test_replay_refuses_a_tampered_record(tmp_path: Path) -> None:
    import json

    from chinchon.match import Match

    record = Match(2, seed=1).record()
    record["version"] = 99
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path), "--lang", "en"])
    assert result.exit_code == 2
    assert "unknown version 99" in result.output
    missing = CliRunner().invoke(app, ["replay", str(tmp_path / "none.json"), "--lang", "en"])
    assert missing.exit_code == 2


# -- the program's help ----------------------------------------------------------------


def test_version() -> None:
    from importlib.metadata import version

    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"chinchon {version('chinchon')}\n"


def test_help_lists_play_first_and_fits_80_columns() -> None:
    result = run("--help", env={"COLUMNS": "80"})
    assert result.exit_code == 0
    commands = result.stdout.split("Commands:", 1)[1].split()
    listed = [word for word in commands if word in {"play", "replay", "analyze", "rules", "solve", "arena", "bench"}]
    assert listed[0] == "play", result.stdout
    lines = result.stdout.split("Commands:", 1)[1].splitlines()
    assert all(len(line) <= 80 and not line.endswith("...") for line in lines), result.stdout  # none cut short


def test_switches_are_shown_as_switches() -> None:
    result = run("play", "--help", env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    resume = next(line for line in result.stdout.splitlines() if "--resume" in line)
    assert resume.split()[0] == "--resume" and resume.split()[1] == "Continue", resume


def test_bench_prints_each_figure_as_it_is_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first line comes before any measure, and each figure before the next one is measured."""
    import typer

    from chinchon import benchmark

    events: list[str] = []
    real_echo = typer.echo

    def measured(seconds: float) -> Iterator[tuple[str, float, str]]:
        for number in range(3):
            events.append(f"measure {number}")
            yield (f"figure {number}", 1.0, "x/s")

    def echo(message: Any = None, **options: Any) -> None:
        events.append("error line" if options.get("err") else str(message).split()[0] + " " + str(message).split()[1])
        real_echo(message, **options)

    monkeypatch.setattr(benchmark, "measure_figures", measured)
    monkeypatch.setattr(benchmark, "own_figures", lambda seconds: list(measured(seconds)))
    monkeypatch.setattr(typer, "echo", echo)
    result = run("bench", "--seconds", "0.01")
    assert result.exit_code == 0, result.stderr
    assert "Measuring: about" in result.stderr
    assert events[:7] == [
        "error line",
        "measure 0",
        "figure 0",
        "measure 1",
        "figure 1",
        "measure 2",
        "figure 2",
    ]


@pytest.mark.parametrize("lang", ["en", "fr", "pl"])
def test_bench_lines_fit_80_columns_and_keep_each_figure_whole(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    from chinchon import benchmark

    long_name = "loop floor: the public-API loop, a do-nothing deal, 252 actions a hand, then some more words"
    figures = [("solver: best_arrangement, 7 cards", 4.29, "µs/hand"), (long_name, 1_187_854.22, "actions/s")]
    monkeypatch.setattr(benchmark, "measure_figures", lambda seconds: iter(figures))
    result = run("bench", "--seconds", "0.01", "--lang", lang, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    for stream in (result.stdout, result.stderr):
        assert all(len(line) <= 80 for line in stream.splitlines()), stream
    lines = result.stdout.splitlines()
    assert any(line.endswith(" 1,187,854.22 actions/s") for line in lines), lines
    assert any(
        line.startswith("solver: best_arrangement, 7 cards ") and line.endswith(" 4.29 µs/hand") for line in lines
    )
    # The long name is all there, over the lines it takes.
    assert long_name in " ".join(" ".join(lines).split())


# -- what people expect of a command line -----------------------------------------------------

COMMANDS = ["play", "replay", "analyze", "rules", "solve", "arena", "bench", "serve"]


@pytest.mark.parametrize("command", [[], *([name] for name in COMMANDS)], ids=["chinchon", *COMMANDS])
def test_h_is_help_as_well_as_help(command: list[str]) -> None:
    long = run(*command, "--help", env={"COLUMNS": "80"})
    short = run(*command, "-h", env={"COLUMNS": "80"})
    assert long.exit_code == short.exit_code == 0, short.stderr
    assert short.stdout == long.stdout and "-h, --help" in short.stdout


PLACEHOLDERS = {
    "play": ["-p, --players N", "--bots LEVELS", "-r, --rules PRESET", "--rule NAME=VALUE", "--name NAME", "--seed N"],
    "replay": ["Usage: chinchon replay [OPTIONS] [FILE]", "  FILE ", "--lang LANG"],
    "analyze": ["Usage: chinchon analyze [OPTIONS] [RECORD...]", "--seat N", "--playouts N", "--budget SECONDS"],
    "rules": ["Usage: chinchon rules [OPTIONS] [PRESET]", "  PRESET ", "-r, --rules PRESET"],
    "solve": ["Usage: chinchon solve [OPTIONS] HAND", "  HAND ", "--rule NAME=VALUE"],
    "arena": ["--bots BOTS", "--matches N", "--hands N", "-j, --jobs N", "-o, --output FILE", "--max-actions N"],
    "bench": ["--seconds SECONDS", "--lang LANG"],
    "serve": ["--port PORT", "--db URL", "--grace SECONDS", "--bot-workers N", "--log-level LEVEL"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_placeholders_say_what_goes_there(command: str) -> None:
    result = run(command, "--help", env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert not re.search(r"<[\w\[\]., ]+>", text), text  # no <int>, <str>, <list[str]>, <float range>
    assert "{" not in text.splitlines()[0], text
    for placeholder in PLACEHOLDERS[command]:
        assert placeholder in text, (placeholder, text)
    assert "--speed SECONDS" in run("play", "--help").stdout


def test_shell_completion_can_be_shown_and_installed() -> None:
    listed = run("--help").stdout
    assert "--install-completion" in listed and "--show-completion" in listed
    # Without detecting the shell (Typer's switch for tests), the shell is named after the option.
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    for shell, line in [("bash", "complete -o default -F _chinchon_completion chinchon"), ("zsh", "#compdef chinchon")]:
        script = subprocess.run(
            [sys.executable, "-m", "chinchon", "--show-completion", shell],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert script.returncode == 0, script.stderr
        assert "_CHINCHON_COMPLETE" in script.stdout and line in script.stdout, script.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "-x"],
        ["no-such-command"],
        ["solve"],
        ["arena", "--jobs", "many"],
        ["solve", "3h 4h"],
        ["replay", "/no/such/file.json"],
    ],
)
def test_every_error_is_one_line_that_starts_the_same_way(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == EXIT_BAD_INPUT, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error")]
    assert len(errors) == 1 and errors[0].startswith("error: "), result.stderr
    assert result.stdout == ""


def _long_record(path: Path) -> Path:
    """A record of a whole random match whose replay is far longer than a pipe holds (about 280 KB)."""
    import random

    from chinchon import Match, Rules
    from chinchon.record import dumps

    match = Match(["Ana", "Bot 1"], Rules.preset("fournier", limit=200), seed=5)
    rng = random.Random(5)
    while not match.over:
        match.apply(rng.choice(match.legal_actions()))
    path.write_text(dumps(match.record()), "utf-8")
    return path


def test_a_closed_pipe_is_a_normal_end(tmp_path: Path) -> None:
    """``chinchon replay FILE | head -1``: status 0 and nothing on standard error once the reader has gone."""
    record = _long_record(tmp_path / "match.json")
    whole = _python_m("replay", str(record))
    assert whole.returncode == 0 and len(whole.stdout.encode()) > 4 * 65536
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "LANGUAGE": "en"}
    replay = subprocess.Popen(
        [sys.executable, "-m", "chinchon", "replay", str(record)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert replay.stdout is not None and replay.stderr is not None
    first = replay.stdout.readline()
    replay.stdout.close()  # as head -1 does once it has its line
    status = replay.wait(60)
    assert first.startswith(b"Match: Ana, Bot 1")
    assert (status, replay.stderr.read()) == (0, b"")


def test_rules_refuses_two_presets_that_contradict_each_other() -> None:
    result = run("rules", "clasico", "--rules", "polaco")
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr == "error: two presets given, clasico and --rules polaco: give one\n"
    assert result.stdout == ""
    # The same preset twice says the same thing twice: no contradiction.
    same = run("rules", "clasico", "--rules", "clasico")
    assert same.exit_code == 0 and "Rules: clasico" in same.stdout


def test_replay_says_a_fifo_at_the_saved_match_is_not_a_regular_file(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    os.mkfifo(folder / "last-match.json")
    result = run("replay", env={"CHINCHON_DATA_DIR": str(folder)})
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr == f"error: cannot read {folder / 'last-match.json'}: not a regular file\n"


def test_replay_without_settings_reads_the_saved_record(tmp_path: Path) -> None:
    """A record saved alone (its settings lost) is still the match saved: it is replayed, not reported missing."""
    folder = tmp_path / "data"
    folder.mkdir()
    _long_record(folder / "last-match.json")
    result = run("replay", env={"CHINCHON_DATA_DIR": str(folder)})
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Match: Ana, Bot 1\n")


# -- one notation of the figures per language ------------------------------------------------------


FIGURES = "5♥ 6♥ 7♥ K♣ K♦ K♠ Q♣ J♠"


def test_solve_writes_and_reads_the_figures_as_the_language_does() -> None:
    spanish = run("solve", FIGURES, "--lang", "es")
    assert spanish.exit_code == 0, spanish.stderr
    assert "[R♦ R♠ R♣]" in spanish.stdout and "C♣" in spanish.stdout and "S♠" in spanish.stdout
    assert not re.search(r"\b[JQK][♦♥♠♣]", spanish.stdout), spanish.stdout
    # What it writes, it reads: the same hand in Spanish letters is the same hand.
    again = run("solve", "5♥ 6♥ 7♥ R♣ R♦ R♠ C♣ S♠", "--lang", "es")
    assert again.exit_code == 0 and again.stdout == spanish.stdout, again.stderr
    assert run("solve", "5h 6h 7h rc rd rs cc ss", "--lang", "es").stdout == spanish.stdout
    english = run("solve", FIGURES, "--lang", "en")
    assert "[K♦ K♠ K♣]" in english.stdout
    assert run("solve", "5♥ 6♥ 7♥ R♣ R♦ R♠ C♣ S♠", "--lang", "en").exit_code == EXIT_BAD_INPUT
    # JSON is for programs: the canonical notation in any language.
    assert json.loads(run("solve", FIGURES, "--json", "--lang", "es").stdout)["hand"][3] == "K♣"


def test_rules_name_the_figures_as_the_game_shows_them() -> None:
    spanish = " ".join(run("rules", "--lang", "es").stdout.split())
    assert "sota (S), caballo (C) y rey (R)" in spanish
    assert "C R A no es escalera" in spanish
    assert "S 8, C 9 y R 10" in spanish
    french = " ".join(run("rules", "--lang", "fr").stdout.split())
    assert "valet (V), cavalier (C) et roi (R)" in french and "C R A n'est pas une suite" in french
    english = " ".join(run("rules", "--lang", "en").stdout.split())
    assert "sota (J), caballo (Q) and rey (K)" in english and "Q K A is not a run" in english
    # The French deck keeps J, Q and K in every language.
    french52 = " ".join(run("rules", "--rule", "deck=french52", "--lang", "es").stdout.split())
    assert "Q K A no es escalera" in french52


def test_replay_writes_the_figures_as_the_language_does(tmp_path: Path) -> None:
    record = _long_record(tmp_path / "match.json")
    spanish = run("replay", str(record), "--lang", "es").stdout
    assert re.search(r"\b[SCR][♦♥♠♣]", spanish) and not re.search(r"\b[JQK][♦♥♠♣]", spanish)
    english = run("replay", str(record), "--lang", "en").stdout
    assert re.search(r"\b[JQK][♦♥♠♣]", english)
