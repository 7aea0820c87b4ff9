"""Where the terminal game keeps the last match: its game record and the settings to resume it.

The record (``last-match.json``) is a plain game record, as ``chinchon
replay`` reads it; the settings (``last-match.settings.json``) say which
seat is the player, which bots sit at the other seats and how fast they
play. Both live in the user's data directory, or in ``CHINCHON_DATA_DIR``
when that is set.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from chinchon.errors import N_, ChinchonError
from chinchon.files import read_text, sync_folder, write_temporary, write_whole
from chinchon.i18n import LANGUAGES, translate_error
from chinchon.record import RecordError, dumps, loads

__all__ = ["DATA_DIR_VARIABLE", "LOG_KEPT", "SORTS", "Settings", "StorageError", "Store", "data_dir", "write_whole"]

DATA_DIR_VARIABLE = "CHINCHON_DATA_DIR"
"""The environment variable that overrides the data directory."""

RECORD_FILE = "last-match.json"
SETTINGS_FILE = "last-match.settings.json"
DIGEST_KEY = "record_sha256"
"""The settings' key for the digest of the record they were saved with."""
MOST_SPEED = 60.0
"""The longest pause between the bots' moves, in seconds."""


LOG_KEPT = 200
"""How many of the log's latest lines a save keeps."""
SORTS = ("suit", "rank", "own")
"""The orders of the hand: by suit, by rank, or the player's own."""


def _text(value: Any) -> str:
    """A saved text: a string without control characters."""
    if not isinstance(value, str) or any(char < " " or "\x7f" <= char < "\xa0" for char in value):
        raise ValueError(value)
    if any("\ud800" <= char <= "\udfff" for char in value):
        raise ValueError(value)
    return value


def _texts(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError(value)
    return tuple(_text(item) for item in value)


class StorageError(ChinchonError):
    """A saved match that cannot be read."""


def data_dir() -> Path:
    """The directory of the saved match: ``CHINCHON_DATA_DIR``, else the user's data directory."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    return Path(override) if override else Path(platformdirs.user_data_dir("chinchon"))


@dataclass(frozen=True)
class Settings:
    """How a match of the terminal game is played: the player's seat, the bots, the preset, the pace.

    ``preset`` names the rules for the player: the preset, and any options given on top of it
    (``clasico, limit=50``); the exact rules are the record's. ``log``, ``sort``, ``own`` and ``picked``
    are the table as the player left it: the log's latest lines, the order of the hand (``suit``,
    ``rank`` or ``own``), the player's own order of the cards and the picked card (as card text);
    ``lang`` is the language the log was written in. Saves from before they were kept have none of them.
    """

    preset: str
    bots: tuple[str, ...]
    seed: int
    human: int = 0
    speed: float = 0.8
    log: tuple[str, ...] = ()
    sort: str = "suit"
    own: tuple[str, ...] = ()
    picked: str | None = None
    lang: str | None = None

    def played(self) -> Settings:
        """The settings of how the match is played, without the table's state."""
        return dataclasses.replace(self, log=(), sort="suit", own=(), picked=None, lang=None)

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-able mapping."""
        return {
            "preset": self.preset,
            "bots": list(self.bots),
            "seed": self.seed,
            "human": self.human,
            "speed": self.speed,
            "log": list(self.log[-LOG_KEPT:]),
            "sort": self.sort,
            "own": list(self.own),
            "picked": self.picked,
            "lang": self.lang,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        """Settings from :meth:`to_dict`'s output.

        Raises:
            StorageError: the mapping is not settings.
        """
        try:
            settings = cls(
                preset=str(data["preset"]),
                bots=tuple(str(bot) for bot in data["bots"]),
                seed=int(data["seed"]),
                human=int(data["human"]),
                speed=float(data["speed"]),
                log=_texts(data.get("log", [])),
                sort=_text(data.get("sort", "suit")),
                own=_texts(data.get("own", [])),
                picked=None if data.get("picked") is None else _text(data["picked"]),
                lang=None if data.get("lang") is None else _text(data["lang"]),
            )
        except (KeyError, TypeError, ValueError, OverflowError, AttributeError):
            raise StorageError(N_("the saved settings are damaged")) from None
        if not 0 <= settings.speed < math.inf:  # NaN fails too
            raise StorageError(N_("the saved settings are damaged"))
        if settings.sort not in SORTS or settings.lang not in (None, *LANGUAGES):
            raise StorageError(N_("the saved settings are damaged"))
        # Saves from before the limit may be slower: they play at the slowest pace allowed now.
        return dataclasses.replace(settings, speed=min(settings.speed, MOST_SPEED))


class Store:
    """The saved last match in a directory (by default :func:`data_dir`)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else data_dir()

    @property
    def record_path(self) -> Path:
        """The game record of the last match."""
        return self.directory / RECORD_FILE

    @property
    def settings_path(self) -> Path:
        """The settings of the last match."""
        return self.directory / SETTINGS_FILE

    def save(self, record: dict[str, Any], settings: Settings) -> None:
        """Save a match's record and settings, replacing the last match: both files, or neither.

        Both are written to temporary files first, so a failed write (a full disk) leaves the
        previous pair as it was. The settings name their record by its digest and are moved into
        place first: a process killed before it moved the record leaves that record's temporary
        file, which :meth:`load` finds and moves.

        Raises:
            OSError: the files cannot be written.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        record_text = dumps(record) + "\n"
        document = {**settings.to_dict(), DIGEST_KEY: _digest(record_text)}
        record_temporary, record_target = write_temporary(self.record_path, record_text)
        written = [record_temporary]
        try:
            settings_temporary, settings_target = write_temporary(
                self.settings_path, json.dumps(document, indent=1) + "\n"
            )
            written.append(settings_temporary)
            os.replace(settings_temporary, settings_target)
            written.remove(settings_temporary)
        except BaseException:
            for temporary in written:
                temporary.unlink(missing_ok=True)
            raise
        # Kept if this fails: the settings now name this record, and load() finishes the move.
        os.replace(record_temporary, record_target)
        sync_folder(record_target.parent)

    def load(self) -> tuple[dict[str, Any], Settings] | None:
        """The saved record and settings, or ``None`` when no match was saved.

        Raises:
            StorageError: the files cannot be read, or are damaged (the message names the file).
        """
        settings_text = self._read(self.settings_path)
        if settings_text is None:
            return None
        try:
            document = json.loads(settings_text)
        except (ValueError, RecursionError):
            raise StorageError(N_("{file}: the saved settings are damaged"), file=self.settings_path) from None
        try:
            settings = Settings.from_dict(document)
        except StorageError:
            raise StorageError(N_("{file}: the saved settings are damaged"), file=self.settings_path) from None
        record_text = self._read(self.record_path)
        digest = document.get(DIGEST_KEY)
        if isinstance(digest, str) and (record_text is None or _digest(record_text) != digest):
            record_text = self._finish_move(digest)
        if record_text is None:
            return None
        try:
            return loads(record_text), settings
        except RecordError as error:
            raise StorageError(
                N_("{file}: the saved match is damaged ({error})"), file=self.record_path, error=translate_error(error)
            ) from None

    @staticmethod
    def _read(path: Path) -> str | None:
        try:
            return read_text(path)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise StorageError(N_("cannot read {file}: {error}"), file=path, error=error.strerror or error) from None
        except UnicodeDecodeError as error:
            raise StorageError(N_("cannot read {file}: {error}"), file=path, error=error.reason) from None

    def _finish_move(self, digest: str) -> str:
        """The record the settings name, from the temporary file a killed save left; it is moved into place.

        Raises:
            StorageError: there is no such file: the record does not belong to the settings.
        """
        for temporary in self.directory.glob(f".{RECORD_FILE}.*.tmp"):
            try:
                text = read_text(temporary)
            except (OSError, UnicodeDecodeError):
                continue
            if _digest(text) == digest:
                with contextlib.suppress(OSError):  # a read-only folder: resume from the text all the same
                    os.replace(temporary, self.record_path)
                return text
        raise StorageError(N_("{file}: the saved match does not belong to its settings"), file=self.record_path)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
