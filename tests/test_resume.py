"""Playing on from a record: a resumed match deals and reshuffles as the saved one would have; bad files are refused."""

from __future__ import annotations

import copy
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chinchon import Rules
from chinchon.actions import Action, Close
from chinchon.cli import EXIT_BAD_INPUT
from chinchon.cli import app as cli
from chinchon.i18n import set_language
from chinchon.match import Match
from chinchon.record import RecordError, loads, replay
from chinchon.tui.session import Session
from chinchon.tui.storage import Settings, StorageError, Store


@pytest.fixture(autouse=True)
def _english() -> None:
    set_language("en")


def _move(match: Match, rng: random.Random) -> Action:
    """A random legal action, closing when it may: deals end and matches finish."""
    actions = match.legal_actions()
    closes = [a for a in actions if isinstance(a, Close)]
    return closes[0] if closes and rng.random() < 0.5 else rng.choice(actions)


def _chance_kinds(events: list[dict[str, object]]) -> list[str]:
    return [str(e.get("chance", "deck")) for e in events if "chance" in e or "deck" in e]


def _split_match(seed: int, steps: int) -> tuple[Match, dict[str, object]]:
    """A match played ``steps`` actions, and its record at that point."""
    match = Match(2, Rules.preset("fournier"), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        match.apply(_move(match, rng))
    return match, copy.deepcopy(match.record())


def test_a_replayed_match_goes_on_as_the_recorded_one_would_have() -> None:
    kinds_after: set[str] = set()
    for seed in range(6):
        original, record = _split_match(seed, 30)
        rebuilt = replay(record, go_on=True)
        rng = random.Random(100 + seed)
        while not original.over:
            action = _move(original, rng)
            original.apply(action)
            rebuilt.apply(action)
            assert rebuilt.log == original.log and rebuilt.events() == original.events()
        kinds_after.update(_chance_kinds(original.log[len(record["log"]) :]))  # type: ignore[arg-type]
    # Past the record the matches dealt again and reshuffled the stock, the chance a record lacks.
    assert {"deck", "reshuffle"} <= kinds_after


def test_without_go_on_a_replayed_match_stops_at_the_end_of_its_chance() -> None:
    _, record = _split_match(2, 30)
    rebuilt = replay(record)
    rng = random.Random(7)
    with pytest.raises(RecordError, match="needs a chance event"):
        while not rebuilt.over:
            rebuilt.apply(_move(rebuilt, rng))


def test_go_on_refuses_a_malformed_seed() -> None:
    _, record = _split_match(1, 10)
    record["seed"] = [1, 2]
    with pytest.raises(RecordError, match="seed is missing or malformed"):
        replay(record, go_on=True)


def _step(session: Session, rng: random.Random) -> None:
    match = session.match
    seat = match.to_move
    assert seat is not None
    action = _move(match, rng) if seat == session.human else session.choose(seat, match.observation(seat))
    session.play(action, seat)


def test_a_resumed_session_plays_to_the_end_exactly_as_if_never_saved(tmp_path: Path) -> None:
    settings = Settings(preset="fournier", bots=("simple",), seed=3, speed=0)
    saved = Session.start(settings, ["Ana", "Bot"], Rules(), Store(tmp_path))
    unsaved = Session.start(settings, ["Ana", "Bot"], Rules(), None)
    for step in range(5):
        _step(saved, random.Random(step))
        _step(unsaved, random.Random(step))
    resumed = Session.resume(Store(tmp_path))
    assert resumed is not None
    step = 5
    while not unsaved.match.over:
        _step(resumed, random.Random(step))
        _step(unsaved, random.Random(step))
        assert resumed.match.log == unsaved.match.log
        step += 1
    assert resumed.match.over and len(resumed.match.deals) > 1
    # And what it saved on the way resumes too: the finished match is not offered again.
    assert Session.resume(Store(tmp_path)) is None


def test_a_high_card_draw_may_not_hold_a_card_more_often_than_the_deck() -> None:
    match = Match(3, Rules.preset("polaco"), seed=1)
    record = copy.deepcopy(match.record())
    event = record["log"][0]
    assert event.get("chance") == "high_card"
    event["draws"] = [["A♦", "A♦", "A♦"], *event["draws"]]
    with pytest.raises(RecordError, match="the high-card draw holds A♦, not in the deck"):
        replay(record)


@pytest.mark.parametrize(
    "text",
    ['{"n": ' + "9" * 5000 + "}", "[" * 100_000 + "]" * 100_000, "{not json"],
    ids=["a number too long", "nested too deep", "not json"],
)
def test_loads_refuses_bad_json_with_a_record_error(text: str) -> None:
    with pytest.raises(RecordError, match="record: not JSON"):
        loads(text)


def _saved(tmp_path: Path) -> Store:
    store = Store(tmp_path)
    Session.start(Settings(preset="fournier", bots=("simple",), seed=3, speed=0), ["Ana", "Bot"], Rules(), store)
    return store


def test_a_save_that_is_not_utf8_is_refused_naming_the_file(tmp_path: Path) -> None:
    store = _saved(tmp_path)
    store.record_path.write_bytes(b"\xff{}")
    with pytest.raises(StorageError, match=f"cannot read {store.record_path}"):
        store.load()
    store = _saved(tmp_path)
    store.settings_path.write_bytes(b"\xfe")
    with pytest.raises(StorageError, match=f"cannot read {store.settings_path}"):
        store.load()


@pytest.mark.parametrize(
    ("seed", "speed"),
    [("1e400", "0"), ("[" * 100_000, "0"), ("1", "NaN"), ("1", "Infinity"), ("1", "-0.5")],
    ids=["an infinite seed", "nested too deep", "no speed", "an infinite speed", "a negative speed"],
)
def test_damaged_settings_are_refused(tmp_path: Path, seed: str, speed: str) -> None:
    store = _saved(tmp_path)
    store.settings_path.write_text(
        '{"preset": "fournier", "bots": ["simple"], "seed": ' + seed + ', "human": 0, "speed": ' + speed + "}",
        encoding="utf-8",
    )
    with pytest.raises(StorageError, match="the saved settings are damaged"):
        store.load()


def test_a_save_slower_than_the_limit_plays_at_the_limit(tmp_path: Path) -> None:
    store = _saved(tmp_path)
    document = json.loads(store.settings_path.read_text("utf-8"))
    store.settings_path.write_text(json.dumps({**document, "speed": 100}), "utf-8")
    loaded = store.load()
    assert loaded is not None and loaded[1].speed == 60


def test_a_save_directory_that_cannot_be_searched_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _saved(tmp_path)
    real_stat, real_open = Path.stat, Path.open

    def refused(path: Path) -> bool:
        return path.parent == tmp_path

    def stat(path: Path, **options: Any) -> Any:
        if refused(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, **options)

    def open_(path: Path, *args: Any, **options: Any) -> Any:
        if refused(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **options)

    def os_open(path: Any, *args: Any, **options: Any) -> Any:
        if refused(Path(path)):
            raise PermissionError(13, "Permission denied", str(path))
        return real_os_open(path, *args, **options)

    real_os_open = os.open
    monkeypatch.setattr(Path, "stat", stat)
    monkeypatch.setattr(Path, "open", open_)
    monkeypatch.setattr(os, "open", os_open)
    with pytest.raises(StorageError, match=f"cannot read {store.settings_path}: Permission denied"):
        store.load()


@pytest.mark.parametrize("human", [2, -1])
def test_a_save_with_the_player_in_no_seat_is_refused(tmp_path: Path, human: int) -> None:
    store = _saved(tmp_path)
    document = json.loads(store.settings_path.read_text("utf-8"))
    store.settings_path.write_text(json.dumps({**document, "bots": ["simple", "simple"], "human": human}), "utf-8")
    with pytest.raises(StorageError, match="the saved settings are damaged"):
        Session.resume(store)


def test_replay_of_a_file_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe")
    result = CliRunner().invoke(cli, ["replay", str(bad), "--lang", "en"])
    assert result.exit_code == EXIT_BAD_INPUT
    assert f"cannot read {bad}" in result.output
    assert isinstance(result.exception, SystemExit)


# -- --resume with other options, and in another language ---------------------------------------------


def test_resume_says_which_options_it_sets_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, launched: list[Any]
) -> None:
    monkeypatch.setenv("CHINCHON_DATA_DIR", str(tmp_path))
    settings = Settings(preset="fournier", bots=("simple",), seed=4, speed=0)
    Session.start(settings, ["Ana", "Bot 1"], Rules(), Store(tmp_path), first=0)
    args = ["--players", "3", "--bots", "hard", "--seed", "9", "--name", "Eva", "--speed", "0", "--lang", "en"]
    result = CliRunner().invoke(cli, ["play", "--resume", *args])
    assert result.exit_code == 0, result.output
    line = "The saved match goes on as it was saved; set aside: --players 3, --bots hard, --seed 9, --name Eva."
    assert result.stderr.strip() == line
    resumed = launched[0].session
    assert line in resumed.log and resumed.match.names == ("Ana", "Bot 1") and resumed.settings.seed == 4
    # What the saved match has already is not set aside; --speed and --lang are honoured.
    again = CliRunner().invoke(cli, ["play", "--resume", "--players", "2", "--seed", "4", "--name", "Ana"])
    assert again.exit_code == 0 and again.stderr == ""


def test_a_match_resumed_in_another_language_speaks_it_whole(tmp_path: Path) -> None:
    """The bots' names and the log's old lines come in the language of the resumed game, not the saved one's."""
    set_language("ar")
    settings = Settings(preset="fournier", bots=("simple", "simple"), seed=5, speed=0)
    names = ["أنت", "الروبوت 1", "الروبوت 2"]
    saved = Session.start(settings, names, Rules(), Store(tmp_path))
    for step in range(12):
        _step(saved, random.Random(step))
    assert any("الروبوت 1" in line for line in saved.log)
    set_language("en")
    resumed = Session.resume(Store(tmp_path))
    assert resumed is not None
    assert resumed.names == ("You", "Bot 1", "Bot 2")
    assert resumed.match.names == tuple(names)  # the record itself is as it was played
    arabic = [line for line in resumed.log if any("\u0600" <= char <= "\u06ff" for char in line)]
    assert not arabic, arabic
    told = Session.start(settings, ["You", "Bot 1", "Bot 2"], Rules(), None)
    for step in range(12):
        _step(told, random.Random(step))
    assert resumed.log[: len(told.log)] == told.log  # the same lines an English game would have written
    assert resumed.log[-1] == "The match goes on where it was left."
