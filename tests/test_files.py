"""Files: nothing lost, nothing clobbered, nothing read without limit.

A report or a save never replaces what is not a regular file; it is on the
disk before it is moved into place; a temporary file left by a killed
process goes at the next write. The save's two files are written as one: a
failed write of either leaves the previous pair, and a save killed between
its two moves is finished by the next load. Readers refuse FIFOs, devices,
files over the size limit and JSON nested without end, with a clear line.
The faults (a full disk, a kill) are simulated.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
import time
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chinchon import files
from chinchon.arena import ArenaConfig, run_arena
from chinchon.bots import BotError, make_bot
from chinchon.cards import Card
from chinchon.cli import EXIT_BAD_INPUT
from chinchon.cli import app as cli
from chinchon.errors import HandError
from chinchon.files import read_text, write_temporary, write_whole
from chinchon.melds import MOST_CARDS, best_arrangement, check_hand, loose_points
from chinchon.rules import Rules, RulesError
from chinchon.tui import storage
from chinchon.tui.session import Session
from chinchon.tui.storage import Settings, StorageError, Store

pytestmark = pytest.mark.usefixtures("english")


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return fifo


def _unblock(fifo: Path) -> threading.Thread:
    """Feed ``{}`` to whoever opens the FIFO to read within a few seconds, so a reader that waits on it ends."""

    def feed() -> None:
        for _ in range(100):
            try:
                handle = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.05)  # no reader yet
                continue
            os.write(handle, b"{}")
            os.close(handle)
            return

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


# -- writing --------------------------------------------------------------------------------


def test_a_fifo_is_not_replaced(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for path in (fifo, link):
        with pytest.raises(OSError, match="not a regular file"):
            write_whole(path, "{}\n")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "pipe"]  # no temporary left


def test_the_arena_refuses_a_report_onto_a_fifo_before_playing(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    result = CliRunner().invoke(cli, ["arena", "--bots", "random,simple", "--hands", "1", "--output", str(fifo)])
    assert result.exit_code == EXIT_BAD_INPUT
    assert f"cannot write {fifo}: not a regular file" in result.output
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_the_file_is_on_the_disk_before_it_is_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(handle: int) -> None:
        is_file = stat.S_ISREG(os.fstat(handle).st_mode)
        steps.append("fsync file" if is_file else "fsync folder")
        real_fsync(handle)

    def replace(source: Any, target: Any) -> None:
        steps.append("replace")
        assert Path(source).read_text("utf-8") == "new\n"
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_whole(tmp_path / "report.json", "new\n")
    assert steps[:2] == ["fsync file", "replace"]
    assert (tmp_path / "report.json").read_text("utf-8") == "new\n"


def test_a_temporary_file_left_by_a_killed_process_is_removed(tmp_path: Path) -> None:
    old = tmp_path / ".report.json.0123456789abcdef.tmp"
    fresh = tmp_path / ".report.json.fedcba9876543210.tmp"
    other = tmp_path / ".other.json.0123456789abcdef.tmp"
    for path in (old, fresh, other):
        path.write_text("half a repo", "utf-8")
    an_hour_ago = time.time() - 3600
    for path in (old, other):
        os.utime(path, (an_hour_ago, an_hour_ago))
    write_whole(tmp_path / "report.json", "{}\n")
    assert not old.exists()
    assert fresh.exists()  # it may be another process's, still being written
    assert other.exists()  # another file's


# -- the save's two files, as one -------------------------------------------------------------


def _two_saves(tmp_path: Path) -> tuple[Store, Session]:
    """A store holding match A (seed 3), and match B (seed 4) ready to be saved over it."""
    store = Store(tmp_path)
    Session.start(Settings(preset="fournier", bots=("simple",), seed=3, speed=0), ["Ana", "Bot"], Rules(), store)
    second = Session.start(
        Settings(preset="clasico", bots=("simple", "simple"), seed=4, speed=0),
        ["Ana", "Bot 1", "Bot 2"],
        Rules.preset("clasico"),
        None,
    )
    return store, second


def _temporaries(tmp_path: Path) -> list[str]:
    return [path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


@pytest.mark.parametrize("failing", [storage.RECORD_FILE, storage.SETTINGS_FILE])
def test_a_full_disk_leaves_the_previous_save_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    store, second = _two_saves(tmp_path)
    before = store.load()
    real = write_temporary

    def full(path: str | Path, text: str) -> tuple[Path, Path]:
        if Path(path).name == failing:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, text)

    monkeypatch.setattr(storage, "write_temporary", full)
    with pytest.raises(OSError, match="No space left"):
        store.save(second.match.record(), second.settings)
    assert store.load() == before
    resumed = Session.resume(store)
    assert resumed is not None and resumed.settings.seed == 3
    assert _temporaries(tmp_path) == []


def test_a_save_killed_between_its_two_moves_is_finished_by_the_next_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, second = _two_saves(tmp_path)
    real = os.replace

    def killed(source: Any, target: Any) -> None:
        if Path(target).name == storage.RECORD_FILE:
            return  # the process dies here: the record's temporary file stays
        real(source, target)

    monkeypatch.setattr(os, "replace", killed)
    store.save(second.match.record(), second.settings)
    monkeypatch.setattr(os, "replace", real)
    loaded = store.load()
    assert loaded is not None
    record, settings = loaded
    assert settings == second.settings and record == json.loads(json.dumps(second.match.record()))
    assert json.loads(store.record_path.read_text("utf-8"))["seats"] == ["Ana", "Bot 1", "Bot 2"]
    assert _temporaries(tmp_path) == []


def test_a_record_that_is_not_the_settings_one_is_refused_naming_it(tmp_path: Path) -> None:
    store, _ = _two_saves(tmp_path)
    text = store.record_path.read_text("utf-8")
    store.record_path.write_text(text.replace('"Bot"', '"Bob"'), "utf-8")
    with pytest.raises(StorageError, match=f"{store.record_path}: the saved match does not belong to its settings"):
        store.load()


def test_a_save_that_does_not_replay_names_its_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    session = Session.start(
        Settings(preset="fournier", bots=("simple",), seed=3, speed=0), ["Ana", "Bot"], Rules(), store
    )
    record = session.match.record()
    record["log"] = [*record["log"][:1], {"seat": 0, "action": "discard 3♥"}]
    store.save(record, session.settings)
    with pytest.raises(StorageError, match=f"^{store.record_path}: the saved match is damaged"):
        Session.resume(store)


# -- reading ------------------------------------------------------------------------------


def test_a_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    feeder = _unblock(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_text(fifo)
    feeder.join()


def test_replay_refuses_a_fifo_and_a_device(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    feeder = _unblock(fifo)
    result = CliRunner().invoke(cli, ["replay", str(fifo)])
    feeder.join()
    assert result.exit_code == EXIT_BAD_INPUT
    assert f"cannot read {fifo}: not a regular file" in result.output
    result = CliRunner().invoke(cli, ["replay", "/dev/zero"])
    assert result.exit_code == EXIT_BAD_INPUT
    assert "cannot read /dev/zero: not a regular file" in result.output


def test_replay_refuses_a_file_over_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MOST_BYTES", 1024 * 1024)
    big = tmp_path / "big.json"
    big.write_text(" " * (1024 * 1024 + 1), "utf-8")
    result = CliRunner().invoke(cli, ["replay", str(big)])
    assert result.exit_code == EXIT_BAD_INPUT
    assert f"cannot read {big}: larger than 1 MiB" in result.output


def test_a_model_file_nested_without_end_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "model.json"
    model.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(BotError, match="is not a discard model: not JSON"):
        make_bot(f"greedy:model={model}")


# -- the arena and the solver keep to what can be done ------------------------------------------


def test_arena_players_below_two_is_an_error() -> None:
    for players in ("-1", "0"):
        result = CliRunner().invoke(cli, ["arena", "--bots", "random,simple", "--hands", "1", "--players", players])
        assert result.exit_code == EXIT_BAD_INPUT, result.output
        assert f"play with 2 to 4 players, not {players}" in result.output
    with pytest.raises(RulesError):
        ArenaConfig(bots=("random", "simple"), players=-1, boards=1).check()


class _CountingExecutor(Executor):
    """Plays each job at once; refuses a job past the first 64 while no outcome has been read."""

    def __init__(self) -> None:
        self.submitted = 0
        self.read = False

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        if self.submitted > 64 and not self.read:
            raise AssertionError("more boards handed out than are played at a time")
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


class _Enough(Exception):
    pass


def test_the_arena_hands_out_boards_as_it_goes() -> None:
    """The first outcome is read after a few boards were handed out, not every board."""
    config = ArenaConfig(bots=("random", "random"), players=2, boards=100_000, mode="hands", seed=1)
    executor = _CountingExecutor()

    def stop(outcome: object) -> None:
        executor.read = True
        raise _Enough

    with pytest.raises(_Enough):
        run_arena(config, executor=executor, progress=stop)
    assert 1 <= executor.submitted <= 64


def test_the_solver_refuses_more_cards_than_any_hand_holds() -> None:
    rules = Rules()
    deck = list(rules.cards())
    for function in (best_arrangement, loose_points, check_hand):
        with pytest.raises(HandError, match=f"a hand holds at most {MOST_CARDS} cards, not 32"):
            function(deck[:32], rules)
    assert best_arrangement(deck[:MOST_CARDS], rules).points >= 0
    Rules(hand_size=MOST_CARDS - 1, max_players=3)  # the largest hand the rules allow, and the card drawn
    with pytest.raises(RulesError):
        Rules(hand_size=MOST_CARDS, max_players=2)
    assert isinstance(deck[0], Card)
