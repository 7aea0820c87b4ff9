"""Where the terminal game keeps the last match: its game record and the settings to resume it.

The record (``last-match.json``) is a plain game record, as ``chinchon
replay`` reads it; the settings (``last-match.settings.json``) say which
seat is the player, which bots sit at the other seats and how fast they
play. Both live in the user's data directory, or in ``CHINCHON_DATA_DIR``
when that is set.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from chinchon.errors import N_, ChinchonError
from chinchon.record import dumps, loads

__all__ = ["DATA_DIR_VARIABLE", "Settings", "StorageError", "Store", "data_dir", "write_whole"]

DATA_DIR_VARIABLE = "CHINCHON_DATA_DIR"
"""The environment variable that overrides the data directory."""

RECORD_FILE = "last-match.json"
SETTINGS_FILE = "last-match.settings.json"
MOST_SPEED = 60.0
"""The longest pause between the bots' moves, in seconds."""


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
    (``clasico, limit=50``); the exact rules are the record's.
    """

    preset: str
    bots: tuple[str, ...]
    seed: int
    human: int = 0
    speed: float = 0.8

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-able mapping."""
        return {
            "preset": self.preset,
            "bots": list(self.bots),
            "seed": self.seed,
            "human": self.human,
            "speed": self.speed,
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
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            raise StorageError(N_("the saved settings are damaged")) from None
        if not 0 <= settings.speed < math.inf:  # NaN fails too
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
        """Save a match's record and settings, replacing the last match.

        Raises:
            OSError: the files cannot be written.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        write_whole(self.settings_path, json.dumps(settings.to_dict(), indent=1) + "\n")
        write_whole(self.record_path, dumps(record) + "\n")

    def load(self) -> tuple[dict[str, Any], Settings] | None:
        """The saved record and settings, or ``None`` when no match was saved.

        Raises:
            StorageError: the files cannot be read.
            RecordError: the record is not JSON.
        """
        texts = []
        for path in (self.record_path, self.settings_path):
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                return None
            except OSError as error:
                raise StorageError(
                    N_("cannot read {file}: {error}"), file=path, error=error.strerror or error
                ) from None
            except UnicodeDecodeError as error:
                raise StorageError(N_("cannot read {file}: {error}"), file=path, error=error.reason) from None
        record_text, settings_text = texts
        try:
            settings = json.loads(settings_text)
        except (ValueError, RecursionError):
            raise StorageError(N_("the saved settings are damaged")) from None
        return loads(record_text), Settings.from_dict(settings)


def write_whole(path: str | Path, text: str) -> None:
    """Write a file whole or not at all: a failed write leaves the old file as it was, and no temporary file.

    A new file gets the usual permissions (the umask's); a file written again keeps its own, and
    a symbolic link is written through (its target is replaced).

    Raises:
        OSError: the file cannot be written (a read-only file included).
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
    temporary = target.parent / f".{target.name}.{secrets.token_hex(8)}.tmp"
    # os.open applies the umask, as open() would; mkstemp would make the file private (0600).
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as output:
            output.write(text)
        if target.exists():
            os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
