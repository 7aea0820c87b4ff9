"""Analyses of finished matches, asked for over HTTP and made off the event loop.

``POST /api/rooms/{code}/analysis`` (the room's latest finished match) or
``POST /api/games/{id}/analysis`` (a finished match of the history) queues
the analysis of one seat of the match (:mod:`chinchon.analysis`); ``GET``
reads how far it is and, once done, the analysis itself. An analysis
belongs to a record and a seat: the two routes to one match share it. The work runs in a pool of
worker processes of its own (a :class:`~chinchon.server.bots.BotPool`, so
that the bots' moves never wait behind it), a few decisions at a time.

Bounds: one analysis at a time for a room (a second request for it while one
is queued or running is refused with ``analysis_running``: it is not
joined; its client reads the one under way with ``GET``), and at most
``most`` queued or running in all (``server_busy`` beyond). An analysis
that nobody asked about for ``idle`` seconds (no ``GET``) is cancelled
before its next piece of work. Finished analyses are kept in memory, the
last ``kept`` of them, by the node that made them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chinchon.analysis import AnalysisError, Decision, Settings, assemble, plan, run_unit
from chinchon.errors import N_
from chinchon.record import RecordError
from chinchon.server.bots import BotPool
from chinchon.server.rooms import Refused

__all__ = ["AnalysisQueue", "digest"]

log = logging.getLogger("chinchon.server")


def digest(record: Mapping[str, Any]) -> str:
    """What tells records apart: a digest of the record's JSON."""
    return hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@dataclass
class _Entry:
    room: str
    seat: int
    status: str = "queued"
    done: int = 0
    total: int = 0
    analysis: dict[str, Any] | None = None
    error: str | None = None
    waited: float = field(default_factory=time.monotonic)
    task: asyncio.Task[None] | None = None

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    def view(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "seat": self.seat,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "analysis": self.analysis,
            "error": self.error,
        }


class AnalysisQueue:
    """The server's analyses: queued, run a unit of work at a time, bounded, and dropped when nobody waits."""

    def __init__(
        self,
        pool: BotPool,
        *,
        most: int = 4,
        idle: float = 30.0,
        kept: int = 100,
        settings: Settings | None = None,
    ) -> None:
        self.pool = pool
        self.most = most
        self.idle = idle
        self.kept = kept
        self.settings = settings or Settings()
        self.entries: OrderedDict[tuple[str, int], _Entry] = OrderedDict()

    def running(self) -> int:
        """How many analyses are queued or running."""
        return sum(1 for entry in self.entries.values() if entry.active)

    def start(self, room: str, seat: int, record: Mapping[str, Any]) -> dict[str, Any]:
        """Queue the analysis of ``seat`` in this record of room ``room``; its status (done already: the analysis).

        Raises:
            Refused: ``bad_seat``; ``analysis_running`` while one of the room's is queued or running;
                ``server_busy`` when ``most`` are.
        """
        seats = record.get("seats")
        if not isinstance(seats, list) or not 0 <= seat < len(seats):
            raise Refused("bad_seat", N_("seat {seat} is not one of the seats of the match"), seat=seat)
        key = (digest(record), seat)
        entry = self.entries.get(key)
        if entry is not None and entry.status == "done":
            entry.waited = time.monotonic()
            return entry.view()
        if any(other.room == room and other.active for other in self.entries.values()):
            raise Refused("analysis_running", N_("an analysis of room {code}'s match is already under way"), code=room)
        if self.running() >= self.most:
            raise Refused("server_busy", N_("too many analyses are under way; try again in a minute"))
        entry = _Entry(room, seat)
        self.entries[key] = entry
        self.entries.move_to_end(key)
        entry.task = asyncio.get_running_loop().create_task(self._run(entry, record))
        self._forget()
        return entry.view()

    def status(self, room: str, record: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """The analysis of ``seat`` in this record as it stands (someone is waiting for it): ``none`` if not asked."""
        entry = self.entries.get((digest(record), seat))
        if entry is None:
            return _Entry(room, seat, status="none").view()
        entry.waited = time.monotonic()
        return entry.view()

    async def _run(self, entry: _Entry, record: Mapping[str, Any]) -> None:
        try:
            match, units = await asyncio.to_thread(plan, record, entry.seat, self.settings)
            entry.total = sum(len(unit.numbers) for unit in units)
            decisions: list[Decision] = []
            for unit in units:
                if time.monotonic() - entry.waited > self.idle:
                    entry.status = "cancelled"
                    log.info("analysis cancelled", extra={"room": entry.room, "seat": entry.seat})
                    return
                entry.status = "running"
                _, rated = await self.pool.run(run_unit, unit)
                decisions.extend(rated)
                entry.done = len(decisions)
            entry.analysis = assemble(match, entry.seat, self.settings, decisions).to_dict()
            entry.status = "done"
        except (AnalysisError, RecordError) as exc:
            entry.status = "failed"
            entry.error = str(exc)
        except asyncio.CancelledError:
            entry.status = "cancelled"
            raise
        except Exception:
            log.exception("analysis failed", extra={"room": entry.room, "seat": entry.seat})
            entry.status = "failed"
            entry.error = "internal error"
        finally:
            entry.task = None
            self._forget()

    def _forget(self) -> None:
        """Drop the oldest finished entries beyond ``kept``."""
        finished = [key for key, entry in self.entries.items() if not entry.active]
        for key in finished[: max(0, len(finished) - self.kept)]:
            del self.entries[key]

    async def close(self) -> None:
        """Cancel what is under way and stop the workers."""
        tasks = [entry.task for entry in self.entries.values() if entry.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.pool.close()
